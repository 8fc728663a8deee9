"""Resampling tests over many paired comparisons at once.

- :func:`_randomization`: two-sided sign-flip test of the mean difference;
- :func:`_bootstrap_ci` and :func:`_bootstrap_p`: paired bootstrap of queries.

The randomised Tukey HSD (``_tukey``) draws its permutations in the same blocks.

One set of draws serves every column of a call (every pair and metric), so the tests of
one call are coupled exactly as the queries are. Draws are made in blocks of resamples to
bound memory; each resample consumes a fixed amount of the Generator's stream, so results
do not depend on the block size. Every function takes a ``numpy.random.Generator`` (or
anything ``numpy.random.default_rng`` accepts).

Each test has a core that takes the random draws as an iterable of blocks (sign vectors,
index vectors, permutations), which is how tests inject known draws.
"""

import numpy as np
from scipy import special

from ._stats import _as_columns, _check_bootstrap_method

# Largest temporary array of a block, in elements (32 MB of float64).
_BLOCK_ELEMENTS = 2**22
# scipy's permutation_test tolerance: values equal in exact arithmetic may differ by a few
# ulps after summing in another order, and must still count as "at least as extreme".
_RELATIVE_TOLERANCE = 100 * np.finfo(np.float64).eps
_SIGN_OF_BIT = np.array([1.0, -1.0])
# Exact enumeration counts sign vectors in an int64.
_MAX_EXACT_ROWS = 62


def _blocks(n_resamples, block_size):
    """Yield (start, stop) of consecutive blocks of at most ``block_size`` resamples."""
    for start in range(0, n_resamples, block_size):
        yield start, min(start + block_size, n_resamples)


