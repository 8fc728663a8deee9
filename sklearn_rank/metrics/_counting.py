"""Counting per code and the combinatorics of tie groups, for the kernel and the metrics.

Sums and counts per query (or per group) of arrays sorted or not, where runs of equal
codes start, and the closed forms tie averaging needs: binomial coefficients, the
hypergeometric draw at a cut-off, and signed pair counts (Kendall tau); the ideal DCG,
from counts per (query, relevance level).
"""

import numpy as np


def _sum_by(codes, weights, size):
    """Sum ``weights`` per code 0..size-1, always float64 (bincount of nothing is int)."""
    if _each_once(codes, size):  # nothing to add up: no float64 copy of the weights
        out = np.zeros(size)
        out[codes] = weights
        out += 0.0  # as bincount's 0.0 + w, which turns -0.0 into 0.0
        return out
    return np.bincount(codes, weights=weights, minlength=size).astype(np.float64, copy=False)


def _each_once(codes, size):
    """Whether ``codes`` are strictly increasing (each code at most once, in order), as
    per-query values of one-item queries are; most other codes fail in the first 64."""
    if codes.size > size or codes.size < 2:
        return codes.size < 2
    head = min(codes.size, 65)
    return bool(np.all(codes[1:head] > codes[: head - 1]) and np.all(codes[1:] > codes[:-1]))


def _count_by(codes, size):
    """How many times each code 0..size-1 occurs, as int32 when that can hold the counts.

    Per-query counts are kept for a whole evaluation. Few codes (the usual case: most
    queries have few relevant items) are counted from their distinct values, which needs
    no int64 array of one count per query besides the int32 one.
    """
    if codes.size and _each_once(codes, size):  # each code once (one-item queries)
        out = np.zeros(size, dtype=np.int32)
        out[codes] = 1
        return out
    if 16 * codes.size > 3 * size:  # many: a bincount's int64 array is the smaller cost
        counts = np.bincount(codes, minlength=size)
        return counts.astype(np.int32) if codes.size < 2**31 else counts
    if codes.size and np.all(codes[1:] >= codes[:-1]):
        starts = np.flatnonzero(np.diff(codes, prepend=-1))
        present, counts = codes[starts], np.diff(np.append(starts, codes.size))
    else:
        present, counts = np.unique(codes, return_counts=True)
    out = np.zeros(size, dtype=np.int32 if codes.size < 2**31 else np.int64)
    out[present] = counts
    return out


def _offsets_of_counts(counts):
    """[0, c0, c0 + c1, ...]: where each run starts, given the runs' lengths."""
    start = np.zeros(counts.size + 1, dtype=np.int64)
    np.cumsum(counts, out=start[1:])
    return start


def _run_heads(sorted_codes):
    """Per entry of an array sorted by code: the index of the first entry of its run."""
    heads = np.zeros(sorted_codes.size, dtype=np.int64)
    if sorted_codes.size:
        starts = np.flatnonzero(sorted_codes[1:] != sorted_codes[:-1]) + 1
        heads[starts] = starts
        np.maximum.accumulate(heads, out=heads)
    return heads


def _offsets(codes, size):
    """Start of each code's run in an array sorted by code; size + 1 values."""
    return _offsets_of_counts(np.bincount(codes, minlength=size))


