"""The one input normaliser: every input form becomes a `_Queries`.

The forms (see `docs/metrics.md`, "Input forms"):

1. matrices: dense 2-D ``y_score`` (queries x items) with dense or scipy.sparse ``y_true``
   of the same shape, scikit-learn's convention;
2. long format: 1-D ``y_true`` / ``y_score`` plus ``groups`` (one query id per row);
3. items with ids: `ItemRanking` (a run: query, item, score rows, or top-N ids) against
   `ItemJudgments` or a sparse truth matrix; ranked lists (``y_true`` a list of sets or
   dicts, ``y_score`` a list of id sequences or dicts) are the same form in Python objects.

`_Queries` keeps the candidates of every query as flat arrays, the relevance of judged items
that were never scored, and, for sparse truth, the stored entries instead of a dense copy.
Excluded items are removed here, once. Nothing is sorted by score: the kernel does that.
"""

from collections.abc import Mapping, Sequence, Set
from dataclasses import dataclass

import numpy as np
import scipy.sparse

from ._tables import ItemJudgments, ItemRanking, _first_missing, _id_array
from ._validation import (_as_float_array, _as_score_array, _check_finite, _python_value,
                          _shown)

_BLOCK = 1 << 16  # ranked items joined per block of top-N rows

@dataclass(frozen=True)
class _Queries:
    """Candidates of every query, unsorted.

    score : (n_entries,) float64 candidates' scores; for matrices, row-major (excluded
        entries set to -inf, so they rank after every candidate and are never kept).
    n_cand : (n_queries,) number of candidates per query.
    codes : (n_entries,) query index of each entry, or None for matrices.
    width : items per query for matrices (entry = row * width + column).
    rel : (n_entries,) candidates' relevance, or None when the truth is sparse.
    truth_keys, truth_rel : sparse truth, its stored entries as sorted entry numbers.
    excluded : matrices only, a flat mask of excluded entries.
    extra_codes, extra_rel : judged items that were never scored (item forms).
    n_rows : rows of long-format input, for validating per-row weights.
    descending_ties : matrices only, break ties by column descending.
    ranked : matrices only, columns are ranks (top-N ids): no scores, no ties; score None.
    """

    n_queries: int
    score: np.ndarray
    n_cand: np.ndarray
    codes: np.ndarray | None = None
    width: int | None = None
    rel: np.ndarray | None = None
    truth_keys: np.ndarray | None = None
    truth_rel: np.ndarray | None = None
    excluded: np.ndarray | None = None
    extra_codes: np.ndarray | None = None
    extra_rel: np.ndarray | None = None
    n_rows: int | None = None
    descending_ties: bool = False
    ranked: bool = False

    @property
    def dense_score(self):
        return self.score.reshape(self.n_queries, self.width)

    def candidate_rel(self, index):
        """Relevance of the candidates at entry numbers ``index``."""
        if self.rel is not None:  # integer and boolean labels are kept as given
            return self.rel[index].astype(np.float64, copy=False)
        keys, size = self.truth_keys, self.truth_keys.size
        if size == 0:
            return np.zeros(len(index))
        pos = np.minimum(np.searchsorted(keys, index), size - 1)
        return np.where(keys[pos] == index, self.truth_rel[pos], 0.0)

    def nonzero_candidates(self, index):
        """Positions in ``index`` of candidates with non-zero relevance."""
        keep = (self.rel != 0)[index] if self.rel is not None else self.candidate_rel(index) != 0
        if self.excluded is not None:
            keep &= ~self.excluded[index]
        return np.flatnonzero(keep)

    def nonzero_entries(self, low, high):
        """Entry numbers in [low, high) of candidates with non-zero relevance (matrices)."""
        entries, _rel = self._matrix_nonzero()
        a, b = np.searchsorted(entries, [low, high])
        return entries[a:b]

    def _matrix_nonzero(self):
        """Sorted entry numbers and relevance of a matrix's non-zero, non-excluded cells.

        Computed once per input: both the kernel's blocks and the truth side read it.
        """
        cached = self.__dict__.get("_nonzero")
        if cached is None:
            if self.truth_keys is not None:
                cached = self.truth_keys, self.truth_rel
            else:
                keep = self.rel != 0
                if self.excluded is not None:
                    keep &= ~self.excluded
                entries = np.flatnonzero(keep)
                cached = entries, self.rel[entries].astype(np.float64, copy=False)
            self.__dict__["_nonzero"] = cached  # frozen: a cache, not a field
        return cached

    def judged(self):
        """(query index, relevance) of every judged item with non-zero relevance."""
        cached = self.__dict__.get("_judged")
        if cached is not None:
            return cached
        if self.width is not None:
            entries, rel = self._matrix_nonzero()
            codes = entries // self.width
        else:
            entries = np.flatnonzero(self.rel != 0)
            codes, rel = self.codes[entries], self.rel[entries].astype(np.float64, copy=False)
        if self.extra_rel is not None and self.extra_rel.size:
            keep = self.extra_rel != 0
            codes = np.concatenate((codes, self.extra_codes[keep]))
            rel = np.concatenate((rel, self.extra_rel[keep]))
        self.__dict__["_judged"] = codes, rel
        return codes, rel


