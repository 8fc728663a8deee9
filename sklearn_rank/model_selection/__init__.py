"""Model selection per query group: scorers that rank per query (requesting ``groups``
through scikit-learn's metadata routing), grouped cross-validation and searches whose folds
keep queries whole, and `QueryGroupRanker` for learning-to-rank estimators. Imports
`sklearn_rank.metrics`, `sklearn_rank.conventions` and `sklearn_rank.utils`.
"""

from ._multimetric import MultimetricRankingScorer, make_ranking_scorers
from ._ranker import QueryGroupRanker
from ._refit import BestWithinBounds
from ._scorer import RankingScorer, get_scorer, get_scorer_names, make_ranking_scorer
from ._search import GroupedGridSearchCV, GroupedRandomizedSearchCV, grouped_cross_validate

__all__ = [
    "BestWithinBounds",
    "GroupedGridSearchCV",
    "GroupedRandomizedSearchCV",
    "MultimetricRankingScorer",
    "QueryGroupRanker",
    "RankingScorer",
    "get_scorer",
    "get_scorer_names",
    "grouped_cross_validate",
    "make_ranking_scorer",
    "make_ranking_scorers",
]
