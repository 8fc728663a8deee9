"""`compare` against scipy, statsmodels, slow references and evaluate's own values:
per-query values and their alignment by id, each test, the intervals, the corrections,
reproducibility, bad input, and the tables."""

import itertools
import sys

import numpy as np
import pytest
import scipy.stats
from numpy.testing import assert_allclose, assert_array_equal
from statsmodels.stats.multitest import multipletests

import sklearn_rank as sr
from sklearn_rank import Comparison, ItemJudgments, ItemRanking, compare, evaluate
from sklearn_rank.comparison import _resampling
from sklearn_rank.comparison._core import _seeds

METRICS = ["ndcg@5", "map", "precision@3"]


def _runs(n_queries=30, n_items=12, noises=(2.0, 1.0, 1.5), seed=0):
    """Graded judgments (queries x items) and runs of increasing quality."""
    rng = np.random.default_rng(seed)
    y_true = rng.integers(0, 3, size=(n_queries, n_items))
    y_true[:, 0] = 2  # every query has a relevant item
    runs = {
        f"run{i}": y_true + rng.normal(0, noise, y_true.shape) for i, noise in enumerate(noises)
    }
    return y_true, runs


def _rows(result, metric):
    """Row index of each (run, baseline) pair of ``metric`` in result.pairs."""
    pairs = result.pairs
    return {
        (pairs["run"][i], pairs["baseline"][i]): i
        for i in range(len(pairs["run"]))
        if pairs["metric"][i] == metric
    }


# --- per-query values with their ids ---------------------------------------------------------


def test_evaluate_per_query_table_long_format_items_and_matrices():
    y_true = [1, 0, 2, 0, 1, 1, 0]
    y_score = [0.9, 0.1, 0.3, 0.8, 0.2, 0.5, 0.4]
    groups = ["b", "b", "a", "a", "c", "c", "c"]
    table = evaluate(y_true, y_score, ["mrr", "ndcg@2"], groups=groups, per_query="table")
    assert list(table) == ["query", "mrr", "ndcg@2"]
    assert_array_equal(table["query"], sr.query_ids(groups))
    plain = evaluate(y_true, y_score, ["mrr", "ndcg@2"], groups=groups, per_query=True)
    for name in ("mrr", "ndcg@2"):
        assert_array_equal(table[name], plain[name])
    # Items: queries in order of first appearance in the judgments, then the run's.
    truth = ItemJudgments(["q2", "q1", "q1"], ["a", "b", "c"], [1, 2, 0])
    run = ItemRanking(["q3", "q1", "q1", "q2"], ["x", "c", "b", "a"], [1.0, 2.0, 1.0, 0.5])
    table = evaluate(truth, run, ["mrr"], per_query="table", no_relevant=0)
    assert table["query"].tolist() == ["q2", "q1", "q3"]
    assert table["mrr"].tolist() == [1.0, 0.5, 0.0]
    # Matrices and lists: row numbers.
    table = evaluate(
        [[1, 0], [0, 1], [1, 1]], [[0.2, 0.1], [0.3, 0.4], [1, 0]], "mrr", per_query="table"
    )
    assert table["query"].tolist() == [0, 1, 2]
    with pytest.raises(ValueError, match="per_query must be True, False or 'table'; got 'tables'"):
        evaluate([[1, 0]], [[0.2, 0.1]], "mrr", per_query="tables")


def test_prepared_judgments_give_the_values_of_a_full_evaluation():
    """Matrices and long format reuse the first run's prepared truth: same values."""
    y_true, runs = _runs(n_queries=25)
    result = compare(y_true, runs, METRICS, test="t")
    for column, scores in enumerate(runs.values()):
        expected = evaluate(y_true, scores, METRICS, per_query=True)
        for metric in METRICS:
            assert_array_equal(result.per_query[metric][:, column], expected[metric])
    # Long format with string query ids, rows of a query apart from each other.
    rng = np.random.default_rng(3)
    groups = np.array([f"q{i}" for i in rng.integers(0, 15, 200)])
    truth = rng.integers(0, 3, 200)
    long_runs = {f"r{i}": truth + rng.normal(0, 1 + i, 200) for i in range(3)}
    result = compare(truth, long_runs, METRICS, groups=groups, test="t")
    assert_array_equal(result.query_ids, sr.query_ids(groups))
    for column, scores in enumerate(long_runs.values()):
        expected = evaluate(truth, scores, METRICS, groups=groups, per_query=True)
        for metric in METRICS:
            assert_array_equal(result.per_query[metric][:, column], expected[metric])
    # The run means are evaluate's means, to the bit.
    means = dict(zip(zip(result.runs["run"], result.runs["metric"]), result.runs["mean"]))
    for name, scores in long_runs.items():
        for metric, value in evaluate(truth, scores, METRICS, groups=groups).items():
            assert means[(name, metric)] == value


# --- each test against its reference ---------------------------------------------------------


