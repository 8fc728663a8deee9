"""LongTailDisplay and LorenzCurveDisplay: the shares of a slow reference, the Gini index of
`evaluate`, one reference line per axis, refusals."""

import sys

import numpy as np
import pytest
import scipy.sparse

import sklearn_rank as sr

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def _recommender(seed, n_users=30, n_items=12, width=6):
    """Top-N lists of uneven lengths (empty ones too), a training matrix with repeated
    interactions and untrained items, an empty truth."""
    rng = np.random.default_rng(seed)
    top = [
        rng.choice(n_items, int(rng.integers(0, width + 1)), replace=False).tolist()
        for _user in range(n_users)
    ]
    train = rng.poisson(0.6, (n_users, n_items)) * (rng.random(n_items) < 0.8)
    truth = scipy.sparse.csr_matrix((n_users, n_items))
    return truth, top, train


def _slow_shares(top, train, k):
    """Slot counts by a loop over users, ordered by training popularity (ties: item id)."""
    n_items = train.shape[1]
    slots = np.zeros(n_items)
    for row in top:
        for item in row[:k]:
            slots[item] += 1
    trained = train.sum(axis=0).astype(float)
    order = sorted(range(n_items), key=lambda item: (-trained[item], item))
    return (
        np.concatenate(([0.0], np.cumsum(slots[order]) / slots.sum())),
        np.concatenate(([0.0], np.cumsum(trained[order]) / trained.sum())),
        slots,
    )


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("k", [1, 3, 10])
def test_long_tail_shares_equal_a_slow_reference(seed, k):
    truth, top, train = _recommender(seed)
    display = sr.LongTailDisplay.from_predictions(
        truth, sr.ItemRanking.from_topn(top), k=k, train=train
    )
    recommended, trained, slots = _slow_shares(top, train, k)
    np.testing.assert_allclose(display.recommended_share, recommended, rtol=0, atol=1e-15)
    np.testing.assert_allclose(display.training_share, trained, rtol=0, atol=1e-15)
    np.testing.assert_array_equal(display.recommended, slots)
    np.testing.assert_array_equal(display.popularity_rank, np.arange(train.shape[1] + 1))
    np.testing.assert_array_equal(display.line_.get_ydata(), display.recommended_share)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("k", [1, 3, 10])
def test_lorenz_curve_gives_evaluates_gini(seed, k):
    truth, top, _train = _recommender(seed)
    run = sr.ItemRanking.from_topn(top)
    display = sr.LorenzCurveDisplay.from_predictions(truth, run, k=k)
    expected = sr.evaluate(truth, run, [f"gini@{k}"])[f"gini@{k}"]
    assert display.gini == expected
    # The Gini index is one minus twice the area under the Lorenz curve (trapezoids).
    x, y = display.item_share, display.exposure_share
    area = np.sum((x[1:] - x[:-1]) * (y[1:] + y[:-1]) / 2.0)
    assert display.gini == pytest.approx(1.0 - 2.0 * area, abs=1e-12)
    assert np.all(np.diff(y) >= 0) and y[0] == 0.0 and y[-1] == pytest.approx(1.0)
    assert f"gini@{k} = {expected:.3f}" in display.line_.get_label()


def test_equal_exposure_is_the_diagonal_and_gini_zero():
    truth = scipy.sparse.csr_matrix((4, 4))
    run = sr.ItemRanking.from_topn([[0, 1], [2, 3], [1, 0], [3, 2]])
    display = sr.LorenzCurveDisplay.from_predictions(truth, run, k=2)
    np.testing.assert_allclose(display.exposure_share, display.item_share, atol=1e-15)
    assert display.gini == 0.0


def test_dense_scores_and_exclusion_read_as_evaluate_reads_them():
    rng = np.random.default_rng(3)
    truth = (rng.random((20, 9)) < 0.2).astype(float)
    scores = rng.random((20, 9))
    train = (rng.random((20, 9)) < 0.3).astype(int)
    display = sr.LorenzCurveDisplay.from_predictions(truth, scores, k=3, exclude=train)
    expected = sr.evaluate(truth, scores, ["gini@3"], exclude=train)["gini@3"]
    assert display.gini == expected
    # Slot counts by hand: each row's 3 best scores among the items it did not train on.
    masked = np.where(train > 0, -np.inf, scores)
    slots = np.zeros(9)
    for row in masked:
        best = [i for i in np.argsort(-row, kind="stable")[:3] if np.isfinite(row[i])]
        slots[best] += 1
    np.testing.assert_array_equal(display.recommended, slots)


