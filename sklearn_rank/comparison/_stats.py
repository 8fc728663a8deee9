"""Closed-form paired statistics and multiple-testing corrections.

Every function takes already-aligned per-query values: a matrix ``d`` of shape
``(n_queries, n_comparisons)`` whose column ``j`` holds the differences of one pair of
systems on one metric over the same queries (``x - y``). Results are arrays of shape
``(n_comparisons,)``. Dropping queries with a NaN value is the caller's job
(:func:`_complete_rows` helps); nothing here looks at NaN beyond what each function says.

The reference for each function is named in its docstring; tests compare against it.
The signed-rank test is in ``_signed_rank``, the resampling tests in ``_resampling`` and
``_tukey``.
"""

import numpy as np
from scipy import stats

from ..conventions._declarations import _Integer
from ._parameters import BOOTSTRAP_METHOD, CORRECTION

# The choices and checks of the comparison's parameters are declared in _parameters.
# _resampling (the lead's) imports _check_bootstrap_method from here: the declaration's check.
_check_bootstrap_method = BOOTSTRAP_METHOD.validate
_POSITIVE_COUNT = _Integer(1, wording="a positive integer")  # training and test set sizes


def _t_pvalue(statistic, df, alternative):
    """p of t statistics with ``df`` degrees of freedom, as scipy's t-tests compute it:
    ``"two-sided"`` 2 T_df.sf(|t|), ``"greater"`` T_df.sf(t), ``"less"`` T_df.cdf(t)."""
    if alternative == "greater":
        return stats.t.sf(statistic, df)
    if alternative == "less":
        return stats.t.cdf(statistic, df)
    return 2 * stats.t.sf(np.abs(statistic), df)


def _as_columns(values, name="d"):
    """Return values as a float64 matrix (n_queries, n_comparisons); a vector is one column.

    Parameters
    ----------
    values : array-like of shape (n_queries,) or (n_queries, n_comparisons)
    name : str, default="d"
        Parameter name for the error message.

    Returns
    -------
    ndarray of float64, shape (n_queries, n_comparisons)
    """
    values = np.asarray(values, dtype=np.float64)
    if values.ndim == 1:
        return values[:, np.newaxis]
    if values.ndim != 2:
        raise ValueError(f"{name} must be a 1-D or 2-D array; got {values.ndim} dimensions.")
    return values


def _complete_rows(values):
    """Keep the queries (rows) that have no NaN in any column.

    Pass the two columns of one pair for pairwise deletion, or all systems' columns for
    listwise deletion (the randomised Tukey HSD needs complete rows).

    Parameters
    ----------
    values : array-like of shape (n_queries, n_columns)
        Per-query values, one column per system (or per comparison).

    Returns
    -------
    kept : ndarray of shape (n_kept, n_columns)
        The rows without NaN, in their input order.
    mask : ndarray of bool, shape (n_queries,)
        Which input rows were kept.
    """
    values = _as_columns(values, "values")
    mask = ~np.isnan(values).any(axis=1)
    return values[mask], mask


def _mean_and_variance(columns):
    """Return the mean and unbiased variance of each column, rounded as scipy's t-test.

    scipy reduces a 1-D sample along its contiguous axis (pairwise summation), so each
    column is reduced as a contiguous row here; a reduction down axis 0 sums in another
    order and differs in the last bits.

    Parameters
    ----------
    columns : ndarray of shape (n, n_comparisons)
        At least 2 rows.

    Returns
    -------
    mean, variance : ndarray of shape (n_comparisons,)
    """
    n = columns.shape[0]
    rows = np.ascontiguousarray(columns.T)
    mean = rows.mean(axis=1)
    variance = ((rows - mean[:, np.newaxis]) ** 2).mean(axis=1) * (n / (n - 1))
    return mean, variance