def test_t_test_and_t_intervals_equal_scipy():
    y_true, runs = _runs()
    result = compare(y_true, runs, METRICS, baseline="run0", test="t", confidence=0.9)
    for metric in METRICS:
        values = result.per_query[metric]
        for (run, base), row in _rows(result, metric).items():
            x, y = values[:, int(run[-1])], values[:, int(base[-1])]
            reference = scipy.stats.ttest_rel(x, y)
            assert_allclose(result.pairs["p_value"][row], reference.pvalue, rtol=1e-13)
            interval = reference.confidence_interval(0.9)
            assert_allclose(
                [result.pairs["diff_ci_low"][row], result.pairs["diff_ci_high"][row]],
                [interval.low, interval.high],
                rtol=1e-13,
            )
            d = x - y
            assert_allclose(result.pairs["effect_size"][row], d.mean() / d.std(ddof=1))
            assert result.pairs["wins"][row] == (d > 0).sum()
            assert result.pairs["ties"][row] == (d == 0).sum()
            assert result.pairs["losses"][row] == (d < 0).sum()
    runs_table = result.runs
    for i in range(len(runs_table["run"])):
        column = int(runs_table["run"][i][-1])
        x = result.per_query[runs_table["metric"][i]][:, column]
        interval = scipy.stats.ttest_1samp(x, 0).confidence_interval(0.9)
        assert_allclose([runs_table["ci_low"][i], runs_table["ci_high"][i]], interval, rtol=1e-13)


def test_wilcoxon_equals_scipy():
    y_true, runs = _runs(n_queries=40)
    result = compare(y_true, runs, METRICS, test="wilcoxon", correction=None)
    for metric in METRICS:
        values = result.per_query[metric]
        for (run, base), row in _rows(result, metric).items():
            x, y = values[:, int(run[-1])], values[:, int(base[-1])]
            expected = scipy.stats.wilcoxon(x, y).pvalue
            assert_allclose(result.pairs["p_value"][row], expected, rtol=1e-12)
            assert result.pairs["p_adjusted"][row] == result.pairs["p_value"][row]


def test_randomization_exact_for_few_queries_equals_scipy_permutation_test():
    # 12 queries: 2**12 = 4096 <= n_resamples, so every sign vector is enumerated.
    y_true, runs = _runs(n_queries=12, n_items=8)
    result = compare(y_true, runs, ["ndcg@5", "map"], test="randomization", n_resamples=5000)
    assert "exact" in result._caption(None)
    for metric in ("ndcg@5", "map"):
        values = result.per_query[metric]
        for (run, base), row in _rows(result, metric).items():
            d = values[:, int(run[-1])] - values[:, int(base[-1])]
            expected = scipy.stats.permutation_test(
                (d,), np.mean, permutation_type="samples", n_resamples=np.inf
            ).pvalue
            assert_allclose(result.pairs["p_value"][row], expected, rtol=1e-12)


@pytest.mark.slow
def test_randomization_monte_carlo_is_within_its_error_of_the_exact_p():
    y_true, runs = _runs(n_queries=16, n_items=10, noises=(1.5, 1.2, 1.0))
    n_resamples = 4000  # < 2**16: Monte Carlo
    result = compare(
        y_true, runs, ["ndcg@5"], test="randomization", n_resamples=n_resamples, random_state=1
    )
    assert "random sign" in result._caption(None)
    values = result.per_query["ndcg@5"]
    for (run, base), row in _rows(result, "ndcg@5").items():
        d = values[:, int(run[-1])] - values[:, int(base[-1])]
        exact = scipy.stats.permutation_test(
            (d,), np.mean, permutation_type="samples", n_resamples=np.inf
        ).pvalue
        error = 4 * np.sqrt(exact * (1 - exact) / n_resamples) + 1 / n_resamples
        assert abs(result.pairs["p_value"][row] - exact) <= error


def test_bootstrap_intervals_equal_scipy_bootstrap_from_the_documented_stream():
    y_true, runs = _runs(n_queries=25)
    confidence, n_resamples = 0.9, 2000
    result = compare(
        y_true,
        runs,
        ["ndcg@5"],
        baseline="run1",
        test="randomization",
        confidence=confidence,
        n_resamples=n_resamples,
        random_state=7,
    )
    _test_seed, interval_seed = _seeds(7)
    values = result.per_query["ndcg@5"]

    def scipy_interval(x):
        rng = np.random.default_rng([interval_seed, 0])  # one group: no NaN
        interval = scipy.stats.bootstrap(
            (x,),
            np.mean,
            n_resamples=n_resamples,
            method="BCa",
            confidence_level=confidence,
            rng=rng,
        ).confidence_interval
        return [interval.low, interval.high]

    for i in range(3):
        assert_allclose(
            [result.runs["ci_low"][i], result.runs["ci_high"][i]],
            scipy_interval(values[:, i]),
            rtol=1e-10,
        )
    for (run, base), row in _rows(result, "ndcg@5").items():
        d = values[:, int(run[-1])] - values[:, int(base[-1])]
        assert_allclose(
            [result.pairs["diff_ci_low"][row], result.pairs["diff_ci_high"][row]],
            scipy_interval(d),
            rtol=1e-10,
        )


def test_bootstrap_test_equals_a_direct_shifted_studentized_bootstrap():
    y_true, runs = _runs(n_queries=20)
    n_resamples = 3000
    result = compare(
        y_true,
        runs,
        ["map"],
        baseline="run0",
        test="bootstrap",
        n_resamples=n_resamples,
        random_state=3,
        correction=None,
    )
    test_seed, _ = _seeds(3)
    values = result.per_query["map"]
    n = values.shape[0]
    indices = np.random.default_rng([test_seed, 0]).integers(0, n, (n_resamples, n))
    for (run, base), row in _rows(result, "map").items():
        d = values[:, int(run[-1])] - values[:, int(base[-1])]
        observed = abs(d.mean() / (d.std(ddof=1) / np.sqrt(n)))
        w = (d - d.mean())[indices]
        resampled = np.abs(w.mean(axis=1) / (w.std(axis=1, ddof=1) / np.sqrt(n)))
        count = np.count_nonzero(resampled >= observed * (1 - 100 * np.finfo(float).eps))
        assert result.pairs["p_value"][row] == pytest.approx((1 + count) / (1 + n_resamples))


