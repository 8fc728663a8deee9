"""
Compare three rankers from a grouped search
===========================================

A grouped search ranks its candidates by their mean ``NDCG@10`` over the folds, but a higher
mean is not yet a better ranker: the gap may be noise from the particular queries. The
search keeps every candidate's out-of-fold value of each query (each query is scored by
the models that did not see it), so `compare_search` can pair the candidates query by query,
test each against the best with a paired randomization test, correct the p-values for the
number of comparisons (Holm), and give intervals and effect sizes.

Run: python examples/compare_rankers.py
"""

import numpy as np
from sklearn.ensemble import GradientBoostingRegressor, RandomForestRegressor
from sklearn.linear_model import Ridge
from sklearn.pipeline import Pipeline

import sklearn_rank as sr
from sklearn_rank.datasets import make_ranking

# %%
# Three rankers in one grouped search
# -----------------------------------
# 300 queries with graded relevance; the folds keep every query whole. The models use one
# thread each, so that the script's time does not depend on the machine's load.
X, y, groups = make_ranking(n_queries=300, random_state=0)
rankers = [
    Ridge(alpha=1.0),
    RandomForestRegressor(n_estimators=30, max_depth=8, n_jobs=1, random_state=0),
    GradientBoostingRegressor(n_estimators=60, max_depth=3, random_state=0),
]
search = sr.GroupedGridSearchCV(
    Pipeline([("model", Ridge())]),
    {"model": rankers},
    scoring=["ndcg@10", "map"],
    refit="ndcg@10",
    cv=5,
)
search.fit(X, y, groups=groups)
print(f"{len(np.unique(groups))} queries, {len(y)} rows; mean NDCG@10 over folds:")
for params, score in zip(search.cv_results_["params"], search.cv_results_["mean_test_ndcg@10"]):
    print(f"  {type(params['model']).__name__:<26} {score:.4f}")

# %%
# Paired per-query comparison against the best candidate
# ------------------------------------------------------
# Every candidate against the best one on ``NDCG@10`` and MAP; the table marks the means that
# differ from the best at Holm-adjusted p <= 0.05. Per-query tests answer "on this data,
# which ranks better?".
result = sr.compare_search(search, ["ndcg@10", "map"], baseline="best", random_state=0)
print()
print(result.to_markdown())

pairs = result.pairs
print("run vs baseline, metric: difference [95% interval], d_z, adjusted p, wins/ties/losses")
for i in range(len(pairs["run"])):
    print(
        f"  {pairs['run'][i]} vs {pairs['baseline'][i]}, {pairs['metric'][i]}: "
        f"{pairs['diff'][i]:+.4f} [{pairs['diff_ci_low'][i]:+.4f}, {pairs['diff_ci_high'][i]:+.4f}]"
        f", d_z {pairs['effect_size'][i]:+.2f}, p {pairs['pvalue_adjusted'][i]:.4f}, "
        f"{pairs['wins'][i]}/{pairs['ties'][i]}/{pairs['losses'][i]}"
    )

# %%
# The fold-level test
# -------------------
# ``test="corrected_t"`` compares the candidates' scores on each of the 5 splits with Nadeau
# and Bengio's corrected t-test, which also accounts for the variation from training sets;
# with only 4 degrees of freedom it is far less sensitive than the per-query tests.
folds = sr.compare_search(search, "ndcg@10", test="corrected_t")
print()
print(folds.to_markdown())
