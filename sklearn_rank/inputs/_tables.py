"""Id-based inputs: runs of (query, item, score) rows and judgments of (query, item, relevance).

This is the form of recommender output (top-N item ids per user), of search runs and qrels
(TREC files), and of long tables (pandas or polars DataFrames). Both classes only hold
validated parallel arrays; `_normalise._from_items` joins them, vectorised, into the internal
representation.
"""

import numpy as np

from ..utils._ids import _factorize, _first_missing, _id_array, _missing_text
from ..utils._sparse import _issparse, _sparse
from ..utils._validation import _as_float_array, _as_score_array, _check_finite, _shown


def _ids(name, values):
    if isinstance(values, (str, bytes)) or not hasattr(values, "__iter__"):
        # A string would be read as one id per character.
        raise ValueError(f"{name} must be a 1-D array-like of ids; got {_shown(values)}.")
    ids = values if isinstance(values, np.ndarray) else _id_array(list(values))
    if ids.dtype == object and ids.size and all(isinstance(v, (list, np.ndarray)) for v in ids):
        raise ValueError(f"{name} must be 1-D; got a nested sequence (row 0 is {ids[0]!r}).")
    if ids.ndim != 1:
        raise ValueError(f"{name} must be 1-D; got shape {ids.shape}.")
    row = _first_missing(ids)
    if row is not None:
        raise ValueError(
            f"{name} must not contain None or NaN; got {_missing_text(ids[row])} at row {row}."
        )
    return ids


def _rows(queries, items):
    queries, items = _ids("queries", queries), _ids("items", items)
    if items.shape != queries.shape:
        raise ValueError(
            f"queries and items must have the same length; got {queries.size} and {items.size}."
        )
    return queries, items


def _per_row(name, values, n_rows, convert=_as_float_array):
    values = convert(name, values)
    if values.shape != (n_rows,):
        raise ValueError(
            f"{name} must have one value per row ({n_rows}); got shape {values.shape}."
        )
    _check_finite(name, values)
    return values


def _column(frame, name, role):
    if type(frame).__name__ == "LazyFrame":
        raise TypeError("frame is a polars LazyFrame; pass frame.collect().")
    if not hasattr(frame, "columns") or not hasattr(frame, "__getitem__"):
        raise TypeError(f"frame must be a pandas or polars DataFrame; got {type(frame).__name__}.")
    columns = list(frame.columns)
    # pandas columns may be numbers: 0 and "0" both name a column 0, never two columns.
    matches = [c for c in columns if c == name] or [c for c in columns if str(c) == str(name)]
    if not matches:
        raise ValueError(
            f"The {role} column {name!r} is not in the table; its columns are "
            f"{[str(c) for c in columns]}."
        )
    if len(matches) > 1 or np.ndim(frame[matches[0]]) != 1:
        raise ValueError(f"The {role} column {name!r} appears more than once in the table.")
    values = frame[matches[0]].to_numpy()
    row = _first_missing(values)
    if row is not None:
        raise ValueError(f"Column {name!r} has a missing value at row {row}.")
    return values


def _count(n, one, many):
    return f"{n} {one if n == 1 else many}"


def _frame_name(frame):
    """'a pandas DataFrame', 'a polars DataFrame'."""
    library = type(frame).__module__.split(".")[0]
    return f"a {library} {type(frame).__name__}"


class _ItemsAttribute:
    """The ``items`` attribute of `ItemRanking` and `ItemJudgments`: the array that was
    set, except for ids that a file reader kept as ASCII bytes (numpy's fixed-width bytes,
    one byte per character where str takes four: 32 MB instead of 128 for two million
    16-character docnos). Those are made str the first time ``items`` is read, once; the
    join and trec_eval's orders read the bytes (`_stored_items`, `_items_at`)."""

    def __get__(self, table, owner=None):
        if table is None:
            return self
        items = table._items
        if table._ascii_items:
            items = items.astype(str)
            table._items, table._ascii_items = items, False
        return items

    def __set__(self, table, items):
        table._items, table._ascii_items = items, False


