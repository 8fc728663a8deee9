"""Rank-biased overlap of many pairs of rankings at once, vectorised over the pairs.

A pair is one query's two rankings, each given as flat arrays: the query of each item, the
item's code, the top rank of its tie group (1-based) and the group's size. The scores are
Corsi & Urbano's (SIGIR 2024) tie-aware RBO^w, RBO^a and RBO^b, with Webber, Moffat &
Zobel's (TOIS 2010) extrapolated score and bounds (ext, min, max, res) for rankings of any
lengths; without ties the three variants are Webber's RBO.

An item whose tie group spans ranks T..T+g-1 is seen at depth d with the probability
``clip((d - T + 1) / g, 0, 1)`` (variants a, b; the tie broken uniformly at random) or from
its group's top rank on (variant w, as g = 1). Every sum over items at each depth (the
overlap X_d, the rankings' seen sizes) is a sum of such ramps or of products of two: it is
built from its increments, which are nonzero only where a ramp rises, scattered into a
(pairs x depth) table and summed along the depth. The work is the rankings' length plus the
sizes of the tie groups, for all pairs together; an untied ranking's sums are exact counts.
"""

import numpy as np

SCORES = ("ext", "min", "max", "res")


def _ramp(depth, top, size):
    """Probability that an item of the tie group top..top+size-1 is in the top ``depth``."""
    return np.clip((depth - top + 1) / size, 0.0, 1.0)


def _ramp_sums(pair, top1, size1, top2, size2, n_pairs, width):
    """(n_pairs, width) table: entry [q, d - 1] is the sum, over the items of pair q, of
    ``_ramp(d, top1, size1) * _ramp(d, top2, size2)``, for d = 1..width."""
    if pair.size == 0 or width == 0:
        return np.zeros((n_pairs, width))
    # Untied in both (every item with w): the product steps from 0 to 1 at the later top.
    untied = (size1 == 1) & (size2 == 1)
    simple_depth = np.maximum(top1[untied], top2[untied])
    simple = simple_depth <= width
    simple_cells = pair[untied][simple] * width + (simple_depth[simple] - 1)
    # Otherwise the product changes only where one of its ramps rises: depths
    # top..top+size-1 of either; the second ramp's depths that the first's already cover
    # are not taken twice.
    tied = np.flatnonzero(~untied)
    top1, size1, top2, size2 = top1[tied], size1[tied], top2[tied], size2[tied]
    item_a = np.repeat(np.arange(tied.size), size1)
    depth_a = top1[item_a] + _position_in_run(size1)
    item_b = np.repeat(np.arange(tied.size), size2)
    depth_b = top2[item_b] + _position_in_run(size2)
    covered = (depth_b >= top1[item_b]) & (depth_b < top1[item_b] + size1[item_b])
    item = np.concatenate([item_a, item_b[~covered]])
    depth = np.concatenate([depth_a, depth_b[~covered]])
    inside = depth <= width
    item, depth = item[inside], depth[inside]
    t1, s1, t2, s2 = top1[item], size1[item], top2[item], size2[item]
    step = _ramp(depth, t1, s1) * _ramp(depth, t2, s2) - _ramp(depth - 1, t1, s1) * _ramp(
        depth - 1, t2, s2
    )
    cells = np.concatenate([simple_cells, pair[tied][item] * width + (depth - 1)])
    weights = np.concatenate([np.ones(simple_cells.size), step])
    table = np.bincount(cells, weights=weights, minlength=n_pairs * width)
    table = table.reshape(n_pairs, width)
    return np.cumsum(table, axis=1)


def _position_in_run(lengths):
    """0, 1, ..., lengths[i] - 1 for each i, concatenated."""
    total = int(lengths.sum())
    starts = np.cumsum(lengths) - lengths
    return np.arange(total) - np.repeat(starts, lengths)


def _order_in_pair(pair, key):
    """1-based position of each item within its pair, by ``key`` (stable)."""
    order = np.lexsort((key, pair))
    sorted_pairs = pair[order]
    first = np.searchsorted(sorted_pairs, sorted_pairs, side="left")
    position = np.empty(pair.size, dtype=np.int64)
    position[order] = np.arange(pair.size) - first + 1
    return position


