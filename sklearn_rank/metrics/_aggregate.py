"""The one aggregator: per-query values -> the no_relevant convention -> weighted mean."""

import math

import numpy as np

# trec_eval's gm_map floors each value before its log (m_gm_map.c).
_GEOMETRIC_FLOOR = 1e-5


def _aggregate(
    values, has_relevant, no_relevant, weights, per_query, name, how="mean", summation="accurate"
):
    """Apply ``no_relevant`` to queries without a relevant item, then combine: the
    weighted mean, the weighted sum ("sum": counts, as trec_eval's ``all`` line) or the
    weighted geometric mean of max(value, 1e-5) ("geometric": trec_eval's gm_map).

    values : ndarray of shape (n_queries,), or (n_points, n_queries) for a curve
        Per-query values, or one row per point of a curve (a metric at k = 1..k_max,
        the interpolated precision at each recall level): then ``name(i)`` names point
        i in messages ("ndcg@3"), the matrix is written over, and the result is the
        per-query curves, shape (n_queries, n_points), or the mean at each point.
    summation : "accurate" adds as if in twice the precision; "sequential" adds plain
        doubles one query after the other, in query order, as trec_eval does for its
        ``all`` line (its presets ask for it: otherwise a mean on a rounding boundary of
        ``%6.4f`` prints another last digit than trec_eval's). Curves add accurately.

    The mean reads the values where they are, in blocks: no per-query copy is made.
    """
    curve = values.ndim == 2
    label = _curve_label(name, values.shape[0]) if curve else name
    if not curve or per_query:  # a curve's means check their sums instead: no extra pass
        _check_overflow(values, has_relevant, name)
    missing = ~has_relevant
    any_missing = bool(missing.any())
    if any_missing and no_relevant == "error":
        first = int(np.flatnonzero(missing)[0])
        raise ValueError(
            f"{label}: {int(missing.sum())} queries have no relevant item (the first is "
            f"query number {first}) and no_relevant='error'; pass no_relevant=0.0, 1.0 "
            "or 'skip' to score them."
        )
    if per_query:
        if any_missing:
            values = values if curve else values.copy()  # one query's values: maybe cached
            values[..., missing] = np.nan if no_relevant == "skip" else no_relevant
        return np.ascontiguousarray(values.T) if curve else values
    if curve:
        return _curve_means(values, has_relevant, no_relevant, weights, name, label)
    if summation == "sequential":
        return _combine_in_order(values, has_relevant, no_relevant, weights, name, how)
    if how != "mean":
        return _combine_other(values, has_relevant, no_relevant, weights, name, how)
    if not any_missing:
        return _mean(values, weights)
    if no_relevant != "skip":
        return _mean(values, weights, replaced=missing, fill=float(no_relevant))
    _check_queries_left(has_relevant, weights, name)
    return _mean(values, weights, kept=has_relevant)


def _curve_label(point, n_points):
    """'ndcg@1 to ndcg@10': a curve's points in messages about all of them."""
    return f"{point(0)} to {point(n_points - 1)}" if n_points > 1 else point(0)


def _check_overflow(values, has_relevant, name):
    """Refuse a value that overflowed (inf or NaN) in a query with a relevant item (the
    others take ``no_relevant``); ``name``: the metric's, or a curve's point names."""
    if values.ndim == 2:
        bad = has_relevant & ~np.isfinite(values).all(axis=0)
    else:
        bad = has_relevant & ~np.isfinite(values)
    if bad.any():
        query = int(np.flatnonzero(bad)[0])
        if values.ndim == 2:
            point = int(np.flatnonzero(~np.isfinite(values[:, query]))[0])
            name, value = name(point), values[point, query]
        else:
            value = values[query]
        raise ValueError(
            f"{name}: the value of query number {query} is {value!r}: its relevance "
            "or gains are too large to add up in float64."
        )


def _every_query_skipped(name):
    return ValueError(
        f"{name}: every query was skipped (no query has a relevant item and "
        "no_relevant='skip'), so there is no mean."
    )


def _check_queries_left(kept, weights, name):
    """Refuse a mean over no query, or over queries of weight 0 only (``kept``: the
    queries that count)."""
    if not kept.any():
        raise _every_query_skipped(name)
    if weights is not None and not weights.any(where=kept):
        raise ValueError(
            f"{name}: the queries left after no_relevant='skip' all have sample_weight 0."
        )


