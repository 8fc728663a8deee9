"""
Evaluate rankings in every input form
=====================================

The same data as a matrix, in long format and as ranked lists give the same values; then
what the tie convention and the conventions of other tools change.

Run: python examples/evaluate_rankings.py
"""

import numpy as np

import sklearn_rank as sr

rng = np.random.default_rng(0)
n_queries, n_items = 200, 30

# Graded relevance 0-3, mostly 0; scores that are informative but noisy and coarse
# (rounded to one decimal, so ties are common, as with many real models).
y_true = rng.choice(4, size=(n_queries, n_items), p=[0.8, 0.1, 0.06, 0.04])
y_score = np.round(y_true * 0.3 + rng.normal(size=(n_queries, n_items)), 1)

names = ["ndcg@10", "map@10", "mrr", "precision@5", "recall@10", "hit_rate@3", "auc", "arp"]

print("Dense matrix (queries x items), ties averaged (the default):")
dense = sr.evaluate(y_true, y_score, names)
for name, value in dense.items():
    print(f"  {name:<12} {value:.4f}")

# The same data in long format, rows shuffled, string query ids: identical values.
groups = np.repeat([f"user-{i}" for i in range(n_queries)], n_items)
order = rng.permutation(y_true.size)
long = sr.evaluate(y_true.ravel()[order], y_score.ravel()[order], names, groups=groups[order])
assert all(np.isclose(long[n], dense[n], atol=1e-12) for n in names)
print("Long format, shuffled rows: identical values.")

print("\nWhat the tie convention changes (coarse scores):")
stable = sr.evaluate(y_true, y_score, names, ties="stable")
for name in names:
    print(f"  {name:<12} average {dense[name]:.4f}   stable {stable[name]:.4f}")

print("\nConventions of other tools, made explicit:")
print(
    "  NDCG@10 linear gain (scikit-learn, trec_eval):",
    round(sr.ndcg_score(y_true, y_score, k=10), 4),
)
print(
    "  NDCG@10 exponential gain (LightGBM, XGBoost):",
    round(sr.ndcg_score(y_true, y_score, k=10, gain="exponential"), 4),
)
print(
    "  MAP@10 denominator R (trec_eval):",
    round(sr.mean_average_precision_score(y_true, y_score, k=10), 4),
)
print(
    "  MAP@10 denominator min(k, R) (LightGBM):",
    round(sr.mean_average_precision_score(y_true, y_score, k=10, ap_denominator="min_k"), 4),
)
print(
    "  Precision@5 counting only relevance >= 2:",
    round(sr.precision_at_k_score(y_true, y_score, k=5, relevance_threshold=2), 4),
)

# Ranked lists (a recommender's top-N) against truth sets.
truth = [set(np.flatnonzero(row).tolist()) for row in y_true]
top5 = np.argsort(-y_score, axis=1, kind="stable")[:, :5].tolist()
print(
    "\nTop-5 lists against truth sets:",
    {n: round(v, 4) for n, v in sr.evaluate(truth, top5, ["precision@5", "recall@5"]).items()},
)

per_query = sr.ndcg_score(y_true, y_score, k=10, per_query=True)
print(
    f"\nPer-query NDCG@10: worst query {per_query.argmin()} ({per_query.min():.3f}), "
    f"{np.mean(per_query == 0):.0%} of queries at 0"
)
