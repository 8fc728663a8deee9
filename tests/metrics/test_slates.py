"""The slate estimators (SIPS, IIPS, RIPS): the spec's worked example (SAMPLED_AND_CLICKS.md
B.3), self-normalisation as Open Bandit Pipeline 0.5.7 does it, unbiasedness by seeded
Monte-Carlo simulation of slate logs, and the input checks obp makes."""

import itertools

import numpy as np
import pytest

import sklearn_rank as sr


def _plackett_luce(weights, slate):
    """Probability of ``slate`` (a tuple of actions) under Plackett-Luce ``weights``, and the
    probability of each prefix."""
    left, prefix, probability = 1.0, [], 1.0
    for action in slate:
        probability *= weights[action] / left
        left -= weights[action]
        prefix.append(probability)
    return probability, prefix


BEHAVIOUR = np.array([0.5, 0.3, 0.2])
EVALUATION = np.array([0.2, 0.3, 0.5])
SLATES = list(itertools.permutations(range(3), 2))


def _marginal(weights, action, slot):
    return sum(_plackett_luce(weights, s)[0] for s in SLATES if s[slot] == action)


def _pscores(slate):
    """Per slot of ``slate``: (joint, prefix, item-position) under behaviour and evaluation."""
    rows = []
    for slot, action in enumerate(slate):
        rows.append(
            {
                "sips": (_plackett_luce(BEHAVIOUR, slate)[0], _plackett_luce(EVALUATION, slate)[0]),
                "rips": (
                    _plackett_luce(BEHAVIOUR, slate)[1][slot],
                    _plackett_luce(EVALUATION, slate)[1][slot],
                ),
                "iips": (_marginal(BEHAVIOUR, action, slot), _marginal(EVALUATION, action, slot)),
            }
        )
    return rows


def _value(slate_rewards, estimator, self_normalized=False):
    """slate_policy_value of logged ``slate_rewards``: a list of (slate, rewards)."""
    rows = [
        (number, slot, reward, pscores[estimator])
        for number, (slate, rewards) in enumerate(slate_rewards)
        for slot, (reward, pscores) in enumerate(zip(rewards, _pscores(slate)))
    ]
    slate_id, position, reward, pscores = zip(*rows)
    behavior, evaluation = zip(*pscores)
    return sr.slate_policy_value(
        reward,
        slate_id,
        position,
        behavior,
        evaluation,
        estimator=estimator,
        self_normalized=self_normalized,
    )


def test_worked_example_b3():
    log = [((0, 1), (1, 1))]
    assert _plackett_luce(BEHAVIOUR, (0, 1))[0] == pytest.approx(0.3)
    assert _plackett_luce(EVALUATION, (0, 1))[0] == pytest.approx(0.075)
    assert _value(log, "sips") == pytest.approx(0.5, abs=1e-15)
    assert _value(log, "rips") == pytest.approx(0.65, abs=1e-15)
    assert _value(log, "iips") == pytest.approx(1.4, abs=1e-15)


def test_self_normalisation_as_obp():
    # SNSIPS: every weight over the mean weight of all rows; SNIIPS / SNRIPS: over the mean
    # weight of the rows at the same position.
    reward = np.array([1.0, 0.0, 1.0, 1.0, 0.0, 1.0])
    slate_id = np.array([7, 7, 3, 3, 5, 5])
    position = np.array([0, 1, 0, 1, 0, 1])
    behavior = np.array([0.3, 0.3, 0.2, 0.2, 0.1, 0.1])
    evaluation = np.array([0.1, 0.1, 0.3, 0.3, 0.05, 0.05])
    weight = evaluation / behavior
    expected = (reward * weight / weight.mean()).sum() / 3
    got = sr.slate_policy_value(
        reward, slate_id, position, behavior, evaluation, self_normalized=True
    )
    assert got == pytest.approx(expected, rel=1e-15)
    prefix_b = np.array([0.5, 0.3, 0.4, 0.2, 0.3, 0.1])
    prefix_e = np.array([0.2, 0.1, 0.6, 0.3, 0.1, 0.05])
    weight = prefix_e / prefix_b
    mean = np.array([weight[position == p].mean() for p in position])
    expected = (reward * weight / mean).sum() / 3
    got = sr.slate_policy_value(
        reward, slate_id, position, prefix_b, prefix_e, estimator="rips", self_normalized=True
    )
    assert got == pytest.approx(expected, rel=1e-15)


@pytest.mark.parametrize("estimator", ["sips", "iips", "rips"])
def test_unbiased_on_simulated_logs(estimator):
    # Item-position click model: slot l of a slate is clicked with probability q[item, l]
    # (a case of the cascade model too), so all three estimators are unbiased.
    q = np.array([[0.6, 0.3], [0.4, 0.2], [0.9, 0.5]])
    truth = sum(_plackett_luce(EVALUATION, s)[0] * (q[s[0], 0] + q[s[1], 1]) for s in SLATES)
    rng = np.random.default_rng({"sips": 0, "iips": 1, "rips": 2}[estimator])
    behaviour = np.array([_plackett_luce(BEHAVIOUR, s)[0] for s in SLATES])
    estimates = []
    for _ in range(200):
        drawn = rng.choice(len(SLATES), size=300, p=behaviour)
        log = []
        for index in drawn:
            slate = SLATES[index]
            clicks = rng.random(2) < [q[slate[0], 0], q[slate[1], 1]]
            log.append((slate, clicks.astype(float)))
        estimates.append(_value(log, estimator))
    mean, se = np.mean(estimates), np.std(estimates, ddof=1) / np.sqrt(len(estimates))
    assert abs(mean - truth) < 3 * se, (mean, truth, se)


def test_inputs_checked_as_obp_does():
    args = ([1, 1], [0, 0], [0, 1])
    with pytest.raises(ValueError, match="same on every row of a slate"):
        sr.slate_policy_value(*args, [0.3, 0.2], [0.1, 0.1])
    with pytest.raises(ValueError, match="must not increase down a slate"):
        sr.slate_policy_value(*args, [0.3, 0.4], [0.1, 0.1], estimator="rips")
    with pytest.raises(ValueError, match="position must not repeat within a slate"):
        sr.slate_policy_value([1, 1], [0, 0], [1, 1], [0.3, 0.3], [0.1, 0.1])
    with pytest.raises(ValueError, match=r"behavior_pscore must be probabilities in \(0, 1\]"):
        sr.slate_policy_value(*args, [0.0, 0.0], [0.1, 0.1])
    with pytest.raises(ValueError, match="estimator must be 'sips', 'iips' or 'rips'"):
        sr.slate_policy_value(*args, [0.3, 0.3], [0.1, 0.1], estimator="dr")
    with pytest.raises(ValueError, match=r"evaluation_pscore must have shape \(2,\)"):
        sr.slate_policy_value(*args, [0.3, 0.3], [0.1])
