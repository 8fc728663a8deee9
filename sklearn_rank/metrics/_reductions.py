"""Each metric as a short reduction over the tie groups of a `_Ranking`.

A reduction returns ``(values, has_relevant)``: one value per query, and whether the query
has a relevant item (the others get the ``no_relevant`` convention in `_aggregate.py`).

Notation, per tie group: start s (0-based position), size n, m relevant items, gain sum G,
t of its positions inside the top k, H relevant items in earlier groups. In stable mode
every group is one item. Under ``ties="average"`` each value is the exact expected value
over all orderings of every group (McSherry & Najork, ECIR 2008): a position inside a group
holds a relevant item with probability m / n, which gives every linear metric; the others
use the closed forms written next to them.

`_curves` gives the same metrics at every k = 1..k_max; what both compute alike (the
ratios of precision, recall and F1, the reciprocal-rank and precision terms, the mean gain
of a group, the expectations at a tie group cut by k, the snap to the ideal DCG) is written
once, here, and used by both.
"""

import numpy as np

from ._columns import _elementwise, _take
from ._counting import _discount, _each_once, _hypergeometric, _ordered_pair_signs, _sum_by
from ._kernel import _discount_sums, _harmonic_sums

_BLOCK = 1 << 16  # queries per block where per-query temporaries are made in blocks


def _ratio(numerator, denominator, empty=0.0, out=None):
    """numerator / denominator, ``empty`` where the denominator is 0.

    ``out``: a float64 array of the result's shape to write into (a temporary of the
    caller's, such as the numerator): per-query results then need no second array.
    """
    zero = np.equal(denominator, 0)
    if out is None:
        out = np.empty(np.shape(numerator), dtype=np.float64)
    np.divide(numerator, denominator, out=out, where=~zero)
    out[np.broadcast_to(zero, out.shape)] = empty
    return out


def _span(sums, start, taken, single):
    """sums[start + taken] - sums[start], exact where the span is a single position."""
    one = taken == 1
    if one.all():  # single positions only (no ties): no differences of sums to take
        if start.strides == (0,) and start.size:  # one position for all: one value
            return np.full(start.shape, single(start[:1]).astype(np.float64)[0])
        return single(start).astype(np.float64)
    span = sums[start + taken] - sums[start]
    span[one] = single(start[one])
    return span


def _discounts(r, start, taken, log_base=2.0):
    """Sum of 1 / log_b(p + 2) over positions p in [start, start + taken)."""
    return _span(_discount_sums(r, log_base), start, taken, lambda p: _discount(p, log_base))


def _reciprocals(r, start, taken):
    """Sum of 1 / (p + 1) over positions p in [start, start + taken)."""
    return _span(_harmonic_sums(r), start, taken, lambda p: 1.0 / (p + 1.0))


def _expected_hits(r, k, threshold):
    return r.per_query(r.relevant_in_group(threshold) * r.taken(k) / r.size)


def _precision_denominator(r, k, short_lists):
    """D of Precision@k = hits / D, per query; ``k`` a cut-off, None (no cut-off), or a
    column of cut-offs (k_max, 1) for a curve, which gives a (k_max, n_queries) matrix."""
    if k is None:
        return r.n_cand.astype(np.float64)
    if short_lists == "k":
        return k if isinstance(k, np.ndarray) else float(k)  # the same for every query
    return np.minimum(r.n_cand, k).astype(np.float64)


def _has_relevant(r, threshold):
    return r.relevant_count(threshold) > 0


# Precision, recall and F1 from the expected hits (per query, or a curve's matrix, written
# over): the ratios the value at one k and the curve share.


def _precision_of(r, hits, k, short_lists):
    return _ratio(hits, _precision_denominator(r, k, short_lists), out=hits)


def _recall_of(r, hits, threshold):
    return _ratio(hits, r.relevant_count(threshold), out=hits)


def _f1_of(r, hits, k, threshold, short_lists):
    # 2PR / (P + R) with P = h / D and R = h / |rel| is 2h / (D + |rel|): linear in the
    # hits h, so its expectation over tie orderings needs only the expected hits.
    hits *= 2.0
    denominator = _precision_denominator(r, k, short_lists) + r.relevant_count(threshold)
    return _ratio(hits, denominator, out=hits)


def precision(r, k, *, relevance_threshold, short_lists):
    hits = _expected_hits(r, k, relevance_threshold)
    return _precision_of(r, hits, k, short_lists), _has_relevant(r, relevance_threshold)


def recall(r, k, *, relevance_threshold):
    hits = _expected_hits(r, k, relevance_threshold)
    return _recall_of(r, hits, relevance_threshold), _has_relevant(r, relevance_threshold)


