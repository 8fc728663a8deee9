"""What a call of list- and corpus-level measures alone reads of its queries, without the
join of the run with the judgments.

Coverage, novelty, popularity, diversity... read each user's recommended items (`_side`),
never the relevance of a ranked item: the `_Queries` that `_normalise` builds for the
accuracy metrics (every ranked item matched with its judgment) would be made for nothing.
Such a call still needs what the normaliser decides: which queries there are and in what
order (the users that count in a per-user mean), how many items each one ranks, and that
the input passes the normaliser's checks. This module finds the first two by the
normaliser's own rules and proves the third with cheap tests; whenever it cannot prove it
(a repeated item, an id the truth matrix cannot index, relevance an accuracy metric would
refuse, a convention that renumbers or filters the queries), it gives up and the caller
prepares the input whole, which raises or warns exactly as before.
"""

from typing import NamedTuple

import numpy as np

from ..utils._ids import _concat_ids, _factorize
from ..utils._sparse import _issparse, _sparse
from ..utils._threads import _value_range
from ._items import _check_ids_in_matrix, _from_lists, _item_codes, _sparse_keys
from ._normalise import _is_list_form
from ._side import _excluded
from ._tables import ItemJudgments, ItemRanking

# Relevance the normaliser's checks accept for any metric: non-negative, and small enough
# for an exponential gain (`metrics._input_checks._check_relevance`).
_HIGHEST_RELEVANCE = 1023
_BLOCK = 1 << 19  # ids per block of rows checked for a repeated item (1 MiB as int16)


class _QueryCounts(NamedTuple):
    """The queries of a call without accuracy metrics: their number and the items each
    one ranks, as `_Queries` has them (the fields `_query_weights`, the short-list warning
    and the per-query tables read).

    n_queries : int.
    n_cand : (n_queries,) int64 items ranked per query (0: the run has none for it).
    n_cand_unexcluded : (n_queries,) int64 items ranked per query before ``exclude``
        removed some (the short-list warning reads both), or None without ``exclude``.
    n_rows, codes : None (no long-format rows: weights are given per query).
    """

    n_queries: int
    n_cand: np.ndarray
    n_cand_unexcluded: np.ndarray | None = None
    n_rows: int | None = None
    codes: np.ndarray | None = None


def _query_counts(
    y_true,
    y_score,
    *,
    groups,
    exclude,
    query_set,
    judged_only,
    tie_break,
    score_dtype,
    n_threads=1,
    head=None,
):
    """(`_QueryCounts`, query ids, y_true, y_score) as `_normalise` would number the
    queries, the last two what the side inputs read (ranked lists flattened once into
    `ItemJudgments` and `ItemRanking`, the other forms as given; with ``head``, the largest
    cut-off the measures read, a top-N matrix's first ``head`` columns, copied while they
    were checked); or None when the input must be normalised whole (a form or a
    convention this does not cover, or an input the normaliser might refuse or warn
    about)."""
    plain = (
        groups is None
        and query_set == "all"
        and not judged_only
        and tie_break != "item_descending"
        and score_dtype == "float64"
    )
    if not plain:
        return None
    try:
        if isinstance(y_score, ItemRanking) and _issparse(y_true):
            found = _of_sparse_truth(y_true, y_score, exclude, n_threads, head)
            if found is not None:  # (its run: a top-N matrix's head, maybe)
                *found, y_score = found
        elif isinstance(y_score, ItemRanking) and isinstance(y_true, ItemJudgments):
            found = _of_judgments(y_true, y_score, exclude, n_threads)
        elif _is_list_form(y_true) and not isinstance(y_score, ItemRanking):
            n_lists = len(y_true)
            y_true, y_score = _from_lists(y_true, y_score)  # its errors are the normaliser's
            found = _of_judgments(y_true, y_score, exclude, n_threads, positions=n_lists)
        else:
            return None
    except (ValueError, TypeError):  # the normaliser says what is wrong, as before
        return None
    return None if found is None else (*found, y_true, y_score)


def _accepted_relevance(values, n_threads):
    """Whether every relevance value passes the normaliser's checks for any metric."""
    found = _value_range(np.asarray(values), n_threads)
    if found is None:
        return True
    low, high = found
    return bool(0 <= low and high <= _HIGHEST_RELEVANCE)  # NaN: not proven, False


def _exclusion(exclude, n_queries, n_items):
    """``exclude``'s entries (`_items._sparse_keys`), or None when ids below ``n_queries``
    and ``n_items`` might fall outside it (the normaliser refuses such ids)."""
    keys, shape = _sparse_keys(exclude)
    if n_queries > shape[0] or n_items > shape[1]:
        return None
    return keys, shape


def _counts(n_queries, queries, items, exclusion):
    """(items ranked per query, the same before exclusion or None without ``exclude``)."""
    ranked = np.bincount(queries, minlength=n_queries)
    if exclusion is None:
        return ranked, None
    kept = ~_excluded(*exclusion, queries, items)
    return np.bincount(queries[kept], minlength=n_queries), ranked


