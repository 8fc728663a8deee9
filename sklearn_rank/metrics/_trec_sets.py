"""Reductions of trec_eval's remaining classic measures, over the kernel's tie groups.

Set measures (set_map, set_relative_P, utility) count items only, so they need no order;
relative_P@k, binG, Rndcg and trec_eval's rbp_resid are sums over positions, exact under
tie averaging as the other reductions are (`_reductions`). Notation as there: per group
start s, size n, m relevant items; per query N candidates and R relevant judged items.
"""

import numpy as np

from ._cascade import rank_biased_residual
from ._columns import _take
from ._counting import _discount, _log_comb
from ._kernel import _discount_sums
from ._reductions import _expected_hits, _precision_sums, _ratio


def _everyone(r):
    return np.ones(r.n_queries, dtype=bool)


# --- sets: order-free -------------------------------------------------------------------


def set_relative_precision(r, k=None, *, relevance_threshold):
    """h / min(N, R): precision over the retrieved set relative to the best possible."""
    count = r.relevant_count(relevance_threshold)
    hits = _expected_hits(r, None, relevance_threshold)
    return _ratio(hits, np.minimum(r.n_cand, count), out=hits), count > 0


def set_average_precision(r, k=None, *, relevance_threshold):
    """h**2 / (N R): unranked average precision (set precision times set recall)."""
    count = r.relevant_count(relevance_threshold)
    hits = _expected_hits(r, None, relevance_threshold)
    hits *= hits
    denominator = np.multiply(r.n_cand, count, dtype=np.float64)
    return _ratio(hits, denominator, out=hits), count > 0


def set_f(r, k=None, *, relevance_threshold, beta):
    """trec_eval's set_F.x: (x + 1) P R / (x P + R), P = h / N, R = h / R; 0 where h = 0."""
    count = r.relevant_count(relevance_threshold)
    hits = _expected_hits(r, None, relevance_threshold)
    precision = _ratio(hits, r.n_cand)
    recall = _ratio(hits, count)
    value = (beta + 1.0) * precision * recall
    value = _ratio(value, beta * precision + recall, out=value)
    return value, count > 0


def utility(r, k=None, *, relevance_threshold, coefficients):
    """trec_eval's utility: p1 h + p2 (N - h) + p3 (R - h) + p4 (0 + h - N - R) (the
    collection size, trec_eval's -N, is 0 here as there by default)."""
    p1, p2, p3, p4 = coefficients
    hits = _expected_hits(r, None, relevance_threshold)
    n = r.n_cand
    value = p1 * hits
    term = np.subtract(n, hits)  # (in place: one temporary at a time)
    term *= p2
    value += term
    np.subtract(r.relevant_count(relevance_threshold), hits, out=term)
    term *= p3
    value += term
    np.subtract(hits, n, out=term)
    term -= r.relevant_count(relevance_threshold)
    term *= p4
    value += term
    return value, _everyone(r)


# --- positions ------------------------------------------------------------------------------


def relative_precision(r, k=None, *, relevance_threshold):
    """hits in the top k / min(k, R) (trec_eval's relative_P): precision up to R, recall
    after it. Without k, k is N (set_relative_P)."""
    count = r.relevant_count(relevance_threshold)
    hits = _expected_hits(r, k, relevance_threshold)
    depth = r.n_cand if k is None else np.full(r.n_queries, k, dtype=np.int64)
    return _ratio(hits, np.minimum(depth, count)), count > 0


def _discounts(r, extra=1):
    """D[p] = sum of 1 / log2(i + 2) over i < p, for p up to the longest list + extra."""
    sums = _discount_sums(r)
    if extra <= 0:
        return sums
    tail = 1.0 / np.log2(np.arange(sums.size - 1, sums.size - 1 + extra) + 2.0)
    return np.concatenate([sums, sums[-1] + np.cumsum(tail)])


