"""Reductions of trec_eval's measures beyond the first metrics, over the same tie groups.

Counts (num_ret, num_rel, num_rel_ret, num_nonrel_judged_ret) need no order; R-precision
and its multiples are precision at a per-query cut-off (linear in position); bpref, infAP
(`_infap`), Judged@k and unj@k read the judged non-relevant positions the kernel keeps under
its ``judged`` flag; interpolated precision is a maximum, averaged over tie orderings by the
exact algorithm below (`_expected_maximum`), at every recall level at once
(``iprec``, ``iprec_avg`` and the curve of `InterpolatedPrecisionRecallDisplay` call it).
Notation as in `_reductions`: per group start s, size n, m relevant items, j judged items
(relevance 0 included).
"""

from types import SimpleNamespace

import numpy as np

from ._columns import _constant, _elementwise, _take
from ._counting import _each_once

# The registry reads _trec.inferred_average_precision, cli/_trec.py _trec._INFAP_EPSILON.
from ._infap import _INFAP_EPSILON, inferred_average_precision  # noqa: F401
from ._reductions import _expected_hits, _ratio


def _all_queries(r):
    return np.ones(r.n_queries, dtype=bool)


# --- counts -------------------------------------------------------------------------------


def num_retrieved(r, k=None):
    return r.n_cand.astype(np.float64), _all_queries(r)


def num_relevant(r, k=None, *, relevance_threshold):
    return r.relevant_count(relevance_threshold).astype(np.float64), _all_queries(r)


def num_relevant_retrieved(r, k=None, *, relevance_threshold):
    return _expected_hits(r, None, relevance_threshold), _all_queries(r)


def num_nonrelevant_judged_retrieved(r, k=None, *, relevance_threshold):
    hits = _expected_hits(r, None, relevance_threshold)
    if r.all_judged:
        return r.n_cand - hits, _all_queries(r)
    return r.per_query(r.judged_in_group()) - hits, _all_queries(r)


# --- precision at a per-query cut-off -------------------------------------------------------


def _hits_at(r, cut, threshold):
    """Expected relevant items in the top ``cut[q]`` positions of each query."""
    taken = np.clip(cut[r.query] - r.start, 0, r.size)
    return r.per_query(r.relevant_in_group(threshold) * taken / r.size)


def r_precision(r, k=None, *, relevance_threshold):
    count = r.relevant_count(relevance_threshold)
    return _ratio(_hits_at(r, count, relevance_threshold), count), count > 0


def r_precision_mult(r, k=None, *, relevance_threshold, x):
    count = r.relevant_count(relevance_threshold)
    # trec_eval truncates x R + 0.9 (m_Rprec_mult.c, also in 10.0).
    cut = np.floor(x * count + 0.9)
    return _ratio(_hits_at(r, cut, relevance_threshold), cut), count > 0


# --- judged positions -----------------------------------------------------------------------


def _min_sum(y, R):
    """sum over x = 0..y of min(x, R), elementwise (0 for y < 0)."""
    y = np.asarray(y, dtype=np.float64)
    low = np.minimum(y, R)
    # low * (low + 1) / 2 + max(y - R, 0) * R, in place (one per-group array at a time)
    total = low + 1.0
    total *= low
    del low
    total /= 2.0
    above = np.subtract(y, R)
    np.maximum(above, 0.0, out=above)
    above *= R
    total += above
    del above
    total[y < 0] = 0.0
    return total


