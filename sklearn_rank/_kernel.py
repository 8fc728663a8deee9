"""The one ranking kernel: sort by (query, score descending), tie groups, cut-off k.

`_rank` turns a `_Queries` into a `_Ranking`: for every query, the prefix of its ranked
candidates that a cut-off k can see, in rank order, each entry tagged with its position and
with the start and size of its tie group. Tie groups are always kept whole, so that the
expected value over orderings of tied items (``ties="average"``) can be computed exactly
from group totals. With ``ties="stable"`` every entry is its own group and ties are broken
by input order.

Every metric is a short reduction over a `_Ranking` (see `_reductions.py`); the helpers
here give them per-query sums, segment-wise cumulative sums, and the truth side (number of
relevant items, ideal DCG), all vectorised over queries.
"""

import numpy as np
from scipy.special import gammaln


def _rank(queries, k, ties):
    """Rank every query once; keep what a cut-off ``k`` (None: whole list) needs."""
    stable = ties == "stable"
    if queries.width is not None:
        index, query = _sort_dense(queries, k, stable)
    else:
        index, query = _sort_ragged(queries, stable)
    return _Ranking(queries, index, query, k, stable)


def _sort_dense(queries, k, stable):
    n, width = queries.n_queries, queries.width
    scores = queries.dense_score
    if k is not None and k < width:
        # Only items scoring at least the k-th largest score can reach the top k (their
        # tie group included): select them with a linear-time partition, sort the few.
        kth = np.partition(scores, width - k, axis=1)[:, width - k]
        rows, cols = np.nonzero(scores >= kth[:, None])
        order = np.lexsort((cols, -scores[rows, cols], rows))
        rows, cols = rows[order], cols[order]
        return rows * width + cols, rows
    order = np.argsort(-scores, axis=1, kind="stable" if stable else None)
    order += (np.arange(n) * width)[:, None]
    return order.ravel(), np.repeat(np.arange(n), width)


def _sort_ragged(queries, stable):
    codes, score = queries.codes, queries.score
    size = score.size
    # One composite integer key (query, rank of score) is faster than np.lexsort and
    # the stable score rank breaks ties by input order.
    by_score = np.argsort(-score, kind="stable")
    score_rank = np.empty(size, dtype=np.int64)
    score_rank[by_score] = np.arange(size)
    index = np.argsort(codes * np.int64(size) + score_rank)
    return index, codes[index]