def _ordered_pair_signs(segment, value, n_segments):
    """Per segment, the sum over pairs i < j (in array order) of sign(value_i - value_j).

    Items are grouped by segment, in order. A bottom-up merge count, vectorised over all
    segments: at block width w, each item in the right half of a pair of blocks counts
    the left-half items above and below its value with one searchsorted over
    (pair, value level) keys. O(n log n) per doubling, log(longest segment) doublings.
    """
    total = np.zeros(n_segments)
    if value.size < 2 or _each_once(segment, n_segments):  # no segment holds a pair
        return total
    level = np.unique(value, return_inverse=True)[1].ravel().astype(np.int64)
    n_levels = np.int64(level.max() + 1)
    start = _offsets(segment, n_segments)
    offset = np.arange(value.size) - start[segment]
    longest = int(np.diff(start).max())
    width = 1
    while width < longest:
        block = offset // width
        right = block % 2 == 1
        pair = start[segment] + (block // 2) * (2 * width)  # first item of the block pair
        keys = pair * n_levels + level
        left = np.sort(keys[~right])
        base = pair[right] * n_levels
        mine = keys[right]
        smaller = np.searchsorted(left, mine, "left") - np.searchsorted(left, base, "left")
        greater = np.searchsorted(left, base + n_levels, "left") - np.searchsorted(
            left, mine, "right"
        )
        total += _sum_by(segment[right], greater - smaller, n_segments)
        width *= 2
    return total


def _log_comb(a, b):
    """log C(a, b) for integer arrays with 0 <= b <= a."""
    from scipy.special import gammaln  # (imported here: scipy.special takes ~50 ms to import)

    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    return gammaln(a + 1.0) - gammaln(b + 1.0) - gammaln(a - b + 1.0)


def _hypergeometric(n, m, t):
    """Expand boundary draws: t items from n of which m are relevant.

    Returns (index into n, x relevant drawn, probability) as flat arrays, one row per
    possible x; t = 0 yields the single row x = 0 with probability 1.
    """
    low = np.maximum(0, t - (n - m))
    high = np.minimum(t, m)
    count = high - low + 1
    query = np.repeat(np.arange(n.size), count)
    offset = np.arange(count.sum()) - np.repeat(np.cumsum(count) - count, count)
    x = low[query] + offset
    nq, mq, tq = n[query], m[query], t[query]
    prob = np.exp(_log_comb(mq, x) + _log_comb(nq - mq, tq - x) - _log_comb(nq, tq))
    return query, x, prob


# Half-width of a hypergeometric window, in square roots of its least "sample size": by
# Hoeffding's bound for sampling without replacement, the mass outside is below
# 2 exp(-2 * 6**2), about 1e-31, far under a double's rounding of the mass inside.
_WINDOW_ROOTS = 6.0


def _hypergeometric_window(population, successes, draws):
    """Per row, the range ``[low, high]`` of the successes drawn (``draws`` items from
    ``population``, ``successes`` of them successes) outside which the probability is
    below 1e-31: O(sqrt(draws)) values instead of O(draws) (arrays broadcast).

    Hoeffding's bound holds for the draws, and as well for the draws and the successes
    swapped, or either replaced by its complement (the same count seen from the other
    side), so the least of the four sets the width.
    """
    failures = population - successes
    low = np.maximum(0, draws - failures)
    high = np.minimum(successes, draws)
    least = np.minimum(np.minimum(draws, population - draws), np.minimum(successes, failures))
    half = np.ceil(_WINDOW_ROOTS * np.sqrt(least)) + 1.0
    mean = draws * successes / np.maximum(population, 1)
    low = np.maximum(low, np.floor(mean - half)).astype(np.int64)
    high = np.minimum(high, np.ceil(mean + half)).astype(np.int64)
    return low, high


def _relevance_levels(rel):
    """The distinct relevance levels, ascending, and each item's level number."""
    low, high = rel.min(), rel.max()
    # Whole levels below 2**53, where float64 still counts them one by one.
    if high - low < 1 << 16 and high < 2**53 and np.array_equal(rel, np.floor(rel)):
        return np.arange(low, high + 1), (rel - low).astype(np.int64)
    levels, level = np.unique(rel, return_inverse=True)
    return levels, level.ravel()


def _discount(position, log_base=2.0):
    """DCG's discount 1 / log_b(p + 2) at 0-based ``position`` p."""
    return np.log(log_base) / np.log(position + 2.0)


def _ideal_positions(query, rel, levels, level, n_queries, k):
    """``(query, position, relevance)`` of the items within the first ``k`` (None: all)
    of their query's ideal list, relevance descending.

    Relevance takes few distinct levels in practice, so a query's ideal list is runs of
    equal levels: counting the items per (query, level) gives every run's positions, and
    no item is sorted. Many distinct levels fall back to one sort by a composite (query,
    level) key. Each query's items come in position order (those of other queries may
    come between them), so that its terms, summed in array order, are summed as the DCG
    of that ranking is (a perfect ranking scores exactly 1).
    """
    n_levels = levels.size
    runs = _ideal_runs(query, level, n_levels, n_queries, k)
    if runs is not None:
        begin, end = runs
        length = end - begin
        # Level by level (highest first): each query's runs come in its ideal order.
        row, column = np.nonzero(length)
        count = length[row, column]
        position = (
            np.repeat(begin[row, column], count)
            + np.arange(count.sum())
            - np.repeat(np.cumsum(count) - count, count)
        )
        return (
            np.repeat(column, count),
            position,
            levels[::-1].astype(np.float64)[np.repeat(row, count)],
        )
    # Highest level first, so a query's runs follow its ideal order.
    key = query * np.int64(n_levels) + (n_levels - 1 - level)
    order = np.argsort(key)
    query, rel = query[order], rel[order]
    position = np.arange(rel.size) - _run_heads(query)
    if k is not None:
        inside = position < k
        query, position, rel = query[inside], position[inside], rel[inside]
    return query, position, rel


def _ideal_runs(query, level, n_levels, n_queries, k):
    """Where each query's run of each level begins and ends in its ideal list, cut at
    position ``k`` (None: not cut): two arrays of shape (n_levels, n_queries), row j for
    the j-th highest level; None when that many cells would outweigh the items."""
    if n_queries * n_levels > max(4 * query.size, 1 << 20):
        return None
    key = (n_levels - 1 - level) * np.int64(n_queries) + query
    count = np.bincount(key, minlength=n_levels * n_queries).reshape(n_levels, n_queries)
    del key
    end = np.cumsum(count, axis=0)  # (row by row: fast in this layout)
    begin = end - count
    del count
    if k is not None:
        np.minimum(begin, k, out=begin)
        np.minimum(end, k, out=end)
    return begin, end


def _one_level_ideal_dcg(query, level, n_queries, k, gain):
    """`_ideal_dcg` when every item has relevance ``level``: a query with n items scores
    the partial sum of its first min(n, k) terms, each term computed and the terms added
    in position order exactly as `_sum_by` adds them, so values are the same to the bit."""
    count = np.bincount(query, minlength=n_queries)
    if k is not None:
        np.minimum(count, k, out=count)
    longest = int(count.max(initial=0))
    position = np.arange(longest, dtype=np.float64)
    terms = gain(np.full(longest, level)) * _discount(position)
    sums = np.zeros(longest + 1)
    np.cumsum(terms, out=sums[1:])
    return sums[count]


def _ideal_dcg(query, rel, n_queries, k, gain):
    """Per query, DCG@k of its relevances sorted descending, without sorting items
    (`_ideal_positions`)."""
    if rel.size == 0:
        return np.zeros(n_queries)
    if _each_once(query, n_queries):  # one item per query: its gain at position 0
        ideal = np.zeros(n_queries)
        ideal[query] = gain(rel) * (np.log(2.0) / np.log(2.0))  # the discount, as below
        return ideal
    levels, level = _relevance_levels(rel)
    if levels.size == 1:  # binary relevance: every query's ideal list is one run of one gain
        return _one_level_ideal_dcg(query, float(levels[0]), n_queries, k, gain)
    shared = _shared_ideal_lists(query, level, levels.size, n_queries, k)
    if shared is not None:
        # Each distinct ideal list's DCG, from the very terms a query of that list sums,
        # in the same order: the same value, to the bit, with work per distinct list.
        list_of_query, n_lists, query, level = shared
        dcg = _dcg_of_ideal_lists(query, levels[level], levels, level, n_lists, k, gain)
        return dcg[list_of_query]
    return _dcg_of_ideal_lists(query, rel, levels, level, n_queries, k, gain)


def _dcg_of_ideal_lists(query, rel, levels, level, n_queries, k, gain):
    query, _position, terms = _ideal_terms(query, rel, levels, level, n_queries, k, gain)
    return _sum_by(query, terms, n_queries)


def _ideal_terms(query, rel, levels, level, n_queries, k, gain):
    """``(query, position, term)`` of the ideal lists' DCG terms within the first ``k``
    positions, each query's in position order (`_ideal_positions`): summed per query
    they give its ideal DCG@k, cumulated over positions the ideal DCG at every k."""
    query, position, rel = _ideal_positions(query, rel, levels, level, n_queries, k)
    return query, position, gain(rel) * _discount(position)


def _shared_ideal_lists(query, level, n_levels, n_queries, k):
    """The distinct ideal lists of the queries, when there are far fewer than queries.

    A query's ideal DCG@k depends only on how many of its first k ideal positions each
    relevance level fills; queries with the same counts share it (under a cut-off, even
    thousands of graded queries have a few hundred distinct lists). Returns, per query,
    its list's number, the number of lists, and the items of each list (list number,
    level number) to score as queries; None when the lists are not few.
    """
    runs = None if n_queries < 64 else _ideal_runs(query, level, n_levels, n_queries, k)
    if runs is None:
        return None
    count = runs[1] - runs[0]
    del runs
    # A list's key: its counts as the digits of one number, level j's in base radix[j].
    radix = count.max(axis=1) + 1
    n_keys = float(np.prod(radix.astype(np.float64)))
    if n_keys >= 2**62:
        return None
    digit = np.cumprod(np.append(1, radix[:-1]))
    list_key = np.zeros(n_queries, dtype=np.int64)
    for row, base in zip(count, digit):
        list_key += row * base
    del count
    if n_keys <= 4 * n_queries:  # few enough keys to count: no sort
        present = np.bincount(list_key, minlength=int(n_keys)) > 0
        distinct = np.flatnonzero(present)
        list_of_query = (np.cumsum(present) - 1)[list_key]
    else:
        distinct, list_of_query = np.unique(list_key, return_inverse=True)
    if 4 * distinct.size > n_queries:
        return None
    # Back from keys to counts per (list, level), then one item per count.
    counts = (distinct[:, None] // digit) % radix
    lists, row = np.nonzero(counts)
    n_items = counts[lists, row]
    return (
        list_of_query.ravel(),
        distinct.size,
        np.repeat(lists, n_items),
        np.repeat(n_levels - 1 - row, n_items),
    )