def _stored_items(table):
    """The item ids of an `ItemRanking` or `ItemJudgments` as stored: ASCII bytes (dtype
    S) where a file reader kept them so, else ``table.items``."""
    return table._items


def _holds_ascii_bytes(table):
    """Whether ``table`` keeps its item ids as the ASCII bytes a reader read."""
    return table._ascii_items


def _items_at(table, rows):
    """``table.items[rows]``, only those ids made str."""
    items = table._items[rows]
    return items.astype(str) if table._ascii_items else items


def _joinable_items(truth, run):
    """(the judgments' item ids, the run's, whether both are bytes) to join: the ASCII
    bytes readers kept, when both sides hold them or when the other side's str ids are all
    ASCII too (made bytes: a small qrels read line by line beside a large run read fast);
    else both sides' ``items``, as given (bytes made str)."""
    if truth._ascii_items or run._ascii_items:
        encoded = [
            table._items if table._ascii_items else _ascii_bytes(table._items)
            for table in (truth, run)
        ]
        if all(ids is not None for ids in encoded):
            return *encoded, True
    return truth.items, run.items, False


def _ascii_bytes(ids):
    """Fixed-width str ids as bytes when all are ASCII (equal ids, equal bytes); else None."""
    if ids.dtype.kind != "U":
        return None
    try:
        return ids.astype(f"S{max(ids.dtype.itemsize // 4, 1)}")
    except UnicodeEncodeError:
        return None


def _restore(table, state):
    """Unpickling: an object pickled before ids could stay bytes holds ``items`` itself."""
    state = dict(state)
    if "items" in state:
        state["_items"] = state.pop("items")
    state.setdefault("_ascii_items", False)
    table.__dict__.update(state)


def _with_ascii_items(table, items):
    """``table`` with ``items`` as stored: bytes (dtype S, from a reader that checked they
    are ASCII and none ends with NUL) are kept so until ``items`` is read."""
    table._items, table._ascii_items = items, items.dtype.kind == "S"
    return table