def bpref(r, k=None, *, relevance_threshold):
    """(1/R) sum over relevant retrieved items of 1 - min(n_i, R) / min(N_J, R), n_i the
    judged non-relevant items above (trec_eval's bpref).

    Under ties, a relevant item of a group with b judged non-relevant items has a number
    of them above it uniform on 0..b, so its group adds a [1 - mean of phi(B + t)].
    """
    R = r.relevant_count(relevance_threshold)
    scale = np.subtract(r.queries.n_judged(), R)  # judged non-relevant, then min(., R)
    np.minimum(scale, R, out=scale)
    scale = scale[r.query]
    m = r.relevant_in_group(relevance_threshold)
    b = r.judged_in_group() - m
    B = r.judged_before() - r.before(m)
    Rq = R[r.query]
    # (the same arithmetic as m * (1 - phi_sum / (b + 1)), in place)
    phi_sum = _min_sum(B + b, Rq)
    phi_sum -= _min_sum(B - 1.0, Rq)
    del B, Rq
    _ratio(phi_sum, scale, out=phi_sum)
    del scale
    b += 1.0
    phi_sum /= b
    del b
    np.subtract(1.0, phi_sum, out=phi_sum)
    phi_sum *= m
    value = r.per_query(phi_sum)
    del phi_sum
    return _ratio(value, R, out=value), R > 0


def _judged_in_top(r, k):
    if r.all_judged:
        return _depth(r, k)
    return r.per_query(r.judged_in_group() * r.taken(k) / r.size)


def _depth(r, k):
    return (r.n_cand if k is None else np.minimum(r.n_cand, k)).astype(np.float64)


def judged_at_k(r, k=None):
    """ir_measures' Judged@k: the share of the top min(k, N) items that are judged."""
    return _ratio(_judged_in_top(r, k), _depth(r, k)), _all_queries(r)


def unjudged_at_k(r, k=None):
    """trec_eval's unj_k: unjudged items in the top min(k, N), divided by k (N without k)."""
    unjudged = _depth(r, k) - _judged_in_top(r, k)
    denominator = r.n_cand.astype(np.float64) if k is None else np.full(r.n_queries, float(k))
    return _ratio(unjudged, denominator), _all_queries(r)


# --- interpolated precision -----------------------------------------------------------------
#
# Per query with R relevant items, h of them ranked, and the m-th relevant item at rank r_m:
# at recall level p, c = the rank cut of `_recall_cut`; the value is 0 if c > h, else
# max over m >= max(c, 1) of m / r_m, the best precision at or after the c-th relevant item
# (trec_eval's m_iprec_at_recall.c, averaged over tie orderings below).
#
# With ties="stable" every tie group is one item and the value is that maximum. With
# ties="average" it is the exact expected value over the orderings of tied items: a group
# of n items, a of them relevant, H relevant before it and s items before it, yields
# V = max over its relevant j (H + j >= c) of (H + j) / (s + q_j), q_1 < ... < q_a the
# random ranks of its relevant items inside it. Groups are independent and the value is the
# largest V. Groups that are one item or all relevant are constant; their largest value and
# every group's least possible one, (H + a) / (s + n), give a floor D. Above it,
# E = D + sum over the values t_1 < t_2 < ... that a group can take of
# (t_i - t_(i-1)) (1 - prod over groups of P(V < t_i)), with t_0 = D. For t = num / den,
# V < t holds when q_j >= L_j = floor((H + j) den / num) - s + 1 for every counted j, and its
# probability is counted over the a-subsets of 1..n by a dynamic programme over positions,
# batched over every (group, threshold) of the same n and a, for every query of a block of
# queries and every level at once. It costs O(n a) per group and threshold, with up to
# a (n - a + 1) thresholds a group: cheap for the small tie groups of real runs,
# O(a^2 n^2) for one large group of tied relevant items. No exact form in O(n log n) is
# known here (P(V < t) counts lattice paths below a line of rational slope), so a call is
# refused, before the programme runs, when it would take more than _IPREC_STEPS cells
# (up to about 6 s; iprec_avg on constant scores of 150 items, half of them relevant,
# needs 1.5e8 of them, on 200 such items 4.8e8) or list more than _IPREC_THRESHOLDS
# thresholds (memory).

ELEVEN_POINTS = np.arange(11) / 10.0  # 0.0, 0.1, ..., 1.0 as trec_eval's literals
_DP_CELLS = 1 << 20  # cells of one batch of the dynamic programme
_IPREC_STEPS = 1 << 28
_IPREC_THRESHOLDS = 1 << 23


