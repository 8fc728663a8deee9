"""Side inputs of the beyond-accuracy metrics, normalised once: the catalog, each query's
recommended list as catalog codes, the training interactions and the item features.

Accuracy metrics read a query's candidates and their relevance (`_Queries`). Coverage,
novelty, popularity and diversity read which *items* each user was recommended, over the
whole catalog, and what the training data says about them. This module turns the input
forms that name their items (matrices: columns; `ItemRanking`, ranked lists: item ids)
into one flat array of catalog codes per query, in the prepared input's query order, and
the ``train`` interactions into (user, item) code pairs. Nothing here computes a metric.
"""

from typing import NamedTuple

import numpy as np

from ..utils._sparse import _issparse, _sparse
from ..utils._validation import _as_float_array, _check_finite, _python_value
from ._items import _as_judgments, _as_ranking, _from_lists, _sparse_keys
from ._normalise import _is_list_form
from ._tables import ItemJudgments, ItemRanking


class _Lists:
    """Items per query as catalog codes: a query's recommended list (best first), its
    relevant test items or its training items.

    offsets : (n_queries + 1,) int64, query q's items are ``items[offsets[q]:offsets[q+1]]``.
    items : (n_slots,) int64 codes in [0, n_items).
    values : (n_slots,) float64 or None: the relevance of a relevant test item, the
        interaction count of a training item.

    The query of each slot and each cut-off's slots are made once and kept (every
    measure of a call reads them).
    """

    def __init__(self, offsets, items, values=None):
        self.offsets, self.items, self.values = offsets, items, values
        self._cuts = {}

    @property
    def n_queries(self):
        return self.offsets.size - 1

    def block(self, first, stop):
        """The lists of queries first..stop-1 (a block of consecutive queries)."""
        low, high = self.offsets[first], self.offsets[stop]
        values = None if self.values is None else self.values[low:high]
        return _Lists(self.offsets[first : stop + 1] - low, self.items[low:high], values)

    def queries(self):
        """The query of each slot."""
        if "queries" not in self._cuts:
            self._cuts["queries"] = np.repeat(np.arange(self.n_queries), np.diff(self.offsets))
        return self._cuts["queries"]

    def cut_items(self, k):
        """The item code of each slot over the first ``k`` slots of each list: `cut`'s
        items, without the query of each slot when no list is longer than ``k``."""
        lengths = np.diff(self.offsets)
        if k is None or not lengths.size or lengths.max() <= k:
            return self.items
        return self.cut(k)[1]

    def cut(self, k):
        """(query of each slot, item code of each slot, list length l_q) over the first
        ``k`` slots of each list (``k`` None: every slot)."""
        lengths = np.diff(self.offsets)
        if k is None or not lengths.size or lengths.max() <= k:
            return self.queries(), self.items, lengths
        if k not in self._cuts:
            position = np.arange(self.items.size) - np.repeat(self.offsets[:-1], lengths)
            keep = position < k
            self._cuts[k] = self.queries()[keep], self.items[keep], np.minimum(lengths, k)
        return self._cuts[k]


class _Training(NamedTuple):
    """Training interactions as codes: one entry per distinct (user, item) pair.

    users : (n_pairs,) int64 codes of the training users, in [0, n_users).
    items : (n_pairs,) int64 catalog codes.
    counts : (n_pairs,) float64 interaction rows each pair stands for (>= 1).
    user_query : (n_users,) int64 each training user's query position, -1 if not evaluated.
    """

    users: np.ndarray
    items: np.ndarray
    counts: np.ndarray
    user_query: np.ndarray


class _Side(NamedTuple):
    """What the beyond-accuracy metrics read beside the relevance.

    lists : `_Lists` of every query, in the prepared input's query order.
    n_items : the catalog size; codes are 0..n_items-1.
    training : `_Training` or None (no ``train``).
    features : (n_items, n_features) float64 array or scipy.sparse CSR, or None.
    relevant : `_Lists` of each query's relevant test items (relevance > 0, as values).
    history : `_Lists` of each query's training items (counts as values), or None.
    popularity : the item popularity computed already over the whole training data (an
        engine's one pass over its training table, handed to every partition), or None:
        the metrics compute it from ``training``.
    """

    lists: _Lists
    n_items: int
    training: _Training | None
    features: object
    relevant: _Lists | None = None
    history: _Lists | None = None
    popularity: object = None


