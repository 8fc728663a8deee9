"""The one ranking kernel: rank by (query, score descending), tie groups, cut-off k.

`_rank` turns a `_Queries` into a `_Ranking`: only the tie groups that hold an item of
non-zero relevance are kept, each with its query, start position and size; items of
relevance 0 matter to every metric only through the positions they occupy, which the
groups' starts and sizes already record. So every metric is a closed form over groups (see
`_reductions.py`): after ranking, work and memory grow with the relevant items, not with
the candidates. Long format is sorted once (score, then query by radix); a matrix is never
placed item by item: a group's start and size are counts read off each row's sorted values
(or its top k); top-N id matrices are already in rank order.

With ``ties="stable"`` every item is its own group (ties broken by input order, or as
``tie_break`` says: item id descending, or relevance ascending then input order); with
``ties="average"`` a group is a run of equal scores, and every metric is the exact expected
value over all orderings of its items (McSherry & Najork, ECIR 2008).
"""

import numpy as np

from ..inputs._queries import _same_values
from ._columns import _as_float, _constant, _ReadLater, _take
from ._counting import (
    _count_by,
    _discount,
    _ideal_dcg,
    _log_comb,
    _offsets_of_counts,
    _run_heads,
    _sum_by,
)

_BLOCK = 1 << 18  # entries per block of matrix rows (2 MB of floats: stays in cache)


def _rank(queries, k, ties, first_relevant=False, threshold=None, judged=False, order_free=False):
    """Rank every query once; keep the groups a cut-off ``k`` (None: whole list) can see.

    ``first_relevant``: the metrics read only each query's first group holding a relevant
    item (rel >= ``threshold``, or rel > 0), so a matrix keeps only that group.
    ``judged``: also keep the judged items of relevance 0 (judged non-relevant), whose
    positions bpref, infAP and Judged@k read; unjudged items stay positions only.
    ``order_free``: the metrics only count items (trec_eval's num_*): nothing is sorted,
    each kept item is a group of one at an arbitrary position of its query.
    """
    stable = ties == "stable"
    # Where every candidate is judged, judged positions are all positions: nothing to keep.
    judged = judged and not queries.all_judged
    if order_free:
        return _Ranking(queries, *_kept_unranked(queries, judged), None, True)
    if queries.width is not None:
        kept = _kept_dense(queries, k, stable, first_relevant and not judged, threshold, judged)
    else:
        kept = _kept_from_sorted(queries, _sort_ragged(queries, stable), stable, judged)
    return _Ranking(queries, *kept, k, stable)


def _kept_unranked(queries, judged):
    """Kept items grouped by query, in no particular order within a query."""
    if queries.width is not None:
        width = queries.width
        entry = queries.nonzero_entries(0, queries.n_queries * width, judged)
        if queries.ranked and judged:
            entry = queries._matrix_judged()[0]
        return entry, entry // width, entry % width, np.ones(entry.size, dtype=np.int64)
    index = _stable_order(queries.codes, np.arange(queries.codes.size), queries.n_queries)
    return _kept_from_sorted(queries, index, True, judged)


