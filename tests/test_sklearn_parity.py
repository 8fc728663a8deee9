"""With default parameters, ndcg_score and dcg_score equal scikit-learn's."""

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
