"""Public names follow one rule each: ``*_score`` only for greater-is-better metrics (the
registry says which), and old spellings keep working with a FutureWarning."""

import warnings

import numpy as np
import pytest

import sklearn_rank as sr
from sklearn_rank.metrics._registry import METRICS

LOWER_IS_BETTER_SUFFIXES = ("_loss", "_error")


@pytest.mark.parametrize("name", sorted(METRICS))
def test_metric_function_names_follow_the_direction_rule(name):
    metric = METRICS[name]
    function = metric.function
    assert function in sr.__all__
    assert not metric.name.endswith(("_score", *LOWER_IS_BETTER_SUFFIXES)), metric.name
    if function.endswith("_score"):
        assert metric.greater_is_better, f"{function} is lower-is-better but named *_score"
    elif metric.greater_is_better:
        # Greater-is-better without _score: only trec_eval's counts, summed over queries.
        assert function.startswith("num_") and metric.aggregate == "sum", function
    if not metric.greater_is_better:
        assert f"neg_{name}" in sr.get_scorer_names() or f"neg_{name}@K" in sr.get_scorer_names()


def test_every_public_score_function_is_greater_is_better():
    directions = {metric.function: metric.greater_is_better for metric in METRICS.values()}
    for name in sr.__all__:
        if name.endswith("_score"):
            assert directions.get(name) is True, name


@pytest.mark.parametrize("namespace", [sr, sr.metrics], ids=["sklearn_rank", "metrics"])
def test_unjudged_at_k_score_is_a_deprecated_alias(namespace):
    truth = sr.ItemJudgments(["q"] * 4, ["a", "b", "c", "d"], [1, 0, 2, 0])
    run = sr.ItemRanking(["q"] * 4, ["b", "a", "e", "c"], [0.9, 0.8, 0.7, 0.6])
    assert "unjudged_at_k_score" not in namespace.__all__
    assert "unjudged_at_k" in namespace.__all__
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        new = namespace.unjudged_at_k(truth, run, k=3, per_query=True)
    message = r"unjudged_at_k_score is deprecated in version 0\.2 and will be removed in 0\.4"
    with pytest.warns(FutureWarning, match=message) as caught:
        old = namespace.unjudged_at_k_score(truth, run, k=3, per_query=True)
    assert caught[0].filename == __file__
    np.testing.assert_array_equal(old, new)
    np.testing.assert_array_equal(new, [1 / 3])
    # Still recognised where a metric function is accepted.
    scorer = sr.make_ranking_scorer(namespace.unjudged_at_k_score, k=3)
    assert scorer.name == "neg_unjudged@3"
