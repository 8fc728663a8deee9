"""Each test fold normalised once per search, not once per candidate.

A search scores every candidate on the same test folds: the relevance, the query ids and
the weights of a fold do not change between candidates, only the model's scores do. The
scorers keep the fold prepared once (`_Plan.prepare`: numbering the queries is the costly
part with string ids) and give it each call's scores (`inputs._prepared._with_scores`), as
the training-time adapters do for an eval set.

scikit-learn hands each fit its own copies of the fold's rows, so a fold is recognised by
its contents: the call's relevance, query ids and weights are compared with copies kept of
the fold's (a digest of the relevance first), never by the identity of the arrays, so a
fold changed in place is never answered from a stale structure. Anything but plain 1-D
arrays is computed by `_Plan.evaluate` as before.
"""

import hashlib
import threading

import numpy as np

from ..inputs._prepared import _with_scores

_CACHE_SIZE = 16  # folds remembered per process: a few splits times a few conventions
_CACHE_BYTES = 2**28  # and the memory they may hold: a larger fold is not kept
_LOCK = threading.Lock()
# digest -> list of (truth, groups, weights, `_Prepared`, bytes)
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
    truth, groups, weights, (queries, ids, query_weights, *_rest) = entry
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


def _compute_fold(plan, y_true, y_pred, groups, sample_weight, *, table):
    """``plan.evaluate`` of one scorer call, its fold prepared once per process."""
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
        return plan.evaluate(
            y_true, y_pred, groups=groups, sample_weight=sample_weight, table=table
        )
    key = _digest(truth, plan.conventions)
    prepared = _prepared_fold(key, truth, ids, weights)
    if prepared is None:
        # Copies: the kept fold must not change with the caller's arrays.
        truth, ids = truth.copy(), ids.copy()
        weights = None if weights is None else weights.copy()
        prepared = plan.prepare(truth, y_pred, groups=ids, sample_weight=weights)
        _keep(key, truth, ids, weights, prepared)
        return plan.run(prepared, table=table)
    queries = _with_scores(
        prepared.queries,
        y_pred,
        truth.shape,
        score_dtype=plan.conventions["score_dtype"],
        shape_error=lambda shape: (
            f"y_true and y_score must have the same shape; got {truth.shape} and {shape}."
        ),
    )
    # The relevance is checked again: the fold may have been kept by another scorer.
    return plan.run(prepared._replace(queries=queries), table=table, checked=False)