class _Ranking:
    """Ranked prefix of every query, with positions and tie groups.

    Attributes (one value per kept entry, entries grouped by query in rank order):
    rel, pos (0-based position), gstart (position where the tie group starts),
    gsize (tie-group size), query (query index), gid (group number).
    Per query: ptr (n_queries + 1 offsets), n_cand (number of candidates).
    """

    def __init__(self, queries, index, query, k, stable):
        self.queries = queries
        self.n_queries = n = queries.n_queries
        self.stable = stable
        score = queries.score[index]
        counts = np.bincount(query, minlength=n)
        start = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(counts, out=start[1:])
        pos = np.arange(index.size) - start[query]
        if stable:
            keep = None if k is None else pos < k
            gstart, gsize = pos, np.ones(index.size, dtype=np.int64)
        else:
            new = np.ones(index.size, dtype=bool)
            new[1:] = (query[1:] != query[:-1]) | (score[1:] != score[:-1])
            first = np.flatnonzero(new)
            gid = np.cumsum(new) - 1
            gstart = pos[first][gid]
            gsize = np.diff(np.append(first, index.size))[gid]
            keep = None if k is None else gstart < k
        if keep is not None and not keep.all():
            index, query, pos, gstart, gsize = (
                a[keep] for a in (index, query, pos, gstart, gsize)
            )
        self.rel = queries.rel[index]
        self.query, self.pos, self.gstart, self.gsize = query, pos, gstart, gsize
        self.ptr = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(np.bincount(query, minlength=n), out=self.ptr[1:])
        if queries.width is not None:
            self.n_cand = np.full(n, queries.width, dtype=np.int64)
        else:
            self.n_cand = np.bincount(queries.codes, minlength=n)
        new = np.ones(query.size, dtype=bool)
        new[1:] = (query[1:] != query[:-1]) | (gstart[1:] != gstart[:-1])
        self.gid = np.cumsum(new) - 1
        self.group_first = np.flatnonzero(new)
        self._cache = {}

    # --- per-entry views -------------------------------------------------------------

    def relevant(self, threshold):
        """1.0 where an entry is relevant (rel >= threshold, or rel > 0), else 0.0."""
        key = ("relevant", threshold)
        if key not in self._cache:
            hit = self.rel > 0 if threshold is None else self.rel >= threshold
            self._cache[key] = hit.astype(np.float64)
        return self._cache[key]

    def group_total(self, values):
        """For each entry, the sum of ``values`` over its tie group."""
        if self.stable:
            return values
        return _sum_by(self.gid, values, 0)[self.gid]

    def expected(self, values):
        """Expected value at each position over orderings of tied items (group mean)."""
        if self.stable:
            return values
        return self.group_total(values) / self.gsize

    def before_group(self, values):
        """For each entry, the sum of ``values`` over earlier tie groups of its query."""
        total = np.concatenate(([0.0], np.cumsum(values)))
        return total[self.group_first[self.gid]] - total[self.ptr[self.query]]

    def within(self, k):
        """Entries at positions < k (all entries when k is None)."""
        return None if k is None else self.pos < k

    def complete(self, k):
        """Entries whose whole tie group lies inside the top k."""
        return None if k is None else self.gstart + self.gsize <= k

    def per_query(self, values, mask=None):
        """Sum ``values`` per query, over the entries selected by ``mask``."""
        if mask is None:
            return _sum_by(self.query, values, self.n_queries)
        return _sum_by(self.query[mask], values[mask], self.n_queries)

    def boundary(self, k, threshold):
        """The tie group straddling position k, per query: (size n, relevant m, taken t).

        t = k - (group start) items of that group fall inside the top k; the number of
        relevant ones among them is hypergeometric. Queries without such a group get zeros.
        """
        n = np.zeros(self.n_queries, dtype=np.int64)
        m = np.zeros(self.n_queries, dtype=np.int64)
        t = np.zeros(self.n_queries, dtype=np.int64)
        if k is None or self.stable:
            return n, m, t
        first = self.group_first
        straddle = first[(self.gstart[first] < k) & (self.gstart[first] + self.gsize[first] > k)]
        q = self.query[straddle]
        n[q] = self.gsize[straddle]
        t[q] = k - self.gstart[straddle]
        group_relevant = _sum_by(self.gid, self.relevant(threshold), 0)
        m[q] = np.rint(group_relevant[self.gid[straddle]]).astype(np.int64)
        return n, m, t

    def first_relevant_probability(self, threshold):
        """P(entry is the first relevant item of its query), over orderings of ties.

        Only the first tie group holding a relevant item can hold the first one. In a
        group of n items with m relevant, the first relevant one sits at offset j
        (1-based) with probability C(n - j, m - 1) / C(n, m).
        """
        relevant = self.relevant(threshold)
        m = self.group_total(relevant)
        earlier = self.before_group(relevant)
        first_group = (m > 0) & (earlier == 0)
        prob = np.zeros(self.rel.size)
        n, m, j = self.gsize[first_group], m[first_group], (self.pos - self.gstart)[first_group] + 1
        single = n == 1
        value = np.where(single, 1.0, 0.0)
        multi = ~single & (n - j >= m - 1)
        value[multi] = np.exp(
            _log_comb(n[multi] - j[multi], m[multi] - 1) - _log_comb(n[multi], m[multi])
        )
        prob[first_group] = value
        return prob

    # --- truth side: every judged item, scored or not ---------------------------------

    def relevant_count(self, threshold):
        """Number of relevant judged items per query (R), unscored ones included."""
        key = ("R", threshold)
        if key not in self._cache:
            queries = self.queries
            hit = queries.rel > 0 if threshold is None else queries.rel >= threshold
            if queries.width is not None:
                count = hit.reshape(self.n_queries, queries.width).sum(axis=1).astype(np.float64)
            else:
                count = _sum_by(queries.codes, hit, self.n_queries)
            if queries.extra_rel is not None and queries.extra_rel.size:
                extra = queries.extra_rel > 0 if threshold is None else queries.extra_rel >= threshold
                count += _sum_by(queries.extra_codes, extra, self.n_queries)
            self._cache[key] = count
        return self._cache[key]

    def ideal_dcg(self, k, gain):
        """DCG@k (log base 2) of all judged relevances sorted descending, per query."""
        key = ("IDCG", k, gain)
        if key not in self._cache:
            query, pos, rel = self._ideal_order(k)
            self._cache[key] = _sum_by(query, gain(rel) / np.log2(pos + 2.0), self.n_queries)
        return self._cache[key]

    def _ideal_order(self, k):
        queries = self.queries
        if queries.width is not None:
            width = queries.width
            keep = width if k is None else min(k, width)
            top = np.partition(queries.dense_rel, width - keep, axis=1)[:, width - keep:]
            top = -np.sort(-top, axis=1)
            query = np.repeat(np.arange(self.n_queries), keep)
            return query, np.tile(np.arange(keep), self.n_queries), top.ravel()
        positive = queries.rel > 0
        rel, query = queries.rel[positive], queries.codes[positive]
        if queries.extra_rel is not None and queries.extra_rel.size:
            more = queries.extra_rel > 0
            rel = np.concatenate((rel, queries.extra_rel[more]))
            query = np.concatenate((query, queries.extra_codes[more]))
        order = np.lexsort((-rel, query))
        rel, query = rel[order], query[order]
        start = np.zeros(self.n_queries + 1, dtype=np.int64)
        np.cumsum(np.bincount(query, minlength=self.n_queries), out=start[1:])
        pos = np.arange(rel.size) - start[query]
        if k is not None:
            keep = pos < k
            query, pos, rel = query[keep], pos[keep], rel[keep]
        return query, pos, rel


def _sum_by(codes, weights, size):
    """Sum ``weights`` per code 0..size-1, always float64 (bincount of nothing is int)."""
    return np.bincount(codes, weights=weights, minlength=size).astype(np.float64, copy=False)


def _log_comb(a, b):
    """log C(a, b) for integer arrays with 0 <= b <= a."""
    return gammaln(a + 1.0) - gammaln(b + 1.0) - gammaln(a - b + 1.0)


def _hypergeometric(n, m, t):
    """Expand every query's boundary draw: t items from n of which m are relevant.

    Returns (query index, x relevant drawn, probability) as flat arrays, one row per
    possible x; a query with t = 0 yields the single row x = 0 with probability 1.
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