def _recall_cut(level, count, rounding):
    """trec_eval's rank cut of recall ``level`` for ``count`` relevant items (broadcast):
    ``lround(level R)`` in 10.0 ("nearest", halves away from zero), ``(long)(level R +
    0.9)`` in 9.x ("plus_0.9"), m_iprec_at_recall.c. The fraction is compared with 0.5
    rather than floor(x + 0.5) taken, which rounds 0.5 - 2**-54 up."""
    exact = np.multiply(level, count, dtype=np.float64)
    if rounding == "plus_0.9":
        return np.floor(exact + 0.9)
    whole = np.floor(exact)
    return whole + (exact - whole >= 0.5)


def interpolated_precision(r, k=None, *, relevance_threshold, iprec_rounding, recall):
    values = _interpolated_values(r, np.array([recall]), iprec_rounding, relevance_threshold)
    return values[:, 0], r.relevant_count(relevance_threshold) > 0


def eleven_point_average(r, k=None, *, relevance_threshold, iprec_rounding, levels=None):
    levels = ELEVEN_POINTS if levels is None else np.asarray(levels, dtype=np.float64)
    means = _interpolated_values(r, levels, iprec_rounding, relevance_threshold, _mean)
    return means, r.relevant_count(relevance_threshold) > 0


def _mean(values):
    """The mean of each row, its values added one after the other as trec_eval adds the
    levels (numpy's pairwise sum differs in the last bit)."""
    total = values[:, 0].copy()
    for column in range(1, values.shape[1]):
        total += values[:, column]
    return total / values.shape[1]


# Blocks of whole queries: (query, level) arrays of at most _QUERY_CELLS cells and at most
# _GROUP_BLOCK tie groups (unless one query has more), so that neither millions of small
# queries nor long lists make temporaries of the whole input (also faster: a block's
# arrays stay in the processor's caches). 2**18 groups let iprec_avg's thresholds of
# 10^6 rows in queries of 1,000 reach 3.2x the input; 2**15, 1.9x.
_QUERY_CELLS = 1 << 15
_GROUP_BLOCK = 1 << 15
_READERS = ("iprec", "iprec_avg")  # the registry metrics that call _interpolated_values


def _interpolated_values(r, levels, rounding, threshold, reduce=None):
    """Interpolated precision of every query at every recall level: (n_queries, n_levels),
    the columns in the order of ``levels`` (a 1-D float array); with ``reduce``, its
    result on each block of such rows, written into one array (a mean over levels:
    (n_queries,)).

    Each block finds its holding groups from the ranking's own arrays, so that a call
    holds its result and one block's temporaries only. When several requests of one
    `evaluate` call read the ranking (one per recall level), the holding groups are found
    once for all of them and dropped after the last (their columns that are one value,
    as on one-item queries, take no memory)."""
    order = np.argsort(levels, kind="stable")
    ascending, inverse = levels[order], np.argsort(order)
    relevant = r.relevant_count(threshold)
    in_group = r.relevant_in_group(threshold)
    whole = None
    readers = r._readers(_READERS, None, any_k=True)
    if readers is not None and readers > 1:
        whole = r._shared(
            ("iprec groups", threshold),
            _READERS,
            None,
            lambda: _holding_groups(r, in_group, 0, r.n_queries, 0, r.n_groups),
            any_k=True,
        )
    out = np.empty((r.n_queries, levels.size) if reduce is None else r.n_queries)
    for lo, hi, first, last in _query_blocks(r, levels.size):
        if whole is None:
            g = _holding_groups(r, in_group, lo, hi, first, last)
        else:
            g = _queries_of(whole, lo, hi)
        values = _at_sorted_levels(g, relevant[lo:hi], ascending, rounding)
        if reduce is None:
            out[lo:hi, order] = values
        else:
            out[lo:hi] = reduce(values[:, inverse])  # (the columns in the order of levels)
    return out


