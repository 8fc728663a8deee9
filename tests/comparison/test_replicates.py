"""compare(..., replicates="mean"): several runs per system (seeds) are averaged per query,
then paired; the paired t-test on those means is the mixed model's F test of the system
effect (statsmodels' anova_lm), as t squared."""

import numpy as np
import pytest

from sklearn_rank import ItemJudgments, ItemRanking, compare, evaluate


def _seeded_runs(y_true, rng, n_seeds, noises):
    return {
        name: [y_true + rng.normal(0, noise, y_true.shape) for _ in range(n_seeds)]
        for name, noise in noises.items()
    }


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_t_squared_is_the_mixed_model_f_of_the_system_effect(seed):
    pd = pytest.importorskip("pandas")
    smf = pytest.importorskip("statsmodels.formula.api")
    anova_lm = pytest.importorskip("statsmodels.stats.anova").anova_lm
    rng = np.random.default_rng(seed)
    y_true = rng.integers(0, 3, size=(25, 12))
    runs = _seeded_runs(y_true, rng, 4, {"A": 1.5, "B": 1.2})
    result = compare(y_true, runs, ["ndcg@5"], test="t", replicates="mean", baseline="A")
    rows = [
        {"system": name, "topic": q, "seed": k, "y": value}
        for name, replicates in runs.items()
        for k, run in enumerate(replicates)
        for q, value in enumerate(evaluate(y_true, run, ["ndcg@5"], per_query=True)["ndcg@5"])
    ]
    frame = pd.DataFrame(rows)
    table = anova_lm(smf.ols("y ~ C(system) * C(topic)", data=frame).fit())
    mean_square = table["sum_sq"] / table["df"]
    # topics and topic x system random: the system effect is tested on the interaction
    f = mean_square["C(system)"] / mean_square["C(system):C(topic)"]
    n = result.query_ids.size
    t = result.pairs["effect_size"][0] * np.sqrt(n)
    assert t**2 == pytest.approx(f, rel=1e-8)
    from scipy import stats

    assert result.pairs["pvalue"][0] == pytest.approx(
        stats.f.sf(f, 1, table["df"]["C(system):C(topic)"]), rel=1e-8
    )


def test_per_query_values_are_the_means_over_replicates():
    rng = np.random.default_rng(4)
    y_true = rng.integers(0, 3, size=(20, 10))
    runs = {
        "A": [y_true + rng.normal(0, 1, y_true.shape) for _ in range(3)],
        "B": [y_true + rng.normal(0, 1, y_true.shape) for _ in range(2)],  # unequal counts
    }
    metrics = ["map", "ndcg@5"]
    result = compare(y_true, runs, metrics, replicates="mean", random_state=0)
    for column, replicates in enumerate(runs.values()):
        for metric in metrics:
            each = [evaluate(y_true, run, [metric], per_query=True)[metric] for run in replicates]
            np.testing.assert_allclose(
                result.per_query[metric][:, column], np.mean(each, axis=0), rtol=1e-15
            )
    assert result.runs["n_replicates"].tolist() == [3, 2, 3, 2]
    assert result.run_names == ["A", "B"]
    assert "| a | A |" in result.to_markdown()
    assert result.to_frame("runs")["n_replicates"].tolist() == [3, 2, 3, 2]


def test_one_replicate_each_is_compare_without_replicates():
    rng = np.random.default_rng(5)
    y_true = rng.integers(0, 3, size=(20, 10))
    single = {"A": y_true + rng.normal(0, 1, y_true.shape), "B": rng.normal(0, 1, y_true.shape)}
    expected = compare(y_true, single, ["map"], random_state=1)
    got = compare(
        y_true, {k: [v] for k, v in single.items()}, ["map"], replicates="mean", random_state=1
    )
    for column, values in expected.pairs.items():
        assert np.array_equal(values, got.pairs[column], equal_nan=values.dtype.kind == "f")
    for column, values in expected.runs.items():
        assert np.array_equal(values, got.runs[column], equal_nan=values.dtype.kind == "f")
    assert got.runs["n_replicates"].tolist() == [1, 1]
    assert "n_replicates" not in expected.runs


def test_missing_is_applied_to_each_replicate():
    truth = ItemJudgments(["q1", "q2", "q3"], ["a", "b", "c"], [1, 1, 1])
    full = ItemRanking(["q1", "q2", "q3"], ["a", "b", "c"], [1.0, 1.0, 1.0])
    partial = ItemRanking(["q1", "q3"], ["a", "c"], [1.0, 1.0])  # lacks q2
    runs = {"A": [full, partial], "B": [full, full]}
    result = compare(truth, runs, ["mrr"], replicates="mean", test="t")
    assert result.per_query["mrr"][:, 0].tolist() == [1.0, 0.5, 1.0]
    assert result.runs["n_missing"].tolist() == [1, 0]
    dropped = compare(truth, runs, ["mrr"], replicates="mean", test="t", missing="drop")
    assert dropped.query_ids.tolist() == ["q1", "q3"]
    with pytest.raises(ValueError, match=r"missing='raise': run 'A\[1\]' has no ranking"):
        compare(truth, runs, ["mrr"], replicates="mean", missing="raise")


def test_checks():
    y_true = np.array([[1, 0, 2], [0, 1, 1], [2, 2, 0]])
    with pytest.raises(ValueError, match=r"runs\['A'\] must be a non-empty list of y_score"):
        compare(y_true, {"A": np.ones((3, 3)), "B": [np.ones((3, 3))]}, "map", replicates="mean")
    with pytest.raises(ValueError, match=r"runs\['B'\] must be a non-empty list"):
        compare(y_true, {"A": [np.ones((3, 3))], "B": []}, "map", replicates="mean")
    with pytest.raises(ValueError, match="replicates must be None or one of 'mean'"):
        compare(y_true, {"A": np.ones((3, 3)), "B": np.ones((3, 3))}, "map", replicates="pool")
