"""
Early stopping inside a grouped search, on the ``NDCG@10`` it selects on
========================================================================

LightGBM's ``LGBMRanker`` is tuned over ``num_leaves`` by a grouped grid search scored with
``NDCG@10``, and each fit stops early on the same ``NDCG@10``, computed by sklearn_rank inside
LightGBM's training loop (``lightgbm_metric``). ``QueryGroupRanker`` holds out 20% of the
queries of each training fold as the eval set, so no test fold is seen while training or
stopping.

Run: python examples/early_stopping.py
"""

import numpy as np
from lightgbm import LGBMRanker
from sklearn.model_selection import GroupShuffleSplit

import sklearn_rank as sr
from sklearn_rank.datasets import make_ranking

# 200 queries of 5 to 40 rows, graded relevance 0-4, rows in random order.
X, y, groups = make_ranking(n_queries=200, max_query_size=40, random_state=0)

ranker = sr.QueryGroupRanker(
    LGBMRanker(n_estimators=300, learning_rate=0.1, min_child_samples=10, n_jobs=1, verbose=-1),
    validation_fraction=0.2,  # of each training fold's queries, whole
    eval_metric=sr.lightgbm_metric("ndcg@10"),  # stop on sklearn_rank's NDCG@10...
    early_stopping_rounds=10,
    random_state=0,
)
search = sr.GroupedGridSearchCV(
    ranker,
    {"estimator__num_leaves": [7, 31]},
    scoring="ndcg@10",  # ...and select on the same NDCG@10 (same conventions)
    cv=3,
)
search.fit(X, y, groups=groups)

for params, score in zip(search.cv_results_["params"], search.cv_results_["mean_test_score"]):
    print(f"num_leaves={params['estimator__num_leaves']:>2}: mean test NDCG@10 {score:.4f}")
best = search.best_estimator_
print(f"best: {search.best_params_}, stopped after {best.best_iteration_} of 300 rounds")

# The number LightGBM stopped on is sklearn_rank's NDCG@10 of the held-out queries: the
# refit held out GroupShuffleSplit(test_size=0.2, random_state=0) of the queries, numbered
# in order of first appearance.
ids = list(sr.query_ids(groups))
codes = np.array([ids.index(g) for g in groups])
_, held_out = next(
    GroupShuffleSplit(n_splits=1, test_size=0.2, random_state=0).split(X, groups=codes)
)
stopped_on = best.estimator_.best_score_["valid_0"]["ndcg@10"]
recomputed = sr.ndcg_score(y[held_out], best.predict(X[held_out]), groups=groups[held_out], k=10)
print(f"NDCG@10 of the held-out queries: {stopped_on:.6f} (LightGBM's log), {recomputed:.6f}")
