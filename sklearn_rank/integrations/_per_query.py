"""XGBRanker's per-query calls, answered from one vectorised pass per round.

``XGBRanker`` calls a custom metric once per query, from a thread pool, with the slices
``y_true[begin:end]`` and ``y_score[begin:end]`` of the eval set's labels and of the round's
predictions (``xgboost.sklearn.ltr_metric_decorator``). Ranking one query at a time costs
the kernel's fixed overhead a thousand times a round; instead, the slices are recognised as
views of the same two arrays, the eval set's query boundaries are learned from the first
round's calls, and from the second round on the first call of a round computes every query
at once; the other calls read their value. A call that does not fit (not a view, an unknown
slice) is computed alone, so the values never depend on the shortcut.
"""

import threading

import numpy as np

from ..inputs._prepared import _Prepared, _queries_of_sizes
from ._base import _predictions

_EVAL_SETS = 8  # label arrays remembered: the eval sets of one fit


def _view(array):
    """(owner, offset) when ``array`` is a contiguous 1-D slice of a 1-D array, else None."""
    base = getattr(array, "base", None)
    if not isinstance(base, np.ndarray) or not isinstance(array, np.ndarray):
        return None
    if base.ndim != 1 or array.ndim != 1 or base.dtype != array.dtype:
        return None
    if not (base.flags.c_contiguous and array.flags.c_contiguous):
        return None
    delta = array.__array_interface__["data"][0] - base.__array_interface__["data"][0]
    offset, rest = divmod(delta, array.itemsize)
    if rest or offset < 0 or offset + array.size > base.size:
        return None
    return base, offset


class _EvalSetState:
    """One eval set: its labels, the query slices seen, the current round's values."""

    def __init__(self, labels):
        self.labels = labels.copy()
        self.seen = {}  # offset -> size of every slice computed alone
        self.built = None  # ({offset: query}, sizes) for the slices seen when built
        self.scores = None  # the round's predictions the values belong to
        self.values = None
        self.plan = None  # the metric's plan with the statistics of the whole eval set

    def structure(self):
        """Queries: the slices seen, and every row outside them alone (XGBoost scores a
        one-row query 1.0 without calling the metric)."""
        if self.built is not None and len(self.built[0]) == len(self.seen):
            return self.built
        starts, sizes, row = {}, [], 0
        for offset in sorted(self.seen):
            sizes.extend([1] * (offset - row))
            starts[offset] = len(sizes)
            sizes.append(self.seen[offset])
            row = offset + self.seen[offset]
        sizes.extend([1] * (self.labels.size - row))
        self.built = starts, np.asarray(sizes, dtype=np.int64)
        return self.built


class _PerQuery:
    """The per-query path of one `XGBoostMetric` (not pickled: a copy starts afresh)."""

    def __init__(self, metric):
        self.metric = metric
        self.lock = threading.Lock()
        self.states = {}  # id(labels array) -> (labels array, state)

    def __call__(self, y_true, y_score):
        label_view, score_view = _view(y_true), _view(y_score)
        if (
            label_view is None
            or score_view is None
            or label_view[1] != score_view[1]
            or label_view[0].size != score_view[0].size
        ):
            return self.alone(y_true, y_score)
        (labels, offset), scores = label_view, score_view[0]
        size = y_true.size
        with self.lock:
            state = self._state(labels)
            if state.scores is not scores:  # the first call of a round
                state.scores, state.values = scores, None
                if state.seen:
                    state.values = self._all(state, labels, scores)
            if state.values is not None:
                starts, sizes = state.structure()
                query = starts.get(offset)
                if query is not None and sizes[query] == size:
                    return self._checked(state.values[query])
        value = self.alone(y_true, y_score, state.plan)
        with self.lock:
            state.seen[offset] = size
        return value

    def _state(self, labels):
        entry = self.states.get(id(labels))
        if entry is not None and entry[0] is labels:
            return entry[1]
        # A new labels array (XGBoost reads them afresh every round): the same eval set
        # if the labels are equal.
        state = next(
            (
                s
                for _a, s in self.states.values()
                if s.labels.size == labels.size and np.array_equal(s.labels, labels)
            ),
            None,
        )
        if state is None:
            state = _EvalSetState(labels)
            # Statistics over the whole eval set (ERR's top grade), whichever way a query
            # is computed: alone or with the others.
            rel = np.asarray(labels, dtype=np.float64).ravel()
            whole = _queries_of_sizes(rel, np.array([rel.size], dtype=np.int64))
            state.plan = self.metric._plan.for_queries(whole)
        self.states = {k: v for k, v in self.states.items() if v[1] is not state}
        if len(self.states) >= _EVAL_SETS:
            self.states.pop(next(iter(self.states)))
        self.states[id(labels)] = (labels, state)
        return state

    def _all(self, state, labels, scores):
        """Every query's value for this round, in one pass."""
        _starts, sizes = state.structure()
        return self._values(np.asarray(labels, dtype=np.float64), sizes, scores, state.plan)

    def alone(self, y_true, y_score, plan=None):
        """One query by itself (``plan``: with its eval set's statistics; None, for a
        query that is no slice of a known eval set: its own)."""
        rel = np.asarray(y_true, dtype=np.float64).ravel()
        sizes = np.array([rel.size], dtype=np.int64)
        return self._checked(self._values(rel, sizes, np.ravel(y_score), plan)[0])

    def _values(self, rel, sizes, scores, plan=None):
        """Per-query values of the metric on rows ``rel`` cut into queries of ``sizes``."""
        metric = self.metric
        plan = metric._plan if plan is None else plan
        template = _queries_of_sizes(rel, sizes, relevance_ties=metric._relevance_ties())
        queries = _predictions(template, scores, metric._resolved["score_dtype"])
        # checked=False: these queries are built here, their relevance not yet checked.
        prepared = _Prepared(queries, None, None, False)
        values = plan.run(prepared, per_query=True, checked=False)
        return values[metric.names[0]]

    def _checked(self, value):
        value = float(value)
        if np.isnan(value):
            raise ValueError(
                f"{self.metric.names[0]}: a query has no relevant item and no_relevant='skip', "
                "but XGBRanker averages the values itself and cannot leave a query out; give "
                "no_relevant a number, or use xgboost.train(custom_metric=)."
            )
        return value
