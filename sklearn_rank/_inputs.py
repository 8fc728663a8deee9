"""The one input normaliser: every input form becomes a `_Queries`.

Three forms are accepted (see `docs/metrics.md`, "Input forms"):

1. dense 2-D ``y_true`` / ``y_score`` (queries x items), scikit-learn's convention;
2. long format: 1-D ``y_true`` / ``y_score`` plus ``groups`` (one query id per row);
3. ranked lists: ``y_true`` a list of sets (binary) or dicts (item -> relevance),
   ``y_score`` a list of item-id sequences in rank order or dicts (item -> score).

`_Queries` keeps the candidates of every query as flat arrays, plus the relevance of judged
items that were never scored (only the list form has those). Nothing is sorted here: the
ranking kernel does the one sort.
"""

from collections.abc import Mapping, Sequence, Set
from dataclasses import dataclass

import numpy as np
import scipy.sparse

from ._validation import _as_float_array, _check_finite


@dataclass(frozen=True)
class _Queries:
    """Candidates of every query, unsorted.

    score, rel : (n_entries,) float64, the candidates' scores and relevance.
    codes : (n_entries,) int64 query index of each entry, or None when `width` is set.
    width : items per query when the input is a dense matrix (entry = row * width + col).
    extra_codes, extra_rel : judged items that were never scored (list form only).
    n_rows : rows of the caller's input (long format), for validating per-row weights.
    """

    n_queries: int
    score: np.ndarray
    rel: np.ndarray
    codes: np.ndarray | None = None
    width: int | None = None
    extra_codes: np.ndarray | None = None
    extra_rel: np.ndarray | None = None
    n_rows: int | None = None

    @property
    def dense_rel(self):
        return self.rel.reshape(self.n_queries, self.width)

    @property
    def dense_score(self):
        return self.score.reshape(self.n_queries, self.width)

    def entry_codes(self):
        """Query index of every entry (materialised for the dense form on demand)."""
        if self.codes is not None:
            return self.codes
        return np.repeat(np.arange(self.n_queries), self.width)

    def min_relevance(self):
        lows = [self.rel.min()] if self.rel.size else []
        if self.extra_rel is not None and self.extra_rel.size:
            lows.append(self.extra_rel.min())
        return min(lows) if lows else 0.0


def _is_list_form(y_true):
    if isinstance(y_true, (list, tuple)) and y_true:
        return all(isinstance(t, (Set, Mapping)) for t in y_true)
    return False


def _normalise(y_true, y_score, groups=None):
    """Turn any accepted input form into a `_Queries`; return it with the query ids."""
    for name, value in (("y_true", y_true), ("y_score", y_score)):
        if scipy.sparse.issparse(value):
            raise TypeError(
                f"{name} is a scipy.sparse matrix; sparse input is not supported yet. "
                f"Pass a dense array ({name}.toarray())."
            )
    if _is_list_form(y_true):
        if groups is not None:
            raise ValueError(
                "groups must be None when y_true is a list of sets or dicts "
                "(each list element is already one query)."
            )
        return _from_lists(y_true, y_score), None
    if isinstance(y_true, (list, tuple)) and any(isinstance(t, (Set, Mapping)) for t in y_true):
        raise ValueError(
            "y_true mixes sets/dicts with other values; in the ranked-list form every element "
            "must be a set of relevant item ids or a dict item id -> relevance."
        )

    true = _as_float_array("y_true", y_true)
    score = _as_float_array("y_score", y_score)
    if true.shape != score.shape:
        raise ValueError(
            f"y_true and y_score must have the same shape; got {true.shape} and {score.shape}."
        )
    _check_finite("y_true", true)
    _check_finite("y_score", score)
    if true.ndim == 2:
        if groups is not None:
            raise ValueError(
                "groups must be None for 2-D y_true and y_score (each row is one query); "
                "pass 1-D arrays to use groups."
            )
        n_queries, width = true.shape
        if n_queries == 0 or width == 0:
            raise ValueError(
                f"y_true must have at least one query and one item; got shape {true.shape}."
            )
        return (
            _Queries(
                n_queries=n_queries,
                score=np.ascontiguousarray(score).ravel(),
                rel=np.ascontiguousarray(true).ravel(),
                width=width,
            ),
            None,
        )
    if true.ndim == 1:
        if groups is None:
            raise ValueError(
                "1-D y_true and y_score need groups: one query id per row "
                "(pass groups=query_ids), or pass 2-D arrays of shape (n_queries, n_items)."
            )
        if true.size == 0:
            raise ValueError("y_true is empty; at least one row is needed.")
        codes, ids = _factorize(groups, true.size)
        return (
            _Queries(n_queries=len(ids), score=score, rel=true, codes=codes, n_rows=true.size),
            ids,
        )
    raise ValueError(
        f"y_true must be 2-D (n_queries, n_items) or 1-D with groups; got {true.ndim}-D input."
    )


