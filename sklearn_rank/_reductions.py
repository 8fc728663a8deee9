"""Each metric as a short reduction over a `_Ranking`.

A reduction returns ``(values, has_relevant)``: one value per query, and whether the query
has a relevant item (queries without one get the ``no_relevant`` convention afterwards, in
`_aggregate.py`). Under ``ties="average"`` every value is the exact expected value over all
orderings of tied items (McSherry & Najork, ECIR 2008): linear metrics use each position's
expected relevance (the tie-group mean); the rest use the closed forms noted where they are
computed.
"""

import numpy as np

from ._kernel import _hypergeometric, _sum_by


def _ratio(numerator, denominator, empty=0.0):
    out = np.full(numerator.shape, empty, dtype=np.float64)
    np.divide(numerator, denominator, out=out, where=denominator != 0)
    return out


def _expected_hits(r, k, threshold):
    return r.per_query(r.expected(r.relevant(threshold)), r.within(k))


def _precision_denominator(r, k, short_lists):
    if k is None:
        return r.n_cand.astype(np.float64)
    if short_lists == "k":
        return np.full(r.n_queries, float(k))
    return np.minimum(r.n_cand, k).astype(np.float64)


def _has_relevant(r, threshold):
    return r.relevant_count(threshold) > 0


def precision(r, k, *, relevance_threshold, short_lists):
    hits = _expected_hits(r, k, relevance_threshold)
    return _ratio(hits, _precision_denominator(r, k, short_lists)), _has_relevant(
        r, relevance_threshold
    )


def recall(r, k, *, relevance_threshold):
    hits = _expected_hits(r, k, relevance_threshold)
    return _ratio(hits, r.relevant_count(relevance_threshold)), _has_relevant(
        r, relevance_threshold
    )


def f1(r, k, *, relevance_threshold, short_lists):
    # 2PR / (P + R) with P = h / D and R = h / |rel| is 2h / (D + |rel|): linear in the
    # hits h, so its expectation over tie orderings needs only the expected hits.
    hits = _expected_hits(r, k, relevance_threshold)
    denominator = _precision_denominator(r, k, short_lists) + r.relevant_count(
        relevance_threshold
    )
    return _ratio(2.0 * hits, denominator), _has_relevant(r, relevance_threshold)


def hit_rate(r, k, *, relevance_threshold):
    prob = r.first_relevant_probability(relevance_threshold)
    value = np.minimum(r.per_query(prob, r.within(k)), 1.0)
    return value, _has_relevant(r, relevance_threshold)


def reciprocal_rank(r, k, *, relevance_threshold):
    prob = r.first_relevant_probability(relevance_threshold)
    value = r.per_query(prob / (r.pos + 1.0), r.within(k))
    return value, _has_relevant(r, relevance_threshold)


def _precision_at_relevant(r, threshold):
    """E[rel(p) * hits up to p] at each position p, over orderings of ties.

    In a tie group of n items with m relevant, after H hits in earlier groups, the item at
    offset j (1-based) gives (m/n)(H + 1) + (j - 1) m(m - 1) / (n(n - 1)).
    """
    relevant = r.relevant(threshold)
    m = r.group_total(relevant)
    n = r.gsize.astype(np.float64)
    earlier = r.before_group(relevant)
    j = (r.pos - r.gstart).astype(np.float64)
    pairs = _ratio(m * (m - 1.0), n * (n - 1.0))
    return (m / n) * (earlier + 1.0) + j * pairs


def average_precision(r, k, *, relevance_threshold, ap_denominator):
    has = _has_relevant(r, relevance_threshold)
    terms = _precision_at_relevant(r, relevance_threshold) / (r.pos + 1.0)
    if ap_denominator == "hits":
        return _average_precision_over_hits(r, k, relevance_threshold, terms), has
    total = r.per_query(terms, r.within(k))
    count = r.relevant_count(relevance_threshold)
    if ap_denominator == "min_k" and k is not None:
        count = np.minimum(count, k)
    return _ratio(total, count), has


