"""The Displays draw the library's own values, reuse axes, and need matplotlib only to draw."""

import os
import subprocess
import sys

import numpy as np
import pytest

import sklearn_rank as sr
from sklearn_rank.datasets import make_ranking

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

INSTALL = 'pip install "sklearn-rank[plot]"'
DISPLAYS = [
    sr.MetricAtKDisplay,
    sr.InterpolatedPrecisionRecallDisplay,
    sr.PerQueryDifferenceDisplay,
]


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def _data(seed=0, n_queries=40, n_items=15):
    rng = np.random.default_rng(seed)
    y_true = rng.choice(4, size=(n_queries, n_items), p=[0.7, 0.15, 0.1, 0.05])
    y_true[0] = 0  # a query without a relevant item
    scores = [np.round(y_true * s + rng.normal(size=y_true.shape), 1) for s in (0.8, 0.3)]
    return y_true, scores


class _Comparison:
    """Exactly the attributes of the comparison area's result that the Display reads."""

    def __init__(self, per_query, run_names, query_ids, baseline=None):
        self.per_query, self.run_names = per_query, run_names
        self.query_ids, self.baseline = query_ids, baseline


# Each case: draw one system, return (display, the values it must show, in order).
def _metric_at_k(y_true, y_score, name, ax, **kwargs):
    display = sr.MetricAtKDisplay.from_predictions(
        y_true, y_score, metric="map", k_max=12, name=name, ax=ax, **kwargs
    )
    names = [f"map@{k}" for k in range(1, 13)]
    values = sr.evaluate(y_true, y_score, names, **kwargs)
    return display, (np.arange(1, 13), [values[n] for n in names])


def _iprec(y_true, y_score, name, ax, **kwargs):
    display = sr.InterpolatedPrecisionRecallDisplay.from_predictions(
        y_true, y_score, name=name, ax=ax, **kwargs
    )
    levels = np.arange(11) / 10
    names = [f"iprec(recall={p})" for p in levels]
    values = sr.evaluate(y_true, y_score, names, **kwargs)
    return display, (levels, [values[n] for n in names])


def _difference(y_true, y_score, name, ax, **kwargs):
    baseline = np.round(y_true * 0.5 + np.random.default_rng(9).normal(size=y_true.shape), 1)
    display = sr.PerQueryDifferenceDisplay.from_predictions(
        y_true, y_score, baseline, metric="ndcg@5", name=name, ax=ax, **kwargs
    )
    run = sr.evaluate(y_true, y_score, ["ndcg@5"], per_query=True, **kwargs)["ndcg@5"]
    base = sr.evaluate(y_true, baseline, ["ndcg@5"], per_query=True, **kwargs)["ndcg@5"]
    differences = run - base
    drawn = np.sort(differences[~np.isnan(differences)])[::-1]  # skipped queries left out
    return display, (np.arange(drawn.size), drawn)


CASES = {
    "MetricAtKDisplay": _metric_at_k,
    "InterpolatedPrecisionRecallDisplay": _iprec,
    "PerQueryDifferenceDisplay": _difference,
}


def _drawn(display):
    if hasattr(display, "bars_"):
        return (
            np.array([bar.get_x() + bar.get_width() / 2 for bar in display.bars_]),
            np.array([bar.get_height() for bar in display.bars_]),
        )
    return display.line_.get_xdata(), display.line_.get_ydata()