def _slow_tukey(matrix, n_resamples, rng):
    """Carterette's randomised Tukey HSD, one permutation of each query's values at a time."""
    means = matrix.mean(axis=0)
    observed = np.abs(means[:, None] - means[None, :])
    ranges = np.empty(n_resamples)
    for b in range(n_resamples):
        permuted = rng.permuted(matrix, axis=1).mean(axis=0)
        ranges[b] = permuted.max() - permuted.min()
    count = ranges[None, None, :] >= (observed * (1 - 100 * np.finfo(float).eps))[..., None]
    return (1 + count.sum(axis=2)) / (1 + n_resamples)


def test_tukey_hsd_equals_a_slow_reference_and_is_not_corrected_again():
    y_true, runs = _runs(n_queries=15, noises=(1.0, 1.1, 3.0, 0.9))
    result = compare(
        y_true, runs, ["ndcg@5", "map"], test="tukey_hsd", n_resamples=300, random_state=5
    )
    test_seed, _ = _seeds(5)
    assert result.correction is None and result.test == "tukey_hsd"
    assert "family-wise error" in result.to_markdown()
    assert_array_equal(result.pairs["p_adjusted"], result.pairs["p_value"])
    for index, metric in enumerate(["ndcg@5", "map"]):
        matrix = result.per_query[metric]
        expected = _slow_tukey(matrix, 300, np.random.default_rng([test_seed, index]))
        for (run, base), row in _rows(result, metric).items():
            assert result.pairs["p_value"][row] == pytest.approx(
                expected[int(run[-1]), int(base[-1])]
            )
    # Every pair is reported once: 4 runs -> 6 pairs per metric.
    assert len(result.pairs["run"]) == 12


@pytest.mark.parametrize("correction", ["holm", "bonferroni", "fdr_bh"])
def test_corrections_over_every_pair_and_metric_equal_statsmodels(correction):
    y_true, runs = _runs(n_queries=30, noises=(1.3, 1.2, 1.0, 1.4))
    result = compare(y_true, runs, METRICS, test="t", correction=correction)
    p = result.pairs["p_value"]
    assert p.size == 6 * len(METRICS)  # every pair of 4 runs, every metric
    assert_allclose(result.pairs["p_adjusted"], multipletests(p, method=correction)[1], rtol=1e-15)
    assert_array_equal(result.pairs["significant"], result.pairs["p_adjusted"] <= 0.05)


# --- ranx, on the same runs -------------------------------------------------------------------


def _ranx_inputs(n_queries=25, n_docs=15, seed=0):
    rng = np.random.default_rng(seed)
    qrels = {}
    for q in range(n_queries):
        judged = {f"d{d}": int(rng.integers(1, 3)) for d in range(n_docs) if rng.random() < 0.4}
        qrels[f"q{q}"] = judged or {"d0": 1}
    runs = {}
    for name, noise in (("a", 1.5), ("b", 1.0), ("c", 0.8)):
        runs[name] = {
            q: {
                f"d{d}": qrels[q].get(f"d{d}", 0) + float(rng.normal(0, noise))
                for d in range(n_docs)
            }
            for q in qrels
        }
    truth = ItemJudgments(
        [q for q in qrels for _d in qrels[q]],
        [d for q in qrels for d in qrels[q]],
        [r for q in qrels for r in qrels[q].values()],
    )
    ours = {
        name: ItemRanking(
            [q for q in run for _d in run[q]],
            [d for q in run for d in run[q]],
            [s for q in run for s in run[q].values()],
        )
        for name, run in runs.items()
    }
    return qrels, runs, truth, ours


@pytest.mark.slow
def test_ranx_compare_student_and_fisher_on_the_same_runs():
    ranx = pytest.importorskip("ranx")
    qrels, runs, truth, ours = _ranx_inputs()
    metrics = ["precision@5", "ndcg@5", "map"]
    ranx_runs = [ranx.Run(run, name=name) for name, run in runs.items()]
    report = ranx.compare(ranx.Qrels(qrels), ranx_runs, metrics, stat_test="student")
    result = compare(truth, ours, metrics, test="t", correction=None)
    for metric in metrics:
        # The same per-query values first: the tests then see the same numbers.
        # ranx orders queries by id as strings.
        order = np.argsort(result.query_ids.astype(str), kind="stable")
        for column, run in enumerate(ranx_runs):
            ranx_values = ranx.evaluate(ranx.Qrels(qrels), run, metric, return_mean=False)
            assert_allclose(result.per_query[metric][order, column], ranx_values, rtol=1e-12)
        for (run, base), row in _rows(result, metric).items():
            expected = report.comparisons[frozenset([run, base])][metric]["p_value"]
            assert_allclose(result.pairs["p_value"][row], expected, rtol=1e-12)
    # Fisher's test: ranx seeds numba's own generator; agreement within Monte Carlo error.
    n = 2000
    report = ranx.compare(
        ranx.Qrels(qrels), ranx_runs, ["ndcg@5"], stat_test="fisher", n_permutations=n
    )
    result = compare(
        truth,
        ours,
        ["ndcg@5"],
        test="randomization",
        correction=None,
        n_resamples=n,
        random_state=0,
    )
    for (run, base), row in _rows(result, "ndcg@5").items():
        theirs = report.comparisons[frozenset([run, base])]["ndcg@5"]["p_value"]
        mine = result.pairs["p_value"][row]
        p = max(mine, theirs, 1 / n)
        assert abs(mine - theirs) <= 4 * np.sqrt(2 * p * (1 - p) / n) + 2 / n


# --- alignment by query id --------------------------------------------------------------------


