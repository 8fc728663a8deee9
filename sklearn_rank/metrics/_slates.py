"""Off-policy value of a slate (ranking) policy from a log of slates: the standard,
independent and reward-interaction IPS estimators (SIPS, IIPS, RIPS) and their
self-normalised forms, as Open Bandit Pipeline 0.5.7 defines them
(`obp/ope/estimators_slate.py`: `SlateStandardIPS`, `SlateIndependentIPS`,
`SlateRewardInteractionIPS` and their `SelfNormalized` classes).

A log row is one slot of one logged slate: its slate id, its position, its reward, and the
probabilities of the logged choice under the behaviour (logging) and the evaluation policy.
The estimate of the evaluation policy's expected sum of slot rewards per slate is
``(1/n_slates) sum over rows of reward * pi_e / pi_b``; the estimators differ in which
probability each row carries (docs/clicks.md).
"""

import numpy as np

from ..utils._validation import _as_float_array, _check_finite

_ESTIMATORS = ("sips", "iips", "rips")


def _positions(position, n):
    array = np.asarray(position)
    if array.shape != (n,):
        raise ValueError(f"position must have shape ({n},), one per row; got {array.shape}.")
    return array


def slate_policy_value(
    reward,
    slate_id,
    position,
    behavior_pscore,
    evaluation_pscore,
    *,
    estimator="sips",
    self_normalized=False,
):
    """The value of an evaluation policy's slates estimated from a log of slates.

    ``V = (1/n) sum over logged rows of r_i(l) * w_i(l)``, n the number of logged slates,
    ``r_i(l)`` the reward of slot l of slate i and ``w = pi_e / pi_b`` its importance weight,
    whose probabilities depend on the ``estimator`` (Open Bandit Pipeline's definitions):

    - ``"sips"`` (standard IPS, McInerney et al. 2020): the joint probability of the whole
      slate, the same on every row of a slate. Unbiased when ``pi_b > 0`` wherever
      ``pi_e > 0``.
    - ``"iips"`` (independent IPS, Li et al. 2018): the marginal probability that the row's
      item is at its position. Unbiased when, besides, a slot's reward depends only on the
      item there (item-position model).
    - ``"rips"`` (reward-interaction IPS, McInerney et al. 2020's cascade assumption): the
      probability of the slate's prefix down to the row's position, non-increasing down
      the slate. Unbiased when, besides, a slot's reward depends only on the items at and
      above it (cascade model).

    ``self_normalized=True`` divides every weight by the mean weight of all rows (SNSIPS) or
    of the rows at the same position (SNIIPS, SNRIPS): biased, consistent, often of lower
    variance.

    Parameters
    ----------
    reward : array-like of shape (n_rows,)
        Each logged slot's reward (a click, say).
    slate_id : array-like of shape (n_rows,)
        The logged slate of each row (any hashable ids).
    position : array-like of shape (n_rows,)
        The slot of each row in its slate, each at most once per slate.
    behavior_pscore : array-like of shape (n_rows,)
        The probability of the row's logged choice under the logging policy, in (0, 1].
    evaluation_pscore : array-like of shape (n_rows,)
        The same probability under the evaluation policy, in [0, 1].
    estimator : {"sips", "iips", "rips"}, default="sips"
        Which probabilities the pscores are (see above); checked as Open Bandit Pipeline
        checks them (constant within a slate for SIPS, non-increasing down it for RIPS).
    self_normalized : bool, default=False
        Use the self-normalised weights.

    Returns
    -------
    value : float
        The estimated expected sum of slot rewards of a slate of the evaluation policy.

    References
    ----------
    .. [1] J. McInerney, B. Brost, P. Chandar, R. Mehrotra and B. Carterette,
       "Counterfactual Evaluation of Slate Recommendations with Sequential Reward
       Interactions", KDD 2020.
    .. [2] S. Li, Y. Abbasi-Yadkori, B. Kveton, S. Muthukrishnan, V. Vinay and Z. Wen,
       "Offline Evaluation of Ranking Policies with Click Models", KDD 2018.
    .. [3] Y. Saito, S. Aihara, M. Matsutani and Y. Narita, "Open Bandit Dataset and
       Pipeline: Towards Realistic and Reproducible Off-Policy Evaluation", NeurIPS 2021
       Datasets and Benchmarks.

    Examples
    --------
    >>> from sklearn_rank import slate_policy_value
    >>> slate_policy_value([1, 1], [0, 0], [0, 1], [0.3, 0.3], [0.075, 0.075])
    0.5
    >>> slate_policy_value([1, 1], [0, 0], [0, 1], [0.5, 0.3], [0.2, 0.075], estimator="rips")
    0.65
    """
    if estimator not in _ESTIMATORS:
        raise ValueError(f"estimator must be 'sips', 'iips' or 'rips'; got {estimator!r}.")
    if not isinstance(self_normalized, (bool, np.bool_)):
        raise ValueError(f"self_normalized must be True or False; got {self_normalized!r}.")
    reward = _as_float_array("reward", reward)
    if reward.ndim != 1 or reward.size == 0:
        raise ValueError(f"reward must be a non-empty 1-D array; got shape {reward.shape}.")
    _check_finite("reward", reward)
    n = reward.size
    arrays = {}
    for name, values, low in (
        ("behavior_pscore", behavior_pscore, "(0, 1]"),
        ("evaluation_pscore", evaluation_pscore, "[0, 1]"),
    ):
        array = _as_float_array(name, values).astype(np.float64, copy=False)
        if array.shape != (n,):
            raise ValueError(f"{name} must have shape ({n},), one per row; got {array.shape}.")
        _check_finite(name, array)
        bad = (array > 1) | ((array <= 0) if low == "(0, 1]" else (array < 0))
        if bad.any():
            raise ValueError(f"{name} must be probabilities in {low}; got {array[bad][0]!r}.")
        arrays[name] = array
    slates = np.unique(np.asarray(slate_id), return_inverse=True)[1].reshape(-1)
    if slates.shape != (n,):
        raise ValueError(f"slate_id must have shape ({n},), one per row; got {slates.shape}.")
    slots = np.unique(_positions(position, n), return_inverse=True)[1].reshape(-1)
    pairs = slates * (slots.max() + 1) + slots
    if np.unique(pairs).size != n:
        raise ValueError("position must not repeat within a slate.")
    behavior, evaluation = arrays["behavior_pscore"], arrays["evaluation_pscore"]
    if estimator == "sips":
        for name, array in (("behavior_pscore", behavior), ("evaluation_pscore", evaluation)):
            low = np.full(slates.max() + 1, np.inf)
            high = np.full(slates.max() + 1, -np.inf)
            np.minimum.at(low, slates, array)
            np.maximum.at(high, slates, array)
            if (low != high).any():
                raise ValueError(
                    f"{name} must be the same on every row of a slate for estimator='sips' "
                    "(the joint probability of the slate)."
                )
    if estimator == "rips":
        order = np.lexsort((slots, slates))
        for name, array in (("behavior_pscore", behavior), ("evaluation_pscore", evaluation)):
            ordered = array[order]
            same_slate = slates[order][1:] == slates[order][:-1]
            if (same_slate & (ordered[1:] > ordered[:-1])).any():
                raise ValueError(
                    f"{name} must not increase down a slate for estimator='rips' (the "
                    "probability of the prefix down to each position)."
                )
    weight = evaluation / behavior
    if self_normalized:
        if estimator == "sips":
            weight = weight / weight.mean()
        else:
            mean = np.bincount(slots, weights=weight) / np.bincount(slots)
            weight = weight / mean[slots]
    return float((reward * weight).sum() / (slates.max() + 1))