def _rows_per_block(block_size, elements_per_resample):
    """Return ``block_size`` if given, else as many resamples as fit the element budget."""
    if block_size is not None:
        return int(block_size)
    return max(1, _BLOCK_ELEMENTS // max(1, elements_per_resample))


def _random_sign_blocks(rng, n_rows, n_resamples, block_size):
    """Yield blocks of i.i.d. uniform sign vectors, shape (rows, n_rows), values +/-1.

    Each vector takes ceil(n_rows / 64) full 64-bit words from the Generator, whatever the
    block size, so the vectors are the same for every block size: bit k % 64 of word
    k // 64 (little-endian) set means query k is flipped.

    Parameters
    ----------
    rng : numpy.random.Generator
    n_rows, n_resamples, block_size : int
        Queries per vector, number of vectors, vectors per block.

    Yields
    ------
    ndarray of float64, shape (rows, n_rows)
    """
    words = -(-n_rows // 64)
    for start, stop in _blocks(n_resamples, block_size):
        raw = rng.integers(0, 2**64 - 1, size=(stop - start, words), dtype=np.uint64, endpoint=True)
        as_bytes = raw.astype("<u8", copy=False).view(np.uint8)
        bits = np.unpackbits(as_bytes, axis=1, count=n_rows, bitorder="little")
        yield _SIGN_OF_BIT[bits]


def _all_sign_blocks(n_rows, block_size):
    """Yield every sign vector whose first sign is +1 (s and -s give the same |sum|).

    Parameters
    ----------
    n_rows, block_size : int
        Queries per vector (at least 1), vectors per block.

    Yields
    ------
    ndarray of float64, shape (rows, n_rows)
    """
    free_rows = np.arange(n_rows - 1)
    for start, stop in _blocks(1 << (n_rows - 1), block_size):
        codes = np.arange(start, stop, dtype=np.int64)
        signs = np.empty((stop - start, n_rows))
        signs[:, 0] = 1.0
        signs[:, 1:] = _SIGN_OF_BIT[(codes[:, np.newaxis] >> free_rows) & 1]
        yield signs


def _sign_flip_counts(d, sign_blocks, *, one_sided=False):
    """Count, per column, the sign vectors s with |sum(s * d)| >= |sum(d)| - tolerance
    (``one_sided``: sum(s * d) >= sum(d) - tolerance).

    Parameters
    ----------
    d : ndarray of shape (n_queries, n_comparisons)
        Per-query differences.
    sign_blocks : iterable of ndarray of shape (rows, n_queries)
        Sign vectors (+/-1), one per row.
    one_sided : bool, default=False
        Count the sums at least the observed one, not their absolute values.

    Returns
    -------
    ndarray of int64, shape (n_comparisons,)
    """
    observed = (np.ones((1, d.shape[0])) @ d)[0]
    observed = observed if one_sided else np.abs(observed)
    threshold = observed - _RELATIVE_TOLERANCE * np.abs(observed)
    counts = np.zeros(d.shape[1], dtype=np.int64)
    for signs in sign_blocks:
        # One matrix product flips the signs for every column of d at once.
        sums = signs @ d
        counts += np.count_nonzero((sums if one_sided else np.abs(sums)) >= threshold, axis=0)
    return counts


def _randomization(d, n_resamples, rng, *, alternative="two-sided", block_size=None):
    """Paired randomization (sign-flip) test of the mean difference, per column.

    Under H0 the two systems' values on a query are exchangeable, so each difference is
    equally likely +d_i or -d_i. With T = |mean(s * d)| and T_obs = |mean(d)|, a sign
    vector counts when T_s >= T_obs - tau, tau = 100 eps T_obs (scipy's
    ``permutation_test`` tolerance, so sums equal in exact arithmetic count). One set of
    sign vectors serves every column. ``alternative="greater"`` counts mean(s * d) >=
    mean(d) - tau instead, ``"less"`` mean(s * d) <= mean(d) + tau (scipy's one-sided
    comparisons), as ``permutation_test(..., alternative=alternative)``.

    - Exact when 2**n' <= ``n_resamples``, where n' counts the queries with a non-zero
      difference in at least one column (other queries flip nothing): all 2**n' vectors
      are enumerated (half of them, by the symmetry s ~ -s), p = count / 2**n'. This is
      the p of ``scipy.stats.permutation_test((d,), np.mean, permutation_type="samples",
      n_resamples=np.inf)``.
    - Otherwise Monte Carlo over ``n_resamples`` uniform sign vectors,
      p = (1 + b) / (1 + B) (Phipson and Smyth): the observed assignment is one of the
      equally likely ones, so p is valid and never 0.

    Edge cases: n = 0 gives NaN; all differences zero give p = 1, and so does n' = 1
    for the two-sided test.

    Parameters
    ----------
    d : array-like of shape (n_queries, n_comparisons) or (n_queries,)
        Per-query differences ``x - y``.
    n_resamples : int
        Number of random sign vectors (B), and the budget for exact enumeration.
    rng : numpy.random.Generator
        Source of the sign vectors; not used when the test is exact.
    alternative : {"two-sided", "greater", "less"}, default="two-sided"
        scipy's meaning: ``"greater"``, the mean of ``x - y`` is greater than 0.
    block_size : int or None, default=None
        Sign vectors per block; by default about 32 MB of float64 per block. Results do
        not depend on it.

    Returns
    -------
    p_value : ndarray of shape (n_comparisons,)
    exact : bool
        Whether the p-values come from full enumeration.

    References
    ----------
    B. Phipson and G. K. Smyth, "Permutation p-values should never be zero", Statistical
    Applications in Genetics and Molecular Biology 9(1), 2010.
    T. Sakai, "Statistical reform in information retrieval?", SIGIR Forum 48(1), 2014.
    """
    columns = _as_columns(d)
    one_sided = alternative != "two-sided"
    if alternative == "less":  # "less" for d is "greater" for -d: every sum negates exactly
        columns = -columns
    n, n_comparisons = columns.shape
    if n == 0:
        return np.full(n_comparisons, np.nan), True
    informative = columns[np.any(columns != 0, axis=1)]
    n_informative = informative.shape[0]
    if n_informative <= (0 if one_sided else 1):
        return np.ones(n_comparisons), True
    rows = _rows_per_block(block_size, n_informative)
    if n_informative <= _MAX_EXACT_ROWS and (1 << n_informative) <= n_resamples:
        if not one_sided:
            counts = _sign_flip_counts(informative, _all_sign_blocks(n_informative, rows))
            return counts / float(1 << (n_informative - 1)), True
        # A leading zero row takes the sign the enumeration holds at +1, so that the other
        # rows run over all 2**n' sign vectors (s and -s count apart one-sided).
        padded = np.vstack([np.zeros((1, n_comparisons)), informative])
        signs = _all_sign_blocks(n_informative + 1, rows)
        return _sign_flip_counts(padded, signs, one_sided=True) / float(1 << n_informative), True
    rng = np.random.default_rng(rng)
    signs = _random_sign_blocks(rng, n_informative, n_resamples, rows)
    counts = _sign_flip_counts(informative, signs, one_sided=one_sided)
    return (1 + counts) / (1 + n_resamples), False


def _bootstrap_index_blocks(rng, n, n_resamples, block_size):
    """Yield blocks of bootstrap index vectors, shape (rows, n).

    The same stream as scipy's single ``rng.integers(0, n, (n_resamples, n))``: bounded
    integers below 2**32 take 32-bit halves of the bit generator's words and the unused
    half stays in the generator's state between calls (checked by a test).

    Parameters
    ----------
    rng : numpy.random.Generator
    n, n_resamples, block_size : int
        Queries, resamples, resamples per block.

    Yields
    ------
    ndarray of int64, shape (rows, n)
    """
    for start, stop in _blocks(n_resamples, block_size):
        yield rng.integers(0, n, (stop - start, n))


def _bootstrap_means(rows, index_blocks, n_resamples):
    """Return the mean of each row of ``rows`` over each resample of indices.

    ``np.take`` gives contiguous resamples, so each mean is summed in the same order as
    scipy's ``np.mean(sample[indices], axis=-1)`` and agrees to the bit.

    Parameters
    ----------
    rows : ndarray of shape (n_columns, n)
        One row per column of the data, C-contiguous.
    index_blocks : iterable of int ndarray of shape (rows, n)
    n_resamples : int
        Total number of index vectors in the blocks.

    Returns
    -------
    ndarray of shape (n_columns, n_resamples)
    """
    means = np.empty((rows.shape[0], n_resamples))
    filled = 0
    for indices in index_blocks:
        means[:, filled : filled + len(indices)] = np.take(rows, indices, axis=1).mean(axis=-1)
        filled += len(indices)
    return means


def _linear_quantile(sorted_values, probabilities):
    """Return the linear-interpolation quantile of each row at its own probability.

    The formula of ``scipy.stats.quantile(method="linear")`` (Hyndman and Fan type 7,
    numpy's default) in scipy's order of operations; probabilities outside [0, 1] or NaN
    give NaN.

    Parameters
    ----------
    sorted_values : ndarray of shape (n_rows, n_values)
        Each row sorted ascending.
    probabilities : array-like of shape (n_rows,)

    Returns
    -------
    ndarray of shape (n_rows,)
    """
    n_values = sorted_values.shape[1]
    probabilities = np.asarray(probabilities, dtype=np.float64)
    with np.errstate(invalid="ignore"):
        invalid = ~((probabilities >= 0) & (probabilities <= 1))
    probabilities = np.where(invalid, 0.5, probabilities)
    position = probabilities * float(n_values) + (1 - probabilities)
    upper = position // 1
    lower = upper - 1
    fraction = np.where(lower < 0, 0.0, position % 1)
    lower = np.clip(lower, 0, n_values - 1).astype(np.int64)
    upper = np.clip(upper, 0, n_values - 1).astype(np.int64)
    at_lower = np.take_along_axis(sorted_values, lower[:, np.newaxis], axis=1)[:, 0]
    at_upper = np.take_along_axis(sorted_values, upper[:, np.newaxis], axis=1)[:, 0]
    value = (1 - fraction) * at_lower + fraction * at_upper
    value[invalid] = np.nan
    return value


def _bca_probabilities(rows, estimate, sorted_means, alpha):
    """Return BCa's adjusted quantile levels (alpha_1, alpha_2) for the mean of each row.

    Parameters
    ----------
    rows : ndarray of shape (n_columns, n)
        The data, one row per column.
    estimate : ndarray of shape (n_columns,)
        Mean of each row.
    sorted_means : ndarray of shape (n_columns, n_resamples)
        Sorted bootstrap means.
    alpha : float
        Each tail's level, (1 - confidence) / 2.

    Returns
    -------
    alpha_1, alpha_2 : ndarray of shape (n_columns,)
    """
    n_resamples = sorted_means.shape[1]
    below = np.count_nonzero(sorted_means < estimate[:, np.newaxis], axis=1)
    at_or_below = np.count_nonzero(sorted_means <= estimate[:, np.newaxis], axis=1)
    bias = special.ndtri((below + at_or_below).astype(np.float64) / (2 * n_resamples))
    # The jackknife acceleration of the mean in closed form: the leave-one-out means
    # deviate from their average by (d_i - mean) / (n - 1).
    centred = rows - estimate[:, np.newaxis]
    with np.errstate(divide="ignore", invalid="ignore"):
        acceleration = (centred**3).sum(axis=1) / (6 * (centred**2).sum(axis=1) ** 1.5)
    # Equal values: a = 0/0, NaN, always. (scipy's jackknife means of equal values are
    # often exactly equal, giving NaN, but not always: six 0.1 leave ~1e-17 and a finite a.)
    acceleration[np.ptp(rows, axis=1) == 0] = np.nan
    z_alpha = float(special.ndtri(alpha))
    levels = []
    for z in (z_alpha, -z_alpha):
        shifted = bias + z
        with np.errstate(invalid="ignore"):
            levels.append(special.ndtr(bias + shifted / (1 - acceleration * shifted)))
    return levels


def _bootstrap_ci(x, n_resamples, rng, confidence=0.95, method="BCa", *, block_size=None):
    """Paired bootstrap confidence interval of the mean of each column.

    Every column is resampled with the same index vectors (queries drawn with
    replacement), so intervals of two runs' means and of their mean difference come
    from one set of draws. Column by column equal to ``scipy.stats.bootstrap((column,),
    np.mean, n_resamples=B, method=method, confidence_level=confidence, rng=g)`` for a
    Generator ``g`` in the same state: scipy draws ``g.integers(0, n, (B, n))``, the same
    stream as the blocks drawn here, and the bootstrap means are summed in scipy's order.
    Percentile and basic intervals agree to the bit; BCa to about 1e-15 relative, as its
    acceleration is computed in closed form rather than from n jackknife means.

    - percentile: [Q(alpha/2), Q(1 - alpha/2)] of the bootstrap means;
    - basic: [2 mean - Q(1 - alpha/2), 2 mean - Q(alpha/2)];
    - BCa: quantile levels corrected for bias (z0) and acceleration (a, jackknife).

    Edge cases: n = 0 gives NaN; n = 1 or equal values give [mean, mean] for percentile
    and basic, NaN for BCa (0/0 in the acceleration; scipy warns and returns NaN when its
    rounding gives exactly 0/0, and refuses n = 1).

    Parameters
    ----------
    x : array-like of shape (n_queries, n_columns) or (n_queries,)
        Per-query values (runs' scores, differences, or both side by side).
    n_resamples : int
        Number of bootstrap samples B.
    rng : numpy.random.Generator
        Source of the index vectors, drawn as ``rng.integers(0, n, (B, n))``.
    confidence : float, default=0.95
        Confidence level, in (0, 1).
    method : {"BCa", "percentile", "basic"}, default="BCa"
        Interval method, named as in scipy.
    block_size : int or None, default=None
        Resamples per block; by default about 32 MB of float64 per block. Results do not
        depend on it.

    Returns
    -------
    ci_low, ci_high : ndarray of shape (n_columns,)

    References
    ----------
    B. Efron and R. J. Tibshirani, "An Introduction to the Bootstrap", Chapman & Hall,
    1993, sections 13.3 and 14.3.
    """
    # A misspelt "bca" must not silently become a percentile interval.
    method = _check_bootstrap_method(method)
    columns = _as_columns(x, "x")
    n, n_columns = columns.shape
    if n == 0:
        return np.full(n_columns, np.nan), np.full(n_columns, np.nan)
    rng = np.random.default_rng(rng)
    rows = np.ascontiguousarray(columns.T)
    estimate = rows.mean(axis=1)
    block_rows = _rows_per_block(block_size, n * n_columns)
    means = _bootstrap_means(
        rows, _bootstrap_index_blocks(rng, n, n_resamples, block_rows), n_resamples
    )
    means.sort(axis=1)
    alpha = (1 - confidence) / 2
    if method == "BCa":
        level_low, level_high = _bca_probabilities(rows, estimate, means, alpha)
    else:
        level_low = np.full(n_columns, alpha)
        level_high = np.full(n_columns, 1 - alpha)
    ci_low = _linear_quantile(means, level_low)
    ci_high = _linear_quantile(means, level_high)
    if method == "basic":
        ci_low, ci_high = 2 * estimate - ci_high, 2 * estimate - ci_low
    return ci_low, ci_high


def _resample_counts(indices, n):
    """Return how many times each of the n queries appears in each resample.

    Parameters
    ----------
    indices : int ndarray of shape (rows, n)
    n : int

    Returns
    -------
    ndarray of float64, shape (rows, n)
    """
    rows = indices.shape[0]
    flat = (indices + (np.arange(rows) * n)[:, np.newaxis]).ravel()
    return np.bincount(flat, minlength=rows * n).reshape(rows, n).astype(np.float64)


def _studentized_bootstrap_counts(d, index_blocks, *, one_sided=False):
    """Count, per column, #{b : |t*_b| >= |t_obs| - tau} (shifted studentized bootstrap;
    ``one_sided``: #{b : t*_b >= t_obs - tau}).

    w = d - mean(d) makes H0 true; t*_b = mean(w*) / (s(w*) / sqrt(n)) on w* = w[I_b].
    A resample with s* = 0 has t* = +/-inf (counted) unless mean(w*) = 0, where t* = 0/0
    is taken as 0 (not counted). Sakai and elinor count |t*| >= |t_obs|; here with scipy's
    tolerance, |t*| >= |t_obs| - 100 eps |t_obs|, so a resample whose t* equals t_obs in
    exact arithmetic counts whatever the rounding (no such resample on section 9's data).

    Parameters
    ----------
    d : ndarray of shape (n_queries, n_comparisons)
        Per-query differences, n_queries >= 2.
    index_blocks : iterable of int ndarray of shape (rows, n_queries)
        Bootstrap index vectors, one per row.
    one_sided : bool, default=False
        Count the statistics at least the observed one, not their absolute values.

    Returns
    -------
    ndarray of int64, shape (n_comparisons,)
    """
    n = d.shape[0]
    mean = d.mean(axis=0)
    centred = d - mean
    standard_error = np.sqrt(((centred**2).sum(axis=0) / (n - 1)) / n)
    with np.errstate(divide="ignore", invalid="ignore"):
        observed = mean / standard_error
        observed = observed if one_sided else np.abs(observed)
        threshold = observed - _RELATIVE_TOLERANCE * np.abs(observed)
    moments = np.concatenate([centred, centred**2], axis=1)
    counts = np.zeros(d.shape[1], dtype=np.int64)
    for indices in index_blocks:
        # Counts of each query per resample turn both resample sums into one product.
        sums = _resample_counts(indices, n) @ moments
        sum_w, sum_w2 = np.hsplit(sums, 2)
        resample_mean = sum_w / n
        # w is centred, so this subtraction cancels little where |t*| is near |t_obs|.
        variance = np.maximum(sum_w2 - sum_w * resample_mean, 0.0) / (n - 1)
        with np.errstate(divide="ignore", invalid="ignore"):
            statistic = resample_mean / np.sqrt(variance / n)
        # 0/0 (every resampled difference equal to the mean) is a t* of 0: it counts when
        # the observed t is 0 too, so a mean difference of exactly 0 gives p = 1.
        statistic = np.where(np.isnan(statistic), 0.0, statistic)
        statistic = statistic if one_sided else np.abs(statistic)
        counts += np.count_nonzero(statistic >= threshold, axis=0)
    return counts


def _bootstrap_p(d, n_resamples, rng, *, alternative="two-sided", block_size=None):
    """p of the shifted studentized paired bootstrap test, per column.

    p = (1 + #{|t*_b| >= |t_obs| - tau}) / (1 + B), tau = 100 eps |t_obs|; see
    :func:`_studentized_bootstrap_counts`. Sakai and elinor report #/B (0.0509 on
    section 9's data, where this gives 510 / 10001). Index vectors are drawn as in
    :func:`_bootstrap_ci` (``rng.integers(0, n, (B, n))``) and shared by every column.
    ``alternative="greater"`` counts t*_b >= t_obs - tau, ``"less"`` t*_b <= t_obs + tau.

    Edge cases: n < 2 gives NaN; all differences zero gives 1; equal non-zero differences
    (s = 0) give 1 / (1 + B): every t* is 0/0 there while |t_obs| is infinite (one-sided:
    1 / (1 + B) when their sign is the alternative's, else 1).

    Parameters
    ----------
    d : array-like of shape (n_queries, n_comparisons) or (n_queries,)
        Per-query differences ``x - y``.
    n_resamples : int
        Number of bootstrap samples B.
    rng : numpy.random.Generator
        Source of the index vectors.
    alternative : {"two-sided", "greater", "less"}, default="two-sided"
        scipy's meaning: ``"greater"``, the mean of ``x - y`` is greater than 0.
    block_size : int or None, default=None
        Resamples per block. Results do not depend on it.

    Returns
    -------
    ndarray of shape (n_comparisons,)

    References
    ----------
    T. Sakai, "Evaluating evaluation metrics based on the bootstrap", SIGIR 2006.
    B. Efron and R. J. Tibshirani, "An Introduction to the Bootstrap", Chapman & Hall,
    1993, section 16.4.
    """
    columns = _as_columns(d)
    one_sided = alternative != "two-sided"
    if alternative == "less":  # "less" for d is "greater" for -d: t_obs and t* negate exactly
        columns = -columns
    n, n_comparisons = columns.shape
    if n < 2:
        return np.full(n_comparisons, np.nan)
    rng = np.random.default_rng(rng)
    # Four (rows, n) arrays live at once: indices, flat indices, counts and their floats.
    block_rows = _rows_per_block(block_size, 4 * n)
    indices = _bootstrap_index_blocks(rng, n, n_resamples, block_rows)
    counts = _studentized_bootstrap_counts(columns, indices, one_sided=one_sided)
    p_value = (1 + counts) / (1 + n_resamples)
    constant = np.ptp(columns, axis=0) == 0
    against = columns[0, constant] <= 0 if one_sided else columns[0, constant] == 0
    p_value[constant] = np.where(against, 1.0, 1 / (1 + n_resamples))
    return p_value