def _item_runs():
    truth = ItemJudgments(
        ["q1", "q1", "q2", "q3", "q3", "q4"], ["a", "b", "a", "c", "d", "a"], [1, 2, 1, 1, 0, 2]
    )
    full = ItemRanking(
        ["q1", "q1", "q2", "q3", "q3", "q4", "q4"],
        ["b", "a", "a", "d", "c", "b", "a"],
        [2, 1, 1, 2, 1, 2, 1],
    )
    # q2 is missing; q5 is a query of this run only (not judged).
    partial = ItemRanking(
        ["q1", "q1", "q3", "q4", "q5"], ["a", "b", "c", "a", "z"], [2, 1, 1, 1, 1]
    )
    return truth, {"full": full, "partial": partial}


def test_missing_queries_zero_drop_raise():
    truth, runs = _item_runs()
    zero = compare(truth, runs, ["mrr"], missing="zero", test="t", no_relevant=0)
    assert zero.query_ids.tolist() == ["q1", "q2", "q3", "q4", "q5"]
    values = zero.per_query["mrr"]
    full = evaluate(truth, runs["full"], ["mrr"], per_query="table", no_relevant=0)
    partial = evaluate(truth, runs["partial"], ["mrr"], per_query="table", no_relevant=0)
    assert_array_equal(values[:4, 0], full["mrr"])
    assert values[1, 1] == 0.0  # q2: scored 0 for the run that lacks it
    assert values[4, 0] == 0.0  # q5: unjudged, ranked by "partial" only
    assert partial["query"].tolist() == zero.query_ids.tolist()
    assert_array_equal(values[[0, 2, 3, 4], 1], partial["mrr"][[0, 2, 3, 4]])
    assert zero.runs["n_missing"].tolist() == [1, 1]  # full lacks q5, partial lacks q2

    drop = compare(truth, runs, ["mrr"], missing="drop", test="t", no_relevant=0)
    assert drop.query_ids.tolist() == ["q1", "q3", "q4"]
    assert_array_equal(drop.per_query["mrr"], values[[0, 2, 3]])
    assert drop.runs["n_missing"].tolist() == [1, 1]
    assert drop.runs["n_queries"].tolist() == [3, 3]

    with pytest.raises(
        ValueError,
        match=r"missing='raise': run 'full' has no ranking for 1 of "
        r"the 5 queries \(e.g. query 'q5'\)",
    ):
        compare(truth, runs, ["mrr"], missing="raise", no_relevant=0)


def test_missing_zero_keeps_queries_that_no_relevant_skip_leaves_out():
    truth, runs = _item_runs()
    # q5 has no judgment: "skip" leaves it out for the run that has it, so the run that
    # lacks it gets NaN too, not 0; q2 (judged, relevant) is scored 0 for "partial".
    result = compare(truth, runs, ["mrr"], missing="zero", test="t", no_relevant="skip")
    values = result.per_query["mrr"]
    assert np.isnan(values[4]).all()
    assert values[1, 1] == 0.0
    assert result.runs["n_queries"].tolist() == [4, 4]


def test_query_set_both_aligns_runs_of_different_queries_by_id():
    truth, runs = _item_runs()
    result = compare(truth, runs, ["mrr"], test="t", query_set="both", missing="drop")
    assert result.query_ids.tolist() == ["q1", "q3", "q4"]


# --- reproducibility --------------------------------------------------------------------------


@pytest.mark.parametrize("test", ["randomization", "bootstrap", "tukey_hsd"])
def test_results_are_reproducible_and_independent_of_block_size(test, monkeypatch):
    y_true, runs = _runs(n_queries=40)
    kwargs = dict(test=test, n_resamples=500, random_state=11)
    first = compare(y_true, runs, ["ndcg@5", "map"], **kwargs)
    again = compare(y_true, runs, ["ndcg@5", "map"], **kwargs)
    from_generator = compare(
        y_true, runs, ["ndcg@5", "map"], **dict(kwargs, random_state=np.random.default_rng(11))
    )
    monkeypatch.setattr(_resampling, "_BLOCK_ELEMENTS", 997)  # blocks of a few resamples
    blocked = compare(y_true, runs, ["ndcg@5", "map"], **kwargs)
    for other in (again, from_generator, blocked):
        for key in ("p_value", "diff_ci_low", "diff_ci_high"):
            assert_array_equal(first.pairs[key], other.pairs[key])
        assert_array_equal(first.runs["ci_low"], other.runs["ci_low"])
    different = compare(y_true, runs, ["ndcg@5", "map"], **dict(kwargs, random_state=12))
    assert not np.array_equal(first.pairs["diff_ci_low"], different.pairs["diff_ci_low"])


# --- bad input --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"test": "student"}, r"test must be one of 'randomization', .*; got 'student'"),
        ({"test": "corrected_t"}, r"test='corrected_t' compares fold scores.*compare_search"),
        ({"correction": "hs"}, r"correction must be None or one of 'holm', .*; got 'hs'"),
        ({"confidence": 1.0}, r"confidence must be in \(0, 1\); got 1.0"),
        ({"confidence": 0}, r"confidence must be in \(0, 1\); got 0"),
        ({"n_resamples": 0}, r"n_resamples must be a positive integer; got 0"),
        (
            {"baseline": "run9"},
            r"baseline must be None or the name of a run \('run0', "
            r"'run1', 'run2'\); got 'run9'",
        ),
        ({"missing": "skip"}, r"missing must be one of 'zero', 'drop', 'raise'; got 'skip'"),
        (
            {"random_state": -1},
            r"random_state must be None, a non-negative int or a "
            r"numpy.random.Generator; got -1",
        ),
    ],
)
def test_bad_parameters_name_parameter_and_value(kwargs, message):
    y_true, runs = _runs(n_queries=5)
    with pytest.raises(ValueError, match=message):
        compare(y_true, runs, ["map"], **kwargs)