def _is_list_form(y_true):
    if isinstance(y_true, (list, tuple)) and y_true:
        return all(isinstance(t, (Set, Mapping)) for t in y_true)
    return False


def _normalise(y_true, y_score, groups=None, exclude=None, *, tie_break="input",
               query_set="all", score_dtype="float64"):
    """Turn any accepted input form into a `_Queries`; return it with the query ids.

    The ids are None for matrices (queries are rows) and for ranked lists (list order).
    """
    if isinstance(y_score, ItemRanking) or isinstance(y_true, ItemJudgments):
        if groups is not None:
            raise ValueError(
                "groups must be None with ItemRanking / ItemJudgments: their rows carry "
                "their query ids already."
            )
        # A sparse truth matrix's rows are the queries, in row order, judged or not.
        rows = np.arange(y_true.shape[0]) if scipy.sparse.issparse(y_true) else None
        return _from_items(_as_judgments(y_true), _as_ranking(y_score), known_queries=rows,
                           exclude=exclude, tie_break=tie_break, query_set=query_set,
                           score_dtype=score_dtype)
    if _is_list_form(y_true):
        if groups is not None:
            raise ValueError(
                "groups must be None when y_true is a list of sets or dicts "
                "(each list element is already one query)."
            )
        truth, run = _from_lists(y_true, y_score)
        queries, _ = _from_items(truth, run, known_queries=np.arange(len(y_true)),
                                 exclude=exclude, tie_break=tie_break,
                                 query_set=query_set, score_dtype=score_dtype)
        return queries, None
    if isinstance(y_true, (list, tuple)) and any(isinstance(t, (Set, Mapping)) for t in y_true):
        raise ValueError(
            "y_true mixes sets/dicts with other values; in the ranked-list form every element "
            "must be a set of relevant item ids or a dict item id -> relevance."
        )
    if scipy.sparse.issparse(y_score):
        raise TypeError(
            "y_score is a scipy.sparse matrix; scores must be dense (every candidate needs "
            "a score). For top-N item ids use ItemRanking.from_topn(ids)."
        )
    sparse = scipy.sparse.issparse(y_true)
    # Labels keep their numeric type (no float copy of a whole matrix); only the few
    # entries the metrics read are converted.
    true = y_true if sparse else _as_float_array("y_true", y_true, keep_numeric=True)
    score = _as_score_array("y_score", y_score)
    if sparse or score.ndim == 2:
        if groups is not None:
            raise ValueError(
                "groups must be None for 2-D y_true and y_score (each row is one query); "
                "pass 1-D arrays to use groups."
            )
        return _from_matrices(true, score, exclude, tie_break, score_dtype), None
    if tie_break != "input":
        raise ValueError(
            f"tie_break={tie_break!r} needs item ids: long-format rows have none. Pass "
            "ItemRanking / ItemJudgments, ranked lists or matrices, or tie_break='input'."
        )
    if exclude is not None:
        raise ValueError(
            "exclude needs items: pass matrices (queries x items), ItemRanking with integer "
            "item ids, or ranked lists; long-format rows have no item ids."
        )
    return _from_long(true, score, groups, score_dtype)


