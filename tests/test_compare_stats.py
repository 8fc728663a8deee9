"""Values of the compare statistics core against scipy, statsmodels, brute force and the
reference values of shared/spec/COMPARE.md section 9 (Sakai's book, Table 5.1)."""

import warnings

import numpy as np
import pytest
import scipy.stats
from numpy.testing import assert_allclose, assert_array_equal
from statsmodels.stats.multitest import multipletests

from sklearn_rank.compare import _stats
from sklearn_rank.compare._stats import (
    _adjust_p,
    _check_confidence,
    _check_correction,
    _check_n_resamples,
    _check_test,
    _complete_rows,
    _corrected_t,
    _effect_size_dz,
    _paired_t,
    _wilcoxon,
    _win_tie_loss,
)

# Sakai, "Laboratory Experiments in Information Retrieval", Table 5.1: 20 topics.
SAKAI_X = np.array([0.70, 0.30, 0.20, 0.60, 0.40, 0.40, 0.00, 0.70, 0.10, 0.30,
                    0.50, 0.40, 0.00, 0.60, 0.50, 0.30, 0.10, 0.50, 0.20, 0.10])
SAKAI_Y = np.array([0.50, 0.10, 0.00, 0.20, 0.40, 0.30, 0.00, 0.50, 0.30, 0.30,
                    0.40, 0.40, 0.10, 0.40, 0.20, 0.10, 0.10, 0.60, 0.30, 0.20])
SAKAI_Z = np.array([0.00, 0.00, 0.20, 0.10, 0.30, 0.30, 0.10, 0.20, 0.40, 0.40,
                    0.40, 0.30, 0.30, 0.20, 0.20, 0.20, 0.10, 0.50, 0.40, 0.30])
SAKAI_D = SAKAI_X - SAKAI_Y


