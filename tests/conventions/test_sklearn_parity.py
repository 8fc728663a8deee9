"""With default parameters, ndcg_score and dcg_score equal scikit-learn's."""

import inspect
import itertools
import re

import numpy as np
import pytest
from sklearn import metrics as skm

import sklearn_rank as sr

PAIRS = [(skm.ndcg_score, sr.ndcg_score), (skm.dcg_score, sr.dcg_score)]


def _random_case(rng):
    n_queries, n_items = rng.integers(1, 7), rng.integers(2, 12)
    # Heavy ties: scores from three values; graded labels with many zeros.
    y_true = rng.integers(0, 5, (n_queries, n_items)) * (rng.random((n_queries, n_items)) < 0.5)
    y_score = rng.integers(0, 3, (n_queries, n_items)) / 2.0
    weights = rng.random(n_queries) + 0.05 if rng.random() < 0.5 else None
    return y_true, y_score, weights


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("k", [None, 1, 2, 3, 5, 20])
def test_default_equals_sklearn_with_heavy_ties(seed, k):
    rng = np.random.default_rng(seed * 100 + (k or 0))
    for _ in range(20):
        y_true, y_score, weights = _random_case(rng)
        for theirs, ours in PAIRS:
            expected = theirs(y_true, y_score, k=k, sample_weight=weights)
            assert ours(y_true, y_score, k=k, sample_weight=weights) == pytest.approx(
                expected, abs=1e-12
            )


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("k", [None, 1, 3, 20])
def test_stable_equals_sklearn_ignore_ties_when_order_is_unambiguous(seed, k):
    rng = np.random.default_rng(seed)
    for _ in range(20):
        n_queries, n_items = rng.integers(1, 7), rng.integers(2, 12)
        y_true = rng.integers(0, 5, (n_queries, n_items))
        y_score = rng.permuted(np.tile(np.arange(n_items, dtype=float), (n_queries, 1)), axis=1)
        weights = rng.random(n_queries) + 0.05
        for theirs, ours in PAIRS:
            expected = theirs(y_true, y_score, k=k, sample_weight=weights, ignore_ties=True)
            got = ours(y_true, y_score, k=k, sample_weight=weights, ties="stable")
            assert got == pytest.approx(expected, abs=1e-12)


def test_dcg_log_base_matches_sklearn():
    rng = np.random.default_rng(7)
    y_true, y_score = rng.integers(0, 4, (5, 8)), rng.integers(0, 3, (5, 8))
    for base in (2, 3.5, 10):
        assert sr.dcg_score(y_true, y_score, k=4, log_base=base) == pytest.approx(
            skm.dcg_score(y_true, y_score, k=4, log_base=base), abs=1e-12
        )


def test_per_query_values_match_sklearn_row_by_row():
    rng = np.random.default_rng(3)
    y_true, y_score = rng.integers(0, 3, (6, 7)), rng.integers(0, 2, (6, 7))
    per_query = sr.ndcg_score(y_true, y_score, k=3, per_query=True)
    expected = [skm.ndcg_score(y_true[i : i + 1], y_score[i : i + 1], k=3) for i in range(6)]
    np.testing.assert_allclose(per_query, expected, atol=1e-12, rtol=0)


# --------------------------------------------------------------------------------------
# A drop-in: code written for sklearn.metrics.ndcg_score / dcg_score runs unchanged
# --------------------------------------------------------------------------------------

# Values tried for each of scikit-learn's keyword arguments.
SKLEARN_ARGUMENTS = {
    "k": [None, 1, 3, 20],
    "sample_weight": [None, "random"],
    "ignore_ties": [False, True],
    "log_base": [2, 10, np.e],
}


def _sklearn_calls(function, rng, n_queries):
    """Every combination of the keyword arguments in scikit-learn's signature."""
    names = [
        p.name for p in inspect.signature(function).parameters.values() if p.kind == p.KEYWORD_ONLY
    ]
    assert set(names) <= set(SKLEARN_ARGUMENTS), "a scikit-learn argument is not tried"
    for values in itertools.product(*(SKLEARN_ARGUMENTS[name] for name in names)):
        kwargs = dict(zip(names, values))
        if kwargs.get("sample_weight") == "random":
            kwargs["sample_weight"] = rng.random(n_queries) + 0.05
        yield kwargs


