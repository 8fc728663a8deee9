"""Statistical power and topic-set-size design: how many queries a comparison needs, and
what difference a given number of queries can find.

The paired t-test's power is exact (noncentral t), the one-way ANOVA's exact (noncentral
F); sample sizes are the smallest n reaching a target, found by doubling then bisection
(power grows with n). The tests check the worked examples of the design's specification,
statsmodels' ``TTestPower`` and ``FTestAnovaPower`` and numerical integration.
"""

import math
import warnings

import numpy as np
from scipy import optimize, special, stats

from ._design_parameters import (
    ALPHA,
    DELTA,
    DESIGN,
    MAX_WIDTH,
    N_QUERIES,
    N_SYSTEMS,
    POWER,
    POWER_ALTERNATIVE,
    SD,
    VARIANCE_METHOD,
    _fill_design,
)

# Beyond this many queries the search stops: a design needing more has no practical answer
# (and the noncentral distributions lose precision long before).
_LARGEST_N = 2**40


def _t_power(effect_size, n_queries, alpha, alternative):
    """Exact power of the paired t-test for the effect size d_z = delta / sigma_d.

    The lower tail P(T' < -c) is computed as ``nct.sf(c, df, -nc)``, never as
    ``nct.cdf(-c, df, nc)``: scipy's ``nct.cdf(-2.679951973631552, 49, sqrt(50))`` is NaN
    (``special.nctdtr`` too), while the two forms are the same quantity.
    """
    if math.isinf(effect_size):
        positive = effect_size > 0
        if alternative == "two-sided":
            return 1.0
        return 1.0 if positive == (alternative == "greater") else 0.0
    if effect_size == 0:
        # The null is true: the test rejects with its level, exactly (scipy's noncentral t
        # at noncentrality 0 differs from the central one by up to 1e-11 in some versions).
        return float(alpha)
    df = n_queries - 1
    noncentrality = effect_size * math.sqrt(n_queries)
    if alternative == "two-sided":
        critical = stats.t.ppf(1 - alpha / 2, df)
        return float(
            stats.nct.sf(critical, df, noncentrality) + stats.nct.sf(critical, df, -noncentrality)
        )
    critical = stats.t.ppf(1 - alpha, df)
    sign = 1.0 if alternative == "greater" else -1.0
    return float(stats.nct.sf(critical, df, sign * noncentrality))


def _effect_size(delta, sd):
    """delta / sd, with sd = 0 giving +-inf (0 for delta = 0: the null is true)."""
    if sd == 0:
        return 0.0 if delta == 0 else math.copysign(math.inf, delta)
    return delta / sd


def _anova_power(delta, sd, n_queries, n_systems, alpha):
    """Power of the one-way ANOVA F test of ``n_systems`` systems with ``n_queries`` each,
    when two means differ by ``delta`` and the others sit in the middle (least favourable:
    the sum of squared deviations from the grand mean is delta**2 / 2)."""
    if delta == 0:
        return alpha
    if sd == 0:
        return 1.0
    df_between = n_systems - 1
    df_within = n_systems * (n_queries - 1)
    noncentrality = n_queries * delta**2 / (2 * sd**2)
    critical = stats.f.ppf(1 - alpha, df_between, df_within)
    return float(stats.ncf.sf(critical, df_between, df_within, noncentrality))


def _expected_ci_width(sd, n_queries, alpha):
    """Expected width of the t interval of a mean difference: 2 t_{n-1}(1 - alpha/2)
    E[s] / sqrt(n), E[s] = sd c4(n), c4(n) = sqrt(2 / (n - 1)) Gamma(n/2) / Gamma((n-1)/2)."""
    log_c4 = 0.5 * math.log(2 / (n_queries - 1)) + (
        special.gammaln(n_queries / 2) - special.gammaln((n_queries - 1) / 2)
    )
    critical = stats.t.ppf(1 - alpha / 2, n_queries - 1)
    return float(2 * critical * sd * math.exp(log_c4) / math.sqrt(n_queries))


