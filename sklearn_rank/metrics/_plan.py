"""The plan of one call site: the parsed requests, the resolved conventions, and the
statistics over the whole input that the requested metrics need.

`evaluate`, the scorers, a comparison and the engines' specs each make one plan; the
statistics it needs (`_statistics`) are computed once over the whole input, before the
input is cut into blocks, partitions or runs, and filled into the requests' measure
parameters, so that every part computes with the same numbers.
"""

import dataclasses
from collections.abc import Mapping

from ..conventions import resolve
from ._names import _parse_requests, _Request


@dataclasses.dataclass(frozen=True)
class _Plan:
    """What one call computes.

    requests : tuple of `_Request` (label, registry entry, cut-off, parameters).
    conventions : the resolved conventions (`sklearn_rank.conventions.resolve`).
    """

    requests: tuple
    conventions: dict

    @classmethod
    def from_names(cls, metrics, conventions):
        """Parse metric names and resolve conventions as `evaluate` takes them (a name
        given twice is computed once; a preset's default cut-off fills names without one)."""
        requests, resolved = _requests(metrics, conventions)
        return cls(tuple(requests), resolved)

    @property
    def labels(self):
        return [r.label for r in self.requests]

    @property
    def statistics(self):
        """The statistics over the whole input that some request still needs (its
        parameter left at None), each once."""
        return _needed(self.requests)

    def with_statistics(self, values):
        """This plan with the statistics' values filled in (``values``: name -> the
        whole input's value, as a statistic's ``merge`` gives it; None: nothing found)."""
        return dataclasses.replace(self, requests=tuple(_filled(self.requests, values)))

    def for_queries(self, queries, n_threads=1):
        """This plan with the statistics of ``queries`` (a `_Queries`: the whole input)."""
        return dataclasses.replace(
            self, requests=tuple(_with_statistics_of(self.requests, queries, n_threads))
        )


def _needed(requests):
    needed = {}
    for request in requests:
        for statistic in request.metric.statistics:
            if request.params.get(statistic.parameter) is None:
                needed.setdefault(statistic.name, statistic)
    return tuple(needed.values())


def _filled(requests, values):
    """``requests`` with each statistic's parameter set where a request left it None."""
    filled = []
    for request in requests:
        params = dict(request.params)
        for statistic in request.metric.statistics:
            if params.get(statistic.parameter) is None and statistic.name in values:
                params[statistic.parameter] = statistic.value(values[statistic.name])
        if params != request.params:
            request = dataclasses.replace(request, params=params)
        filled.append(request)
    return filled


def _statistics_of(statistics, queries, n_threads=1):
    """Each statistic's value over ``queries``."""
    return {s.name: s.of_queries(queries, n_threads) for s in statistics}


def _merged(statistics, parts):
    """The whole input's values from its parts' (a list of name -> value dicts)."""
    return {s.name: s.merge(part.get(s.name) for part in parts) for s in statistics}


def _with_statistics_of(requests, queries, n_threads=1):
    """``requests`` with the statistics they need computed over ``queries`` (the whole
    input, before it is cut into blocks)."""
    statistics = _needed(requests)
    if not statistics:
        return list(requests)
    values = _merged(statistics, [_statistics_of(statistics, queries, n_threads)])
    return _filled(requests, values)


def _requests(metrics, conventions):
    """Parse metric names and resolve the conventions, as `evaluate` takes them.

    Returns the requests, (label, registry entry, k), and the resolved conventions.
    """
    if isinstance(metrics, (bytes, Mapping)) or not (
        isinstance(metrics, str) or hasattr(metrics, "__iter__")
    ):
        raise ValueError(
            "metrics must be a metric name or a list of names such as ['ndcg@10', 'map']; "
            f"got {metrics!r}."
        )
    names = [metrics] if isinstance(metrics, str) else list(metrics)
    if not names:
        raise ValueError("metrics must name at least one metric; got an empty list.")
    requests = [request for name in names for request in _parse_requests(name)]
    unique = {}
    for request in requests:  # a name given twice is computed once
        unique.setdefault(request.label, request)
    requests = list(unique.values())
    conventions = dict(conventions)
    conventions = resolve(conventions.pop("convention", None), conventions)
    default_k = conventions["default_k"]
    if default_k is not None:
        requests = [
            _Request(
                r.label,
                r.metric,
                default_k if r.k is None and r.metric.takes_k else r.k,
                r.params,
                r.overrides,
            )
            for r in requests
        ]
    return requests, conventions