class ItemRanking:
    """Scored or ranked items per query: a recommender's or a search engine's run.

    Parameters
    ----------
    queries : array-like of shape (n_rows,)
        Query (user) id of each row: numbers or strings; rows of a query in any order.
    items : array-like of shape (n_rows,)
        Item (document) id of each row; an item appears at most once per query.
    scores : array-like of shape (n_rows,), default=None
        Score of each row, higher ranks first. None means the rows of each query are in
        rank order (first row best).

    Notes
    -----
    ``len(ranking)`` is the number of rows, (query, item) pairs, as for a DataFrame of the
    run; its repr gives the number of queries too, and the form it was made from.

    See Also
    --------
    ItemJudgments : The matching truth.

    Examples
    --------
    >>> from sklearn_rank import ItemJudgments, ItemRanking, evaluate
    >>> run = ItemRanking.from_topn([[1, 3, 2, 6]])
    >>> truth = ItemJudgments([0, 0, 0], [1, 2, 4])
    >>> evaluate(truth, run, ["recall@4", "precision@2"])
    {'recall@4': 0.6666666666666666, 'precision@2': 0.5}
    >>> run
    <ItemRanking: 1 query, 4 rows in rank order, from top-N lists (1 list)>
    >>> len(run)
    4
    >>> ItemRanking(["u1", "u1", "u2"], ["a", "b", "a"], [0.9, 0.3, 0.5])
    <ItemRanking: 2 queries, 3 rows with scores, from arrays>
    """

    items = _ItemsAttribute()
    __setstate__ = _restore

    def __init__(self, queries, items, scores=None):
        self.queries, self.items = _rows(queries, items)
        self.scores = (
            None
            if scores is None
            else _per_row("scores", scores, self.queries.size, _as_score_array)
        )
        self._topn = None
        self._source = "arrays"

    @classmethod
    def _from_file(cls, queries, items, scores):
        """From a file reader's columns, which it checked: query ids as objects (str), item
        ids as `_str_array` gives them or as ASCII bytes (`_with_ascii_items`), and finite
        float64 scores or None, one per row (``__init__`` would check them again)."""
        ranking = _with_ascii_items(cls.__new__(cls), items)
        ranking.queries, ranking.scores = queries, scores
        ranking._topn = None
        ranking._source = "arrays"
        return ranking

    def __len__(self):
        """The number of rows: (query, item) pairs."""
        return int(_stored_items(self).size)

    def __repr__(self):
        if self._topn is not None:
            n_queries = self._topn.shape[0]
        else:
            n_queries = len(_factorize(self.queries, None, "queries")[1])
        order = "in rank order" if self.scores is None else "with scores"
        return (
            f"<ItemRanking: {_count(n_queries, 'query', 'queries')}, "
            f"{_count(len(self), 'row', 'rows')} {order}, from {self._source}>"
        )

    @property
    def queries(self):
        """ndarray of shape (n_rows,): the query id of each row."""
        if self._queries is None:  # top-N rows: made only when asked for
            n_queries, n = self._topn.shape
            self._queries = np.repeat(np.arange(n_queries), n)
        return self._queries

    @queries.setter
    def queries(self, value):
        self._queries = value

    @classmethod
    def from_topn(cls, ids, queries=None):
        """Top-N item ids per query, best first: a 2-D array or a list of lists.

        Parameters
        ----------
        ids : array-like of shape (n_queries, N), or list of sequences
            Row q holds the ranked item ids of query q (lists may differ in length). A
            DataFrame is refused (its index may hold the query ids): pass
            ``df.to_numpy()``, and ``queries=df.index`` when it does.
        queries : array-like of shape (n_queries,), default=None
            Query ids of the rows; None means 0 .. n_queries - 1 (row numbers, which
            match the rows of a sparse truth matrix).

        Returns
        -------
        ranking : ItemRanking

        Examples
        --------
        >>> from sklearn_rank import ItemRanking
        >>> ItemRanking.from_topn([[5, 2], [7]]).items.tolist()
        [5, 2, 7]
        """
        if isinstance(ids, np.ndarray) and ids.dtype != object:
            if ids.ndim != 2:
                raise ValueError(
                    f"ids must be 2-D (one row of ranked item ids per query) or a list of "
                    f"lists; got an array of shape {ids.shape}."
                )
            lengths = np.full(ids.shape[0], ids.shape[1])
            flat = ids.ravel()
        else:
            if isinstance(ids, (str, bytes)) or not hasattr(ids, "__iter__"):
                raise ValueError(
                    "ids must be 2-D (one row of ranked item ids per query) or a list of "
                    f"lists; got {_shown(ids)}."
                )
            if hasattr(ids, "columns") and hasattr(ids, "to_numpy"):
                # Iterating a DataFrame gives its column names, never its rows; and its
                # index may hold the query ids, which row numbers would silently replace.
                raise TypeError(
                    "ids is a DataFrame, whose iteration gives column names, not rows: pass "
                    "ids.to_numpy() (one row of ranked item ids per query) and, when its "
                    "index holds the query ids, queries=ids.index."
                )
            ids = list(ids)  # a generator is read once: keep its rows
            bad = next(
                (
                    row
                    for row in ids
                    if isinstance(row, (str, bytes)) or not hasattr(row, "__iter__")
                ),
                None,
            )
            if bad is not None:  # a string row would be read as one id per character
                raise ValueError(
                    f"ids must hold one sequence of ranked item ids per query; got a row {bad!r}."
                )
            rows = [list(row) for row in ids]
            lengths = np.array([len(row) for row in rows], dtype=np.int64)
            flat = _id_array([item for row in rows for item in row])
        if queries is None and isinstance(ids, np.ndarray) and ids.dtype.kind in "iu":
            # Integer ids of row-numbered queries: keep the matrix. The evaluation reads
            # it as queries x ranks, without a query id and a score per row.
            ranking = cls.__new__(cls)
            ranking._queries, ranking.items, ranking.scores = None, flat, None
            ranking._topn = ids
            ranking._source = f"a top-N matrix of shape {ids.shape}"
            return ranking
        n_queries = lengths.size
        names = np.arange(n_queries) if queries is None else _ids("queries", queries)
        if names.size != n_queries:
            raise ValueError(
                f"queries must have one id per row of ids ({n_queries}); got {names.size}."
            )
        ranking = cls(np.repeat(names, lengths), flat)
        if isinstance(ids, np.ndarray) and ids.dtype != object:
            ranking._source = f"a top-N matrix of shape {ids.shape}"
        else:
            ranking._source = f"top-N lists ({_count(n_queries, 'list', 'lists')})"
        return ranking

    @classmethod
    def from_frame(cls, frame, *, query="query", item="item", score="score", rank=None):
        """From a pandas or polars DataFrame with query, item and score (or rank) columns.

        Parameters
        ----------
        frame : pandas.DataFrame or polars.DataFrame
        query, item : str, default="query", "item"
            Column names.
        score : str or None, default="score"
            Score column, higher first; None means the rows of each query are in rank
            order. Not read when ``rank`` is given.
        rank : str or None, default=None
            Rank column (1 first, as a recommender's top-N table or a TREC run gives it),
            read instead of the score, as `evaluate_dask` and `evaluate_spark` read it:
            lower ranks first, equal ranks tie.

        Returns
        -------
        ranking : ItemRanking

        Examples
        --------
        >>> import pandas as pd
        >>> from sklearn_rank import ItemRanking
        >>> top = pd.DataFrame({"user": [7, 7, 7], "item": [4, 2, 9], "rank": [2, 1, 3]})
        >>> ranking = ItemRanking.from_frame(top, query="user", rank="rank")
        >>> ranking.items[ranking.scores.argsort()[::-1]].tolist()  # best first
        [2, 4, 9]
        """
        if rank is not None:
            ranks = _as_score_array("rank", _column(frame, rank, "rank"))
            if ranks.dtype.kind == "u":  # negating unsigned integers would wrap around
                ranks = ranks.astype(np.int64 if ranks.max(initial=0) < 2**63 else np.float64)
            scores = np.negative(ranks)  # rank 1 first: the highest score
        elif score is None:
            scores = None
        else:
            try:
                scores = _column(frame, score, "score")
            except ValueError as exc:
                # A top-N table has ranks, not scores: say how to read it.
                raise ValueError(
                    f"{exc} For a rank column (1 first), pass rank=<its name>."
                ) from None
        ranking = cls(_column(frame, query, "query"), _column(frame, item, "item"), scores)
        ranking._source = _frame_name(frame)
        return ranking


