"""Ranking metrics per query group: the kernel, the reductions, the registry, the
aggregator, `evaluate` and one public function per metric.

Data flow: an input form is normalised (`sklearn_rank.inputs`) into one `_Queries`;
`_kernel._rank` ranks every query once into tie groups; each metric of the registry
(`_registry.METRICS`) is a short reduction over those groups (`_reductions`); `_aggregate`
applies ``no_relevant`` and the query weights. Imports `sklearn_rank.inputs`,
`sklearn_rank.conventions` and `sklearn_rank.utils` only.
"""

from ._binary import (
    average_relative_position,
    f1_at_k_score,
    hit_rate_score,
    mean_average_precision_score,
    mean_reciprocal_rank_score,
    precision_at_k_score,
    ranking_auc_score,
    recall_at_k_score,
)
from ._curves import metric_at_k_curve
from ._evaluate import evaluate
from ._graded import cg_score, dcg_score, kendall_tau_score, ndcg_score
from ._registry import get_metric_names

__all__ = [
    "average_relative_position",
    "cg_score",
    "dcg_score",
    "evaluate",
    "f1_at_k_score",
    "get_metric_names",
    "hit_rate_score",
    "kendall_tau_score",
    "mean_average_precision_score",
    "mean_reciprocal_rank_score",
    "metric_at_k_curve",
    "ndcg_score",
    "precision_at_k_score",
    "ranking_auc_score",
    "recall_at_k_score",
]
