"""What the training-time adapters share: metric names parsed and conventions resolved once,
each eval set's query structure built once and cached, every name computed in one pass.

A gradient-boosting library calls its eval metric after every boosting round with new
predictions for the same eval sets. The labels, the query boundaries and the weights of an
eval set do not change, so they are normalised once into a `_Queries` (the one internal
form every metric reads); each round only swaps in the predictions and runs the one kernel
(`sklearn_rank.metrics._evaluate._compute_queries`) for every requested name at once.
"""

import weakref
from dataclasses import replace

import numpy as np

from ..conventions._declarations import resolve
from ..inputs._queries import _Queries, _scores_as
from ..metrics._evaluate import _compute_queries
from ..metrics._names import _parse_name
from ..utils._validation import _check_finite, _shown

_CACHE_SIZE = 8  # eval sets remembered (train, validation... ): a few are enough


def _requests(metrics, conventions):
    """(canonical name, registry entry, k) of each requested name; ``default_k`` applied."""
    if isinstance(metrics, str):
        metrics = [metrics]
    elif isinstance(metrics, (bytes, dict)) or not hasattr(metrics, "__iter__"):
        raise ValueError(
            "metrics must be a metric name such as 'ndcg@10' or a list of names; got "
            f"{_shown(metrics)}."
        )
    metrics = list(metrics)
    if not metrics:
        raise ValueError("metrics must name at least one metric; got an empty list.")
    requests, seen = [], set()
    for name in metrics:
        metric, k = _parse_name(name)
        label = metric.name if k is None else f"{metric.name}@{k}"
        if label in seen:
            raise ValueError(f"metrics names {label!r} twice; got {metrics!r}.")
        seen.add(label)
        if k is None and metric.takes_k:
            k = conventions["default_k"]
        requests.append((label, metric, k))
    return requests


def _conventions(convention, explicit):
    conventions = resolve(convention, explicit)
    if conventions["tie_break"] == "item_descending":
        raise ValueError(
            "tie_break='item_descending' needs item ids, and training data have none "
            "(their rows are long format); use tie_break='input' or 'relevance_ascending'."
        )
    return conventions


class _EvalSet:
    """The query structure of one eval set: its rows as a `_Queries` whose scores are
    replaced every round, and the per-query weights."""

    def __init__(self, labels, sizes, query_weights, relevance_ties):
        labels = np.asarray(labels, dtype=np.float64).ravel()
        sizes = np.asarray(sizes, dtype=np.int64).ravel()
        _check_finite("the eval set's labels", labels)
        if sizes.size == 0 or (sizes < 0).any() or sizes.sum() != labels.size:
            raise ValueError(
                f"the eval set's query sizes must be non-negative and add up to its "
                f"{labels.size} rows; got {sizes.size} sizes adding up to {int(sizes.sum())}."
            )
        if query_weights is not None:
            query_weights = np.asarray(query_weights, dtype=np.float64).ravel()
            if query_weights.size != sizes.size:
                raise ValueError(
                    f"the eval set has {sizes.size} queries but {query_weights.size} query weights."
                )
        kept = sizes > 0  # an empty query has no row to score: it is no query
        if not kept.all():
            sizes = sizes[kept]
            query_weights = None if query_weights is None else query_weights[kept]
        if query_weights is not None:
            _check_finite("the eval set's weights", query_weights)
            if (query_weights < 0).any() or not query_weights.any():
                raise ValueError("the eval set's weights must be non-negative, not all zero.")
        self.n_rows = labels.size
        self.weights = query_weights
        self.template = _Queries(
            n_queries=sizes.size,
            score=np.zeros(labels.size),
            rel=labels,
            codes=np.repeat(np.arange(sizes.size, dtype=np.int64), sizes),
            n_cand=sizes,
            n_rows=labels.size,
            relevance_ties=relevance_ties,
        )

    @classmethod
    def from_row_weights(cls, labels, sizes, row_weights, relevance_ties):
        """Per-row weights (LightGBM's): a query weighs the mean of its rows' weights, as in
        LightGBM's own ranking metrics."""
        if row_weights is None:
            return cls(labels, sizes, None, relevance_ties)
        row_weights = np.asarray(row_weights, dtype=np.float64).ravel()
        sizes = np.asarray(sizes, dtype=np.int64).ravel()
        if row_weights.size != int(sizes.sum()):
            raise ValueError(
                f"the eval set has {int(sizes.sum())} rows but {row_weights.size} weights."
            )
        codes = np.repeat(np.arange(sizes.size), sizes)
        sums = np.bincount(codes, weights=row_weights, minlength=sizes.size)
        return cls(labels, sizes, sums / np.maximum(sizes, 1), relevance_ties)


