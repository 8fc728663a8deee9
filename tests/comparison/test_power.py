"""Power, topic-set size, minimum detectable difference and the within-system variance:
shared/spec/DECIDE.md section 1's worked examples, statsmodels' TTestPower and
FTestAnovaPower on a grid, numerical integration of the noncentral t density, and the
edge cases."""

import itertools
import math

import numpy as np
import pytest
from numpy.testing import assert_allclose
from scipy import integrate, stats
from statsmodels.stats.power import FTestAnovaPower, TTestPower

from sklearn_rank import (
    Comparison,
    minimum_detectable_difference,
    paired_t_power,
    topic_set_size,
    within_system_variance,
)
from sklearn_rank.comparison._power import _t_power

# Sakai, "Laboratory Experiments in Information Retrieval", Table 5.1 (COMPARE.md section 9).
SAKAI_X = np.array(
    [0.70, 0.30, 0.20, 0.60, 0.40, 0.40, 0.00, 0.70, 0.10, 0.30]
    + [0.50, 0.40, 0.00, 0.60, 0.50, 0.30, 0.10, 0.50, 0.20, 0.10]
)
SAKAI_Y = np.array(
    [0.50, 0.10, 0.00, 0.20, 0.40, 0.30, 0.00, 0.50, 0.30, 0.30]
    + [0.40, 0.40, 0.10, 0.40, 0.20, 0.10, 0.10, 0.60, 0.30, 0.20]
)
SAKAI_Z = np.array(
    [0.00, 0.00, 0.20, 0.10, 0.30, 0.30, 0.10, 0.20, 0.40, 0.40]
    + [0.40, 0.30, 0.30, 0.20, 0.20, 0.20, 0.10, 0.50, 0.40, 0.30]
)
SAKAI = np.column_stack([SAKAI_X, SAKAI_Y, SAKAI_Z])

STATSMODELS_ALTERNATIVE = {"two-sided": "two-sided", "greater": "larger", "less": "smaller"}
EFFECT_SIZES = (0.1, 0.2, 0.5, 0.8, 1.2)
SIZES = (3, 5, 10, 20, 50, 200)
ALPHAS = (0.01, 0.05, 0.1)


def test_the_sakai_data_is_the_one_of_the_statistics_tests():
    # Copied from test_compare_stats.py (tests import no other test module): its means.
    assert_allclose(SAKAI.mean(axis=0), [0.345, 0.270, 0.245])


@pytest.mark.parametrize(
    "effect_size, n, alpha, alternative",
    list(itertools.product(EFFECT_SIZES, SIZES, ALPHAS, ["two-sided", "greater", "less"])),
)
def test_power_equals_statsmodels_on_a_grid(effect_size, n, alpha, alternative):
    # "less" is tested with the difference below 0, where it has power.
    signed = -effect_size if alternative == "less" else effect_size
    expected = TTestPower().power(
        signed, nobs=n, alpha=alpha, alternative=STATSMODELS_ALTERNATIVE[alternative]
    )
    power = paired_t_power(signed, 1.0, n, alpha=alpha, alternative=alternative)
    if np.isnan(expected):  # scipy's nct.cdf NaN inside statsmodels (DECIDE.md 1.2)
        expected = _power_by_integration(effect_size, n, alpha)
    assert_allclose(power, expected, rtol=1e-10, atol=1e-14)
    # Against the sign of the difference, a one-sided test has less power than its level.
    if alternative != "two-sided":
        assert paired_t_power(-signed, 1.0, n, alpha=alpha, alternative=alternative) < alpha


def _power_by_integration(effect_size, n, alpha):
    """Two-sided power from the definition T' = (Z + nc) / sqrt(V / df), Z normal and V
    chi-squared, integrated numerically over V: no noncentral t function of scipy."""
    df, noncentrality = n - 1, effect_size * math.sqrt(n)
    critical = stats.t.ppf(1 - alpha / 2, df)
    top = stats.chi2.isf(1e-20, df)

    def tails(v):
        scale = critical * math.sqrt(v / df)
        both = stats.norm.sf(scale - noncentrality) + stats.norm.cdf(-scale - noncentrality)
        return both * stats.chi2.pdf(v, df)

    return integrate.quad(
        tails, 0, top, points=[max(df - 2, 0)], epsabs=1e-15, epsrel=1e-12, limit=200
    )[0]


@pytest.mark.parametrize(
    "effect_size, n, alpha", [(0.3, 10, 0.05), (0.5, 20, 0.05), (0.8, 15, 0.01), (0.2, 50, 0.1)]
)
def test_power_equals_numerical_integration(effect_size, n, alpha):
    assert_allclose(
        paired_t_power(effect_size, 1.0, n, alpha=alpha),
        _power_by_integration(effect_size, n, alpha),
        rtol=1e-8,
    )