def _average_precision_over_hits(r, k, threshold, terms):
    """E[sum / hits]: hits are random only through the tie group straddling k.

    Given x relevant items drawn into the top k from that group (t positions), they are
    spread uniformly over its t positions, so the group's expected contribution is
    (x/t)(H + 1) A + x(x - 1)/(t(t - 1)) B with A = sum 1/p, B = sum (j - 1)/p over those
    positions and H the hits before it.
    """
    complete = r.complete(k)
    relevant = r.relevant(threshold)
    fixed_sum = r.per_query(terms, complete)
    fixed_hits = r.per_query(relevant, complete)
    n, m, t = r.boundary(k, threshold)
    straddling = None if complete is None else r.within(k) & ~complete
    if straddling is None:
        a = b = np.zeros(r.n_queries)
    else:
        a = r.per_query(1.0 / (r.pos + 1.0), straddling)
        b = r.per_query((r.pos - r.gstart) / (r.pos + 1.0), straddling)
    query, x, prob = _hypergeometric(n, m, t)
    tq = t[query].astype(np.float64)
    part = _ratio(x, tq) * (fixed_hits[query] + 1.0) * a[query] + _ratio(
        x * (x - 1.0), tq * (tq - 1.0)
    ) * b[query]
    value = prob * _ratio(fixed_sum[query] + part, fixed_hits[query] + x)
    return _sum_by(query, value, r.n_queries)


def cumulative_gain(r, k, *, gain):
    value = r.per_query(r.expected(gain(r.rel)), r.within(k))
    return value, r.relevant_count(None) > 0


def discounted_cumulative_gain(r, k, *, gain, log_base=2.0):
    discount = np.log(log_base) / np.log(r.pos + 2.0)
    value = r.per_query(r.expected(gain(r.rel)) * discount, r.within(k))
    return value, r.relevant_count(None) > 0


def normalized_dcg(r, k, *, gain):
    dcg, _ = discounted_cumulative_gain(r, k, gain=gain)
    ideal = r.ideal_dcg(k, gain)
    return _ratio(dcg, ideal), ideal > 0


def ranking_auc(r, k, *, relevance_threshold):
    """Share of (relevant, non-relevant) pairs inside the top k ranked in the right order.

    Pairs inside one tie group count 1/2 (their expected value). The tie group straddling
    k, if any, contributes a hypergeometric number x of relevant items, and the ratio is
    averaged over x exactly. 0.5 where there is no pair.
    """
    threshold = relevance_threshold
    relevant = r.relevant(threshold)
    other = 1.0 - relevant
    complete = r.complete(k)
    pos_count = r.per_query(relevant, complete)
    neg_count = r.per_query(other, complete)
    # Non-relevant items in later complete groups, plus half of those in the same group.
    group_other = r.group_total(other)
    later = neg_count[r.query] - r.before_group(other) - group_other
    correct = r.per_query(relevant * (later + 0.5 * group_other), complete)
    n, m, t = r.boundary(k, threshold)
    query, x, prob = _hypergeometric(n, m, t)
    drawn_other = t[query] - x
    right = correct[query] + pos_count[query] * drawn_other + 0.5 * x * drawn_other
    pairs = (pos_count[query] + x) * (neg_count[query] + drawn_other)
    value = prob * _ratio(right, pairs, empty=0.5)
    return _sum_by(query, value, r.n_queries), _has_relevant(r, threshold)


def average_relative_position(r, k=None, *, relevance_threshold):
    relevant = r.relevant(relevance_threshold)
    # Expected 1-based position of an item in a tie group: the group's middle.
    position = r.gstart + (r.gsize + 1) / 2.0
    count = r.per_query(relevant)
    mean_position = _ratio(r.per_query(relevant * position), count)
    return _ratio(mean_position, r.n_cand), count > 0


def kendall_tau(r, k=None):
    """Kendall tau-b between the ranking and the relevance, per query.

    The ranking is strict (stable mode) or has tied groups whose pairs contribute 0 in
    expectation (average mode); either way the ranking side has no ties in the
    denominator, which is sqrt(n0 * (n0 - n_rel_ties)).
    """
    levels, level = np.unique(r.rel, return_inverse=True)
    level = level.ravel()
    size = r.per_query(np.ones(r.rel.size))
    # net[i] = (later items with lower relevance) - (later items with higher relevance),
    # "later" meaning in a later tie group; one pass per distinct relevance level.
    net = np.zeros(r.rel.size)
    for value in range(levels.size):
        at_level = (level == value).astype(np.float64)
        after = r.per_query(at_level)[r.query] - r.before_group(at_level) - r.group_total(at_level)
        net += after * np.sign(level - value)
    numerator = r.per_query(net)
    n0 = size * (size - 1.0) / 2.0
    pair_code = r.query * np.int64(levels.size) + level
    tied = np.bincount(pair_code, minlength=r.n_queries * levels.size).astype(np.float64)
    n2 = (tied * (tied - 1.0) / 2.0).reshape(r.n_queries, levels.size).sum(axis=1)
    denominator = np.sqrt(n0 * (n0 - n2))
    return _ratio(numerator, denominator), r.relevant_count(None) > 0