def _curve_means(values, has_relevant, no_relevant, weights, point, label):
    """The (weighted) mean at each point of a curve, values of shape (n_points,
    n_queries): sums along contiguous rows (numpy's pairwise summation: one pass), and
    `_mean` point by point only where a sum overflows."""
    skip = no_relevant == "skip"
    if not has_relevant.all():
        values[:, ~has_relevant] = np.nan if skip else no_relevant
    kept = has_relevant if skip else np.ones(has_relevant.size, dtype=bool)
    if kept.all():
        values_kept, weights_kept = values, weights
    else:
        values_kept = values[:, kept]
        weights_kept = None if weights is None else weights[kept]
    with np.errstate(over="ignore", invalid="ignore"):
        total = (values_kept if weights is None else values_kept * weights_kept).sum(axis=1)
    finite = bool(np.isfinite(total).all())
    if not finite:  # an overflowed value, or values whose sum is beyond float64
        _check_overflow(values, has_relevant, point)
    _check_queries_left(kept, weights, label)
    if finite:
        n_kept = values_kept.shape[1]
        return total / (n_kept if weights is None else weights_kept.sum())
    return np.array([_mean(row, weights_kept) for row in values_kept])


def _combine_in_order(values, has_relevant, no_relevant, weights, name, how):
    """`_combine_other`'s rules, with every sum taken in plain doubles in query order."""
    skip = no_relevant == "skip"
    if not (has_relevant.any() if skip else values.size):
        raise ValueError(
            f"{name}: every query was skipped (no query has a relevant item and "
            "no_relevant='skip'), so there is no mean."
        )
    if not has_relevant.all():
        values = np.where(has_relevant, values, 0.0 if skip else no_relevant)
        if skip:
            values = values[has_relevant]
            weights = None if weights is None else weights[has_relevant]
    if weights is not None and how != "sum" and not weights.any():
        raise ValueError(f"{name}: every query counted has sample_weight 0.")
    return _in_order(values, how, weights)


def _in_order(values, how="mean", weights=None):
    """trec_eval's ``all`` value of per-query values given in its query order
    (meas_acc.c, meas_avg.c): each value added to a double in turn, then the sum ("sum"),
    the sum over the count ("mean") or exp of the mean of log(max(value, 1e-5))
    ("geometric"). NaN stays NaN, as there. No values: 0."""
    values = np.asarray(values, dtype=np.float64)
    if values.size == 0:
        return 0.0
    if how == "geometric":
        # C's log, as trec_eval's (numpy's own log may differ in the last bit).
        values = np.array([math.log(max(v, _GEOMETRIC_FLOOR)) for v in values.tolist()])
    if weights is not None:
        values = values * weights
    # np.add.accumulate adds one after the other (np.sum adds pairwise).
    total = float(np.add.accumulate(values)[-1])
    if how == "sum":
        return total
    count = values.size if weights is None else float(np.add.accumulate(weights)[-1])
    mean = total / count
    return math.exp(mean) if how == "geometric" else mean


def _combine_other(values, has_relevant, no_relevant, weights, name, how):
    """The weighted sum or geometric mean, after ``no_relevant``. Copies of the values
    are made only where some are replaced or left out (counts have a value for every
    query): one-item queries make the values as large as the input."""
    skip = no_relevant == "skip"
    if not (has_relevant.any() if skip else values.size):
        raise _every_query_skipped(name)
    if not has_relevant.all():
        values = np.where(has_relevant, values, 0.0 if skip else no_relevant)
        if skip:  # only the queries with a relevant item count
            values = values[has_relevant]
            weights = None if weights is None else weights[has_relevant]
    if how == "sum":
        return _accurate_sum(values if weights is None else values * weights)
    logs = np.maximum(values, _GEOMETRIC_FLOOR)  # a new array: the values may be cached
    np.log(logs, out=logs)
    return float(np.exp(_mean(logs, weights)))


# Values are summed in blocks of this many: temporaries stay small, whatever the number of
# queries.
_BLOCK = 1 << 16