@pytest.mark.parametrize("display_name", sorted(CASES))
@pytest.mark.parametrize("conventions", [{}, {"ties": "stable", "no_relevant": "skip"}])
def test_every_display_draws_the_library_values_and_reuses_axes(display_name, conventions):
    y_true, (strong, weak) = _data()
    case = CASES[display_name]
    first, (x, y) = case(y_true, strong, "strong", None, **conventions)
    assert isinstance(first, getattr(sr, display_name))
    assert isinstance(first.ax_, matplotlib.axes.Axes)
    assert first.figure_ is first.ax_.figure
    drawn_x, drawn_y = _drawn(first)
    np.testing.assert_allclose(drawn_x, x, rtol=0, atol=1e-12)
    np.testing.assert_allclose(drawn_y, y, rtol=0, atol=1e-12)
    second, (x2, y2) = case(y_true, weak, "weak", first.ax_, **conventions)
    assert second.ax_ is first.ax_ and second.figure_ is first.figure_
    np.testing.assert_allclose(_drawn(second)[1], y2, rtol=0, atol=1e-12)
    legend = [text.get_text() for text in first.ax_.get_legend().get_texts()]
    assert len(legend) == 2
    assert legend[0].startswith("strong") and legend[1].startswith("weak")
    label = first.ax_.get_xlabel()
    assert ("ties=stable" if conventions else "ties=average") in label
    # plot() draws the stored arrays again, on a new figure.
    again = first.plot(name="again")
    assert again is first and first.ax_ is not second.ax_
    np.testing.assert_allclose(_drawn(first)[1], y, rtol=0, atol=1e-12)


def test_metric_at_k_labels_and_legend():
    y_true, (strong, _weak) = _data()
    display = sr.MetricAtKDisplay.from_predictions(
        y_true, strong, metric="ndcg", k_max=10, name="bm25", gain="exponential"
    )
    assert display.ax_.get_xlabel() == "cut-off k\n(ties=average, gain=exponential)"
    assert display.ax_.get_ylabel() == "ndcg@k"
    expected = sr.evaluate(y_true, strong, ["ndcg@10"], gain="exponential")["ndcg@10"]
    assert display.line_.get_label() == f"bm25 (ndcg@10 = {expected:.3f})"
    preset = sr.MetricAtKDisplay.from_predictions(
        y_true, strong, metric="map", k_max=5, convention="lightgbm", no_relevant=0.0
    )
    assert preset.ax_.get_xlabel() == "cut-off k\n(convention=lightgbm, no_relevant=0)"


def test_iprec_display_reproduces_pytrec_eval():
    pytrec_eval = pytest.importorskip("pytrec_eval")
    y_true, (strong, _weak) = _data(3)
    qrels = {
        f"q{i}": {f"d{j}": int(y_true[i, j]) for j in range(y_true.shape[1])}
        for i in range(y_true.shape[0])
    }
    run = {
        f"q{i}": {f"d{j}": float(strong[i, j]) for j in range(y_true.shape[1])}
        for i in range(y_true.shape[0])
    }
    results = pytrec_eval.RelevanceEvaluator(qrels, {"iprec_at_recall"}).evaluate(run)
    truth = sr.ItemJudgments(
        np.repeat(list(qrels), y_true.shape[1]),
        [d for q in qrels for d in qrels[q]],
        y_true.ravel(),
    )
    ranking = sr.ItemRanking(
        np.repeat(list(run), y_true.shape[1]), [d for q in run for d in run[q]], strong.ravel()
    )
    display = sr.InterpolatedPrecisionRecallDisplay.from_predictions(
        truth, ranking, convention="trec_eval9", name="run"
    )
    expected = [
        np.mean([results[q][f"iprec_at_recall_{p:.2f}"] for q in qrels]) for p in np.arange(11) / 10
    ]
    np.testing.assert_allclose(display.line_.get_ydata(), expected, rtol=0, atol=1e-12)
    assert display.ax_.get_xlabel() == "recall\n(convention=trec_eval9)"
    assert display.ax_.get_ylabel() == "interpolated precision"
    assert display.line_.get_label() == f"run (11-pt avg = {np.mean(expected):.3f})"


