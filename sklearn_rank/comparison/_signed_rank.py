"""The Wilcoxon signed-rank test over many paired comparisons, as scipy computes it.

scipy's ``wilcoxon(method="auto")`` picks its method from the whole array it is given;
here each column gets the method scipy would pick for it alone, and the permutation branch
(small n with ties or zeros) enumerates the sign vectors of every column at once.
"""

import warnings

import numpy as np
from scipy import stats

from ._stats import _as_columns

# scipy's Wilcoxon picks its method per call from the whole array (ties or zeros anywhere),
# so these cut-offs reproduce, per column, what a one-column call would pick.
_WILCOXON_ASYMPTOTIC_ABOVE = 50
_WILCOXON_PERMUTATION_UP_TO = 13


def _wilcoxon_methods(columns):
    """Return the method ``scipy.stats.wilcoxon(method="auto")`` picks for each column alone.

    scipy decides from n including zeros: n > 50 asymptotic; otherwise no zeros and no
    tied |d| exact; otherwise n <= 13 a permutation test over all 2**n sign vectors, else
    asymptotic.

    Parameters
    ----------
    columns : ndarray of shape (n, n_comparisons)

    Returns
    -------
    ndarray of object, shape (n_comparisons,)
        ``"exact"``, ``"asymptotic"`` or ``"permutation"``.
    """
    n, n_comparisons = columns.shape
    if n > _WILCOXON_ASYMPTOTIC_ABOVE:
        return np.full(n_comparisons, "asymptotic", dtype=object)
    magnitudes = np.sort(np.abs(columns), axis=0)
    tied = np.any(magnitudes[1:] == magnitudes[:-1], axis=0)
    has_zero = np.any(columns == 0, axis=0)
    fallback = "permutation" if n <= _WILCOXON_PERMUTATION_UP_TO else "asymptotic"
    return np.where(tied | has_zero, fallback, "exact").astype(object)


def _wilcoxon_all_sign_vectors(columns, alternative="two-sided"):
    """Compute scipy's permutation branch of the Wilcoxon test for every column at once.

    Under H0 each non-zero difference is positive with probability 1/2 whatever its rank,
    so the null distribution of R+ is sum_i b_i r_i over all 2**n bit vectors b (zeros have
    rank weight 0, as scipy drops them). p = 2 min(P(R+_s <= R+), P(R+_s >= R+)), clipped
    to 1 (``"greater"``: P(R+_s >= R+), ``"less"``: P(R+_s <= R+), statistic R+): what
    ``scipy.stats.permutation_test`` computes when it enumerates, to the bit, without its
    cost (0.7 s per column at n = 13). Ranks are half-integers, so every sum
    is exact and scipy's tolerance for rounding (100 eps R+) changes nothing.

    Parameters
    ----------
    columns : ndarray of shape (n, n_comparisons)
        Differences, n <= 13 (2**n sign vectors are built).
    alternative : {"two-sided", "greater", "less"}, default="two-sided"

    Returns
    -------
    statistic, p_value : ndarray of shape (n_comparisons,)
    """
    n = columns.shape[0]
    zero = columns == 0
    # Zeros have the smallest |d| and tie among themselves: the ranks of the others among
    # the non-zero values are their ranks among all, minus the number of zeros.
    ranks = stats.rankdata(np.abs(columns), axis=0) - np.count_nonzero(zero, axis=0)
    ranks[zero] = 0.0
    r_plus = np.sum(ranks * (columns > 0), axis=0)
    r_minus = np.sum(ranks * (columns < 0), axis=0)
    positive = ((np.arange(1 << n)[:, np.newaxis] >> np.arange(n)) & 1).astype(np.float64)
    null = positive @ ranks
    n_vectors = float(1 << n)
    at_most = np.count_nonzero(null <= r_plus, axis=0) / n_vectors
    at_least = np.count_nonzero(null >= r_plus, axis=0) / n_vectors
    if alternative == "greater":
        return r_plus, at_least
    if alternative == "less":
        return r_plus, at_most
    return np.minimum(r_plus, r_minus), np.clip(2 * np.minimum(at_most, at_least), 0, 1)


def _wilcoxon(d, *, decimals=None, alternative="two-sided"):
    """Wilcoxon signed-rank test per column, as ``scipy.stats.wilcoxon(x, y)`` by default.

    Defaults of scipy: ``zero_method="wilcox"`` (zero differences dropped),
    ``correction=False``, two-sided, ``method="auto"``. The statistic is min(R+, R-), or
    R+ for a one-sided ``alternative``, as scipy's.

    Float ties: ranks tie only on exactly equal |d|, and differences of decimal scores
    rarely are (0.7 - 0.5 != 0.3 - 0.1 in binary), so scipy sees distinct values where a
    person sees ties; that changes the ranks, the tie correction and, for n <= 50, the
    method. ``decimals`` rounds d first (12 is a safe choice for scores with a few
    decimals); the default keeps scipy's behaviour.

    Columns are grouped by the method scipy would pick for each alone (its ``auto`` looks
    for ties and zeros in the whole array) and each group is one vectorised scipy call,
    except the permutation branch (n <= 13 with ties or zeros), where scipy enumerates
    all 2**n sign vectors at 0.7 s per column for n = 13: that enumeration is done here for
    all columns at once (:func:`_wilcoxon_all_sign_vectors`), equal to scipy's to the bit.
    Degenerate columns return scipy's values without its warnings: all differences zero
    gives p 1.0 if n <= 13 but NaN from n = 14 on (also p 1.0 for d = [0], where scipy
    raises); n = 0 gives NaN.

    Parameters
    ----------
    d : array-like of shape (n_queries, n_comparisons) or (n_queries,)
        Per-query differences ``x - y``.
    decimals : int or None, default=None
        Round the differences to this many decimals before ranking.
    alternative : {"two-sided", "greater", "less"}, default="two-sided"
        scipy's meaning: ``"greater"``, the differences tend to be positive.

    Returns
    -------
    statistic, p_value : ndarray of shape (n_comparisons,)

    References
    ----------
    T. Sakai, "Statistical reform in information retrieval?", SIGIR Forum 48(1), 2014.
    """
    columns = _as_columns(d)
    if decimals is not None:
        columns = np.round(columns, decimals)
    n, n_comparisons = columns.shape
    statistic = np.full(n_comparisons, np.nan)
    p_value = np.full(n_comparisons, np.nan)
    if n == 0 or n_comparisons == 0:
        return statistic, p_value
    methods = _wilcoxon_methods(columns)
    with warnings.catch_warnings():
        # All-zero columns of n >= 14 divide 0 by 0 inside scipy; its NaN is the answer.
        warnings.simplefilter("ignore")
        for method in ("exact", "asymptotic"):
            chosen = np.flatnonzero(methods == method)
            if chosen.size:
                result = stats.wilcoxon(
                    columns[:, chosen], axis=0, method=method, alternative=alternative
                )
                statistic[chosen] = result.statistic
                p_value[chosen] = result.pvalue
    chosen = np.flatnonzero(methods == "permutation")
    if chosen.size:
        statistic[chosen], p_value[chosen] = _wilcoxon_all_sign_vectors(
            columns[:, chosen], alternative
        )
    return statistic, p_value