def _mean(values, weights=None, *, kept=None, replaced=None, fill=0.0):
    """Weighted mean of finite values that neither overflows nor drifts with many queries.

    kept : boolean mask of the values that count (None: all); replaced : boolean mask of
    the values read as ``fill`` instead (None: none). Only values that count are read.

    ``np.average`` overflows to inf on values or weights near the float64 limit (the mean
    of 1e308 and 1e308 is 1e308), loses the weights' precision when they are subnormal,
    and its sum gains an error growing with the number of queries. Here weights and
    values are scaled by powers of two (exact) and summed with `_accurate_sum`.
    """
    counted = values.size if kept is None else int(np.count_nonzero(kept))
    w_shift = 0
    if weights is not None:  # the largest weight scaled into [0.5, 1)
        counts = True if kept is None else kept
        w_shift = -int(np.frexp(weights.max(where=counts, initial=0.0))[1])
    # The values read (reductions with where= make no copy of them).
    read = kept if replaced is None else ~replaced if kept is None else kept & ~replaced
    read = True if read is None else read
    largest = max(
        float(values.max(where=read, initial=-np.inf)),
        -float(values.min(where=read, initial=np.inf)),
        abs(fill) if replaced is not None and replaced.any() else 0.0,
    )
    # Partial sums never exceed the sum of |value|, at most n * largest: keep it finite.
    shift = int(np.ceil(np.log2(counted))) + 1 if largest > 2.0**1020 / counted else 0
    his, los = [], []
    weight_his, weight_los = [], []
    for low in range(0, values.size, _BLOCK):
        block = slice(low, low + _BLOCK)
        x = np.ldexp(values[block], -shift) if shift else values[block].copy()
        if replaced is not None:
            x[replaced[block]] = np.ldexp(fill, -shift)
        w = None if weights is None else np.ldexp(weights[block], w_shift)
        if kept is not None:
            x[~kept[block]] = 0.0
            if w is not None:
                w[~kept[block]] = 0.0
        if w is not None:
            x *= w
            hi, lo = _accurate_sum_parts(w)
            weight_his.append(hi)
            weight_los.append(lo)
        hi, lo = _accurate_sum_parts(x)
        his.append(hi)
        los.append(lo)
    total = _combine(his, los)
    weight_total = float(counted) if weights is None else _combine(weight_his, weight_los)
    return float(np.ldexp(total / weight_total, shift))


def _combine(his, los):
    """The sum of partial sums given as (high, low) parts."""
    hi, lo = _accurate_sum_parts(np.array(his))
    return hi + (lo + float(np.sum(los)))


def _accurate_sum(x):
    """Sum of a float64 array as if in twice the precision, then rounded once."""
    hi, lo = _accurate_sum_parts(x)
    return hi + lo


def _accurate_sum_parts(x):
    """The sum of a float64 array as a high part and the sum of the rounding errors.

    Pairwise summation (halves added element-wise, zero-padded to a power of two) in
    which every addition's rounding error is recovered exactly (Knuth's TwoSum) and the
    errors are added back at the end: high + low is within about one rounding of the
    exact sum (as ``math.fsum``) unless the terms cancel to almost nothing, and it stays
    vectorised (10^6 values take about 10 ms).
    """
    x = np.asarray(x, dtype=np.float64)
    if x.size == 0:
        return 0.0, 0.0
    size = 1 << (x.size - 1).bit_length()
    own = size != x.size  # x is this function's copy: its halves may be written over
    if own:
        x = np.concatenate((x, np.zeros(size - x.size)))
    error = 0.0
    while x.size > 1:
        a, b = x[: x.size // 2], x[x.size // 2 :]
        s = a + b
        b_virtual = s - a
        if own:  # the same differences, written over b: one temporary less
            np.subtract(b, b_virtual, out=b)  # b's rounding error
            np.subtract(s, b_virtual, out=b_virtual)  # a_virtual
            a_error = np.subtract(a, b_virtual, out=b_virtual)
            a_error += b
        else:
            a_error = s - b_virtual
            np.subtract(a, a_error, out=a_error)
            np.subtract(b, b_virtual, out=b_virtual)
            a_error += b_virtual
        error += float(a_error.sum())
        x, own = s, True
    return float(x[0]), error
