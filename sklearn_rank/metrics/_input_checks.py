"""Checks of an input against the requested metrics, and what the defaults did: the
relevance each metric can read, the side inputs it needs, the ``no_relevant`` rule of each
metric, and the warnings for users without a relevant item or lists cut short."""

import warnings

import numpy as np

from ..utils._validation import _python_value
from ..utils._warnings import _outside_stacklevel
from ._statistics import _relevance_range

_LARGEST_EXPONENT = 1023  # 2.0 ** 1024 is inf in float64


def _no_relevant_rule(conventions, metric, recommender_form=False):
    """The no_relevant value of one metric: the value given, the preset's value for this
    metric, or the default: "skip" for a recommender's input form (``recommender_form``:
    items with ids or a sparse truth matrix, `inputs._prepared._is_recommender_form`)
    without a preset, as recommender libraries leave out users without test items, else
    the metric's own (0.0 for dense arrays and long format, scikit-learn's value)."""
    if conventions["no_relevant"] is not None:
        return conventions["no_relevant"]
    if metric.name in conventions["metric_no_relevant"]:
        return conventions["metric_no_relevant"][metric.name]
    if recommender_form and conventions.get("convention") is None:
        return "skip"
    return metric.no_relevant_default


def _default_decides(conventions):
    """Whether no rule was chosen for queries without a relevant item (no ``no_relevant``,
    no tool's preset): then a default decides the mean, and `_warn_skipped` says which."""
    return conventions["no_relevant"] is None and conventions.get("convention") is None


def _warn_skipped(skipped, n_queries):
    """Say what the default did with queries without a relevant item: left out of the
    mean (a recommender's input form) or counted as the metric's own value (0 for dense
    arrays and long format, scikit-learn's), since either silently decides the mean.

    skipped : list of (label, number of such queries) or (label, number, rule); a pair
        means the rule "skip".
    """
    by_rule = {}
    for label, count, *rule in skipped:
        by_rule.setdefault(rule[0] if rule else "skip", []).append((label, count))
    for rule, entries in by_rule.items():
        counts = sorted({count for _label, count in entries})
        if len(counts) == 1:
            how_many = f"{counts[0]} of {n_queries} queries"
        else:
            each = ", ".join(f"{label}: {count}" for label, count in entries)
            how_many = f"Some of the {n_queries} queries ({each})"
        if rule == "skip":
            what = (
                "were left out of the mean, as recommender libraries do: the default for a "
                "recommender's input forms (ItemRanking, ItemJudgments, ranked lists, a "
                "sparse truth matrix), and arp's. Pass no_relevant='skip' to keep this "
                "without a warning, or no_relevant=0 to count them as 0."
            )
        else:
            what = (
                f"were counted as {rule:g}, scikit-learn's value: the default for dense "
                "arrays and long format. Pass convention='sklearn' (each metric's own "
                f"value) or no_relevant={rule:g} to keep this without a warning, or "
                "no_relevant='skip' to leave them out of the mean, as for a recommender's "
                "input forms."
            )
        warnings.warn(
            f"{how_many} have no relevant item and {what}",
            UserWarning,
            stacklevel=_outside_stacklevel(),
        )


def _warn_short_lists(requests, queries, ids):
    """Warn when ``exclude`` leaves a ranked list of item ids shorter than a cut-off k
    that it reached before: a top-N list cut before the training items were removed, whose
    @k metrics then see fewer than k recommendations (a recommender filters first)."""
    cut_offs = sorted({r.k for r in requests if r.k is not None})
    before = queries.n_cand_unexcluded
    if not cut_offs or before is None:
        return
    for k in cut_offs:
        short = (before >= k) & (queries.n_cand < k)
        if short.any():
            first = int(np.flatnonzero(short)[0])
            query = (
                f"query number {first}" if ids is None else f"query {_python_value(ids[first])!r}"
            )
            warnings.warn(
                f"exclude left {int(short.sum())} of {queries.n_queries} ranked lists shorter "
                f"than k={k} (e.g. {query}: {int(before[first])} ranked items, "
                f"{int(queries.n_cand[first])} left), so their @{k} metrics see fewer than "
                f"{k} recommendations. Make top-N lists without the excluded items (rank, "
                "remove the user's training items, then cut to N), or pass exclude with "
                "scores for every item (a matrix).",
                UserWarning,
                stacklevel=_outside_stacklevel(),
            )
            return


def _check_relevance(requests, queries, conventions, n_threads=1):
    """Refuse relevance the requested metrics cannot take (negative, or too large for an
    exponential gain)."""
    gain = conventions["gain"]
    lowest, highest = _relevance_range(queries, n_threads)
    if gain == "exponential" and highest > _LARGEST_EXPONENT:
        raise ValueError(
            f"gain='exponential' needs relevance <= {_LARGEST_EXPONENT} (2**rel overflows "
            f"float64 beyond); got {highest!r}."
        )
    if lowest < 0:
        for request in requests:
            label, metric = request.label, request.metric
            takes_gain = "gain" in metric.conventions
            request_gain = request.overrides.get("gain", gain)
            if not (metric.negative_relevance and (request_gain == "linear" or not takes_gain)):
                raise ValueError(
                    f"y_true must be non-negative for {label!r}; got {lowest!r}. Negative "
                    "relevance is accepted only by cg and dcg with gain='linear' and by "
                    "kendall_tau."
                )


def _check_side_inputs(requests, queries):
    """Refuse requests whose side inputs (the click-log estimators' propensities) are
    missing or cannot serve them, before anything is computed."""
    for request in requests:
        if request.metric.side_inputs is not None:
            request.metric.side_inputs(request, queries)