def binary_g(r, k=None, *, relevance_threshold):
    """trec_eval's binG: (1/R) sum over relevant retrieved items of 1 / log2(2 + the
    non-relevant items above it). Under ties, the non-relevant items of its own group above
    a relevant item are uniform on 0..n - m (its rank among itself and them is uniform)."""
    count = r.relevant_count(relevance_threshold)
    m = r.relevant_in_group(relevance_threshold)
    above = r.start - r.before(m)  # non-relevant items of earlier groups
    spread = r.size - m + 1.0
    sums = _discounts(r)
    top = np.minimum(above + spread, sums.size - 1).astype(np.int64)
    terms = m * (sums[top] - sums[above.astype(np.int64)]) / spread
    # An item alone in its group (every one under trec_eval's order): its own term, as
    # trec_eval adds it, not a difference of running sums, which rounds otherwise and
    # prints another fourth decimal on a rounding boundary.
    alone = spread == 1.0
    terms[alone] = m[alone] / np.log2(above[alone] + 2.0)
    value = r.per_query(terms)
    return _ratio(value, count, out=value), count > 0


def trec_rbp_residual(r, k=None, *, p):
    """trec_eval's rbp_resid: p**N + (1 - p) sum of p**(i - 1) over unjudged retrieved
    ranks i, where some retrieved item is unjudged; else 0 (m_rbp_resid.c)."""
    residual, everyone = rank_biased_residual(r, None, p=p)
    if r.all_judged:
        return np.zeros(r.n_queries), everyone
    judged = r.per_query(r.judged_in_group())
    return np.where(judged < r.n_cand, residual, 0.0), everyone


# --- Rndcg: nDCG averaged at the ideal ranking's gain-level boundaries ----------------------
#
# Sums over a query's groups or grades are taken range by range (`_range_sums`), never as
# differences of one cumulative sum over every query: a query's value must not depend on
# the queries before it (blocks of queries on threads give the same bits).


_CHUNK = 1 << 12  # ranges per batch: the terms' temporaries stay small


def _range_sums(lo, hi, term):
    """Per range p: the sum of ``term(p, i)`` over i in [lo[p], hi[p]), added left to right
    (in batches of ranges, so that the terms' temporaries stay small)."""
    out = np.empty(lo.size)
    for first in range(0, lo.size, _CHUNK):
        part = slice(first, first + _CHUNK)
        low, lengths = lo[part], np.maximum(hi[part] - lo[part], 0)
        if (lengths == 1).all():  # one term a range (no ties, one grade a query)
            out[part] = term(np.arange(first, first + low.size), low)
            continue
        point = np.repeat(np.arange(low.size), lengths)
        offsets = np.cumsum(lengths) - lengths
        index = np.arange(int(lengths.sum())) - np.repeat(offsets - low, lengths)
        weights = term(point + first, index)
        out[part] = np.bincount(point, weights=weights, minlength=low.size)
    return out


def _discount_table(longest):
    """D[p] = sum of 1 / log2(i + 2) over i < p, for p up to ``longest``."""
    sums = np.zeros(longest + 1)
    np.cumsum(_discount(np.arange(longest, dtype=np.float64)), out=sums[1:])
    return sums


def _ideal_runs(r, level_gains=None):
    """The ideal ranking's runs of one positive gain, per query, gains descending:
    (query, first position, end position, gain); gains are the grades unless
    ``level_gains`` maps some grades to others."""
    codes, grades = r.queries.judged()
    if level_gains:
        grades = _mapped_gains(grades, level_gains)
    positive = grades > 0
    if not positive.all():
        codes, grades = codes[positive], grades[positive]
    del positive
    same = codes[1:] == codes[:-1]
    in_order = (codes[1:] > codes[:-1]) | (same & (grades[1:] <= grades[:-1]))
    if not in_order.all():  # by query, grades descending
        order = np.lexsort((-grades, codes))
        codes, grades = codes[order], grades[order]
        del order
        same = codes[1:] == codes[:-1]
    del in_order
    new_run = np.ones(codes.size, dtype=bool)
    new_run[1:] = ~same | (grades[1:] != grades[:-1])
    if new_run.all() and not same.any():  # one item a query: the judged arrays themselves
        zero, one = (np.broadcast_to(np.int64(v), codes.shape) for v in (0, 1))
        return codes, zero, one, grades
    start = np.flatnonzero(new_run)  # each run of one grade in one query
    del new_run
    query, grade = codes[start], grades[start]
    end = np.append(start[1:], codes.size)
    if not same.any():  # one grade a query: every run starts its query's ranking
        return query, np.broadcast_to(np.int64(0), start.shape), end - start, grade
    new_query = np.ones(codes.size, dtype=bool)
    new_query[1:] = ~same
    del same
    first_item = np.flatnonzero(new_query)
    del new_query
    owner_first = first_item[np.searchsorted(first_item, start, side="right") - 1]
    return query, start - owner_first, end - owner_first, grade