class _TrainingMetric:
    """Base of the adapters: the requests, the conventions, the cache of eval sets.

    A Dataset or DMatrix is remembered through a weak reference (its labels, groups and
    weights are read at its first evaluation); the arrays LightGBM's scikit-learn API passes
    are held, as its Dataset holds them for the whole training. At most ``_CACHE_SIZE``
    eval sets are kept. The cache is not pickled: a copy starts empty.
    """

    def __init__(self, metrics, convention, conventions):
        self.convention = convention
        self.conventions = {k: v for k, v in conventions.items() if v is not None}
        self._resolved = _conventions(convention, self.conventions)
        self._requests = _requests(metrics, self._resolved)
        self.names = tuple(label for label, _metric, _k in self._requests)
        self.greater_is_better = tuple(m.greater_is_better for _l, m, _k in self._requests)
        self._cache = {}

    @property
    def __name__(self):  # libraries name a custom metric after its function
        return self.names[0]

    def __getstate__(self):
        state = self.__dict__.copy()
        state["_cache"] = {}
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)

    def __repr__(self):
        given = [repr(list(self.names) if len(self.names) > 1 else self.names[0])]
        if self.convention is not None:
            given.append(f"convention={self.convention!r}")
        given += [f"{k}={v!r}" for k, v in sorted(self.conventions.items())]
        return f"{type(self).__name__}({', '.join(given)})"

    # --- the cache -----------------------------------------------------------------------

    def _by_object(self, data, build):
        """The eval set of a Dataset / DMatrix, built by ``build()`` on first sight."""
        key = ("object", id(data))
        entry = self._cache.get(key)
        if entry is not None and entry[0]() is data:
            return entry[1]
        eval_set = build()
        try:
            reference = weakref.ref(data)
        except TypeError:  # cannot be watched: rebuild every time
            return eval_set
        self._remember(key, (reference, eval_set))
        return eval_set

    def _by_arrays(self, arrays, build):
        """The eval set of given arrays (labels, query sizes, weights or None): the same
        arrays (LightGBM passes the same objects every round), or equal ones, are the same
        eval set."""
        key = ("arrays",) + tuple(id(a) for a in arrays)
        entry = self._cache.get(key)
        if entry is not None and all(a is b for a, b in zip(entry[0], arrays)):
            return entry[1]
        for seen, eval_set in list(self._cache.values()):
            if isinstance(seen, tuple) and all(_same(a, b) for a, b in zip(seen, arrays)):
                self._remember(key, (arrays, eval_set))
                return eval_set
        eval_set = build()
        self._remember(key, (arrays, eval_set))
        return eval_set

    def _remember(self, key, entry):
        if len(self._cache) >= _CACHE_SIZE:
            self._cache.pop(next(iter(self._cache)))
        self._cache[key] = entry

    # --- the computation -----------------------------------------------------------------

    def _relevance_ties(self):
        return self._resolved["tie_break"] == "relevance_ascending"

    def _values(self, eval_set, predictions):
        """{name: mean} of every requested name, in one pass."""
        scores = _predictions(predictions, eval_set.n_rows, self._resolved["score_dtype"])
        queries = replace(eval_set.template, score=scores)
        return _compute_queries(self._requests, queries, eval_set.weights, False, self._resolved)


def _same(a, b):
    if a is b:
        return True
    if a is None or b is None:
        return False
    a, b = np.asarray(a), np.asarray(b)
    return a.shape == b.shape and np.array_equal(a, b)


def _predictions(predictions, n_rows, score_dtype):
    scores = np.asarray(predictions, dtype=np.float64)
    if scores.ndim != 1 or scores.size != n_rows:
        raise ValueError(
            f"the predictions must be 1-D with one score per row of the eval set ({n_rows} "
            f"rows); got shape {scores.shape}."
        )
    _check_finite("the predictions", scores)
    return _scores_as(scores, score_dtype)