def _paired_t(d, confidence=0.95, *, alternative="two-sided"):
    """Paired t-test and confidence interval of the mean difference, per column.

    t = mean(d) / (s / sqrt(n)) with s the sample standard deviation (ddof=1),
    df = n - 1, two-sided p = 2 * T_df.sf(|t|); CI = mean(d) +/- T_df.ppf(1 - alpha/2) * SE.
    Column by column equal to ``scipy.stats.ttest_rel(x, y, alternative=alternative)``
    (one-sided p: T_df.sf(t) or T_df.cdf(t)) and the ``confidence_interval(confidence)`` of
    its two-sided test, edge cases included:

    - n < 2: every output NaN;
    - all differences zero: statistic and p NaN, interval [0, 0];
    - s = 0 with a non-zero mean: statistic +/-inf, p 0, interval [mean, mean].

    (A column of equal non-zero floats may have s of about 1e-17 rather than 0, exactly as
    in scipy: the statistic is then huge but finite.)

    Parameters
    ----------
    d : array-like of shape (n_queries, n_comparisons) or (n_queries,)
        Per-query differences ``x - y``.
    confidence : float, default=0.95
        Confidence level of the interval, in (0, 1).
    alternative : {"two-sided", "greater", "less"}, default="two-sided"
        scipy's meaning: ``"greater"``, the mean of ``x - y`` is greater than 0.

    Returns
    -------
    statistic, p_value, ci_low, ci_high : ndarray of shape (n_comparisons,)

    References
    ----------
    T. Sakai, "Statistical reform in information retrieval?", SIGIR Forum 48(1), 2014.
    """
    columns = _as_columns(d)
    n, n_comparisons = columns.shape
    if n < 2:
        return tuple(np.full(n_comparisons, np.nan) for _ in range(4))
    mean, variance = _mean_and_variance(columns)
    standard_error = np.sqrt(variance / n)
    with np.errstate(divide="ignore", invalid="ignore"):
        statistic = mean / standard_error
    df = n - 1
    p_value = _t_pvalue(statistic, df, alternative)
    # The same operations as scipy's confidence_interval, so the bounds agree to the bit.
    tail = (1 - confidence) / 2
    quantile_low, quantile_high = stats.t.ppf(np.array([tail, 1 - tail]), df)
    ci_low = quantile_low * standard_error + mean
    ci_high = quantile_high * standard_error + mean
    return statistic, p_value, ci_low, ci_high


def _effect_size_dz(d, *, small_sample_correction=False):
    """Paired standardized mean difference d_z = mean(d) / s(d), per column.

    d_z = t / sqrt(n) for the paired t statistic. With ``small_sample_correction`` it is
    multiplied by 1 - 3 / (4 (n - 1) - 1) (Hedges' g_z).
    Edge cases: n < 2 gives NaN; a column whose values are all equal has s = 0 exactly
    (not the ~1e-17 that rounding in the mean would give), so d_z is +/-inf, or NaN when
    the differences are all zero.

    Parameters
    ----------
    d : array-like of shape (n_queries, n_comparisons) or (n_queries,)
        Per-query differences ``x - y``.
    small_sample_correction : bool, default=False
        Multiply by Hedges' factor 1 - 3 / (4 (n - 1) - 1).

    Returns
    -------
    ndarray of shape (n_comparisons,)

    References
    ----------
    T. Sakai, "Statistical reform in information retrieval?", SIGIR Forum 48(1), 2014.
    """
    columns = _as_columns(d)
    n, n_comparisons = columns.shape
    if n < 2:
        return np.full(n_comparisons, np.nan)
    mean, variance = _mean_and_variance(columns)
    variance[np.ptp(columns, axis=0) == 0] = 0.0
    with np.errstate(divide="ignore", invalid="ignore"):
        effect = mean / np.sqrt(variance)
    if small_sample_correction:
        effect = effect * (1 - 3 / (4 * (n - 1) - 1))
    return effect


def _win_tie_loss(d):
    """Count the queries where the first system wins (d > 0), ties (d == 0) or loses.

    Ties are exact float equality of the two scores; NaN counts in none of the three.

    Parameters
    ----------
    d : array-like of shape (n_queries, n_comparisons) or (n_queries,)
        Per-query differences ``x - y``.

    Returns
    -------
    wins, ties, losses : ndarray of int64, shape (n_comparisons,)
    """
    columns = _as_columns(d)
    return (
        np.count_nonzero(columns > 0, axis=0).astype(np.int64),
        np.count_nonzero(columns == 0, axis=0).astype(np.int64),
        np.count_nonzero(columns < 0, axis=0).astype(np.int64),
    )