def _ideal_boundaries(r, level_gains=None):
    """Per query, the ideal ranking's boundaries between positive grades: (query, B,
    IDCG@B), B the number of judged items of grade at least each positive grade."""
    query, begin, bound, grade = _ideal_runs(r, level_gains)
    sums = _discount_table(int(bound.max(initial=0)))
    contribution = grade * (sums[bound] - sums[begin])
    if not begin.any():  # one run a query
        return query, bound, contribution
    first_run = np.searchsorted(query, query, side="left")
    ideal = _range_sums(first_run, np.arange(query.size) + 1, lambda p, i: contribution[i])
    return query, bound, ideal


def _ideal_dcg_at(runs, query, depth):
    """IDCG@depth of ``query`` (arrays of points), from `_ideal_runs`."""
    run_query, begin, bound, grade = runs
    sums = _discount_table(int(bound.max(initial=0)))
    first = np.searchsorted(run_query, query, side="left")
    last = np.searchsorted(run_query, query, side="right")

    def term(point, run):
        reach = depth[point]
        return grade[run] * (
            sums[np.minimum(bound[run], reach)] - sums[np.minimum(begin[run], reach)]
        )

    return _range_sums(first, last, term)


def ndcg_rel(r, k=None, *, level_gains=None):
    """trec_eval's ndcg_rel: nDCG at each relevant (positive gain) candidate's rank,
    DCG_i / IDCG@min(i, R+) for the item at rank i, summed with DCG_N / IDCG for each of
    the R+ positive items not retrieved, divided by R+ (m_ndcg_rel.c; gains are grades).

    Under ties, for rank i of a group of n items, a of them positive, with total gain G:
    E[positive at i times DCG_i] = (a/n) DCG before the group + d_i G/n + (the discounts
    of the group's ranks above i) (a - 1) G / (n (n - 1)), d_i rank i's discount (the item
    at i is positive with probability a/n, and any other item above it, given it is, has
    mean gain (a G - G) / (a (n - 1))).
    """
    runs = _ideal_runs(r, level_gains)
    if level_gains is None:
        count = r.relevant_count(None)  # R+: the judged items of positive gain
        a = r.relevant_in_group(None)
        gain = r.group_sum(np.maximum(r.rel, 0.0))
    else:
        count = np.bincount(runs[0], weights=runs[2] - runs[1], minlength=r.n_queries)
        item_gain = _mapped_gains(r.rel, level_gains)
        a = r.group_sum((item_gain > 0).astype(np.float64))
        gain = r.group_sum(item_gain)
        del item_gain
    sums = _discount_table(int(r.n_cand.max(initial=0)))
    start = r.start
    full = sums[start + r.size]
    full -= sums[start]
    full *= gain
    full /= r.size  # each group's expected DCG
    total = np.zeros(r.n_queries)
    hold = np.flatnonzero(a > 0)  # groups holding a positive item
    lengths = _take(r.size, hold)
    unit = bool((lengths == 1).all())
    reach = None if unit else np.cumsum(lengths)
    begin = 0
    while begin < hold.size:  # batches of whole queries: a query's sum never splits
        if unit:
            stop = begin + _CHUNK
        else:
            stop = int(np.searchsorted(reach, reach[begin] - lengths[begin] + _CHUNK, "right"))
        last_query = r.query[hold[min(max(stop, begin + 1), hold.size) - 1]]
        after = np.searchsorted(r.query, last_query, "right")  # the query's last group + 1
        stop = int(np.searchsorted(hold, after, "left"))
        batch = hold[begin:stop]
        low, sum_of_batch = _ndcg_rel_batch(
            r, batch, lengths[begin:stop], a, gain, full, sums, runs, count
        )
        total[low : low + sum_of_batch.size] += sum_of_batch
        begin = stop
    del hold, lengths, reach, gain
    # each positive item not retrieved adds DCG_N / IDCG
    dcg = r.per_query(full)
    del full
    missed = r.per_query(a)
    np.subtract(count, missed, out=missed)
    short = np.flatnonzero(missed > 0)
    if short.size:
        ideal = _ideal_dcg_at(runs, short, count[short].astype(np.int64))
        total[short] += missed[short] * dcg[short] / ideal
    return _ratio(total, count, out=total), count > 0


