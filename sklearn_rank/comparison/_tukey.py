"""The randomised Tukey HSD over k systems (Carterette 2012, Sakai 2014).

Draws are made in blocks as in ``_resampling``, whose block budget and tolerance it uses.
"""

import numpy as np

from ._resampling import _RELATIVE_TOLERANCE, _blocks, _rows_per_block
from ._stats import _as_columns


def _random_permutation_blocks(rng, n_rows, n_columns, n_resamples, block_size):
    """Yield blocks of independent uniform permutations of each row.

    ``rng.permuted`` shuffles the rows one after the other with the Generator's state
    carried between calls, so a block of draws is the same stream as one
    ``rng.permuted(M, axis=1)`` per draw, for any block size (the stream of the spec's
    reference values; checked by a test). It is also several times faster than an argsort
    of random keys.

    Parameters
    ----------
    rng : numpy.random.Generator
    n_rows, n_columns, n_resamples, block_size : int
        Topics, systems, draws, draws per block.

    Yields
    ------
    ndarray of int64, shape (rows, n_rows, n_columns)
    """
    identity = np.arange(n_columns)
    for start, stop in _blocks(n_resamples, block_size):
        yield rng.permuted(np.broadcast_to(identity, (stop - start, n_rows, n_columns)), axis=2)


def _tukey_exceedances(values, permutation_blocks):
    """Count #{b : range_b >= D_ij - tau} for every pair, and the number of draws B.

    Parameters
    ----------
    values : ndarray of shape (n_topics, n_systems)
        Complete per-topic values of every system.
    permutation_blocks : iterable of int ndarray of shape (rows, n_topics, n_systems)
        Each draw gives, for every topic, the permutation of systems applied to that row
        (the permuted row is ``values[t, perm[t]]``).

    Returns
    -------
    counts : ndarray of int64, shape (n_systems, n_systems)
    n_draws : int
    """
    n_topics, n_systems = values.shape
    means = values.sum(axis=0) / n_topics
    observed = np.abs(means[:, np.newaxis] - means[np.newaxis, :])
    row_starts = (np.arange(n_topics) * n_systems)[:, np.newaxis]
    flat_values = values.ravel()
    ranges = []
    for permutations in permutation_blocks:
        permuted_means = flat_values[permutations + row_starts].sum(axis=1) / n_topics
        ranges.append(permuted_means.max(axis=1) - permuted_means.min(axis=1))
    ranges = np.sort(np.concatenate(ranges)) if ranges else np.empty(0)
    threshold = observed - _RELATIVE_TOLERANCE * observed
    below = np.searchsorted(ranges, threshold.ravel(), side="left").reshape(observed.shape)
    return (ranges.size - below).astype(np.int64), ranges.size


def _tukey_hsd_randomised(X, n_resamples, rng, *, block_size=None):
    """Randomised Tukey HSD: paired multiple comparison of k systems over the same topics.

    Each draw permutes every topic's row independently across the systems (the topic
    effect stays, system labels are exchangeable under H0) and takes the range of the
    column means; p_ij = (1 + #{range_b >= D_ij - tau}) / (1 + B) with
    D_ij = |mean_i - mean_j| and tau = 100 eps D_ij. The max-range statistic controls the
    family-wise error over all pairs: do not correct these p-values again. With two
    systems it is the Monte Carlo sign-flip test. Carterette, Sakai and elinor report
    #/B. Each draw is ``rng.permuted(X, axis=1)``, so from ``np.random.default_rng(0)``
    and B = 10,000 the counts are those of the spec's section 9 (3019, 1004, 8891).

    Parameters
    ----------
    X : array-like of shape (n_topics, n_systems)
        Complete rows only (see :func:`~sklearn_rank.comparison._stats._complete_rows`).
    n_resamples : int
        Number of draws B.
    rng : numpy.random.Generator
        Source of the permutations.
    block_size : int or None, default=None
        Draws per block; by default about 32 MB of temporaries per block. Results do not
        depend on it.

    Returns
    -------
    ndarray of shape (n_systems, n_systems)
        Symmetric, p_ii = 1; the pairs are ``np.triu_indices(n_systems, 1)``.

    Raises
    ------
    ValueError
        If there is no topic or fewer than two systems.

    References
    ----------
    B. Carterette, "Multiple testing in statistical analysis of systems-based information
    retrieval experiments", ACM TOIS 30(1), 2012.
    T. Sakai, "Statistical reform in information retrieval?", SIGIR Forum 48(1), 2014.
    """
    values = _as_columns(X, "X")
    n_topics, n_systems = values.shape
    if n_topics == 0 or n_systems < 2:
        raise ValueError(
            f"X must have at least one topic and two systems; got shape {values.shape}."
        )
    rng = np.random.default_rng(rng)
    # Three (rows, n_topics, n_systems) arrays live at once: permutations, flat indices
    # and permuted values.
    block_rows = _rows_per_block(block_size, 3 * n_topics * n_systems)
    permutations = _random_permutation_blocks(rng, n_topics, n_systems, n_resamples, block_rows)
    counts, n_draws = _tukey_exceedances(values, permutations)
    return (1 + counts) / (1 + n_draws)
