"""Each test fold normalised once per search, not once per candidate.

A search scores every candidate on the same test folds: the relevance, the query ids and
the weights of a fold do not change between candidates, only the model's scores do. The
scorers keep the normalised fold (its `_Queries`, query ids and per-query weights, the
work of `_prepare`: numbering the queries is the costly part with string ids) and swap in
each call's scores, as the training-time adapters do for an eval set.

scikit-learn hands each fit its own copies of the fold's rows, so a fold is recognised by
its contents: the call's relevance, query ids and weights are compared with copies kept of
the fold's (a digest of the relevance first), never by the identity of the arrays, so a
fold changed in place is never answered from a stale structure. Anything but plain 1-D
arrays goes through `_compute` as before.
"""

import hashlib
import threading
from dataclasses import replace

import numpy as np

from ..inputs._queries import _scores_as
from ..metrics._evaluate import _compute, _compute_queries, _prepare
from ..utils._validation import _as_score_array, _check_finite

_CACHE_SIZE = 16  # folds remembered per process: a few splits times a few conventions
_CACHE_BYTES = 2**28  # and the memory they may hold: a larger fold is not kept
_LOCK = threading.Lock()
# digest -> list of (truth, groups, weights, (queries, ids, weights, item_ids), bytes)
_FOLDS = {}

# The conventions that shape the normalised fold (the others apply when computing).
_SHAPING = ("tie_break", "query_set", "score_dtype", "judged_only")


def _plain(values):
    """``values`` as a 1-D numpy array of numbers or ids, or None if it is anything else
    (lists of sets, item tables, matrices: not what a scorer of rows receives)."""
    if not isinstance(values, np.ndarray) or values.ndim != 1:
        return None
    return values


def _same_ids(ids, other):
    """Whether two arrays hold the same values, of the same dtype. (Object ids that are
    equal but of different types, 1 and 1.0, are one id to the numbering anyway.)"""
    if ids.dtype != other.dtype or ids.shape != other.shape:
        return False
    return bool(np.array_equal(ids, other))


def _digest(truth, conventions):
    shaping = tuple(conventions[name] for name in _SHAPING)
    data = truth.dtype.str.encode() + truth.tobytes()
    return truth.size, shaping, hashlib.blake2b(data, digest_size=16).digest()


def _prepared_fold(key, truth, groups, weights):
    with _LOCK:
        for kept_truth, kept_groups, kept_weights, prepared, _bytes in _FOLDS.get(key, ()):
            same_weights = (kept_weights is None) == (weights is None) and (
                weights is None or _same_ids(kept_weights, weights)
            )
            if (
                same_weights
                and np.array_equal(kept_truth, truth)
                and _same_ids(kept_groups, groups)
            ):
                return prepared
    return None


def _size(entry):
    """The bytes of the arrays a kept fold holds (object ids: their pointers only)."""
    truth, groups, weights, (queries, ids, query_weights, _item_ids) = entry
    arrays = [truth, groups, weights, ids, query_weights, queries.score, queries.rel]
    arrays += [queries.codes, queries.n_cand]
    owned = {id(a): a for a in arrays if isinstance(a, np.ndarray) and a.base is None}
    return sum(a.nbytes for a in owned.values())


def _keep(key, truth, groups, weights, prepared):
    entry = (truth, groups, weights, prepared)
    size = _size(entry)
    if size > _CACHE_BYTES:
        return
    with _LOCK:
        kept = [e for entries in _FOLDS.values() for e in entries]
        while _FOLDS and (
            len(kept) >= _CACHE_SIZE or sum(e[-1] for e in kept) + size > _CACHE_BYTES
        ):
            _FOLDS.pop(next(iter(_FOLDS)))  # the oldest digest
            kept = [e for entries in _FOLDS.values() for e in entries]
        _FOLDS.setdefault(key, []).append((*entry, size))


def _forget():
    """Drop every kept fold: a search that ends frees its folds' memory."""
    with _LOCK:
        _FOLDS.clear()


def _compute_fold(requests, y_true, y_pred, groups, sample_weight, conventions, table):
    """`_compute` of one scorer call, the fold normalised once per process."""
    truth, ids = _plain(y_true), _plain(groups)
    weights = None if sample_weight is None else _plain(sample_weight)
    usable = (
        _CACHE_SIZE > 0
        and truth is not None
        and ids is not None
        and truth.dtype.kind in "biuf"
        and (sample_weight is None or weights is not None)
    )
    if not usable:
        return _compute(
            requests,
            y_true,
            y_pred,
            groups=groups,
            sample_weight=sample_weight,
            conventions=conventions,
            table=table,
        )
    key = _digest(truth, conventions)
    prepared = _prepared_fold(key, truth, ids, weights)
    if prepared is None:
        # Copies: the kept structure must not change with the caller's arrays.
        truth, ids = truth.copy(), ids.copy()
        weights = None if weights is None else weights.copy()
        prepared = _prepare(requests, truth, y_pred, ids, None, weights, conventions)
        _keep(key, truth, ids, weights, prepared)
        queries = prepared[0]
    else:
        score = _as_score_array("y_score", y_pred)
        if score.shape != truth.shape:
            raise ValueError(
                f"y_true and y_score must have the same shape; got {truth.shape} and {score.shape}."
            )
        _check_finite("y_score", score)
        queries = replace(prepared[0], score=_scores_as(score, conventions["score_dtype"]))
    _queries, query_ids, query_weights, item_ids = prepared
    return _compute_queries(
        requests,
        queries,
        query_weights,
        False,
        conventions,
        item_ids,
        False,  # the relevance is checked for these requests (another scorer's fold)
        ids=query_ids,
        table=table,
    )
