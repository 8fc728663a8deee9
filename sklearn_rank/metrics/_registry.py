"""The one registry of metrics: evaluate, the public functions, tests and docs read it."""

import re
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from . import _reductions


@dataclass(frozen=True)
class _Metric:
    name: str
    function: str  # public function name in sklearn_rank
    reduce: Callable
    summary: str
    takes_k: bool = True
    conventions: tuple = ()  # convention parameters beyond ties / no_relevant
    greater_is_better: bool = True
    value_range: str = "[0, 1]"
    ranks_without_k: bool = True  # False: without a cut-off the value ignores the order
    first_relevant_only: bool = False  # reads only each query's first relevant group
    negative_relevance: bool = False  # accepts negative y_true (linear gain only)
    no_relevant_default: object = 0.0

    def __post_init__(self):
        if not isinstance(self.reduce, _Guarded):
            object.__setattr__(self, "reduce", _Guarded(self.reduce, _bounds(self.value_range)))


# Closed forms evaluated in floating point land a few ulps from the exact value: an NDCG
# of a perfect ranking can be 1 + 9e-16 (its DCG and ideal DCG are summed differently),
# a tie-averaged AP 1 + 2e-15, and a tie group of 10^5 items carries a relative error near
# 1e-10. A value that far beyond its metric's range is the bound itself; one further out
# is left alone, so that a real error stays visible.
_ROUNDING = 1e-9
_INTERVAL = re.compile(r"^[\[(](-?[0-9]+), (-?[0-9]+)[\])]$")


def _bounds(value_range):
    """(low, high) of a bounded range such as "[0, 1]" or "(0, 1]"; None when unbounded."""
    match = _INTERVAL.match(value_range)
    return None if match is None else (float(match.group(1)), float(match.group(2)))


@dataclass(frozen=True)
class _Guarded:
    """A metric's reduction, keeping the promises the registry documents for it (a class,
    not a closure, so that registry entries still pickle)."""

    reduce: Callable
    bounds: tuple | None

    def __call__(self, ranking, k, **conventions):
        values, has_relevant = self.reduce(ranking, k, **conventions)
        if self.bounds is not None:
            low, high = self.bounds
            above = np.flatnonzero((values > high) & (values <= high + _ROUNDING))
            below = np.flatnonzero((values < low) & (values >= low - _ROUNDING))
            if above.size or below.size:  # a copy: the values may be a cached array
                values = values.copy()
                values[above], values[below] = high, low
        return values, has_relevant


_THRESHOLD = ("relevance_threshold",)
_SIGNED = "[0, inf); (-inf, inf) with negative relevance"

METRICS = {
    m.name: m
    for m in (
        _Metric(
            "precision",
            "precision_at_k_score",
            _reductions.precision,
            "hits in the top k / k",
            conventions=_THRESHOLD + ("short_lists",),
            ranks_without_k=False,
        ),
        _Metric(
            "recall",
            "recall_at_k_score",
            _reductions.recall,
            "hits in the top k / number of relevant items",
            conventions=_THRESHOLD,
            ranks_without_k=False,
        ),
        _Metric(
            "f1",
            "f1_at_k_score",
            _reductions.f1,
            "per-query harmonic mean of Precision@k and Recall@k",
            conventions=_THRESHOLD + ("short_lists",),
            ranks_without_k=False,
        ),
        _Metric(
            "hit_rate",
            "hit_rate_score",
            _reductions.hit_rate,
            "1 if a relevant item is in the top k (1-call@k)",
            conventions=_THRESHOLD,
            ranks_without_k=False,
            first_relevant_only=True,
        ),
        _Metric(
            "mrr",
            "mean_reciprocal_rank_score",
            _reductions.reciprocal_rank,
            "1 / rank of the first relevant item (0 if none in the top k)",
            conventions=_THRESHOLD,
            first_relevant_only=True,
        ),
        _Metric(
            "map",
            "mean_average_precision_score",
            _reductions.average_precision,
            "mean of Precision@rank over relevant items ranked in the top k, / denominator",
            conventions=_THRESHOLD + ("ap_denominator",),
        ),
        _Metric(
            "cg",
            "cg_score",
            _reductions.cumulative_gain,
            "sum of gains in the top k",
            conventions=("gain",),
            value_range=_SIGNED,
            negative_relevance=True,
            ranks_without_k=False,
        ),
        _Metric(
            "dcg",
            "dcg_score",
            _reductions.discounted_cumulative_gain,
            "sum of gain / log2(position + 1) over the top k",
            conventions=("gain", "log_base"),
            value_range=_SIGNED,
            negative_relevance=True,
        ),
        _Metric(
            "ndcg",
            "ndcg_score",
            _reductions.normalized_dcg,
            "DCG@k / DCG@k of the ideal ordering of all judged items",
            conventions=("gain",),
        ),
        _Metric(
            "auc",
            "ranking_auc_score",
            _reductions.ranking_auc,
            "share of (relevant, non-relevant) pairs ranked in the right order; "
            "with @k only pairs inside the top k (Hivemall)",
            conventions=_THRESHOLD,
        ),
        _Metric(
            "arp",
            "average_relative_position",
            _reductions.average_relative_position,
            "mean position of the relevant items / number of candidates (lower is better)",
            takes_k=False,
            conventions=_THRESHOLD,
            greater_is_better=False,
            value_range="(0, 1]",
            no_relevant_default="skip",
        ),
        _Metric(
            "kendall_tau",
            "kendall_tau_score",
            _reductions.kendall_tau,
            "Kendall tau-b between the ranking and the relevance",
            takes_k=False,
            value_range="[-1, 1]",
            negative_relevance=True,
        ),
    )
}

