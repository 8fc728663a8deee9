"""
Seeds, per-query tables and rank-biased overlap
===============================================

Three questions that come after "which ranker scores higher?": is a randomised model better
than a baseline over its random seeds, not for one lucky seed (`compare(...,
replicates="mean")`); how to compare per-query values that were computed elsewhere, on an
engine or by another tool (`compare_per_query`); and how differently two rankers *rank*
the items, not only how they score (`rank_biased_overlap_runs`).

Run: python examples/compare_seeds_and_rankings.py
"""

import numpy as np
from sklearn.ensemble import RandomForestRegressor
from sklearn.linear_model import Ridge

import sklearn_rank as sr
from sklearn_rank.datasets import make_ranking

# %%
# A linear baseline and a random forest trained with three seeds
# --------------------------------------------------------------
# The first 200 queries train, the other 100 are evaluated. The forest is randomised: each
# seed gives another model, so its seeds are replicates of one system.
X, y, groups = make_ranking(n_queries=300, random_state=0)
train = groups < 200
test = ~train
baseline = Ridge(alpha=1.0).fit(X[train], y[train]).predict(X[test])
forests = [
    RandomForestRegressor(n_estimators=20, max_depth=6, n_jobs=1, random_state=seed)
    .fit(X[train], y[train])
    .predict(X[test])
    for seed in range(3)
]

# %%
# Per-query means over the seeds, then paired by query
# ----------------------------------------------------
# Each seed is evaluated, each query averaged over the seeds, and the two systems paired
# by query: the test of the system effect with random topics. Pairing every (query, seed)
# as if it were a query would reject a true null far too often.
result = sr.compare(
    y[test],
    {"ridge": [baseline], "forest": forests},
    ["ndcg@10", "map"],
    groups=groups[test],
    baseline="ridge",
    replicates="mean",
    random_state=0,
    no_relevant=0,
)
print(result)
print("replicates per system:", dict(zip(result.run_names, result.runs["n_replicates"].tolist())))

# %%
# Per-query values computed elsewhere
# -----------------------------------
# A table with the columns query, run, metric and value (a dict of arrays here; a pandas
# or polars DataFrame, or the per-query output of evaluate_dask or evaluate_spark, too)
# gives the same comparison as from judgments.
per_run = {
    name: sr.evaluate(
        y[test], scores, ["ndcg@10"], groups=groups[test], per_query="table", no_relevant=0
    )
    for name, scores in (("ridge", baseline), ("forest_seed0", forests[0]))
}
from_table = sr.compare_per_query(per_run, baseline="ridge", test="t")
from_judgments = sr.compare(
    y[test],
    {"ridge": baseline, "forest_seed0": forests[0]},
    ["ndcg@10"],
    groups=groups[test],
    baseline="ridge",
    test="t",
    no_relevant=0,
)
same = from_table.pairs["pvalue"][0] == from_judgments.pairs["pvalue"][0]
print(f"p-value from the table {from_table.pairs['pvalue'][0]:.4g}, the same bits: {same}")

# %%
# How differently do they rank? Rank-biased overlap per query
# -----------------------------------------------------------
# RBO with p = 0.9 puts 86% of its weight on the top 10. ``ext`` is the extrapolated
# score, ``res`` what the depth of the rankings leaves open; equal scores are ties
# (variant "a": the expected RBO over the ways to break them).
items = np.arange(test.sum())
ridge_run = sr.ItemRanking(groups[test], items, baseline)
forest_run = sr.ItemRanking(groups[test], items, forests[0])
other_seed = sr.ItemRanking(groups[test], items, forests[1])
between_models = sr.rank_biased_overlap_runs(ridge_run, forest_run, p=0.9)
between_seeds = sr.rank_biased_overlap_runs(forest_run, other_seed, p=0.9)
print(f"median RBO ridge vs forest:      {np.median(between_models['ext']):.3f}")
print(f"median RBO forest seed 0 vs 1:   {np.median(between_seeds['ext']):.3f}")