def _smallest_n(reached, what):
    """The smallest n >= 2 for which ``reached(n)`` holds, ``reached`` monotone in n."""
    if reached(2):
        return 2
    low, high = 2, 4
    while not reached(high):
        if high >= _LARGEST_N:
            raise ValueError(f"{what} needs more than {_LARGEST_N} queries.")
        low, high = high, high * 2
    while high - low > 1:
        middle = (low + high) // 2
        if reached(middle):
            high = middle
        else:
            low = middle
    return high


def _check_one_sided(alternative, design):
    if alternative != "two-sided":
        raise ValueError(
            f"alternative={alternative!r} cannot be used with design={design!r}: "
            + (
                "the F test has no one-sided form; use alternative='two-sided'."
                if design == "anova"
                else "the interval is two-sided; use alternative='two-sided'."
            )
        )


@_fill_design
def paired_t_power(delta, sd, n_queries, *, alpha=0.05, alternative="two-sided"):
    """Power of the paired t-test to find a true mean difference ``delta``.

    The probability that a paired t-test at level ``alpha`` over ``n_queries`` queries
    rejects the null when the true mean difference is ``delta`` and the per-query
    differences have standard deviation ``sd``: exact, from the noncentral t distribution
    with n - 1 degrees of freedom and noncentrality sqrt(n) delta / sd. A design
    statement; the power at the observed difference ("observed power") adds nothing to the
    p-value [3]_ and is not what this is for.

    Parameters
    ----------
    {delta}
    {sd}
    {n_queries}
    {alpha}
    {alternative}

    Returns
    -------
    power : float
        In [0, 1]; ``alpha`` when ``delta`` is 0. With ``sd=0`` the test always decides:
        1 (0 for a one-sided alternative against the sign of ``delta``).

    Raises
    ------
    ValueError
        For ``n_queries < 2``, ``sd < 0``, ``alpha`` outside (0, 1) or an unknown
        ``alternative``.

    See Also
    --------
    topic_set_size : The number of queries for a target power.
    minimum_detectable_difference : The difference found with a target power.
    Comparison.power : The power of each pair of a finished comparison.

    Notes
    -----
    Equal to statsmodels' ``TTestPower().power(delta / sd, nobs=n_queries, alpha=alpha,
    alternative=...)`` ("larger" is ``"greater"``, "smaller" is ``"less"``), and finite
    where scipy's ``nct.cdf`` returns NaN (the lower tail is computed as an upper one).
    The randomization and bootstrap tests of `compare` test the same mean difference: this
    is their power approximately.

    References
    ----------
    .. [1] W. Webber, A. Moffat and J. Zobel, "Statistical power in retrieval
       experimentation", CIKM 2008.
    .. [2] T. Sakai, "Topic set size design", Information Retrieval Journal 19, 2016.
    .. [3] J. M. Hoenig and D. M. Heisey, "The abuse of power", The American
       Statistician 55(1), 2001.

    Examples
    --------
    >>> from sklearn_rank import paired_t_power
    >>> round(paired_t_power(0.5, 1.0, 20), 10)
    0.5645044184
    >>> round(paired_t_power(0.05, 0.2, 100, alternative="greater"), 4)
    0.799
    """
    delta = DELTA.validate(delta)
    sd = SD.validate(sd)
    n_queries = N_QUERIES.validate(n_queries)
    alpha = ALPHA.validate(alpha)
    alternative = POWER_ALTERNATIVE.validate(alternative)
    return _t_power(_effect_size(delta, sd), n_queries, alpha, alternative)