def test_power_is_finite_where_scipy_nct_cdf_is_nan():
    # DECIDE.md 1.2: scipy's nct.cdf(-c, 49, sqrt(50)) is NaN for this c.
    assert np.isnan(stats.nct.cdf(-2.679951973631552, 49, math.sqrt(50)))
    assert_allclose(paired_t_power(1.0, 1.0, 50, alpha=0.01), 0.99998918316675, rtol=1e-12)
    for effect_size, n in itertools.product((0.8, 1.0), (50, 100, 400)):
        assert np.isfinite(paired_t_power(effect_size, 1.0, n, alpha=0.01))


def test_worked_examples_of_the_spec():
    assert_allclose(paired_t_power(0.5, 1.0, 20), 0.5645044184, atol=5e-11)
    assert_allclose(paired_t_power(0.5, 1.0, 20, alternative="greater"), 0.6951493382, atol=5e-11)
    # The table of DECIDE.md 1.3: n_min and the power at n_min and n_min - 1.
    table = {
        0.2: (199, 0.80169, 0.79970),
        0.3: (90, 0.80379, 0.79933),
        0.5: (34, 0.80778, 0.79537),
        0.8: (15, 0.82131, 0.79009),
    }
    for effect_size, (n_min, at_n, below) in table.items():
        assert topic_set_size(effect_size, 1.0) == n_min
        assert_allclose(paired_t_power(effect_size, 1.0, n_min), at_n, atol=5e-6)
        assert_allclose(paired_t_power(effect_size, 1.0, n_min - 1), below, atol=5e-6)
    assert_allclose(minimum_detectable_difference(1.0, 50), 0.4041830, atol=5e-8)


@pytest.mark.parametrize(
    "effect_size, alpha, power, alternative",
    list(
        itertools.product(
            (0.2, 0.3, 0.5, 0.8, 1.0, 1.5), (0.01, 0.05), (0.8, 0.9), ["two-sided", "greater"]
        )
    ),
)
def test_topic_set_size_is_the_ceiling_of_statsmodels(effect_size, alpha, power, alternative):
    solved = TTestPower().solve_power(
        effect_size=effect_size,
        alpha=alpha,
        power=power,
        alternative=STATSMODELS_ALTERNATIVE[alternative],
    )
    n = topic_set_size(effect_size, 1.0, power=power, alpha=alpha, alternative=alternative)
    assert n == math.ceil(solved)
    # The definition itself: reached at n, not at n - 1.
    assert paired_t_power(effect_size, 1.0, n, alpha=alpha, alternative=alternative) >= power
    if n > 2:
        assert paired_t_power(effect_size, 1.0, n - 1, alpha=alpha, alternative=alternative) < power


@pytest.mark.parametrize(
    "n, alpha, power", list(itertools.product((5, 20, 50, 200), (0.01, 0.05), (0.5, 0.8, 0.95)))
)
def test_minimum_detectable_difference_solves_the_power_equation(n, alpha, power):
    mde = minimum_detectable_difference(1.0, n, power=power, alpha=alpha)
    assert_allclose(paired_t_power(mde, 1.0, n, alpha=alpha), power, atol=1e-10)
    solved = TTestPower().solve_power(nobs=n, alpha=alpha, power=power)
    if abs(TTestPower().power(solved, nobs=n, alpha=alpha) - power) < 1e-6:
        assert_allclose(mde, solved, atol=1e-5)  # statsmodels' own tolerance
    else:  # statsmodels' solver stopped short (n = 5, alpha = 0.01, power = 0.95)
        assert abs(paired_t_power(solved, 1.0, n, alpha=alpha) - power) > 1e-6
    # In metric units: proportional to sd; negative for "less".
    assert_allclose(
        minimum_detectable_difference(0.2, n, power=power, alpha=alpha), 0.2 * mde, rtol=1e-12
    )
    greater = minimum_detectable_difference(0.2, n, power=power, alpha=alpha, alternative="greater")
    assert (
        minimum_detectable_difference(0.2, n, power=power, alpha=alpha, alternative="less")
        == -greater
    )


def test_power_properties():
    for n, alpha in itertools.product((2, 5, 30), (0.01, 0.05)):
        # es = 0: the level; symmetric two-sided; monotone in n and in |es|.
        assert_allclose(paired_t_power(0.0, 1.0, n, alpha=alpha), alpha, rtol=1e-12)
        assert paired_t_power(0.4, 1.0, n) == paired_t_power(-0.4, 1.0, n)
    powers = [paired_t_power(0.3, 1.0, n) for n in range(2, 200)]
    assert np.all(np.diff(powers) > 0)
    powers = [paired_t_power(es, 1.0, 20) for es in np.linspace(0, 2, 50)]
    assert np.all(np.diff(powers) > 0)