def _kept_dense(queries, k, stable, first_relevant=False, threshold=None, judged=False):
    """Items of non-zero relevance of a matrix, with their tie group's start and size.

    No item is ever placed: an item's tie group starts after the items scoring more than
    it, and holds those scoring the same, so both are counts, read by binary search in a
    sorted reference of its row. That reference is the whole row sorted (values only,
    half the cost of an argsort) or, under a cut-off k, the row's top k values, taken
    from a linear-time partition: only items scoring at least the k-th largest score can
    reach the top k, and every score above theirs is among those k. Rows are handled in
    blocks, so every temporary stays small and in cache.

    With ``first_relevant``, only the group of each row's best-scoring relevant item
    (rel >= ``threshold``, or rel > 0) is kept; its start and size are counts over the
    row: no sort.
    """
    n, width = queries.n_queries, queries.width
    if width == 1:  # one item per row: each kept item is its own group, at position 0
        entry = queries.nonzero_entries(0, n, judged)
        return (
            entry,
            entry,
            np.zeros(entry.size, dtype=np.int64),
            np.ones(entry.size, dtype=np.int64),
        )
    if queries.ranked:  # columns are ranks already: every item is its own group
        entry, _rel = queries._matrix_judged() if judged else queries._matrix_nonzero()
        return entry, entry // width, entry % width, np.ones(entry.size, dtype=np.int64)
    scores = queries.dense_score
    full = k is None or k >= width
    step = max(1, _BLOCK // width)
    # Without a cut-off every non-zero entry is kept: the columns are then filled block by
    # block, never concatenated from copies. Under a cut-off few are: their parts are.
    fill = full and not first_relevant
    capacity = queries._matrix_nonzero()[0].size if fill else 0
    columns = [np.empty(capacity, dtype=np.int64) for _ in range(4)]
    filled, parts = 0, []
    for first in range(0, n, step):
        block = scores[first : first + step]
        entry = queries.nonzero_entries(first * width, (first + block.shape[0]) * width, judged)
        if entry.size == 0:
            continue
        row, col = np.divmod(entry - first * width, width)
        value = block[row, col]
        if first_relevant:
            entry, row, col, value, start, size = _first_relevant_group(
                queries, block, entry, row, col, value, threshold
            )
        elif full:
            start, size = _tie_groups(np.sort(block, axis=1), row, value)
        else:
            part = np.partition(block, width - k, axis=1)
            kth = part[:, width - k]
            reach = np.flatnonzero(value >= kth[row])
            entry, row, col, value = entry[reach], row[reach], col[reach], value[reach]
            start, size = _tie_groups(np.sort(part[:, width - k :], axis=1), row, value)
            # The partition may leave copies of the k-th largest score on its left: only
            # where the largest score there equals it (a maximum reads those scores
            # without copying them; only rows with such a tie are counted).
            at_kth = np.flatnonzero(value == kth[row])
            if at_kth.size:
                rows = np.unique(row[at_kth])
                rows = rows[part[rows, : width - k].max(axis=1) == kth[rows]]
                left = np.zeros(block.shape[0], dtype=np.int64)
                left[rows] = np.count_nonzero(part[rows, : width - k] == kth[rows, None], axis=1)
                size[at_kth] += left[row[at_kth]]
        if stable:
            start = _stable_positions(queries, first, block, row, col, start, size)
            size = np.ones(entry.size, dtype=np.int64)
        order = np.argsort(row * np.int64(width) + start, kind="stable")  # entry order in a group
        if not fill:
            parts.append((entry[order], row[order] + first, start[order], size[order]))
            continue
        end = filled + order.size
        for column, values in zip(columns, (entry, row + first, start, size)):
            np.take(values, order, out=column[filled:end])
        filled = end
    if parts:
        return tuple(np.concatenate(column) for column in zip(*parts))
    return tuple(column[:filled] for column in columns)


def _first_relevant_group(queries, block, entry, row, col, value, threshold):
    """Kept items in each row's first group holding a relevant item, with its start and
    size: the items scoring more than the row's best relevant score, and as much."""
    rel = queries.candidate_rel(entry)
    hit = np.flatnonzero(rel > 0 if threshold is None else rel >= threshold)
    runs = np.flatnonzero(np.diff(row[hit], prepend=-1))  # entries come row by row
    rows = row[hit][runs]
    best = np.full(block.shape[0], np.nan)
    best[rows] = np.maximum.reduceat(value[hit], runs)
    keep = np.flatnonzero(value == best[row])
    entry, row, col, value = entry[keep], row[keep], col[keep], value[keep]
    scores = block[rows]
    greater = np.zeros(block.shape[0], dtype=np.int64)
    equal = np.zeros(block.shape[0], dtype=np.int64)
    greater[rows] = np.count_nonzero(scores > best[rows, None], axis=1)
    equal[rows] = np.count_nonzero(scores == best[rows, None], axis=1)
    return entry, row, col, value, greater[row], equal[row]


def _tie_groups(ref, row, value):
    """Start and size of the tie group of ``value`` in row ``row`` of ``ref``.

    ``ref`` holds each row's values in ascending order, and every ``value`` is one of
    its row's. The start is the count of greater values, the size that of equal ones.
    """
    at_most = _count_below(ref, row, value, inclusive=True)
    width = ref.shape[1]
    start = width - at_most
    size = np.ones(value.size, dtype=np.int64)
    # Only a value whose left neighbour equals it has a tie group of more than one.
    flat = ref.ravel()
    base = row * np.int64(width)
    tied = np.flatnonzero((at_most >= 2) & (flat[base + np.maximum(at_most - 2, 0)] == value))
    if tied.size:
        below = _count_below(ref, row[tied], value[tied], inclusive=False)
        size[tied] = at_most[tied] - below
    return start, size


def _count_below(ref, row, value, inclusive):
    """Per item: how many values of its row of ``ref`` (ascending) are < (or <=) it.

    One branchless binary search for all items at once: steps of halving powers of two
    extend each item's count while the probed value still qualifies. A probe past the
    row's end reads its last value instead; were that to qualify, the whole row does,
    and the final clip gives the row's width.
    """
    width = ref.shape[1]
    flat = ref.ravel()
    first = row * np.int64(width)
    last = first + (width - 1)
    at = first - 1  # flat index of the last value counted so far
    probe = np.empty_like(at)
    take = np.empty(value.size, dtype=bool)
    compare = np.less_equal if inclusive else np.less
    step = 1 << (int(width).bit_length() - 1)
    while step:
        np.add(at, step, out=probe)
        np.minimum(probe, last, out=probe)
        compare(flat[probe], value, out=take)
        at += step * take
        step >>= 1
    return np.minimum(at - first + 1, width)


def _stable_positions(queries, first, block, row, col, start, size):
    """Positions when ties are broken by column (ascending, or descending), or by
    relevance ascending then column.

    Only rows holding an item of a tie group larger than one need an order among equal
    scores; those rows get a stable argsort, every other item sits at its group's start.
    ``first`` is the query number of the block's first row.
    """
    tied = np.flatnonzero(size > 1)
    if tied.size == 0:
        return start
    start = start.copy()
    rows, local = np.unique(row[tied], return_inverse=True)
    sub = block[rows]
    if queries.relevance_ties:
        width = sub.shape[1]
        cells = (rows + first)[:, None] * np.int64(width) + np.arange(width)
        rel = queries.candidate_rel(cells.ravel()).reshape(sub.shape)
        order = np.lexsort((rel, -sub), axis=1)  # lexsort is stable: then by column
    elif queries.descending_ties:
        order = (sub.shape[1] - 1) - np.argsort(-sub[:, ::-1], axis=1, kind="stable")
    else:
        order = np.argsort(-sub, axis=1, kind="stable")
    inverse = np.empty_like(order)
    np.put_along_axis(inverse, order, np.arange(sub.shape[1])[None, :], axis=1)
    start[tied] = inverse[local.ravel(), col[tied]]
    return start


def _kept_from_sorted(queries, index, stable, judged=False):
    """Items of non-zero relevance (``judged``: or judged) of a sorted index, with their
    tie group's start and size.

    ``index`` is grouped by query in code order, so each query's run starts at the
    cumulative count of candidates before it, and no per-entry query array is needed.
    ``index`` None: the entries are in that order already.
    """
    kept = queries.nonzero_candidates(index, judged)
    n_cand = queries.n_cand
    # Where each query's run starts: with as many candidates in every query (one row
    # each, say), a multiple of that number, and no array of run starts is made.
    width = int(n_cand[0]) if n_cand.strides == (0,) and n_cand.size else None
    if width:
        starts = slice(0, width * n_cand.size, width)
        kept_query = kept if width == 1 else kept // width
    else:
        start = _offsets_of_counts(n_cand)
        starts = start[:-1]
        kept_query = np.searchsorted(start, kept, side="right") - 1
    if stable:
        first, size = kept, np.ones(kept.size, dtype=np.int64)
    else:
        score = queries.score if index is None else queries.score[index]
        new = np.ones(score.size + 1, dtype=bool)
        np.not_equal(score[1:], score[:-1], out=new[1:-1])
        del score
        new[starts] = True
        if new.all():  # no ties: every item is its own group
            first, size = kept, np.ones(kept.size, dtype=np.int64)
        else:
            bounds = np.flatnonzero(new)
            group = np.searchsorted(bounds, kept, side="right") - 1
            first, size = bounds[group], bounds[group + 1] - bounds[group]
        del new
    position = first - (kept_query * width if width else start[kept_query])
    entries = kept if index is None else index[kept]
    if not stable and (size > 1).any():
        # Inside a tie group the sort leaves items in no set order; entry order makes the
        # group's sums (of fractional gains) the same however the input was split.
        entries = entries[np.lexsort((entries, first))]
    return entries, kept_query, position, size


def _sort_ragged(queries, stable):
    """Entry numbers sorted by (query code, score descending); None when the entries
    are in that order already."""
    codes, score = queries.codes, queries.score
    by_relevance = stable and queries.relevance_ties
    same_query = codes[1:] == codes[:-1]
    if (
        not by_relevance
        and np.all(codes[1:] >= codes[:-1])
        and np.all(score[1:][same_query] <= score[:-1][same_query])
    ):
        # Already grouped by query and ranked (top-N ids, sorted runs, one-row queries):
        # the order stands, and keeping it is also what breaks ties by input order.
        return None
    # Sort by score, then stably by query: a stable score sort breaks ties by input
    # order; tie averaging needs no order inside a tie, so it takes the faster unstable
    # sort. Query codes are small integers, which numpy sorts stably by radix.
    if by_relevance:  # ties by relevance ascending: sort by it first, stably
        first = np.argsort(queries.candidate_rel(np.arange(score.size)), kind="stable")
        by_score = first[np.argsort(-score[first], kind="stable")]
    else:
        by_score = np.argsort(-score, kind="stable" if stable else None)
    order = _stable_order(codes, by_score, queries.n_queries)
    return np.take(by_score, order, out=order)


def _stable_order(values, order, n_values):
    """Stable argsort of ``values[order]``, integers in [0, n_values).

    16-bit radix passes when they fit; the narrow copy is made before the gather, so no
    wide copy of the values is.
    """
    if n_values <= 1 << 16:
        return np.argsort(values.astype(np.uint16)[order], kind="stable")
    values = values[order]
    if n_values <= 1 << 32:
        low = np.argsort((values & 0xFFFF).astype(np.uint16), kind="stable")
        return low[np.argsort((values[low] >> 16).astype(np.uint16), kind="stable")]
    return np.argsort(values, kind="stable")


class _Ranking:
    """Tie groups holding a non-zero relevance, per query, in rank order.

    Groups: ``query``, ``start`` (0-based position of the group's first item), ``size``.
    Items of those groups with non-zero relevance: ``rel`` and ``group`` (their group);
    with the kernel's ``judged`` flag also the judged items of relevance 0, and ``judged``
    says which kept items are judged. Per query: ``n_cand``, the number of candidates.
    """

    def __init__(self, queries, entry, query, start, size, k, stable):
        """Kept items: entry numbers, query, their tie group's start and size, sorted by
        (query, start)."""
        self.queries = queries
        self.n_queries = queries.n_queries
        self.stable = stable
        if k is not None:
            inside = start < k
            if not inside.all():
                entry, query, start, size = (a[inside] for a in (entry, query, start, size))
            del inside
        # Items sharing (query, start) form one group.
        new = np.ones(entry.size, dtype=bool)
        new[1:] = (query[1:] != query[:-1]) | (start[1:] != start[:-1])
        # One-item queries keep every item in entry order: the entry numbers are the
        # matrix's non-zero entries, and a width-1 matrix's rows; one array serves all.
        entry = queries.same_entries(entry)
        query = _same_values(query, entry)
        self.rel = queries.candidate_rel(entry)
        self.entry = entry
        if new.all():  # every item its own group: the item arrays are the group arrays
            self._group = None
            self.query, self.start, self.size = query, _constant(start), _constant(size)
            self.n_groups = query.size
        else:
            heads = np.flatnonzero(new)
            self._group = np.cumsum(new) - 1
            self.query, self.start, self.size = query[heads], start[heads], size[heads]
            self.n_groups = heads.size
        self.n_cand = queries.n_cand
        self._cache = {}
        self._read_later = _ReadLater()

    def expect(self, requests):
        """The (registry name, cut-off k) of each request this ranking serves: arrays
        that several of them read are then kept until the last one has (`_ReadLater`)."""
        self._read_later.expect(requests)

    def _shared(self, key, names, k, compute, any_k=False):
        """``compute()``, kept for the other expected requests of ``names`` that read it."""
        return self._read_later.get(key, names, k, compute, any_k)

    def _readers(self, names, k, any_k=False):
        """How many expected requests of ``names`` read what `_shared` keeps for them
        (None before ``expect``): a reduction that could compute piece by piece computes
        the whole once only when several do."""
        return self._read_later.readers(names, k, any_k)

    @property
    def group(self):
        """Per item: the index of its group."""
        if self._group is None:
            return np.arange(self.n_groups)
        return self._group

    # --- group-level views -----------------------------------------------------------

    def group_sum(self, item_values):
        """Sum item values over each group."""
        if self._group is None:  # one item per group
            return np.array(item_values, dtype=np.float64)
        return _sum_by(self._group, item_values, self.n_groups)

    def relevant(self, threshold):
        """Per item: 1.0 where relevant (rel >= threshold, or rel > 0)."""
        key = ("relevant", threshold)
        if key not in self._cache:
            hit = self.rel > 0 if threshold is None else self.rel >= threshold
            self._cache[key] = hit.astype(np.float64)
        return self._cache[key]

    def relevant_in_group(self, threshold):
        """Per group: the number of relevant items m."""
        key = ("m", threshold)
        if key not in self._cache:
            relevant = self.relevant(threshold)
            # One item per group: the item values are the group values (both read-only).
            self._cache[key] = relevant if self._group is None else self.group_sum(relevant)
        return self._cache[key]

    @property
    def all_judged(self):
        """Every candidate is judged (dense matrices, long format)."""
        return self.queries.all_judged

    def judged_in_group(self):
        """Per group: the number of judged items (relevance 0 included). Needs the
        kernel's ``judged`` flag where not every candidate is judged: otherwise judged
        items of relevance 0 are not kept."""
        if self.all_judged:
            return _as_float(self.size)
        if "judged_m" not in self._cache:
            judged = self.queries.candidate_judged(self.entry) | (self.rel != 0)
            self._cache["judged_m"] = self.group_sum(judged.astype(np.float64))
        return self._cache["judged_m"]

    def judged_before(self):
        """Per group: the judged items in earlier groups of its query (every earlier
        position where every candidate is judged)."""
        if self.all_judged:
            return _as_float(self.start)
        return self.before(self.judged_in_group())

    def taken(self, k):
        """Per group: how many of its positions lie inside the top k."""
        if k is None:
            return self.size
        return np.clip(k - self.start, 0, self.size)

    def per_query(self, group_values):
        return _sum_by(self.query, group_values, self.n_queries)

    def before(self, group_values):
        """Per group: the sum of ``group_values`` over earlier groups of its query.

        Work and memory grow with the groups, not with the queries.
        """
        first = self._first_of_query()
        if first is None:  # every group alone in its query: nothing before any
            return np.zeros(self.n_groups)
        earlier = np.cumsum(group_values, dtype=np.float64)
        earlier -= group_values  # over every earlier group, of any query
        earlier -= earlier[first]
        return earlier

    def _first_of_query(self):
        """Per group: the index of the first group of its query (groups come by query);
        None when every group is the only one of its query."""
        if "first_of_query" not in self._cache:
            query = self.query
            alone = query.size < 2 or bool(np.all(query[1:] != query[:-1]))
            self._cache["first_of_query"] = None if alone else _run_heads(query)
        return self._cache["first_of_query"]

    def boundary(self, k, threshold):
        """The groups straddling position k, one per query at most.

        Returns ``s``, per query: where its fully ranked region ends (the start of its
        straddling group; else k, or the list length). Then, for the queries with a
        straddling group only: those queries, and the group's size n, relevant count m
        and t = k - s positions inside the top k. Only these t positions are random under
        tie averaging: the number of relevant items drawn into them is hypergeometric.
        Every other query has one outcome (no item drawn), which callers compute for all
        queries at once; only the straddling ones are expanded.
        """
        s = self.n_cand
        if k is not None:
            if s.strides == (0,):  # one count broadcast to every query (a matrix)
                s = np.broadcast_to(np.minimum(s[:1], k), s.shape)
            else:
                s = np.minimum(s, k)
        empty = np.zeros(0, dtype=np.int64)
        if k is None or self.stable:
            return s, (empty, empty, empty, empty)
        straddle = np.flatnonzero((self.start < k) & (self.start + self.size > k))
        if straddle.size == 0:
            return s, (empty, empty, empty, empty)
        q = self.query[straddle]
        if s is self.n_cand or not s.flags.writeable:  # never write into n_cand
            s = np.array(s)
        s[q] = self.start[straddle]
        n = self.size[straddle]
        m = np.rint(self.relevant_in_group(threshold)[straddle]).astype(np.int64)
        return s, (q, n, m, k - self.start[straddle])

    def first_relevant(self, threshold, k):
        """Where the first relevant item of each query can be, with its probability.

        Only the first group holding a relevant item can hold it: in a group of n items
        with m relevant, it is at offset j (1-based) with probability
        C(n - j, m - 1) / C(n, m). Returns (query, 0-based position, probability) for
        the positions inside the top k.
        """
        m = self.relevant_in_group(threshold)
        if self._first_of_query() is None:  # every group alone in its query
            first = np.flatnonzero(m > 0)
        else:
            first = np.flatnonzero((m > 0) & (self.before(m) == 0))
        if k is not None:
            inside = _take(self.start, first) < k
            if not inside.all():
                first = first[inside]
            del inside
        n = _take(self.size, first)
        if (n == 1).all():  # single items (no ties): the first relevant one is there
            # (read-only arrays, one value broadcast where it is the same for all)
            query = self.query if first.size == self.n_groups else self.query[first]
            return query, _take(self.start, first), np.broadcast_to(1.0, first.shape)
        m, s = m[first].astype(np.int64), self.start[first]
        reach = np.minimum(n - m + 1, self.taken(k)[first])
        owner = np.repeat(np.arange(first.size), reach)
        offset = np.arange(reach.sum()) - np.repeat(np.cumsum(reach) - reach, reach) + 1
        n, m = n[owner], m[owner]
        prob = np.where(n == 1, 1.0, np.exp(_log_comb(n - offset, m - 1) - _log_comb(n, m)))
        return self.query[first][owner], s[owner] + offset - 1, prob

    # --- truth side: every judged item, scored or not ---------------------------------

    def _judged(self):
        if "judged" not in self._cache:
            self._cache["judged"] = self.queries.judged()
        return self._cache["judged"]

    def relevant_count(self, threshold):
        """Number of relevant judged items per query (R), unscored ones included."""
        key = ("R", threshold)
        if key not in self._cache:
            codes, rel = self._judged()
            hit = rel > 0 if threshold is None else rel >= threshold
            self._cache[key] = _count_by(codes[hit], self.n_queries)
        return self._cache[key]

    def has_nonzero(self):
        """Per query: whether any judged item has a non-zero relevance. With negative
        relevance, a query without a positive item still has a CG, DCG and Kendall tau."""
        codes, _rel = self._judged()
        has = np.zeros(self.n_queries, dtype=bool)  # no count per query needed
        has[codes] = True
        return has

    def ideal_dcg(self, k, gain):
        """DCG@k (log base 2) of all judged relevances sorted descending, per query."""
        return self._shared(("IDCG", k, gain), ("ndcg",), k, lambda: self._ideal_dcg(k, gain))

    def _ideal_dcg(self, k, gain):
        codes, rel = self._judged()
        positive = rel > 0
        if not positive.all():  # negative relevance: only the positive items count
            codes, rel = codes[positive], rel[positive]
        del positive
        return _ideal_dcg(codes, rel, self.n_queries, k, gain)


def _cumulative(terms_of_position, length):
    """[0, f(0), f(0) + f(1), ...]: partial sums over positions 0..length-1."""
    out = np.zeros(length + 1)
    np.cumsum(terms_of_position(np.arange(length, dtype=np.float64)), out=out[1:])
    return out


def _discount_sums(ranking, log_base=2.0):
    """D(p) = sum of 1 / log_b(i + 2) over positions i < p, for p up to the longest list."""
    return _cached_sums(ranking, ("D", log_base), lambda i: _discount(i, log_base))


def _harmonic_sums(ranking):
    """H(p) = sum of 1 / (i + 1) over positions i < p."""
    return _cached_sums(ranking, ("H",), lambda i: 1.0 / (i + 1.0))


def _cached_sums(ranking, key, terms_of_position):
    if key not in ranking._cache:
        longest = int(ranking.n_cand.max(initial=0))
        ranking._cache[key] = _cumulative(terms_of_position, longest)
    return ranking._cache[key]
