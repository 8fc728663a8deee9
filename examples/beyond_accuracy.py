"""
Choose a recommender beyond accuracy
====================================

Tuned by NDCG alone, a recommender fills its lists with popular items.

Data shaped like MovieLens 100K, generated here (no download): 943 users, 1,682 items of
long-tailed popularity, about 80 training and 20 test interactions per user. A model's score
is a learned taste plus ``weight`` times the logarithm of the item's training popularity.
The script prints ``NDCG@10`` beside catalog coverage, the Gini index, novelty, popularity and
the long-tail share for each weight, picks the best ``NDCG@10`` among the weights that keep
``coverage@10`` at 0.3 or more with `BestWithinBounds`, and draws the long-tail plot and the
Lorenz curves when matplotlib is installed.

Run: python examples/beyond_accuracy.py
"""

import numpy as np
import scipy.sparse

import sklearn_rank as sr

rng = np.random.default_rng(0)
n_users, n_items, dim = 943, 1_682, 16

# --- Data: taste plus a long tail of popularity -----------------------------------------
users = rng.normal(size=(n_users, dim))
items = rng.normal(size=(n_items, dim))
taste = users @ items.T / np.sqrt(dim)
logits = taste + 1.5 * np.log(1.0 / np.arange(1, n_items + 1) ** 0.8)
# Gumbel top-m: m distinct items per user, drawn in proportion to exp(logits).
draws = np.argsort(-(logits + rng.gumbel(size=logits.shape)), axis=1)[:, :100]
rows = np.repeat(np.arange(n_users), 100)
held_out = rng.random(draws.shape) < 0.2
test = scipy.sparse.csr_matrix(
    (np.ones(held_out.sum()), (rows[held_out.ravel()], draws[held_out])), (n_users, n_items)
)
train = scipy.sparse.csr_matrix(
    (np.ones((~held_out).sum()), (rows[~held_out.ravel()], draws[~held_out])),
    (n_users, n_items),
)
print(f"{n_users} users, {n_items} items: {train.nnz} training, {test.nnz} test interactions\n")

# --- The trade-off ------------------------------------------------------------------------
log_popularity = np.log(np.asarray(train.sum(axis=0)).ravel() + 1.0)
names = ["ndcg@10", "coverage@10", "gini@10", "novelty@10", "popularity@10", "aplt@10"]
weights = [0.0, 0.25, 0.5, 1.0, 2.0]
results = {name: [] for name in names}
for weight in weights:
    values = sr.evaluate(test, taste + weight * log_popularity, names, train=train, exclude=train)
    for name in names:
        results[name].append(values[name])

print(f"{'weight':14}" + "".join(f"{w:>9}" for w in weights))
for name in names:
    print(f"{name:14}" + "".join(f"{value:9.3f}" for value in results[name]))

# --- The best NDCG@10 with enough of the catalog in the lists ------------------------------
table = {f"mean_test_{name}": np.array(values) for name, values in results.items()}
choose = sr.BestWithinBounds("ndcg@10", lower={"coverage@10": 0.3})
best = choose(table)
print(f"\nbest NDCG@10 overall: weight {weights[int(np.argmax(results['ndcg@10']))]}")
print(f"best NDCG@10 with coverage@10 >= 0.3: weight {weights[best]}")
for index, reasons in choose.excluded_.items():
    print(f"  weight {weights[index]} left out: {'; '.join(reasons)}")

# --- Pictures -------------------------------------------------------------------------------
try:
    import matplotlib
except ImportError:
    print("\nmatplotlib is not installed: no pictures")
else:
    matplotlib.use("Agg")
    tail = lorenz = None
    for weight in (0.0, weights[best], 2.0):
        scores = taste + weight * log_popularity
        name = f"weight {weight}"
        tail = sr.LongTailDisplay.from_predictions(
            test, scores, k=10, train=train, exclude=train, name=name, ax=tail and tail.ax_
        )
        lorenz = sr.LorenzCurveDisplay.from_predictions(
            test, scores, k=10, exclude=train, name=name, ax=lorenz and lorenz.ax_
        )
    print(f"\nGini index of the last system drawn: {lorenz.gini:.3f}")
