"""The one input normaliser: every input form becomes a `_Queries` (`_queries.py`).

The forms (see `docs/metrics.md`, "Input forms"):

1. matrices: dense 2-D ``y_score`` (queries x items) with dense or scipy.sparse ``y_true``
   of the same shape, scikit-learn's convention;
2. long format: 1-D ``y_true`` / ``y_score`` plus ``groups`` (one query id per row);
3. items with ids: `ItemRanking` (a run: query, item, score rows, or top-N ids) against
   `ItemJudgments` or a sparse truth matrix; ranked lists (``y_true`` a list of sets or
   dicts, ``y_score`` a list of id sequences or dicts) are the same form in Python objects.

Matrices and long format are handled here; forms with item ids in `_items.py`. Excluded
items are removed here, once.
"""

from collections.abc import Mapping, Set

import numpy as np

from ..conventions._declarations import resolve
from ..utils._ids import _factorize
from ..utils._sparse import _issparse, _sparse
from ..utils._validation import _as_float_array, _as_score_array, _check_finite
from ._items import _as_judgments, _as_ranking, _check_ids_in_matrix, _from_items, _from_lists
from ._queries import _Queries, _scores_as
from ._tables import ItemJudgments, ItemRanking


def _is_list_form(y_true):
    if isinstance(y_true, (list, tuple)) and y_true:
        return all(isinstance(t, (Set, Mapping)) for t in y_true)
    return False


def _normalise(
    y_true,
    y_score,
    groups=None,
    exclude=None,
    *,
    tie_break="input",
    query_set="all",
    score_dtype="float64",
    judged_only=False,
    n_threads=1,
):
    """Turn any accepted input form into a `_Queries`; return it with the query ids.

    The ids are None for matrices (queries are rows) and for ranked lists (list order).
    ``judged_only`` removes the candidates absent from the truth (condensed lists): there
    are none in dense matrices and long format, whose every cell or row is judged.
    ``n_threads``: the threads its largest steps may use.
    """
    if isinstance(y_score, ItemRanking) or isinstance(y_true, ItemJudgments):
        if groups is not None:
            raise ValueError(
                "groups must be None with ItemRanking / ItemJudgments: their rows carry "
                "their query ids already."
            )
        # A sparse truth matrix's rows are the queries, in row order, judged or not.
        rows = None
        if _issparse(y_true):
            rows = np.arange(y_true.shape[0])
            if isinstance(y_score, ItemRanking):
                _check_ids_in_matrix(y_score, y_true.shape, n_threads=n_threads)
        return _from_items(
            _as_judgments(y_true),
            _as_ranking(y_score),
            known_queries=rows,
            exclude=exclude,
            tie_break=tie_break,
            query_set=query_set,
            score_dtype=score_dtype,
            judged_only=judged_only,
            n_threads=n_threads,
        )
    if _is_list_form(y_true):
        if groups is not None:
            raise ValueError(
                "groups must be None when y_true is a list of sets or dicts "
                "(each list element is already one query)."
            )
        truth, run = _from_lists(y_true, y_score)
        queries, _ = _from_items(
            truth,
            run,
            known_queries=np.arange(len(y_true)),
            exclude=exclude,
            tie_break=tie_break,
            query_set=query_set,
            score_dtype=score_dtype,
            judged_only=judged_only,
        )
        return queries, None
    if isinstance(y_true, (list, tuple)) and any(isinstance(t, (Set, Mapping)) for t in y_true):
        raise ValueError(
            "y_true mixes sets/dicts with other values; in the ranked-list form every element "
            "must be a set of relevant item ids or a dict item id -> relevance."
        )
    if _issparse(y_score):
        raise TypeError(
            "y_score is a scipy.sparse matrix; scores must be dense (every candidate needs "
            "a score). For top-N item ids use ItemRanking.from_topn(ids)."
        )
    sparse = _issparse(y_true)
    # Labels keep their numeric type (no float copy of a whole matrix); only the few
    # entries the metrics read are converted.
    true = y_true if sparse else _as_float_array("y_true", y_true, keep_numeric=True)
    try:
        score = _as_score_array("y_score", y_score)
    except ValueError as exc:
        if _are_lists(y_score) and (sparse or np.ndim(true) == 2):
            raise ValueError(f"{exc}{_TOPN_HINT}") from None
        raise
    if sparse or score.ndim == 2:
        if groups is not None:
            raise ValueError(
                "groups must be None for 2-D y_true and y_score (each row is one query); "
                "pass 1-D arrays to use groups."
            )
        queries = _from_matrices(
            true, score, exclude, tie_break, score_dtype, judged_only, n_threads
        )
        return queries, None
    if tie_break == "item_descending":
        raise ValueError(
            f"tie_break={tie_break!r} needs item ids: long-format rows have none. Pass "
            "ItemRanking / ItemJudgments, ranked lists or matrices, or tie_break='input' "
            "or 'relevance_ascending'."
        )
    if exclude is not None:
        raise ValueError(
            "exclude needs items: pass matrices (queries x items), ItemRanking with integer "
            "item ids, or ranked lists; long-format rows have no item ids."
        )
    return _from_long(true, score, groups, score_dtype, tie_break, n_threads)