@pytest.mark.parametrize("theirs, ours", PAIRS)
def test_signature_takes_sklearn_arguments_the_same_way(theirs, ours):
    ours_parameters = inspect.signature(ours).parameters
    for name, parameter in inspect.signature(theirs).parameters.items():
        assert name in ours_parameters
        assert ours_parameters[name].kind == parameter.kind, name


@pytest.mark.slow
@pytest.mark.parametrize("theirs, ours", PAIRS)
@pytest.mark.parametrize("seed", range(4))
def test_every_sklearn_call_gives_sklearn_value_on_tied_data(theirs, ours, seed):
    rng = np.random.default_rng(seed)
    for width in (2, 5, 9, 17, 40):
        n_queries = 6
        y_true = rng.integers(0, 4, (n_queries, width)) * (rng.random((n_queries, width)) < 0.6)
        # Integer and float scores with many ties: numpy's default argsort (which
        # scikit-learn's ignore_ties=True relies on) leaves ties in no specified order.
        for y_score in (
            rng.integers(0, 3, (n_queries, width)),
            rng.integers(0, 4, (n_queries, width)) / 3,
        ):
            assert ours(y_true, y_score) == pytest.approx(theirs(y_true, y_score), abs=1e-12)
            for kwargs in _sklearn_calls(theirs, rng, n_queries):
                expected = theirs(y_true, y_score, **kwargs)
                got = ours(y_true, y_score, **kwargs)
                assert got == pytest.approx(expected, abs=1e-12), kwargs


@pytest.mark.parametrize("theirs, ours", PAIRS)
def test_ignore_ties_false_is_tie_averaging_and_true_is_stable_without_ties(theirs, ours):
    rng = np.random.default_rng(8)
    y_true = rng.integers(0, 4, (5, 7))
    tied = rng.integers(0, 3, (5, 7)).astype(float)
    untied = rng.permuted(np.tile(np.arange(7.0), (5, 1)), axis=1)
    assert ours(y_true, tied, ignore_ties=False) == ours(y_true, tied, ties="average")
    assert ours(y_true, untied, ignore_ties=True) == ours(y_true, untied, ties="stable")
    # Consistent pairs are accepted.
    assert ours(y_true, tied, ignore_ties=False, ties="average") == ours(y_true, tied)
    assert ours(y_true, tied, ignore_ties=True, ties="stable") == ours(
        y_true, tied, ignore_ties=True
    )
    # Long format has no scikit-learn order to follow: True is ties="stable".
    groups = np.repeat(np.arange(5), 7)
    assert ours(y_true.ravel(), tied.ravel(), groups=groups, ignore_ties=True) == ours(
        y_true.ravel(), tied.ravel(), groups=groups, ties="stable"
    )


@pytest.mark.parametrize("ours", [sr.ndcg_score, sr.dcg_score])
@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"ignore_ties": True, "ties": "average"}, "spelling of ties='stable'; got ties='average'"),
        ({"ignore_ties": False, "ties": "stable"}, "spelling of ties='average'; got ties='stable'"),
        ({"ignore_ties": True, "tie_break": "item_descending"}, "contradicts it"),
        ({"ignore_ties": "yes"}, "ignore_ties must be True, False or None; got 'yes'"),
    ],
)
def test_contradictory_ignore_ties_is_refused(ours, kwargs, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        ours([[1, 0, 2]], [[0.5, 0.5, 0.1]], **kwargs)


@pytest.mark.parametrize("theirs, ours", PAIRS)
def test_convention_is_accepted(theirs, ours):
    y_true, y_score = [[3, 2, 0, 1]], [[0.5, 0.5, 0.1, 0.4]]
    assert ours(y_true, y_score, convention="sklearn") == pytest.approx(theirs(y_true, y_score))
    assert ours(y_true, y_score, convention="trec_eval") == ours(
        y_true, y_score, ties="stable", tie_break="item_descending", score_dtype="float32"
    )
