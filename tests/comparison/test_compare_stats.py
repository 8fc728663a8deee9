"""Values of the compare statistics core against scipy, statsmodels, brute force and the
reference values of shared/spec/COMPARE.md section 9 (Sakai's book, Table 5.1)."""

import itertools
import warnings

import numpy as np
import pytest
import scipy.stats
from numpy.testing import assert_allclose, assert_array_equal
from statsmodels.stats.multitest import multipletests

from sklearn_rank import compare
from sklearn_rank.comparison import _resampling, _signed_rank, _stats, _tukey
from sklearn_rank.comparison._parameters import CONFIDENCE, CORRECTION, N_RESAMPLES, TEST
from sklearn_rank.comparison._resampling import (
    _bootstrap_ci,
    _bootstrap_index_blocks,
    _bootstrap_p,
    _random_sign_blocks,
    _randomization,
    _sign_flip_counts,
    _studentized_bootstrap_counts,
)
from sklearn_rank.comparison._signed_rank import _wilcoxon
from sklearn_rank.comparison._stats import (
    _adjust_p,
    _complete_rows,
    _corrected_t,
    _effect_size_dz,
    _paired_t,
    _win_tie_loss,
)
from sklearn_rank.comparison._tukey import (
    _random_permutation_blocks,
    _tukey_exceedances,
    _tukey_hsd_randomised,
)

# Sakai, "Laboratory Experiments in Information Retrieval", Table 5.1: 20 topics.
SAKAI_X = np.array(
    [
        0.70,
        0.30,
        0.20,
        0.60,
        0.40,
        0.40,
        0.00,
        0.70,
        0.10,
        0.30,
        0.50,
        0.40,
        0.00,
        0.60,
        0.50,
        0.30,
        0.10,
        0.50,
        0.20,
        0.10,
    ]
)
SAKAI_Y = np.array(
    [
        0.50,
        0.10,
        0.00,
        0.20,
        0.40,
        0.30,
        0.00,
        0.50,
        0.30,
        0.30,
        0.40,
        0.40,
        0.10,
        0.40,
        0.20,
        0.10,
        0.10,
        0.60,
        0.30,
        0.20,
    ]
)
SAKAI_Z = np.array(
    [
        0.00,
        0.00,
        0.20,
        0.10,
        0.30,
        0.30,
        0.10,
        0.20,
        0.40,
        0.40,
        0.40,
        0.30,
        0.30,
        0.20,
        0.20,
        0.20,
        0.10,
        0.50,
        0.40,
        0.30,
    ]
)
SAKAI_D = SAKAI_X - SAKAI_Y
EXACT_SIGN_FLIP_P = 69120 / 1048576


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
        CONFIDENCE.validate(value)
    assert str(error.value) == f"confidence must be in (0, 1); got {value!r}."


def test_check_confidence_accepts_numpy_and_shows_numpy_values_plainly():
    assert CONFIDENCE.validate(np.float32(0.5)) == 0.5
    with pytest.raises(ValueError, match=r"^confidence must be in \(0, 1\); got 1.5\.$"):
        CONFIDENCE.validate(np.float64(1.5))


@pytest.mark.parametrize("value", [0, -3, 2.0, 1e4, True, None, "100"])
def test_check_n_resamples_rejects(value):
    with pytest.raises(ValueError) as error:
        N_RESAMPLES.validate(value)
    assert str(error.value) == f"n_resamples must be a positive integer; got {value!r}."


def test_check_n_resamples_accepts_integers():
    assert N_RESAMPLES.validate(np.int64(9999)) == 9999
    assert type(N_RESAMPLES.validate(np.int64(1))) is int


def test_check_test_and_correction():
    for test in ("t", "wilcoxon", "randomization", "bootstrap", "tukey_hsd", "corrected_t"):
        assert TEST.validate(test) == test
    with pytest.raises(
        ValueError, match=r"^test must be one of 'randomization', .*; got 'student'\.$"
    ):
        TEST.validate("student")
    assert CORRECTION.validate(None) is None
    assert CORRECTION.validate("holm") == "holm"
    with pytest.raises(
        ValueError,
        match=r"^correction must be None or one of 'holm', 'bonferroni', 'fdr_bh'; got 'hs'\.$",
    ):
        CORRECTION.validate("hs")


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
            [expected.statistic, expected.pvalue, interval.low, interval.high],
        )


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


@pytest.mark.slow
def test_wilcoxon_permutation_branch_equals_scipy_at_its_largest_n():
    # n = 13 with zeros and tied |d|: scipy enumerates 2**13 sign vectors (0.7 s per
    # column), _wilcoxon enumerates them once for all columns.
    d = np.array([0.0, 0.3, -0.3, 0.0, 1.2, -0.5, 0.7, 0.3, 0.3, 2.0, -1.1, 0.4, 0.9])
    statistic, p_value = _wilcoxon(d)
    expected = scipy.stats.wilcoxon(d)
    assert_array_equal([statistic[0], p_value[0]], [expected.statistic, expected.pvalue])


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
    assert (
        _wilcoxon([0.7 - 0.5, 0.3 - 0.1, 0.1], decimals=12)[1][0]
        == scipy.stats.wilcoxon([0.2, 0.2, 0.1]).pvalue
    )