def _of_sparse_truth(y_true, run, exclude, n_threads, head=None):
    """A sparse truth matrix's rows are the queries, 0..n-1 in order, judged or not
    (`_normalise`); the run's query ids are row numbers (checked there). With ``head`` and
    a top-N matrix of a list per query, wider than ``head``, its first ``head`` columns
    are copied while each block of rows is checked (in the processor's cache: read later,
    they would be read from memory again). Returns (`_QueryCounts`, query ids, the run the
    side inputs read: that head as an `ItemRanking`, or ``run``), or None."""
    if y_true.dtype.kind not in "biuf" or y_true.ndim != 2:
        return None
    n_queries, n_columns = y_true.shape
    if n_queries == 0:
        return None
    top = run._topn
    kept = None
    if top is None:
        _check_ids_in_matrix(run, y_true.shape, n_threads=n_threads)
    elif top.shape[0] > n_queries:
        return None  # ids the matrix cannot index
    else:
        if exclude is None and top.shape[0] == n_queries and 0 < (head or 0) < top.shape[1]:
            kept = np.empty((n_queries, head), dtype=top.dtype)
        if not _distinct_in_range(top, n_columns, kept):
            return None  # ids the matrix cannot index, or a list naming an item twice
    csr = _sparse().csr_matrix(y_true)
    if not csr.has_canonical_format:
        csr = csr.copy()
        csr.sum_duplicates()  # as `ItemJudgments.from_sparse` adds them up
    if not _accepted_relevance(csr.data, n_threads):
        return None
    exclusion = None
    if exclude is not None:  # its rows and columns are the truth matrix's
        exclusion = _exclusion(exclude, n_queries, n_columns)
        if exclusion is None:
            return None
    if top is not None and exclusion is None:
        n_cand, unexcluded = np.zeros(n_queries, dtype=np.int64), None
        n_cand[: top.shape[0]] = top.shape[1]
    else:
        queries = run.queries.astype(np.int64, copy=False)
        items = run.items.astype(np.int64, copy=False)
        if top is None and _repeats(queries * np.int64(n_columns) + items):
            return None
        n_cand, unexcluded = _counts(n_queries, queries, items, exclusion)
    read = run if kept is None else ItemRanking.from_topn(kept)
    return _QueryCounts(n_queries, n_cand, unexcluded), np.arange(n_queries), read


def _of_judgments(truth, run, exclude, n_threads, positions=None):
    """Judgments and a run by query ids: numbered by first appearance, judgments first
    (`_items._from_items`). ``positions``: the number of ranked lists whose positions
    0..n-1 are the query ids (`_items._from_lists`), numbered so, and no ids given."""
    if not _accepted_relevance(truth.relevance, n_threads):
        return None
    exclusion = None
    if exclude is not None:  # the ids are its row and column numbers
        bounds = []
        for parts in ((truth.queries, run.queries), (truth.items, run.items)):
            if any(part.dtype.kind not in "iu" for part in parts):
                return None
            ranges = [r for r in (_value_range(part, n_threads) for part in parts) if r]
            if any(low < 0 for low, _high in ranges):
                return None
            bounds.append(max((int(high) + 1 for _low, high in ranges), default=0))
        exclusion = _exclusion(exclude, *bounds)
        if exclusion is None:
            return None
    true_q, run_q = truth.queries, run.queries
    if positions is None:
        codes, ids = _factorize(
            _concat_ids([true_q, run_q]), true_q.size + run_q.size, n_threads=n_threads
        )
        n_queries = len(ids)
        true_code, run_code = codes[: true_q.size], codes[true_q.size :]
    else:
        n_queries, ids, true_code, run_code = positions, None, true_q, run_q
    if not n_queries:
        return None
    true_item, run_item, n_items, _ = _item_codes(truth.items, run.items, n_threads)
    if _repeats(true_code * n_items + true_item) or _repeats(run_code * n_items + run_item):
        return None
    if exclusion is None:
        n_cand, unexcluded = np.bincount(run_code, minlength=n_queries), None
    else:
        kept = ~_excluded(*exclusion, run.queries, run.items)
        unexcluded = np.bincount(run_code, minlength=n_queries)
        n_cand = np.bincount(run_code[kept], minlength=n_queries)
    return _QueryCounts(n_queries, n_cand, unexcluded), ids


def _repeats(keys):
    """Whether a key is given twice."""
    ordered = np.sort(keys)
    return bool(np.any(ordered[1:] == ordered[:-1]))


def _distinct_in_range(top, n_items, head=None):
    """Whether every id of a top-N id matrix is in [0, n_items) and no row names an item
    twice (what `_check_ids_in_matrix` and the join's check of repeated items refuse).
    ``head``: an array of shape (n_rows, h) given the first h columns as they are read.

    Blocks of rows stay in the processor's cache: their range is read, then they are
    sorted row by row in the narrowest integer type that holds the ids (sorting int16 is
    about 3x faster than int64) and each id compared with its right neighbour in one
    flat pass.
    """
    width = top.shape[1]
    if not top.size:
        return True
    narrow = np.int16 if n_items <= 2**15 else np.int32 if n_items <= 2**31 else np.int64
    step = max(1, _BLOCK // width)
    buffer = np.empty((min(step, top.shape[0]), width), dtype=narrow)
    neighbours = np.empty(buffer.size, dtype=bool)
    # Read as unsigned, a negative id is larger than any id in range: one pass finds both.
    unsigned = np.dtype(f"u{top.dtype.itemsize}")
    for first in range(0, top.shape[0], step):
        rows = top[first : first + step]
        if rows.view(unsigned).max() >= n_items:
            return False
        if head is not None:
            head[first : first + step] = rows[:, : head.shape[1]]
        if width < 2:
            continue
        block = buffer[: rows.shape[0]]
        np.copyto(block, rows, casting="unsafe")  # the ids fit: their range was read
        block.sort(axis=1)
        ids = block.ravel()
        same = np.equal(ids[1:], ids[:-1], out=neighbours[: ids.size - 1])
        same[width - 1 :: width] = False  # the last id of a row and the first of the next
        if same.any():
            return False
    return True