def _quiet(function, *args, **kwargs):
    """Call scipy on a degenerate sample without its warnings."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return function(*args, **kwargs)


def _awkward_columns(n, rng):
    """Columns of differences covering the edge cases: continuous, decimal ties, zeros,
    all zero, one non-zero, equal non-zero values (exact and decimal)."""
    columns = [
        rng.normal(size=n),
        np.round(rng.normal(size=n), 1),
        np.where(rng.random(n) < 0.3, 0.0, rng.normal(size=n)),
        np.zeros(n),
        np.r_[np.zeros(n - 1), 0.4] if n else np.zeros(0),
        np.ones(n),
        np.full(n, 0.1),
        rng.integers(-2, 3, n).astype(float),
    ]
    return np.column_stack(columns)


# --- validation ----------------------------------------------------------------------------


@pytest.mark.parametrize("value", [0, 1, 1.5, -0.2, float("nan"), True, "0.9", None])
def test_check_confidence_names_parameter_and_value(value):
    with pytest.raises(ValueError) as error:
        _check_confidence(value)
    assert str(error.value) == f"confidence must be in (0, 1); got {value!r}."


def test_check_confidence_accepts_numpy_and_shows_numpy_values_plainly():
    assert _check_confidence(np.float32(0.5)) == 0.5
    with pytest.raises(ValueError, match=r"^confidence must be in \(0, 1\); got 1.5\.$"):
        _check_confidence(np.float64(1.5))


@pytest.mark.parametrize("value", [0, -3, 2.0, 1e4, True, None, "100"])
def test_check_n_resamples_rejects(value):
    with pytest.raises(ValueError) as error:
        _check_n_resamples(value)
    assert str(error.value) == f"n_resamples must be a positive integer; got {value!r}."


def test_check_n_resamples_accepts_integers():
    assert _check_n_resamples(np.int64(9999)) == 9999
    assert type(_check_n_resamples(np.int64(1))) is int


def test_check_test_and_correction():
    for test in ("t", "wilcoxon", "randomization", "bootstrap"):
        assert _check_test(test) == test
    with pytest.raises(ValueError, match=r"^test must be one of 't', .*; got 'student'\.$"):
        _check_test("student")
    assert _check_correction(None) is None
    assert _check_correction("holm") == "holm"
    with pytest.raises(
        ValueError,
        match=r"^correction must be None or one of 'holm', 'bonferroni', 'fdr_bh'; got 'hs'\.$",
    ):
        _check_correction("hs")


def test_complete_rows_drops_rows_with_any_nan():
    values = np.array([[1.0, 2.0], [np.nan, 1.0], [3.0, np.nan], [4.0, 5.0]])
    kept, mask = _complete_rows(values)
    assert_array_equal(mask, [True, False, False, True])
    assert_array_equal(kept, [[1.0, 2.0], [4.0, 5.0]])


# --- paired t ------------------------------------------------------------------------------


@pytest.mark.parametrize("n", [2, 3, 10, 57])
@pytest.mark.parametrize("confidence", [0.9, 0.95])
def test_paired_t_equals_ttest_rel_column_by_column(n, confidence):
    rng = np.random.default_rng(n)
    y = rng.random((n, 8))
    x = y + _awkward_columns(n, rng)
    statistic, p_value, low, high = _paired_t(x - y, confidence)
    for j in range(x.shape[1]):
        expected = _quiet(scipy.stats.ttest_rel, x[:, j], y[:, j])
        interval = _quiet(expected.confidence_interval, confidence)
        # Same operations as scipy, so the same bits (NaN and inf included).
        assert_array_equal(
            [statistic[j], p_value[j], low[j], high[j]],
            [expected.statistic, expected.pvalue, interval.low, interval.high])


def test_paired_t_edge_cases_of_the_spec():
    statistic, p_value, low, high = _paired_t(np.column_stack([np.zeros(5), np.full(5, 2.0)]))
    assert np.isnan(statistic[0]) and np.isnan(p_value[0])
    assert (low[0], high[0]) == (0.0, 0.0)
    assert statistic[1] == np.inf and p_value[1] == 0.0 and (low[1], high[1]) == (2.0, 2.0)
    for n in (0, 1):
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # nothing leaks
            result = _paired_t(np.ones((n, 3)))
        assert all(np.isnan(r).all() and r.shape == (3,) for r in result)


def test_paired_t_sakai_reference_values():
    statistic, p_value, low, high = _paired_t(SAKAI_D, 0.95)
    assert statistic[0] == pytest.approx(2.1157598613, abs=1e-10)
    assert p_value[0] == pytest.approx(0.0477967618, abs=1e-10)
    assert low[0] == pytest.approx(0.0008059447, abs=1e-10)
    assert high[0] == pytest.approx(0.1491940553, abs=1e-10)


def test_paired_t_leaks_no_warning_on_degenerate_columns():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _paired_t(np.column_stack([np.zeros(4), np.ones(4)]))


# --- Wilcoxon ------------------------------------------------------------------------------


@pytest.mark.parametrize("n", [1, 2, 5, 9, 14, 20, 50, 51, 80])
def test_wilcoxon_equals_scipy_default_column_by_column(n):
    rng = np.random.default_rng(100 + n)
    y = rng.random((n, 8))
    x = y + _awkward_columns(n, rng)
    d = x - y
    statistic, p_value = _wilcoxon(d)
    for j in range(d.shape[1]):
        if n == 1 and d[0, j] == 0:
            # scipy raises here (a permutation test of one observation).
            assert (statistic[j], p_value[j]) == (0.0, 1.0)
            continue
        expected = _quiet(scipy.stats.wilcoxon, x[:, j], y[:, j])
        assert_array_equal([statistic[j], p_value[j]], [expected.statistic, expected.pvalue])


def test_wilcoxon_permutation_branch_equals_scipy_at_its_largest_n():
    # n = 13 with ties or zeros: scipy enumerates 2**13 sign vectors per column (slow),
    # _wilcoxon enumerates them once for all columns.
    rng = np.random.default_rng(13)
    d = np.column_stack([np.round(rng.normal(size=13), 1),
                         np.where(rng.random(13) < 0.3, 0.0, rng.integers(-3, 4, 13))])
    statistic, p_value = _wilcoxon(d)
    for j in range(2):
        expected = scipy.stats.wilcoxon(d[:, j])
        assert_array_equal([statistic[j], p_value[j]], [expected.statistic, expected.pvalue])


def test_wilcoxon_per_column_method_differs_from_one_vectorised_scipy_call():
    # scipy's "auto" looks for ties in the whole array: at n = 20 one tied column sends
    # an untied one to the asymptotic branch. Alone, the untied one is tested exactly.
    rng = np.random.default_rng(7)
    d = np.column_stack([rng.normal(size=20), np.round(rng.normal(size=20), 0) + 0.5])
    _, p_value = _wilcoxon(d)
    per_column = [scipy.stats.wilcoxon(d[:, j]).pvalue for j in range(2)]
    assert_array_equal(p_value, per_column)
    all_at_once = scipy.stats.wilcoxon(d, axis=0).pvalue
    assert abs(p_value[0] - all_at_once[0]) > 1e-4


def test_wilcoxon_sakai_and_float_ties():
    statistic, p_value = _wilcoxon(SAKAI_D)
    assert statistic[0] == 24.0
    assert p_value[0] == pytest.approx(0.0403602584, abs=1e-10)
    _, rounded = _wilcoxon(SAKAI_D, decimals=12)
    assert rounded[0] == pytest.approx(0.0372293031, abs=1e-10)
    # The float "ties": 0.7 - 0.5 and 0.3 - 0.1 differ in binary.
    assert 0.7 - 0.5 != 0.3 - 0.1
    assert _wilcoxon([0.7 - 0.5, 0.3 - 0.1, 0.1], decimals=12)[1][0] == scipy.stats.wilcoxon(
        [0.2, 0.2, 0.1]).pvalue


def test_wilcoxon_edge_cases_of_the_spec():
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # scipy's warnings are absorbed
        assert _wilcoxon(np.zeros(13))[1][0] == 1.0
        assert np.isnan(_wilcoxon(np.zeros(14))[1][0])
        assert _wilcoxon(np.r_[np.zeros(30), 0.3])[1][0] == pytest.approx(
            scipy.stats.wilcoxon(np.r_[np.zeros(30), 0.3]).pvalue)
        assert _wilcoxon([0.0, 0.0, 0.7])[1][0] == 1.0
        assert _wilcoxon([1.0, 1.0, 1.0])[1][0] == 0.25
        statistic, p_value = _wilcoxon(np.zeros((0, 2)))
        assert np.isnan(statistic).all() and np.isnan(p_value).all() and p_value.shape == (2,)


# --- multiple-testing corrections ----------------------------------------------------------


@pytest.mark.parametrize("method", ["bonferroni", "holm", "fdr_bh"])
@pytest.mark.parametrize("size", [0, 1, 2, 7, 60])
def test_adjust_p_equals_statsmodels(method, size):
    rng = np.random.default_rng(size)
    for p in (rng.random(size) ** 3, np.round(rng.random(size) * 0.1, 2)):  # ties in the 2nd
        assert_array_equal(_adjust_p(p, method), multipletests(p, method=method)[1])


def test_adjust_p_bh_equals_scipy_false_discovery_control():
    p = np.random.default_rng(3).random(40) ** 2
    assert_allclose(_adjust_p(p, "fdr_bh"), scipy.stats.false_discovery_control(p),
                    rtol=1e-15)


def test_adjust_p_leaves_nan_out_of_the_family():
    p = np.array([0.01, np.nan, 0.04, 0.03, np.nan, 0.2])
    tested = ~np.isnan(p)
    for method in ("bonferroni", "holm", "fdr_bh"):
        adjusted = _adjust_p(p, method)
        assert np.isnan(adjusted[~tested]).all()
        assert_array_equal(adjusted[tested], multipletests(p[tested], method=method)[1])
    # statsmodels on the whole vector: BH turns everything NaN, Holm counts NaN in m.
    assert np.isnan(multipletests(p, method="fdr_bh")[1]).all()
    assert multipletests(p, method="holm")[1][0] == pytest.approx(0.06)
    assert _adjust_p(p, "holm")[0] == pytest.approx(0.04)


def test_adjust_p_hand_values_and_none():
    p = np.array([0.01, 0.04, 0.03])
    assert_allclose(_adjust_p(p, "holm"), [0.03, 0.06, 0.06])
    assert_allclose(_adjust_p(p, "fdr_bh"), [0.03, 0.04, 0.04])
    assert_allclose(_adjust_p(p, "bonferroni"), [0.03, 0.12, 0.09])
    assert_allclose(_adjust_p([0.6, 0.5], "bonferroni"), [1.0, 1.0])
    unchanged = _adjust_p(p, None)
    assert_array_equal(unchanged, p) and unchanged is not p
    with pytest.raises(ValueError, match="correction must be None or one of"):
        _adjust_p(p, "hs")


# --- effect size, wins, Nadeau-Bengio ------------------------------------------------------


def test_effect_size_dz_sakai_and_relation_to_t():
    assert _effect_size_dz(SAKAI_D)[0] == pytest.approx(0.4730982874, abs=1e-10)
    d = np.random.default_rng(71).normal(size=(30, 4))
    assert_allclose(_effect_size_dz(d), _paired_t(d)[0] / np.sqrt(30), rtol=1e-13)
    corrected = _effect_size_dz(d, small_sample_correction=True)
    assert_allclose(corrected, _effect_size_dz(d) * (1 - 3 / (4 * 29 - 1)), rtol=1e-15)


def test_effect_size_dz_edge_cases():
    # Three 0.1 have a computed standard deviation of about 1e-17, not 0.
    assert np.std(np.full(3, 0.1)) > 0
    dz = _effect_size_dz(np.column_stack([np.zeros(3), np.full(3, 0.1), np.full(3, -2.0)]))
    assert np.isnan(dz[0]) and dz[1] == np.inf and dz[2] == -np.inf
    assert np.isnan(_effect_size_dz(np.ones((1, 2)))).all()


def test_win_tie_loss_counts():
    wins, ties, losses = _win_tie_loss(np.column_stack([SAKAI_D, -SAKAI_D]))
    by_hand = (sum(x > y for x, y in zip(SAKAI_X, SAKAI_Y, strict=True)),
               sum(x == y for x, y in zip(SAKAI_X, SAKAI_Y, strict=True)),
               sum(x < y for x, y in zip(SAKAI_X, SAKAI_Y, strict=True)))
    assert (wins[0], ties[0], losses[0]) == by_hand == (10, 5, 5)
    assert (wins[1], ties[1], losses[1]) == (5, 5, 10)


def _sklearn_example_corrected_ttest(differences, n_train, n_test):
    """scikit-learn's examples/model_selection/plot_grid_search_stats.py, restated."""
    kr = len(differences)
    corrected_std = np.sqrt(np.var(differences, ddof=1) * (1 / kr + n_test / n_train))
    t_stat = np.mean(differences) / corrected_std
    return t_stat, scipy.stats.t.sf(np.abs(t_stat), kr - 1)


