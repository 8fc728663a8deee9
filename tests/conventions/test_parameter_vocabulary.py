"""One parameter vocabulary: the comparison's parameters are declared once, as the
conventions are, and the signatures, docstrings, checks and command line read them."""

import argparse
import inspect

import numpy as np
import pytest

import sklearn_rank as sr
from sklearn_rank.cli import _compare as cli_compare
from sklearn_rank.comparison._parameters import COMPARISON_PARAMETERS, SHARED
from sklearn_rank.conventions._declarations import resolve
from sklearn_rank.utils._validation import _is_bool


@pytest.mark.parametrize("function", [sr.compare, sr.compare_search])
def test_comparison_parameters_have_the_declared_default_and_text(function):
    parameters = inspect.signature(function).parameters
    doc = inspect.cleandoc(function.__doc__)
    declared = [name for name in parameters if name in COMPARISON_PARAMETERS]
    assert set(SHARED) <= set(declared)
    for name in declared:
        parameter = COMPARISON_PARAMETERS[name]
        assert parameters[name].default == parameter.default, name
        assert parameter.numpydoc() in doc, name
        assert doc.count(f"\n{name} : ") == 1, name


def _compare_parser():
    parser = argparse.ArgumentParser()
    commands = parser.add_subparsers()
    precision = int
    return cli_compare.add_parser(commands, (lambda: [], precision))


def test_cli_compare_options_come_from_the_declarations():
    actions = {action.dest: action for action in _compare_parser()._actions}
    for name in ("test", "alternative", "correction", "confidence", "n_resamples", "missing"):
        parameter = COMPARISON_PARAMETERS[name]
        assert actions[name].help == parameter.cli, name
        assert actions[name].option_strings == [parameter.flag]
        assert actions[name].default == parameter.default, name
    # Where the command line differs, on purpose: corrected_t compares a search's folds,
    # "none" spells correction=None, and a command repeats its numbers (seed 0).
    assert "corrected_t" not in actions["test"].choices
    assert actions["correction"].choices == ("holm", "bonferroni", "fdr_bh", "none")
    assert actions["random_state"].default == 0
    assert actions["random_state"].help == COMPARISON_PARAMETERS["random_state"].cli


def test_comparison_checks_run_up_front_and_show_numpy_values_plainly():
    y_true = np.array([[1, 0, 2], [0, 1, 1], [2, 2, 0]])
    runs = {"a": np.ones((3, 3)), "b": np.arange(9.0).reshape(3, 3)}
    # decimals and missing are checked before any run is evaluated, as numpy's own values
    with pytest.raises(ValueError, match=r"^decimals must be None or an integer; got 1\.5\.$"):
        sr.compare(y_true, runs, "ndcg", decimals=np.float64(1.5))
    with pytest.raises(ValueError, match=r"^missing must be one of 'zero', 'drop', 'raise'"):
        sr.compare(y_true, {"a": None, "b": None}, "ndcg", missing="skip")
    with pytest.raises(ValueError, match=r"^test must be one of .*; got 'x'\.$"):
        sr.compare(y_true, runs, "ndcg", test=np.str_("x"))


def test_conventions_show_numpy_values_plainly():
    with pytest.raises(ValueError, match=r"^gain must be one of 'linear', 'exponential'; got 'x'"):
        resolve(explicit={"gain": np.str_("x")})
    with pytest.raises(ValueError, match=r"^log_base must be .*; got 0\.5\.$"):
        resolve(explicit={"log_base": np.float64(0.5)})


@pytest.mark.parametrize("value", [True, False, np.True_, np.bool_(False)])
def test_is_bool_accepts_python_and_numpy_booleans(value):
    assert _is_bool(value)


@pytest.mark.parametrize("value", [0, 1, np.int64(1), 1.0, "True", None])
def test_is_bool_refuses_numbers_and_strings(value):
    assert not _is_bool(value)
