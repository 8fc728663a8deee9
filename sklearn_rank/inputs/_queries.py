"""`_Queries`: the one internal representation every input form is normalised into.

It keeps the candidates of every query as flat arrays, the relevance of judged items that
were never scored, and, for sparse truth, the stored entries instead of a dense copy.
Excluded items are removed before it is built. Nothing is sorted by score: the kernel
(`sklearn_rank.metrics._kernel`) does that.
"""

from dataclasses import dataclass

import numpy as np

from ..utils._validation import _check_finite


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
    relevance_ties : break ties by relevance ascending, then input order (relevant last).
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
    relevance_ties: bool = False
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
