"""Reductions of trec_eval's remaining classic measures, over the kernel's tie groups.

Set measures (set_map, set_relative_P, utility) count items only, so they need no order;
relative_P@k, binG, Rndcg and trec_eval's rbp_resid are sums over positions, exact under
tie averaging as the other reductions are (`_reductions`). Notation as there: per group
start s, size n, m relevant items; per query N candidates and R relevant judged items.
"""

import numpy as np

from ._cascade import rank_biased_residual
from ._counting import _discount
from ._kernel import _discount_sums
from ._reductions import _expected_hits, _ratio


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


_CHUNK = 1 << 15  # ranges per batch: the terms' temporaries stay small


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


def _ideal_boundaries(r):
    """Per query, the ideal ranking's boundaries between positive grades: (query, B,
    IDCG@B), B the number of judged items of grade at least each positive grade."""
    codes, grades = r.queries.judged()
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
    start = np.flatnonzero(new_run)  # each run of one grade in one query
    del new_run
    query, grade = codes[start], grades[start]
    end = np.append(start[1:], codes.size)
    if not same.any():  # one grade a query: B is its count, IDCG one run's
        del same
        sums = _discount_table(int(np.max(end - start, initial=0)))
        bound = end - start
        return query, bound, grade * sums[bound]
    new_query = np.ones(codes.size, dtype=bool)
    new_query[1:] = ~same
    del same
    first_item = np.flatnonzero(new_query)
    del new_query
    owner_first = first_item[np.searchsorted(first_item, start, side="right") - 1]
    del first_item
    begin, bound = start - owner_first, end - owner_first  # positions in the ideal ranking
    del start, end, owner_first
    sums = _discount_table(int(bound.max(initial=0)))
    contribution = grade * (sums[bound] - sums[begin])
    first_run = np.searchsorted(query, query, side="left")
    ideal = _range_sums(first_run, np.arange(query.size) + 1, lambda p, i: contribution[i])
    return query, bound, ideal


def _expected_dcg_at(r, query, cut):
    """Expected DCG (linear gain, log2) of the top ``cut`` positions of ``query`` (arrays
    of points): each group's mean gain per position times the discounts it covers."""
    cut = np.minimum(cut, r.n_cand[query]).astype(np.int64)
    sums = _discount_table(int(cut.max(initial=0)))
    gain = r.group_sum(np.maximum(r.rel, 0.0)) / r.size
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


def r_ndcg(r, k=None, *, relevance_threshold):
    """trec_eval's Rndcg: the mean of DCG@B / IDCG@B over the ideal ranking's positive
    grade boundaries B, and of DCG@N / IDCG when N > B_last + 1 (sic). DCG@B is
    linear in the positions, so its tie average is exact."""
    query, bound, ideal = _ideal_boundaries(r)
    # trec_eval's loop (m_Rndcg.c) leaves the ideal ranking one position after the last
    # boundary: the final point at N is taken only when N reaches beyond that one.
    last = np.ones(query.size, dtype=bool)
    last[:-1] = query[1:] != query[:-1]
    final = np.flatnonzero(last & (r.n_cand[query] > bound + 1))
    del last
    ratio = _expected_dcg_at(r, query, bound)
    ratio /= ideal
    if final.size:  # each query's points in trec_eval's order: boundaries, then N
        query_final = query[final]
        ratio_final = _expected_dcg_at(r, query_final, r.n_cand[query_final])
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