def f1(r, k, *, relevance_threshold, short_lists):
    hits = _expected_hits(r, k, relevance_threshold)
    return _f1_of(r, hits, k, relevance_threshold, short_lists), _has_relevant(
        r, relevance_threshold
    )


def _hit_rate_of(first_relevant_mass):
    """The probability that a relevant item is ranked (at most 1: rounding of the
    first-relevant probabilities' sum), written over."""
    return np.minimum(first_relevant_mass, 1.0, out=first_relevant_mass)


def _reciprocal_rank_terms(prob, position):
    """E[1 / rank] terms: the probability that the first relevant item is at 0-based
    ``position``, over its rank."""
    return _elementwise(lambda p, x: p / (x + 1.0), prob, position)


def hit_rate(r, k, *, relevance_threshold):
    query, _position, prob = r.first_relevant(relevance_threshold, k)
    value = _hit_rate_of(_sum_by(query, prob, r.n_queries))
    return value, _has_relevant(r, relevance_threshold)


def reciprocal_rank(r, k, *, relevance_threshold):
    query, position, prob = r.first_relevant(relevance_threshold, k)
    terms = _reciprocal_rank_terms(prob, position)
    return _sum_by(query, terms, r.n_queries), _has_relevant(r, relevance_threshold)


def _precision_coefficients(r, m):
    """Per group, with ``m`` relevant items of its n: E[rel * hits up to it] at offset j
    (1-based) is first + (j - 1) pairs, with first = (m/n)(H + 1) and
    pairs = m (m - 1) / (n (n - 1)) (0 for one item)."""
    n = r.size.astype(np.float64)
    return (m / n) * (r.before(m) + 1.0), _ratio(m * (m - 1.0), n * (n - 1.0))


def _precision_sums(r, k, threshold):
    """Per group: E[sum over its top-k positions p of rel(p) * hits up to p / (p + 1)].

    With `_precision_coefficients`, summed over j = 1..t with weights 1 / (s + j) this
    is first A + pairs B, where A = sum 1 / (s + j) and B = sum (j - 1) / (s + j)
    = t - (s + 1) A.
    """
    m = r.relevant_in_group(threshold)
    taken = r.taken(k)
    a = _reciprocals(r, r.start, taken)
    if r.stable or r.size.strides == (0,) and r.size[:1].tolist() == [1]:
        # Groups of one item (no ties): n = 1, so the second term is 0.
        a *= m
        a *= r.before(m) + 1.0
        return a
    b = taken - (r.start + 1.0) * a
    first, pairs = _precision_coefficients(r, m)
    return first * a + pairs * b


def average_precision(r, k, *, relevance_threshold, ap_denominator):
    has = _has_relevant(r, relevance_threshold)
    if ap_denominator == "hits":
        return _average_precision_over_hits(r, k, relevance_threshold), has
    total = r.per_query(_precision_sums(r, k, relevance_threshold))
    return _average_precision_of(r, total, k, relevance_threshold, ap_denominator), has


def _average_precision_of(r, total, k, threshold, ap_denominator):
    """AP from the sum of the precision terms (per query, or a curve's matrix, written
    over) over R or min(k, R); ``k`` as in `_precision_denominator`."""
    count = r.relevant_count(threshold)
    if ap_denominator == "min_k" and k is not None:
        if not isinstance(k, np.ndarray):  # (a curve's cut-offs are a column of small ks)
            # Counts may be int32: a k beyond their range is no cut (numpy refuses to cast it).
            k = min(k, np.iinfo(count.dtype).max)
        count = np.minimum(count, k)
    return _ratio(total, count, out=total)


def _average_precision_over_hits(r, k, threshold):
    """E[sum / hits]: the hits are random only through the group straddling k
    (`_expected_precision_over_hits`)."""
    complete = r.taken(k) == r.size
    fixed_sum = r.per_query(_precision_sums(r, k, threshold) * complete)
    fixed_hits = r.per_query(r.relevant_in_group(threshold) * complete)
    s, (straddling, n, m, t) = r.boundary(k, threshold)
    value = _ratio(fixed_sum, fixed_hits)  # no relevant item drawn at the boundary
    if straddling.size:
        value[straddling] = _expected_precision_over_hits(
            r, s[straddling], n, m, t, fixed_hits[straddling], fixed_sum[straddling]
        )
    return value


