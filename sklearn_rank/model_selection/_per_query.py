"""Out-of-fold per-query values of cross-validation and searches, recorded by the scorers.

A ranking scorer computes every test query's value before it averages them; during a
grouped search or `grouped_cross_validate` it also keeps them, with their query ids and
the candidate's parameters, so that candidates can be compared query by query
(`sklearn_rank.compare_search`) without fitting anything again.

scikit-learn runs the fits in worker processes under ``n_jobs``, and only the scores come
back. So the score is a `_RecordedScore`, a float that carries its per-query values:
unpickled in the process that runs the search, it hands them to that process's recording
(`_restore`); called in that process (``n_jobs=1``, threads) the scorer hands them over
directly. scikit-learn then stores the score as the plain float it is.

Which split and which candidate a record belongs to is decided from what identifies them,
never from the order of the calls or from ``repr``: a scorer records the rows it scored
only when their query ids are those of a test set (`_query_set_key`), and a record fills
the cell (candidate, split) of ``cv_results_`` whose test set it scored, whose score
scikit-learn stored is the record's, bit for bit, and whose parameters the fitted model
has (compared by value: `_compare`).
"""

import contextlib
import copy
import hashlib
import pickle
import threading
import uuid
from typing import NamedTuple

import numpy as np

from ..utils._ids import _concat_ids, _factorize
from ._prepared import _forget

_LOCK = threading.Lock()
_SESSIONS = {}  # token -> list of records, in the process that runs the search


class _Record(NamedTuple):
    """What a scorer kept of one call: the rows it scored, by whom, and their values."""

    label: str
    key: tuple  # `_query_set_key` of the rows scored
    candidate: tuple  # the fitted model's values of the searched parameters
    score: float
    ids: np.ndarray  # the query ids, in the order of ``values``
    values: np.ndarray
    weights: np.ndarray | None = None  # each query's weight, when the scorer had sample_weight


def _query_set_key(ids, n_rows):
    """The key of a set of rows: their number and a digest of their distinct query ids.

    The same in every process (scikit-learn's workers scramble Python's ``hash`` of
    strings), so that a worker recognises a test set that the search's process described.
    """
    ids = np.asarray(ids)
    if ids.dtype == object:
        # Ids of mixed types cannot be sorted; their pickles can, and tell 1 from "1".
        data = b"".join(sorted(pickle.dumps(value, protocol=4) for value in ids.tolist()))
    else:
        data = ids.dtype.str.encode() + np.sort(ids, kind="stable").tobytes()
    return int(n_rows), hashlib.blake2b(data, digest_size=16).digest()


def _test_keys(groups, folds):
    """The `_query_set_key` of each split's test set, in split order."""
    return [_query_set_key(_factorize(groups[test], test.size)[1], test.size) for _, test in folds]


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


def _recorded(recording, estimator, key, ids, values, score, weights=None):
    """The score to return from a recording scorer, its record handed over.

    recording : (token, label, parameter names, test keys) set by `_recording`.
    key : `_query_set_key` of the rows scored: rows that are no test set (the training
        rows, with ``return_train_score``) are not recorded.
    weights : each query's weight in the score (in the order of ``ids``), or None.
    """
    token, label, names, test_keys = recording
    if key not in test_keys:
        return score
    params = estimator.get_params(deep=True) if names else {}
    candidate = tuple(params.get(name) for name in names)
    record = _Record(label, key, candidate, float(score), ids, values, weights)
    _add(token, record)
    return _RecordedScore(score, token, record)