def test_wilcoxon_edge_cases_of_the_spec():
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # scipy's warnings are absorbed
        assert _wilcoxon(np.zeros(13))[1][0] == 1.0
        assert np.isnan(_wilcoxon(np.zeros(14))[1][0])
        assert _wilcoxon(np.r_[np.zeros(30), 0.3])[1][0] == pytest.approx(
            scipy.stats.wilcoxon(np.r_[np.zeros(30), 0.3]).pvalue
        )
        assert _wilcoxon([0.0, 0.0, 0.7])[1][0] == 1.0
        assert _wilcoxon([1.0, 1.0, 1.0])[1][0] == 0.25
        statistic, p_value = _wilcoxon(np.zeros((0, 2)))
        assert np.isnan(statistic).all() and np.isnan(p_value).all() and p_value.shape == (2,)


# --- randomization (sign flip) -------------------------------------------------------------


def _scipy_exact_sign_flip(column):
    return scipy.stats.permutation_test(
        (column,),
        lambda sample, axis: np.mean(sample, axis=axis),
        vectorized=True,
        permutation_type="samples",
        n_resamples=np.inf,
    ).pvalue


@pytest.mark.parametrize("n", [2, 3, 6, 9, 12])
def test_randomization_exact_equals_scipy_permutation_test(n):
    rng = np.random.default_rng(200 + n)
    d = _awkward_columns(n, rng)
    p_value, exact = _randomization(d, 10_000, rng)
    assert exact
    expected = [_scipy_exact_sign_flip(d[:, j]) for j in range(d.shape[1])]
    assert_array_equal(p_value, expected)


@pytest.mark.parametrize("n", range(1, 11))
def test_randomization_exact_equals_brute_force_on_integers(n):
    rng = np.random.default_rng(300 + n)
    d = rng.integers(-3, 4, size=(n, 3))
    vectors = np.array(list(itertools.product([1, -1], repeat=n)))
    sums = np.abs(vectors @ d)  # exact integer arithmetic
    expected = (sums >= np.abs(d.sum(axis=0))).mean(axis=0)
    p_value, exact = _randomization(d.astype(float), 2**n, None)
    assert exact
    assert_array_equal(p_value, expected)


def test_randomization_sakai_exact_and_monte_carlo():
    p_value, exact = _randomization(SAKAI_D, 2**20, None)
    assert exact and p_value[0] == EXACT_SIGN_FLIP_P
    bound = 4 * np.sqrt(EXACT_SIGN_FLIP_P * (1 - EXACT_SIGN_FLIP_P) / 10_000)
    for seed in range(3):
        p_value, exact = _randomization(SAKAI_D, 10_000, np.random.default_rng(seed))
        assert not exact
        assert abs(p_value[0] - EXACT_SIGN_FLIP_P) <= bound


