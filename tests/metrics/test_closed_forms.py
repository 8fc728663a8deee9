"""Values against closed forms and real peers (scikit-learn's roc_auc_score, scipy)."""

from math import comb

import numpy as np
import pytest
import scipy.stats
from sklearn.metrics import roc_auc_score

import sklearn_rank as sr


def test_mrr_all_tied_is_mean_reciprocal_position():
    # One relevant among n tied items: uniform position, E[1/p] = H_n / n.
    for n in range(1, 8):
        y_true = [[1] + [0] * (n - 1)]
        expected = sum(1 / p for p in range(1, n + 1)) / n
        assert sr.mean_reciprocal_rank_score(y_true, [[0.0] * n]) == pytest.approx(
            expected, abs=1e-12
        )


@pytest.mark.parametrize("n, m, k", [(4, 1, 2), (6, 2, 3), (10, 3, 1), (5, 5, 2), (7, 2, 9)])
def test_hit_rate_all_tied_is_one_minus_hypergeometric_zero(n, m, k):
    y_true = [[1] * m + [0] * (n - m)]
    t = min(k, n)
    expected = 1 - comb(n - m, t) / comb(n, t)
    assert sr.hit_rate_score(y_true, [[1.0] * n], k=k) == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("n, m, k", [(4, 2, 2), (6, 3, 4), (5, 1, 3)])
def test_precision_and_recall_all_tied_are_proportional(n, m, k):
    y_true = [[1] * m + [0] * (n - m)]
    assert sr.precision_at_k_score(y_true, [[0.0] * n], k=k) == pytest.approx(m / n, abs=1e-15)
    assert sr.recall_at_k_score(y_true, [[0.0] * n], k=k) == pytest.approx(k / n, abs=1e-15)


def test_auc_full_equals_roc_auc_per_query():
    rng = np.random.default_rng(0)
    for _ in range(200):
        n = rng.integers(2, 15)
        y_true = (rng.random(n) < 0.4).astype(int)
        if y_true.min() == y_true.max():
            continue
        y_score = rng.integers(0, 4, n).astype(float)  # ties count 1/2 in both
        assert sr.ranking_auc_score([y_true], [y_score]) == pytest.approx(
            roc_auc_score(y_true, y_score), abs=1e-12
        )


def test_kendall_tau_equals_scipy_without_score_ties():
    rng = np.random.default_rng(1)
    for _ in range(200):
        n = rng.integers(2, 12)
        y_true = rng.integers(0, 4, n)
        if y_true.max() == 0 or y_true.min() == y_true.max():
            continue
        y_score = rng.permutation(n).astype(float)
        expected = scipy.stats.kendalltau(y_score, y_true).statistic
        for ties in ("average", "stable"):
            assert sr.kendall_tau_score([y_true], [y_score], ties=ties) == pytest.approx(
                expected, abs=1e-12
            )


def test_kendall_tau_with_tied_scores_has_untied_denominator():
    # Scores tied pairwise; tau numerator counts untied pairs only, denominator
    # sqrt(n0 * (n0 - n2)) with n0 = 6 and n2 = 0 (all relevance levels distinct).
    y_true, y_score = [[3, 2, 1, 0]], [[1.0, 1.0, 0.0, 0.0]]
    # Untied pairs (4 of 6) are all concordant.
    assert sr.kendall_tau_score(y_true, y_score) == pytest.approx(4 / 6, abs=1e-15)
    # Stable: input order breaks the ties, a perfect ranking.
    assert sr.kendall_tau_score(y_true, y_score, ties="stable") == pytest.approx(1.0, abs=1e-15)


def test_arp_closed_form_with_ties():
    # Relevant items at positions 1 and 3 of 4 -> (1/4 + 3/4) / 2.
    assert sr.average_relative_position([[1, 0, 1, 0]], [[4, 3, 2, 1]]) == 0.5
    # All four tied: expected position 2.5 of 4 for each relevant item.
    assert sr.average_relative_position([[1, 0, 1, 0]], [[1, 1, 1, 1]]) == 2.5 / 4


def test_map_with_hits_denominator_under_ties_is_exact_expectation():
    # Items tied at k: y_true [1, 1, 0, 1] scored [3, 2, 2, 1], k=2. Position 1 is a hit;
    # position 2 is the relevant or the non-relevant tied item, each with probability 1/2:
    # AP over hits = 1/2 * (1 + 1) / 2 + 1/2 * 1 / 1 = 1.
    value = sr.mean_average_precision_score(
        [[1, 1, 0, 1]], [[3, 2, 2, 1]], k=2, ap_denominator="hits"
    )
    assert value == pytest.approx(1.0, abs=1e-15)
    # y_true [0, 1, 0, 1] all tied, k=2: orderings of the top 2 from {a, b, c, d}.
    # E[sum / hits] by enumeration of the 12 ordered pairs: hits at (1): AP 1, at (2): 1/2,
    # both: 1. Pairs with first relevant and second not: 4 -> 1; first not, second
    # relevant: 4 -> 1/2; both relevant: 2 -> 1; none: 2 -> 0. Mean = (4 + 2 + 2) / 12.
    value = sr.mean_average_precision_score(
        [[0, 1, 0, 1]], [[1, 1, 1, 1]], k=2, ap_denominator="hits"
    )
    assert value == pytest.approx(8 / 12, abs=1e-15)


def test_auc_top_k_under_ties_averages_the_ratio():
    # y_true [1, 0, 1, 0], scores [3, 2, 2, 1], k=2: top-2 = item 0 and one of items 1, 2.
    # Item 1 (non-relevant): one pair, correct -> 1. Item 2 (relevant): no pair -> 0.5.
    value = sr.ranking_auc_score([[1, 0, 1, 0]], [[3, 2, 2, 1]], k=2)
    assert value == pytest.approx(0.75, abs=1e-15)
    assert sr.ranking_auc_score([[1, 0, 1, 0]], [[3, 2, 2, 1]], k=2, ties="stable") == 1.0


def test_graded_relevance_up_to_31_with_exponential_gain():
    y_true = [[31, 0, 30]]
    value = sr.dcg_score(y_true, [[3, 2, 1]], gain="exponential")
    assert value == pytest.approx((2.0**31 - 1) + (2.0**30 - 1) / 2.0, rel=1e-15)


def test_relevance_threshold_on_graded_labels():
    y_true, y_score = [[3, 1, 2, 0]], [[4, 3, 2, 1]]
    assert sr.precision_at_k_score(y_true, y_score, k=2) == 1.0
    assert sr.precision_at_k_score(y_true, y_score, k=2, relevance_threshold=2) == 0.5
    assert sr.recall_at_k_score(y_true, y_score, k=2, relevance_threshold=2) == 0.5