def _from_long(true, score, groups, score_dtype, tie_break="input", n_threads=1):
    if true.shape != score.shape:
        raise ValueError(
            f"y_true and y_score must have the same shape; got {true.shape} and {score.shape}."
        )
    _check_finite("y_true", true, n_threads)
    _check_finite("y_score", score, n_threads)
    if true.ndim != 1:
        raise ValueError(
            f"y_true must be 2-D (n_queries, n_items) or 1-D with groups; got {true.ndim}-D input."
        )
    if true.size == 0:
        raise ValueError("y_true is empty; at least one row is needed.")
    if groups is None:
        raise ValueError(
            "1-D y_true and y_score need groups: one query id per row "
            "(pass groups=query_ids), or pass 2-D arrays of shape (n_queries, n_items)."
        )
    codes, ids = _factorize(groups, true.size, n_threads=n_threads)
    return _from_codes(true, score, codes, len(ids), score_dtype, tie_break), ids


def _from_codes(true, score, codes, n_queries, score_dtype, tie_break="input", judged=None):
    """Long format whose queries are numbered already: ``codes`` in [0, n_queries), every
    number used (a partition of a distributed frame numbers its queries itself).

    judged : (n_rows,) bool or None
        Which rows are judged (the others, relevance 0, are ranked but not judged, as a
        left join of a run with its judgments gives); None: every row is judged.
    """
    n_cand = np.bincount(codes, minlength=n_queries)
    if n_cand.size and np.all(n_cand == n_cand[0]):  # e.g. one row per query
        n_cand = _same_for_every_query(int(n_cand[0]), n_queries)
    return _Queries(
        n_queries=n_queries,
        score=_scores_as(score, score_dtype),
        rel=true,
        codes=codes,
        n_cand=n_cand,
        n_rows=true.size,
        relevance_ties=tie_break == "relevance_ascending",
        judged_mask=judged,
    )


def _from_matrices(true, score, exclude, tie_break, score_dtype, judged_only=False, n_threads=1):
    sparse = _issparse(true)
    if sparse:
        if true.dtype.kind not in "biuf":  # scipy would drop imaginary parts with a warning
            raise ValueError(
                f"y_true must contain real numbers; got a sparse matrix of dtype {true.dtype}."
            )
        true = _sparse().csr_matrix(true, dtype=np.float64, copy=True)  # never the caller's
    if true.shape != score.shape:
        hint = _TOPN_HINT if _may_be_topn(score, true.shape) else ""
        raise ValueError(
            f"y_true and y_score must have the same shape; got {true.shape} and "
            f"{score.shape}.{hint}"
        )
    if score.ndim != 2:
        raise ValueError(
            f"y_true must be 2-D (n_queries, n_items) or 1-D with groups; got {score.ndim}-D input."
        )
    n_queries, width = score.shape
    if n_queries == 0 or width == 0:
        raise ValueError(
            f"y_true must have at least one query and one item; got shape {score.shape}."
        )
    _check_finite("y_score", score, n_threads)
    fields = {}
    if sparse:
        true.sum_duplicates()
        true.eliminate_zeros()
        _check_finite("y_true", true.data)
        rows = np.repeat(np.arange(n_queries), np.diff(true.indptr))
        fields["truth_keys"] = rows * np.int64(width) + true.indices
        fields["truth_rel"] = true.data
    else:
        _check_finite("y_true", true, n_threads)
        fields["rel"] = np.ascontiguousarray(true).ravel()
    score = _scores_as(np.ascontiguousarray(score).ravel(), score_dtype)
    n_cand = _same_for_every_query(width, n_queries)
    if sparse and judged_only:
        # Sparse truth judges its stored entries only: the others leave the ranking.
        unjudged = np.ones(n_queries * width, dtype=bool)
        unjudged[fields["truth_keys"]] = False
        if exclude is not None:
            unjudged |= _dense_mask(exclude, (n_queries, width)).ravel()
        exclude = unjudged.reshape(n_queries, width)
    if exclude is not None:
        excluded = _dense_mask(exclude, (n_queries, width))
        n_cand = n_cand - excluded.sum(axis=1)
        score = np.where(excluded.ravel(), -np.inf, score)
        fields["excluded"] = excluded.ravel()
        if sparse:
            keep = ~fields["excluded"][fields["truth_keys"]]
            fields["truth_keys"] = fields["truth_keys"][keep]
            fields["truth_rel"] = fields["truth_rel"][keep]
    return _Queries(
        n_queries=n_queries,
        score=score,
        n_cand=n_cand,
        width=width,
        descending_ties=tie_break == "item_descending",
        relevance_ties=tie_break == "relevance_ascending",
        **fields,
    )