class _Catalog(NamedTuple):
    """The catalog: ``ids`` None means the ids are the codes 0..n_items-1."""

    n_items: int
    ids: np.ndarray | None

    def codes(self, items, what):
        """Catalog codes of item ids ``items``; an id outside the catalog is an error."""
        items = np.asarray(items)
        if self.ids is None:
            if items.size and items.dtype.kind not in "iu":
                integral = items.dtype.kind == "f" and np.all(items == np.round(items))
                if not integral:
                    raise ValueError(
                        f"{what} holds item {_python_value(items.flat[0])!r}, but the catalog "
                        f"is the {self.n_items} items numbered 0..{self.n_items - 1}: pass "
                        "catalog= (the item ids) to name the items otherwise."
                    )
            codes = items.astype(np.int64, copy=False)
            outside = (codes < 0) | (codes >= self.n_items)
        else:
            codes, outside = _lookup(self.ids, items)
        if outside.any():
            first = int(np.flatnonzero(outside)[0])
            raise ValueError(
                f"{what} holds item {_python_value(items[first])!r}, which is not in the "
                f"catalog ({self.n_items} items): every recommended or trained item must be "
                "one of catalog= (or a column of the truth matrix)."
            )
        return codes


def _lookup(ids, values):
    """Positions of ``values`` in ``ids`` (distinct ids) and where a value is missing."""
    values = np.asarray(values)
    try:
        order = np.argsort(ids, kind="stable")
        ordered = ids[order]
        position = np.searchsorted(ordered, values)
        position = np.minimum(position, max(ordered.size - 1, 0))
        found = ordered[position] == values if ordered.size else np.zeros(values.size, bool)
        found = np.asarray(found, dtype=bool)
        return order[position].astype(np.int64) if ordered.size else position, ~found
    except TypeError:  # ids of mixed types: a dict
        table = {_python_value(v): i for i, v in enumerate(ids.tolist())}
        codes = np.array([table.get(_python_value(v), -1) for v in values], dtype=np.int64)
        return codes, codes < 0


def _catalog(catalog, y_true, train):
    """The catalog: ``catalog=`` (a number of items or their ids), else the item axis of a
    truth or training matrix."""
    axis = None
    for name, matrix in (("y_true", y_true), ("train", train)):
        if _issparse(matrix) or (isinstance(matrix, np.ndarray) and matrix.ndim == 2):
            if axis is not None and matrix.shape[1] != axis[1]:
                raise ValueError(
                    f"{name} has {matrix.shape[1]} item columns but {axis[0]} has {axis[1]}: "
                    "both index the catalog."
                )
            axis = axis or (name, int(matrix.shape[1]))
    if catalog is None:
        if axis is None:
            raise ValueError(
                "these metrics need the catalog: pass catalog= (the number of items, or "
                "their ids), or a truth or training matrix whose columns are the items."
            )
        return _Catalog(axis[1], None)
    if isinstance(catalog, (int, np.integer)) and not isinstance(catalog, bool):
        if catalog <= 0:
            raise ValueError(f"catalog must be a positive number of items; got {catalog!r}.")
        n_items, ids = int(catalog), None
    else:
        ids = np.asarray(catalog)
        if ids.ndim != 1 or not ids.size:
            raise ValueError(
                "catalog must be a number of items or a 1-D array of distinct item ids; "
                f"got shape {ids.shape}."
            )
        if len(np.unique(ids)) != ids.size:
            raise ValueError("catalog must hold distinct item ids; some repeat.")
        n_items = int(ids.size)
    if axis is not None and axis[1] != n_items:
        raise ValueError(f"catalog has {n_items} items but {axis[0]} has {axis[1]} item columns.")
    return _Catalog(n_items, ids)


