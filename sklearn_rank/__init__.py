"""sklearn_rank: ranking and recommendation metrics, per query group, for scikit-learn."""

from ._evaluate import evaluate
from ._files import read_trec_qrels, read_trec_run
from ._inputs import query_ids
from ._model_selection import (
    GroupedGridSearchCV,
    GroupedRandomizedSearchCV,
    grouped_cross_validate,
)
from ._ranker import QueryGroupRanker
from ._registry import get_metric_names
from ._tables import ItemJudgments, ItemRanking
from ._scorer import RankingScorer, get_scorer, get_scorer_names, make_ranking_scorer
from .metrics import (
    average_relative_position,
    cg_score,
    dcg_score,
    f1_at_k_score,
    hit_rate_score,
    kendall_tau_score,
    mean_average_precision_score,
    mean_reciprocal_rank_score,
    ndcg_score,
    precision_at_k_score,
    ranking_auc_score,
    recall_at_k_score,
)

__version__ = "0.1.0"

__all__ = [
    "GroupedGridSearchCV",
    "GroupedRandomizedSearchCV",
    "ItemJudgments",
    "ItemRanking",
    "QueryGroupRanker",
    "RankingScorer",
    "average_relative_position",
    "cg_score",
    "dcg_score",
    "evaluate",
    "f1_at_k_score",
    "get_metric_names",
    "get_scorer",
    "get_scorer_names",
    "grouped_cross_validate",
    "hit_rate_score",
    "kendall_tau_score",
    "make_ranking_scorer",
    "mean_average_precision_score",
    "mean_reciprocal_rank_score",
    "ndcg_score",
    "precision_at_k_score",
    "query_ids",
    "read_trec_qrels",
    "read_trec_run",
    "ranking_auc_score",
    "recall_at_k_score",
]