def _scores_as(score, score_dtype):
    """Scores as float64 for the kernel, read as ``score_dtype`` says.

    Integer scores beyond 2**53 (nanosecond timestamps, hashes) would round to equal
    neighbours in float64: they become their ranks, which float64 holds exactly. Under
    float32 they are rounded as the tools that read float32 do.
    """
    if score.dtype.kind in "iu":
        if score_dtype == "float64" and score.size and (
                score.max() > 2 ** 53 or score.min() < -(2 ** 53)):
            return np.unique(score, return_inverse=True)[1].reshape(score.shape).astype(
                np.float64)
        score = score.astype(np.float64)
    # trec_eval 9.x and XGBoost read scores as float32: scores equal in float32 then tie.
    if score_dtype == "float32":
        with np.errstate(over="ignore"):
            rounded = score.astype(np.float32).astype(np.float64)
        _check_finite("y_score as float32 (score_dtype='float32')", rounded)
        return rounded
    return score


def _from_long(true, score, groups, score_dtype):
    if true.shape != score.shape:
        raise ValueError(
            f"y_true and y_score must have the same shape; got {true.shape} and {score.shape}."
        )
    _check_finite("y_true", true)
    _check_finite("y_score", score)
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
    codes, ids = _factorize(groups, true.size)
    return (
        _Queries(n_queries=len(ids), score=_scores_as(score, score_dtype), rel=true,
                 codes=codes, n_cand=np.bincount(codes, minlength=len(ids)),
                 n_rows=true.size),
        ids,
    )


