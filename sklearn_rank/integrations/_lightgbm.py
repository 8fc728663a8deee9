"""Any metric of the registry as LightGBM's custom eval metric."""

from ..conventions import _fill_doc
from ..metrics._signatures import _with_conventions
from ._base import _EvalSet, _TrainingMetric


def _is_dataset(value):
    """A LightGBM Dataset, recognised by what is read from it (no import of lightgbm)."""
    return all(hasattr(value, name) for name in ("get_label", "get_group", "get_weight"))


class LightGBMMetric(_TrainingMetric):
    """A LightGBM eval metric computing sklearn_rank metrics; made by `lightgbm_metric`.

    Called as ``metric(y_true, y_pred, weight, group)`` by ``LGBMRanker.fit(eval_metric=)``
    (LightGBM counts the four parameters and passes the group sizes) or as
    ``metric(preds, dataset)`` by ``lightgbm.train(feval=)``. Returns
    ``(name, value, is_higher_better)``, or a list of them for several names.

    Public as the type of what `lightgbm_metric` returns (for ``isinstance`` checks and its
    attributes; it pickles under this name); make it with `lightgbm_metric`, which checks
    the names and the conventions.

    Attributes
    ----------
    names : tuple of str
        The canonical metric names, in the order given.
    greater_is_better : tuple of bool
        The direction of each name, from the registry.
    convention : str or None
        The preset given.
    conventions : dict
        The convention parameters given (those not None).

    See Also
    --------
    lightgbm_metric, XGBoostMetric

    Examples
    --------
    >>> from sklearn_rank import LightGBMMetric, lightgbm_metric
    >>> metric = lightgbm_metric(["ndcg@2", "arp"], gain="exponential")
    >>> isinstance(metric, LightGBMMetric)
    True
    >>> metric
    LightGBMMetric(['ndcg@2', 'arp'], gain='exponential')
    >>> metric.names, metric.greater_is_better
    (('ndcg@2', 'arp'), (True, False))
    """

    library = "lightgbm"

    def __call__(self, y_true, y_pred, weight=None, group=None):
        if _is_dataset(y_pred):  # lightgbm.train(feval=): (preds, Dataset)
            predictions, dataset = y_true, y_pred
            eval_set = self._by_object(dataset, lambda: self._from_dataset(dataset))
        else:
            if group is None:
                raise ValueError(
                    f"{self!r} needs the eval set's query groups: LightGBM passes them to an "
                    "eval metric of four parameters when the eval set has eval_group."
                )
            predictions = y_pred
            eval_set = self._by_arrays(
                (y_true, group, weight),
                lambda: _EvalSet.from_row_weights(y_true, group, weight, self._relevance_ties()),
            )
        values = self._values(eval_set, predictions)
        results = [
            (label, float(values[label]), better)
            for label, better in zip(self.names, self.greater_is_better)
        ]
        return results[0] if len(results) == 1 else results

    def _from_dataset(self, dataset):
        group = dataset.get_group()
        if group is None:
            raise ValueError(
                f"{self!r} needs query groups: build the lightgbm.Dataset with group=sizes."
            )
        return _EvalSet.from_row_weights(
            dataset.get_label(), group, dataset.get_weight(), self._relevance_ties()
        )


@_with_conventions(n_jobs=False)
@_fill_doc
def lightgbm_metric(
    metrics,
    *,
    convention=None,
    **conventions,
):
    """Use sklearn_rank metrics as LightGBM's eval metric, for logging and early stopping.

    The returned object is a LightGBM custom eval metric for both interfaces:
    ``LGBMRanker.fit(eval_metric=metric)`` (LightGBM inspects the number of parameters of
    the callable: this one takes four, ``y_true, y_pred, weight, group``, so it receives the
    eval set's group sizes) and ``lightgbm.train(params, train_set, feval=metric)`` (called
    with the predictions and the ``Dataset``, whose ``group`` it reads). It computes every
    requested name in one pass, exactly as `evaluate` does with the same conventions, on the
    eval set's query groups (contiguous runs of rows, LightGBM's ``group`` sizes). The query
    structure of each eval set is built once and reused every round.

    For early stopping on this metric:

    - set ``metric="None"`` in the LightGBM parameters (``LGBMRanker(metric="None")``), so
      that LightGBM's built-in metric is not computed too; else early stopping also watches
      it (and its ``ndcg@k`` has the same name as this one);
    - with several names, pass ``lightgbm.early_stopping(rounds, first_metric_only=True)``
      to stop on the first one;
    - nothing else: each value comes with the registry's direction (``is_higher_better``),
      which LightGBM's early stopping reads.

    A query weighs the mean of its rows' weights (``eval_sample_weight``), as in
    LightGBM's own ranking metrics; these, however, add 1 for a query without a relevant
    item whatever its weight (``src/metric/rank_metric.hpp``), where this metric adds its
    value times its weight. Under ``convention="lightgbm"`` ``ndcg@k`` and ``map@k`` equal
    LightGBM's built-in ``ndcg@k`` and ``map@k`` (without weights, or where the queries
    without a relevant item weigh 1).

    Parameters
    ----------
    metrics : str or list of str
        Metric names such as ``"ndcg@10"`` or ``["ndcg@10", "map@10"]`` (see
        `get_metric_names`); early stopping with ``first_metric_only=True`` watches the
        first.
    {conventions}

    Returns
    -------
    metric : LightGBMMetric
        A picklable callable. ``metric.names`` holds the canonical names and
        ``metric.greater_is_better`` their directions (from the registry).

    See Also
    --------
    xgboost_metric : The same for XGBoost.
    catboost_metric : CatBoost's built-in metric equal to a sklearn_rank metric.
    sklearn_rank.QueryGroupRanker : Early stopping on a validation split of each training
        fold, by query.

    References
    ----------
    .. [1] LightGBM, ``lightgbm.LGBMRanker.fit``, parameter ``eval_metric``; and
       ``lightgbm.train``, parameter ``feval``.

    Examples
    --------
    >>> from sklearn_rank import lightgbm_metric
    >>> metric = lightgbm_metric("ndcg@2")
    >>> metric([3, 2, 0, 1, 0, 1], [0.9, 0.8, 0.1, 0.4, 0.2, 0.3], None, [4, 2])
    ('ndcg@2', 1.0, True)

    In training, ``evals_result_`` records it every round:

    >>> import numpy as np
    >>> from lightgbm import LGBMRanker
    >>> rng = np.random.default_rng(0)
    >>> X, y = rng.random((60, 3)), rng.integers(0, 3, 60)
    >>> model = LGBMRanker(n_estimators=3, metric="None", min_child_samples=2, verbose=-1)
    >>> model = model.fit(
    ...     X[:40], y[:40], group=[10] * 4,
    ...     eval_X=(X[40:],), eval_y=(y[40:],), eval_group=[[10] * 2],
    ...     eval_metric=lightgbm_metric(["ndcg@2", "map"]),
    ... )
    >>> sorted(model.evals_result_["valid_0"]), len(model.evals_result_["valid_0"]["map"])
    (['map', 'ndcg@2'], 3)
    """
    return LightGBMMetric(
        metrics,
        convention,
        conventions,
    )