def _side_inputs(
    y_true,
    y_score,
    *,
    ids,
    n_queries,
    exclude=None,
    train=None,
    item_features=None,
    catalog=None,
    k=None,
    popularity=None,
    relevant=True,
    history=True,
):
    """The side inputs of one call: a `_Side`.

    ids : the prepared input's query ids (None: rows of matrices, positions of lists).
    n_queries : the prepared input's number of queries.
    k : the largest cut-off the metrics read (None: whole lists).
    relevant : whether to gather each query's relevant test items (None otherwise: the
        measures that read them are named in `metrics._beyond_registry.READS_RELEVANT`).
    history : whether to gather each query's training items (None otherwise: the
        measures that read them are named in `metrics._beyond_registry.READS_HISTORY`).
    """
    found = _catalog(catalog, y_true, train)
    lists = _recommended(y_true, y_score, ids, n_queries, exclude, found, k)
    training = None if train is None else _training(train, found, ids, n_queries)
    features = None if item_features is None else _features(item_features, found.n_items)
    relevant = _relevant(y_true, y_score, ids, n_queries, found) if relevant else None
    history = None if training is None or not history else _history(training, n_queries)
    return _Side(lists, found.n_items, training, features, relevant, history, popularity)


def _grouped(position, codes, values, n_queries):
    """A `_Lists` of rows (query position, item code, value), rows of position -1 left out,
    each query's rows in item order."""
    kept = position >= 0
    position, codes, values = position[kept], codes[kept], values[kept]
    order = np.lexsort((codes, position))
    offsets = np.zeros(n_queries + 1, dtype=np.int64)
    np.cumsum(np.bincount(position, minlength=n_queries), out=offsets[1:])
    return _Lists(offsets, codes[order], values[order].astype(np.float64))


def _relevant(y_true, y_score, ids, n_queries, catalog):
    """Each query's relevant test items (relevance > 0) as a `_Lists`."""
    if _is_list_form(y_true):
        truth, _run = _from_lists(y_true, y_score)
    elif isinstance(y_true, ItemJudgments) or (
        isinstance(y_score, ItemRanking)
        and not (_issparse(y_true) and (ids is None or _is_range(np.asarray(ids))))
    ):
        truth = _as_judgments(y_true)
    else:  # a matrix whose rows are the queries
        csr = _sparse().csr_matrix(y_true)
        csr.eliminate_zeros()
        rows = np.repeat(np.arange(csr.shape[0]), np.diff(csr.indptr))
        keep = csr.data > 0
        return _grouped(rows[keep], csr.indices[keep].astype(np.int64), csr.data[keep], n_queries)
    rel = np.asarray(truth.relevance, dtype=np.float64)
    keep = rel > 0
    position = _query_positions(truth.queries[keep], ids, n_queries, "y_true")
    codes = catalog.codes(truth.items[keep], "y_true")
    return _grouped(position, codes, rel[keep], n_queries)


def _history(training, n_queries):
    """Each evaluated query's training items (interaction counts as values)."""
    position = training.user_query[training.users]
    return _grouped(position, training.items, training.counts, n_queries)


def _recommended(y_true, y_score, ids, n_queries, exclude, catalog, k):
    """Every query's list of catalog codes, best first, cut to ``k``."""
    if _is_list_form(y_true):
        _truth, y_score = _from_lists(y_true, y_score)
    if isinstance(y_score, ItemRanking) or isinstance(y_true, ItemJudgments):
        return _from_ranking(_as_ranking(y_score), ids, n_queries, exclude, catalog, k)
    score = np.asarray(y_score)
    if score.ndim != 2:
        raise ValueError(
            "these metrics read which items each query was recommended: pass matrices "
            "(queries x items), ItemRanking or ranked lists; long-format rows have no item ids."
        )
    return _from_matrix(_as_float_array("y_score", score), exclude, k)