def test_query_weights_are_refused_with_why_and_what_to_do():
    # Issue 28, item 11: sample_weight was a TypeError ("unexpected keyword argument").
    y_true, runs = _runs(n_queries=6)
    weights = np.arange(1.0, 7.0)
    with pytest.raises(
        ValueError,
        match=r"^sample_weight cannot be used by compare \(got ndarray array\(\[1\., .*\)\): "
        r"its paired tests, intervals and effect sizes treat every query as one equally "
        r"likely draw.*Compare the runs unweighted \(leave sample_weight out\) and report "
        r"the weighted means with evaluate\(.*sample_weight=\.\.\.\)\. Integer frequency",
    ):
        compare(y_true, runs, ["map"], sample_weight=weights)
    # Refused before any run is evaluated, whatever the test.
    with pytest.raises(ValueError, match=r"^sample_weight cannot be used by compare"):
        compare(y_true, {"a": None, "b": None}, ["map"], test="t", sample_weight=[1, 1])
    expected = compare(y_true, runs, ["map"], test="t")
    got = compare(y_true, runs, ["map"], test="t", sample_weight=None)
    assert_array_equal(got.pairs["pvalue"], expected.pairs["pvalue"])


def test_bad_runs_and_data():
    y_true, runs = _runs(n_queries=5)
    with pytest.raises(
        ValueError,
        match=r"runs must hold at least two runs to compare; got 1 "
        r"\('run0'\)",
    ):
        compare(y_true, {"run0": runs["run0"]}, ["map"])
    with pytest.raises(ValueError, match=r"runs must be a dict \{name: y_score\}"):
        compare(y_true, [runs["run0"], runs["run1"]], ["map"])
    bad = dict(runs, run1=np.where(np.eye(5, 12, 2) == 1, np.nan, runs["run1"]))
    with pytest.raises(
        ValueError,
        match=r"runs\['run1'\]: y_score must contain only finite "
        r"numbers; got nan at index \(0, 2\)",
    ):
        compare(y_true, bad, ["map"])
    bad = dict(runs, run0=np.where(np.eye(5, 12, 3) == 1, np.nan, runs["run0"]))
    with pytest.raises(ValueError, match=r"runs\['run0'\]: y_score must contain only finite"):
        compare(y_true, bad, ["map"])
    with pytest.raises(
        ValueError,
        match=r"runs\['run2'\]: y_true and y_score must have the "
        r"same shape; got \(5, 12\) and \(5, 11\)",
    ):
        compare(y_true, dict(runs, run2=runs["run2"][:, :11]), ["map"])
    with pytest.raises(ValueError, match=r"compare needs at least 2 queries to test; got 1"):
        compare(y_true[:1], {name: run[:1] for name, run in runs.items()}, ["map"])
    truth, item_runs = _item_runs()
    with pytest.raises(ValueError, match=r"at least 2 queries to test; got 1 after missing='drop'"):
        compare(
            truth,
            {"a": item_runs["full"], "b": ItemRanking(["q1"], ["a"], [1.0])},
            ["mrr"],
            missing="drop",
        )


# --- the tables -------------------------------------------------------------------------------


def test_tables_mark_significance_at_render_time():
    y_true, runs = _runs(n_queries=30, noises=(3.0, 1.0, 2.9))
    result = compare(y_true, runs, ["ndcg@5", "map"], baseline="run0", test="t")
    rows = _rows(result, "map")
    p = result.pairs["p_adjusted"][rows[("run1", "run0")]]
    assert p < 0.05
    markdown = result.to_markdown()
    assert "| run | ndcg@5 | map |" in markdown
    mean = result.runs["mean"][(result.runs["run"] == "run1") & (result.runs["metric"] == "map")][0]
    assert f"{mean:.4f}*" in markdown
    # A level below the p-value removes the marker: decisions are not stored.
    assert f"{mean:.4f}*" not in result.to_markdown(alpha=p / 2)
    assert f"{mean:.4f}" in result.to_markdown(alpha=p / 2)
    assert "Holm correction over 4 comparisons" in markdown
    assert "Paired t-test, two-sided" in markdown
    latex = result.to_latex(alpha=0.05)
    assert f"{mean:.4f}$^{{*}}$" in latex and r"\toprule" in latex
    assert r"run0 (baseline)" in latex
    with pytest.raises(ValueError, match=r"alpha must be a number in \(0, 1\); got 5"):
        result.to_markdown(alpha=5)
    frame = result.to_frame()
    assert list(frame.columns) == list(result.pairs)
    assert len(result.to_frame("runs")) == 6
    text = repr(result)
    assert text.startswith("<Comparison of 3 runs on 30 queries: test='t'")
    assert f"{mean:.4f}*" in text


def test_every_pair_table_marks_the_runs_each_run_beats():
    y_true, runs = _runs(n_queries=40, noises=(4.0, 1.0, 0.5))
    result = compare(y_true, runs, ["ndcg@5"], test="t")
    significant = result.significant_at()
    assert significant.all()  # run2 > run1 > run0
    table = result.to_markdown()
    lines = table.splitlines()
    assert lines[0] == "|  | run | ndcg@5 |"
    assert lines[2].startswith("| a | run0 | ") and lines[2].endswith(" |")
    assert lines[3].endswith("ᵃ |") and lines[4].endswith("ᵃᵇ |")
    assert "$^{ab}$" in result.to_latex()