def _expected_precision_over_hits(r, s, n, m, t, hits_before, sum_before):
    """Per tie group cut by k (start s, n items, m relevant, t of them in the top k):
    E[(sum_before + its precision terms) / (hits_before + x)] over the hypergeometric
    number x of relevant items drawn into its t positions, ``hits_before`` and
    ``sum_before`` being the query's hits and precision terms before the group.

    Given x, they are spread uniformly over those positions, so they contribute
    (x/t)(H + 1) A + x(x - 1)/(t(t - 1)) B with A, B as in `_precision_sums`.
    """
    a = _reciprocals(r, s, t)
    b = t - (s + 1.0) * a
    row, x, prob = _hypergeometric(n, m, t)
    tq, hits = t[row].astype(np.float64), hits_before[row]
    part = _ratio(x, tq) * (hits + 1.0) * a[row] + _ratio(x * (x - 1.0), tq * (tq - 1.0)) * b[row]
    return _sum_by(row, prob * _ratio(sum_before[row] + part, hits + x), s.size)


def _mean_gain(r, gain):
    """Per group: the mean gain of its items, the expected gain at each of its positions."""
    return r.group_sum(gain(r.rel)) / r.size


def cumulative_gain(r, k, *, gain):
    total = r.group_sum(gain(r.rel))
    value = r.per_query(total * r.taken(k) / r.size)
    return value, r.has_nonzero()


def _dcg(r, k, gain, log_base=2.0):
    # Not kept for a dcg@k and an ndcg@k of one call: making it again costs about 1% of
    # the ranking, keeping it 8 bytes per query until the other one is reached.
    return r.per_query(_mean_gain(r, gain) * _discounts(r, r.start, r.taken(k), log_base))


def discounted_cumulative_gain(r, k, *, gain, log_base=2.0):
    return _dcg(r, k, gain, log_base), r.has_nonzero()


# DCG sums a tied group's discounts as one span, the ideal DCG one position at a time: a
# tie-averaged ranking as good as the ideal can land a few ulps off it. Without tied
# relevant items both sums have the same terms in the same order, and no snap is needed
# (nor made: there, a few ulps short can be a real, tiny shortfall).
_SAME_AS_IDEAL = 64 * np.finfo(np.float64).eps


def _same_as_ideal(dcg, ideal):
    """Whether a DCG is its ideal up to the rounding of their different sums."""
    return np.abs(ideal - dcg) <= _SAME_AS_IDEAL * ideal


def normalized_dcg(r, k, *, gain, ideal_dcg="achievable"):
    ideal = r.ideal_dcg(k, gain)
    has_relevant = ideal > 0
    if ideal_dcg == "k" and k is not None:
        # RecTools: the DCG of k items of gain 1, whatever the query's relevant items.
        full = float(np.sum(1.0 / np.log2(np.arange(k, dtype=np.float64) + 2.0)))
        ideal = np.where(has_relevant, full, 0.0)
    dcg = _dcg(r, k, gain)
    value = _ratio(dcg, ideal)
    tied = np.unique(r.query[r.size > 1])  # the queries with a tie group
    tied = tied[ideal[tied] > 0]
    value[tied[_same_as_ideal(dcg[tied], ideal[tied])]] = 1.0
    return value, has_relevant


def ranking_auc(r, k, *, relevance_threshold):
    """Share of (relevant, non-relevant) pairs inside the top k in the right order.

    Groups wholly inside the top k give fixed counts; pairs inside one group count 1/2
    (their expected value). The group straddling k contributes a hypergeometric number x
    of relevant items, and the ratio is averaged over x exactly. 0.5 where no pair.
    """
    m = r.relevant_in_group(relevance_threshold)
    complete = r.taken(k) == r.size
    m_c = m * complete
    s, (straddling, n, m_b, t) = r.boundary(k, relevance_threshold)
    # The fully ranked region is [0, s): the relevant items there, and the rest.
    positive = r.per_query(m_c)
    # (s[query] - start - size) - (positive[query] - before - m_c), in place: one
    # temporary per group at a time, not five.
    later_negative = np.subtract(_take(s, r.query), r.start)
    later_negative -= r.size
    others = positive[r.query]
    others -= r.before(m_c)
    others -= m_c
    later_negative = np.subtract(later_negative, others, out=others)
    half_tied = r.size - m
    half_tied *= 0.5
    later_negative += half_tied
    del half_tied
    later_negative *= m_c
    del m_c, complete
    correct = r.per_query(later_negative)
    del later_negative
    drawn = None
    if straddling.size:
        positive_before = positive[straddling]
        negative_before = s[straddling] - positive_before
        drawn = _expected_auc_at_boundary(
            n, m_b, t, positive_before, negative_before, correct[straddling]
        )
    # The pairs when no item is drawn at the boundary, in blocks of queries (per-query
    # temporaries stay small), each ratio written over its count of correct pairs.
    value = correct
    for low in range(0, r.n_queries, _BLOCK):
        block = slice(low, low + _BLOCK)
        pairs = positive[block] * (s[block] - positive[block])
        _ratio(correct[block], pairs, empty=0.5, out=value[block])
    del positive
    if drawn is not None:
        value[straddling] = drawn
    return value, _has_relevant(r, relevance_threshold)