_TOPN_HINT = (
    " If y_score holds each query's top-N item ids rather than a score per item, pass "
    "ItemRanking.from_topn(y_score)."
)


def _are_lists(values):
    """Whether ``values`` is a list of sequences (rows of ragged top-N ids, say)."""
    return isinstance(values, (list, tuple)) and all(
        hasattr(row, "__len__") and not isinstance(row, (str, bytes)) for row in values
    )


def _may_be_topn(score, shape):
    """Whether a score matrix of the wrong shape looks like top-N item ids of a truth of
    ``shape``: a row per query, fewer columns than items, whole numbers that index them."""
    if score.ndim != 2 or len(shape) != 2 or score.shape[0] != shape[0]:
        return False
    if score.shape[1] >= shape[1] or not score.size:
        return False
    return bool(np.all((score == np.round(score)) & (score >= 0) & (score < shape[1])))


def _same_for_every_query(count, n_queries):
    """A count shared by every query: one value broadcast (read-only), not an array of
    them, which would cost as much as a one-column matrix."""
    return np.broadcast_to(np.int64(count), (n_queries,))


def _dense_mask(exclude, shape):
    """``exclude`` (dense or sparse, queries x items) as a dense boolean mask."""
    if _issparse(exclude):
        if exclude.shape != shape:
            raise ValueError(
                f"exclude must have the shape of y_score {shape}; got {exclude.shape}."
            )
        coo = _sparse().coo_matrix(exclude)
        stored = coo.data != 0
        mask = np.zeros(shape, dtype=bool)  # straight to booleans: no float copy
        mask[coo.row[stored], coo.col[stored]] = True
    else:
        mask = np.asarray(exclude)
        if mask.dtype != bool:
            mask = _as_float_array("exclude", mask)
            _check_finite("exclude", mask)  # NaN != 0 would silently exclude
            mask = mask != 0
    if mask.shape != shape:
        raise ValueError(f"exclude must have the shape of y_score {shape}; got {mask.shape}.")
    return mask


def query_ids(y_true, y_score=None, *, convention=None, query_set=None):
    """Query ids in the order of per-query results (``per_query=True``).

    Parameters
    ----------
    y_true : array-like of shape (n_rows,), or ItemJudgments / sparse matrix
        With ``y_score`` None: the ``groups`` of long-format input (one query id per row).
        Otherwise the ``y_true`` passed to a metric.
    y_score : ItemRanking, array-like or list, default=None
        The ``y_score`` passed to a metric, when ``y_true`` is not ``groups``.
    convention, query_set : str, default=None
        As passed to `evaluate`: they decide which queries are kept.

    Returns
    -------
    ids : ndarray of shape (n_queries,)
        Long format: the distinct ids in order of first appearance in ``groups``. Items
        with ids: first appearance in the judgments, then queries found only in the run.
        Matrices and ranked lists: row (list) numbers 0 .. n_queries - 1.

    Examples
    --------
    >>> from sklearn_rank import ItemJudgments, ItemRanking, query_ids
    >>> query_ids(["b", "a", "b", "c"]).tolist()
    ['b', 'a', 'c']
    >>> truth = ItemJudgments(["q2", "q1"], ["d1", "d1"])
    >>> query_ids(truth, ItemRanking(["q3", "q1"], ["d1", "d2"], [1.0, 2.0])).tolist()
    ['q2', 'q1', 'q3']
    """
    if y_score is None:
        return _factorize(y_true, None)[1]
    chosen = resolve(convention, {"query_set": query_set})["query_set"]
    queries, ids = _normalise(y_true, y_score, query_set=chosen)
    return np.arange(queries.n_queries) if ids is None else ids
