"""Display styling is one dict keyword per method (``line_kwargs`` / ``bar_kwargs``); the
keyword-argument spelling still works with a FutureWarning; bad ``ax``, dicts and
comparison results are refused up front with a message naming the parameter and value."""

import warnings

import numpy as np
import pytest

import sklearn_rank as sr

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.colors import to_rgba  # noqa: E402

Y_TRUE = [[3, 2, 0, 1], [0, 0, 1, 1], [1, 0, 0, 1]]
Y_SCORE = [[0.9, 0.8, 0.1, 0.4], [0.2, 0.1, 0.7, 0.3], [0.3, 0.9, 0.5, 0.1]]
BASELINE = [[0.1, 0.8, 0.9, 0.4], [0.2, 0.1, 0.7, 0.3], [0.9, 0.3, 0.5, 0.1]]
RED = to_rgba("red")


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


class _Comparison:
    """The attributes of a comparison result that `from_comparison` reads."""

    def __init__(self):
        self.per_query = {"map": np.array([[0.5, 0.4], [0.2, 0.6], [0.7, 0.7]])}
        self.run_names = ["bm25", "dense"]
        self.query_ids = np.array(["q1", "q2", "q3"])
        self.baseline = "bm25"


# Each Display: (its styling parameter, build it from predictions with extra keywords).
BUILDERS = {
    "MetricAtKDisplay": (
        "line_kwargs",
        lambda **kw: sr.MetricAtKDisplay.from_predictions(Y_TRUE, Y_SCORE, k_max=3, **kw),
    ),
    "InterpolatedPrecisionRecallDisplay": (
        "line_kwargs",
        lambda **kw: sr.InterpolatedPrecisionRecallDisplay.from_predictions(Y_TRUE, Y_SCORE, **kw),
    ),
    "PerQueryDifferenceDisplay": (
        "bar_kwargs",
        lambda **kw: sr.PerQueryDifferenceDisplay.from_predictions(
            Y_TRUE, Y_SCORE, BASELINE, metric="mrr", **kw
        ),
    ),
}


def _colors(display):
    if hasattr(display, "bars_"):
        return {bar.get_facecolor() for bar in display.bars_}
    return {to_rgba(display.line_.get_color())}


def _linewidths(display):
    if hasattr(display, "bars_"):
        return {bar.get_linewidth() for bar in display.bars_}
    return {display.line_.get_linewidth()}


@pytest.mark.parametrize("display_name", sorted(BUILDERS))
def test_styling_dict_in_from_predictions_and_plot(display_name):
    parameter, build = BUILDERS[display_name]
    display = build(**{parameter: {"color": "red", "linewidth": 3.5}})
    assert _colors(display) == {RED}
    assert _linewidths(display) == {3.5}
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the dict spelling never warns
        display.plot(**{parameter: {"color": "blue"}})
    assert _colors(display) == {to_rgba("blue")}


@pytest.mark.parametrize("display_name", sorted(BUILDERS))
def test_keyword_styling_of_plot_is_deprecated_but_still_applied(display_name):
    parameter, build = BUILDERS[display_name]
    display = build()
    with pytest.warns(FutureWarning, match=r"deprecated in version 0\.2.*removed in 0\.4") as w:
        display.plot(color="red", linewidth=2.5)
    assert f"pass {parameter}=" in str(w[0].message)
    assert w[0].filename == __file__  # the warning points at the caller's line
    assert _colors(display) == {RED}
    assert _linewidths(display) == {2.5}
    with pytest.raises(TypeError, match=f"in {parameter} only"):
        display.plot(color="red", **{parameter: {"linewidth": 2}})


@pytest.mark.parametrize("display_name", sorted(BUILDERS))
@pytest.mark.parametrize("method", ["plot", "from_predictions"])
def test_bad_ax_is_named(display_name, method):
    _parameter, build = BUILDERS[display_name]
    call = build().plot if method == "plot" else build
    message = rf"{display_name}\.{method}: ax must be a matplotlib Axes or None; got str 'x'"
    with pytest.raises(TypeError, match=message):
        call(ax="x")


@pytest.mark.parametrize("display_name", sorted(BUILDERS))
@pytest.mark.parametrize("method", ["plot", "from_predictions"])
def test_bad_styling_dict_is_named(display_name, method):
    parameter, build = BUILDERS[display_name]
    call = build().plot if method == "plot" else build
    message = rf"{method}: {parameter} must be a dict of matplotlib properties.*got str 'red'"
    with pytest.raises(TypeError, match=message):
        call(**{parameter: "red"})


class _NeverPredicts:
    def predict(self, X):
        raise AssertionError("the estimator was asked to predict")


@pytest.mark.parametrize(
    "display_class", [sr.MetricAtKDisplay, sr.InterpolatedPrecisionRecallDisplay]
)
def test_from_estimator_checks_ax_and_style_before_predicting(display_class):
    X, y, groups = np.zeros((4, 2)), [1, 0, 1, 0], [0, 0, 1, 1]
    caller = rf"{display_class.__name__}\.from_estimator"
    with pytest.raises(TypeError, match=rf"{caller}: ax must be a matplotlib Axes"):
        display_class.from_estimator(_NeverPredicts(), X, y, groups=groups, ax="x")
    with pytest.raises(TypeError, match=rf"{caller}: line_kwargs must be a dict"):
        display_class.from_estimator(_NeverPredicts(), X, y, groups=groups, line_kwargs=["r"])


def test_bad_ax_is_refused_before_any_computation():
    # With an unknown metric, which fails once the values are computed, the ax error
    # comes first.
    with pytest.raises(TypeError, match="ax must be"):
        sr.MetricAtKDisplay.from_predictions(Y_TRUE, Y_SCORE, metric="no_such", ax=[1, 2])
    with pytest.raises(TypeError, match="ax must be"):
        sr.InterpolatedPrecisionRecallDisplay.from_predictions(
            Y_TRUE, Y_SCORE, recall_levels=[2.0], ax=object()
        )


def test_from_comparison_styling_dict_and_deprecated_keywords():
    display = sr.PerQueryDifferenceDisplay.from_comparison(
        _Comparison(), run="dense", metric="map", bar_kwargs={"color": "red"}
    )
    assert _colors(display) == {RED}
    np.testing.assert_allclose(display.differences, [-0.1, 0.4, 0.0])
    with pytest.warns(FutureWarning, match=r"from_comparison: .*deprecated in version 0\.2") as w:
        old = sr.PerQueryDifferenceDisplay.from_comparison(
            _Comparison(), run="dense", metric="map", color="red"
        )
    assert w[0].filename == __file__
    assert _colors(old) == {RED}


@pytest.mark.parametrize("result", [object(), "comparison.json", {"per_query": {}}])
def test_from_comparison_refuses_what_is_not_a_comparison(result):
    message = r"from_comparison: result must be a Comparison .*got .*which has no "
    with pytest.raises(TypeError, match=message):
        sr.PerQueryDifferenceDisplay.from_comparison(result, run="dense", metric="map")


def test_from_comparison_bad_ax_is_named():
    with pytest.raises(TypeError, match="from_comparison: ax must be a matplotlib Axes"):
        sr.PerQueryDifferenceDisplay.from_comparison(
            _Comparison(), run="dense", metric="map", ax="x"
        )
