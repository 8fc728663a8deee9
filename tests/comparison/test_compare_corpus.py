"""compare on corpus-level measures (coverage, Gini...): tested by resampling users, each
draw's value `evaluate`'s on the drawn users, the per-user metrics of the call unchanged."""

import numpy as np
import pytest
import scipy.sparse

import sklearn_rank as sr
from sklearn_rank.comparison._core import _seeds


def _case(seed=0, n_users=30, n_items=20):
    rng = np.random.default_rng(seed)
    truth = scipy.sparse.csr_matrix((rng.random((n_users, n_items)) < 0.15).astype(float))
    a = np.round(rng.random((n_users, n_items)), 1)  # ties in the scores
    b = a + np.linspace(0.0, 0.8, n_items)  # leans towards the last items
    c = rng.random((n_users, n_items))
    train = rng.poisson(0.5, (n_users, n_items))
    return truth, {"a": a, "b": b, "c": c}, train


def _slow_pvalue(truth, first, second, name, train, n_resamples, random_state, alternative):
    """The permutation test by `evaluate` on each draw's swapped score matrices."""
    test_seed, _interval_seed = _seeds(random_state)
    rng = np.random.default_rng(test_seed)
    observed = (
        sr.evaluate(truth, first, [name], train=train)[name]
        - sr.evaluate(truth, second, [name], train=train)[name]
    )
    count = 0
    for _ in range(n_resamples):
        swap = rng.random(truth.shape[0]) < 0.5
        x = np.where(swap[:, None], second, first)
        y = np.where(swap[:, None], first, second)
        d = sr.evaluate(truth, x, [name], train=train)[name]
        d -= sr.evaluate(truth, y, [name], train=train)[name]
        if alternative == "greater":
            count += d >= observed
        elif alternative == "less":
            count += d <= observed
        else:
            count += abs(d) >= abs(observed)
    return observed, (1 + count) / (1 + n_resamples)


def _slow_interval(truth, first, second, name, train, n_resamples, random_state, confidence):
    """Percentiles of the difference over paired bootstrap draws of the users."""
    _test_seed, interval_seed = _seeds(random_state)
    rng = np.random.default_rng(interval_seed)
    n_users = truth.shape[0]
    differences = []
    for _ in range(n_resamples):
        users = rng.integers(0, n_users, n_users)
        x = sr.evaluate(truth[users], first[users], [name], train=train)[name]
        y = sr.evaluate(truth[users], second[users], [name], train=train)[name]
        differences.append(x - y)
    tail = (1 - confidence) / 2 * 100
    return np.percentile(differences, [tail, 100 - tail])


@pytest.mark.parametrize("name", ["coverage@5", "gini@5", "entropy@5"])
@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_pvalue_and_interval_equal_evaluate_on_every_draw(name, alternative):
    truth, runs, train = _case(1)
    result = sr.compare(
        truth,
        {"a": runs["a"], "b": runs["b"]},
        [name],
        baseline="a",
        train=train,
        n_resamples=25,
        random_state=3,
        alternative=alternative,
        confidence=0.9,
    )
    diff, pvalue = _slow_pvalue(truth, runs["b"], runs["a"], name, train, 25, 3, alternative)
    assert result.pairs["diff"][0] == pytest.approx(diff, rel=1e-12, abs=1e-15)
    assert result.pairs["pvalue"][0] == pytest.approx(pvalue, rel=1e-12)
    low, high = _slow_interval(truth, runs["b"], runs["a"], name, train, 25, 3, 0.9)
    assert result.pairs["diff_ci_low"][0] == pytest.approx(low, rel=1e-12, abs=1e-15)
    assert result.pairs["diff_ci_high"][0] == pytest.approx(high, rel=1e-12, abs=1e-15)
    for run in ("a", "b"):
        row = list(result.runs["run"]).index(run)
        assert result.runs["mean"][row] == sr.evaluate(truth, runs[run], [name], train=train)[name]
        assert np.isnan(result.runs["ci_low"][row])


