"""ScoreStandardizer: the worked examples of shared/spec/DECIDE.md section 2, a slow
reference written from the definitions (Urbano et al.'s R code: mean, sd, pnorm, punif,
the empirical CDF), the all-equal topic, alignment by query id, trec_eval's zscores file
and compare(..., standardize=)."""

import math
import statistics

import numpy as np
import pytest
import scipy.stats
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.base import clone

from sklearn_rank import ItemJudgments, ItemRanking, ScoreStandardizer, compare

# Sakai's Table 5.1 (as in test_power.py): topic 17 is 0.1 for the three runs.
SAKAI = np.array(
    [
        [0.70, 0.30, 0.20, 0.60, 0.40, 0.40, 0.00, 0.70, 0.10, 0.30]
        + [0.50, 0.40, 0.00, 0.60, 0.50, 0.30, 0.10, 0.50, 0.20, 0.10],
        [0.50, 0.10, 0.00, 0.20, 0.40, 0.30, 0.00, 0.50, 0.30, 0.30]
        + [0.40, 0.40, 0.10, 0.40, 0.20, 0.10, 0.10, 0.60, 0.30, 0.20],
        [0.00, 0.00, 0.20, 0.10, 0.30, 0.30, 0.10, 0.20, 0.40, 0.40]
        + [0.40, 0.30, 0.30, 0.20, 0.20, 0.20, 0.10, 0.50, 0.40, 0.30],
    ]
).T


def test_worked_example_hand_4x5():
    # A topic with reference scores 0.1..0.5 (mean 0.3, sd 0.158114); x = 0.6.
    reference = np.array([[0.1, 0.2, 0.3, 0.4, 0.5]])
    expected = {"z": 1.897367, "normal": 0.971110, "linear": 0.784605, "ecdf": 1.0}
    for method, value in expected.items():
        standardizer = ScoreStandardizer(method).fit(reference)
        assert_allclose(standardizer.transform([0.6]), [value], atol=5e-7)
    fitted = ScoreStandardizer().fit(reference)
    assert_allclose(fitted.mean_, [0.3], rtol=1e-15)
    assert_allclose(fitted.scale_, [0.158114], atol=5e-7)


def test_all_equal_reference_scores_give_sd_exactly_zero():
    # Topic 17 of Sakai's table: 0.1 for every run. A float mean is 0.10000000000000002
    # and the sd 1.6e-17, so every run would get z = -0.8165 on it.
    assert np.mean(SAKAI[16]) != 0.1
    standardizer = ScoreStandardizer("z").fit(SAKAI)
    assert standardizer.mean_[16] == 0.1
    assert standardizer.scale_[16] == 0.0
    z = standardizer.transform(SAKAI)
    assert_array_equal(z[16], [0.0, 0.0, 0.0])
    assert np.isnan(standardizer.transform(np.full((20, 1), 0.2))[16, 0])
    raw = ScoreStandardizer("z", zero_sd="raw").fit(SAKAI)
    assert raw.transform(np.full((20, 1), 0.2))[16, 0] == 0.2  # z = x (Urbano's std_z)


def _reference_standardize(reference_row, x, method, ddof=1, slope=0.15, intercept=0.5):
    """One query, from the definitions, in plain Python."""
    values = [v for v in reference_row if not math.isnan(v)]
    if method == "ecdf":
        return sum(v <= x for v in values) / len(values)
    mean = statistics.fmean(values)
    sd = statistics.stdev(values) if ddof == 1 else statistics.pstdev(values)
    z = (x - mean) / sd
    if method == "z":
        return z
    if method == "normal":
        return 0.5 * math.erfc(-z / math.sqrt(2))  # R's pnorm
    # Urbano et al.'s std_U: punif(x, mu - sigma B / A, mu + sigma (1 - B) / A).
    low, high = mean - sd * intercept / slope, mean + sd * (1 - intercept) / slope
    return min(1.0, max(0.0, (x - low) / (high - low)))


@pytest.mark.parametrize("method", ["z", "normal", "linear", "ecdf"])
@pytest.mark.parametrize("ddof", [0, 1])
def test_equals_a_slow_reference_from_the_definitions(method, ddof):
    rng = np.random.default_rng(3)
    reference = rng.random((25, 6))
    reference[rng.random(reference.shape) < 0.1] = np.nan  # runs without a value
    new = rng.random((25, 3)) * 1.4 - 0.2
    ids = np.array([f"q{i}" for i in range(25)])
    standardizer = ScoreStandardizer(method, ddof=ddof).fit(reference, query_ids=ids)
    order = rng.permutation(25)  # rows matched by id, not by position
    got = standardizer.transform(new[order], query_ids=ids[order])
    expected = [
        [_reference_standardize(reference[q], x, method, ddof) for x in new[q]] for q in order
    ]
    assert_allclose(got, expected, rtol=1e-12, atol=1e-15)


