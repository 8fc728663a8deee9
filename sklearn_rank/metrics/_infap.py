"""trec_eval's infAP (Yilmaz and Aslam, CIKM 2006), exactly averaged over the orderings of
tied scores (McSherry and Najork's expectation, ECIR 2008) in O(n sqrt(n)) time and O(n) memory per
tie group of n items: a tie group holding judged and unjudged items is summed over where a
relevant item lands and how many judged items land above it, over the window of that
hypergeometric count that holds all but 1e-31 of its mass. Notation as in `_trec`.
"""

import numpy as np

from ._columns import _as_float
from ._counting import _hypergeometric_window
from ._reductions import _ratio

# trec_eval's infAP smoothing (m_infap.c, INFAP_EPSILON).
_INFAP_EPSILON = 0.00001


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
    averaged exactly over where it lands and what lands above it (`_expected_infap_terms`)."""
    R = r.relevant_count(relevance_threshold)
    m = r.relevant_in_group(relevance_threshold)
    b = r.judged_in_group() - m
    A = r.before(m)
    Bn = r.judged_before() - A
    contribution = _infap_terms(A, Bn, _as_float(r.start))
    contribution *= m
    tied = np.flatnonzero((r.size > 1) & (m > 0))
    if tied.size:
        contribution[tied] = m[tied] * _expected_infap_terms(
            r.start[tied], r.size[tied], m[tied], b[tied], A[tied], Bn[tied]
        )
    del A, Bn, b
    value = r.per_query(contribution)
    del contribution
    return _ratio(value, R, out=value), R > 0


# Terms summed at once (a block's temporaries), and the most terms one tie group may need:
# a group of n items, judged and unjudged mixed, needs up to about 12 n**1.5 of them (a
# group of about 50,000 such items is refused: it would take over 10 s).
_INFAP_BLOCK = 1 << 16
_INFAP_TERMS_LIMIT = 1 << 27


def _expected_infap_terms(start, size, a, b, A, Bn):
    """E[term] of one relevant item of each tie group of ``size`` items (``a`` relevant,
    ``b`` judged non-relevant, the rest unjudged) starting after ``start`` items, ``A``
    relevant and ``Bn`` judged non-relevant of them.

    The item's position q in its group is uniform on 1..n and the q - 1 items above it are
    a uniform subset of the n - 1 others, so the number j of judged items among them is
    hypergeometric (q - 1 draws from n - 1, K = a - 1 + b of them judged), and given j the
    relevant ones among them are hypergeometric with mean j (a - 1) / K. Given j, the term
    is linear in the relevant items above, so
    E[term] = (1/n) sum over q of 1 / (s + q) sum over j of P(j | q) term(A + j (a - 1) / K,
    A + Bn + j): no sum over the relevant and the non-relevant items above apart. j is
    summed over the window of `_hypergeometric_window` (all but 1e-31 of its mass), so a
    group costs O(n min(n, sqrt(n), a + b, n - a - b)) terms and O(n) memory, in blocks.
    """
    n = np.asarray(size, dtype=np.int64)
    a = np.rint(a).astype(np.int64)
    judged = a - 1 + np.rint(b).astype(np.int64)  # the judged among the others
    unjudged = n - 1 - judged
    share = _ratio(a - 1.0, judged)  # of the judged others, the relevant ones
    width = np.minimum(np.minimum(judged, unjudged), 2.0 * np.ceil(6.0 * np.sqrt(n)) + 2.0)
    terms = n * (width + 1.0)
    if terms.max() > _INFAP_TERMS_LIMIT:
        worst = int(np.argmax(terms))
        raise ValueError(
            f"infap: exact tie averaging of a tie group of {n[worst]} items "
            f"({judged[worst] + 1} judged, {unjudged[worst]} unjudged) would sum up to "
            f"{terms[worst]:.3g} terms, more than {_INFAP_TERMS_LIMIT:,}; pass "
            'ties="stable" to break the ties in input order (or break them in the scores).'
        )
    first = np.zeros(n.size + 1, dtype=np.int64)
    np.cumsum(n, out=first[1:])
    tables = (np.asarray(start), n, judged, unjudged, share, A, Bn)
    from scipy.special import gammaln  # (imported here: scipy.special takes ~50 ms to import)

    tables += (gammaln(np.arange(n.max() + 1.0) + 1.0),)  # log i!, i = 0..n
    expected = np.zeros(n.size)
    # Blocks of whole groups, or of one group's rows where it needs more than a block:
    # each group's sum is then made the same way whatever groups come with it (the same
    # bits for every split of the queries, as n_jobs makes).
    large = terms > _INFAP_BLOCK
    small = np.flatnonzero(~large)
    block = np.cumsum(terms[small]) // _INFAP_BLOCK
    for groups in np.split(small, np.flatnonzero(np.diff(block)) + 1) if small.size else ():
        rows = n[groups]
        group = np.repeat(groups, rows)
        above = np.arange(group.size) - np.repeat(np.cumsum(rows) - rows, rows)
        expected += _infap_rows(group, above, tables)
    for g in np.flatnonzero(large):
        per_block = max(1, int(_INFAP_BLOCK // (width[g] + 1.0)))
        for lo in range(0, int(n[g]), per_block):
            above = np.arange(lo, min(lo + per_block, int(n[g])))
            expected += _infap_rows(np.full(above.size, g), above, tables)
    return expected / n


def _infap_rows(group, above, tables):
    """Per group, the sum over the given rows (its positions, ``above`` = q - 1 items
    above) of E[term | q] / (s + q); arrays of ``tables`` per group."""
    start, n, judged, unjudged, share, A, Bn, log_factorial = tables
    low, high = _hypergeometric_window(n[group] - 1, judged[group], above)
    count = high - low + 1
    cell = np.repeat(np.arange(group.size), count)
    j = low[cell] + (np.arange(cell.size) - np.repeat(np.cumsum(count) - count, count))
    g = group[cell]
    # log C(K, j) + log C(x, q - 1 - j) - log C(n - 1, q - 1), the parts of a row once
    row_part = log_factorial[judged[group]] + log_factorial[unjudged[group]]
    row_part -= log_factorial[n[group] - 1]
    row_part += log_factorial[above] + log_factorial[n[group] - 1 - above]
    rest = above[cell] - j
    log_prob = row_part[cell]
    log_prob -= log_factorial[j]
    log_prob -= log_factorial[judged[g] - j]
    log_prob -= log_factorial[rest]
    log_prob -= log_factorial[unjudged[g] - rest]
    prob = np.exp(log_prob, out=log_prob)
    del rest
    judged_above = Bn[g] + A[g] + j
    term = A[g] + j * share[g]
    term += _INFAP_EPSILON
    term /= judged_above + 2.0 * _INFAP_EPSILON
    term *= judged_above
    term += 1.0
    term *= prob
    at_q = np.bincount(cell, term, minlength=group.size)
    at_q /= start[group] + above + 1.0
    return np.bincount(group, at_q, minlength=n.size)
