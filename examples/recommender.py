"""
Evaluate two recommenders on implicit feedback
==============================================

Training items are excluded from each user's candidates.

Synthetic data (numpy, fixed seed): 2,000 users x 1,000 items, interactions drawn from a
latent-factor model with a Zipf-like item popularity, each user's interactions split 80/20
into train and test. A popularity baseline and a truncated SVD of the training matrix are
evaluated twice: from dense score matrices, and from top-100 item ids per user.

Run: python examples/recommender.py
"""

import numpy as np
import scipy.sparse
import scipy.sparse.linalg

import sklearn_rank as sr

rng = np.random.default_rng(0)
n_users, n_items, n_factors, top_n = 2_000, 1_000, 16, 100

# --- Data --------------------------------------------------------------------------------
user_factors = rng.normal(size=(n_users, n_factors))
item_factors = rng.normal(size=(n_items, n_factors))
# Item popularity ~ 1 / popularity rank: a few items get most interactions, so a
# popularity baseline is strong and a model has to beat it with personal taste.
popularity = -np.log(rng.permutation(n_items) + 1.0)
logits = 2.0 * user_factors @ item_factors.T / np.sqrt(n_factors) + popularity

# Gumbel top-k: the n_u largest of logits + Gumbel noise are a sample without replacement
# with probabilities proportional to exp(logits), for all users at once (no Python loop).
n_per_user = 10 + rng.poisson(20, size=n_users)
rows = np.arange(n_users)[:, None]
positions = np.arange(n_items)[None, :]
order = np.argsort(-(logits + rng.gumbel(size=logits.shape)), axis=1)
interacted = np.zeros((n_users, n_items), dtype=bool)
interacted[rows, order] = positions < n_per_user[:, None]

# Hold out a uniformly random 20% of each user's items (at least one), so every user has
# something to find and the split does not favour the items the user likes most.
n_test = np.maximum(1, np.round(0.2 * n_per_user)).astype(int)
order = np.argsort(np.where(interacted, rng.random(interacted.shape), np.inf), axis=1)
test = np.zeros_like(interacted)
test[rows, order] = positions < n_test[:, None]
train_csr = scipy.sparse.csr_matrix(interacted & ~test, dtype=np.float64)
test_csr = scipy.sparse.csr_matrix(test, dtype=np.float64)

# --- Recommenders ------------------------------------------------------------------------
counts = np.asarray(train_csr.sum(axis=0)).ravel()
# Many items share a count. A served list must put tied items in some order; breaking the
# ties in the score (by item id) makes the dense and the top-N evaluations judge the same
# ranking (with ties left in, the dense form would average over their orders instead).
popularity_scores = np.broadcast_to(counts - np.arange(n_items) / n_items, (n_users, n_items))

# Rank 16 matches the generating model; svds keeps the training matrix sparse.
u, s, vt = scipy.sparse.linalg.svds(train_csr, k=n_factors, random_state=0)
svd_scores = (u * s) @ vt

models = {"popularity": popularity_scores, "svd": svd_scores}

# --- (a) Dense scores against sparse truth, training items excluded ----------------------
names = ["precision@5", "recall@5", "f1@5", "ndcg@5", "hit_rate@5", "mrr", "map", "arp", "auc"]
# The cut-off forms of the list-wide metrics, so that (a) and (b) can be compared.
cut_names = [
    "precision@5",
    "recall@5",
    "f1@5",
    "ndcg@5",
    "hit_rate@5",
    "mrr@100",
    "map@100",
    "ndcg@100",
    "recall@100",
    "auc@100",
]
dense = {
    name: sr.evaluate(test_csr, scores, names + cut_names, exclude=train_csr)
    for name, scores in models.items()
}

# --- (b) Top-100 item ids per user, as a serving system would return them ----------------
topn = {}
# The list itself must skip training items: exclude= would remove them from a list after
# the fact and shorten it below 100.
seen = train_csr.toarray() != 0
for name, scores in models.items():
    masked = np.where(seen, -np.inf, scores)
    top_ids = np.argsort(-masked, axis=1, kind="stable")[:, :top_n]
    topn[name] = sr.evaluate(test_csr, sr.ItemRanking.from_topn(top_ids), cut_names)

# Metrics that stop at k <= 100 see only the top 100, which both forms share.
for name in models:
    for metric in cut_names:
        assert abs(dense[name][metric] - topn[name][metric]) < 1e-12, (name, metric)

# --- Report ------------------------------------------------------------------------------
labels = {
    "precision@5": "Precision@5",
    "recall@5": "Recall@5",
    "f1@5": "F1@5",
    "ndcg@5": "NDCG@5",
    "hit_rate@5": "1-call@5 (hit rate)",
    "mrr": "MRR",
    "map": "MAP",
    "arp": "ARP (lower is better)",
    "auc": "AUC",
}
print(
    f"{n_users:,} users x {n_items:,} items: {train_csr.nnz:,} training and "
    f"{test_csr.nnz:,} test interactions."
)
print(
    "Training items were excluded: each user's candidates are the items outside their\n"
    "training set (I \\ I_u), so positions, AUC pairs and ARP count only those.\n"
)
print(f"{'metric':<22} {'popularity':>10} {'svd':>10}")
for metric, label in labels.items():
    print(f"{label:<22} {dense['popularity'][metric]:>10.4f} {dense['svd'][metric]:>10.4f}")
print(
    f"\nTop-{top_n} ids (ItemRanking.from_topn) against the sparse test truth give the "
    f"dense scores' values\nat every cut-off <= {top_n} (checked: {', '.join(cut_names)})."
)
print("MRR, MAP, ARP and AUC without a cut-off need every candidate: dense scores only.")

assert dense["svd"]["ndcg@5"] > dense["popularity"]["ndcg@5"]
better = sum(
    (dense["svd"][m] < dense["popularity"][m])
    if m == "arp"
    else (dense["svd"][m] > dense["popularity"][m])
    for m in labels
)
assert better > len(labels) / 2, better