def _ndcg_rel_batch(r, batch, lengths, a, gain, full, sums, runs, count):
    """ndcg_rel's sums over the ranks of the groups ``batch`` (whole queries), per query:
    (the first query, the sums of the queries from it on)."""
    first = np.searchsorted(r.query, r.query[batch], side="left")
    before = _range_sums(first, batch, lambda p, i: full[i])  # DCG of earlier groups
    del first
    group = np.repeat(np.arange(batch.size), lengths)
    start = np.asarray(r.start)[batch]
    position = np.arange(group.size) - np.repeat(np.cumsum(lengths) - lengths, lengths)
    position += start[group]
    n = _take(r.size, batch).astype(np.float64)
    a_b, gain_b = a[batch], gain[batch]
    per_group = a_b / n * before
    pairs = np.where(n > 1, (a_b - 1.0) * gain_b / (n * np.maximum(n - 1.0, 1.0)), 0.0)
    term = per_group[group] + _discount(position.astype(np.float64)) * (gain_b / n)[group]
    term += (sums[position] - sums[start[group]]) * pairs[group]
    query = r.query[batch][group]
    depth = np.minimum(position + 1, count[query].astype(np.int64))
    term /= _ideal_dcg_at(runs, query, depth)
    low = int(query[0]) if query.size else 0
    return low, np.bincount(query - low, weights=term)


def _expected_dcg_at(r, query, cut, level_gains=None):
    """Expected DCG (linear gain, log2) of the top ``cut`` positions of ``query`` (arrays
    of points): each group's mean gain per position times the discounts it covers."""
    cut = np.minimum(cut, r.n_cand[query]).astype(np.int64)
    sums = _discount_table(int(cut.max(initial=0)))
    gain = r.group_sum(_mapped_gains(np.maximum(r.rel, 0.0), level_gains)) / r.size
    start = np.asarray(r.start, dtype=np.int64)
    end = start + r.size
    width = int(r.n_cand.max(initial=0)) + 2
    keys = r.query.astype(np.int64) * width + start
    first = np.searchsorted(keys, query * width, side="left")
    upto = np.searchsorted(keys, query * width + cut, side="left")  # groups starting < cut
    del keys

    def term(point, group):
        reach = np.minimum(end[group], cut[point])
        return gain[group] * (sums[reach] - sums[start[group]])

    return _range_sums(first, upto, term)


def r_ndcg(r, k=None, *, relevance_threshold, level_gains=None):
    """trec_eval's Rndcg: the mean of DCG@B / IDCG@B over the ideal ranking's positive
    grade boundaries B, and of DCG@N / IDCG when N > B_last + 1 (sic). DCG@B is
    linear in the positions, so its tie average is exact."""
    query, bound, ideal = _ideal_boundaries(r, level_gains)
    # trec_eval's loop (m_Rndcg.c) leaves the ideal ranking one position after the last
    # boundary: the final point at N is taken only when N reaches beyond that one.
    last = np.ones(query.size, dtype=bool)
    last[:-1] = query[1:] != query[:-1]
    final = np.flatnonzero(last & (r.n_cand[query] > bound + 1))
    del last
    ratio = _expected_dcg_at(r, query, bound, level_gains)
    ratio /= ideal
    if final.size:  # each query's points in trec_eval's order: boundaries, then N
        query_final = query[final]
        ratio_final = _expected_dcg_at(r, query_final, r.n_cand[query_final], level_gains)
        ratio_final /= ideal[final]
        order = np.argsort(np.concatenate([query, query_final]), kind="stable")
        query = np.concatenate([query, query_final])[order]
        ratio = np.concatenate([ratio, ratio_final])[order]
        del order, query_final, ratio_final
    del bound, ideal, final
    sums = np.bincount(query, weights=ratio, minlength=r.n_queries).astype(np.float64)
    del ratio
    number = np.bincount(query, minlength=r.n_queries).astype(np.float64)
    count = r.relevant_count(relevance_threshold)
    value = _ratio(sums, number, out=sums)
    value[count == 0] = 0.0
    return value, count > 0


