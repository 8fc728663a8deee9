"""`_Queries`: the one internal representation every input form is normalised into.

It keeps the candidates of every query as flat arrays, the relevance of judged items that
were never scored, and, for sparse truth, the stored entries instead of a dense copy.
Excluded items are removed before it is built. Nothing is sorted by score: the kernel
(`sklearn_rank.metrics._kernel`) does that.
"""

import dataclasses
from dataclasses import dataclass

import numpy as np

from ..utils._validation import _check_finite

# Caches a `_Queries` keeps in its __dict__ (it is frozen), all of the truth side.
_TRUTH_CACHES = ("_judged_cells", "_n_judged", "_nonzero", "_judged", "_relevance_range")


@dataclass(frozen=True)
class _Queries:
    """Candidates of every query, unsorted.

    score : (n_entries,) float64 candidates' scores; for matrices, row-major (excluded
        entries set to -inf, so they rank after every candidate and are never kept).
    n_cand : (n_queries,) number of candidates per query (read-only: for matrices without
        exclusions, one value broadcast to every query, which takes no memory).
    codes : (n_entries,) query index of each entry, or None for matrices.
    width : items per query for matrices (entry = row * width + column).
    rel : (n_entries,) candidates' relevance, or None when the truth is sparse.
    truth_keys, truth_rel : sparse truth, its stored entries as sorted entry numbers.
    excluded : matrices only, a flat mask of excluded entries.
    extra_codes, extra_rel : judged items that were never scored (item forms).
    n_rows : rows of long-format input, for validating per-row weights.
    descending_ties : matrices only, break ties by column descending.
    relevance_ties : break ties by relevance ascending, then input order (relevant last).
    ranked : matrices only, columns are ranks (top-N ids): no scores, no ties; score None.
    judged_mask : (n_entries,) bool, item forms: whether each candidate is judged (in the
        truth, relevance 0 included). None: every candidate with a ``rel`` is judged
        (matrices, long format), or, for sparse truth, exactly the stored entries.
    zero_keys : top-N matrices: sorted entry numbers of candidates judged 0.
    n_cand_unexcluded : (n_queries,) item forms with ``exclude``: the candidates of each
        query before exclusion (a top-N list cut before the training items were removed
        is warned about); None otherwise, and in blocks of queries.
    side : side inputs (``conventions._side_inputs``), name -> (n_entries,) float64 aligned
        with the entries (matrices and long format only); None: none given.

    Judged non-relevant (judged 0) and unjudged (absent from the truth) candidates both
    have relevance 0; only bpref, infAP, Judged@k and the like tell them apart, through
    ``judged_mask`` / ``zero_keys`` (the kernel's ``judged`` flag).
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
    relevance_ties: bool = False
    ranked: bool = False
    judged_mask: np.ndarray | None = None
    zero_keys: np.ndarray | None = None
    n_cand_unexcluded: np.ndarray | None = None
    side: dict | None = None

    def with_scores(self, score):
        """These queries with other scores: ``score`` float64, one per entry, checked by
        the caller (`inputs._prepared._with_scores`). The caches of the truth side (judged
        items, non-zero cells) do not depend on the scores and are kept."""
        reused = dataclasses.replace(self, score=score)
        for cache in _TRUTH_CACHES:
            if cache in self.__dict__:
                reused.__dict__[cache] = self.__dict__[cache]
        return reused

    @property
    def dense_score(self):
        return self.score.reshape(self.n_queries, self.width)

    def candidate_rel(self, index):
        """Relevance of the candidates at entry numbers ``index``."""
        if _is_cached_entries(self, index):
            return self.__dict__["_nonzero"][1]  # a matrix's non-zero entries: read already
        if self.rel is not None:  # integer and boolean labels are kept as given
            return self.rel[index].astype(np.float64, copy=False)
        keys, size = self.truth_keys, self.truth_keys.size
        if size == 0:
            return np.zeros(len(index))
        pos = np.minimum(np.searchsorted(keys, index), size - 1)
        return np.where(keys[pos] == index, self.truth_rel[pos], 0.0)

    def same_entries(self, index):
        """``index``, or the equal array of entry numbers held already (a matrix's
        non-zero entries): the kernel keeps that one, and no second copy lives on."""
        return self.__dict__["_nonzero"][0] if _is_cached_entries(self, index) else index

    @property
    def all_judged(self):
        """Whether every candidate is judged (dense matrices, long format): then judged
        positions are every position, and no judged item of relevance 0 need be kept."""
        return self.rel is not None and self.judged_mask is None

    def candidate_judged(self, index):
        """Whether the candidates at entry numbers ``index`` are judged."""
        index = np.asarray(index)
        if self.rel is not None:
            if self.judged_mask is None:
                return np.ones(index.size, dtype=bool)
            return self.judged_mask[index]
        keys, _rel = self._matrix_judged()
        if keys.size == 0:
            return np.zeros(index.size, dtype=bool)
        pos = np.minimum(np.searchsorted(keys, index), keys.size - 1)
        return keys[pos] == index

    def nonzero_candidates(self, index, judged=False):
        """Positions in ``index`` of candidates with non-zero relevance (``judged``: or
        judged at all; ``index`` None: every entry, in entry order)."""
        if index is None:
            index = slice(None)
            if self.rel is not None:
                keep = self.rel != 0
            else:
                keep = self.candidate_rel(np.arange(self.score.size)) != 0
            if judged:
                keep |= self.candidate_judged(np.arange(self.score.size))
        else:
            keep = (
                (self.rel != 0)[index] if self.rel is not None else self.candidate_rel(index) != 0
            )
            if judged:
                keep |= self.candidate_judged(index)
        if self.excluded is not None:
            keep &= ~self.excluded[index]
        return np.flatnonzero(keep)

    def nonzero_entries(self, low, high, judged=False):
        """Entry numbers in [low, high) of candidates with non-zero relevance (matrices);
        ``judged``: of judged candidates, relevance 0 included."""
        if judged and self.rel is not None:  # a dense truth judges every cell
            entries = np.arange(low, high)
            return entries if self.excluded is None else entries[~self.excluded[low:high]]
        entries, _rel = self._matrix_judged() if judged else self._matrix_nonzero()
        a, b = np.searchsorted(entries, [low, high])
        return entries[a:b]

    def _matrix_judged(self):
        """Sorted entry numbers and relevance of a stored truth's judged cells (sparse
        truth: its stored entries; top-N ids: also those judged 0)."""
        cached = self.__dict__.get("_judged_cells")
        if cached is None:
            entries, rel = self._matrix_nonzero()
            if self.zero_keys is not None and self.zero_keys.size:
                entries = np.concatenate((entries, self.zero_keys))
                rel = np.concatenate((rel, np.zeros(self.zero_keys.size)))
                order = np.argsort(entries, kind="stable")
                entries, rel = entries[order], rel[order]
            cached = entries, rel
            self.__dict__["_judged_cells"] = cached
        return cached

    def n_judged(self):
        """Per query: the number of judged items, relevance 0 included, scored or not."""
        cached = self.__dict__.get("_n_judged")
        if cached is not None:
            return cached
        if self.rel is not None and self.judged_mask is None:
            count = self.n_cand  # dense truth and long format: all (no copy: read-only use)
        elif self.rel is not None:
            count = np.bincount(self.codes[self.judged_mask], minlength=self.n_queries)
        else:
            entries, _rel = self._matrix_judged()
            count = np.bincount(entries // self.width, minlength=self.n_queries)
        if self.extra_codes is not None and self.extra_codes.size:
            count = count + np.bincount(self.extra_codes, minlength=self.n_queries)
        self.__dict__["_n_judged"] = count
        return count

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
            codes = entries if self.width == 1 else entries // self.width
        else:
            entries = np.flatnonzero(self.rel != 0)
            rel = self.rel[entries].astype(np.float64, copy=False)
            codes = _same_values(self.codes[entries], entries)
            if codes is entries:  # one row per query: the kernel keeps these very entries,
                self.__dict__.setdefault("_nonzero", (entries, rel))  # and finds them here
        if self.extra_rel is not None and self.extra_rel.size:
            keep = self.extra_rel != 0
            codes = np.concatenate((codes, self.extra_codes[keep]))
            rel = np.concatenate((rel, self.extra_rel[keep]))
        self.__dict__["_judged"] = codes, rel
        return codes, rel


def _is_cached_entries(queries, index):
    """Whether ``index`` holds the entry numbers of the matrix's non-zero entries, in
    order (the first 64 compared first: most other arrays differ there)."""
    cached = queries.__dict__.get("_nonzero")
    if cached is None or cached[0].size != len(index):
        return False
    if cached[0] is index:
        return True
    head = min(len(index), 64)
    return np.array_equal(cached[0][:head], index[:head]) and np.array_equal(cached[0], index)


def _same_values(values, other):
    """``other`` where it holds the same values as ``values`` (one array kept, not two)."""
    if values.shape != other.shape or values.dtype != other.dtype:
        return values
    head = min(values.size, 64)
    if np.array_equal(values[:head], other[:head]) and np.array_equal(values, other):
        return other
    return values


def _scores_as(score, score_dtype):
    """Scores as float64 for the kernel, read as ``score_dtype`` says.

    Integer scores beyond 2**53 (nanosecond timestamps, hashes) would round to equal
    neighbours in float64: they become their ranks, which float64 holds exactly. Under
    float32 they are rounded as the tools that read float32 do.
    """
    if score.dtype.kind in "iu":
        if (
            score_dtype == "float64"
            and score.size
            and (score.max() > 2**53 or score.min() < -(2**53))
        ):
            return np.unique(score, return_inverse=True)[1].reshape(score.shape).astype(np.float64)
        score = score.astype(np.float64)
    # trec_eval 9.x and XGBoost read scores as float32: scores equal in float32 then tie.
    if score_dtype == "float32":
        with np.errstate(over="ignore"):
            rounded = score.astype(np.float32).astype(np.float64)
        _check_finite("y_score as float32 (score_dtype='float32')", rounded)
        return rounded
    return score