class ItemJudgments:
    """Judged items per query with their relevance: the truth (qrels).

    Parameters
    ----------
    queries : array-like of shape (n_rows,)
        Query (user) id of each row.
    items : array-like of shape (n_rows,)
        Item (document) id of each row; an item appears at most once per query.
    relevance : array-like of shape (n_rows,), default=None
        Relevance of each row (0 = judged non-relevant). None means every row is relevant
        with relevance 1 (binary truth).

    Notes
    -----
    ``len(judgments)`` is the number of rows, judged (query, item) pairs, as for a
    DataFrame of qrels; its repr gives the number of queries too, and the form it was made
    from.

    See Also
    --------
    ItemRanking : The matching run.

    Examples
    --------
    >>> from sklearn_rank import ItemJudgments
    >>> truth = ItemJudgments(["u1", "u1", "u2"], ["a", "b", "a"], [2, 0, 1])
    >>> truth.relevance.tolist()
    [2.0, 0.0, 1.0]
    >>> truth
    <ItemJudgments: 2 queries, 3 rows, graded relevance, from arrays>
    >>> len(truth)
    3
    """

    items = _ItemsAttribute()
    __setstate__ = _restore

    def __init__(self, queries, items, relevance=None):
        self.queries, self.items = _rows(queries, items)
        self.relevance = (
            np.ones(self.queries.size)
            if relevance is None
            else _per_row("relevance", relevance, self.queries.size)
        )
        self._source = "arrays"

    @classmethod
    def _from_file(cls, queries, items, relevance):
        """From a file reader's columns, which it checked: query ids as objects (str), item
        ids as `_str_array` gives them or as ASCII bytes (`_with_ascii_items`), and finite
        relevance (int64 or float64) or None, one per row (``__init__`` would check them
        again)."""
        judgments = _with_ascii_items(cls.__new__(cls), items)
        judgments.queries = queries
        judgments.relevance = (
            np.ones(queries.size) if relevance is None else np.asarray(relevance, np.float64)
        )
        judgments._source = "arrays"
        return judgments

    def __len__(self):
        """The number of rows: judged (query, item) pairs."""
        return int(_stored_items(self).size)

    def __repr__(self):
        n_queries = len(_factorize(self.queries, None, "queries")[1])
        binary = bool(np.all(self.relevance == 1))
        kind = "binary relevance (all 1)" if binary else "graded relevance"
        return (
            f"<ItemJudgments: {_count(n_queries, 'query', 'queries')}, "
            f"{_count(len(self), 'row', 'rows')}, {kind}, from {self._source}>"
        )

    @classmethod
    def from_sparse(cls, matrix):
        """From a scipy.sparse matrix of shape (n_queries, n_items): rows are queries 0..,
        columns item ids 0..; stored non-zero values are the relevance (explicit zeros are
        dropped: not relevant).

        Parameters
        ----------
        matrix : scipy.sparse matrix or array of shape (n_queries, n_items)

        Returns
        -------
        judgments : ItemJudgments

        Examples
        --------
        >>> import scipy.sparse
        >>> from sklearn_rank import ItemJudgments
        >>> truth = ItemJudgments.from_sparse(scipy.sparse.csr_matrix([[0, 1], [2, 0]]))
        >>> truth.items.tolist(), truth.relevance.tolist()
        ([1, 0], [1.0, 2.0])
        """
        if _issparse(matrix) or np.ndim(matrix) == 2:
            try:
                csr = _sparse().csr_matrix(matrix)
            except (TypeError, ValueError) as exc:
                raise ValueError(f"matrix must hold real numbers: {exc}") from None
        else:
            raise ValueError(
                "matrix must be a 2-D scipy.sparse matrix or array (queries x items); got "
                f"{type(matrix).__name__} with {np.ndim(matrix)} dimensions."
            )
        if not csr.has_canonical_format:  # sorting happens only when it is needed
            csr = csr.copy()
            csr.sum_duplicates()
        rows = np.repeat(np.arange(csr.shape[0], dtype=np.int64), np.diff(csr.indptr))
        items, values = csr.indices.astype(np.int64), csr.data
        keep = values != 0
        if not keep.all():  # explicit zeros are rare: copy the rows only when there are some
            rows, items, values = rows[keep], items[keep], values[keep]
        del keep
        judgments = cls(rows, items, values)
        judgments._source = f"a sparse matrix of shape {csr.shape}"
        return judgments

    @classmethod
    def from_frame(cls, frame, *, query="query", item="item", relevance=None):
        """From a pandas or polars DataFrame with query, item and optional relevance columns.

        Parameters
        ----------
        frame : pandas.DataFrame or polars.DataFrame
        query, item : str, default="query", "item"
            Column names.
        relevance : str or None, default=None
            Relevance column; None means binary truth (every row relevant).

        Returns
        -------
        judgments : ItemJudgments
        """
        values = None if relevance is None else _column(frame, relevance, "relevance")
        judgments = cls(_column(frame, query, "query"), _column(frame, item, "item"), values)
        judgments._source = _frame_name(frame)
        return judgments