@_fill_design
def topic_set_size(
    delta,
    sd,
    *,
    power=0.8,
    alpha=0.05,
    alternative="two-sided",
    design="paired_t",
    n_systems=None,
    max_width=None,
):
    """The number of queries a comparison needs (topic-set-size design).

    The smallest n >= 2 for which the design's criterion holds: the paired t-test finds
    ``delta`` with probability ``power`` (exact noncentral t), the one-way ANOVA of
    ``n_systems`` systems finds a range ``delta`` of their means (noncentral F), or the
    interval of the mean difference has an expected width of at most ``max_width``.

    Parameters
    ----------
    delta : float or None
        The true mean difference (``"paired_t"``) or range of the system means
        (``"anova"``) to detect, in metric units; None for ``"ci"``, which ignores it.
    sd : float
        Standard deviation of the per-query differences (``"paired_t"``, ``"ci"``:
        ``sqrt(2 * within_system_variance(per_query))``), or within each system
        (``"anova"``: ``sqrt(within_system_variance(per_query, method=...))``).
    {power}
    {alpha}
    {alternative}
    {design}
    {n_systems}
    {max_width}

    Returns
    -------
    n_queries : int
        The smallest number of queries that meets the criterion; 2 when 2 queries do.

    Raises
    ------
    ValueError
        For a parameter outside its range, a missing ``n_systems`` or ``max_width``
        (or one given to another design), a one-sided ``alternative`` with ``"anova"``
        or ``"ci"``, or a target that no number of queries reaches (``delta=0`` with
        ``power > alpha``, or a one-sided alternative against the sign of ``delta``).

    See Also
    --------
    paired_t_power, minimum_detectable_difference, within_system_variance

    Notes
    -----
    Sakai's designs [1]_ start from approximations (the normal sample size with
    Guenther's correction [2]_, the normal approximation of the noncentral t) and then
    check the power; the exact distributions need neither. The paired t result is
    ``ceil`` of statsmodels' ``TTestPower().solve_power(...)``, the ANOVA one that of
    ``FTestAnovaPower`` with ``effect_size = sqrt(delta**2 / (2 n_systems sd**2))`` and
    ``nobs = n_systems n``. Adding queries until a comparison is significant biases it
    [3]_: plan the size first.

    References
    ----------
    .. [1] T. Sakai, "Topic set size design", Information Retrieval Journal 19, 2016.
    .. [2] W. C. Guenther, "Sample size formulas for normal theory t tests", The
       American Statistician 35(4), 1981.
    .. [3] W. Webber, A. Moffat and J. Zobel, "Statistical power in retrieval
       experimentation", CIKM 2008.

    Examples
    --------
    >>> from sklearn_rank import topic_set_size
    >>> topic_set_size(0.5, 1.0)
    34
    >>> topic_set_size(0.1, 0.02**0.5, design="anova", n_systems=5)
    49
    >>> topic_set_size(None, 0.2, design="ci", max_width=0.1)
    64
    """
    design = DESIGN.validate(design)
    sd = SD.validate(sd)
    power = POWER.validate(power)
    alpha = ALPHA.validate(alpha)
    alternative = POWER_ALTERNATIVE.validate(alternative)
    n_systems = N_SYSTEMS.validate(n_systems)
    max_width = MAX_WIDTH.validate(max_width)
    for name, value, its_design in (
        ("max_width", max_width, "ci"),
        ("n_systems", n_systems, "anova"),
    ):
        if value is not None and design != its_design:
            raise ValueError(
                f"{name}={value!r} is for design={its_design!r}; got design={design!r}, "
                f"which does not read it."
            )
    if design == "ci":
        _check_one_sided(alternative, design)
        if max_width is None:
            raise ValueError("design='ci' needs max_width, the largest expected width.")
        if delta is not None:
            DELTA.validate(delta)
        return _smallest_n(
            lambda n: _expected_ci_width(sd, n, alpha) <= max_width,
            f"An interval of expected width {max_width!r} with sd={sd!r}",
        )
    delta = DELTA.validate(delta)
    if design == "anova":
        _check_one_sided(alternative, design)
        if n_systems is None:
            raise ValueError("design='anova' needs n_systems, the number of systems (>= 2).")
        reached = lambda n: _anova_power(abs(delta), sd, n, n_systems, alpha) >= power  # noqa: E731
        if delta == 0 and not reached(2):
            raise ValueError(
                f"No number of queries reaches power={power!r} for delta=0 with "
                f"design='anova': the power stays alpha={alpha!r}."
            )
    else:
        effect_size = _effect_size(delta, sd)
        reached = lambda n: _t_power(effect_size, n, alpha, alternative) >= power  # noqa: E731
        # Without a true difference in the tested direction the power never exceeds alpha.
        wrong_side = (alternative == "greater" and delta <= 0) or (
            alternative == "less" and delta >= 0
        )
        if (delta == 0 or wrong_side) and not reached(2):
            raise ValueError(
                f"No number of queries reaches power={power!r} for delta={delta!r} with "
                f"alternative={alternative!r}: the power stays at most alpha={alpha!r}."
            )
    return _smallest_n(reached, f"A power of {power!r} for delta={delta!r} and sd={sd!r}")


