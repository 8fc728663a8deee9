"""Any metric of the registry as XGBoost's custom eval metric."""

import numpy as np

from ..conventions import _fill_doc
from ..metrics._signatures import _with_conventions
from ._base import _EvalSet, _TrainingMetric
from ._per_query import _PerQuery


def _is_dmatrix(value):
    """An XGBoost DMatrix, recognised by what is read from it (no import of xgboost)."""
    return all(hasattr(value, name) for name in ("get_label", "get_uint_info", "get_weight"))


class XGBoostMetric(_TrainingMetric):
    """An XGBoost eval metric computing sklearn_rank metrics; made by `xgboost_metric`.

    Called as ``metric(predictions, dmatrix)`` by ``xgboost.train(custom_metric=)``: returns
    ``(name, value)``, or a list of them for several names. Called as
    ``metric(y_true, y_score)`` with one query's rows by ``XGBRanker(eval_metric=)``:
    returns that query's value (XGBoost averages them itself).

    Public as the type of what `xgboost_metric` returns (for ``isinstance`` checks and its
    attributes; it pickles under this name); make it with `xgboost_metric`, which checks
    the names and the conventions.

    Attributes
    ----------
    names : tuple of str
        The canonical metric names, in the order given.
    greater_is_better : tuple of bool
        The direction of each name, from the registry (XGBoost's ``maximize``).
    convention : str or None
        The preset given.
    conventions : dict
        The convention parameters given (those not None).

    See Also
    --------
    xgboost_metric, LightGBMMetric

    Examples
    --------
    >>> from sklearn_rank import XGBoostMetric, xgboost_metric
    >>> metric = xgboost_metric("map@2")
    >>> isinstance(metric, XGBoostMetric)
    True
    >>> metric.names, metric.greater_is_better
    (('map@2',), (True,))
    >>> metric([1, 0, 1], [0.9, 0.8, 0.1])  # one query's rows, as XGBRanker passes them
    0.5
    """

    library = "xgboost"

    def __call__(self, first, second):
        if not _is_dmatrix(second):  # XGBRanker: (y_true, y_score) of one query
            return self._one_query(first, second)
        predictions, dmatrix = first, second
        eval_set = self._by_object(dmatrix, lambda: self._from_dmatrix(dmatrix))
        values = self._values(eval_set, predictions)
        results = [(label, float(values[label])) for label in self.names]
        return results[0] if len(results) == 1 else results

    def _from_dmatrix(self, dmatrix):
        pointers = np.asarray(dmatrix.get_uint_info("group_ptr"), dtype=np.int64)
        labels = dmatrix.get_label()
        if pointers.size < 2:
            raise ValueError(f"{self!r} needs query groups: build the DMatrix with qid= or group=.")
        weights = dmatrix.get_weight()
        # XGBoost's ranking weights are one per query group.
        return _EvalSet(
            labels,
            np.diff(pointers),
            weights if weights.size else None,
            self._relevance_ties(),
        )

    def _one_query(self, y_true, y_score):
        """XGBRanker's path: one query's labels and scores, from any of its threads."""
        if len(self.names) > 1:
            raise ValueError(
                "XGBRanker calls its eval metric once per query and takes one value from "
                f"it: give xgboost_metric one name, not {list(self.names)!r} (or use "
                "xgboost.train(custom_metric=), which takes several)."
            )
        per_query = self.__dict__.get("_per_query")
        if per_query is None:
            per_query = self.__dict__.setdefault("_per_query", _PerQuery(self))
        return per_query(np.asarray(y_true), np.asarray(y_score))

    def __getstate__(self):
        state = super().__getstate__()
        state.pop("_per_query", None)  # holds a lock and the last round's arrays
        return state