def _from_matrix(score, exclude, k):
    """Top-k columns of each row by score, ties in column order; excluded cells dropped."""
    n_rows, width = score.shape
    if exclude is not None:
        keys, _shape = _sparse_keys(exclude)
        score = score.copy()
        score.flat[keys] = -np.inf
    keep = width if k is None else min(k, width)
    if 0 < keep <= width // 8:  # a short top k of long rows: no sort of whole rows
        order = _top_columns(score, keep)
    else:
        order = np.argsort(-score, axis=1, kind="stable")[:, :keep]
    kept = np.isfinite(np.take_along_axis(score, order, axis=1))
    lengths = kept.sum(axis=1)
    offsets = np.zeros(n_rows + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    return _Lists(offsets, order[kept].astype(np.int64))


def _top_columns(score, keep):
    """The first ``keep`` columns of each row of ``np.argsort(-score, axis=1,
    kind="stable")`` (scores descending, ties in column order), without sorting whole
    rows: each row's keep-th largest score is found by partition, and only the cells at
    or above it (the top ``keep`` and their ties) are sorted."""
    n_rows, width = score.shape
    kth = np.partition(score, width - keep, axis=1)[:, width - keep]
    rows, columns = np.nonzero(score >= kth[:, None])  # in row order, columns ascending
    values = score[rows, columns]
    order = np.lexsort((columns, -values, rows))
    rows, columns = rows[order], columns[order]
    # At least keep cells per row are at or above its keep-th largest score.
    starts = np.searchsorted(rows, np.arange(n_rows))
    position = np.arange(rows.size) - starts[rows]
    return columns[position < keep].reshape(n_rows, keep)


def _excluded(keys, shape, queries, items):
    """Which (query id, item id) pairs are among ``exclude``'s entries (``keys``, ``shape``:
    `_items._sparse_keys`), ids being its row and column numbers: ``np.isin`` of their
    entry numbers, by a binary search of the few excluded entries (no sort of them all)."""
    probe = np.asarray(queries, np.int64) * np.int64(shape[1]) + np.asarray(items, np.int64)
    if not keys.size:
        return np.zeros(probe.shape, dtype=bool)
    keys = np.sort(keys)
    return keys[np.minimum(np.searchsorted(keys, probe), keys.size - 1)] == probe


def _is_range(ids):
    """Whether ``ids`` are 0..n-1 in order (the rows of a matrix)."""
    return (
        ids.dtype.kind in "iu"
        and (ids.size == 0 or (ids[0] == 0 and ids[-1] == ids.size - 1))
        and bool((np.diff(ids) == 1).all())
    )


def _query_positions(query_ids, ids, n_queries, what):
    """Each row's query position in the prepared input (-1: a query it does not keep)."""
    if ids is None or _is_range(np.asarray(ids)):
        positions = np.asarray(query_ids).astype(np.int64)
        return np.where((positions >= 0) & (positions < n_queries), positions, -1)
    codes, missing = _lookup(np.asarray(ids), query_ids)
    return np.where(missing, -1, codes)


def _from_ranking(run, ids, n_queries, exclude, catalog, k):
    """An `ItemRanking`'s rows grouped by query, best first (scores descending, then row
    order; rows in rank order without scores)."""
    top = run._topn
    if top is not None and exclude is None and top.shape[0] == n_queries:
        if ids is None or _is_range(np.asarray(ids)):  # rows in rank order: cut them
            kept = top if k is None else top[:, :k]
            codes = catalog.codes(kept.ravel(), "y_score")
            offsets = np.arange(n_queries + 1, dtype=np.int64) * kept.shape[1]
            return _Lists(offsets, codes)
    queries, items = run.queries, run.items
    position = _query_positions(queries, ids, n_queries, "y_score")
    if exclude is not None:
        # exclude's rows are query ids (row numbers), as for the accuracy metrics.
        keep = ~_excluded(*_sparse_keys(exclude), queries, items)
        queries, items, position = queries[keep], items[keep], position[keep]
        scores = None if run.scores is None else run.scores[keep]
    else:
        scores = run.scores
    kept = position >= 0
    codes = catalog.codes(items[kept], "y_score")
    position = position[kept]
    if scores is None:
        order = np.argsort(position, kind="stable")
    else:
        order = np.lexsort((-scores[kept], position))
    position, codes = position[order], codes[order]
    lengths = np.bincount(position, minlength=n_queries)
    offsets = np.zeros(n_queries + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    lists = _Lists(offsets, codes)
    if k is None:
        return lists
    _query, cut, cut_lengths = lists.cut(k)
    offsets = np.zeros(n_queries + 1, dtype=np.int64)
    np.cumsum(cut_lengths, out=offsets[1:])
    return _Lists(offsets, cut)


def _training(train, catalog, ids, n_queries):
    """``train`` (a users x items matrix of interaction counts, dense or sparse, as
    ``exclude``; or (user ids, item ids) rows; or `ItemJudgments`) as a `_Training`."""
    if _issparse(train) or (isinstance(train, np.ndarray) and train.ndim == 2):
        coo = _sparse().coo_matrix(train)
        coo.sum_duplicates()
        values = coo.data.astype(np.float64)
        _check_finite("train", values)
        if (values < 0).any():
            raise ValueError(
                "train must hold non-negative interaction counts; got "
                f"{float(values[values < 0][0])!r}."
            )
        keep = values != 0
        user_ids = coo.row[keep].astype(np.int64)
        items = coo.col[keep].astype(np.int64)
        counts = values[keep]
        distinct, users = np.unique(user_ids, return_inverse=True)
    else:
        if isinstance(train, ItemJudgments):
            user_ids, item_ids = train.queries, train.items
        elif isinstance(train, (tuple, list)) and len(train) == 2:
            user_ids, item_ids = (np.asarray(part) for part in train)
        else:
            raise ValueError(
                "train must be a users x items matrix (dense or scipy.sparse, interaction "
                "counts), a pair (user ids, item ids) of training rows, or ItemJudgments; "
                f"got {type(train).__name__}."
            )
        if user_ids.shape != item_ids.shape or user_ids.ndim != 1:
            raise ValueError(
                "train's user ids and item ids must be 1-D of one length; got shapes "
                f"{user_ids.shape} and {item_ids.shape}."
            )
        codes = catalog.codes(item_ids, "train")
        distinct_users, user_codes = np.unique(user_ids, return_inverse=True)
        pairs, counts = np.unique(
            user_codes.astype(np.int64) * np.int64(catalog.n_items) + codes, return_counts=True
        )
        # Every distinct user has a pair, in user order: the users' codes are the pairs'.
        distinct, users = distinct_users, pairs // catalog.n_items
        items = pairs % catalog.n_items
        counts = counts.astype(np.float64)
    user_query = _query_positions(distinct, ids, n_queries, "train")
    return _Training(users.astype(np.int64), items, counts, user_query)


def _features(item_features, n_items):
    """Item features: (n_items, n_features), finite; dense float64 or sparse CSR."""
    if _issparse(item_features):
        features = _sparse().csr_matrix(item_features, dtype=np.float64)
        _check_finite("item_features", features.data)
    else:
        features = _as_float_array("item_features", item_features)
        if features.ndim != 2:
            raise ValueError(
                f"item_features must be 2-D (items x features); got shape {features.shape}."
            )
        _check_finite("item_features", features)
    if features.shape[0] != n_items:
        raise ValueError(
            f"item_features must have one row per catalog item ({n_items}); got "
            f"{features.shape[0]}."
        )
    return features


def _training_of(train, catalog, y_true=None):
    """``train`` alone as a `_Training` over ``catalog`` (an engine's driver: the
    popularity of the whole training data, before any partition), and the catalog size."""
    found = _catalog(catalog, y_true, train)
    # No query: no training user is evaluated (an empty object array: user ids of any
    # type are looked up, not read as row numbers).
    return _training(train, found, np.zeros(0, dtype=object), 0), found.n_items
