"""What every curve shares: the aggregator (`_aggregate._aggregate`) applied at every
point of a curve at once. The input is normalised and checked by `_evaluate._prepare`, as
for `evaluate`."""

import numpy as np

from ._aggregate import _mean
from ._registry import _ROUNDING, _bounds


def _clip_to_range(values, value_range):
    """As the registry's guard does for one k: a value a rounding beyond its metric's
    range is the bound itself."""
    bounds = _bounds(value_range)
    if bounds is None or values.size == 0:
        return values
    low, high = bounds
    if values.max() > high:
        values[(values > high) & (values <= high + _ROUNDING)] = high
    if values.min() < low:
        values[(values < low) & (values >= low - _ROUNDING)] = low
    return values


def _aggregate_curve(values, has_relevant, no_relevant, weights, per_query, point):
    """`_aggregate._aggregate` at every point of a curve at once.

    ``values`` of shape (n_points, n_queries), ``has_relevant`` of shape (n_queries,),
    ``point(i)`` the name of point i, for messages ("ndcg@3"). Returns the per-query
    curves, shape (n_queries, n_points), or the mean at each point.
    """
    last = values.shape[0] - 1
    name = f"{point(0)} to {point(last)}" if last else point(0)
    missing = ~has_relevant
    if missing.any():
        if no_relevant == "error":
            raise ValueError(
                f"{name}: {int(missing.sum())} queries have no relevant item (the first is "
                f"query number {int(np.flatnonzero(missing)[0])}) and no_relevant='error'; "
                "pass no_relevant=0.0, 1.0 or 'skip' to score them."
            )
        values[:, missing] = np.nan if no_relevant == "skip" else no_relevant
    kept = has_relevant if no_relevant == "skip" else np.ones(has_relevant.size, dtype=bool)
    if not kept.all():
        values_kept = values[:, kept]
        weight = None if weights is None else weights[kept]
    else:
        values_kept, weight = values, weights
    # Sums along contiguous rows: numpy's pairwise summation.
    with np.errstate(over="ignore", invalid="ignore"):
        total = (values_kept if weight is None else values_kept * weight).sum(axis=1)
    finite = np.isfinite(total).all()
    if not finite:
        bad = has_relevant & ~np.isfinite(values).all(axis=0)
        if bad.any():
            query = int(np.flatnonzero(bad)[0])
            k = int(np.flatnonzero(~np.isfinite(values[:, query]))[0])
            raise ValueError(
                f"{point(k)}: the value of query number {query} is "
                f"{values[k, query]!r}: its relevance or gains are too large to add up in "
                "float64."
            )
    if per_query:
        return np.ascontiguousarray(values.T)
    if not kept.any():
        raise ValueError(
            f"{name}: every query was skipped (no query has a relevant item and "
            "no_relevant='skip'), so there is no mean."
        )
    if weight is not None and not weight.any():
        raise ValueError(
            f"{name}: the queries left after no_relevant='skip' all have sample_weight 0."
        )
    if finite:
        return total / (values_kept.shape[1] if weight is None else weight.sum())
    # Sums beyond float64: the overflow-safe mean of `_aggregate`, one point at a time.
    return np.array([_mean(row, weight) for row in values_kept])