def test_iprec_display_reads_iprec_rounding_as_evaluate_does():
    # Tied scores, graded relevance, a query without a relevant item: R = 4 at recall 0.3
    # needs lround(1.2) = 1 or (long)(1.2 + 0.9) = 2 relevant items.
    rng = np.random.default_rng(4)
    y_true = rng.choice(4, size=(30, 12), p=[0.6, 0.2, 0.1, 0.1]) * 0.5
    y_true[0] = 0
    y_score = rng.integers(0, 4, size=(30, 12)).astype(float)
    levels = [0.0, 0.15, 0.25, 0.3, 0.5, 0.7, 0.85, 1.0]
    names = [f"iprec(recall={p})" for p in levels]
    curves = {}
    for rounding in ("nearest", "plus_0.9"):
        for ties in ("average", "stable"):
            display = sr.InterpolatedPrecisionRecallDisplay.from_predictions(
                y_true, y_score, recall_levels=levels, iprec_rounding=rounding, ties=ties
            )
            expected = sr.evaluate(y_true, y_score, names, iprec_rounding=rounding, ties=ties)
            np.testing.assert_allclose(
                display.precision, [expected[n] for n in names], rtol=0, atol=1e-12
            )
            curves[rounding, ties] = display.precision
            assert f"iprec_rounding={rounding}" in display.ax_.get_xlabel()
        eleven = sr.InterpolatedPrecisionRecallDisplay.from_predictions(
            y_true, y_score, iprec_rounding=rounding
        )
        average = sr.evaluate(y_true, y_score, ["iprec_avg"], iprec_rounding=rounding)
        np.testing.assert_allclose(eleven.precision.mean(), average["iprec_avg"], atol=1e-12)
    assert np.abs(curves["nearest", "average"] - curves["plus_0.9", "average"]).max() > 0.01
    # The trec_eval9 preset rounds as 9.x; an explicit iprec_rounding wins over it.
    preset = sr.InterpolatedPrecisionRecallDisplay.from_predictions(
        y_true, y_score, recall_levels=levels, convention="trec_eval9"
    )
    nine = sr.evaluate(y_true, y_score, names, convention="trec_eval9")
    np.testing.assert_allclose(preset.precision, [nine[n] for n in names], atol=1e-12)
    explicit = sr.InterpolatedPrecisionRecallDisplay.from_predictions(
        y_true, y_score, recall_levels=levels, convention="trec_eval9", iprec_rounding="nearest"
    )
    ten = sr.evaluate(y_true, y_score, names, convention="trec_eval9", iprec_rounding="nearest")
    np.testing.assert_allclose(explicit.precision, [ten[n] for n in names], atol=1e-12)
    assert np.abs(explicit.precision - preset.precision).max() > 0.01


@pytest.mark.parametrize("version, rounding", [("10", "nearest"), ("9", "plus_0.9")])
def test_trec_eval_version_is_a_deprecated_iprec_rounding(version, rounding):
    X, y, groups = make_ranking(n_queries=20, random_state=1)
    y_score = np.round(X[:, 0], 1)
    with pytest.warns(FutureWarning, match=f"pass iprec_rounding='{rounding}'"):
        old = sr.InterpolatedPrecisionRecallDisplay.from_predictions(
            y, y_score, groups=groups, trec_eval_version=version
        )
    new = sr.InterpolatedPrecisionRecallDisplay.from_predictions(
        y, y_score, groups=groups, iprec_rounding=rounding
    )
    np.testing.assert_array_equal(old.precision, new.precision)
    assert old.ax_.get_xlabel() == new.ax_.get_xlabel()
    from sklearn.linear_model import LinearRegression

    model = LinearRegression().fit(X, y)
    deprecated = "trec_eval_version is deprecated in version 0.2 and will be removed in 0.4"
    with pytest.warns(FutureWarning, match=deprecated):
        old = sr.InterpolatedPrecisionRecallDisplay.from_estimator(
            model, X, y, groups=groups, trec_eval_version=version
        )
    new = sr.InterpolatedPrecisionRecallDisplay.from_estimator(
        model, X, y, groups=groups, iprec_rounding=rounding
    )
    np.testing.assert_array_equal(old.precision, new.precision)


