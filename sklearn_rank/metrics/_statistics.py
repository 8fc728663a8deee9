"""Statistics over the whole input that a metric reads: computed once, before the input is
cut into blocks of queries (``n_jobs``), partitions (Dask, Spark) or the runs of a
comparison, and handed to every part as a measure parameter.

A per-query metric depends on its query's items only, with one exception so far: ERR
without ``max_grade`` reads the top of the grade scale, the largest grade of the truth.
Computed on a block, it would be that block's largest grade, and the value of every query
would depend on which queries share its block (on ``n_jobs``), on which partitions an
engine makes, or on which queries a run of a comparison ranks. A registry entry names the
statistics it needs (`_Metric.statistics`); the plan (`metrics._plan`) computes them once.
"""

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..utils._threads import _value_range


def _relevance_range(queries, n_threads=1):
    """The least and the greatest relevance judged non-zero (0.0 and 0.0 if none), as far
    as a check of their sign and size needs: zeros may be counted in. Kept on ``queries``
    (the check of the relevance and ERR's top grade both read it)."""
    stored = queries.rel if queries.excluded is None else None
    if queries.rel is None:
        stored = queries.truth_rel  # a matrix's stored judgments, zeros apart
    # One thread reads the judged list the kernel builds and caches anyway; on several,
    # blocks build their own lists, so the whole one would be made for this check alone.
    from_stored = n_threads > 1 and stored is not None
    cached = queries.__dict__.setdefault("_relevance_range", {})  # frozen: a cache
    if from_stored not in cached:
        cached[from_stored] = _range_of(queries, stored, n_threads, from_stored)
    return cached[from_stored]


def _range_of(queries, stored, n_threads, from_stored):
    if from_stored:
        # Every judged relevance is there (or in extra_rel): no list of them is made.
        parts = [stored] if queries.extra_rel is None else [stored, queries.extra_rel]
        ranges = [r for r in (_value_range(values, n_threads) for values in parts) if r]
        if ranges:
            return float(min(low for low, _ in ranges)), float(max(high for _, high in ranges))
        return 0.0, 0.0
    _codes, judged = queries.judged()
    return (float(judged.min()), float(judged.max())) if judged.size else (0.0, 0.0)


@dataclass(frozen=True)
class _Statistic:
    """A number over the whole input that fills a measure parameter left at None.

    name : what it is ("top_grade"), the key of its value in a plan.
    parameter : the measure parameter it fills when a request leaves it None.
    of_queries : (`_Queries`, n_threads) -> its value over those queries (a part's value
        on a part: parts merge with ``merge``).
    merge : (iterable of parts' values, None for a part without any) -> the whole's value.
    value : the whole's value (None: nothing was found) -> the parameter's value.
    column : how a table engine computes a part's value: (aggregation, column role) over
        the judgment rows of the queries `evaluate` keeps (``("max", "relevance")``).
    """

    name: str
    parameter: str
    of_queries: Callable
    merge: Callable
    value: Callable
    column: tuple


def _largest_grade(queries, n_threads=1):
    return _relevance_range(queries, n_threads)[1]


def _largest(values):
    found = [float(v) for v in values if v is not None and np.isfinite(v)]
    return max(found) if found else None


def _grade_scale(highest):
    """ERR's top grade: the largest grade judged, at least 1 (a truth of 0s and 1s, or of
    no relevant item at all, is read on the binary scale)."""
    return 1.0 if highest is None else max(float(highest), 1.0)


TOP_GRADE = _Statistic(
    name="top_grade",
    parameter="max_grade",
    of_queries=_largest_grade,
    merge=_largest,
    value=_grade_scale,
    column=("max", "relevance"),
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