def _factorize(groups, n_rows):
    """Integer codes for query ids, numbered in order of first appearance."""
    ids = np.asarray(groups)
    if ids.ndim != 1 or ids.shape[0] != n_rows:
        raise ValueError(
            f"groups must be 1-D with one query id per row ({n_rows} rows); "
            f"got shape {ids.shape}."
        )
    if ids.dtype.kind == "f" and np.isnan(ids).any():
        raise ValueError(f"groups must not contain NaN; got NaN at row {np.flatnonzero(np.isnan(ids))[0]}.")
    if ids.dtype.kind == "c" or ids.dtype.kind == "V":
        raise ValueError(f"groups must hold numbers or strings; got dtype {ids.dtype}.")
    if ids.dtype == object:
        return _factorize_objects(ids)
    unique, first, inverse = np.unique(ids, return_index=True, return_inverse=True)
    order = np.argsort(first)
    rank = np.empty(order.size, dtype=np.int64)
    rank[order] = np.arange(order.size)
    return rank[inverse.ravel()], unique[order]


def _factorize_objects(ids):
    # Object ids may mix types that numpy cannot sort, so number them with a dict.
    table = {}
    codes = np.empty(ids.size, dtype=np.int64)
    for row, value in enumerate(ids):
        if value is None or (isinstance(value, float) and np.isnan(value)):
            raise ValueError(f"groups must not contain None or NaN; got {value!r} at row {row}.")
        try:
            codes[row] = table.setdefault(value, len(table))
        except TypeError:
            raise ValueError(
                f"groups must hold hashable query ids; got {type(value).__name__} at row {row}."
            ) from None
    unique = np.empty(len(table), dtype=object)
    unique[:] = list(table)
    return codes, unique


def query_ids(groups):
    """Distinct query ids in order of first appearance.

    This is the order of the per-query values that metric functions and `evaluate`
    return for long-format input (``per_query=True``).

    Parameters
    ----------
    groups : array-like of shape (n_rows,)
        One query id per row, as passed to a metric function.

    Returns
    -------
    ids : ndarray of shape (n_queries,)
        The distinct ids, first-appearance order.

    Examples
    --------
    >>> from sklearn_rank import query_ids
    >>> query_ids(["b", "a", "b", "c"]).tolist()
    ['b', 'a', 'c']
    """
    ids = np.asarray(groups)
    return _factorize(ids, ids.shape[0] if ids.ndim == 1 else -1)[1]


def _from_lists(truth, rankings):
    """Ranked-list form: one Python pass over the queries (list input is Python objects)."""
    if isinstance(rankings, (str, bytes)) or not isinstance(rankings, (Sequence, np.ndarray)):
        raise ValueError(
            "y_score must be a list with one ranking per query (a sequence of item ids in rank "
            f"order, or a dict item id -> score) when y_true is a list; got {type(rankings).__name__}."
        )
    if len(rankings) != len(truth):
        raise ValueError(
            f"y_true and y_score must have one entry per query; got {len(truth)} and "
            f"{len(rankings)}."
        )
    scores, rels, lengths, extra_rel, extra_codes = [], [], [], [], []
    for q, (judged, ranked) in enumerate(zip(truth, rankings)):
        gains = _truth_gains(judged, q)
        items, item_scores = _ranking_items(ranked, q)
        seen = set()
        for item in items:
            if item in seen:
                raise ValueError(f"y_score[{q}] ranks item {item!r} more than once.")
            seen.add(item)
        scores.extend(item_scores)
        rels.extend(gains.get(item, 0.0) for item in items)
        lengths.append(len(items))
        missed = [g for item, g in gains.items() if item not in seen]
        extra_rel.extend(missed)
        extra_codes.extend([q] * len(missed))
    score = np.asarray(scores, dtype=np.float64)
    rel = np.asarray(rels, dtype=np.float64)
    _check_finite("y_score", score)
    _check_finite("y_true", rel)
    extra = np.asarray(extra_rel, dtype=np.float64)
    _check_finite("y_true", extra)
    return _Queries(
        n_queries=len(truth),
        score=score,
        rel=rel,
        codes=np.repeat(np.arange(len(truth)), lengths),
        extra_codes=np.asarray(extra_codes, dtype=np.int64),
        extra_rel=extra,
    )


def _truth_gains(judged, q):
    if isinstance(judged, Mapping):
        gains = {}
        for item, value in judged.items():
            if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.number)):
                raise ValueError(
                    f"y_true[{q}] maps item {item!r} to {value!r}; relevance must be a number."
                )
            gains[item] = float(value)
        return gains
    return dict.fromkeys(judged, 1.0)


def _ranking_items(ranked, q):
    if isinstance(ranked, Mapping):
        items = list(ranked)
        values = []
        for item in items:
            value = ranked[item]
            if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.number)):
                raise ValueError(
                    f"y_score[{q}] maps item {item!r} to {value!r}; scores must be numbers."
                )
            values.append(float(value))
        return items, values
    if isinstance(ranked, (str, bytes)) or not isinstance(ranked, (Sequence, np.ndarray)):
        raise ValueError(
            f"y_score[{q}] must be a sequence of item ids in rank order or a dict item id -> "
            f"score; got {type(ranked).__name__}."
        )
    items = list(ranked.tolist() if isinstance(ranked, np.ndarray) else ranked)
    # Rank order is the only information: position p gets score -p, no ties.
    return items, [-float(p) for p in range(len(items))]