def test_lower_is_better_metric_marks_the_lower_mean_as_better():
    y_true, runs = _runs(n_queries=40, noises=(4.0, 0.5))
    result = compare(y_true, runs, ["arp"], test="t", no_relevant="skip")
    assert result.significant_at().all()
    assert result.to_markdown().splitlines()[3].endswith("ᵃ |")  # run1: lower arp


def test_to_frame_without_pandas_says_what_to_install(monkeypatch):
    import sys

    y_true, runs = _runs(n_queries=5)
    result = compare(y_true, runs, ["map"], test="t")
    monkeypatch.setitem(sys.modules, "pandas", None)
    with pytest.raises(ImportError, match=r"needs pandas \(pip install pandas\)"):
        result.to_frame()


def test_public_names_and_the_comparison_folder():
    from sklearn_rank.comparison import Comparison, compare, compare_search

    assert sr.compare is compare and sr.Comparison is Comparison
    assert sr.compare_search is compare_search
    assert sr.comparison is sys.modules["sklearn_rank.comparison"]
    assert {"compare", "compare_search", "Comparison"} <= set(sr.__all__)


def test_the_pairs_are_every_pair_or_each_run_against_the_baseline():
    y_true, runs = _runs(n_queries=10, noises=(1, 2, 3, 4))
    every = compare(y_true, runs, ["map"], test="t")
    assert list(zip(every.pairs["run"], every.pairs["baseline"])) == [
        (b, a) for a, b in itertools.combinations(["run0", "run1", "run2", "run3"], 2)
    ]
    against = compare(y_true, runs, ["map", "mrr"], baseline="run2", test="t")
    assert against.pairs["run"].tolist() == ["run0", "run1", "run3"] * 2
    assert against.pairs["metric"].tolist() == ["map"] * 3 + ["mrr"] * 3
    assert against.runs["run"].tolist() == ["run0", "run1", "run2", "run3"] * 2


def test_decimals_rounds_the_differences_the_tests_read():
    # Precision@5 takes values k / 5: 0.6 - 0.4 and 0.4 - 0.2 differ in binary, so
    # without rounding the signed-rank test sees distinct values where a person sees ties.
    rng = np.random.default_rng(3)
    y_true = rng.integers(0, 2, (60, 10))
    runs = {"a": rng.random((60, 10)), "b": y_true + rng.normal(0, 1.5, (60, 10))}
    x = sr.evaluate(y_true, runs["a"], ["precision@5"], per_query=True)["precision@5"]
    y = sr.evaluate(y_true, runs["b"], ["precision@5"], per_query=True)["precision@5"]
    d = y - x
    assert np.unique(d).size > np.unique(np.round(d, 12)).size  # the float "ties" exist
    plain = sr.compare(y_true, runs, "precision@5", baseline="a", test="wilcoxon")
    rounded = sr.compare(y_true, runs, "precision@5", baseline="a", test="wilcoxon", decimals=12)
    assert plain.pairs["p_value"][0] == scipy.stats.wilcoxon(d).pvalue
    assert rounded.pairs["p_value"][0] == scipy.stats.wilcoxon(np.round(d, 12)).pvalue
    assert plain.pairs["p_value"][0] != rounded.pairs["p_value"][0]
    assert rounded.pairs["diff"][0] == plain.pairs["diff"][0]  # the mean keeps every digit
    with pytest.raises(ValueError, match="decimals must be None or an integer; got 1.5"):
        sr.compare(y_true, runs, "precision@5", decimals=1.5)


# --- scipy's names for p-values ----------------------------------------------------------------

DEPRECATED = r"deprecated in version 0\.2 and will be removed in 0\.4; use .*\['pvalue"


def test_p_values_have_scipys_names():
    y_true, runs = _runs()
    result = compare(y_true, runs, ["map"], baseline="run0", test="t", correction="bonferroni")
    pairs = result.pairs
    assert "pvalue" in pairs and "pvalue_adjusted" in pairs
    assert not {"p_value", "p_adjusted"} & set(pairs)
    assert list(result.to_frame().columns) == list(pairs)
    per_query = result.per_query["map"]
    for row, run in enumerate(pairs["run"]):
        column = result.run_names.index(run)
        expected = scipy.stats.ttest_rel(per_query[:, column], per_query[:, 0]).pvalue
        assert_allclose(pairs["pvalue"][row], expected, rtol=1e-13)
    assert_array_equal(pairs["pvalue_adjusted"], np.minimum(2 * pairs["pvalue"], 1.0))


def test_old_p_value_names_read_the_same_columns_with_a_future_warning():
    y_true, runs = _runs()
    result = compare(y_true, runs, ["map", "mrr"], test="t")
    pairs = result.pairs
    for old, new in (("p_value", "pvalue"), ("p_adjusted", "pvalue_adjusted")):
        with pytest.warns(FutureWarning, match=DEPRECATED) as caught:
            assert pairs[old] is pairs[new]
        assert caught[0].filename == __file__  # the warning points at the caller
        with pytest.warns(FutureWarning, match=DEPRECATED):
            assert pairs.get(old) is pairs[new]
    assert pairs.get("p_values", "absent") == "absent"
    with pytest.raises(KeyError, match="p_values"):
        pairs["p_values"]  # noqa: B018
    frame = result.to_frame()
    with pytest.warns(FutureWarning, match=r"Comparison\.to_frame\(\)\['p_value'\]"):
        assert_array_equal(frame["p_value"], pairs["pvalue"])
    with pytest.warns(FutureWarning, match=r"Comparison\.to_frame\(\)\['p_adjusted'\]"):
        assert_array_equal(frame.p_adjusted, pairs["pvalue_adjusted"])
    with pytest.raises(KeyError):
        frame["p_values"]  # noqa: B018


