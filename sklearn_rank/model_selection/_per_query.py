"""Out-of-fold per-query values of cross-validation and searches, recorded by the scorers.

A ranking scorer computes every test query's value before it averages them; during a
grouped search or `grouped_cross_validate` it also keeps them, with their query ids and
the candidate's parameters, so that candidates can be compared query by query
(`sklearn_rank.compare_search`) without fitting anything again.

scikit-learn runs the fits in worker processes under ``n_jobs``, and only the scores come
back. So the score is a `_RecordedScore`, a float that carries its per-query values:
unpickled in the process that runs the search, it hands them to that process's recording
(`_restore`); called in that process (``n_jobs=1``, threads) the scorer hands them over
directly. scikit-learn then stores the score as the plain float it is. The first call of
a scorer on a fitted model is its test fold (scikit-learn scores the training rows after,
with ``return_train_score``): only that call is recorded.
"""

import contextlib
import copy
import threading
import uuid
import weakref

import numpy as np

from ..utils._ids import _concat_ids, _factorize

_LOCK = threading.Lock()
_SESSIONS = {}  # token -> list of records, in the process that runs the search
_SEEN = weakref.WeakKeyDictionary()  # fitted model -> labels it was scored for
_NOT_WEAK = []  # (model, label) of models that take no weak reference (rare)


class _RecordedScore(float):
    """A scorer's value that carries the per-query values it was computed from."""

    def __new__(cls, value, token, record):
        score = super().__new__(cls, value)
        score._token, score._record = token, record
        return score

    def __reduce__(self):
        return _restore, (float(self), self._token, self._record)


def _restore(value, token, record):
    """Unpickling a `_RecordedScore`: its record joins the recording of this process,
    if this process runs that search; the score becomes a plain float."""
    _add(token, record)
    return value


def _add(token, record):
    with _LOCK:
        session = _SESSIONS.get(token)
        if session is not None:
            session.append(record)


def _first_call(model, label):
    """Whether this is the first time the scorer ``label`` scores this fitted model."""
    with _LOCK:
        try:
            labels = _SEEN.setdefault(model, set())
        except TypeError:  # no weak reference: keep the model alive while the search runs
            if any(m is model and seen == label for m, seen in _NOT_WEAK):
                return False
            _NOT_WEAK.append((model, label))
            return True
        if label in labels:
            return False
        labels.add(label)
        return True


def _recorded(recording, estimator, ids, values, score):
    """The score to return from a recording scorer, its record handed over.

    recording : (token, label, parameter names) set by `_recording`.
    """
    token, label, names = recording
    if not _first_call(estimator, (token, label)):
        return score
    params = estimator.get_params(deep=True) if names else {}
    candidate = tuple(params.get(name) for name in names)
    record = (label, candidate, ids, values)
    _add(token, record)
    return _RecordedScore(score, token, record)


@contextlib.contextmanager
def _recording(scoring, parameter_names=()):
    """Copies of the ranking scorers of ``scoring`` that record per-query values.

    Yields ``(scoring, records)``: the scoring to give scikit-learn, and the list that
    fills with (label, candidate parameter values, query ids, values) records. Labels are
    the keys of a dict of scorers, or the scorer's name.
    """
    token = uuid.uuid4().hex
    names = tuple(parameter_names)

    def recording(scorer, label):
        if not hasattr(scorer, "_record"):  # not a RankingScorer
            return scorer
        scorer = copy.copy(scorer)
        scorer._record = (token, label, names)
        return scorer

    if isinstance(scoring, dict):
        recorded = {key: recording(scorer, key) for key, scorer in scoring.items()}
    else:
        recorded = recording(scoring, getattr(scoring, "name", None))
    records = []
    with _LOCK:
        _SESSIONS[token] = records
    try:
        yield recorded, records
    finally:
        with _LOCK:
            del _SESSIONS[token]
            _NOT_WEAK[:] = [(m, seen) for m, seen in _NOT_WEAK if seen[0] != token]
        for scorer in recorded.values() if isinstance(recorded, dict) else [recorded]:
            if hasattr(scorer, "_record"):
                scorer._record = None  # a later search.score records nothing


def _candidate_key(values):
    return repr(values)


def _out_of_fold(records, query_ids, candidates=None):
    """Average each candidate's recorded values of each query over its test folds.

    Parameters
    ----------
    records : list of (label, candidate parameter values, query ids, values)
    query_ids : ndarray of shape (n_queries,)
        Every query id, distinct (the search's groups, factorized).
    candidates : list of tuple, default=None
        The parameter values of each candidate (in ``cv_results_`` order); None: one.

    Returns
    -------
    dict
        ``"query"`` -> the ids; each label -> ndarray of shape (n_queries,
        n_candidates) (``(n_queries,)`` when ``candidates`` is None): the mean over the
        query's test folds, NaN where it has none (a failed fit, or NaN values).
    """
    n_queries = query_ids.size
    single = candidates is None
    candidates = [()] if candidates is None else list(candidates)
    owners = {}
    for index, values in enumerate(candidates):
        owners.setdefault(_candidate_key(values), []).append(index)
    size = len(candidates) * n_queries
    result = {"query": query_ids}
    for label in dict.fromkeys(record[0] for record in records):
        chosen = [record for record in records if record[0] == label]
        sizes = [record[2].size for record in chosen]
        # The search's ids first: each recorded id gets its position among them.
        everything = _concat_ids([query_ids, *(record[2] for record in chosen)])
        codes = _factorize(everything, n_queries + sum(sizes))[0][n_queries:]
        cells, values = [], []
        for record, positions in zip(chosen, np.split(codes, np.cumsum(sizes)[:-1])):
            kept = ~np.isnan(record[3])
            for candidate in owners.get(_candidate_key(record[1]), []):
                cells.append(candidate * n_queries + positions[kept])
                values.append(record[3][kept])
        cells = np.concatenate(cells) if cells else np.zeros(0, dtype=np.int64)
        values = np.concatenate(values) if values else np.zeros(0)
        sums = np.bincount(cells, weights=values, minlength=size)
        counts = np.bincount(cells, minlength=size)
        with np.errstate(invalid="ignore", divide="ignore"):
            mean = np.where(counts > 0, sums / np.maximum(counts, 1), np.nan)
        table = mean.reshape(len(candidates), n_queries).T
        result[label] = table[:, 0] if single else table
    return result
