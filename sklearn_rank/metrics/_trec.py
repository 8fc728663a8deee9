"""Reductions of trec_eval's measures beyond the first metrics, over the same tie groups.

Counts (num_ret, num_rel, num_rel_ret, num_nonrel_judged_ret) need no order; R-precision
and its multiples are precision at a per-query cut-off (linear in position); bpref, infAP,
Judged@k and unj@k read the judged non-relevant positions the kernel keeps under its
``judged`` flag; interpolated precision is a maximum, averaged over tie orderings by the
exact algorithm of shared/spec/MEASURES_TREC.md section 3. Notation as in `_reductions`:
per group start s, size n, m relevant items, j judged items (relevance 0 included).
"""

import math
from fractions import Fraction
from typing import NamedTuple

import numpy as np

from ._columns import _as_float, _constant, _elementwise, _take
from ._counting import _each_once
from ._reductions import _expected_hits, _ratio

# trec_eval's infAP smoothing (m_infap.c, INFAP_EPSILON).
_INFAP_EPSILON = 0.00001


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


def _infap_terms(relevant_above, nonrelevant_above, position):
    """trec_eval's infAP term of a relevant item at 0-based ``position``."""
    judged = relevant_above + nonrelevant_above
    # (1 + judged * ratio) / (position + 1), written into one array of the result's shape
    shape = np.broadcast_shapes(np.shape(judged), np.shape(position))
    term = np.add(relevant_above, _INFAP_EPSILON, out=np.empty(shape))
    term /= judged + 2.0 * _INFAP_EPSILON
    term *= judged
    del judged
    term += 1.0
    term /= position + 1.0
    return term


def inferred_average_precision(r, k=None, *, relevance_threshold):
    """trec_eval's infAP (Yilmaz and Aslam, CIKM 2006): unjudged items above a relevant
    item enlarge its rank only. Tie groups with a relevant item and other items are
    averaged exactly over where it lands and what lands above it (the spec's sum over
    its in-group position and the relevant and judged non-relevant items above)."""
    R = r.relevant_count(relevance_threshold)
    m = r.relevant_in_group(relevance_threshold)
    b = r.judged_in_group() - m
    A = r.before(m)
    Bn = r.judged_before() - A
    contribution = _infap_terms(A, Bn, _as_float(r.start))
    contribution *= m
    tied = np.flatnonzero((r.size > 1) & (m > 0))
    for g in tied:
        contribution[g] = m[g] * _expected_infap_term(
            int(r.start[g]), int(r.size[g]), int(m[g]), int(b[g]), A[g], Bn[g]
        )
    del A, Bn, b
    value = r.per_query(contribution)
    del contribution
    return _ratio(value, R, out=value), R > 0


def _expected_infap_term(s, n, a, b, A, Bn):
    """E[term] of one relevant item of a group of n items (a relevant, b judged
    non-relevant, the rest unjudged) starting after s items, A relevant and Bn judged
    non-relevant of them."""
    x = n - a - b
    q = np.arange(1, n + 1)[:, None, None]
    a2 = np.arange(a)[None, :, None]
    b2 = np.arange(b + 1)[None, None, :]
    rest = q - 1 - a2 - b2
    possible = (rest >= 0) & (rest <= x)
    log_p = (
        _log_comb(a - 1, a2)
        + _log_comb(b, b2)
        + _log_comb(x, np.clip(rest, 0, x))
        - _log_comb(n - 1, q - 1)
    )
    prob = np.where(possible, np.exp(log_p), 0.0)
    terms = _infap_terms(A + a2, Bn + b2, s + q - 1.0)
    return float((prob * terms).sum()) / n


def _log_comb(a, b):
    from scipy.special import gammaln

    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    return gammaln(a + 1.0) - gammaln(b + 1.0) - gammaln(a - b + 1.0)


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


def _recall_cut(level, count, rounding):
    """trec_eval's rank cut of a recall level: lround(level R) in 10.0, (long)(level R +
    0.9) in 9.x (m_iprec_at_recall.c)."""
    cut = level * count
    cut += 0.9 if rounding == "plus_0.9" else 0.5
    return np.floor(cut, out=cut)


def interpolated_precision(r, k=None, *, relevance_threshold, iprec_rounding, recall):
    return _interpolated(r, relevance_threshold, iprec_rounding, (recall,))


def eleven_point_average(r, k=None, *, relevance_threshold, iprec_rounding):
    return _interpolated(r, relevance_threshold, iprec_rounding, tuple(np.arange(11) / 10.0))