def test_zero_sd_and_degenerate_targets():
    assert paired_t_power(0.1, 0.0, 10) == 1.0
    assert_allclose(paired_t_power(0.0, 0.0, 10, alpha=0.05), 0.05, rtol=1e-12)
    assert paired_t_power(-0.1, 0.0, 10, alternative="greater") == 0.0
    assert paired_t_power(-0.1, 0.0, 10, alternative="less") == 1.0
    assert topic_set_size(0.1, 0.0) == 2
    assert minimum_detectable_difference(0.0, 10) == 0.0
    # A target at or below alpha is met by the smallest design (and by no difference).
    assert topic_set_size(0.01, 1.0, power=0.04) == 2
    assert minimum_detectable_difference(1.0, 10, power=0.04) == 0.0
    with pytest.raises(ValueError, match="No number of queries reaches power=0.8"):
        topic_set_size(0.0, 1.0)
    with pytest.raises(ValueError, match="alternative='greater'"):
        topic_set_size(-0.1, 1.0, alternative="greater")
    with pytest.raises(ValueError, match="design='anova'"):
        topic_set_size(0.0, 1.0, design="anova", n_systems=3)
    assert topic_set_size(0.1, 0.0, design="anova", n_systems=3) == 2
    assert topic_set_size(None, 0.0, design="ci", max_width=0.01) == 2


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: paired_t_power(0.1, 1.0, 1), "n_queries must be an integer of at least 2"),
        (lambda: paired_t_power(0.1, -1.0, 10), "sd must be a finite number at least 0"),
        (lambda: paired_t_power(0.1, 1.0, 10, alpha=1.0), r"alpha must be in \(0, 1\)"),
        (lambda: paired_t_power(np.nan, 1.0, 10), "delta must be a finite number; got nan"),
        (lambda: paired_t_power(0.1, 1.0, 10, alternative="larger"), "alternative must be"),
        (lambda: topic_set_size(0.1, 1.0, power=1.0), r"power must be in \(0, 1\)"),
        (lambda: topic_set_size(0.1, 1.0, design="anova"), "design='anova' needs n_systems"),
        (lambda: topic_set_size(0.1, 1.0, design="anova", n_systems=1), "n_systems must be"),
        (lambda: topic_set_size(None, 1.0, design="ci"), "design='ci' needs max_width"),
        (lambda: topic_set_size(None, 1.0, design="ci", max_width=0), "max_width must be"),
        (
            lambda: topic_set_size(0.1, 1.0, design="ci", max_width=0.1, alternative="less"),
            "interval is two-sided",
        ),
        (
            lambda: topic_set_size(0.1, 1.0, design="anova", n_systems=3, alternative="greater"),
            "no one-sided form",
        ),
        (lambda: topic_set_size(0.1, 1.0, design="bayes"), "design must be one of"),
        # Given to another design, these were ignored: the paired t size came back.
        (
            lambda: topic_set_size(0.1, 1.0, max_width=0.1),
            "max_width=0.1 is for design='ci'; got design='paired_t'",
        ),
        (
            lambda: topic_set_size(None, 1.0, design="ci", max_width=0.1, n_systems=3),
            "n_systems=3 is for design='anova'; got design='ci'",
        ),
    ],
)
def test_parameters_are_checked_up_front(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_within_system_variance_on_sakai_table_5_1():
    two_way = within_system_variance(SAKAI)
    assert_allclose(two_way, 0.0218859649, atol=5e-11)
    assert_allclose(within_system_variance(SAKAI, method="one_way"), 0.0326491228, atol=5e-11)
    # The identity: 2 V_E2 is the mean over pairs of the variance of their differences.
    pairwise = [
        np.var(SAKAI[:, j] - SAKAI[:, k], ddof=1) for j, k in itertools.combinations(range(3), 2)
    ]
    assert_allclose(2 * two_way, np.mean(pairwise), rtol=1e-13)
    assert_allclose(2 * two_way, 0.0437719298, atol=5e-11)
    sd = math.sqrt(2 * two_way)
    assert_allclose(sd, 0.2092174224, atol=5e-11)
    # With two systems it is exactly s of the one pair.
    assert_allclose(
        math.sqrt(2 * within_system_variance(SAKAI[:, :2])),
        np.std(SAKAI_X - SAKAI_Y, ddof=1),
        rtol=1e-14,
    )
    assert topic_set_size(0.05, sd) == 140
    assert topic_set_size(0.1, sd) == 37


def test_within_system_variance_pools_collections_and_drops_incomplete_queries():
    rng = np.random.default_rng(0)
    first, second = rng.random((12, 4)), rng.random((30, 4))
    pooled = within_system_variance([first, second])
    df_first, df_second = 3 * 11, 3 * 29
    expected = (
        within_system_variance(first) * df_first + within_system_variance(second) * df_second
    ) / (df_first + df_second)
    assert_allclose(pooled, expected, rtol=1e-13)
    with_nan = np.vstack([first, [np.nan, 0.1, 0.2, 0.3]])
    with pytest.warns(UserWarning, match="left out 1 queries"):
        assert within_system_variance(with_nan) == within_system_variance(first)
    with pytest.raises(ValueError, match="at least 2 systems"):
        within_system_variance(first[:, :1])
    with pytest.raises(ValueError, match="2-D array"):
        within_system_variance(first[:, 0])
    # An infinite value made the variance NaN without a word (NaN is a missing value).
    with_inf = np.vstack([first, [np.inf, 0.1, 0.2, 0.3]])
    with pytest.raises(ValueError, match="per_query must hold finite values or NaN; got inf"):
        within_system_variance(with_inf)
    with pytest.raises(ValueError, match=r"got -inf"):
        within_system_variance([first, -with_inf])


def test_anova_design_equals_statsmodels_and_the_spec():
    assert topic_set_size(0.1, math.sqrt(0.02), design="anova", n_systems=5) == 49
    assert (
        topic_set_size(
            0.1,
            math.sqrt(within_system_variance(SAKAI, method="one_way")),
            design="anova",
            n_systems=3,
        )
        == 64
    )
    assert (
        topic_set_size(0.1, math.sqrt(within_system_variance(SAKAI)), design="anova", n_systems=3)
        == 44
    )
    for m, delta, variance, alpha in itertools.product(
        (2, 3, 5, 10), (0.05, 0.1), (0.01, 0.02), (0.01, 0.05)
    ):
        n = topic_set_size(delta, math.sqrt(variance), design="anova", n_systems=m, alpha=alpha)
        effect = math.sqrt(delta**2 / (2 * m * variance))
        power = FTestAnovaPower().power
        assert power(effect, nobs=m * n, alpha=alpha, k_groups=m) >= 0.8
        assert power(effect, nobs=m * (n - 1), alpha=alpha, k_groups=m) < 0.8


def test_ci_design_on_the_spec_examples():
    assert topic_set_size(None, 0.2, design="ci", max_width=0.1) == 64
    assert (
        topic_set_size(
            None, math.sqrt(2 * within_system_variance(SAKAI)), design="ci", max_width=0.1
        )
        == 70
    )

    # The expected width from the c4 constant, at 64 and 63 queries.
    def expected_width(n):
        c4 = math.sqrt(2 / (n - 1)) * math.gamma(n / 2) / math.gamma((n - 1) / 2)
        return 2 * stats.t.ppf(0.975, n - 1) * 0.2 * c4 / math.sqrt(n)

    assert_allclose(expected_width(64), 0.099521, atol=5e-7)
    assert expected_width(63) > 0.1


def _sakai_comparison():
    pairs = {"run": np.array(["X"]), "baseline": np.array(["Y"]), "metric": np.array(["m"])}
    return Comparison(
        runs={},
        pairs=pairs,
        per_query={"m": SAKAI[:, :2]},
        run_names=["X", "Y"],
        query_ids=np.arange(20),
        baseline="Y",
        test="t",
        correction="holm",
        confidence=0.95,
        n_resamples=1,
    )


def test_power_of_a_finished_comparison():
    result = _sakai_comparison()
    # DECIDE.md 1.6, Table 5.1 X vs Y: delta = 0.05 with the pair's s, and the MDE.
    assert_allclose(result.power(0.05), [0.2680], atol=5e-5)
    assert_allclose(result.minimum_detectable_difference(), [0.1047], atol=5e-5)
    s = np.std(SAKAI_X - SAKAI_Y, ddof=1)
    assert result.power(0.05, alpha=0.01)[0] == paired_t_power(0.05, s, 20, alpha=0.01)
    assert result.minimum_detectable_difference(0.9)[0] == minimum_detectable_difference(
        s, 20, power=0.9
    )
    # "Observed power" is a function of p only: not what Comparison.power computes.
    observed = _t_power(np.mean(SAKAI_X - SAKAI_Y) / s, 20, 0.05, "two-sided")
    assert_allclose(observed, 0.5193, atol=5e-5)