@pytest.mark.parametrize("n", [70, 128])
def test_randomization_monte_carlo_is_phipson_smyth_over_documented_sign_stream(n):
    # Rebuilt here from the Generator: word k // 64, bit k % 64 of each resample's
    # ceil(n / 64) 64-bit words is query k's flip. Counted the slow way, as scipy does.
    rng = np.random.default_rng(11)
    n_resamples = 300
    d = np.round(rng.normal(0.05, 0.3, size=(n, 3)), 1)
    d[np.all(d == 0, axis=1)] = 0.1  # no query is dropped before drawing
    raw = np.random.default_rng(5).integers(
        0, 2**64 - 1, size=(n_resamples, 2), dtype=np.uint64, endpoint=True
    )
    flips = np.array(
        [[(int(raw[b, k // 64]) >> (k % 64)) & 1 for k in range(n)] for b in range(n_resamples)]
    )
    count = np.zeros(3)
    for j in range(3):
        observed = abs(np.mean(d[:, j]))
        for b in range(n_resamples):
            flipped = abs(np.mean(np.where(flips[b] == 1, -d[:, j], d[:, j])))
            count[j] += flipped >= observed - 100 * np.finfo(float).eps * observed
    p_value, exact = _randomization(d, n_resamples, np.random.default_rng(5))
    assert not exact
    assert_array_equal(p_value, (1 + count) / (1 + n_resamples))


@pytest.mark.parametrize("n_resamples", [2**12, 1000])  # exact for n' = 12, then Monte Carlo
def test_randomization_does_not_depend_on_block_size(n_resamples):
    d = np.round(np.random.default_rng(3).normal(size=(12, 4)), 1)
    results = []
    for block_size in (None, 1, 7, 64, 5000):
        rng = np.random.default_rng(42)
        p_value, exact = _randomization(d, n_resamples, rng, block_size=block_size)
        results.append((p_value, exact, rng.random()))
    for p_value, exact, next_draw in results[1:]:
        assert_array_equal(p_value, results[0][0])
        assert exact == results[0][1] and next_draw == results[0][2]


def test_randomization_shares_sign_vectors_across_columns():
    rng = np.random.default_rng(8)
    column = rng.normal(0.1, 1, size=200)
    d = np.column_stack([column, column, -column, 2 * column])
    p_value, exact = _randomization(d, 2000, rng)
    assert not exact
    assert len(set(p_value)) == 1  # independent draws per column would differ


def test_randomization_edge_cases():
    p_value, exact = _randomization(np.zeros((0, 2)), 100, None)
    assert np.isnan(p_value).all() and exact
    assert_array_equal(_randomization(np.zeros((30, 2)), 100, None)[0], [1.0, 1.0])
    assert_array_equal(_randomization(np.r_[np.zeros(99), 0.4], 100, None)[0], [1.0])
    # Queries whose differences are zero in every column do not count towards 2**n'.
    p_value, exact = _randomization(np.r_[np.zeros(100), SAKAI_D[:10]], 1024, None)
    assert exact
    assert p_value[0] == _scipy_exact_sign_flip(SAKAI_D[:10])


def test_sign_flip_counts_with_injected_signs():
    rng = np.random.default_rng(9)
    d = rng.normal(size=(15, 2))
    signs = rng.choice([-1.0, 1.0], size=(400, 15))
    expected = [
        (np.abs(signs @ d[:, j]) >= abs(d[:, j].sum()) * (1 - 1e-13)).sum() for j in range(2)
    ]
    assert_array_equal(_sign_flip_counts(d, [signs[:123], signs[123:]]), expected)


def test_random_sign_blocks_are_the_same_vectors_for_any_block_size():
    whole = np.concatenate(list(_random_sign_blocks(np.random.default_rng(1), 130, 50, 50)))
    pieces = np.concatenate(list(_random_sign_blocks(np.random.default_rng(1), 130, 50, 3)))
    assert_array_equal(whole, pieces)
    assert set(np.unique(whole)) == {-1.0, 1.0}
    assert abs(whole.mean()) < 0.05


# --- bootstrap -----------------------------------------------------------------------------


@pytest.mark.parametrize("method", ["percentile", "basic", "BCa"])
@pytest.mark.parametrize("confidence", [0.9, 0.95])
def test_bootstrap_ci_equals_scipy_bootstrap_with_the_same_generator(method, confidence):
    rng = np.random.default_rng(21)
    n = 25
    x = np.column_stack(
        [rng.random(n), np.round(rng.random(n), 1), rng.normal(size=n), rng.exponential(size=n)]
    )
    low, high = _bootstrap_ci(x, 999, np.random.default_rng(4), confidence, method, block_size=100)
    for j in range(x.shape[1]):
        expected = scipy.stats.bootstrap(
            (x[:, j],),
            np.mean,
            n_resamples=999,
            method=method,
            confidence_level=confidence,
            rng=np.random.default_rng(4),
        ).confidence_interval
        # BCa: the acceleration is computed in closed form, not from jackknife means.
        # Percentile and basic: the same draws and quantiles; scipy before 1.17 computes its
        # quantiles a rounding apart.
        assert_allclose([low[j], high[j]], [expected.low, expected.high], rtol=1e-12)


def test_bootstrap_ci_refuses_unknown_method():
    with pytest.raises(ValueError, match=r"^method must be one of .*'BCa'; got 'bca'\.$"):
        _bootstrap_ci(SAKAI_D, 10, None, 0.95, "bca")


def test_bootstrap_ci_sakai_paired_runs_and_difference():
    data = np.column_stack([SAKAI_X, SAKAI_Y, SAKAI_D])
    for method in ("BCa", "percentile"):
        low, high = _bootstrap_ci(data, 9999, np.random.default_rng(0), 0.95, method)
        assert low[2] == pytest.approx(0.01, abs=1e-12)
        assert high[2] == pytest.approx(0.145, abs=1e-12)
        for j in range(3):
            expected = scipy.stats.bootstrap(
                (data[:, j],),
                np.mean,
                n_resamples=9999,
                method=method,
                rng=np.random.default_rng(0),
            ).confidence_interval
            assert_allclose([low[j], high[j]], [expected.low, expected.high], rtol=1e-12)


def test_bootstrap_index_blocks_reproduce_one_scipy_draw():
    expected = np.random.default_rng(3).integers(0, 17, (1000, 17))
    for block_size in (1, 7, 333, 1000):
        blocks = _bootstrap_index_blocks(np.random.default_rng(3), 17, 1000, block_size)
        assert_array_equal(np.concatenate(list(blocks)), expected)


def test_bootstrap_ci_does_not_depend_on_block_size():
    x = np.random.default_rng(5).normal(size=(30, 3))
    reference = _bootstrap_ci(x, 500, np.random.default_rng(1), 0.95, "BCa")
    for block_size in (1, 13, 500):
        result = _bootstrap_ci(x, 500, np.random.default_rng(1), 0.95, "BCa", block_size=block_size)
        assert_array_equal(result, reference)


def test_bootstrap_ci_degenerate_data():
    for values in (np.full(6, 3.0), np.full(5, 0.1), np.full(6, 0.1)):
        for method in ("percentile", "basic", "BCa"):
            low, high = _bootstrap_ci(values, 99, np.random.default_rng(0), 0.95, method)
            expected = _quiet(
                scipy.stats.bootstrap,
                (values,),
                np.mean,
                n_resamples=99,
                method=method,
                rng=np.random.default_rng(0),
            ).confidence_interval
            if method == "BCa":
                # Equal values: the acceleration is 0/0. scipy gets exactly 0/0, and NaN,
                # only when its jackknife means round alike (six 0.1 leave ~1e-17 and an
                # interval); here equal values always give NaN.
                assert np.isnan([low[0], high[0]]).all()
                assert np.isnan([expected.low, expected.high]).all() == (
                    values.size == 5 or values[0] == 3.0
                )
            else:
                assert_array_equal([low[0], high[0]], [expected.low, expected.high])
            # scipy refuses a single query; the spec's rule: [d, d], BCa NaN.
            low, high = _bootstrap_ci([[0.3]], 50, np.random.default_rng(0), 0.95, method)
            if method == "BCa":
                assert np.isnan([low[0], high[0]]).all()
            else:
                assert low[0] == high[0] == 0.3
    assert np.isnan(_bootstrap_ci(np.zeros((0, 2)), 50, None)).all()


def _slow_studentized_count(d, indices):
    """The shifted studentized bootstrap, one resample at a time (spec section 4)."""
    n = len(d)
    w = d - d.mean()
    observed = abs(d.mean() / (d.std(ddof=1) / np.sqrt(n)))
    threshold = observed - 100 * np.finfo(float).eps * observed
    count = 0
    for row in indices:
        resample = w[row]
        mean, sd = resample.mean(), resample.std(ddof=1)
        if np.ptp(resample) == 0:
            statistic = 0.0 if mean == 0 else np.inf
        else:
            statistic = mean / (sd / np.sqrt(n))
        count += abs(statistic) >= threshold
    return count


def test_studentized_bootstrap_counts_equal_slow_reference():
    rng = np.random.default_rng(31)
    d = np.column_stack([rng.normal(0.1, 1, 12), np.round(rng.normal(0.2, 0.5, 12), 1)])
    indices = rng.integers(0, 12, (3000, 12))
    counts = _studentized_bootstrap_counts(d, [indices[:1000], indices[1000:]])
    assert_array_equal(counts, [_slow_studentized_count(d[:, j], indices) for j in range(2)])


def test_studentized_bootstrap_counts_zero_sd_rule_over_all_resamples():
    # n = 3: all 27 index vectors, among them resamples with s* = 0: w = (-1, 0, 1),
    # so (1, 1, 1) has mean 0 (not counted) and (0, 0, 0) has mean -1 (counted as inf).
    d = np.array([[1.0], [2.0], [3.0]])
    indices = np.array(list(itertools.product(range(3), repeat=3)))
    expected = _slow_studentized_count(d[:, 0], indices)
    assert _studentized_bootstrap_counts(d, [indices])[0] == expected
    # |t_obs| = 2 sqrt(3) is out of reach of the 24 non-constant resamples (|t*| <= 2), so
    # exactly the two constant resamples with a non-zero mean count.
    assert expected == 2
    # d = (0, 0, 3): w = (-1, -1, 2) and t_obs = 1; the resample (0, 2, 2) has w* =
    # (-1, 2, 2), t* = 1 as well, and counts.
    d = np.array([[0.0], [0.0], [3.0]])
    assert _studentized_bootstrap_counts(d, [np.array([[0, 2, 2]])])[0] == 1
    assert _studentized_bootstrap_counts(d, [indices])[0] == _slow_studentized_count(
        d[:, 0], indices
    )
    # The same tie at 3 * 0.1 = 0.30000000000000004, where rounding puts t* a few ulps below
    # t_obs: the tolerance still counts it.
    decimals = np.array([[0.0], [0.0], [3 * 0.1]])
    assert _studentized_bootstrap_counts(decimals, [np.array([[0, 2, 2]])])[0] == 1


def test_bootstrap_p_sakai_reference():
    indices = np.random.default_rng(0).integers(0, 20, (10_000, 20))
    # The spec's 0.0509 is #/B: 509 of 10,000 resamples.
    assert _studentized_bootstrap_counts(SAKAI_D[:, None], [indices])[0] == 509
    assert _slow_studentized_count(SAKAI_D, indices) == 509
    p_value = _bootstrap_p(SAKAI_D, 10_000, np.random.default_rng(0))
    assert p_value[0] == (1 + 509) / (1 + 10_000)


def test_bootstrap_p_does_not_depend_on_block_size_and_edge_cases():
    d = np.random.default_rng(6).normal(0.1, 1, size=(25, 3))
    reference = _bootstrap_p(d, 700, np.random.default_rng(2))
    for block_size in (1, 9, 700):
        assert_array_equal(
            _bootstrap_p(d, 700, np.random.default_rng(2), block_size=block_size), reference
        )
    assert np.isnan(_bootstrap_p(np.ones((1, 2)), 100, None)).all()
    degenerate = np.column_stack([np.zeros(8), np.full(8, 0.1), -np.ones(8)])
    assert_array_equal(
        _bootstrap_p(degenerate, 100, np.random.default_rng(0)), [1.0, 1 / 101, 1 / 101]
    )


# --- randomised Tukey HSD ------------------------------------------------------------------


def _slow_tukey_counts(values, permutations):
    n_topics, n_systems = values.shape
    means = values.mean(axis=0)
    counts = np.zeros((n_systems, n_systems), dtype=int)
    for draw in permutations:
        permuted = np.array([values[t, draw[t]] for t in range(n_topics)])
        permuted_means = permuted.mean(axis=0)
        value_range = permuted_means.max() - permuted_means.min()
        for i, j in itertools.product(range(n_systems), repeat=2):
            observed = abs(means[i] - means[j])
            counts[i, j] += value_range >= observed - 100 * np.finfo(float).eps * observed
    return counts


def test_tukey_counts_equal_slow_reference_with_injected_permutations():
    rng = np.random.default_rng(41)
    values = np.round(rng.random((7, 4)), 1)
    permutations = np.argsort(rng.random((300, 7, 4)), axis=2)
    counts, n_draws = _tukey_exceedances(values, [permutations[:100], permutations[100:]])
    assert n_draws == 300
    assert_array_equal(counts, _slow_tukey_counts(values, permutations))


def test_tukey_sakai_reference_with_the_spec_permutation_stream():
    # The spec draws g.permuted(M, axis=1) per resample; permuting an index matrix consumes
    # the same stream, so the permutations are injected exactly.
    values = np.column_stack([SAKAI_X, SAKAI_Y, SAKAI_Z])
    g = np.random.default_rng(0)
    identity = np.tile(np.arange(3), (20, 1))
    permutations = np.array([g.permuted(identity, axis=1) for _ in range(10_000)])
    first = np.random.default_rng(0).permuted(values, axis=1)
    assert_array_equal(values[np.arange(20)[:, None], permutations[0]], first)
    counts, n_draws = _tukey_exceedances(values, [permutations])
    assert [counts[0, 1], counts[0, 2], counts[1, 2]] == [3019, 1004, 8891]


def test_tukey_sakai_reference_exactly_from_the_same_generator():
    values = np.column_stack([SAKAI_X, SAKAI_Y, SAKAI_Z])
    p_value = _tukey_hsd_randomised(values, 10_000, np.random.default_rng(0))
    pairs = np.triu_indices(3, 1)
    assert_array_equal(p_value[pairs], (1 + np.array([3019, 1004, 8891])) / (1 + 10_000))
    assert_array_equal(p_value, p_value.T)
    assert_array_equal(np.diag(p_value), 1.0)


def test_tukey_monte_carlo_agrees_with_the_reference_statistically_for_another_seed():
    values = np.column_stack([SAKAI_X, SAKAI_Y, SAKAI_Z])
    p_value = _tukey_hsd_randomised(values, 10_000, np.random.default_rng(1))
    references = [0.3019, 0.1004, 0.8891]
    for i, j, reference in zip(*np.triu_indices(3, 1), references, strict=True):
        assert abs(p_value[i, j] - reference) <= 4 * np.sqrt(reference * (1 - reference) / 1e4)
    assert not np.array_equal(p_value, _tukey_hsd_randomised(values, 10_000, 0))


def test_random_permutation_blocks_are_the_per_draw_permuted_stream():
    g = np.random.default_rng(2)
    per_draw = np.array([g.permuted(np.tile(np.arange(4), (6, 1)), axis=1) for _ in range(40)])
    for block_size in (1, 3, 40):
        blocks = _random_permutation_blocks(np.random.default_rng(2), 6, 4, 40, block_size)
        assert_array_equal(np.concatenate(list(blocks)), per_draw)


@pytest.mark.parametrize("pair", ["sakai", "random"])
def test_tukey_with_two_systems_is_the_sign_flip_test(pair):
    rng = np.random.default_rng(51)
    if pair == "sakai":
        values = np.column_stack([SAKAI_X, SAKAI_Y])
    else:
        values = rng.normal(size=(40, 2))
    swaps = rng.integers(0, 2, size=(2000, len(values)))
    permutations = np.stack([swaps, 1 - swaps], axis=2)
    counts, _ = _tukey_exceedances(values, [permutations])
    signs = 1.0 - 2.0 * swaps
    assert counts[0, 1] == _sign_flip_counts(values[:, :1] - values[:, 1:], [signs])[0]


def test_tukey_does_not_depend_on_block_size_and_edge_cases():
    values = np.random.default_rng(61).random((15, 4))
    values[:, 3] = values[:, 2]  # identical columns: D = 0, p = 1
    reference = _tukey_hsd_randomised(values, 300, np.random.default_rng(3))
    for block_size in (1, 17, 300):
        assert_array_equal(
            _tukey_hsd_randomised(values, 300, np.random.default_rng(3), block_size=block_size),
            reference,
        )
    assert reference[2, 3] == 1.0
    # All systems equal on every topic: every range is 0 = D, so every p is 1.
    same = np.repeat(values[:, :1], 3, axis=1)
    assert_array_equal(_tukey_hsd_randomised(same, 50, np.random.default_rng(0)), 1.0)
    for shape in [(0, 3), (5, 1)]:
        with pytest.raises(ValueError, match="at least one topic and two systems"):
            _tukey_hsd_randomised(np.ones(shape), 10, None)


# --- multiple-testing corrections ----------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("method", ["bonferroni", "holm", "fdr_bh"])
@pytest.mark.parametrize("size", [0, 1, 2, 7, 60])
def test_adjust_p_equals_statsmodels(method, size):
    rng = np.random.default_rng(size)
    for p in (rng.random(size) ** 3, np.round(rng.random(size) * 0.1, 2)):  # ties in the 2nd
        assert_array_equal(_adjust_p(p, method), multipletests(p, method=method)[1])


def test_adjust_p_bh_equals_scipy_false_discovery_control():
    p = np.random.default_rng(3).random(40) ** 2
    assert_allclose(_adjust_p(p, "fdr_bh"), scipy.stats.false_discovery_control(p), rtol=1e-15)


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
    by_hand = (
        sum(x > y for x, y in zip(SAKAI_X, SAKAI_Y, strict=True)),
        sum(x == y for x, y in zip(SAKAI_X, SAKAI_Y, strict=True)),
        sum(x < y for x, y in zip(SAKAI_X, SAKAI_Y, strict=True)),
    )
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
    for module in (_stats, _resampling, _tukey, _signed_rank):
        with open(module.__file__) as source:
            assert sum(1 for _ in source) <= 600


# --- one-sided alternatives ------------------------------------------------------------------

ONE_SIDED = ["greater", "less"]


def test_check_alternative_names_parameter_value_and_the_test_without_one_side():
    from sklearn_rank.comparison._parameters import _checked_shared

    def _check_alternative(alternative, test):
        return _checked_shared(test, alternative, "holm", 0.95, 1, None)[1]

    assert _check_alternative("less", "t") == "less"
    assert _check_alternative("two-sided", "tukey_hsd") == "two-sided"
    with pytest.raises(ValueError, match=r"^alternative must be one of 'two-sided', 'greater', "):
        _check_alternative("two_sided", "t")
    with pytest.raises(ValueError, match=r"got None\.$"):
        _check_alternative(None, "t")
    with pytest.raises(ValueError, match=r"alternative='greater' cannot be used with test='tuk"):
        _check_alternative("greater", "tukey_hsd")


@pytest.mark.parametrize("alternative", ONE_SIDED)
@pytest.mark.parametrize("n", [2, 5, 30])
def test_paired_t_one_sided_equals_ttest_rel(n, alternative):
    rng = np.random.default_rng(40 + n)
    y = rng.random((n, 6))
    x = y + np.column_stack([rng.normal(0.1, 0.3, (n, 4)), np.zeros(n), np.full(n, 2.0)])
    statistic, p_value, _, _ = _paired_t(x - y, alternative=alternative)
    for j in range(x.shape[1]):
        expected = _quiet(scipy.stats.ttest_rel, x[:, j], y[:, j], alternative=alternative)
        assert_allclose(statistic[j], expected.statistic, rtol=1e-15)
        assert_allclose(p_value[j], expected.pvalue, rtol=1e-15)
    # Closed form: a constant positive difference (t = +inf) has p 0 above, 1 below.
    assert p_value[5] == (0.0 if alternative == "greater" else 1.0)
    two_sided = _paired_t(x - y)[1]
    one = p_value[:4]
    assert_allclose(np.minimum(one, 1 - one) * 2, two_sided[:4], rtol=1e-12)


@pytest.mark.parametrize("alternative", ONE_SIDED)
@pytest.mark.parametrize("n", [1, 5, 9, 13, 14, 20, 51])
def test_wilcoxon_one_sided_equals_scipy_column_by_column(n, alternative):
    rng = np.random.default_rng(500 + n)
    y = rng.random((n, 8))
    x = y + _awkward_columns(n, rng)
    d = x - y
    statistic, p_value = _wilcoxon(d, alternative=alternative)
    for j in range(d.shape[1]):
        if n == 1 and d[0, j] == 0:
            assert (statistic[j], p_value[j]) == (0.0, 1.0)  # scipy raises here
            continue
        expected = _quiet(scipy.stats.wilcoxon, x[:, j], y[:, j], alternative=alternative)
        assert_array_equal([statistic[j], p_value[j]], [expected.statistic, expected.pvalue])


def test_wilcoxon_one_sided_permutation_branch_by_hand():
    # n = 3, d = (1, -2, 2): ranks 1, 2.5, 2.5, R+ = 3.5 of 8 equally likely sign vectors
    # with R+ in {0, 1, 2.5, 2.5, 3.5, 3.5, 5, 6}: P(R+ >= 3.5) = 4/8, P(R+ <= 3.5) = 6/8.
    d = np.array([1.0, -2.0, 2.0])
    assert _wilcoxon(d, alternative="greater") == (3.5, 0.5)
    assert _wilcoxon(d, alternative="less") == (3.5, 0.75)
    assert _wilcoxon(d)[1][0] == 1.0  # 2 min(4/8, 6/8), clipped


def _scipy_exact_one_sided(column, alternative):
    return scipy.stats.permutation_test(
        (column,),
        lambda sample, axis: np.mean(sample, axis=axis),
        vectorized=True,
        permutation_type="samples",
        n_resamples=np.inf,
        alternative=alternative,
    ).pvalue


@pytest.mark.parametrize("alternative", ONE_SIDED)
@pytest.mark.parametrize("n", [2, 3, 6, 9, 12])  # scipy refuses n = 1: brute force below
def test_randomization_one_sided_exact_equals_scipy_permutation_test(n, alternative):
    rng = np.random.default_rng(700 + n)
    d = _awkward_columns(n, rng)
    p_value, exact = _randomization(d, 10_000, rng, alternative=alternative)
    assert exact
    expected = [_scipy_exact_one_sided(d[:, j], alternative) for j in range(d.shape[1])]
    assert_array_equal(p_value, expected)


@pytest.mark.parametrize("n", range(1, 9))
def test_randomization_one_sided_exact_equals_brute_force_on_integers(n):
    rng = np.random.default_rng(800 + n)
    d = rng.integers(-3, 4, size=(n, 3))
    vectors = np.array(list(itertools.product([1, -1], repeat=n)))
    sums = vectors @ d  # exact integer arithmetic
    greater, _ = _randomization(d.astype(float), 2**n, None, alternative="greater")
    less, _ = _randomization(d.astype(float), 2**n, None, alternative="less")
    assert_array_equal(greater, (sums >= d.sum(axis=0)).mean(axis=0))
    assert_array_equal(less, (sums <= d.sum(axis=0)).mean(axis=0))


def test_randomization_one_sided_sakai_by_symmetry():
    # The sign-flip null S is symmetric: with s = sum(d) > 0 the two-sided p is
    # P(S >= s) + P(S <= -s) = 2 P(S >= s), so "greater" is exactly half of it.
    greater, exact = _randomization(SAKAI_D, 2**20, None, alternative="greater")
    less, _ = _randomization(SAKAI_D, 2**20, None, alternative="less")
    assert exact and SAKAI_D.sum() > 0
    assert greater[0] == EXACT_SIGN_FLIP_P / 2
    assert less[0] >= 1 - greater[0]  # P(S <= s) = 1 - P(S > s)
    assert_array_equal(_randomization(-SAKAI_D, 2**20, None, alternative="less")[0], greater)


@pytest.mark.parametrize("alternative", ONE_SIDED)
def test_randomization_one_sided_monte_carlo_over_documented_sign_stream(alternative):
    rng = np.random.default_rng(12)
    n, n_resamples = 70, 300
    d = np.round(rng.normal(0.05, 0.3, size=(n, 3)), 1)
    d[np.all(d == 0, axis=1)] = 0.1
    raw = np.random.default_rng(6).integers(
        0, 2**64 - 1, size=(n_resamples, 2), dtype=np.uint64, endpoint=True
    )
    flips = np.array(
        [[(int(raw[b, k // 64]) >> (k % 64)) & 1 for k in range(n)] for b in range(n_resamples)]
    )
    count = np.zeros(3)
    for j in range(3):
        observed = np.mean(d[:, j])
        gamma = 100 * np.finfo(float).eps * abs(observed)
        for b in range(n_resamples):
            flipped = np.mean(np.where(flips[b] == 1, -d[:, j], d[:, j]))
            if alternative == "greater":
                count[j] += flipped >= observed - gamma
            else:
                count[j] += flipped <= observed + gamma
    p_value, exact = _randomization(
        d, n_resamples, np.random.default_rng(6), alternative=alternative
    )
    assert not exact
    assert_array_equal(p_value, (1 + count) / (1 + n_resamples))


def _slow_one_sided_count(d, indices, alternative):
    """The shifted studentized bootstrap one resample at a time, one-sided."""
    n = len(d)
    w = d - d.mean()
    observed = d.mean() / (d.std(ddof=1) / np.sqrt(n))
    gamma = 100 * np.finfo(float).eps * abs(observed)
    count = 0
    for row in indices:
        resample = w[row]
        mean, sd = resample.mean(), resample.std(ddof=1)
        if np.ptp(resample) == 0:
            statistic = np.nan if mean == 0 else np.sign(mean) * np.inf
        else:
            statistic = mean / (sd / np.sqrt(n))
        if alternative == "greater":
            count += statistic >= observed - gamma
        else:
            count += statistic <= observed + gamma
    return count


@pytest.mark.parametrize("alternative", ONE_SIDED)
def test_bootstrap_p_one_sided_equals_slow_reference(alternative):
    rng = np.random.default_rng(33)
    d = np.column_stack([rng.normal(0.1, 1, 12), np.round(rng.normal(-0.2, 0.5, 12), 1)])
    p_value = _bootstrap_p(d, 3000, np.random.default_rng(4), alternative=alternative)
    indices = np.random.default_rng(4).integers(0, 12, (3000, 12))
    counts = [_slow_one_sided_count(d[:, j], indices, alternative) for j in range(2)]
    assert_array_equal(p_value, (1 + np.array(counts)) / 3001)


def test_bootstrap_p_one_sided_edge_cases():
    d = np.column_stack([np.zeros(6), np.full(6, 0.3), np.full(6, -0.3)])
    assert_array_equal(_bootstrap_p(d, 99, 0, alternative="greater"), [1.0, 0.01, 1.0])
    assert_array_equal(_bootstrap_p(d, 99, 0, alternative="less"), [1.0, 1.0, 0.01])
    assert_array_equal(_bootstrap_p(d, 99, 0), [1.0, 0.01, 0.01])


@pytest.mark.parametrize("alternative", ONE_SIDED)
def test_corrected_t_one_sided_and_sklearn_example(alternative):
    rng = np.random.default_rng(9)
    d = rng.normal(0.01, 0.02, size=(10, 3))
    statistic, p_value = _corrected_t(d, 90, 10, alternative=alternative)
    t = scipy.stats.t(9)
    expected = t.sf(statistic) if alternative == "greater" else t.cdf(statistic)
    assert_allclose(p_value, expected, rtol=1e-15)
    if alternative == "greater":  # scikit-learn's example: t.sf(|t|) for the better model
        for j in np.flatnonzero(statistic > 0):
            example_t, example_p = _sklearn_example_corrected_ttest(d[:, j], 90, 10)
            assert p_value[j] == pytest.approx(example_p, rel=1e-12)


def test_bootstrap_p_is_one_when_the_mean_difference_is_zero():
    # t_obs = 0: every resample's |t*| >= 0, including those whose resampled differences
    # all equal the mean (t* = 0/0, taken as 0), so p is exactly 1.
    d = np.array([0.5, -0.5, 0.25, -0.25, 0.0, 0.0, 0.0, 0.0])
    assert d.mean() == 0
    assert _bootstrap_p(d, 5000, np.random.default_rng(2))[0] == 1.0
    indices = np.random.default_rng(2).integers(0, d.size, (5000, d.size))
    assert _slow_studentized_count(d, indices) == 5000


def test_bootstrap_intervals_of_many_columns_take_bounded_memory(monkeypatch):
    import tracemalloc

    from sklearn_rank.comparison import _intervals

    rng = np.random.default_rng(5)
    x = rng.normal(size=(30, 400))
    whole = _intervals._bootstrap_intervals(x, 2000, np.random.default_rng(1), 0.95)
    # Columns a few at a time draw the same index vectors: the same intervals, to the
    # rounding of a matrix product of another width (BLAS may add in another order).
    monkeypatch.setattr(_intervals, "_BLOCK_ELEMENTS", 2000 * 7)
    tracemalloc.start()
    chunked = _intervals._bootstrap_intervals(x, 2000, np.random.default_rng(1), 0.95)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert_allclose(chunked[0], whole[0], rtol=1e-12, atol=0)
    assert_allclose(chunked[1], whole[1], rtol=1e-12, atol=0)
    # 400 columns x 2000 means would be 6.4 MB at once; chunks of 7 columns hold 112 kB
    # besides the index vectors' block (about 2 MB here).
    assert peak < 3_000_000


def test_too_many_resamples_for_intervals_are_refused_up_front():
    y_true = np.eye(4)
    runs = {"a": np.eye(4), "b": np.eye(4)[::-1]}
    with pytest.raises(ValueError, match=r"n_resamples=100,000,000 is too many .* test='t'"):
        compare(y_true, runs, "mrr", n_resamples=10**8)
    assert compare(y_true, runs, "mrr", n_resamples=10**8, test="t").n_resamples == 10**8


def test_bootstrap_resample_means_equal_scipys_also_on_discrete_values():
    # What the docs claim against scipy.stats.bootstrap on discrete per-query values: the
    # same resamples, each mean within a few ulps (BCa's bias count may still differ).
    from sklearn_rank.comparison._intervals import _resample_means

    x = np.array([1.0, 0, 0, 1, 1, 0, 1, 0, 0, 1])
    ours = _resample_means(x[:, None], 3000, np.random.default_rng(4))[0]
    theirs = scipy.stats.bootstrap(
        (x,), np.mean, n_resamples=3000, rng=np.random.default_rng(4), method="percentile"
    )
    assert_allclose(ours, theirs.bootstrap_distribution, rtol=0, atol=4e-16)
    for level in (0.025, 0.5, 0.975):
        assert_allclose(
            np.quantile(ours, level), np.quantile(theirs.bootstrap_distribution, level), atol=1e-15
        )


def test_bootstrap_intervals_with_a_last_chunk_of_one_column_equal_one_pass(monkeypatch):
    # A one-column chunk is no matrix-vector product (which rounds differently, and moved
    # end points of 2**22 resamples by 1e-5): it is paired with a copy of itself.
    from sklearn_rank.comparison import _intervals

    x = np.random.default_rng(8).random((12, 3))
    whole = _intervals._bootstrap_intervals(x, 1000, 7, 0.95)
    monkeypatch.setattr(_intervals, "_BLOCK_ELEMENTS", 2000)  # chunks of 2, then 1 column
    chunked = _intervals._bootstrap_intervals(x, 1000, 7, 0.95)
    assert_allclose(chunked[0], whole[0], rtol=1e-12, atol=0)
    assert_allclose(chunked[1], whole[1], rtol=1e-12, atol=0)
