"""BestWithinBounds: the best candidate on one metric among those within bounds on others."""

import numpy as np
import pytest
from sklearn.ensemble import HistGradientBoostingRegressor

import sklearn_rank as sr
from sklearn_rank.datasets import make_ranking


def _slow_choice(objective, bounded):
    """The first index of the greatest objective among candidates within every bound, by a
    plain loop (``bounded``: list of (values, low, high))."""
    best = None
    for index, value in enumerate(objective):
        if np.isnan(value):
            continue
        inside = all(
            not np.isnan(v[index])
            and (low is None or v[index] >= low)
            and (high is None or v[index] <= high)
            for v, low, high in bounded
        )
        if inside and (best is None or value > objective[best]):
            best = index
    return best


@pytest.mark.parametrize("seed", range(20))
def test_choice_equals_a_plain_loop(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 12))
    # Few distinct values, so that ties in the objective and values on a bound are common.
    ndcg = rng.integers(0, 4, n) / 4.0
    cover = rng.integers(0, 4, n) / 4.0
    arp = rng.integers(0, 4, n) / 4.0
    ndcg[rng.random(n) < 0.15] = np.nan
    cv_results = {
        "mean_test_ndcg@10": ndcg,
        "mean_test_coverage@10": cover,
        "mean_test_neg_arp": -arp,
    }
    low, high = float(rng.integers(0, 4)) / 4.0, float(rng.integers(0, 4)) / 4.0
    refit = sr.BestWithinBounds("ndcg@10", lower={"coverage@10": low}, upper={"arp": high})
    expected = _slow_choice(ndcg, [(cover, low, None), (arp, None, high)])
    if expected is None:
        with pytest.raises(ValueError, match="none of the"):
            refit(cv_results)
        return
    assert refit(cv_results) == expected == refit.best_index_
    inside = ~np.isnan(ndcg) & (cover >= low) & (arp <= high)
    np.testing.assert_array_equal(refit.within_bounds_, inside)
    assert sorted(refit.excluded_) == np.flatnonzero(~inside).tolist()


def test_reasons_name_each_bound_missed_with_its_value():
    cv_results = {
        "mean_test_ndcg@10": np.array([0.9, np.nan, 0.5, 0.7]),
        "mean_test_map": np.array([0.2, 0.5, 0.5, 0.6]),
        "mean_test_neg_arp": np.array([-0.5, -0.1, -0.1, -0.1]),
    }
    refit = sr.BestWithinBounds("ndcg@10", lower={"map": 0.4}, upper={"arp": 0.3})
    assert refit(cv_results) == 3
    assert refit.excluded_ == {
        0: ["map = 0.2 < 0.4", "arp = 0.5 > 0.3"],
        1: ["ndcg@10 is NaN (the fit failed)"],
    }


def test_bounds_on_the_negated_key_read_negated_values():
    cv_results = {
        "mean_test_ndcg@10": np.array([0.9, 0.8]),
        "mean_test_neg_arp": np.array([-0.5, -0.2]),
    }
    assert sr.BestWithinBounds("ndcg@10", lower={"neg_arp": -0.3})(cv_results) == 1
    assert sr.BestWithinBounds("ndcg@10", upper={"arp": 0.3})(cv_results) == 1


def test_nothing_within_bounds_says_how_near_the_candidates_came():
    cv_results = {"mean_test_ndcg@10": np.array([0.9, 0.8]), "mean_test_map": np.array([0.2, 0.3])}
    with pytest.raises(ValueError, match=r"map >= 0.5 \(the largest is 0.3\)"):
        sr.BestWithinBounds("ndcg@10", lower={"map": 0.5})(cv_results)


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        ({"metric": 3}, TypeError, "metric must be a scorer name"),
        ({"metric": "ndcg@10", "lower": [("map", 0.3)]}, TypeError, "lower must be a dict"),
        ({"metric": "ndcg@10", "upper": {"arp": "0.3"}}, TypeError, r"upper\['arp'\]"),
        ({"metric": "ndcg@10", "upper": {"arp": True}}, TypeError, r"upper\['arp'\]"),
        ({"metric": "ndcg@10", "lower": {"map": np.nan}}, ValueError, "must be finite"),
        (
            {"metric": "ndcg@10", "lower": {"map": 0.5}, "upper": {"map": 0.4}},
            ValueError,
            "above upper",
        ),
    ],
)
def test_bad_parameters_are_refused_up_front(kwargs, error, match):
    with pytest.raises(error, match=match):
        sr.BestWithinBounds(**kwargs)


def test_a_metric_the_search_did_not_score_is_named():
    cv_results = {"mean_test_ndcg@10": np.array([0.9])}
    with pytest.raises(ValueError, match=r"no scorer named 'coverage@10'.*'ndcg@10'"):
        sr.BestWithinBounds("ndcg@10", lower={"coverage@10": 0.3})(cv_results)


@pytest.mark.filterwarnings("ignore:.*no relevant item")
def test_a_grouped_search_refits_the_candidate_within_bounds():
    X, y, qid = make_ranking(n_queries=120, random_state=0)
    refit = sr.BestWithinBounds("ndcg@10", lower={"map": 0.0}, upper={"arp": 1.0})
    search = sr.GroupedGridSearchCV(
        HistGradientBoostingRegressor(max_iter=10, random_state=0),
        {"max_leaf_nodes": [3, 15]},
        scoring=["ndcg@10", "map", "neg_arp"],
        refit=refit,
        cv=3,
    ).fit(X, y, groups=qid)
    results = search.cv_results_
    arp = -results["mean_test_neg_arp"]
    # A bound between the two candidates' ARP leaves exactly the one below it.
    bound = float(arp.mean())
    tight = sr.BestWithinBounds("ndcg@10", upper={"arp": bound})
    assert tight(results) == int(np.argmin(arp))
    assert search.best_index_ == int(np.nanargmax(results["mean_test_ndcg@10"]))
    assert search.refit is refit and refit.excluded_ == {}
    assert hasattr(search, "best_estimator_")


def test_a_lower_is_better_objective_named_without_neg_is_minimised():
    # The search scores "neg_popularity@10"; naming the metric as it reads must pick the
    # least popular candidate, as naming the scorer key does, never the most popular.
    cv_results = {
        "mean_test_ndcg@10": np.array([0.5, 0.6, 0.7]),
        "mean_test_neg_popularity@10": np.array([-10.0, -50.0, -30.0]),
    }
    assert sr.BestWithinBounds("neg_popularity@10")(cv_results) == 0
    refit = sr.BestWithinBounds("popularity@10", lower={"ndcg@10": 0.6})
    assert refit(cv_results) == 2  # the least popular among candidates with ndcg >= 0.6
    assert refit.excluded_ == {0: ["ndcg@10 = 0.5 < 0.6"]}