_LARGEST_K = 2**62  # cut-offs are int64 positions
_NAME = re.compile(r"^([a-z_0-9]+?)(?:@([0-9]+))?$")


def get_metric_names():
    """Names accepted by `evaluate`, with ``@K`` where a cut-off applies.

    Returns
    -------
    names : list of str
        Sorted metric names; ``K`` stands for any positive integer.

    Examples
    --------
    >>> from sklearn_rank import get_metric_names
    >>> "ndcg@K" in get_metric_names()
    True
    """
    names = []
    for metric in METRICS.values():
        names.append(metric.name)
        if metric.takes_k:
            names.append(metric.name + "@K")
    return sorted(names)


def _parse_name(name):
    """'ndcg@10' -> (registry entry, 10); 'map' -> (entry, None)."""
    if not isinstance(name, str):
        raise ValueError(f"metric names must be strings such as 'ndcg@10'; got {name!r}.")
    match = _NAME.match(name.strip())
    metric = METRICS.get(match.group(1)) if match else None
    if metric is None:
        raise ValueError(
            f"Unknown metric name {name!r}. Known names: {', '.join(get_metric_names())} "
            "(K a positive integer)."
        )
    k = match.group(2)
    if k is not None and not metric.takes_k:
        raise ValueError(f"Metric {metric.name!r} takes no cut-off; got {name!r}.")
    if k is not None:
        # Digits beyond int64 are refused before int(), whose own limit (4,300 digits)
        # would name neither the metric nor the cut-off.
        k = k.lstrip("0") or "0"
        too_long = len(k) > len(str(_LARGEST_K))
        if too_long or not 0 < int(k) <= _LARGEST_K:
            shown = name if len(name) <= 40 else f"{name[:30]}...{name[-6:]}"
            digits = f"; got {len(k)} digits" if too_long else ""
            raise ValueError(
                f"The cut-off in {shown!r} must be a positive integer up to 2**62{digits}."
            )
    return metric, None if k is None else int(k)


def _markdown_table():
    """The metric table of docs/metrics.md, generated from the registry."""
    rows = [
        "| name | function | per query | range | better | conventions |",
        "|---|---|---|---|---|---|",
    ]
    for metric in METRICS.values():
        name = f"`{metric.name}`" + (f", `{metric.name}@K`" if metric.takes_k else "")
        conventions = ", ".join(f"`{c}`" for c in ("ties",) + metric.conventions + ("no_relevant",))
        rows.append(
            f"| {name} | `{metric.function}` | {metric.summary} | {metric.value_range} | "
            f"{'higher' if metric.greater_is_better else 'lower'} | {conventions} |"
        )
    return "\n".join(rows) + "\n"
