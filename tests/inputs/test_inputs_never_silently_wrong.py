"""Inputs that gave wrong numbers without an error, or an error that named nothing.

Each case: a convention given in an undocumented form (a dict for ``no_relevant``), a real
number that is not a float (``fractions.Fraction``), a string hidden deep in an object
array, ids that differ only by trailing NUL characters, a cut-off of thousands of digits,
a DataFrame of top-N ids. Every public entry point they reach is tried: `evaluate`, each
metric function, `make_ranking_scorer` and the command line.
"""

import inspect
import json
from fractions import Fraction

import numpy as np
import pytest
from sklearn.linear_model import LinearRegression

import sklearn_rank as sr
from sklearn_rank.cli._main import main
from sklearn_rank.metrics._registry import METRICS

# The click-log estimators need a side input (the propensities) that the inputs here do not
# carry; tests/metrics/test_clicks.py checks them on the forms that carry one.
METRICS = {name: metric for name, metric in METRICS.items() if metric.side_inputs is None}

FUNCTIONS = sorted({metric.function for metric in METRICS.values()})
Y_TRUE = np.array([[0, 0, 0], [2, 1, 0], [3, 0, 1], [0, 2, 2]])
Y_SCORE = np.array([[1.0, 2.0, 3.0], [1.0, 3.0, 2.0], [3.0, 2.0, 1.0], [0.5, 0.1, 0.9]])


def _functions_taking(parameter):
    found = [
        name for name in FUNCTIONS if parameter in inspect.signature(getattr(sr, name)).parameters
    ]
    assert found, parameter
    return found


def _metric_names_taking(parameter):
    return [
        name
        for name, metric in METRICS.items()
        if parameter in inspect.signature(getattr(sr, metric.function)).parameters
    ]


def _scorer_names_taking(parameter):
    """Scorer names: a cut-off where the metric takes one, 'neg_' for lower-is-better;
    measures that cannot rank (counts without a cut-off) have no scorer."""
    return [
        ("" if METRICS[name].greater_is_better else "neg_")
        + name
        + ("@3" if METRICS[name].takes_k else "")
        for name in _metric_names_taking(parameter)
        if METRICS[name].takes_k or METRICS[name].ranks_without_k
    ]


# --------------------------------------------------------------------------------------
# no_relevant as a dict: the presets' internal form, not a documented value
# --------------------------------------------------------------------------------------

DICTS = [{"ndcg": float("nan")}, {"map": 5.0}, {}]


@pytest.mark.parametrize("value", DICTS, ids=repr)
@pytest.mark.parametrize("function", _functions_taking("no_relevant"))
def test_metric_functions_refuse_no_relevant_as_a_dict(function, value):
    with pytest.raises(ValueError, match=r"^no_relevant must be .*; got \{"):
        getattr(sr, function)(Y_TRUE, Y_SCORE, no_relevant=value)


@pytest.mark.parametrize("value", DICTS, ids=repr)
def test_evaluate_refuses_no_relevant_as_a_dict(value):
    with pytest.raises(ValueError, match=r"^no_relevant must be .*; got \{"):
        sr.evaluate(Y_TRUE, Y_SCORE, ["ndcg", "map", "mrr"], no_relevant=value)


@pytest.mark.parametrize("name", _scorer_names_taking("no_relevant"))
def test_scorers_refuse_no_relevant_as_a_dict(name):
    with pytest.raises(ValueError, match=r"no_relevant must be .*; got \{"):
        sr.make_ranking_scorer(name, no_relevant={"ndcg": 1.0})


def test_command_line_refuses_no_relevant_as_a_dict(capsys):
    status = main(["evaluate", "--example", "-m", "ndcg", "--no-relevant", "{'ndcg': 1}"])
    assert status == 2
    assert "--no-relevant" in capsys.readouterr().err


# --------------------------------------------------------------------------------------
# Fractions and other numbers.Real for the numeric conventions: the float's value
# --------------------------------------------------------------------------------------

