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
from scipy import stats

# EM steps from the uniform start (the maximum-likelihood rank distribution is not unique:
# the result depends on both; Li et al.'s code takes 100).
_EM_STEPS = 100


def _sampled_rank_matrix(n_negatives, m, replacement):
    """``A[above, x] = P(x sampled negatives above | above catalogue negatives above)``,
    shape (n_negatives + 1, m + 1)."""
    above = np.arange(n_negatives + 1)[:, None]
    x = np.arange(m + 1)[None, :]
    if replacement:
        if n_negatives == 0:
            return np.ones((1, m + 1)) * (x == 0)
        return stats.binom.pmf(x, m, above / n_negatives)
    return stats.hypergeom.pmf(x, n_negatives, above, m)


def _bias_variance_weights(matrix, prior, gamma):
    """``W`` with ``v = W @ b`` the correction of the exact metric ``b`` (per exact rank)
    that minimises ``sum_R prior(R) [(E[v_x | R] - b(R))^2 + gamma Var[v_x | R]]``: the
    closed form ``((1 - gamma) A^T D A + gamma diag(A^T prior))^-1 A^T D``, D = diag(prior).
    ``gamma = 1`` is the posterior mean ``E[b(R) | x]`` under the prior."""
    weighted = matrix * prior[:, None]  # D A
    observed = weighted.sum(axis=0)  # marginal probability of each sampled rank
    if gamma == 1.0:
        # The posterior mean, written out: no system to solve. A sampled rank the prior
        # never gives has no posterior: 0 there (it is never observed under that prior).
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(observed[:, None] > 0, weighted.T / observed[:, None], 0.0)
    system = (1.0 - gamma) * (matrix.T @ weighted) + gamma * np.diag(observed)
    if gamma == 0.0:
        # The minimal-bias solution: least squares on sqrt(D) A (A^T D A is ill-conditioned).
        root = np.sqrt(prior)[:, None]
        return np.linalg.pinv(matrix * root) * root.T
    return np.linalg.solve(system, weighted.T)


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