def _corrected_t(d, n_train, n_test, *, alternative="two-sided"):
    """Nadeau and Bengio's corrected resampled t-test over repeated cross-validation.

    For J paired scores from the same splits: sigma^2 = var(d, ddof=1),
    corrected sigma^2 = (1/J + n_test/n_train) sigma^2, t = mean(d) / corrected sigma,
    df = J - 1, two-sided p = 2 T_df.sf(|t|). (scikit-learn's example
    ``plot_grid_search_stats.py`` reports T_df.sf(|t|), half of this.) The correction
    accounts for the overlap of training sets between splits.

    With grouped cross-validation, count what was split: for ranking that is queries
    (groups), not rows, so pass the numbers of training and test queries of a split.
    Edge cases: J < 2 gives NaN; s = 0 gives +/-inf with p 0, or NaN if mean(d) = 0.

    Parameters
    ----------
    d : array-like of shape (n_splits, n_comparisons) or (n_splits,)
        Score differences of the two models on each split.
    n_train, n_test : int
        Number of training and test units (queries) of one split.
    alternative : {"two-sided", "greater", "less"}, default="two-sided"
        As for :func:`_paired_t`: one-sided p T_df.sf(t) or T_df.cdf(t).

    Returns
    -------
    statistic, p_value : ndarray of shape (n_comparisons,)

    References
    ----------
    C. Nadeau and Y. Bengio, "Inference for the generalization error", Machine Learning 52,
    239-281, 2003.
    """
    for name, value in (("n_train", n_train), ("n_test", n_test)):
        _POSITIVE_COUNT(name, value)
    columns = _as_columns(d)
    n_splits, n_comparisons = columns.shape
    if n_splits < 2:
        return np.full(n_comparisons, np.nan), np.full(n_comparisons, np.nan)
    mean, variance = _mean_and_variance(columns)
    corrected_sd = np.sqrt((1 / n_splits + n_test / n_train) * variance)
    with np.errstate(divide="ignore", invalid="ignore"):
        statistic = mean / corrected_sd
    p_value = _t_pvalue(statistic, n_splits - 1, alternative)
    return statistic, p_value


def _adjust_p(p, method):
    """Adjust a family of p-values for multiple testing; input order kept.

    With sorted p_(1) <= ... <= p_(m), all clipped to 1:

    - ``"bonferroni"``: m p_i;
    - ``"holm"`` (step-down): max over j <= i of (m - j + 1) p_(j);
    - ``"fdr_bh"`` (step-up, false discovery rate): min over j >= i of m p_(j) / j;
    - ``None``: unchanged (a copy).

    Reject a hypothesis at level alpha when its adjusted p <= alpha. Tied p-values get
    equal adjusted values. Equal to ``statsmodels.stats.multitest.multipletests(p,
    method=...)[1]`` (same operations, so to the bit) and, for BH, to
    ``scipy.stats.false_discovery_control``.

    NaN p-values (comparisons that could not be tested, e.g. all differences zero in a
    t-test) are not members of the family: they stay NaN and m counts the others. This
    is statsmodels applied to the non-NaN values. (statsmodels on the whole vector sorts
    NaN last and still counts it in m, and its BH turns every adjusted value NaN; scipy
    refuses NaN.)

    Parameters
    ----------
    p : array-like of shape (m,)
        p-values of one family.
    method : {"holm", "bonferroni", "fdr_bh"} or None
        Correction; None returns a copy of ``p``.

    Returns
    -------
    ndarray of shape (m,)

    References
    ----------
    S. Holm, "A simple sequentially rejective multiple test procedure", Scandinavian
    Journal of Statistics 6(2), 65-70, 1979.
    Y. Benjamini and Y. Hochberg, "Controlling the false discovery rate", Journal of the
    Royal Statistical Society B 57(1), 289-300, 1995.

    Examples
    --------
    >>> from sklearn_rank.comparison._stats import _adjust_p
    >>> _adjust_p([0.01, 0.04, 0.03, float("nan")], "holm")
    array([0.03, 0.06, 0.06,  nan])
    """
    method = CORRECTION.validate(method)
    p = np.asarray(p, dtype=np.float64)
    if p.ndim != 1:
        raise ValueError(f"p must be a 1-D array; got {p.ndim} dimensions.")
    if method is None:
        return p.copy()
    adjusted = np.full(p.shape, np.nan)
    tested = ~np.isnan(p)
    family = p[tested]
    m = family.size
    if m == 0:
        return adjusted
    order = np.argsort(family, kind="stable")
    ranked = family[order]
    if method == "bonferroni":
        ranked_adjusted = ranked * float(m)
    elif method == "holm":
        ranked_adjusted = np.maximum.accumulate(ranked * np.arange(m, 0, -1))
    else:
        # Divide by i/m (not multiply by m/i): statsmodels' rounding, so results match.
        ranked_adjusted = np.minimum.accumulate((ranked / (np.arange(1, m + 1) / m))[::-1])[::-1]
    np.minimum(ranked_adjusted, 1.0, out=ranked_adjusted)
    restored = np.empty(m)
    restored[order] = ranked_adjusted
    adjusted[tested] = restored
    return adjusted