@_with_conventions(n_jobs=False)
@_fill_doc
def xgboost_metric(
    metrics,
    *,
    convention=None,
    **conventions,
):
    """Use sklearn_rank metrics as XGBoost's eval metric, for logging and early stopping.

    The returned object is an XGBoost custom metric for both interfaces:

    - ``xgboost.train(params, dtrain, evals=..., custom_metric=metric)``: it is called with
      the predictions and each eval ``DMatrix``, reads the query boundaries
      (``group_ptr``, from ``qid`` or ``group``), labels and per-query weights once per
      DMatrix, and computes every requested name in one pass, exactly as `evaluate` does
      with the same conventions;
    - ``XGBRanker(eval_metric=metric)``: XGBoost's scikit-learn interface calls a custom
      metric **once per query**, from a thread pool of ``n_jobs`` threads, with that
      query's labels and scores, and averages the values itself: it scores every one-row
      query 1.0 without calling the metric, and weights the mean by the number of rows of
      each query (it passes the group sizes as weights; read in
      ``xgboost.sklearn.ltr_metric_decorator``). Each value is this metric's value of the
      query; the mean is XGBoost's, so it equals `evaluate` only when the queries have
      equal sizes and more than one row. This path takes one name.

    For early stopping on this metric:

    - set ``disable_default_eval_metric=True`` in the parameters, so that XGBoost's
      default metric is not computed as well;
    - XGBoost guesses the direction from the name (names starting with ``ndcg``, ``map``,
      ``pre`` or ``auc`` are maximised, all others minimised): give it explicitly with
      ``callbacks=[xgboost.callback.EarlyStopping(rounds, metric_name=metric.names[0],
      maximize=metric.greater_is_better[0])]`` (or ``xgboost.train(..., maximize=True)``);
      ``metric_name`` also picks this metric when several are logged (else XGBoost
      watches the last one).

    Under ``convention="xgboost"`` ``ndcg@k`` and ``map@k`` equal XGBoost's built-in
    ``ndcg@k`` and ``map@k``. XGBoost logs custom metric values with six decimals
    (``"%f"``), and early stopping compares those.

    Parameters
    ----------
    metrics : str or list of str
        Metric names such as ``"ndcg@10"`` or ``["ndcg@10", "map@10"]`` (see
        `get_metric_names`). ``XGBRanker`` takes one.
    {conventions}

    Returns
    -------
    metric : XGBoostMetric
        A picklable callable. ``metric.names`` holds the canonical names,
        ``metric.greater_is_better`` their directions (from the registry), and
        ``metric.__name__`` the first name (XGBoost's name for it).

    See Also
    --------
    lightgbm_metric : The same for LightGBM.
    catboost_metric : CatBoost's built-in metric equal to a sklearn_rank metric.
    sklearn_rank.QueryGroupRanker : Early stopping on a validation split of each training
        fold, by query.

    References
    ----------
    .. [1] XGBoost, "Custom Objective and Evaluation Metric", and ``xgboost.train``,
       parameters ``custom_metric`` and ``maximize``.

    Examples
    --------
    >>> import numpy as np
    >>> import xgboost
    >>> from sklearn_rank import xgboost_metric
    >>> metric = xgboost_metric(["ndcg@2", "mrr"])
    >>> rng = np.random.default_rng(0)
    >>> X, y = rng.random((60, 3)), rng.integers(0, 3, 60)
    >>> data = xgboost.DMatrix(X, label=y, qid=np.repeat(np.arange(6), 10))
    >>> log = {}
    >>> booster = xgboost.train(
    ...     {"objective": "rank:ndcg", "disable_default_eval_metric": True, "nthread": 1},
    ...     data, num_boost_round=3, evals=[(data, "train")], custom_metric=metric,
    ...     evals_result=log, verbose_eval=False,
    ... )
    >>> sorted(log["train"]), len(log["train"]["mrr"])
    (['mrr', 'ndcg@2'], 3)

    ``XGBRanker`` calls it with one query's labels and scores:

    >>> xgboost_metric("ndcg@2")([3, 2, 0, 1], [0.9, 0.8, 0.1, 0.4])
    1.0
    """
    return XGBoostMetric(
        metrics,
        convention,
        conventions,
    )