@_fill_design
def minimum_detectable_difference(sd, n_queries, *, power=0.8, alpha=0.05, alternative="two-sided"):
    """The smallest true mean difference a paired t-test finds with probability ``power``.

    The delta for which `paired_t_power` ``(delta, sd, n_queries)`` equals ``power``: the
    effect size d_z solving the exact noncentral t power equation, times ``sd``.

    Parameters
    ----------
    {sd}
    {n_queries}
    {power}
    {alpha}
    {alternative}

    Returns
    -------
    delta : float
        In metric units; negative for ``alternative="less"``; 0 when ``sd`` is 0 or
        ``power <= alpha`` (the test rejects that often with no difference at all).

    Raises
    ------
    ValueError
        For a parameter outside its range.

    See Also
    --------
    paired_t_power, topic_set_size, Comparison.minimum_detectable_difference

    Notes
    -----
    statsmodels' ``TTestPower().solve_power(nobs=n_queries, power=power)`` agrees to
    its solver's tolerance (about 1e-6); this one solves to 1e-12 in d_z.

    Examples
    --------
    >>> from sklearn_rank import minimum_detectable_difference
    >>> round(minimum_detectable_difference(1.0, 50), 7)
    0.404183
    >>> round(minimum_detectable_difference(0.2, 50, alternative="less"), 4)
    -0.0713
    """
    sd = SD.validate(sd)
    n_queries = N_QUERIES.validate(n_queries)
    power = POWER.validate(power)
    alpha = ALPHA.validate(alpha)
    alternative = POWER_ALTERNATIVE.validate(alternative)
    return _minimum_detectable_difference(sd, n_queries, power, alpha, alternative)


def _minimum_effect_size(n_queries, power, alpha, alternative):
    """The positive d_z found with probability ``power`` (greater or two-sided)."""
    side = "greater" if alternative == "less" else alternative
    if _t_power(0.0, n_queries, alpha, side) >= power:
        return 0.0
    high = 1.0
    while _t_power(high, n_queries, alpha, side) < power:
        high *= 2
    return optimize.brentq(
        lambda es: _t_power(es, n_queries, alpha, side) - power, 0.0, high, xtol=1e-12
    )


def _minimum_detectable_difference(sd, n_queries, power, alpha, alternative):
    """`minimum_detectable_difference` on checked arguments."""
    if sd == 0:
        return 0.0
    difference = _minimum_effect_size(n_queries, power, alpha, alternative) * sd
    return -difference if alternative == "less" else difference


def _residual_sum_of_squares(matrix, method):
    """The residual sum of squares of one (queries x systems) matrix and its df."""
    n_queries, n_systems = matrix.shape
    residuals = matrix - matrix.mean(axis=0)
    if method == "two_way":
        residuals = residuals - (matrix.mean(axis=1) - matrix.mean())[:, np.newaxis]
        return float(np.sum(residuals**2)), (n_systems - 1) * (n_queries - 1)
    return float(np.sum(residuals**2)), n_systems * (n_queries - 1)