def test_per_user_metrics_keep_their_values_and_every_pvalue_is_corrected_together():
    truth, runs, train = _case(2)
    options = {"baseline": "a", "train": train, "n_resamples": 50, "random_state": 0}
    alone = sr.compare(truth, runs, ["ndcg@5", "novelty@5"], **options)
    mixed = sr.compare(truth, runs, ["ndcg@5", "gini@5", "novelty@5", "coverage@5"], **options)
    assert mixed.metrics == ["ndcg@5", "gini@5", "novelty@5", "coverage@5"]
    per_user = np.isin(mixed.pairs["metric"], ["ndcg@5", "novelty@5"])
    for column in ("diff", "diff_ci_low", "diff_ci_high", "pvalue", "effect_size", "wins"):
        np.testing.assert_array_equal(mixed.pairs[column][per_user], alone.pairs[column])
    for name in ("ndcg@5", "novelty@5"):
        np.testing.assert_array_equal(mixed.per_query[name], alone.per_query[name])
    assert np.isnan(mixed.per_query["gini@5"]).all()
    # Holm over the 8 comparisons of the call, not the 4 per-user ones.
    p = np.asarray(mixed.pairs["pvalue"], dtype=float)
    order = np.argsort(p)
    holm = np.minimum(1, np.maximum.accumulate(p[order] * (p.size - np.arange(p.size))))
    expected = np.empty_like(p)
    expected[order] = holm
    np.testing.assert_allclose(mixed.pairs["pvalue_adjusted"], expected, rtol=1e-12)
    corpus = ~per_user
    assert np.isnan(np.asarray(mixed.pairs["wins"], dtype=float)[corpus]).all()
    assert "corpus-level" in mixed.to_markdown()


def test_identical_runs_differ_by_nothing_and_are_not_significant():
    truth, runs, train = _case(3)
    result = sr.compare(
        truth,
        {"a": runs["a"], "copy": runs["a"].copy()},
        ["coverage@5", "gini@5"],
        train=train,
        n_resamples=40,
        random_state=0,
    )
    np.testing.assert_array_equal(result.pairs["diff"], [0.0, 0.0])
    np.testing.assert_array_equal(result.pairs["pvalue"], [1.0, 1.0])
    assert not result.pairs["significant"].any()


def test_item_runs_are_aligned_by_user_id():
    truth, runs, train = _case(4, n_users=12, n_items=8)
    judged = truth.tocoo()
    judgments = sr.ItemJudgments(judged.row, judged.col, judged.data)
    order = np.argsort(-runs["a"], axis=1, kind="stable")[:, :4]
    first = sr.ItemRanking.from_topn(order)
    # The second run lists the users in another order and lacks user 5.
    users = [u for u in np.random.default_rng(0).permutation(12).tolist() if u != 5]
    second = sr.ItemRanking.from_topn(order[users][:, ::-1], queries=users)
    result = sr.compare(
        judgments,
        {"x": first, "y": second},
        ["coverage@3", "gini@3"],
        baseline="x",
        catalog=8,
        n_resamples=20,
        random_state=0,
    )
    for name in ("coverage@3", "gini@3"):
        rows = result.runs["metric"] == name
        expected = [sr.evaluate(judgments, run, [name], catalog=8)[name] for run in (first, second)]
        np.testing.assert_array_equal(result.runs["mean"][rows], expected)
    assert result.runs["n_missing"].tolist() == [0, 1, 0, 1]


@pytest.mark.parametrize(
    "options, match",
    [
        ({"test": "tukey_hsd"}, "tukey_hsd"),
        ({"replicates": "mean"}, "replicates="),
    ],
)
def test_what_needs_per_user_values_is_refused_with_the_reason(options, match):
    truth, runs, train = _case(5)
    if "replicates" in options:
        runs = {name: [scores, scores] for name, scores in runs.items()}
    with pytest.raises(ValueError, match=rf"coverage@5: corpus-level.*{match}"):
        sr.compare(truth, runs, ["coverage@5"], train=train, **options)


def test_a_measure_turned_around_by_its_parameters_reads_that_way_in_the_tables():
    """Gini with complement=True is 1 - G: greater is more equal exposure, and the table
    must not call the lower one better."""
    truth, runs, train = _case(6)
    result = sr.compare(
        truth,
        {"a": runs["a"], "b": runs["b"]},
        ["gini@5", "gini(complement=True)@5"],
        baseline="a",
        train=train,
        n_resamples=20,
        random_state=0,
    )
    assert "gini@5" in result.lower_is_better
    assert "gini(complement=True)@5" not in result.lower_is_better
