"""The spec's worked examples (Hivemall's documentation) and convention cases A-D."""

import numpy as np
import pytest
from reference import HIVEMALL_BINARY

import sklearn_rank as sr

HIVEMALL_GRADED = {"ndcg@2": 0.8128912838590544, "ndcg@3": 0.9187707805346093}

# Items 1..6 as columns 0..5; items 4 and 5 scored below the others.
DENSE_TRUE = [[1, 1, 0, 1, 0, 0]] * 3
DENSE_SCORE = [[10.0, 6.0, 8.0, 0.5, 0.1, 2.0]] * 3


def _assert_values(got, expected):
    for name, value in expected.items():
        assert got[name] == pytest.approx(value, abs=1e-12, rel=0), name


@pytest.mark.parametrize("ties", ["average", "stable"])
def test_hivemall_binary_ranked_lists(ties):
    got = sr.evaluate(
        [{1, 2, 4}] * 3,
        [[1, 3, 2, 6]] * 3,
        list(HIVEMALL_BINARY),
        ap_denominator="relevant",
        ties=ties,
    )
    _assert_values(got, HIVEMALL_BINARY)


def test_hivemall_binary_dense():
    got = sr.evaluate(DENSE_TRUE, DENSE_SCORE, list(HIVEMALL_BINARY), ap_denominator="relevant")
    _assert_values(got, HIVEMALL_BINARY)


def test_hivemall_binary_long_format_shuffled():
    y_true = np.ravel(DENSE_TRUE)
    y_score = np.ravel(DENSE_SCORE)
    groups = np.repeat(["ann", "bob", "cy"], 6)
    order = np.random.default_rng(0).permutation(y_true.size)
    got = sr.evaluate(y_true[order], y_score[order], list(HIVEMALL_BINARY), groups=groups[order])
    _assert_values(got, HIVEMALL_BINARY)


def test_hivemall_binary_individual_functions():
    truth, ranked = [{1, 2, 4}] * 3, [[1, 3, 2, 6]] * 3
    for k in (4, 2):
        assert sr.recall_at_k_score(truth, ranked, k=k) == HIVEMALL_BINARY[f"recall@{k}"]
        assert sr.precision_at_k_score(truth, ranked, k=k) == HIVEMALL_BINARY[f"precision@{k}"]
        assert sr.mean_average_precision_score(truth, ranked, k=k) == pytest.approx(
            HIVEMALL_BINARY[f"map@{k}"], abs=1e-12
        )
        assert sr.ranking_auc_score(truth, ranked, k=k) == HIVEMALL_BINARY[f"auc@{k}"]
        assert sr.mean_reciprocal_rank_score(truth, ranked, k=k) == HIVEMALL_BINARY[f"mrr@{k}"]
        assert sr.ndcg_score(truth, ranked, k=k) == pytest.approx(
            HIVEMALL_BINARY[f"ndcg@{k}"], abs=1e-12
        )


def test_hivemall_graded_exponential_gain():
    truth = [{1: 5, 3: 2, 2: 4, 6: 1, 4: 3}]
    scores = [{1: 10.0, 3: 8.0, 2: 6.0, 6: 2.0, 4: 1.0}]
    got = sr.evaluate(truth, scores, ["ndcg@2", "ndcg@3"], gain="exponential")
    _assert_values(got, HIVEMALL_GRADED)
    # Dense form: items 1, 2, 3, 4, 6 as columns.
    dense = sr.evaluate(
        [[5, 4, 2, 3, 1]], [[10, 6, 8, 1, 2]], ["ndcg@2", "ndcg@3"], gain="exponential"
    )
    _assert_values(dense, HIVEMALL_GRADED)


def test_hivemall_short_list_precision_divides_by_length():
    # Hivemall divides by the list's length when it is shorter than k.
    truth, ranked = [{1, 2, 4}], [[1, 3, 2, 6]]
    assert sr.precision_at_k_score(truth, ranked, k=10, short_lists="length") == 0.5
    assert sr.precision_at_k_score(truth, ranked, k=10) == 0.2


