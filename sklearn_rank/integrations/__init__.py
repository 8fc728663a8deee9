"""Training-time eval metrics: the metrics of the registry, with their conventions, inside
LightGBM's and XGBoost's training loops (logging and early stopping), and CatBoost's
built-in metric that gives the same number. The gradient-boosting libraries are imported by
the user, never here. Imports `sklearn_rank.metrics`, `sklearn_rank.inputs`,
`sklearn_rank.conventions` and `sklearn_rank.utils`.
"""

from ._catboost import catboost_metric
from ._lightgbm import LightGBMMetric, lightgbm_metric
from ._xgboost import XGBoostMetric, xgboost_metric

__all__ = [
    "LightGBMMetric",
    "XGBoostMetric",
    "catboost_metric",
    "lightgbm_metric",
    "xgboost_metric",
]
