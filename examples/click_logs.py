"""
Choose a ranker on click logs without the logging ranker's position bias
========================================================================

Clicks are not relevance labels: a user examines the top of the list far more often than
its bottom, so the items the logging ranker put first collect most of the clicks.
A new ranker that resembles the logging ranker collects the clicks of the top positions.
The inverse-propensity-scored estimate (``ips_dcg@5``: each click weighted by one over the
probability that its position was examined) picks the ranker that is really better.

Synthetic data (numpy, fixed seed): 3,000 queries of 10 candidates with two features; the
relevance depends on the first feature, the logging ranker mostly on the second; users
examine position p with probability 1 / p (the position-based model, ``eta = 1``) and click
the examined relevant items. See docs/clicks.md.

Run: python examples/click_logs.py
"""

import numpy as np
from sklearn.linear_model import Ridge

import sklearn_rank as sr

rng = np.random.default_rng(0)
n_queries, n_docs = 3_000, 10

# --- A simulated click log ------------------------------------------------------------------
features = rng.normal(size=(n_queries, n_docs, 2))
relevance = (features[..., 0] + rng.normal(scale=0.5, size=(n_queries, n_docs)) > 0.8).astype(int)
logging_scores = 0.3 * features[..., 0] + features[..., 1]
position = np.argsort(np.argsort(-logging_scores, axis=1), axis=1) + 1  # 1: the top
clicks = ((rng.random(position.shape) < 1.0 / position) & (relevance == 1)).astype(int)

# --- Three candidate rankers ------------------------------------------------------------------
rankers = {
    "the logging ranker": logging_scores,
    "first feature": features[..., 0],
    "both features": features[..., 0] + 0.5 * features[..., 1],
}

# %%
# The true ``DCG@5`` needs the relevance, which a log never shows. The clicks' plain
# ``DCG@5`` prefers the ranker that shares the logging ranker's second feature; the IPS estimate
# ranks the three as the truth does.
print(f"{'ranker':20} {'true DCG@5':>10} {'clicks DCG@5':>12} {'IPS DCG@5':>10}")
for name, scores in rankers.items():
    true = sr.dcg_score(relevance, scores, k=5, no_relevant=0)
    naive = sr.dcg_score(clicks, scores, k=5, no_relevant=0)
    ips = sr.ips_dcg_score(clicks, scores, k=5, position=position, eta=1.0)
    print(f"{name:20} {true:10.3f} {naive:12.3f} {ips:10.3f}")

# %%
# The same estimate as a scorer: a grouped cross-validation of a linear model fitted on the
# clicks, the logged positions routed to the scorer fold by fold as the query ids are.
X = features.reshape(-1, 2)
query = np.repeat(np.arange(n_queries), n_docs)
result = sr.grouped_cross_validate(
    Ridge(),
    X,
    clicks.ravel(),
    groups=query,
    scoring="ips_dcg(eta=1)@5",
    params={"position": position.ravel()},
)
print(f"Ridge fitted on clicks, 5 folds: IPS DCG@5 {result['test_score'].mean():.3f}")
