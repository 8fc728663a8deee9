"""What the training-time adapters share: metric names parsed and conventions resolved once,
each eval set's query structure built once and cached, every name computed in one pass.

A gradient-boosting library calls its eval metric after every boosting round with new
predictions for the same eval sets. The labels, the query boundaries and the weights of an
eval set do not change, so they are normalised once into a `_Queries` (the one internal
form every metric reads); each round only swaps in the predictions and runs the one kernel
(through the adapter's plan, `sklearn_rank.metrics._plan._Plan`) for every requested name at once.
"""

import weakref

import numpy as np

from ..inputs._prepared import _Prepared, _queries_of_sizes, _with_scores
from ..metrics._plan import _Plan
from ..utils._validation import _check_finite

_CACHE_SIZE = 8  # eval sets remembered (train, validation... ): a few are enough


def _plan(metrics, convention, explicit):
    """The adapter's plan: ``metrics`` read as `evaluate` reads them (a name given twice
    is computed once), labelled by their registry names as training libraries show them,
    conventions resolved; item ids' tie rule refused."""
    plan = _Plan.from_names(metrics, {**explicit, "convention": convention}, True)
    if plan.conventions["tie_break"] == "item_descending":
        raise ValueError(
            "tie_break='item_descending' needs item ids, and training data have none "
            "(their rows are long format); use tie_break='input' or 'relevance_ascending'."
        )
    return plan


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
        self.template = _queries_of_sizes(labels, sizes, relevance_ties=relevance_ties)

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
        self._plan = _plan(metrics, convention, self.conventions)
        self._resolved = self._plan.conventions
        self.names = tuple(self._plan.labels)
        self.greater_is_better = tuple(r.metric.greater_is_better for r in self._plan.requests)
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
        queries = _predictions(eval_set.template, predictions, self._resolved["score_dtype"])
        prepared = _Prepared(queries, None, eval_set.weights, False)
        return self._plan.run(prepared, checked=False)


def _same(a, b):
    if a is b:
        return True
    if a is None or b is None:
        return False
    a, b = np.asarray(a), np.asarray(b)
    return a.shape == b.shape and np.array_equal(a, b)


def _predictions(template, predictions, score_dtype):
    """``template`` (an eval set's queries) with a round's predictions as its scores."""
    n_rows = template.n_rows
    return _with_scores(
        template,
        np.asarray(predictions, dtype=np.float64),
        (n_rows,),
        score_dtype=score_dtype,
        what="the predictions",
        shape_error=lambda shape: (
            f"the predictions must be 1-D with one score per row of the eval set ({n_rows} "
            f"rows); got shape {shape}."
        ),
    )
