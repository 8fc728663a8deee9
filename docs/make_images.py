"""Draw the pictures of docs/plots.md into docs/images/ (one per Display).

Run: python docs/make_images.py   (needs matplotlib; about 10 seconds)
"""

from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
from sklearn.ensemble import HistGradientBoostingRegressor  # noqa: E402
from sklearn.linear_model import Ridge  # noqa: E402
from sklearn.model_selection import GroupShuffleSplit  # noqa: E402

import sklearn_rank as sr  # noqa: E402
from sklearn_rank.datasets import make_ranking  # noqa: E402

IMAGES = Path(__file__).resolve().parent / "images"


def _models():
    X, y, groups = make_ranking(n_queries=300, random_state=0)
    train, test = next(GroupShuffleSplit(test_size=0.3, random_state=0).split(X, y, groups))
    models = {
        "ridge": Ridge().fit(X[train], y[train]),
        "gradient boosting": HistGradientBoostingRegressor(max_iter=50, random_state=0).fit(
            X[train], y[train]
        ),
    }
    return models, X[test], y[test], groups[test]


def _save(display, name):
    display.figure_.set_size_inches(6.4, 4.2)
    display.figure_.savefig(IMAGES / name, dpi=100, metadata={"Software": None})
    print(IMAGES / name)


def main():
    IMAGES.mkdir(exist_ok=True)
    models, X, y, groups = _models()
    ax = None
    for name, model in models.items():
        display = sr.MetricAtKDisplay.from_estimator(
            model, X, y, groups=groups, metric="ndcg", k_max=20, name=name, ax=ax
        )
        ax = display.ax_
    _save(display, "metric_at_k.png")
    ax = None
    for name, model in models.items():
        display = sr.InterpolatedPrecisionRecallDisplay.from_estimator(
            model, X, y, groups=groups, relevance_threshold=2, name=name, ax=ax
        )
        ax = display.ax_
    _save(display, "interpolated_precision_recall.png")
    display = sr.PerQueryDifferenceDisplay.from_predictions(
        y,
        models["gradient boosting"].predict(X),
        models["ridge"].predict(X),
        metric="ndcg@10",
        groups=groups,
        name="gradient boosting",
        baseline_name="ridge",
    )
    _save(display, "per_query_difference.png")
    _exposure_images()
    plt.close("all")


def _exposure_images():
    """The long-tail plot and the Lorenz curves of docs/plots.md's two recommenders."""
    import numpy as np
    import scipy.sparse

    rng = np.random.default_rng(0)
    n_users, n_items = 500, 300
    weight = 1.0 / np.arange(1, n_items + 1) ** 0.9
    weight /= weight.sum()
    users = np.repeat(np.arange(n_users), 20)
    train = scipy.sparse.csr_matrix(
        (np.ones(users.size), (users, rng.choice(n_items, users.size, p=weight))),
        shape=(n_users, n_items),
    )
    test = scipy.sparse.csr_matrix(
        (np.ones(n_users), (np.arange(n_users), rng.choice(n_items, n_users, p=weight))),
        shape=(n_users, n_items),
    )
    most_popular = np.tile(np.asarray(train.sum(axis=0)).ravel(), (n_users, 1))
    systems = {"most popular": most_popular, "random": rng.random((n_users, n_items))}
    tail = lorenz = None
    for name, scores in systems.items():
        tail = sr.LongTailDisplay.from_predictions(
            test,
            scores,
            k=10,
            train=train,
            exclude=train,
            name=name,
            ax=None if tail is None else tail.ax_,
        )
        lorenz = sr.LorenzCurveDisplay.from_predictions(
            test,
            scores,
            k=10,
            exclude=train,
            name=name,
            ax=None if lorenz is None else lorenz.ax_,
        )
    _save(tail, "long_tail.png")
    _save(lorenz, "lorenz_curve.png")


if __name__ == "__main__":
    main()
