"""
Plan a test collection from a pilot run
=======================================

Before judging queries for a comparison of rankers, decide how many to judge. A pilot of a
few judged queries and the candidate systems gives the variability of their per-query
differences; the exact power of the paired t-test then says how many queries find a true
difference of a given size with a given probability (Sakai's topic-set-size design), and
what the pilot's own queries could find.

Run: python examples/plan_test_collection.py
"""

import numpy as np

import sklearn_rank as sr
from sklearn_rank.datasets import make_ranking

# %%
# A pilot: 25 judged queries, four systems
# ----------------------------------------
# The systems are the judgments blurred by more or less noise; any y_score form works.
X, qrels, qid = make_ranking(n_queries=25, random_state=1)
rng = np.random.default_rng(1)
noise = {"bm25": 3.0, "dense": 2.5, "hybrid": 2.0, "rerank": 1.5}
runs = {name: qrels + rng.normal(scale=scale, size=qrels.size) for name, scale in noise.items()}
pilot = sr.compare(qrels, runs, "ndcg@10", groups=qid, baseline="bm25", test="t")
print(pilot.to_markdown())

# %%
# The variability of per-query differences
# ----------------------------------------
# The residual variance of the two-way ANOVA (query and system effects removed) pools every
# pair of systems: twice it is the mean variance of their per-query differences.
per_query = pilot.per_query["ndcg@10"]
sd = float(np.sqrt(2 * sr.within_system_variance(per_query)))
pairwise = [
    np.std(per_query[:, j] - per_query[:, k], ddof=1)
    for j in range(per_query.shape[1])
    for k in range(j)
]
print(f"sd of per-query differences: {sd:.4f} (pairs: {min(pairwise):.4f} to {max(pairwise):.4f})")

# %%
# How many queries to judge
# -------------------------
# The smallest number of queries for which the paired t-test at the 5% level finds each true
# difference with probability 0.8 and 0.9.
print("\ndifference  queries (power 0.8)  queries (power 0.9)")
for delta in (0.02, 0.03, 0.05, 0.08, 0.10):
    n80 = sr.topic_set_size(delta, sd, power=0.8)
    n90 = sr.topic_set_size(delta, sd, power=0.9)
    print(f"{delta:10.2f}  {n80:19d}  {n90:19d}")

# %%
# What the pilot's 25 queries can find
# ------------------------------------
# The power for a few true differences, and the smallest difference found with probability
# 0.8; per pair of the pilot, with each pair's own variability.
print(
    f"\npower with 25 queries: delta 0.05 -> {sr.paired_t_power(0.05, sd, 25):.3f}, "
    f"delta 0.10 -> {sr.paired_t_power(0.10, sd, 25):.3f}"
)
print(
    f"minimum detectable difference with 25 queries: {sr.minimum_detectable_difference(sd, 25):.4f}"
)
for run, power, mde in zip(
    pilot.pairs["run"], pilot.power(0.05), pilot.minimum_detectable_difference()
):
    print(f"  {run} vs bm25: power for 0.05 = {power:.3f}, detectable difference = {mde:.4f}")

# %%
# Other designs
# -------------
# All four systems at once (one-way ANOVA, range of means 0.05, within-system variance), and
# an interval of the mean difference no wider than 0.04 on average.
one_way = sr.within_system_variance(per_query, method="one_way")
n_anova = sr.topic_set_size(0.05, np.sqrt(one_way), design="anova", n_systems=4)
n_ci = sr.topic_set_size(None, sd, design="ci", max_width=0.04)
print(f"\nANOVA of 4 systems, range 0.05: {n_anova} queries; 95% interval width 0.04: {n_ci}")