@_fill_design
def within_system_variance(per_query, *, method="two_way"):
    """The residual variance of per-query values of several systems, for a design.

    From pilot runs' per-query values (``result.per_query[metric]`` of a `compare`), the
    variance a topic-set-size design needs: the two-way ANOVA residual V_E2 (query and
    system effects removed), whose double is the variance of paired per-query differences,
    or the one-way residual V_E1 (system effects only).

    Parameters
    ----------
    per_query : array-like of shape (n_queries, n_systems), or a list of them
        Per-query values, one column per system. A list is several pilot collections
        (each its own queries and systems): their residual sums of squares and degrees of
        freedom are summed, the usual pooled variance. Queries with a NaN value are left
        out (listwise), with a warning that says how many.
    {method}

    Returns
    -------
    variance : float
        V_E2 = sum (x_qj - mean_q - mean_j + mean)**2 / ((m - 1)(n - 1)), or
        V_E1 = sum (x_qj - mean_j)**2 / (m (n - 1)), pooled over collections.

    Raises
    ------
    ValueError
        For an array that is not 2-D, an infinite value, fewer than 2 complete queries,
        or fewer than 2 systems with ``"two_way"``.

    See Also
    --------
    topic_set_size : ``sd = sqrt(2 * within_system_variance(per_query))`` for the
        paired t and interval designs.

    References
    ----------
    .. [1] T. Sakai, "Topic set size design", Information Retrieval Journal 19, 2016.

    Examples
    --------
    >>> from sklearn_rank import within_system_variance
    >>> per_query = [[0.2, 0.3], [0.5, 0.5], [0.4, 0.6], [0.1, 0.3]]
    >>> round(2 * within_system_variance(per_query), 6)  # the variance of the differences
    0.009167
    >>> round(within_system_variance(per_query, method="one_way"), 6)
    0.027917
    """
    method = VARIANCE_METHOD.validate(method)
    collections = per_query if isinstance(per_query, list | tuple) else [per_query]
    if isinstance(per_query, list | tuple) and (not per_query or np.ndim(per_query[0]) != 2):
        collections = [per_query]  # a nested list is one matrix
    total, df, dropped = 0.0, 0, 0
    for matrix in collections:
        matrix = np.asarray(matrix, dtype=np.float64)
        if matrix.ndim != 2:
            raise ValueError(
                "per_query must be a 2-D array of shape (n_queries, n_systems) or a list "
                f"of them; got {matrix.ndim} dimension(s)."
            )
        infinite = np.isinf(matrix)
        if infinite.any():  # would make the variance NaN; only NaN means "no value"
            raise ValueError(
                f"per_query must hold finite values or NaN; got {float(matrix[infinite][0])!r}."
            )
        complete = ~np.isnan(matrix).any(axis=1)
        dropped += int(matrix.shape[0] - complete.sum())
        matrix = matrix[complete]
        if matrix.shape[0] < 2:
            raise ValueError(
                f"per_query needs at least 2 queries with a value for every system; got "
                f"{matrix.shape[0]}."
            )
        if method == "two_way" and matrix.shape[1] < 2:
            raise ValueError(
                "method='two_way' needs at least 2 systems (columns of per_query); got "
                f"{matrix.shape[1]}."
            )
        sum_of_squares, degrees = _residual_sum_of_squares(matrix, method)
        total += sum_of_squares
        df += degrees
    if dropped:
        warnings.warn(
            f"within_system_variance left out {dropped} queries with a NaN value (listwise).",
            UserWarning,
            stacklevel=2,
        )
    return total / df


def _pair_power(differences, delta, alpha, alternative):
    """Power and n of one pair's per-query differences (NaN rows dropped)."""
    differences = differences[~np.isnan(differences)]
    if differences.size < 2:
        return math.nan
    sd = float(np.std(differences, ddof=1))
    return _t_power(_effect_size(delta, sd), differences.size, alpha, alternative)


def _pair_mde(differences, power, alpha, alternative):
    differences = differences[~np.isnan(differences)]
    if differences.size < 2:
        return math.nan
    sd = float(np.std(differences, ddof=1))
    return _minimum_detectable_difference(sd, differences.size, power, alpha, alternative)


def _pair_differences(result):
    """Per row of ``result.pairs``: the per-query differences run - baseline."""
    column = {run: i for i, run in enumerate(result.run_names)}
    pairs = result.pairs
    for run, baseline, metric in zip(pairs["run"], pairs["baseline"], pairs["metric"]):
        values = np.asarray(result.per_query[metric], dtype=np.float64)
        yield values[:, column[run]] - values[:, column[baseline]]


def _comparison_power(result, delta, alpha):
    """`Comparison.power`: one power per row of ``result.pairs``."""
    delta = DELTA.validate(delta)
    alternative = result.alternative
    return np.array(
        [_pair_power(d, delta, alpha, alternative) for d in _pair_differences(result)],
        dtype=np.float64,
    )


def _comparison_mde(result, power, alpha):
    """`Comparison.minimum_detectable_difference`: one delta per row of ``result.pairs``."""
    power = POWER.validate(power)
    alternative = result.alternative
    return np.array(
        [_pair_mde(d, power, alpha, alternative) for d in _pair_differences(result)],
        dtype=np.float64,
    )