REALS = {
    "no_relevant": (Fraction(1, 3), np.float32(0.25)),
    "relevance_threshold": (Fraction(3, 2), np.float16(2)),
    "log_base": (Fraction(5, 2), np.int8(3)),
}
CASES = [(parameter, value) for parameter, values in REALS.items() for value in values]


@pytest.mark.parametrize("parameter, value", CASES, ids=repr)
def test_metric_functions_take_any_real_number(parameter, value):
    for function in _functions_taking(parameter):
        call = getattr(sr, function)
        expected = call(Y_TRUE, Y_SCORE, per_query=True, **{parameter: float(value)})
        got = call(Y_TRUE, Y_SCORE, per_query=True, **{parameter: value})
        np.testing.assert_array_equal(got, expected, err_msg=function)


def test_the_conventions_change_the_values_here():
    """Otherwise the test above would pass with the parameter ignored."""
    assert sr.ndcg_score(Y_TRUE, Y_SCORE, no_relevant=1 / 3) != sr.ndcg_score(Y_TRUE, Y_SCORE)
    assert sr.mean_average_precision_score(
        Y_TRUE, Y_SCORE, relevance_threshold=1.5
    ) != sr.mean_average_precision_score(Y_TRUE, Y_SCORE)
    assert sr.dcg_score(Y_TRUE, Y_SCORE, log_base=2.5) != sr.dcg_score(Y_TRUE, Y_SCORE)


@pytest.mark.parametrize("parameter, value", CASES, ids=repr)
def test_evaluate_takes_any_real_number(parameter, value):
    names = _metric_names_taking(parameter)
    expected = sr.evaluate(Y_TRUE, Y_SCORE, names, **{parameter: float(value)})
    assert sr.evaluate(Y_TRUE, Y_SCORE, names, **{parameter: value}) == expected


@pytest.mark.parametrize("parameter, value", CASES, ids=repr)
def test_scorers_take_any_real_number(parameter, value):
    rng = np.random.default_rng(0)
    X = rng.random((40, 3))
    y = rng.integers(0, 3, 40)
    groups = np.repeat(np.arange(8), 5)
    model = LinearRegression().fit(X, y)
    for name in _scorer_names_taking(parameter):
        expected = sr.make_ranking_scorer(name, **{parameter: float(value)})
        got = sr.make_ranking_scorer(name, **{parameter: value})
        assert got(model, X, y, groups=groups) == expected(model, X, y, groups=groups), name


def test_real_numbers_are_still_checked():
    with pytest.raises(ValueError, match=r"log_base must be a finite number greater than 1"):
        sr.dcg_score(Y_TRUE, Y_SCORE, log_base=Fraction(1, 2))
    with pytest.raises(ValueError, match="relevance_threshold must be None or a positive"):
        sr.evaluate(Y_TRUE, Y_SCORE, ["map"], relevance_threshold=Fraction(-1))


# --------------------------------------------------------------------------------------
# Object arrays: every element is checked, not the first 1,000
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("bad", ["1", b"5000", 1j, np.str_("2")], ids=repr)
@pytest.mark.parametrize("where", ["y_true", "y_score"])
def test_a_string_anywhere_in_an_object_array_is_refused(bad, where):
    values = np.array([0] * 1500 + [bad] + [1], dtype=object)
    dense = {"y_true": np.zeros((1, 1502), dtype=int), "y_score": np.arange(1502.0)[None]}
    dense[where] = values[None]
    with pytest.raises(ValueError, match=rf"^{where} must contain real numbers; got .* 1500\)"):
        sr.ndcg_score(dense["y_true"], dense["y_score"])
    long = {"y_true": np.zeros(1502, dtype=int), "y_score": np.arange(1502.0)}
    long[where] = values
    with pytest.raises(ValueError, match=rf"^{where} must contain real numbers; got .* 1500\."):
        sr.evaluate(long["y_true"], long["y_score"], ["map"], groups=np.zeros(1502, int))


