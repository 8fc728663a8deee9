"""Interpolated precision at many recall levels at once, the curve of
`InterpolatedPrecisionRecallDisplay`: the registry's ``iprec`` at every level, from one
ranking of the input and one call of its reduction (`_trec._interpolated_values`, which
also serves ``iprec`` and ``iprec_avg``), aggregated over queries as `evaluate` does."""

import numpy as np

from ._aggregate import _aggregate
from ._evaluate import _no_relevant_rule, _prepare, _warn_skipped
from ._kernel import _rank
from ._registry import METRICS, _bounds, _within_bounds
from ._trec import ELEVEN_POINTS, _interpolated_values

DEFAULT_RECALL_LEVELS = ELEVEN_POINTS
_LABEL = "iprec_at_recall"


def _check_recall_levels(recall_levels):
    levels = np.asarray(recall_levels if recall_levels is not None else DEFAULT_RECALL_LEVELS)
    if levels.ndim == 0:
        levels = levels[None]
    try:
        levels = levels.astype(np.float64)
    except (TypeError, ValueError):
        levels = np.array([np.nan])
    if (
        levels.ndim != 1
        or levels.size == 0
        or not np.isfinite(levels).all()
        or (levels < 0).any()
        or (levels > 1).any()
    ):
        raise ValueError(
            "recall_levels must be a non-empty 1-D list of numbers in [0, 1]; got "
            f"{recall_levels!r}."
        )
    return levels


def _interpolated_precision(
    y_true,
    y_score,
    *,
    recall_levels=None,
    groups=None,
    exclude=None,
    sample_weight=None,
    per_query=False,
    conventions,
):
    """Interpolated precision at each recall level: the (weighted) mean over queries, or
    per query (n_queries, n_levels), with the values of ``evaluate(..., ["iprec(recall=p)"
    ...])``. ``conventions`` as `resolve` returns them (``iprec_rounding`` among them).
    Returns the levels and the values."""
    levels = _check_recall_levels(recall_levels)
    metric = METRICS["iprec"]
    queries, _ids, weights, item_ids, _side = _prepare(
        [(_LABEL, metric, None)], y_true, y_score, groups, exclude, sample_weight, conventions
    )
    threshold = conventions["relevance_threshold"]
    ranking = _rank(queries, None, conventions["ties"], False, threshold)
    values = _interpolated_values(ranking, levels, conventions["iprec_rounding"], threshold)
    # As the registry's guard does for one level: a rounding beyond 1 is 1.
    values = _within_bounds(np.ascontiguousarray(values.T), _bounds(metric.value_range), copy=False)
    rule = _no_relevant_rule(conventions, metric, item_ids)
    has_relevant = ranking.relevant_count(threshold) > 0
    if rule != _no_relevant_rule(conventions, metric) and not has_relevant.all():
        _warn_skipped([(_LABEL, int((~has_relevant).sum()))], queries.n_queries)
    return levels, _aggregate(
        values,
        has_relevant,
        rule,
        weights,
        per_query,
        lambda i: f"{_LABEL}_{levels[i]:.2f}",
    )