def test_several_systems_share_one_axis_and_one_reference_line():
    truth, top, train = _recommender(0)
    first = sr.LongTailDisplay.from_predictions(
        truth, sr.ItemRanking.from_topn(top), k=3, train=train, name="a"
    )
    second = sr.LongTailDisplay.from_predictions(
        truth, sr.ItemRanking.from_topn(top[::-1]), k=3, train=train, name="b", ax=first.ax_
    )
    labels = [line.get_label() for line in second.ax_.get_lines()]
    assert labels == ["training interactions", "a (top-3 slots)", "b (top-3 slots)"]
    lorenz = sr.LorenzCurveDisplay.from_predictions(truth, sr.ItemRanking.from_topn(top), k=3)
    sr.LorenzCurveDisplay.from_predictions(
        truth, sr.ItemRanking.from_topn(top[::-1]), k=3, ax=lorenz.ax_, name="b"
    )
    assert [line.get_label() for line in lorenz.ax_.get_lines()].count("equal exposure") == 1


def test_styling_dicts_reach_the_lines():
    truth, top, train = _recommender(1)
    display = sr.LongTailDisplay.from_predictions(
        truth,
        sr.ItemRanking.from_topn(top),
        k=3,
        train=train,
        line_kwargs={"color": "red"},
        reference_kwargs={"linestyle": ":"},
    )
    reference, line = display.ax_.get_lines()
    assert line.get_color() == "red" and reference.get_linestyle() == ":"


@pytest.mark.parametrize(
    "call, error, match",
    [
        (
            lambda t, r, tr: sr.LongTailDisplay.from_predictions(t, r, k=3, train=None),
            ValueError,
            "train is required",
        ),
        (
            lambda t, r, tr: sr.LongTailDisplay.from_predictions(t, r, k=0, train=tr),
            ValueError,
            "k must be a positive integer.*got 0",
        ),
        (
            lambda t, r, tr: sr.LorenzCurveDisplay.from_predictions(t, r, k=2.5),
            ValueError,
            "k must be a positive integer.*got 2.5",
        ),
        (
            lambda t, r, tr: sr.LorenzCurveDisplay.from_predictions(t, r, ax="axes"),
            TypeError,
            "ax must be a matplotlib Axes",
        ),
        (
            lambda t, r, tr: sr.LorenzCurveDisplay.from_predictions(t, r, line_kwargs=["red"]),
            TypeError,
            "line_kwargs must be a dict",
        ),
        (
            lambda t, r, tr: sr.LongTailDisplay([1, 2], [1, 2, 3], k=2),
            ValueError,
            "same length",
        ),
    ],
)
def test_bad_arguments_are_refused_with_their_name(call, error, match):
    truth, top, train = _recommender(2)
    with pytest.raises(error, match=match):
        call(truth, sr.ItemRanking.from_topn(top), train)


def test_an_item_outside_the_catalog_is_an_error():
    truth = scipy.sparse.csr_matrix((2, 3))
    with pytest.raises(ValueError, match=r"item ids must be integers in \[0, 3\).*got 7"):
        sr.LorenzCurveDisplay.from_predictions(truth, sr.ItemRanking.from_topn([[0, 7], [1, 2]]))


@pytest.mark.parametrize("display_class", [sr.LongTailDisplay, sr.LorenzCurveDisplay])
def test_without_matplotlib_says_how_to_install(display_class, monkeypatch):
    for module in [m for m in sys.modules if m == "matplotlib" or m.startswith("matplotlib.")]:
        monkeypatch.setitem(sys.modules, module, None)
    with pytest.raises(ImportError, match=r'pip install "sklearn-rank\[plot\]"'):
        display_class.from_predictions(
            scipy.sparse.csr_matrix((1, 2)), sr.ItemRanking.from_topn([[0]]), train=[[1, 0]]
        ) if display_class is sr.LongTailDisplay else display_class.from_predictions(
            scipy.sparse.csr_matrix((1, 2)), sr.ItemRanking.from_topn([[0]])
        )