# --- G: gain relative to the best possible gain gathered so far -----------------------------
#
# trec_eval's G (m_G.c) adds, for the item at 0-based rank i with gain g > 0,
# g / log2(2 + C(i) - S(i)), S(i) the gain gathered up to rank i (itself included) and C(i)
# the sum over ranks j <= i of max(ideal gain at j, 1); the sum is divided by the total
# ideal gain. S(i) depends on the order of the items above i, so under tie averaging a
# group of several items is averaged over its orderings exactly by a walk over its states
# (how many items of each gain are placed so far; the first t items of a uniform ordering
# are a uniform t-subset), refused beyond _G_STATES states (ties="stable" computes it).

_G_STATES = 1 << 22


def _ideal_cost(runs, query, depth):
    """C(depth - 1) = depth + the sum of max(grade - 1, 0) over the ideal ranking's first
    ``depth`` positions, for ``query`` (arrays of points)."""
    run_query, begin, bound, grade = runs
    first = np.searchsorted(run_query, query, side="left")
    last = np.searchsorted(run_query, query, side="right")
    above_one = np.maximum(grade - 1.0, 0.0)

    def term(point, run):
        reach = depth[point]
        return above_one[run] * (np.minimum(bound[run], reach) - np.minimum(begin[run], reach))

    return depth + _range_sums(first, last, term)


def g_measure(r, k=None, *, level_gains=None):
    """trec_eval's experimental G (grades as gains, or ``level_gains``)."""
    runs = _ideal_runs(r, level_gains)
    ideal_total = np.bincount(
        runs[0], weights=runs[3] * (runs[2] - runs[1]), minlength=r.n_queries
    ).astype(np.float64)
    gain = r.group_sum(_mapped_gains(np.maximum(r.rel, 0.0), level_gains))
    total = np.zeros(r.n_queries)
    hold = np.flatnonzero(gain > 0)  # groups holding an item of positive gain
    begin = 0
    while begin < hold.size:  # batches of whole queries: a query's sum never splits
        last_query = r.query[hold[min(begin + _CHUNK, hold.size) - 1]]
        stop = int(np.searchsorted(hold, np.searchsorted(r.query, last_query, "right")))
        low, sum_of_batch = _g_batch(r, runs, gain, hold[begin:stop], level_gains)
        total[low : low + sum_of_batch.size] += sum_of_batch
        begin = stop
    del hold, gain
    value = _ratio(total, ideal_total, out=total)
    return value, r.relevant_count(None) > 0


def _g_batch(r, runs, gain, batch, level_gains):
    """G's sums over the groups ``batch`` (whole queries), per query: (the first query,
    the sums of the queries from it on)."""
    first = np.searchsorted(r.query, r.query[batch], side="left")
    gathered = _range_sums(first, batch, lambda p, i: gain[i])  # gain of earlier groups
    del first
    query = r.query[batch]
    size = _take(r.size, batch)
    contribution = np.zeros(batch.size)
    single = np.flatnonzero(size == 1)
    if single.size:  # one item a group: its rank is known
        start = _take(r.start, batch[single]).astype(np.int64)
        cost = _ideal_cost(runs, query[single], start + 1)
        g = gain[batch[single]]
        contribution[single] = g / np.log2(2.0 + cost - gathered[single] - g)
    for index in np.flatnonzero(size > 1):
        contribution[index] = _g_of_tied_group(r, runs, batch[index], gathered[index], level_gains)
    low = int(query[0]) if query.size else 0
    return low, np.bincount(query - low, weights=contribution)