def test_linear_unclipped_leaves_zero_one():
    reference = np.array([[0.1, 0.2, 0.3, 0.4, 0.5]])
    z = ScoreStandardizer("z").fit(reference).transform([2.0])[0]
    unclipped = ScoreStandardizer("linear", clip=False).fit(reference).transform([2.0])[0]
    assert unclipped == 0.15 * z + 0.5 and unclipped > 1
    assert ScoreStandardizer("linear").fit(reference).transform([2.0])[0] == 1.0


def test_queries_are_matched_by_id_and_missing_ones_are_nan():
    reference = np.array([[0.1, 0.3], [0.5, 0.9]])
    standardizer = ScoreStandardizer("z").fit(reference, query_ids=[7, 9])
    got = standardizer.transform([0.3, 0.2, 0.7], query_ids=["9", 8, 7])
    # "9" read as the query 9 (ids as text when one side is text); 8 is not a reference.
    expected_9 = (0.3 - 0.7) / np.std([0.5, 0.9], ddof=1)
    assert_allclose(got[0], expected_9, rtol=1e-15)
    assert np.isnan(got[1])
    assert_allclose(got[2], (0.7 - 0.2) / np.std([0.1, 0.3], ddof=1), rtol=1e-15)


def test_dict_of_metrics_and_scikit_learn_api():
    rng = np.random.default_rng(0)
    reference = {"map": rng.random((5, 4)), "ndcg@10": rng.random((5, 4))}
    standardizer = ScoreStandardizer("z").fit(reference, query_ids=list("abcde"))
    assert standardizer.metrics_ == ["map", "ndcg@10"]
    out = standardizer.transform({"ndcg@10": reference["ndcg@10"]}, query_ids=list("abcde"))
    assert_allclose(out["ndcg@10"].mean(axis=1), 0.0, atol=1e-15)
    assert clone(standardizer).get_params() == standardizer.get_params()
    positional = ScoreStandardizer().fit_transform(reference["map"])
    assert positional.shape == (5, 4)
    by_id = ScoreStandardizer("z").fit_transform(reference, query_ids=list("abcde"))
    assert_array_equal(
        by_id["map"], standardizer.transform(reference, query_ids=list("abcde"))["map"]
    )


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: ScoreStandardizer("t").fit(SAKAI), "method must be one of"),
        (lambda: ScoreStandardizer(ddof=-1).fit(SAKAI), "ddof must be a non-negative"),
        (lambda: ScoreStandardizer(slope=0).fit(SAKAI), "slope must be"),
        (lambda: ScoreStandardizer(zero_sd="zero").fit(SAKAI), "zero_sd must be one of"),
        (lambda: ScoreStandardizer().fit(SAKAI[:, :1]), "at least 2 reference runs"),
        (lambda: ScoreStandardizer().fit(SAKAI, query_ids=[1] * 20), "must not repeat"),
        (
            lambda: ScoreStandardizer().fit(SAKAI, query_ids=range(20)).transform(SAKAI),
            "query_ids is needed",
        ),
        (lambda: ScoreStandardizer().fit(SAKAI).transform({"map": SAKAI}), "exactly when"),
        (
            lambda: ScoreStandardizer().fit(np.where(SAKAI >= 0.7, np.inf, SAKAI)),
            r"X must hold finite values or NaN \(a run without a value\); got inf",
        ),
        (
            lambda: ScoreStandardizer().fit(
                {"map": SAKAI, "P@5": np.where(SAKAI > 0.5, -np.inf, SAKAI)}
            ),
            r"X\['P@5'\] must hold finite values or NaN",
        ),
    ],
)
def test_parameters_and_inputs_are_checked(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_zscores_file_round_trip(tmp_path):
    rng = np.random.default_rng(1)
    reference = {"map": rng.random((4, 5)), "P@5": rng.random((4, 5))}
    reference["map"][2] = np.nan  # q2 has no map line
    fitted = ScoreStandardizer("z").fit(reference, query_ids=["q1", "q2", "q3", "q4"])
    path = tmp_path / "zscores"
    fitted.to_zscores_file(path, {"map": "map", "P@5": "P_5"})
    lines = path.read_text().splitlines()
    assert len(lines) == 7 and lines[0].split()[:2] == ["q1", "map"]
    read = ScoreStandardizer.from_zscores_file(path)
    assert read.metrics_ == ["map", "P_5"]
    assert_array_equal(read.mean_["P_5"], fitted.mean_["P@5"])  # to the bit
    assert_array_equal(read.scale_["map"], fitted.scale_["map"])
    new = rng.random((4, 2))
    assert_array_equal(
        read.transform({"P_5": new}, query_ids=["q1", "q2", "q3", "q4"])["P_5"],
        fitted.transform({"P@5": new}, query_ids=["q1", "q2", "q3", "q4"])["P@5"],
    )


@pytest.mark.parametrize(
    "query_ids, measure_names, message",
    [
        (["q1", "q2"], ["map", "P_5", "ndcg"], "one name without whitespace to each of 2"),
        (["q1", "q2"], {"map": "map", "P@5": "map"}, "distinct"),
        (["q 1", "q2"], ["map", "P_5"], "query id 'q 1' holds whitespace"),
    ],
)
def test_zscores_file_refuses_what_it_cannot_write(tmp_path, query_ids, measure_names, message):
    # Each of these wrote a file without an error: a name left out, lines that trec_eval
    # and from_zscores_file read as one (qid, measure) given twice, or a line of 5 fields.
    reference = {"map": SAKAI[:2], "P@5": SAKAI[2:4]}
    fitted = ScoreStandardizer("z").fit(reference, query_ids=query_ids)
    path = tmp_path / "zscores"
    with pytest.raises(ValueError, match=message):
        fitted.to_zscores_file(path, measure_names)
    assert not path.exists()


@pytest.mark.parametrize(
    "text, message",
    [
        ("", "is empty"),
        ("q1 map 0.5 0.2 extra\n", "4 fields"),
        ("q1 map 0.5 0.2\n\nq2 map 0.5 0.2\n", "line 2"),
        ("q1 map x 0.2\n", "must be numbers"),
        ("q1 map 0.5 -0.2\n", "at least 0"),
        ("q1 map 0.5 0.2\nq1 map 0.4 0.2\n", "given twice"),
    ],
)
def test_zscores_file_errors(tmp_path, text, message):
    path = tmp_path / "zscores"
    path.write_text(text)
    with pytest.raises(ValueError, match=message):
        ScoreStandardizer.from_zscores_file(path)


def test_compare_tests_the_standardized_values():
    rng = np.random.default_rng(0)
    y_true = rng.integers(0, 3, size=(30, 12))
    reference_runs = {f"r{i}": y_true + rng.normal(0, 1 + i, y_true.shape) for i in range(4)}
    pilot = compare(y_true, reference_runs, "ndcg@5", baseline="r0", test="t")
    standardizer = ScoreStandardizer().fit(pilot.per_query["ndcg@5"], query_ids=pilot.query_ids)
    runs = {
        "a": y_true + rng.normal(0, 2, y_true.shape),
        "b": y_true + rng.normal(0, 1, y_true.shape),
    }
    plain = compare(y_true, runs, "ndcg@5", baseline="a", test="t")
    result = compare(y_true, runs, "ndcg@5", baseline="a", test="t", standardize=standardizer)
    expected = standardizer.transform(plain.per_query["ndcg@5"], query_ids=plain.query_ids)
    assert_array_equal(result.per_query["ndcg@5"], expected)
    t = scipy.stats.ttest_rel(expected[:, 1], expected[:, 0])
    assert_allclose(result.pairs["pvalue"], [t.pvalue], rtol=1e-12)
    assert_allclose(result.pairs["diff"], [np.mean(expected[:, 1] - expected[:, 0])], rtol=1e-12)
    assert any("standardized" in note for note in result.notes)
    with pytest.raises(ValueError, match="standardize must be None or a fitted"):
        compare(y_true, runs, "ndcg@5", standardize=ScoreStandardizer())
    with pytest.raises(ValueError, match="standardizes one metric"):
        compare(y_true, runs, ["ndcg@5", "map"], standardize=standardizer)


def test_compare_refuses_a_standardizer_that_knows_none_of_its_queries():
    # Fitted without query ids (rows 0, 1...), it matched none of the queries "q1"...:
    # every value NaN, and compare returned NaN means and p-values without a word.
    rng = np.random.default_rng(0)
    queries = np.repeat(["q1", "q2", "q3", "q4"], 5)
    items = np.tile([f"d{i}" for i in range(5)], 4)
    truth = ItemJudgments(queries, items, rng.integers(0, 3, 20).astype(float))
    runs = {name: ItemRanking(queries, items, rng.random(20)) for name in "ab"}
    positional = ScoreStandardizer().fit(rng.random((4, 3)))
    with pytest.raises(ValueError, match=r"standardize knows none of the 4 queries \('q1'"):
        compare(truth, runs, "ndcg@3", standardize=positional, test="t")
    by_id = ScoreStandardizer().fit(rng.random((4, 3)), query_ids=["q1", "q2", "q3", "q9"])
    result = compare(truth, runs, "ndcg@3", standardize=by_id, test="t")
    assert np.isnan(result.per_query["ndcg@3"][3]).all()  # q4: the reference lacks it
    assert not np.isnan(result.per_query["ndcg@3"][:3]).any()