def test_new_names_and_derived_frames_give_no_warning():
    import pickle
    import warnings

    y_true, runs = _runs(n_queries=8)
    result = compare(y_true, runs, ["map"], test="t")
    frame = result.to_frame()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result.pairs["pvalue"], frame["pvalue"], frame.pvalue_adjusted  # noqa: B018
        again = pickle.loads(pickle.dumps(frame))
        pickle.loads(pickle.dumps(result))
    assert again.equals(frame) and type(again).__name__ == "DataFrame"
    assert type(frame[["run", "pvalue"]]).__name__ == "DataFrame"


def test_a_comparison_built_with_the_old_names_is_renamed_with_a_future_warning():
    y_true, runs = _runs(n_queries=8)
    result = compare(y_true, runs, ["map"], test="t")
    renamed = {"pvalue": "p_value", "pvalue_adjusted": "p_adjusted"}
    old_pairs = {renamed.get(name, name): values for name, values in result.pairs.items()}
    fields = ("runs", "per_query", "run_names", "query_ids", "baseline", "test", "correction")
    fields += ("confidence", "n_resamples")
    with pytest.warns(FutureWarning) as caught:
        rebuilt = Comparison(pairs=old_pairs, **{name: getattr(result, name) for name in fields})
    assert [str(w.message).split(" is ")[0] for w in caught] == [
        "Comparison(pairs=...)['p_value']",
        "Comparison(pairs=...)['p_adjusted']",
    ]
    assert list(rebuilt.pairs) == list(result.pairs)
    assert rebuilt.to_markdown() == result.to_markdown()


# --- alternative= ------------------------------------------------------------------------------


@pytest.mark.parametrize("alternative", ["greater", "less"])
@pytest.mark.parametrize("test", ["t", "wilcoxon"])
def test_one_sided_t_and_wilcoxon_equal_scipy_on_run_minus_baseline(test, alternative):
    y_true, runs = _runs(n_queries=25)
    reference = {"t": scipy.stats.ttest_rel, "wilcoxon": scipy.stats.wilcoxon}[test]
    for baseline in ("run1", None):  # every pair: the later run minus the earlier one
        result = compare(
            y_true, runs, METRICS, baseline=baseline, test=test, alternative=alternative
        )
        assert result.alternative == alternative
        for metric in METRICS:
            values = result.per_query[metric]
            for (run, base), row in _rows(result, metric).items():
                x, y = values[:, int(run[-1])], values[:, int(base[-1])]
                expected = reference(x, y, alternative=alternative).pvalue
                assert_allclose(result.pairs["pvalue"][row], expected, rtol=1e-13)


@pytest.mark.parametrize("alternative", ["greater", "less"])
def test_one_sided_randomization_is_scipys_exact_permutation_test(alternative):
    y_true, runs = _runs(n_queries=9)
    result = compare(
        y_true, runs, ["ndcg@5"], test="randomization", n_resamples=2**9, alternative=alternative
    )
    assert "exact" in result.to_markdown()
    values = result.per_query["ndcg@5"]
    for (run, base), row in _rows(result, "ndcg@5").items():
        d = values[:, int(run[-1])] - values[:, int(base[-1])]
        expected = scipy.stats.permutation_test(
            (d[d != 0] if np.any(d != 0) else d,),  # zero differences flip nothing
            np.mean,
            permutation_type="samples",
            n_resamples=np.inf,
            alternative=alternative,
        ).pvalue
        assert result.pairs["pvalue"][row] == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("test", ["randomization", "bootstrap", "t", "wilcoxon"])
def test_greater_for_a_pair_is_less_for_the_pair_reversed(test):
    """The orientation is run - baseline: swapping the runs swaps the alternatives, with
    the same draws; a clearly better run has a small p above and a large one below."""
    y_true, runs = _runs(n_queries=40, noises=(2.0, 0.5))
    kwargs = dict(test=test, n_resamples=2000, random_state=3, correction=None)
    forward = compare(y_true, runs, ["map"], baseline="run0", alternative="greater", **kwargs)
    backward = compare(y_true, runs, ["map"], baseline="run1", alternative="less", **kwargs)
    assert forward.pairs["run"][0] == "run1" and backward.pairs["run"][0] == "run0"
    assert_allclose(forward.pairs["pvalue"], backward.pairs["pvalue"], rtol=1e-14)
    two_sided = compare(y_true, runs, ["map"], baseline="run0", **kwargs).pairs["pvalue"][0]
    against = compare(y_true, runs, ["map"], baseline="run0", alternative="less", **kwargs)
    assert forward.pairs["diff"][0] > 0
    assert forward.pairs["pvalue"][0] < 0.01 and forward.pairs["pvalue"][0] <= two_sided
    assert against.pairs["pvalue"][0] > 0.99


def test_alternative_is_checked_up_front_and_tukey_hsd_refuses_one_side():
    y_true, runs = _runs(n_queries=6)
    with pytest.raises(
        ValueError, match=r"^alternative must be one of 'two-sided', 'greater', 'less'; got 'up'"
    ):
        compare(y_true, {"only": runs["run0"]}, ["map"], alternative="up")
    with pytest.raises(
        ValueError, match=r"alternative='less' cannot be used with test='tukey_hsd'"
    ):
        compare(y_true, runs, ["map"], test="tukey_hsd", alternative="less")
    result = compare(y_true, runs, ["map"], test="tukey_hsd", n_resamples=50, random_state=0)
    assert result.alternative == "two-sided"