def _g_of_tied_group(r, runs, group, gathered, level_gains):
    """G's expected sum over one tie group's ranks, over every ordering of its items."""
    items = r.group  # items come by group: a group's items are consecutive
    members = slice(np.searchsorted(items, group, "left"), np.searchsorted(items, group, "right"))
    n = int(r.size[group])
    gains = _mapped_gains(np.maximum(r.rel[members], 0.0), level_gains)
    gains = gains[gains > 0]
    values, counts = np.unique(gains, return_counts=True)
    zeros = n - int(counts.sum())
    states = int(np.prod(counts + 1.0)) * (zeros + 1)
    if states > _G_STATES:
        raise ValueError(
            f"G under ties='average' would walk {states} states for a tie group of {n} "
            "items; pass ties='stable' (or convention='trec_eval') to rank tied items in order."
        )
    # every state: how many of each positive gain are placed, and how many zeros
    grids = np.meshgrid(*[np.arange(c + 1) for c in counts], np.arange(zeros + 1), indexing="ij")
    placed = np.stack([grid.ravel() for grid in grids[:-1]], axis=1).astype(np.float64)
    placed_zeros = grids[-1].ravel().astype(np.float64)
    t = placed.sum(axis=1) + placed_zeros
    inside = t < n
    placed, placed_zeros, t = placed[inside], placed_zeros[inside], t[inside]
    log_p = _log_comb(float(zeros), placed_zeros) - _log_comb(float(n), t)
    for column, count in enumerate(counts):
        log_p += _log_comb(float(count), placed[:, column])
    probability = np.exp(log_p)
    sum_so_far = gathered + placed @ values
    start = int(r.start[group])
    query = np.full(t.size, r.query[group])
    cost = _ideal_cost(runs, query, start + t.astype(np.int64) + 1)
    expected = 0.0
    for column, value in enumerate(values):
        possible = placed[:, column] < counts[column]  # an item of this gain is left
        next_is = (counts[column] - placed[possible, column]) / (n - t[possible])
        terms = value / np.log2(2.0 + cost[possible] - sum_so_far[possible] - value)
        expected += float(np.sum(probability[possible] * next_is * terms))
    return expected


# --- ndcg with trec_eval's gains per grade (ndcg.1=3,2=9) ------------------------------------


def _mapped_gains(grades, level_gains):
    """Each grade's gain: the one given for its level, else the grade (gain_init.c)."""
    gains = np.array(grades, dtype=np.float64)
    for level, gain in level_gains or ():
        gains[grades == level] = gain
    return gains


def ndcg_with_gains(r, k=None, *, level_gains):
    """trec_eval's ndcg.L=G,...: DCG of the candidates' gains over the DCG of every judged
    item of positive gain sorted by gain (full depth, log2). Linear in position, so a tie
    group's mean gain per rank gives its exact average."""
    gain = r.group_sum(_mapped_gains(r.rel, level_gains)) / r.size
    sums = _discount_table(int(r.n_cand.max(initial=0)))
    start = r.start
    span = sums[start + r.size]
    span -= sums[start]
    dcg = r.per_query(gain * span)
    del gain, span
    codes, grades = r.queries.judged()
    ideal = _mapped_gains(grades, level_gains)
    positive = ideal > 0
    codes, ideal = codes[positive], ideal[positive]
    order = np.lexsort((-ideal, codes))
    codes, ideal = codes[order], ideal[order]
    position = np.arange(codes.size) - np.searchsorted(codes, codes, side="left")
    ideal_dcg = np.bincount(
        codes, weights=ideal * _discount(position.astype(np.float64)), minlength=r.n_queries
    ).astype(np.float64)
    return _ratio(dcg, ideal_dcg, out=dcg), ideal_dcg > 0


# --- yaap: Robertson's smoothed average precision ---------------------------------------------


def yaap(r, k=None, *, relevance_threshold):
    """trec_eval's yaap: log((1 + S) / (1 + R - S)), S the sum of precision at the
    relevant candidates' ranks (R times AP). Under ties S is its exact average (AP's), and
    the log applies to it, as GM-MAP's log applies to the averaged AP."""
    count = r.relevant_count(relevance_threshold).astype(np.float64)
    total = r.per_query(_precision_sums(r, None, relevance_threshold))
    value = np.log((1.0 + total) / (1.0 + count - total))
    return value, count > 0