@contextlib.contextmanager
def _recording(scoring, test_keys, parameter_names=()):
    """Copies of the ranking scorers of ``scoring`` that record per-query values.

    Yields ``(scoring, records)``: the scoring to give scikit-learn, and the list that
    fills with a `_Record` per call on a test set (``test_keys``: their
    `_query_set_key`). Labels are the keys of a dict of scorers, or the scorer's name.
    """
    token = uuid.uuid4().hex
    names = tuple(parameter_names)
    test_keys = frozenset(test_keys)

    def recording(scorer, label):
        if not hasattr(scorer, "_record"):  # not a RankingScorer
            return scorer
        scorer = copy.copy(scorer)
        scorer._record = (token, label, names, test_keys)
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
        _forget()  # the folds this search's scorers kept in this process
        for scorer in recorded.values() if isinstance(recorded, dict) else [recorded]:
            if hasattr(scorer, "_record"):
                scorer._record = None  # a later search.score records nothing


def _recorded_labels(scoring):
    """(label, the suffix of scikit-learn's result keys) of each recording scorer."""
    if isinstance(scoring, dict):
        return [(key, key) for key, scorer in scoring.items() if hasattr(scorer, "_record")]
    scorers = getattr(scoring, "scorers", None)
    if isinstance(scorers, dict):  # a MultimetricRankingScorer: its dict's keys
        return [(key, key) for key in scorers]
    if hasattr(scoring, "_record"):
        return [(scoring.name, "score")]
    return []


def _stored_scores(labels, results, n_splits=None):
    """Label -> ndarray of shape (n_splits, n_candidates): the test score scikit-learn
    stored for each split and candidate, from a search's ``cv_results_`` (``n_splits``
    given) or from `cross_validate`'s result (one candidate).

    labels : (label, suffix of the result keys) pairs, as `_recorded_labels` gives them.
    """
    if n_splits is None:
        return {
            label: np.asarray(results[f"test_{suffix}"], dtype=np.float64)[:, None]
            for label, suffix in labels
        }
    return {
        label: np.array(
            [results[f"split{split}_test_{suffix}"] for split in range(n_splits)],
            dtype=np.float64,
        )
        for label, suffix in labels
    }