def test_one_sided_tables_say_which_side():
    y_true, runs = _runs()
    result = compare(y_true, runs, ["map"], baseline="run0", test="t", alternative="greater")
    markdown = result.to_markdown()
    assert "Paired t-test, one-sided (alternative: each run greater than the baseline);" in (
        markdown
    )
    assert "* is greater than run0 at adjusted p <= 0.05." in markdown
    assert r"$^{*}$ is greater than run0" in result.to_latex()
    assert repr(result).startswith(
        "<Comparison of 3 runs on 30 queries: test='t', correction='holm', baseline='run0', "
        "alternative='greater'>"
    )
    every = compare(y_true, runs, ["map"], test="t", alternative="less")
    assert "one-sided (alternative: each run less than each earlier run)" in every.to_markdown()
    assert "Paired t-test, two-sided;" in compare(y_true, runs, ["map"], test="t").to_markdown()


@pytest.mark.parametrize("convention", [None, "trec_eval9"])
def test_err_has_one_grade_scale_for_every_run(convention):
    # Query "a" holds the only grade 4; run B does not rank it. Both runs rank "b" and "c"
    # alike, so their ERR there is equal: the top grade is one statistic of the judgments
    # of the compared queries, not of each run's own queries.
    judgments = sr.ItemJudgments(["a", "a", "b", "b", "c"], [1, 2, 1, 2, 1], [4, 0, 1, 0, 1])
    a = sr.ItemRanking(["a", "a", "b", "b", "c"], [1, 2, 1, 2, 1], [2, 1, 2, 1, 1.0])
    b = sr.ItemRanking(["b", "b", "c"], [1, 2, 1], [2, 1, 1.0])
    result = sr.compare(
        judgments,
        {"A": a, "B": b},
        ["err", "err@1"],
        baseline="A",
        missing="drop",
        convention=convention,
    )
    assert list(result.query_ids) == ["b", "c"]
    for metric in ("err", "err@1"):
        np.testing.assert_array_equal(result.per_query[metric][:, 0], [1 / 16, 1 / 16])
        np.testing.assert_array_equal(result.per_query[metric][:, 1], [1 / 16, 1 / 16])
    assert list(result.pairs["diff"]) == [0.0, 0.0]
    assert list(result.pairs["wins"]) == [0, 0] and list(result.pairs["losses"]) == [0, 0]


def test_summaries_are_the_registry_aggregates_that_evaluate_gives():
    # gm_map is a geometric mean and num_ret a sum in evaluate; a comparison's table shows
    # the same numbers, and says what its tests compare.
    y_true = np.array([[1, 0, 0, 0], [0, 0, 0, 1], [1, 1, 0, 0]])
    runs = {
        "a": np.array([[4, 3, 2, 1]] * 3, float),
        "b": np.array([[1, 2, 3, 4]] * 3, float),
        "c": np.array([[4, 1, 3, 2]] * 3, float),
    }
    names = ["gm_map", "map", "num_ret"]
    result = compare(y_true, runs, names, baseline="a", test="t")
    expected = {run: evaluate(y_true, scores, names) for run, scores in runs.items()}
    for row, (run, metric) in enumerate(zip(result.runs["run"], result.runs["metric"])):
        assert result.runs["mean"][row] == expected[run][metric], (run, metric)
    for row, (run, metric) in enumerate(zip(result.pairs["run"], result.pairs["metric"])):
        assert_allclose(
            result.pairs["diff"][row], expected[run][metric] - expected["a"][metric], atol=1e-15
        )
    assert result.runs["mean"][0] == pytest.approx(0.6300, abs=5e-5)  # not AP's 0.75
    # gm_map is tested on the logs of the per-query values: equal geometric means.
    ap = evaluate(y_true, runs["b"], ["map"], per_query=True)["map"]
    ap_a = evaluate(y_true, runs["a"], ["map"], per_query=True)["map"]
    first = list(result.pairs["metric"]).index("gm_map")
    expected_p = scipy.stats.ttest_rel(np.log(ap), np.log(ap_a)).pvalue
    assert_allclose(result.pairs["pvalue"][first], expected_p, rtol=1e-12)
    assert np.isnan(result.pairs["diff_ci_low"][first])
    # A sum's interval is n times the interval of the mean difference.
    count = list(result.pairs["metric"]).index("num_ret")
    assert result.pairs["diff_ci_low"][count] == result.pairs["diff_ci_high"][count] == 0.0
    assert any("gm_map" in note and "logs" in note for note in result.notes)
    assert any("num_ret" in note and "sums" in note for note in result.notes)


def test_summaries_under_trec_evals_rules_are_evaluates_to_the_bit():
    # trec_eval's presets add per-query values up in query order, in plain doubles.
    rng = np.random.default_rng(3)
    q, items = np.repeat(np.arange(300), 20), np.tile(np.arange(20), 300)
    relevance = (rng.random(q.size) < 0.2) * rng.integers(1, 4, q.size)
    truth = ItemJudgments(q.astype(str), items.astype(str), relevance.astype(float))
    runs = {
        name: ItemRanking(q.astype(str), items.astype(str), rng.random(q.size) + 0.3 * relevance)
        for name in ("a", "b")
    }
    names = ["map", "gm_map", "err"]
    result = compare(truth, runs, names, test="t", convention="trec_eval")
    for row, (run, metric) in enumerate(zip(result.runs["run"], result.runs["metric"])):
        expected = evaluate(truth, runs[run], [metric], convention="trec_eval")[metric]
        assert result.runs["mean"][row] == expected, (run, metric)
