"""
Comparing rankers with metric@k curves and per-query bars
=========================================================

Two rankers are trained on synthetic queries and compared on held-out queries in three
pictures: NDCG at every cut-off k (`MetricAtKDisplay`, one ranking of the input for the
whole curve), trec_eval's 11-point interpolated precision-recall curve
(`InterpolatedPrecisionRecallDisplay`) and the per-query differences of one against the
other (`PerQueryDifferenceDisplay`). Needs matplotlib: ``pip install "sklearn-rank[plot]"``.

Run: python examples/plot_metric_at_k.py
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.ensemble import HistGradientBoostingRegressor
from sklearn.linear_model import Ridge
from sklearn.model_selection import GroupShuffleSplit

import sklearn_rank as sr
from sklearn_rank.datasets import make_ranking

# %%
# Data and models
# ---------------
# Graded relevance 0-4 for queries of 5 to 50 candidates; the split keeps queries whole.
X, y, groups = make_ranking(n_queries=300, random_state=0)
train, test = next(GroupShuffleSplit(test_size=0.3, random_state=0).split(X, y, groups))
models = {
    "ridge": Ridge().fit(X[train], y[train]),
    "gradient boosting": HistGradientBoostingRegressor(max_iter=50, random_state=0).fit(
        X[train], y[train]
    ),
}

# %%
# The metric at every cut-off
# ---------------------------
# `metric_at_k_curve` returns the value at k = 1..k_max; each point equals
# ``evaluate(..., ["ndcg@k"])``.
ks, values = sr.metric_at_k_curve(
    y[test], models["ridge"].predict(X[test]), "ndcg", k_max=10, groups=groups[test]
)
print("ridge NDCG@1..10:", np.round(values, 3))

# Both models on one axis: pass the first display's axes to the second.
fig, ax = plt.subplots(layout="constrained")
for name, model in models.items():
    sr.MetricAtKDisplay.from_estimator(
        model, X[test], y[test], groups=groups[test], metric="ndcg", k_max=20, name=name, ax=ax
    )
ax.set_title("NDCG@k on held-out queries")

# %%
# Interpolated precision-recall (trec_eval's iprec_at_recall)
# -----------------------------------------------------------
# An item is relevant when its grade is at least 2 here; the 11-point average is in the
# legend.
display = None
for name, model in models.items():
    display = sr.InterpolatedPrecisionRecallDisplay.from_estimator(
        model,
        X[test],
        y[test],
        groups=groups[test],
        relevance_threshold=2,
        name=name,
        ax=None if display is None else display.ax_,
    )
print("gradient boosting, 11 points:", np.round(display.precision, 3))

# %%
# Which queries does gradient boosting win?
# -----------------------------------------
# One bar per held-out query: its ``NDCG@10`` minus ridge's, sorted.
difference = sr.PerQueryDifferenceDisplay.from_predictions(
    y[test],
    models["gradient boosting"].predict(X[test]),
    models["ridge"].predict(X[test]),
    metric="ndcg@10",
    groups=groups[test],
    name="gradient boosting",
    baseline_name="ridge",
)
wins = int((difference.differences > 0).sum())
print(f"gradient boosting is better on {wins} of {difference.differences.size} queries")
plt.show()