def test_object_arrays_of_numbers_are_read_as_numbers():
    y_true = np.array([0] * 1500 + [1, 2], dtype=object)
    y_score = np.array(list(range(1501)) + [np.float64(0.5)], dtype=object)
    groups = np.repeat([0, 1], 751)
    expected = sr.evaluate(y_true.astype(int), y_score.astype(float), ["ndcg"], groups=groups)
    assert sr.evaluate(y_true, y_score, ["ndcg"], groups=groups) == expected


# --------------------------------------------------------------------------------------
# Ids that differ only by trailing NUL characters stay distinct
# --------------------------------------------------------------------------------------


def test_query_ids_with_trailing_nul_characters_are_distinct():
    groups = ["a", "a\x00", "b", "a\x00\x00"]
    values = sr.evaluate([1, 0, 1, 1], [0.1, 0.2, 0.3, 0.4], ["mrr"], groups=groups, per_query=True)
    assert values["mrr"].tolist() == [1.0, 0.0, 1.0, 1.0]


def test_item_ids_with_trailing_nul_characters_are_distinct():
    truth = sr.ItemJudgments(["q", "q"], ["a", "a\x00"], [1, 0])
    run = sr.ItemRanking(["q", "q"], ["a\x00", "a"], [2.0, 1.0])
    assert sr.evaluate(truth, run, ["mrr", "precision@1"]) == {"mrr": 0.5, "precision@1": 0.0}
    truth = sr.ItemJudgments(["q\x00", "q"], ["a", "a"])
    run = sr.ItemRanking(["q", "q\x00"], ["a", "a"], [1.0, 1.0])
    assert sr.query_ids(truth, run).tolist() == ["q\x00", "q"]


# --------------------------------------------------------------------------------------
# A cut-off of thousands of digits: an error naming the metric and the cut-off
# --------------------------------------------------------------------------------------

HUGE = "ndcg@" + "9" * 5000


def test_evaluate_names_a_huge_cut_off():
    with pytest.raises(ValueError, match=r"^The cut-off in 'ndcg@9+\.\.\.9+' must be a positive"):
        sr.evaluate(Y_TRUE, Y_SCORE, [HUGE])
    with pytest.raises(ValueError, match="must be a positive integer up to 2..62; got 5000 dig"):
        sr.make_ranking_scorer(HUGE)
    # Leading zeros do not count: this is ndcg@2.
    [value] = sr.evaluate(Y_TRUE, Y_SCORE, ["ndcg@" + "0" * 5000 + "2"]).values()
    assert value == sr.ndcg_score(Y_TRUE, Y_SCORE, k=2) != sr.ndcg_score(Y_TRUE, Y_SCORE, k=3)


def test_command_line_names_a_huge_cut_off(capsys):
    assert main(["evaluate", "--example", "-m", HUGE]) == 2
    err = capsys.readouterr().err
    assert "The cut-off in 'ndcg@" in err and "4300" not in err


def test_command_line_still_evaluates_ordinary_cut_offs(capsys):
    assert main(["evaluate", "--example", "-m", "ndcg@2", "--format", "json"]) == 0
    assert set(json.loads(capsys.readouterr().out)) == {"ndcg@2"}


# --------------------------------------------------------------------------------------
# Top-N ids as a DataFrame
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("library", ["pandas", "polars"])
def test_from_topn_says_how_to_pass_a_dataframe(library):
    module = pytest.importorskip(library)
    frame = module.DataFrame({"first": [1, 5], "second": [2, 6]})
    with pytest.raises(TypeError, match=r"ids is a DataFrame.*ids\.to_numpy\(\)"):
        sr.ItemRanking.from_topn(frame)
    # What the message says to do works.
    run = sr.ItemRanking.from_topn(frame.to_numpy())
    assert run.items.tolist() == [1, 2, 5, 6]
