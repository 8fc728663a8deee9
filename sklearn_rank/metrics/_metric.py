"""A registry entry (`_Metric`) and the range its values are checked against.

The entries themselves are in `_registry` (and `_beyond_registry`); this module holds what
every entry is made of, so that the registry's modules stay lists of metrics.
"""

import re
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np


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
    needs_k: bool = False  # refused without a cut-off: named with @K only
    first_relevant_only: bool = False  # reads only each query's first relevant group
    negative_relevance: bool = False  # accepts negative y_true (linear gain only)
    no_relevant_default: object = 0.0
    parameters: tuple = ()  # the measure's own parameters (conventions.MEASURE_PARAMETERS)
    # How the per-query values combine: "mean", "sum" (counts, as trec_eval's all line)
    # or "geometric" (exp of the mean log of max(value, 1e-5), trec_eval's gm_map).
    aggregate: str = "mean"
    needs_judged: bool = False  # reads judged non-relevant positions (the kernel's flag)
    # A value for every query, relevant items or not (counts, Judged@k): no_relevant never
    # applies, as in trec_eval's sums.
    scores_without_relevant: bool = False
    order_free: bool = False  # counts items only: alone, they need no sort
    family: str = "core"  # "core": the first metrics; "trec": trec_eval's and later ones
    # Statistics over the whole input that fill a measure parameter left at None
    # (`_statistics._Statistic`): computed once per call, never per block of queries.
    statistics: tuple = ()
    # What the measure reads: "query", the ranking of one query's candidates (the kernel's
    # tie groups); "list", one user's recommended items with the training popularity or
    # item features (per-user values); "corpus", every user's recommended items at once:
    # ``reduce`` gives a block's partial counts and ``corpus_value`` the value of their sum
    # (`_beyond_registry`).
    level: str = "query"
    corpus_value: Callable | None = None
    # Checks a request against the prepared queries' side inputs (`_clicks`): None when
    # the metric reads none.
    side_inputs: Callable | None = None

    def __post_init__(self):
        if self.level != "corpus" and not isinstance(self.reduce, _Guarded):
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
        result = self.reduce(ranking, k, **conventions)
        if isinstance(result, dict):  # partial counts of a corpus-level value
            return result
        values, has_relevant = result
        # A copy where a value changes: the values may be a cached array.
        return _within_bounds(np.asarray(values, dtype=np.float64), self.bounds), has_relevant


def _within_bounds(values, bounds, copy=True):
    """``values`` (of any shape), those a rounding (`_ROUNDING`) beyond ``bounds`` (as
    `_bounds` gives them; None: unbounded) made the bound itself: a copy where one
    changes, unless ``copy`` is False (then in place)."""
    if bounds is None or values.size == 0:
        return values
    low, high = bounds
    # The largest and least values first (one pass each, NaN passed over): most arrays
    # have nothing to change, and a curve's matrix is large.
    if np.fmax.reduce(values, axis=None) > high:
        above = (values > high) & (values <= high + _ROUNDING)
        if above.any():
            values = values.copy() if copy else values
            values[above] = high
    if np.fmin.reduce(values, axis=None) < low:
        below = (values < low) & (values >= low - _ROUNDING)
        if below.any():
            values = values.copy() if copy else values
            values[below] = low
    return values