def _query_blocks(r, n_levels):
    """(first query, end query, first group, end group) of each block (groups come by
    query)."""
    per_block = max(1, _QUERY_CELLS // n_levels)
    lo = first = 0
    while lo < r.n_queries:
        hi = min(lo + per_block, r.n_queries)
        last = int(np.searchsorted(r.query, hi))
        if last - first > _GROUP_BLOCK:  # end before the query of the first group too many
            hi = max(lo + 1, int(r.query[first + _GROUP_BLOCK]))
            last = int(np.searchsorted(r.query, hi))
        yield lo, hi, first, last
        lo, first = hi, last


def _holding_groups(r, in_group, lo, hi, first, last):
    """The tie groups ``first:last`` (those of queries ``lo:hi``) holding a relevant
    item, with what every level reads from them; queries counted from ``lo``, columns
    that are one value broadcast."""
    a = in_group[first:last]
    holding = np.flatnonzero(a > 0)
    a = _constant(a[holding])  # one-item queries of one grade: 1 everywhere
    holding += first
    query = r.query[holding]
    query -= lo
    start, size = _take(r.start, holding), _take(r.size, holding)
    del holding
    if _each_once(query, hi - lo):  # each alone in its query: no relevant item before it
        before = np.broadcast_to(0.0, query.shape)
    else:
        # Groups without a relevant item add none, so a running sum over the holding
        # groups alone gives the relevant items before each (whole numbers: exact).
        before = np.cumsum(a)
        before -= a
        head = np.flatnonzero(np.r_[True, query[1:] != query[:-1]])
        before -= np.repeat(before[head], np.diff(np.r_[head, query.size]))
        del head
    constant = _elementwise(_is_constant, size, a)
    return SimpleNamespace(
        query=query,
        start=start,
        size=size,
        a=a,
        before=before,
        reach=_elementwise(np.add, before, a),  # counts the levels with c' <= reach as reached
        constant=constant,
        floor_value=_elementwise(_floor_value, before, a, start, size, constant),
    )


def _is_constant(size, a):
    """Whether a group's relevant items have one rank under every ordering of its ties."""
    return (size == 1) | (a == size)


def _floor_value(before, a, start, size, constant):
    """A constant group's value; a random group's least possible one."""
    return (before + a) / (start + np.where(constant, a, size))


def _queries_of(g, lo, hi):
    """The holding groups ``g`` of queries ``lo:hi`` (queries counted from ``lo``)."""
    a, b = np.searchsorted(g.query, [lo, hi])  # groups come by query
    block = SimpleNamespace(**{name: value[a:b] for name, value in vars(g).items()})
    block.query = block.query - lo
    return block


def _at_sorted_levels(g, relevant, levels, rounding):
    """(n_queries, n_levels) values at ascending ``levels``, for the queries of the holding
    groups ``g`` (query numbers counted from the block's first) with ``relevant`` relevant
    items each."""
    ranked = np.bincount(g.query, weights=g.a, minlength=relevant.size)  # h per query
    c = _recall_cut(levels[None, :], relevant[:, None], rounding)
    needed = np.maximum(c, 1.0)  # c' of the spec
    n_levels = levels.size
    # Levels each group reaches: the needed ranks of its query that are <= its reach, found
    # by one search in every query's (ascending) needs laid end to end, rather than a
    # (groups, levels) comparison.
    width = needed.max(initial=0.0) + 1.0
    queries = np.arange(needed.shape[0], dtype=np.float64)[:, None]
    ends = (needed + width * queries).ravel()
    reach = g.query * width + np.minimum(g.reach, width - 1.0)
    reached = np.searchsorted(ends, reach, side="right") - g.query * np.int64(n_levels)
    del ends, reach
    floor = np.zeros(needed.size)
    some = reached > 0
    cell = g.query[some] * np.int64(n_levels) + (reached[some] - 1)
    np.maximum.at(floor, cell, g.floor_value[some])
    floor = floor.reshape(needed.shape)
    floor = np.maximum.accumulate(floor[:, ::-1], axis=1)[:, ::-1]  # reached levels: a prefix
    values = floor
    random = np.flatnonzero(~g.constant & some)
    if random.size:
        group = SimpleNamespace(
            query=g.query[random],
            start=g.start[random],
            size=g.size[random],
            a=g.a[random].astype(np.int64),
            before=g.before[random].astype(np.int64),
            reached=reached[random],
        )
        values = _expected_maximum(group, needed, floor)
    return np.where(c <= ranked[:, None], values, 0.0)


def _expected_maximum(group, needed, floor):
    """The tie-averaged values, where a random group can beat the floor (a query whose
    ties would cost too much is refused: `_refuse_costly_ties`)."""
    n_queries, n_levels = needed.shape
    # Levels needing the same count have the same value: compute the first of each run.
    first = np.ones(needed.shape, dtype=bool)
    first[:, 1:] = needed[:, 1:] != needed[:, :-1]
    # Tasks: (random group, level) with the level reached and the group's best value,
    # its relevant items first in it, above the floor.
    owner = np.repeat(np.arange(group.query.size), group.reached)
    level = np.arange(owner.size) - np.repeat(
        np.cumsum(group.reached) - group.reached, group.reached
    )
    q = group.query[owner]
    best = (group.before + group.a) / (group.start + group.a)
    keep = first[q, level] & (best[owner] > floor[q, level])
    owner, level, q = owner[keep], level[keep], q[keep]
    case = q * np.int64(n_levels) + level
    s, n, a, before = (x[owner] for x in (group.start, group.size, group.a, group.before))
    lowest_j = np.maximum(1, needed[q, level].astype(np.int64) - before)
    task_floor = floor[q, level]

    # Every value a task's group can take above the floor: (H + j) / (s + q_j).
    per_j = n - a + 1
    count = (a - lowest_j + 1) * per_j
    _refuse_costly_ties(q, n, a, count, _IPREC_THRESHOLDS, "thresholds")
    task = np.repeat(np.arange(owner.size), count)
    index = np.arange(task.size) - np.repeat(np.cumsum(count) - count, count)
    j = lowest_j[task] + index // per_j[task]
    rank = j + index % per_j[task]
    numerator, denominator = before[task] + j, s[task] + rank
    t = numerator / denominator
    above = t > task_floor[task]
    task, numerator, denominator, t = task[above], numerator[above], denominator[above], t[above]
    # Distinct thresholds per case, ascending.
    order = np.lexsort((t, case[task]))
    task, numerator, denominator, t = task[order], numerator[order], denominator[order], t[order]
    new = np.ones(t.size, dtype=bool)
    new[1:] = (case[task][1:] != case[task][:-1]) | (t[1:] != t[:-1])
    threshold_case = case[task][new]
    numerator, denominator, t = numerator[new], denominator[new], t[new]

    # Pairs (task, threshold of its case at most its best value): P(V < t) < 1 there;
    # above its best a group is always below t (factor 1).
    case_start = np.searchsorted(threshold_case, case, side="left")
    within = _count_up_to(t, threshold_case, case, best[owner]) - case_start
    _refuse_costly_ties(q, n, a, within * n * (a + 1.0), _IPREC_STEPS, "steps")
    pair_task = np.repeat(np.arange(owner.size), within)
    pair_threshold = case_start[pair_task] + (
        np.arange(pair_task.size) - np.repeat(np.cumsum(within) - within, within)
    )
    below = _probability_below(
        n[pair_task],
        a[pair_task],
        before[pair_task],
        s[pair_task],
        lowest_j[pair_task],
        numerator[pair_threshold],
        denominator[pair_threshold],
    )
    # Product over the tasks of each threshold.
    product = np.ones(t.size)
    np.multiply.at(product, pair_threshold, below)
    step = np.diff(np.concatenate(([0.0], t)))
    head = np.ones(t.size, dtype=bool)
    head[1:] = threshold_case[1:] != threshold_case[:-1]
    base = floor.reshape(-1)[threshold_case]
    step[head] = t[head] - base[head]
    gain = np.bincount(threshold_case, step * (1.0 - product), minlength=n_queries * n_levels)
    values = floor + gain.reshape(n_queries, n_levels)
    # Copy each run's first level to the rest of its run.
    for column in range(1, n_levels):
        same = ~first[:, column]
        values[same, column] = values[same, column - 1]
    return values


def _refuse_costly_ties(query, n, a, cost, limit, what):
    """Raise, naming ties="stable", if the tasks (tie group, level) of one query cost more
    than ``limit`` (thresholds to list, or steps of the dynamic programme)."""
    per_query = np.bincount(query, cost.astype(np.float64))
    if per_query.max(initial=0.0) <= limit:
        return
    worst = int(np.argmax(np.where(query == np.argmax(per_query), cost, -1.0)))
    raise ValueError(
        "iprec, iprec_avg: exact tie averaging of interpolated precision would need "
        f"{per_query.max():.3g} {what} for one query (more than {limit:,} are refused): the "
        "cost grows as a**2 n**2 for a tie group of n items, a of them relevant, and one "
        f'here has n = {n[worst]}, a = {a[worst]}. Pass ties="stable" to break the ties '
        "in input order (or break them in the scores)."
    )


def _count_up_to(t, t_case, case, limit):
    """Per task: the index after the last threshold of its case that is <= its limit.

    ``t`` is sorted by (``t_case``, value). Values become exact integer ranks, so one
    search over (case, rank) keys serves every case.
    """
    _distinct, rank = np.unique(np.concatenate((t, limit)), return_inverse=True)
    rank = rank.ravel()
    width = np.int64(rank.max(initial=0) + 1)
    keys = t_case * width + rank[: t.size]
    return np.searchsorted(keys, case * width + rank[t.size :], side="right")


def _probability_below(n, a, before, start, lowest_j, numerator, denominator):
    """P(V < numerator / denominator) of a group of n items, a relevant, per row.

    V < t when the j-th relevant item's rank q_j in its group is at least
    L_j = floor((H + j) den / num) - s + 1 for every j >= lowest_j. Over the a-subsets of
    1..n, counted position by position and normalised as it goes (a convex combination:
    no overflow for large groups): g[pos][cnt] = ((pos - cnt) g[pos - 1][cnt]
    + cnt [pos >= L_cnt] g[pos - 1][cnt - 1]) / pos. Rows of equal (n, a) are batched.
    """
    out = np.empty(n.size)
    key = n * np.int64(a.max(initial=0) + 1) + a
    order = np.argsort(key, kind="stable")
    bounds = np.flatnonzero(np.diff(key[order], prepend=-1, append=-1))
    for first, last in zip(bounds[:-1], bounds[1:]):
        rows = order[first:last]
        size, relevant = int(n[rows[0]]), int(a[rows[0]])
        j = np.arange(1, relevant + 1)
        step = max(1, _DP_CELLS // (relevant + 1))
        for block in range(0, rows.size, step):
            part = rows[block : block + step, None]  # (each block's (row, j) arrays only)
            lower = (before[part] + j) * denominator[part] // numerator[part]
            lower = np.where(j >= lowest_j[part], lower - start[part] + 1, 0)
            out[part[:, 0]] = _subsets_above(size, lower)
    return out


def _subsets_above(size, lower):
    """Share of the a-subsets of 1..size whose j-th smallest element is >= lower[:, j-1]."""
    relevant = lower.shape[1]
    share = np.zeros((lower.shape[0], relevant + 1))
    share[:, 0] = 1.0
    count = np.arange(1, relevant + 1, dtype=np.float64)
    for position in range(1, size + 1):
        keep = (position - count) / position
        take = np.where(lower <= position, count / position, 0.0)
        share[:, 1:] = keep * share[:, 1:] + take * share[:, :-1]
    return share[:, relevant]
