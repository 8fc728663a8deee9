"""
Tune learning-to-rank models by ``NDCG@10``
===========================================

``NDCG@10`` is computed per query, in folds that keep queries whole.

A pointwise regressor and LightGBM's LGBMRanker (if installed) are tuned on data the library
generates itself; the script prints the best parameters and the per-fold scores.

Run: python examples/model_selection.py
"""

import numpy as np
from sklearn.ensemble import HistGradientBoostingRegressor

import sklearn_rank as sr
from sklearn_rank.datasets import make_ranking

# 200 queries of 5 to 40 candidate rows, graded relevance 0-4, rows in random order.
X, y, groups = make_ranking(n_queries=200, max_query_size=40, random_state=0)
print(f"{len(y)} rows, {len(np.unique(groups))} queries, relevance levels {np.unique(y)}\n")

scoring = ["ndcg@10", "map@10", "mrr"]


def report(name, search):
    best = search.best_index_
    folds = [search.cv_results_[f"split{i}_test_ndcg@10"][best] for i in range(search.n_splits_)]
    print(f"{name}: best parameters {search.best_params_}")
    print(f"  NDCG@10 per fold: {np.round(folds, 4).tolist()}")
    for metric in scoring:
        print(f"  mean {metric:<8} {search.cv_results_[f'mean_test_{metric}'][best]:.4f}")
    print()


# A pointwise model needs no groups to fit; the scorers and the splitter still do.
pointwise = sr.GroupedGridSearchCV(
    HistGradientBoostingRegressor(max_iter=50, random_state=0),
    {"max_leaf_nodes": [7, 31], "learning_rate": [0.05, 0.2]},
    scoring=scoring,
    refit="ndcg@10",
    cv=3,
    n_jobs=2,
)
pointwise.fit(X, y, groups=groups)
report("HistGradientBoostingRegressor (pointwise)", pointwise)

try:
    from lightgbm import LGBMRanker
except ImportError:
    print("LightGBM is not installed: skipping LGBMRanker (pip install lightgbm).")
else:
    # LGBMRanker.fit needs contiguous query groups: QueryGroupRanker sorts each fold's
    # rows by query and passes group sizes, from the same groups the splitter uses.
    # One thread per model: the search already runs two models at once (n_jobs=2), and
    # LightGBM's threads would otherwise compete for the same cores.
    ranker = sr.GroupedGridSearchCV(
        sr.QueryGroupRanker(LGBMRanker(n_estimators=50, n_jobs=1, verbose=-1, random_state=0)),
        {"estimator__num_leaves": [7, 31], "estimator__learning_rate": [0.05, 0.2]},
        scoring=scoring,
        refit="ndcg@10",
        cv=3,
        n_jobs=2,
    )
    ranker.fit(X, y, groups=groups)
    report("LGBMRanker (lambdarank)", ranker)

# The same evaluation, one call: cross-validated scores of a fixed model. n_jobs=2 fits the
# folds in two worker processes, where joblib gives each model one OpenMP thread.
result = sr.grouped_cross_validate(
    HistGradientBoostingRegressor(max_iter=50, random_state=0),
    X,
    y,
    groups=groups,
    scoring="ndcg@10",
    cv=3,
    n_jobs=2,
)
print("grouped_cross_validate NDCG@10:", np.round(result["test_score"], 4).tolist())