#: Cells of a (pairs x depth) table computed at once: blocks of whole pairs keep each table
#: to about 0.5 MB, whatever the number of queries (measured: 10,000 queries x 100 items
#: with ties took 3.2 s and 179 MB at peak with this size, 8 s and 955 MB with 32 times it).
BLOCK_CELLS = 1 << 16


def _rbo(x, y, n_pairs, p, ties):
    """RBO of every pair: a dict score -> (n_pairs,) array (NaN where a ranking is empty).

    x, y : tuples (pair, item, top, size) of int64 arrays, one entry per ranked item, in
        pair order; the item codes are shared by x and y, distinct within a ranking of a
        pair.
    """
    longest = np.maximum(np.bincount(x[0], minlength=n_pairs), np.bincount(y[0], minlength=n_pairs))
    per_block = max(1, BLOCK_CELLS // max(1, int(longest.max(initial=0))))
    if n_pairs <= per_block:
        return _rbo_block(x, y, n_pairs, p, ties)
    starts = np.arange(0, n_pairs, per_block)
    bounds_x = np.searchsorted(x[0], np.append(starts, n_pairs))
    bounds_y = np.searchsorted(y[0], np.append(starts, n_pairs))
    parts = []
    for block, start in enumerate(starts):
        size = min(per_block, n_pairs - start)
        part_x = _block_of(x, bounds_x[block], bounds_x[block + 1], start)
        part_y = _block_of(y, bounds_y[block], bounds_y[block + 1], start)
        parts.append(_rbo_block(part_x, part_y, size, p, ties))
    return {score: np.concatenate([part[score] for part in parts]) for score in SCORES}


def _block_of(flat, begin, end, first_pair):
    pair, *rest = (column[begin:end] for column in flat)
    return (pair - first_pair, *rest)


def _rbo_block(x, y, n_pairs, p, ties):
    """`_rbo` of pairs whose tables are computed at once."""
    len_x = np.bincount(x[0], minlength=n_pairs)
    len_y = np.bincount(y[0], minlength=n_pairs)
    # S is the shorter ranking of each pair (y when both have the same length, as the
    # authors' code; the scores do not depend on it then).
    x_short = len_x < len_y
    n_short = np.minimum(len_x, len_y)
    n_long = np.maximum(len_x, len_y)
    in_s = [x_short[x[0]], ~x_short[y[0]]]
    short = tuple(np.concatenate([a[in_s[0]], b[in_s[1]]]) for a, b in zip(x, y))
    long = tuple(np.concatenate([a[~in_s[0]], b[~in_s[1]]]) for a, b in zip(x, y))
    if ties == "w":  # the whole group is seen from its top rank on
        short = (*short[:3], np.ones_like(short[3]))
        long = (*long[:3], np.ones_like(long[3]))

    n_codes = int(max(short[1].max(initial=-1), long[1].max(initial=-1))) + 1
    key_s = short[0] * n_codes + short[1]
    key_l = long[0] * n_codes + long[1]
    common_s = np.isin(key_s, key_l)
    common_l = np.isin(key_l, key_s)
    by_key_s = np.argsort(key_s[common_s], kind="stable")
    by_key_l = np.argsort(key_l[common_l], kind="stable")
    cs = tuple(column[common_s][by_key_s] for column in short)
    cl = tuple(column[common_l][by_key_l] for column in long)
    overlap = np.bincount(cs[0], minlength=n_pairs)

    width = int(n_long.max(initial=0))
    if width == 0:
        return {score: np.full(n_pairs, np.nan) for score in SCORES}
    ones_s, ones_l = np.ones_like(short[2]), np.ones_like(long[2])
    seen = _ramp_sums(cs[0], cs[2], cs[3], cl[2], cl[3], n_pairs, width)  # X_d
    depth = np.arange(1, width + 1, dtype=np.float64)[None, :]
    first = depth <= n_short[:, None]
    second = (depth > n_short[:, None]) & (depth <= n_long[:, None])
    with np.errstate(divide="ignore", invalid="ignore"):
        if ties == "w":
            size_s = _ramp_sums(short[0], short[2], short[3], ones_s, ones_s, n_pairs, width)
            size_l = _ramp_sums(long[0], long[2], long[3], ones_l, ones_l, n_pairs, width)
            # A_d = 2 X_d / (seen in S + seen in L); S's unseen part counts d - s items.
            denominator = np.where(first, size_s, depth) + size_l
            numerator = 2.0
        elif ties == "a":
            denominator, numerator = np.broadcast_to(depth, (n_pairs, width)), 1.0
        else:
            square_s = _ramp_sums(short[0], short[2], short[3], short[2], short[3], n_pairs, width)
            square_l = _ramp_sums(long[0], long[2], long[3], long[2], long[3], n_pairs, width)
            denominator = np.sqrt(np.where(first, square_s, depth)) * np.sqrt(square_l)
            numerator = 1.0
        agreement_seen = numerator * seen / denominator
        rows = np.arange(n_pairs)
        agreement_at_s = np.where(
            n_short > 0, agreement_seen[rows, np.maximum(n_short, 1) - 1], np.nan
        )

        # The items of L that S does not hold, in L's order.
        unmatched = ~common_l
        u_pair, u_top, u_size = long[0][unmatched], long[2][unmatched], long[3][unmatched]
        rank = _order_in_pair(u_pair, u_top)
        # max: the j-th of them is matched, in S's unseen part, from depth s + j on.
        first_ones = rank <= (n_long - n_short)[u_pair]
        u_ones = np.ones_like(u_pair)
        extra_max = _ramp_sums(
            u_pair[first_ones],
            u_top[first_ones],
            u_size[first_ones],
            n_short[u_pair][first_ones] + rank[first_ones],
            u_ones[first_ones],
            n_pairs,
            width,
        )
        # ext: each of S's unseen items matches with the agreement at s, times the mean
        # contribution of L's unmatched items seen so far.
        unmatched_sum = _ramp_sums(u_pair, u_top, u_size, u_ones, u_ones, n_pairs, width)
        unmatched_count = _ramp_sums(u_pair, u_top, u_ones, u_ones, u_ones, n_pairs, width)
        extra_ext = (
            (depth - n_short[:, None]) * agreement_at_s[:, None] * unmatched_sum / unmatched_count
        )
        weights = p ** np.arange(1, width + 1)
        within = first | second
        totals = {}
        for score, extra in (("min", 0.0), ("max", extra_max), ("ext", extra_ext)):
            agreement = np.where(second, numerator * (seen + extra) / denominator, agreement_seen)
            # Summed in depth order, each pair over its own depths: a pair's value does not
            # depend on the other pairs of the call or on the blocks.
            weighted = np.cumsum(np.where(within, agreement, 0.0) * weights, axis=1)
            totals[score] = weighted[rows, np.maximum(n_long, 1) - 1]

    # Beyond depth l every item of both rankings is seen: closed forms of the tails.
    harmonic = np.concatenate(
        [[0.0], np.cumsum(p ** np.arange(1, 2 * width + 2) / np.arange(1, 2 * width + 2))]
    )
    deepest = n_long + n_short - overlap  # max: S and L complete each other by this depth
    geometric_l = p ** (n_long + 1.0)
    geometric_f = p ** (deepest + 1.0)
    tails = {
        "min": overlap * (-np.log1p(-p) - harmonic[n_long]),
        "max": 2 * (geometric_l - geometric_f) / (1 - p)
        - (n_long + n_short - overlap) * (harmonic[deepest] - harmonic[n_long])
        + geometric_f / (1 - p),
    }
    with np.errstate(divide="ignore", invalid="ignore"):
        tails["ext"] = (
            (overlap + (n_long - n_short) * agreement_at_s) / n_long * geometric_l / (1 - p)
        )
    scale = (1 - p) / p
    result = {}
    for score in ("ext", "min", "max"):
        value = np.clip(scale * (totals[score] + tails[score]), 0.0, 1.0)
        result[score] = np.where(n_short > 0, value, np.nan)
    result["res"] = result["max"] - result["min"]
    return result