def _interpolated(r, threshold, rounding, levels):
    """Mean over ``levels`` of trec_eval's interpolated precision: with c the level's
    rank cut, 0 if c > h, else the best precision m / r_m over m >= max(c, 1).

    Per level, only the queries with a relevant item get a best precision, and only they
    are added to the total: no per-query array besides the total is made.
    """
    R = r.relevant_count(threshold)
    f = _fixed_precisions(r, threshold)
    random_query = r.query[f.random]
    random_queries = np.unique(random_query)
    total = np.zeros(r.n_queries)
    for level in levels:
        best = None
        if f.count.size:
            cut = _recall_cut(level, R[f.owners], rounding)
            zeroed = cut > f.hits  # c > h: 0
            least = np.maximum(cut, 1.0, out=cut)
            if f.heads is not None:
                least = least[f.item_owner]
            eligible = f.count >= least
            del least
            eligible = np.where(eligible, f.precision, 0.0)
            best = eligible if f.heads is None else np.maximum.reduceat(eligible, f.heads)
            best[zeroed] = 0.0
            del zeroed
        drawn = {}  # queries with a relevant item in a random group: their expected best
        for q, hits in zip(random_queries, f.random_hits):
            cut = _recall_cut(level, R[q : q + 1], rounding)[0]
            if cut > hits or R[q] == 0:
                continue
            least = np.maximum(cut, 1.0)
            mine = random_query == q
            groups = [
                (int(r.start[i]), int(r.size[i]), int(f.m[i]), int(before))
                for i, before in zip(f.random[mine], f.random_before[mine])
            ]
            own = f.query == q
            floor = max(
                [
                    Fraction(int(c), int(c / p))
                    for c, p in zip(f.count[own], f.precision[own])
                    if c >= least
                ]
                or [0]
            )
            drawn[q] = _expected_max(groups, int(least), Fraction(floor))
        if drawn:
            queries = np.fromiter(drawn, dtype=np.int64, count=len(drawn))
            values = np.fromiter(drawn.values(), dtype=np.float64, count=len(drawn))
            owners = f.owners
            at = np.minimum(np.searchsorted(owners, queries), max(owners.size - 1, 0))
            listed = (owners[at] == queries) if owners.size else np.zeros(len(drawn), bool)
            if best is not None:
                best[at[listed]] = values[listed]  # the expected best replaces the fixed one
            total[queries[~listed]] += values[~listed]
        if best is not None:
            total[f.owners] += best
    total /= len(levels)
    return total, R > 0


class _Fixed(NamedTuple):
    """The relevant items whose positions no tie ordering changes, by query.

    query, count, precision : per fixed item (by query), its query, m (relevant items up
        to it) and m / rank; one value broadcast where it is the same for all.
    owners, hits, heads, item_owner : the queries with a fixed item, once each (sorted),
        their relevant items (h), where each one's items start and each item's owner
        (both None where every owner has one item).
    m, random, random_before, random_hits : per group m; the groups holding relevant
        items in random positions, the relevant items before each, and per query of
        theirs (np.unique order) its h.
    """

    query: np.ndarray
    count: np.ndarray
    precision: np.ndarray
    owners: np.ndarray
    hits: np.ndarray
    heads: np.ndarray | None
    item_owner: np.ndarray | None
    m: np.ndarray
    random: np.ndarray
    random_before: np.ndarray
    random_hits: np.ndarray


def _fixed_precisions(r, threshold):
    """The `_Fixed` items (a group of one, or a group of relevant items only, whose j-th
    sits at s + j); computed once for every level of one call, and for every iprec and
    iprec_avg request of one evaluate."""
    return r._shared(
        ("fixed precisions", threshold),
        ("iprec", "iprec_avg"),
        None,
        lambda: _make_fixed_precisions(r, threshold),
        any_k=True,
    )


def _make_fixed_precisions(r, threshold):
    m = r.relevant_in_group(threshold)
    fixed = (r.size == 1) | (m == r.size)
    keep = r.relevant(threshold) > 0
    keep &= fixed if r._group is None else fixed[r.group]
    g = np.flatnonzero(keep) if r._group is None else r.group[keep]
    del keep
    before = r.before(m)
    count = before[g]
    if _each_once(g, r.n_groups):  # one kept item per group: each is its group's first
        count += 1.0
        rank = _elementwise(lambda start: start + 1.0, _take(r.start, g))
    else:
        first_of_group = np.r_[True, g[1:] != g[:-1]] if g.size else np.zeros(0, dtype=bool)
        run_start = np.maximum.accumulate(np.where(first_of_group, np.arange(g.size), 0))
        j = np.arange(g.size) - run_start + 1.0  # 1-based order among the group's relevant
        count += j
        rank = r.start[g] + j
        del first_of_group, run_start, j
    precision = count / rank
    del rank
    query = r.query[g]
    del g
    if _each_once(query, r.n_queries):
        heads = item_owner = None
        owners = query
    else:
        new = np.r_[True, query[1:] != query[:-1]]
        heads = np.flatnonzero(new)
        item_owner = np.cumsum(new) - 1
        owners = query[heads]
        del new
    hits = r.per_query(m)
    random = np.flatnonzero(~fixed & (m > 0))
    random_hits = hits[np.unique(r.query[random])]
    return _Fixed(
        query,
        _constant(count),  # one-item queries: 1 everywhere
        _constant(precision),
        owners,
        hits[owners],
        heads,
        item_owner,
        m,
        random,
        before[random],
        random_hits,
    )


def _expected_max(groups, least, floor):
    """E[max(floor, V_g ...)], V_g the best precision m / r_m (m >= least) inside tie group
    g = (start s, size n, a relevant items, H relevant before): spec section 3."""
    live = []
    values = set()
    for s, n, a, H in groups:
        J = [j for j in range(1, a + 1) if H + j >= least]
        if not J or max(Fraction(H + j, s + j) for j in J) <= floor:
            continue
        live.append((s, n, a, H, J))
        for j in J:
            for q in range(j, n - a + j + 1):
                value = Fraction(H + j, s + q)
                if value > floor:
                    values.add(value)
    expected, previous = floor, floor
    for t in sorted(values):
        below = 1.0
        for s, n, a, H, J in live:
            below *= _probability_below(s, n, a, H, J, t)
        expected += (t - previous) * (1.0 - below)
        previous = t
    return float(expected)


def _probability_below(s, n, a, H, J, t):
    """P(V_g < t): every relevant j in J at in-group rank q_j >= L_j; counted over the
    a-subsets of 1..n by a DP on positions."""
    limit = [1] * (a + 1)
    for j in J:
        limit[j] = (H + j) * t.denominator // t.numerator - s + 1
    ways = [1] + [0] * a
    for position in range(1, n + 1):
        for chosen in range(min(position, a), 0, -1):
            if position >= limit[chosen]:
                ways[chosen] += ways[chosen - 1]
    return ways[a] / math.comb(n, a)