def test_bad_trec_eval_version():
    with pytest.raises(ValueError, match="trec_eval_version must be '10', '9' or None; got 10"):
        sr.InterpolatedPrecisionRecallDisplay.from_predictions(
            [[1, 0]], [[0.5, 0.2]], trec_eval_version=10
        )
    with pytest.raises(ValueError, match=r"or None; got \['9'\]"):  # not a TypeError
        sr.InterpolatedPrecisionRecallDisplay.from_predictions(
            [[1, 0]], [[0.5, 0.2]], trec_eval_version=["9"]
        )
    with pytest.raises(ValueError, match="means iprec_rounding='plus_0.9', but iprec_rou"):
        sr.InterpolatedPrecisionRecallDisplay.from_predictions(
            [[1, 0]], [[0.5, 0.2]], trec_eval_version="9", iprec_rounding="nearest"
        )


def test_from_estimator_scores_rows_with_predict():
    from sklearn.linear_model import LinearRegression

    X, y, groups = make_ranking(n_queries=30, random_state=0)
    model = LinearRegression().fit(X, y)
    for display_class, kwargs in (
        (sr.MetricAtKDisplay, {"metric": "ndcg", "k_max": 8}),
        (sr.InterpolatedPrecisionRecallDisplay, {}),
    ):
        display = display_class.from_estimator(model, X, y, groups=groups, **kwargs)
        direct = display_class.from_predictions(y, model.predict(X), groups=groups, **kwargs)
        np.testing.assert_array_equal(display.line_.get_ydata(), direct.line_.get_ydata())
        assert display.line_.get_label().startswith("LinearRegression (")


def _comparison():
    per_query = {
        "ndcg@10": np.array([[0.5, 0.4, 0.9], [0.2, 0.6, 0.2], [np.nan, 0.3, 0.1], [0.7, 0.7, 0.0]])
    }
    return _Comparison(per_query, ["bm25", "dense", "hybrid"], np.array(["q1", "q2", "q3", "q4"]))


def test_from_comparison_reads_the_comparison_contract():
    result = _comparison()
    result.baseline = "bm25"
    display = sr.PerQueryDifferenceDisplay.from_comparison(result, run="hybrid", metric="ndcg@10")
    # q3 has no value for bm25 (NaN: skipped) and is left out.
    np.testing.assert_allclose(display.differences, [0.4, 0.0, -0.7])
    np.testing.assert_array_equal(display.query_ids, ["q1", "q2", "q4"])
    np.testing.assert_allclose([bar.get_height() for bar in display.bars_], [0.4, 0.0, -0.7])
    assert [t.get_text() for t in display.ax_.get_xticklabels()] == ["q1", "q2", "q4"]
    assert display.ax_.get_ylabel() == "ndcg@10: hybrid - bm25"
    legend = display.ax_.get_legend().get_texts()[0].get_text()
    assert legend == "hybrid vs bm25: 1 better, 1 worse, 1 equal"
    other = sr.PerQueryDifferenceDisplay.from_comparison(
        result, run="hybrid", metric="ndcg@10", baseline="dense", ax=display.ax_
    )
    np.testing.assert_allclose(other.differences, [0.5, -0.4, -0.2, -0.7])
    assert other.ax_ is display.ax_


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"run": "hybrid", "metric": "ndcg@10"}, "has no baseline: pass baseline="),
        ({"run": "sparse", "metric": "ndcg@10", "baseline": "bm25"}, "run must be one of"),
        ({"run": "dense", "metric": "ndcg@10", "baseline": "x"}, "baseline must be one of"),
        ({"run": "dense", "metric": "ndcg@10", "baseline": "dense"}, "the same run"),
        ({"run": "dense", "metric": "map", "baseline": "bm25"}, r"metrics \(ndcg@10\)"),
    ],
)
def test_from_comparison_errors(kwargs, message):
    with pytest.raises(ValueError, match=message):
        sr.PerQueryDifferenceDisplay.from_comparison(_comparison(), **kwargs)