def _expected_auc_at_boundary(n, m, t, positive_before, negative_before, correct_before):
    """Per tie group cut by k (n items, m relevant, t of them in the top k): E[correct
    pairs / pairs] over the hypergeometric number x of relevant items drawn into the top
    k, given the positives, negatives and correct pairs before the group (0.5 where no
    pair). Drawn items are below the earlier ones, and pairs among them count 1/2."""
    row, x, prob = _hypergeometric(n, m, t)
    drawn_negative = t[row] - x
    positive = positive_before[row]
    right = correct_before[row] + positive * drawn_negative + 0.5 * x * drawn_negative
    pairs = (positive + x) * (negative_before[row] + drawn_negative)
    return _sum_by(row, prob * _ratio(right, pairs, empty=0.5), n.size)


def average_relative_position(r, k=None, *, relevance_threshold):
    m = r.relevant_in_group(relevance_threshold)
    # Expected 1-based position of an item of a group: the group's middle.
    middle = r.start + (r.size + 1) / 2.0
    count = r.per_query(m)
    return _ratio(_ratio(r.per_query(m * middle), count), r.n_cand), count > 0


def kendall_tau(r, k=None):
    """Kendall tau-b between the ranking and the relevance, per query.

    The numerator sums sign(rel_i - rel_j) over pairs with i in an earlier group than j
    (pairs inside a tie group add 0 in expectation): the pairs of stored items are counted
    by `_ordered_pair_signs` over each query minus over each tie group; items of relevance
    0, not stored, enter through the zeros before and after each group. The ranking has no
    ties in the denominator, sqrt(n0 * (n0 - n_rel_ties)).
    """
    # Per-query arrays are as many as the rows with one-item queries: each is freed, or
    # written over, as soon as it is read for the last time (the arithmetic is unchanged).
    stored = r.rel != 0  # the kernel's judged flag also keeps judged items of relevance 0
    every = bool(stored.all())
    group = r.group if every else r.group[stored]
    query = r.query if r._group is None else r.query[r.group]
    if not every:
        query = query[stored]
    rel = r.rel if every else r.rel[stored]
    nonzero = r.group_sum(stored.astype(np.float64))
    del stored
    nonzero_total = r.per_query(nonzero)
    nonzero_before = r.before(nonzero)
    # (n_cand[query] - start - size) - (nonzero_total[query] - before - nonzero)
    later = np.subtract(_take(r.n_cand, r.query), r.start)
    later -= r.size
    others = nonzero_total[r.query]
    others -= nonzero_before
    others -= nonzero
    del nonzero
    zeros_after = np.subtract(later, others, out=others)
    del later
    zeros_after -= r.start - nonzero_before  # zeros_after - zeros_before
    del nonzero_before
    terms = np.sign(rel)
    terms *= zeros_after if every and r._group is None else zeros_after[group]
    del zeros_after
    numerator = _sum_by(query, terms, r.n_queries)
    del terms
    if _each_once(query, r.n_queries):  # one stored item per query: no pair of them
        tied = None  # none tied (0 for all), and the pair sums below are 0
    else:
        numerator += _ordered_pair_signs(query, rel, r.n_queries)
        numerator -= r.per_query(_ordered_pair_signs(group, rel, r.n_groups))
        levels, level = np.unique(rel, return_inverse=True)
        pair, counts = np.unique(query * np.int64(levels.size) + level.ravel(), return_counts=True)
        del level
        tied = _sum_by(pair // levels.size, counts * (counts - 1.0) / 2.0, r.n_queries)
        del pair, counts
    del query, group, rel
    # numerator / sqrt(pairs * (pairs - tied)), in blocks of queries (small temporaries):
    # tied counts also the pairs of zeros, pairs = n_cand (n_cand - 1) / 2.
    for low in range(0, r.n_queries, _BLOCK):
        block = slice(low, low + _BLOCK)
        n_cand = r.n_cand[block]
        zeros = n_cand - nonzero_total[block]
        half = zeros - 1.0  # zeros * (zeros - 1) / 2
        half *= zeros
        half /= 2.0
        denominator = np.zeros(half.size) if tied is None else tied[block]
        denominator += half
        pairs = np.subtract(n_cand, 1.0, out=half)
        pairs *= n_cand
        pairs /= 2.0
        np.subtract(pairs, denominator, out=denominator)
        denominator *= pairs
        np.sqrt(denominator, out=denominator)
        _ratio(numerator[block], denominator, out=numerator[block])
    return numerator, r.has_nonzero()