def _from_matrices(true, score, exclude, tie_break, score_dtype):
    sparse = scipy.sparse.issparse(true)
    if sparse:
        if true.dtype.kind not in "biuf":  # scipy would drop imaginary parts with a warning
            raise ValueError(
                f"y_true must contain real numbers; got a sparse matrix of dtype {true.dtype}."
            )
        true = scipy.sparse.csr_matrix(true, dtype=np.float64, copy=True)  # never the caller's
    if true.shape != score.shape:
        raise ValueError(
            f"y_true and y_score must have the same shape; got {true.shape} and {score.shape}."
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
    _check_finite("y_score", score)
    fields = {}
    if sparse:
        true.sum_duplicates()
        true.eliminate_zeros()
        _check_finite("y_true", true.data)
        rows = np.repeat(np.arange(n_queries), np.diff(true.indptr))
        fields["truth_keys"] = rows * np.int64(width) + true.indices
        fields["truth_rel"] = true.data
    else:
        _check_finite("y_true", true)
        fields["rel"] = np.ascontiguousarray(true).ravel()
    score = _scores_as(np.ascontiguousarray(score).ravel(), score_dtype)
    n_cand = np.full(n_queries, width, dtype=np.int64)
    if exclude is not None:
        excluded = _dense_mask(exclude, (n_queries, width))
        n_cand = n_cand - excluded.sum(axis=1)
        score = np.where(excluded.ravel(), -np.inf, score)
        fields["excluded"] = excluded.ravel()
        if sparse:
            keep = ~fields["excluded"][fields["truth_keys"]]
            fields["truth_keys"] = fields["truth_keys"][keep]
            fields["truth_rel"] = fields["truth_rel"][keep]
    return _Queries(n_queries=n_queries, score=score, n_cand=n_cand, width=width,
                    descending_ties=tie_break == "item_descending", **fields)


def _dense_mask(exclude, shape):
    """``exclude`` (dense or sparse, queries x items) as a dense boolean mask."""
    if scipy.sparse.issparse(exclude):
        if exclude.shape != shape:
            raise ValueError(f"exclude must have the shape of y_score {shape}; got {exclude.shape}.")
        coo = scipy.sparse.coo_matrix(exclude)
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


def _sparse_keys(exclude):
    """Entry numbers (row * n_columns + column) of the excluded (query, item) pairs."""
    coo = scipy.sparse.coo_matrix(exclude)
    if int(coo.shape[0]) * int(coo.shape[1]) >= 2 ** 63:
        # Keys row * n_columns + column would wrap around in int64 and collide.
        raise ValueError(
            f"exclude has shape {coo.shape}: rows x columns must be below 2**63; use "
            "query and item ids numbered from 0 (ItemRanking with row numbers)."
        )
    coo.sum_duplicates()
    keep = coo.data != 0
    return coo.row[keep].astype(np.int64) * np.int64(coo.shape[1]) + coo.col[keep], coo.shape


def _as_judgments(y_true):
    if isinstance(y_true, ItemJudgments):
        return y_true
    if scipy.sparse.issparse(y_true):
        return ItemJudgments.from_sparse(y_true)
    raise ValueError(
        "With y_score an ItemRanking, y_true must be an ItemJudgments or a scipy.sparse "
        f"matrix (queries x items); got {type(y_true).__name__}."
    )


def _as_ranking(y_score):
    if isinstance(y_score, ItemRanking):
        return y_score
    raise ValueError(
        "With y_true an ItemJudgments, y_score must be an ItemRanking (ItemRanking(queries, "
        f"items, scores) or ItemRanking.from_topn(ids)); got {type(y_score).__name__}."
    )


def _concat_ids(parts):
    """Concatenate id arrays without turning 1 into "1" or 2**53 + 1 into a float."""
    kinds = {p.dtype.kind for p in parts if p.size}
    if len(kinds) > 1:
        fits_int64 = kinds <= set("iu") and all(
            p.dtype.kind == "i" or not p.size or p.max() < 2 ** 63 for p in parts)
        parts = [p.astype(np.int64 if fits_int64 else object) for p in parts]
    return np.concatenate(parts)


def _from_items(truth, run, *, known_queries=None, exclude=None, tie_break="input",
                query_set="all", score_dtype="float64"):
    """Join a run with its judgments by (query, item) keys, vectorised.

    Queries are numbered once, first (``known_queries`` first: rows of a sparse truth
    matrix, list positions), so that exclusion never renumbers them; ``query_set`` then
    keeps a subset of them in the same order.
    """
    if _topn_applies(truth, run, known_queries, exclude, query_set):
        return _from_topn(truth, run._topn), known_queries
    run_q, run_i, score = run.queries, run.items, run.scores
    if score is None:
        score = -np.arange(run_q.size, dtype=np.float64)  # row order is rank order
    true_q, true_i, rel = truth.queries, truth.items, truth.relevance
    if _are_row_numbers(known_queries, true_q, run_q):
        # Queries are the rows 0..n-1 of a matrix: each id is its own code already.
        ids, true_code, run_code = known_queries, true_q.astype(np.int64), run_q.astype(np.int64)
    else:
        parts = [true_q, run_q] if known_queries is None else [known_queries, true_q, run_q]
        codes, ids = _factorize(_concat_ids(parts), sum(p.size for p in parts))
        start = codes.size - true_q.size - run_q.size
        true_code, run_code = codes[start:start + true_q.size], codes[start + true_q.size:]
    if query_set != "all":
        # "judged": only queries with judgments (trec_eval -c); "both": only queries also
        # in the run (trec_eval's default).
        kept = np.zeros(len(ids), dtype=bool)
        kept[true_code] = True
        if query_set == "both":
            ranked = np.zeros(len(ids), dtype=bool)
            ranked[run_code] = True
            kept &= ranked
        renumber = np.cumsum(kept) - 1
        keep_run, keep_true = kept[run_code], kept[true_code]
        run_q, run_i, score, run_code = (a[keep_run] for a in (run_q, run_i, score, run_code))
        true_q, true_i, rel, true_code = (
            a[keep_true] for a in (true_q, true_i, rel, true_code))
        run_code, true_code, ids = renumber[run_code], renumber[true_code], ids[kept]
    if exclude is not None:
        (run_q, run_i, score, run_code), (true_q, true_i, rel, true_code) = _exclude_items(
            exclude, (run_q, run_i, score, run_code), (true_q, true_i, rel, true_code))
    true_item, run_item, n_items = _item_codes(true_i, run_i)
    true_key = true_code * n_items + true_item
    run_key = run_code * n_items + run_item
    _refuse_duplicates(true_key, true_q, true_i, "y_true judges")
    _refuse_duplicates(run_key, run_q, run_i, "y_score ranks")

    order = np.argsort(true_key)
    sorted_key = true_key[order]
    cand_rel = np.zeros(run_key.size)
    matched = np.zeros(true_key.size, dtype=bool)
    if sorted_key.size:
        pos = np.minimum(np.searchsorted(sorted_key, run_key), sorted_key.size - 1)
        found = sorted_key[pos] == run_key
        cand_rel[found] = rel[order[pos[found]]]
        matched[order[pos[found]]] = True
    if tie_break == "item_descending":
        # trec_eval breaks score ties by document id, compared as strings, descending;
        # the kernel's stable sort keeps this row order within ties. Only the distinct
        # ids are turned into strings.
        distinct, which = np.unique(run_i, return_inverse=True)
        text_rank = np.empty(distinct.size, dtype=np.int64)
        text_rank[np.argsort(distinct.astype(str), kind="stable")] = np.arange(distinct.size)
        rows = np.argsort(-text_rank[which.ravel()], kind="stable")
        run_code, score, cand_rel = run_code[rows], score[rows], cand_rel[rows]
    n_queries = len(ids)
    if n_queries == 0:
        raise ValueError(
            "No query left to evaluate: " + ("the judgments and the run share no query "
            f"(query_set={query_set!r})." if query_set != "all" else "both inputs are empty.")
        )
    return (
        _Queries(n_queries=n_queries, score=_scores_as(score, score_dtype), rel=cand_rel,
                 codes=run_code, n_cand=np.bincount(run_code, minlength=n_queries),
                 extra_codes=true_code[~matched], extra_rel=rel[~matched]),
        ids,
    )


def _topn_applies(truth, run, known_queries, exclude, query_set):
    """Whether a top-N matrix of integer ids meets truth on the same row-numbered queries.

    Then the ranking is the matrix itself (queries x ranks) and only the truth needs
    joining; exclusion and query subsets take the general path.
    """
    top = run._topn
    if top is None or exclude is not None or query_set != "all" or known_queries is None:
        return False
    if known_queries.size != top.shape[0] or truth.items.dtype.kind not in "iu":
        return False
    if top.size == 0:  # no ranked item at all: the general path says so
        return False
    if not _are_row_numbers(known_queries, truth.queries):
        return False
    return all(not a.size or (a.min() >= 0 and a.max() < 2 ** 31) for a in (top, truth.items))


def _from_topn(truth, top):
    """A `_Queries` of rank-ordered columns from a top-N id matrix and its judgments.

    Each block of rows joins its (row, item) keys with that block's judgments only, so
    no array of one value per ranked item is ever made.
    """
    n_queries, width = top.shape
    true_q = truth.queries.astype(np.int64, copy=False)
    rel = truth.relevance
    # Python ints: the largest id of a narrow or unsigned type must not wrap.
    n_items = np.int64(max(int(top.max(initial=0)), int(truth.items.max(initial=0))) + 1)
    true_key = true_q * n_items + truth.items
    if true_key.size > 1 and not np.all(true_key[1:] > true_key[:-1]):
        _refuse_duplicates(true_key, truth.queries, truth.items, "y_true judges")
        order = np.argsort(true_key)
        true_key, true_q, rel = true_key[order], true_q[order], rel[order]
    bounds = np.searchsorted(true_key, np.arange(n_queries + 1) * n_items)
    matched = np.zeros(true_key.size, dtype=bool)
    entries, values = [], []
    step = max(1, _BLOCK // width)
    for first in range(0, n_queries, step):
        block = top[first:first + step]
        # Each row's ids in order: duplicates sit side by side, and (row, id) keys of the
        # whole block come out sorted, so the block's sorted judgments search them in
        # one pass.
        order = np.argsort(block, axis=1)
        items = np.take_along_axis(block, order, axis=1)
        same = np.flatnonzero((items[:, 1:] == items[:, :-1]).ravel())
        if same.size:
            row, at = divmod(int(same[0]), width - 1)
            raise _repeated_item("y_score ranks", items[row, at].item(), first + row)
        low, high = bounds[first], bounds[first + block.shape[0]]
        if low == high:
            continue
        keys = (np.arange(first, first + block.shape[0], dtype=np.int64)[:, None] * n_items
                + items).ravel()
        at = np.minimum(np.searchsorted(keys, true_key[low:high]), keys.size - 1)
        found = np.flatnonzero(keys[at] == true_key[low:high])
        judged, at = found + low, at[found]
        matched[judged] = True
        entry = (first + at // width) * np.int64(width) + order.ravel()[at]
        keep = np.flatnonzero(rel[judged] != 0)
        by_entry = np.argsort(entry[keep])
        entries.append(entry[keep][by_entry])
        values.append(rel[judged][keep][by_entry])
    empty = np.zeros(0, dtype=np.int64)
    return _Queries(
        n_queries=n_queries, score=None, n_cand=np.full(n_queries, width, dtype=np.int64),
        width=width, truth_keys=np.concatenate(entries) if entries else empty,
        truth_rel=np.concatenate(values) if values else np.zeros(0),
        extra_codes=true_q[~matched], extra_rel=rel[~matched], ranked=True,
    )


def _are_row_numbers(known_queries, *others):
    """Whether the known queries are 0..n-1 and every other query id is one of them."""
    if known_queries is None or known_queries.dtype.kind not in "iu":
        return False
    n = known_queries.size
    if not np.array_equal(known_queries, np.arange(n)):
        return False
    return all(ids.dtype.kind in "iu" and (not ids.size or (ids.min() >= 0 and ids.max() < n))
               for ids in others)


def _item_codes(true_items, run_items):
    """Integer codes for the item ids of both sides; only equality matters, not order.

    Small non-negative integer ids (column numbers, top-N ids) are their own codes, which
    spares a sort and its copies of every id.
    """
    if true_items.dtype.kind in "iu" and run_items.dtype.kind in "iu":
        low = min(true_items.min(initial=0), run_items.min(initial=0))
        high = max(true_items.max(initial=0), run_items.max(initial=0))
        if low >= 0 and high < 2 ** 31:
            return true_items.astype(np.int64, copy=False), run_items.astype(np.int64, copy=False), np.int64(int(high) + 1)
    codes, items = _factorize(_concat_ids([true_items, run_items]),
                              true_items.size + run_items.size, "item ids")
    return codes[: true_items.size], codes[true_items.size:], np.int64(max(len(items), 1))


def _refuse_duplicates(keys, queries, items, what):
    order = np.argsort(keys, kind="stable")
    same = np.flatnonzero(keys[order][1:] == keys[order][:-1])
    if same.size:
        row = order[same[0] + 1]
        raise _repeated_item(what, _python_value(items[row]), _python_value(queries[row]))


def _repeated_item(what, item, query):
    return ValueError(
        f"{what} item {item!r} more than once for query {query!r}; each item may appear "
        "once per query."
    )


def _exclude_items(exclude, run, truth):
    """Drop excluded (query, item) pairs from the run and the truth.

    ``exclude`` is a matrix (queries x items): it needs integer query and item ids, the
    row and column numbers.
    """
    keys, shape = _sparse_keys(exclude)
    kept = []
    for name, (queries, items, values, codes) in (("y_score", run), ("y_true", truth)):
        for label, ids, limit in (("query", queries, shape[0]), ("item", items, shape[1])):
            if ids.size and (ids.dtype.kind not in "iu" or ids.min() < 0 or ids.max() >= limit):
                raise ValueError(
                    f"exclude is a {shape[0]} x {shape[1]} matrix: {name}'s {label} ids must "
                    f"be integers in [0, {limit}) to index it."
                )
        key = queries.astype(np.int64) * np.int64(shape[1]) + items
        keep = ~np.isin(key, keys)
        kept.append((queries[keep], items[keep], values[keep], codes[keep]))
    return kept

def _factorize(groups, n_rows, name="groups"):
    """Integer codes for ids, numbered in order of first appearance.

    ``n_rows`` None accepts any length.
    """
    if (hasattr(groups, "to_numpy") and isinstance(getattr(groups, "dtype", None), np.dtype)
            and not isinstance(groups, np.ndarray)):
        # A numpy-backed pandas column has one type already: no Python pass over the ids.
        # (Nullable and other extension columns take the list path, which keeps <NA>.)
        groups = groups.to_numpy()
    if not isinstance(groups, np.ndarray):
        if (isinstance(groups, (str, bytes, Set, Mapping))
                or not hasattr(groups, "__iter__")):  # sets have no row order
            raise ValueError(
                f"{name} must be a 1-D array-like with one query id per row; got "
                f"{_shown(groups)}."
            )
        # Mixed ids (1 and "1") must not become strings, nor tuple ids columns.
        groups = _id_array(list(groups))
        if groups.dtype == object and groups.size and all(
                isinstance(v, (list, np.ndarray)) for v in groups):
            raise ValueError(
                f"{name} must be 1-D with one query id per row; got a nested sequence "
                f"(row 0 is {groups[0]!r})."
            )
    ids = groups
    if ids.ndim != 1 or (n_rows is not None and ids.shape[0] != n_rows):
        rows = "" if n_rows is None else f" ({n_rows} rows)"
        raise ValueError(
            f"{name} must be 1-D with one query id per row{rows}; got shape {ids.shape}."
        )
    row = _first_missing(ids)
    if row is not None:
        shown = "NaN" if ids.dtype.kind == "f" else repr(ids[row])
        what = "NaN" if ids.dtype.kind == "f" else "None or NaN"
        raise ValueError(f"{name} must not contain {what}; got {shown} at row {row}.")
    if ids.dtype.kind == "c" or ids.dtype.kind == "V":
        raise ValueError(f"{name} must hold numbers or strings; got dtype {ids.dtype}.")
    if ids.dtype == object:
        return _factorize_objects(ids, name)
    if ids.size == 0:
        return np.zeros(0, dtype=np.int64), ids
    # One unstable sort groups equal ids; each id's first row is the least row number of
    # its run. (np.unique's return_index would need a stable sort, about 3x slower.)
    by_id = np.argsort(ids)
    ranked = ids[by_id]
    new = np.ones(ids.size, dtype=bool)
    np.not_equal(ranked[1:], ranked[:-1], out=new[1:])
    runs = np.flatnonzero(new)
    order = np.argsort(np.minimum.reduceat(by_id, runs))
    distinct = ranked[runs][order]
    del ranked  # in place from here on: the peak stays a few arrays of one id per row
    rank = np.empty(order.size, dtype=np.int64)
    rank[order] = np.arange(order.size)
    group = np.cumsum(new, dtype=np.int64)
    group -= 1
    np.take(rank, group, out=group)
    codes = np.empty(ids.size, dtype=np.int64)
    codes[by_id] = group
    return codes, distinct


def _factorize_objects(ids, name="groups"):
    # Object ids may mix types that numpy cannot sort, so number them with a dict.
    table = {}
    codes = np.empty(ids.size, dtype=np.int64)
    for row, value in enumerate(ids):  # None and NaN were refused by _factorize
        try:
            codes[row] = table.setdefault(value, len(table))
        except TypeError:
            raise ValueError(
                f"{name} must hold hashable ids; got {type(value).__name__} at row {row}."
            ) from None
    unique = np.empty(len(table), dtype=object)
    unique[:] = list(table)
    return codes, unique


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
    from ._evaluate import _resolve_conventions  # the presets live there

    chosen = _resolve_conventions(convention, {"query_set": query_set})["query_set"]
    queries, ids = _normalise(y_true, y_score, query_set=chosen)
    return np.arange(queries.n_queries) if ids is None else ids


def _from_lists(truth, rankings):
    """Ranked-list form: flatten the Python objects (one pass) into judgments and a run."""
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
    true_q, true_i, true_rel, run_q, run_i, run_score = [], [], [], [], [], []
    for q, (judged, ranked) in enumerate(zip(truth, rankings)):
        gains = _truth_gains(judged, q)
        true_q.extend([q] * len(gains))
        true_i.extend(gains)
        true_rel.extend(gains.values())
        items, scores = _ranking_items(ranked, q)
        run_q.extend([q] * len(items))
        run_i.extend(items)
        run_score.extend(scores)
    return (ItemJudgments(np.asarray(true_q, dtype=np.int64), _id_array(true_i), true_rel),
            ItemRanking(np.asarray(run_q, dtype=np.int64), _id_array(run_i), run_score))


def _finite_number(value, where, item, what):
    if (isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.number))
            or not np.isfinite(value)):
        raise ValueError(f"{where} maps item {item!r} to {value!r}; {what} must be a finite number.")
    return float(value)


def _truth_gains(judged, q):
    if isinstance(judged, Mapping):
        return {item: _finite_number(value, f"y_true[{q}]", item, "relevance")
                for item, value in judged.items()}
    return dict.fromkeys(judged, 1.0)


def _ranking_items(ranked, q):
    if isinstance(ranked, Mapping):
        items = list(ranked)
        return items, [_finite_number(ranked[item], f"y_score[{q}]", item, "a score")
                       for item in items]
    if isinstance(ranked, (str, bytes)) or not isinstance(ranked, (Sequence, np.ndarray)):
        raise ValueError(
            f"y_score[{q}] must be a sequence of item ids in rank order or a dict item id -> "
            f"score; got {type(ranked).__name__}."
        )
    items = list(ranked.tolist() if isinstance(ranked, np.ndarray) else ranked)
    # Rank order is the only information: position p gets score -p, no ties.
    return items, [-float(p) for p in range(len(items))]