def _compare(a, b):
    """Whether two parameter values are equal: True, False, or None when they cannot
    be told apart by value (objects compared by identity only, such as functions, which
    a worker process or scikit-learn's ``clone`` copies)."""
    if a is b:
        return True
    if hasattr(a, "get_params") and not isinstance(a, type):
        if type(a) is not type(b):
            return False
        params, other = a.get_params(deep=False), b.get_params(deep=False)
        if params.keys() != other.keys():
            return False
        return _all(_compare(params[name], other[name]) for name in params)
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        a, b = np.asarray(a), np.asarray(b)
        if a.shape != b.shape or a.dtype != b.dtype:
            return False
        if a.dtype == object:
            return _all(_compare(x, y) for x, y in zip(a.ravel().tolist(), b.ravel().tolist()))
        return bool(np.array_equal(a, b, equal_nan=a.dtype.kind in "fc"))
    if isinstance(a, (list, tuple)):
        if type(a) is not type(b) or len(a) != len(b):
            return False
        return _all(_compare(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        if not isinstance(b, dict) or a.keys() != b.keys():
            return False
        return _all(_compare(a[name], b[name]) for name in a)
    if type(a).__eq__ is object.__eq__:
        return None if type(a) is type(b) else False
    try:
        same = a == b
    except Exception:  # noqa: BLE001 - any comparison that fails tells nothing
        return None
    if not isinstance(same, (bool, np.bool_)):
        return None
    if not same and isinstance(a, float) and isinstance(b, float):
        return bool(a != a and b != b)  # NaN
    return bool(same)


def _all(results):
    """True if every result is True, False if one is False, else None."""
    results = list(results)
    if False in results:
        return False
    return True if all(results) else None


def _of_candidate(pool, params, names):
    """The record of ``pool`` whose parameters are the candidate's ``params``: one whose
    values equal them, else one that cannot be told apart from them; None if every one
    differs."""
    unknown = None
    for record in pool:
        values = dict(zip(names, record.candidate))
        same = _all(_compare(values.get(name), value) for name, value in params.items())
        if same:
            return record
        if same is None and unknown is None:
            unknown = record
    return unknown


def _out_of_fold(records, query_ids, test_keys, stored, candidates=None, names=()):
    """Average each candidate's recorded values of each query over its test folds.

    Parameters
    ----------
    records : list of `_Record`
    query_ids : ndarray of shape (n_queries,)
        Every query id, distinct (the search's groups, factorized).
    test_keys : list of tuple
        The `_query_set_key` of each split's test set, in split order.
    stored : dict
        Label -> ndarray of shape (n_splits, n_candidates): the test score scikit-learn
        stored for each split and candidate (``split<i>_test_<label>``).
    candidates : list of dict, default=None
        The parameters of each candidate (``cv_results_["params"]``); None: one model.
    names : tuple of str
        The parameter names whose values the records carry, in that order.

    Returns
    -------
    dict
        ``"query"`` -> the ids; each label with records -> ndarray of shape (n_queries,
        n_candidates) (``(n_queries,)`` when ``candidates`` is None): the mean over the
        query's test folds, NaN where it has none (a failed fit, or NaN values).
    """
    n_queries = query_ids.size
    single = candidates is None
    candidates = [{}] if candidates is None else list(candidates)
    pools = {}
    for record in records:
        bits = np.float64(record.score).tobytes()
        pools.setdefault((record.label, record.key, bits), []).append(record)
    size = len(candidates) * n_queries
    result = {"query": query_ids}
    recorded = {record.label for record in records}
    for label, scores in stored.items():
        if label not in recorded:
            continue
        chosen = []  # (candidate, record), split by split: each cell holds one record
        for split, key in enumerate(test_keys):
            for candidate, params in enumerate(candidates):
                pool = pools.get((label, key, np.float64(scores[split, candidate]).tobytes()))
                record = _of_candidate(pool, params, names) if pool else None
                if record is not None:
                    chosen.append((candidate, record))
        sizes = [record.ids.size for _, record in chosen]
        # The search's ids first: each recorded id gets its position among them.
        everything = _concat_ids([query_ids, *(record.ids for _, record in chosen)])
        codes = _factorize(everything, n_queries + sum(sizes))[0][n_queries:]
        cells, values = [], []
        for (candidate, record), positions in zip(chosen, np.split(codes, np.cumsum(sizes)[:-1])):
            kept = ~np.isnan(record.values)
            cells.append(candidate * n_queries + positions[kept])
            values.append(record.values[kept])
        cells = np.concatenate(cells) if cells else np.zeros(0, dtype=np.int64)
        values = np.concatenate(values) if values else np.zeros(0)
        sums = np.bincount(cells, weights=values, minlength=size)
        counts = np.bincount(cells, minlength=size)
        with np.errstate(invalid="ignore", divide="ignore"):
            mean = np.where(counts > 0, sums / np.maximum(counts, 1), np.nan)
        table = mean.reshape(len(candidates), n_queries).T
        result[label] = table[:, 0] if single else table
    return result


def _query_weights(records, query_ids):
    """The weight each query had in the scores, for each label whose scorer was weighted.

    A query's weight is data, the same in every split and for every candidate, so any
    record that scored it tells it.

    Returns
    -------
    dict
        Label -> ndarray of shape (n_queries,), in the order of ``query_ids``: the weight
        the scorer gave each query (NaN for a query it never scored); only labels whose
        records carry weights (a scorer that received ``sample_weight``).
    """
    weighted = [record for record in records if record.weights is not None]
    if not weighted:
        return {}
    n_queries = query_ids.size
    sizes = [record.ids.size for record in weighted]
    everything = _concat_ids([query_ids, *(record.ids for record in weighted)])
    codes = _factorize(everything, n_queries + sum(sizes))[0][n_queries:]
    found = {}
    for record, positions in zip(weighted, np.split(codes, np.cumsum(sizes)[:-1])):
        weights = found.setdefault(record.label, np.full(n_queries, np.nan))
        weights[positions] = record.weights
    return found