# Case A: one query, relevance by rank 1,0,1,0,1,1 (R = 4), k = 3.
CASE_A = ([[1, 0, 1, 0, 1, 1]], [[6, 5, 4, 3, 2, 1]])


@pytest.mark.parametrize(
    "denominator, expected",
    [
        ("relevant", 0.4167),
        ("min_k", 0.5556),
        ("hits", 0.8333),
    ],
)
def test_case_a_ap_denominators(denominator, expected):
    value = sr.mean_average_precision_score(*CASE_A, k=3, ap_denominator=denominator)
    assert value == pytest.approx(expected, abs=5e-5)


def test_case_a_other_values():
    # Closed forms: AP = (1 + 2/3 + 3/5 + 4/6) / 4, NDCG@3 = (1 + 1/2) / (1 + 1/log2 3 + 1/2).
    assert sr.mean_average_precision_score(*CASE_A) == pytest.approx(
        (1 + 2 / 3 + 3 / 5 + 4 / 6) / 4, abs=1e-15
    )
    assert sr.ndcg_score(*CASE_A, k=3) == pytest.approx(1.5 / (1 + 1 / np.log2(3) + 0.5), abs=1e-15)
    assert sr.ndcg_score(*CASE_A, k=3) == pytest.approx(0.7039, abs=5e-5)
    assert sr.precision_at_k_score(*CASE_A, k=3) == pytest.approx(2 / 3, abs=1e-15)
    assert sr.recall_at_k_score(*CASE_A, k=3) == 0.5


def test_case_b_ties():
    y_true, y_score = [[0, 0, 1, 1]], [[1.0, 1.0, 1.0, 1.0]]
    assert sr.ndcg_score(y_true, y_score, k=2) == pytest.approx(0.5, abs=1e-12)
    assert sr.ndcg_score(y_true, y_score, k=2, ties="stable") == 0.0
    # trec_eval's 1.0 comes from breaking ties by document id descending: the same
    # ranking, made explicit, gives it here.
    assert sr.ndcg_score(y_true, [[0, 1, 2, 3]], k=2) == pytest.approx(1.0, abs=1e-12)


def test_case_c_gain():
    # Graded labels 3, 2, 0, 1 with the label-2 item ranked first, then the label-3 item.
    y_true, y_score = [[3, 2, 0, 1]], [[3, 4, 1, 2]]
    assert sr.ndcg_score(y_true, y_score, k=2) == pytest.approx(0.9134, abs=5e-5)
    assert sr.ndcg_score(y_true, y_score, k=2, gain="exponential") == pytest.approx(
        0.8340, abs=5e-5
    )


def test_case_d_no_relevant():
    # First query has no relevant item, second has its only hit at rank 4.
    y_true = [[0, 0, 0, 0], [0, 0, 0, 1]]
    y_score = [[4, 3, 2, 1], [4, 3, 2, 1]]
    assert sr.ndcg_score(y_true, y_score, k=2) == 0.0
    assert sr.ndcg_score(y_true, y_score, k=2, no_relevant=1.0) == 0.5
    per_query = sr.ndcg_score(y_true, y_score, k=2, no_relevant="skip", per_query=True)
    assert np.isnan(per_query[0]) and per_query[1] == 0.0
    with pytest.raises(ValueError, match="no relevant item"):
        sr.ndcg_score(y_true, y_score, k=2, no_relevant="error")


def test_hivemall_code_divides_ap_by_hits():
    # Hivemall's AveragePrecision (since HIVEMALL-124) divides by the hits in the top k;
    # its unit test asserts (1/1 + 2/3) / 2 on this example.
    truth, ranked = [{1, 2, 4}], [[1, 3, 2, 6]]
    assert sr.mean_average_precision_score(
        truth, ranked, k=4, ap_denominator="hits"
    ) == pytest.approx((1 + 2 / 3) / 2, abs=1e-15)
    assert sr.mean_average_precision_score(truth, ranked, k=2, ap_denominator="hits") == 1.0
