"""Confidence intervals of means and mean differences for `compare`.

- :func:`_bootstrap_intervals`: paired bootstrap BCa intervals of many columns from one
  set of resamples, the percentile interval where BCa is undefined;
- :func:`_t_intervals`: Student t intervals (``test="t"``), with Nadeau and Bengio's
  variance correction for fold scores (``test="corrected_t"``).

The bootstrap draws the index vectors of ``scipy.stats.bootstrap``
(``rng.integers(0, n, (B, n))``, in blocks: :func:`_resampling._bootstrap_index_blocks`)
and uses the quantile and BCa steps of :func:`_resampling._bootstrap_ci`; only the
resample means are computed differently, as one matrix product of the resample counts with
all columns, which is an order of magnitude faster than gathering every resample of every
column. What holds against ``scipy.stats.bootstrap`` on the same stream: each resample
mean equals scipy's to a few units in the last place, so percentile levels give the same
end points to about 1e-12. BCa's bias correction counts the resample means below the
estimate: on continuous values that count is scipy's and the intervals agree to about
1e-12; on discrete per-query values (binary relevance on few queries) many resample means
equal the estimate in exact arithmetic, rounding may put them on either side, and an end
point can move to a neighbouring resample mean (0.01 at 10 queries).
"""

import numpy as np
from scipy import stats

from ._resampling import (
    _BLOCK_ELEMENTS,
    _bca_probabilities,
    _bootstrap_index_blocks,
    _linear_quantile,
    _resample_counts,
    _rows_per_block,
)
from ._stats import _as_columns, _mean_and_variance


def _bootstrap_intervals(x, n_resamples, rng, confidence):
    """BCa bootstrap interval of the mean of each column, percentile where BCa is NaN.

    Every column is resampled with the same index vectors (queries drawn with
    replacement), so the intervals of runs' means and of their differences come from one
    set of draws. BCa is undefined (NaN) when a column's values are all equal; its
    percentile interval, [mean, mean], is given there.

    Parameters
    ----------
    x : array-like of shape (n_queries, n_columns)
        Per-query values without NaN, at least one query.
    n_resamples : int
        Number of bootstrap samples B.
    rng : numpy.random.Generator or int
        Source of the index vectors.
    confidence : float
        Confidence level, in (0, 1).

    Returns
    -------
    ci_low, ci_high : ndarray of shape (n_columns,)
    """
    columns = _as_columns(x, "x")
    n, n_columns = columns.shape
    rng = np.random.default_rng(rng)
    _check_interval_resamples(n_resamples)
    # The B means of a column are all kept (their quantiles): columns are taken a few at a
    # time, as many as fit the block budget, each chunk drawing the same index vectors
    # from the same generator state. (A product of another width may round a mean
    # differently in its last bit: chunked intervals equal one pass to rounding.)
    state = rng.bit_generator.state
    chunk = max(2, _BLOCK_ELEMENTS // n_resamples)
    low, high = np.empty(n_columns), np.empty(n_columns)
    for start in range(0, n_columns, chunk):
        generator = np.random.Generator(type(rng.bit_generator)())
        generator.bit_generator.state = state
        part = columns[:, start : start + chunk]
        width = part.shape[1]
        if width == 1 and n_columns > 1:
            # A one-column product is a matrix-vector product, which rounds differently:
            # a last chunk of one column is paired with a copy of itself.
            part = np.repeat(part, 2, axis=1)
        chunk_low, chunk_high = _chunk_intervals(part, n_resamples, generator, confidence)
        low[start : start + width], high[start : start + width] = (
            chunk_low[:width],
            chunk_high[:width],
        )
    return low, high


def _check_interval_resamples(n_resamples):
    if n_resamples > _BLOCK_ELEMENTS:
        raise ValueError(
            f"n_resamples={n_resamples:,} is too many for bootstrap intervals: each "
            f"interval keeps its {n_resamples:,} resample means ({n_resamples * 8 / 2**20:,.0f} "
            f"MiB); use at most {_BLOCK_ELEMENTS:,}, or test='t' (t intervals, no resampling)."
        )


def _resample_means(columns, n_resamples, rng):
    """(n_columns, n_resamples) means of each column over the bootstrap resamples drawn
    from ``rng`` as scipy draws them, by one product of resample counts with the columns."""
    n, n_columns = columns.shape
    means = np.empty((n_columns, n_resamples))
    filled = 0
    # Four (block, n) arrays live at once: indices, flat indices, counts, their floats.
    block = _rows_per_block(None, 4 * n)
    for indices in _bootstrap_index_blocks(rng, n, n_resamples, block):
        counts = _resample_counts(indices, n)
        means[:, filled : filled + len(indices)] = (counts @ columns).T / n
        filled += len(indices)
    return means


def _chunk_intervals(columns, n_resamples, rng, confidence):
    """`_bootstrap_intervals` of a few columns, their resample means held at once."""
    rows = np.ascontiguousarray(columns.T)
    estimate = rows.mean(axis=1)
    means = _resample_means(columns, n_resamples, rng)
    means.sort(axis=1)
    alpha = (1 - confidence) / 2
    level_low, level_high = _bca_probabilities(rows, estimate, means, alpha)
    undefined = np.isnan(level_low) | np.isnan(level_high)
    level_low[undefined], level_high[undefined] = alpha, 1 - alpha
    return _linear_quantile(means, level_low), _linear_quantile(means, level_high)


def _t_intervals(x, confidence, variance_factor=None):
    """Student t interval of the mean of each column: mean +/- t_(n-1) * SE.

    Equal to ``scipy.stats.ttest_1samp(column, 0).confidence_interval(confidence)``
    (and, on differences, to ``ttest_rel``'s). With ``variance_factor`` f, the squared
    standard error is f * s**2 instead of s**2 / n: Nadeau and Bengio's corrected
    variance for fold scores, f = 1 / J + n_test / n_train.

    Parameters
    ----------
    x : array-like of shape (n, n_columns)
        Values without NaN.
    confidence : float
        Confidence level, in (0, 1).
    variance_factor : float, default=None
        Replaces 1 / n in the squared standard error.

    Returns
    -------
    ci_low, ci_high : ndarray of shape (n_columns,)
        NaN for fewer than 2 rows.
    """
    columns = _as_columns(x, "x")
    n, n_columns = columns.shape
    if n < 2:
        return np.full(n_columns, np.nan), np.full(n_columns, np.nan)
    mean, variance = _mean_and_variance(columns)
    if variance_factor is None:
        standard_error = np.sqrt(variance / n)  # scipy's operations, to the bit
    else:
        standard_error = np.sqrt(variance * variance_factor)
    tail = (1 - confidence) / 2
    quantile_low, quantile_high = stats.t.ppf(np.array([tail, 1 - tail]), n - 1)
    return quantile_low * standard_error + mean, quantile_high * standard_error + mean