def test_corrected_t_spec_vector_and_sklearn_example():
    d = np.array([0.01, 0.02, -0.005, 0.015, 0, 0.03, 0.01, -0.01, 0.02, 0.005])
    statistic, p_value = _corrected_t(d, 90, 10)
    assert statistic[0] == pytest.approx(1.674299, abs=1e-6)
    assert p_value[0] == pytest.approx(0.128396, abs=1e-6)
    example_t, example_p = _sklearn_example_corrected_ttest(d, 90, 10)
    assert statistic[0] == pytest.approx(example_t, rel=1e-13)
    assert p_value[0] == pytest.approx(2 * example_p, rel=1e-12)
    assert example_p == pytest.approx(0.064198, abs=1e-6)
    assert scipy.stats.ttest_1samp(d, 0).statistic == pytest.approx(2.432701, abs=1e-6)


def test_corrected_t_edge_cases_and_validation():
    assert np.isnan(_corrected_t(np.ones((1, 2)), 90, 10)).all()
    statistic, p_value = _corrected_t(np.column_stack([np.zeros(5), np.full(5, 2.0)]), 4, 1)
    assert np.isnan(statistic[0]) and np.isnan(p_value[0])
    assert statistic[1] == np.inf and p_value[1] == 0.0
    for name, args in (("n_train", (0, 10)), ("n_test", (90, -1)), ("n_train", (9.0, 1))):
        with pytest.raises(ValueError, match=f"^{name} must be a positive integer"):
            _corrected_t(np.ones(5), *args)


def test_modules_stay_under_600_lines():
    for module in (_stats,):
        with open(module.__file__) as source:
            assert sum(1 for _ in source) <= 600