def test_difference_of_item_runs_matches_queries_by_id():
    truth = sr.ItemJudgments(["a", "b", "c"], ["x", "y", "z"], [1, 1, 1])
    run = sr.ItemRanking(["a", "a", "b", "c"], ["x", "w", "w", "z"], [2.0, 1.0, 1.0, 1.0])
    baseline = sr.ItemRanking(["c", "b", "b", "d"], ["z", "y", "w", "x"], [1.0, 0.5, 1.0, 1.0])
    display = sr.PerQueryDifferenceDisplay.from_predictions(
        truth, run, baseline, metric="mrr", query_set="both"
    )
    # Queries of both runs under query_set="both": b and c (a is not in the baseline).
    np.testing.assert_array_equal(display.query_ids, ["b", "c"])
    np.testing.assert_allclose(display.differences, [-0.5, 0.0])


def test_unknown_keyword_is_named():
    with pytest.raises(TypeError, match="unexpected keyword argument 'color'.*ties"):
        sr.MetricAtKDisplay.from_predictions([[1, 0]], [[0.5, 0.1]], color="red")


@pytest.mark.slow
def test_importing_never_imports_matplotlib():
    code = (
        "import sys, sklearn_rank, sklearn_rank.plot\n"
        "sklearn_rank.MetricAtKDisplay, sklearn_rank.metric_at_k_curve\n"
        "assert 'matplotlib' not in sys.modules, 'matplotlib imported'\n"
    )
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    subprocess.run([sys.executable, "-c", code], check=True, env=env)


@pytest.mark.parametrize("display_class", DISPLAYS)
def test_without_matplotlib_says_how_to_install(display_class, monkeypatch):
    for module in [m for m in sys.modules if m == "matplotlib" or m.startswith("matplotlib.")]:
        monkeypatch.setitem(sys.modules, module, None)
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    with pytest.raises(ImportError, match=r"requires matplotlib; install it with: pip install"):
        if display_class is sr.PerQueryDifferenceDisplay:
            display_class.from_predictions([[1, 0]], [[0.5, 0.1]], [[0.1, 0.5]], metric="mrr")
        else:
            display_class.from_predictions([[1, 0]], [[0.5, 0.1]])
    needs_metric = display_class is not sr.InterpolatedPrecisionRecallDisplay
    stored = display_class([1.0, 2.0], [0.5, 0.6], **({"metric": "mrr"} if needs_metric else {}))
    with pytest.raises(ImportError) as error:
        stored.plot()
    assert INSTALL in str(error.value)


def test_from_comparison_shows_the_conventions_and_keeps_its_legend_off_the_bars():
    rng = np.random.default_rng(3)
    y_true = rng.integers(0, 3, (12, 8))
    runs = {"a": rng.random((12, 8)), "b": y_true + rng.random((12, 8))}
    result = sr.compare(y_true, runs, ["ndcg@5"], baseline="a", test="t", gain="exponential")
    display = sr.PerQueryDifferenceDisplay.from_comparison(result, run="b", metric="ndcg@5")
    expected = sr.PerQueryDifferenceDisplay.from_predictions(
        y_true, runs["b"], runs["a"], metric="ndcg@5", gain="exponential"
    )
    # The same caption as the Display drawn from the predictions with the same conventions.
    assert "gain=exponential" in display.ax_.get_xlabel()
    assert display.ax_.get_xlabel().splitlines()[1:] == expected.ax_.get_xlabel().splitlines()[1:]
    display.figure_.canvas.draw()
    legend = display.ax_.get_legend().get_window_extent()
    assert all(not legend.overlaps(bar.get_window_extent()) for bar in display.bars_)
    plt.close("all")
