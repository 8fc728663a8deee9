"""The mathematics of sampled-negative evaluation: how a positive's sampled rank depends on
its exact rank, and the corrected estimators of the full-catalogue metric.

One positive among ``n_negatives`` negatives of the catalogue, ``above`` of them scored
above it (its exact rank among the negatives and itself is ``above + 1``). A sampled
evaluation draws ``m`` of the negatives uniformly, with or without replacement, and sees
``x``, the number of sampled negatives scored above the positive:
``Binomial(m, above / n_negatives)`` or ``Hypergeom(n_negatives, above, m)``. A correction
is a vector ``v`` of length ``m + 1`` used in place of the metric: the estimate for the
positive is ``v[x]`` (for a positive tied with sampled negatives, the mean of ``v`` over
the tied positions). docs/sampled.md says when each is unbiased; the spec's part A derives
the forms (Krichene & Rendle, KDD 2020; Li et al., AAAI 2023's code for the EM).
"""

import numpy as np

# EM steps from the uniform start (the maximum-likelihood rank distribution is not unique:
# the result depends on both; Li et al.'s code takes 100).
_EM_STEPS = 100


def _sampled_rank_matrix(n_negatives, m, replacement):
    """``A[above, x] = P(x sampled negatives above | above catalogue negatives above)``,
    shape (n_negatives + 1, m + 1).

    Written with a table of log-factorials over the whole matrix at once: scipy.stats'
    pmfs take a second for a catalogue of thousands, and a call builds one matrix per
    distinct catalogue size.
    """
    above = np.arange(n_negatives + 1)[:, None]
    x = np.arange(m + 1)[None, :]
    from scipy import special  # (imported here: scipy.special takes ~50 ms to import)

    log_factorial = special.gammaln(np.arange(max(n_negatives, m) + 1, dtype=np.float64) + 1.0)
    log_choose_m = log_factorial[m] - log_factorial[x] - log_factorial[m - x]
    if replacement:
        if n_negatives == 0:
            return (x == 0).astype(np.float64)
        p = above / n_negatives
        with np.errstate(divide="ignore", invalid="ignore"):  # 0 log 0 is 0: set below
            log_p, log_q = np.log(p), np.log1p(-p)
            log_pmf = log_choose_m + np.where(x > 0, x * log_p, 0.0)
            log_pmf += np.where(m - x > 0, (m - x) * log_q, 0.0)
        return np.exp(log_pmf)
    below = n_negatives - above
    possible = (x <= above) & (m - x <= below) & (m <= n_negatives)
    # C(above, x) C(below, m - x) / C(N, m), as factorials: entries that cannot happen
    # read index 0 and are set to 0 after.
    top, rest = np.where(possible, above - x, 0), np.where(possible, below - m + x, 0)
    log_pmf = (
        log_factorial[above]
        - log_factorial[top]
        + log_factorial[below]
        - log_factorial[rest]
        + log_choose_m
        - (log_factorial[n_negatives] - log_factorial[max(n_negatives - m, 0)])
    )
    return np.where(possible, np.exp(np.where(possible, log_pmf, -np.inf)), 0.0)


def _bias_variance_solver(matrix, prior, gamma):
    """A function of the exact metric ``b`` (per exact rank, one column per target) that
    returns the correction ``v`` minimising ``sum_R prior(R) [(E[v_x | R] - b(R))^2 +
    gamma Var[v_x | R]]``: ``v = ((1 - gamma) A^T D A + gamma diag(A^T prior))^-1 A^T D b``,
    D = diag(prior). ``gamma = 1`` is the posterior mean ``E[b(R) | x]`` under the prior;
    ``gamma = 0`` the least-squares minimal-bias correction (solved on sqrt(D) A, as
    A^T D A is ill-conditioned)."""
    weighted = matrix * prior[:, None]  # D A
    observed = weighted.sum(axis=0)  # the marginal probability of each sampled rank
    if gamma == 1.0:
        # A sampled rank the prior never gives has no posterior: 0 there (never observed).
        seen = observed > 0
        scale = np.divide(1.0, observed, out=np.zeros_like(observed), where=seen)
        return lambda targets: (weighted.T @ targets) * scale[:, None]
    if gamma == 0.0:
        root = np.sqrt(prior)[:, None]
        return lambda targets: np.linalg.lstsq(matrix * root, targets * root, rcond=None)[0]
    system = (1.0 - gamma) * (matrix.T @ weighted) + gamma * np.diag(observed)
    return lambda targets: np.linalg.solve(system, weighted.T @ targets)


def _em_prior(matrix, observations, counts, steps=_EM_STEPS):
    """The maximum-likelihood distribution of the exact rank (over ``above`` = 0..N) of the
    positives observed, by EM from the uniform start: ``pi <- mean_u posterior_u``.

    observations : (n_kinds, N + 1) likelihood of each kind of observation per exact rank.
    counts : (n_kinds,) how many positives made each kind of observation.
    """
    prior = np.full(matrix.shape[0], 1.0 / matrix.shape[0])
    share = counts / counts.sum()
    for _ in range(steps):  # a loop over EM steps, each over every observation at once
        joint = observations * prior[None, :]
        evidence = joint.sum(axis=1, keepdims=True)
        evidence[evidence == 0] = 1.0
        prior = share @ (joint / evidence)
    return prior


def _expected_sampled(matrix, values):
    """E[metric of the sampled list | exact rank], per exact rank: ``A @ values``, with
    ``values`` (length m + 1) the metric at each sampled rank."""
    return matrix @ values
