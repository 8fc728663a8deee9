"""The click-log (IPS) estimators: the spec's worked example (SAMPLED_AND_CLICKS.md B.1),
unbiasedness by seeded Monte-Carlo simulation of click logs (B.4), the biases documented
for the self-normalised and clipped forms, tie averaging against every ordering, and the
side inputs' checks."""

import itertools

import numpy as np
import pytest

import sklearn_rank as sr

# B.1: one query, logged order (a, b, c), eta = 1; clicks on b and c; new ranking (c, a, b).
CLICKS = [[0, 1, 1]]
NEW = [[2.0, 1.0, 3.0]]
POSITION = [[1, 2, 3]]
PROPENSITY = [[1.0, 1 / 2, 1 / 3]]


def test_worked_example_b1():
    by_position = {"position": POSITION, "eta": 1.0}
    assert sr.ips_dcg_score(CLICKS, NEW, k=2, **by_position) == 3.0
    assert sr.ips_dcg_score(CLICKS, NEW, k=3, **by_position) == pytest.approx(4.0, abs=1e-15)
    assert sr.ips_precision_score(CLICKS, NEW, k=2, **by_position) == 1.5
    assert sr.ips_rank_sum(CLICKS, NEW, **by_position) == 9.0
    assert sr.ips_hits_score(CLICKS, NEW, **by_position) == 5.0  # estimated relevant items
    recall = sr.ips_hits_score(CLICKS, NEW, k=2, normalize="per_query", **by_position)
    assert recall == pytest.approx(0.6, abs=1e-15)
    clipped = sr.ips_dcg_score(CLICKS, NEW, k=3, max_weight=2, **by_position)
    assert clipped == pytest.approx(3.0, abs=1e-15)
    # Propensities given per row are the same model.
    results = sr.evaluate(
        CLICKS,
        NEW,
        ["ips_dcg@2", "ips_dcg@3", "ips_precision@2", "ips_rank_sum"],
        propensity=PROPENSITY,
    )
    assert results == pytest.approx(
        {"ips_dcg@2": 3.0, "ips_dcg@3": 4.0, "ips_precision@2": 1.5, "ips_rank_sum": 9.0},
        abs=1e-14,
    )
    # Names carry the parameters too.
    named = sr.evaluate(
        CLICKS, NEW, ["ips_dcg(eta=1, max_weight=2)@3", "ips_hits(eta=1)"], position=POSITION
    )
    assert named == pytest.approx(
        {"ips_dcg(eta=1, max_weight=2)@3": 3.0, "ips_hits(eta=1)": 5.0}, abs=1e-14
    )


# B.4: 5 queries x 8 documents, binary relevance; the new ranking's positions; the logging
# ranker shows document j at position j + 1.
REL = np.array(
    [
        [1, 0, 1, 0, 0, 0, 1, 0],
        [0, 0, 0, 1, 0, 0, 0, 0],
        [1, 1, 0, 0, 1, 0, 0, 1],
        [0, 1, 0, 0, 0, 0, 0, 1],
        [0, 0, 0, 0, 1, 1, 0, 0],
    ]
)
NEW_POSITIONS = np.array(
    [
        [3, 5, 1, 6, 4, 8, 7, 2],
        [2, 3, 4, 1, 5, 6, 7, 8],
        [1, 2, 7, 6, 3, 5, 4, 8],
        [8, 1, 7, 6, 5, 4, 3, 2],
        [5, 1, 7, 8, 2, 6, 3, 4],
    ]
)
LOGGED = np.tile(np.arange(1, 9), (5, 1))
NAMES = ["ips_dcg@5", "ips_precision@5", "ips_hits@5", "ips_rank_sum"]
# The full-information values (the spec's "truth"), from the metrics on the relevance.
TRUTH = {"ips_dcg@5": 1.37856, "ips_precision@5": 0.36, "ips_hits@5": 1.8, "ips_rank_sum": 7.4}


def _logs(n_logs, eta, seed, eps_plus=1.0, eps_minus=0.0):
    """``n_logs`` simulated logs of one session per query, stacked as queries."""
    rng = np.random.default_rng(seed)
    theta = (1.0 / LOGGED) ** eta
    click_rate = theta * (eps_plus * REL + eps_minus * (1 - REL))
    clicks = rng.random((n_logs, *REL.shape)) < click_rate
    scores = np.tile(-NEW_POSITIONS.astype(float), (n_logs, 1))
    return clicks.reshape(-1, REL.shape[1]).astype(int), scores, np.tile(LOGGED, (n_logs, 1))


def _per_log(values, n_logs):
    """Each log's estimate: the mean over its 5 queries; their mean and standard error."""
    per_log = np.asarray(values).reshape(n_logs, REL.shape[0]).mean(axis=1)
    return per_log.mean(), per_log.std(ddof=1) / np.sqrt(n_logs)


def test_truth_is_the_metric_of_the_relevance():
    scores = -NEW_POSITIONS.astype(float)
    assert sr.dcg_score(REL, scores, k=5) == pytest.approx(TRUTH["ips_dcg@5"], abs=5e-6)
    assert sr.precision_at_k_score(REL, scores, k=5) == pytest.approx(0.36)
    # With every item examined (propensity 1) the estimators are the metrics themselves.
    full = sr.evaluate(REL, scores, NAMES, propensity=np.ones(REL.shape))
    assert full["ips_dcg@5"] == sr.dcg_score(REL, scores, k=5)
    assert full == pytest.approx(TRUTH, abs=5e-6)


@pytest.mark.parametrize("eta", [0.5, 1.0, 2.0])
def test_ips_is_unbiased(eta):
    n_logs = 20_000
    clicks, scores, logged = _logs(n_logs, eta, seed=int(eta * 10))
    # eta travels in the names given to evaluate (the keyword is the functions').
    named = [
        f"{n.split('@')[0]}(eta={eta})" + (f"@{n.split('@')[1]}" if "@" in n else "") for n in NAMES
    ]
    values = sr.evaluate(clicks, scores, named, position=logged, per_query=True)
    for name, label in zip(NAMES, named):
        mean, se = _per_log(values[label], n_logs)
        assert abs(mean - TRUTH[name]) < 3 * se, (name, mean, se)


def _recall_at_5(clicks, scores, propensity):
    """Per query: IPS hits@5, the estimated number of relevant items, and the
    self-normalised recall@5."""
    values = sr.evaluate(
        clicks,
        scores,
        ["ips_hits@5", "ips_hits", "ips_hits(normalize='per_query')@5"],
        propensity=propensity,
        per_query=True,
        no_relevant="skip",
    )
    return values["ips_hits@5"], values["ips_hits"], values["ips_hits(normalize='per_query')@5"]


def test_self_normalised_per_query_is_biased_upwards_and_pooled_is_not():
    # B.4, eta = 1: per-query self-normalisation gives 0.888 for a true recall@5 of
    # 0.78333; the pooled ratio (sums over every session first) is consistent.
    n_logs = 20_000
    clicks, scores, logged = _logs(n_logs, 1.0, seed=7)
    true_recall = np.mean(sr.recall_at_k_score(REL, -NEW_POSITIONS, k=5, per_query=True))
    assert true_recall == pytest.approx(0.78333, abs=5e-6)
    hits, relevant, per_query = _recall_at_5(clicks, scores, 1.0 / logged)
    with_clicks = ~np.isnan(per_query)
    assert np.all((relevant > 0) == with_clicks)  # queries without a click have no value
    # Each log's value: the mean over its queries with a click (B.4's protocol).
    per_log = np.nanmean(per_query.reshape(n_logs, REL.shape[0]), axis=1)
    self_normalised = per_log.mean()
    se = per_log.std(ddof=1) / np.sqrt(n_logs)
    assert self_normalised > true_recall + 0.09  # the documented direction: upwards
    assert abs(self_normalised - 0.88841) < 3 * se + 3 * 0.00016
    # Pooled: per query, numerator and denominator summed over its sessions (here one per
    # log) before dividing; consistent. Its error by the delta method.
    hits, relevant = (v.reshape(n_logs, REL.shape[0]) for v in (hits, relevant))
    ratio = hits.mean(axis=0) / relevant.mean(axis=0)
    pooled = ratio.mean()
    influence = ((hits - ratio * relevant) / relevant.mean(axis=0)).mean(axis=1)
    se = influence.std(ddof=1) / np.sqrt(n_logs)
    assert abs(pooled - true_recall) < 3 * se
    # Summed over every query instead, it is the micro recall 9 / 12, another quantity.
    assert hits.sum() / relevant.sum() == pytest.approx(0.75, abs=6 * se)


def test_click_noise_gives_the_click_relevance_and_denoising_removes_it():
    n_logs = 20_000
    eps_plus, eps_minus = 0.8, 0.1
    clicks, scores, logged = _logs(n_logs, 1.0, seed=3, eps_plus=eps_plus, eps_minus=eps_minus)
    click_relevance = eps_plus * REL + eps_minus * (1 - REL)
    noisy_truth = sr.dcg_score(click_relevance, -NEW_POSITIONS, k=5)
    assert noisy_truth == pytest.approx(1.25984, abs=5e-6)
    plain = sr.ips_dcg_score(clicks, scores, k=5, position=logged, eta=1.0, per_query=True)
    mean, se = _per_log(plain, n_logs)
    assert abs(mean - noisy_truth) < 3 * se
    denoised = sr.ips_dcg_score(
        clicks,
        scores,
        k=5,
        position=logged,
        eta=1.0,
        eps_plus=eps_plus,
        eps_minus=eps_minus,
        per_query=True,
    )
    mean, se = _per_log(denoised, n_logs)
    assert abs(mean - TRUTH["ips_dcg@5"]) < 3 * se
    hits = sr.ips_hits_score(
        clicks,
        scores,
        k=5,
        position=logged,
        eta=1.0,
        eps_plus=eps_plus,
        eps_minus=eps_minus,
        per_query=True,
    )
    mean, se = _per_log(hits, n_logs)
    assert abs(mean - TRUTH["ips_hits@5"]) < 3 * se


def test_denoising_equals_the_sum_over_every_displayed_item():
    # (c / theta - eps_minus) / (eps_plus - eps_minus) summed over all displayed items,
    # written out for one log.
    clicks, scores, logged = _logs(1, 1.0, seed=11, eps_plus=0.9, eps_minus=0.2)
    lam = np.where(NEW_POSITIONS <= 5, 1.0 / np.log2(NEW_POSITIONS + 1.0), 0.0)
    expected = (lam * (clicks * logged - 0.2) / (0.9 - 0.2)).sum(axis=1)
    got = sr.ips_dcg_score(
        clicks,
        scores,
        k=5,
        position=logged,
        eta=1.0,
        eps_plus=0.9,
        eps_minus=0.2,
        per_query=True,
    )
    np.testing.assert_allclose(got, expected, rtol=1e-13)


def test_clipping_is_biased_down_as_documented():
    # Expectation sum_d lambda rel min(1, theta M): 1.06138 for eta = 2, M = 10.
    theta = (1.0 / LOGGED) ** 2
    lam = np.where(NEW_POSITIONS <= 5, 1.0 / np.log2(NEW_POSITIONS + 1.0), 0.0)
    expected = (lam * REL * np.minimum(1.0, theta * 10)).sum(axis=1).mean()
    assert expected == pytest.approx(1.06138, abs=5e-6)
    n_logs = 20_000
    clicks, scores, logged = _logs(n_logs, 2.0, seed=5)
    clipped = sr.ips_dcg_score(
        clicks, scores, k=5, position=logged, eta=2.0, max_weight=10, per_query=True
    )
    mean, se = _per_log(clipped, n_logs)
    assert abs(mean - expected) < 3 * se
    assert mean < TRUTH["ips_dcg@5"] - 10 * se


def test_items_never_displayed_are_lost():
    # Only the top 5 of the log displayed: the estimate is the DCG over displayed items.
    n_logs = 20_000
    clicks, scores, logged = _logs(n_logs, 1.0, seed=9)
    propensity = np.where(logged <= 5, 1.0 / logged, 0.0)
    clicks = clicks * (logged <= 5)
    values = sr.ips_dcg_score(clicks, scores, k=5, propensity=propensity, per_query=True)
    mean, se = _per_log(values, n_logs)
    displayed = sr.dcg_score(REL * (LOGGED <= 5), -NEW_POSITIONS, k=5)
    assert displayed == pytest.approx(1.25237, abs=5e-6)
    assert abs(mean - displayed) < 3 * se


@pytest.mark.parametrize("name", ["ips_dcg@3", "ips_precision@2", "ips_hits@3", "ips_rank_sum"])
def test_tied_scores_give_the_mean_over_every_ordering(name):
    rng = np.random.default_rng(2)
    clicks = np.array([[1, 0, 1, 1, 0, 1]])
    scores = np.array([[2.0, 1.0, 2.0, 2.0, 0.0, 1.0]])
    propensity = rng.uniform(0.1, 1.0, clicks.shape)
    average = sr.evaluate(clicks, scores, [name], propensity=propensity)[name]
    values = []
    for order in itertools.permutations(range(6)):
        # Break the ties by this order of the items: a strict ranking.
        strict = scores[0] * 10 + np.argsort(order) / 10
        values.append(
            sr.evaluate(clicks, [strict], [name], propensity=propensity, ties="stable")[name]
        )
    assert average == pytest.approx(np.mean(values), rel=1e-12)


def test_long_format_and_threads_give_the_values_of_the_matrix():
    clicks, scores, logged = _logs(400, 1.0, seed=1)
    propensity = 1.0 / logged
    names = NAMES + ["ips_hits(normalize='per_query')@5", "ips_dcg(eps_minus=0.1)@5"]
    matrix = sr.evaluate(
        clicks, scores, names, propensity=propensity, per_query=True, no_relevant="skip"
    )
    order = np.random.default_rng(0).permutation(clicks.size)  # rows interleaved
    groups = np.repeat(np.arange(clicks.shape[0]), clicks.shape[1])[order]
    long = sr.evaluate(
        clicks.ravel()[order],
        scores.ravel()[order],
        names,
        groups=groups,
        propensity=propensity.ravel()[order],
        per_query="table",
        no_relevant="skip",
    )
    threads = sr.evaluate(
        clicks, scores, names, propensity=propensity, per_query=True, no_relevant="skip", n_jobs=2
    )
    for name in names:
        np.testing.assert_array_equal(long[name][np.argsort(long["query"])], matrix[name])
        np.testing.assert_array_equal(threads[name], matrix[name])


def test_side_inputs_are_checked_up_front():
    with pytest.raises(ValueError, match="'ips_dcg@2' needs propensity="):
        sr.evaluate(CLICKS, NEW, ["ips_dcg@2"])
    with pytest.raises(ValueError, match="needs position="):
        sr.ips_dcg_score(CLICKS, NEW, eta=1.0, propensity=PROPENSITY)
    with pytest.raises(ValueError, match=r"propensity must have y_true's shape \(1, 3\)"):
        sr.ips_dcg_score(CLICKS, NEW, propensity=[1.0, 0.5])
    with pytest.raises(ValueError, match="propensity must hold examination probabilities"):
        sr.ips_dcg_score(CLICKS, NEW, propensity=[[1.0, 2.0, 0.5]])
    with pytest.raises(ValueError, match="clicked with propensity 0"):
        sr.ips_dcg_score(CLICKS, NEW, propensity=[[1.0, 0.0, 0.5]])
    with pytest.raises(ValueError, match="position must hold logged positions"):
        sr.ips_dcg_score(CLICKS, NEW, position=[[0, 1, 2]], eta=1.0)
    with pytest.raises(ValueError, match="eps_minus must be less than eps_plus"):
        sr.ips_dcg_score(CLICKS, NEW, propensity=PROPENSITY, eps_plus=0.2, eps_minus=0.3)
    with pytest.raises(ValueError, match="no self-normalised form"):
        sr.ips_dcg_score(CLICKS, NEW, propensity=PROPENSITY, eps_minus=0.1, normalize="per_query")
    with pytest.raises(ValueError, match="normalize must be 'none' or 'per_query'"):
        sr.ips_dcg_score(CLICKS, NEW, propensity=PROPENSITY, normalize="pooled")
    with pytest.raises(ValueError, match="needs y_true as a dense matrix"):
        sr.evaluate([{1}], [[1, 2]], ["ips_dcg"], propensity=[[1.0, 1.0]])


def _yang_eq12(y_true, y_score, counts, gamma, k):
    """Yang et al.'s eq12_test written out (their notebook, per user): test positives with a
    training count, p = N ** ((gamma + 1) / 2), Z = candidates scored strictly above; the
    mean over users with such a positive of sum c(Z) / p / sum 1 / p."""
    recall, dcg, dcg_k, users = 0.0, 0.0, 0.0, 0
    for truth, score in zip(y_true, y_score):
        positives = [i for i in np.flatnonzero(truth) if counts[i] > 0]
        if not positives:
            continue
        users += 1
        weights = [1.0 / counts[i] ** ((gamma + 1) / 2) for i in positives]
        above = [int((score > score[i]).sum()) for i in positives]
        total = sum(weights)
        recall += sum(w * (z < k) for w, z in zip(weights, above)) / total
        dcg += sum(w / np.log2(z + 2) for w, z in zip(weights, above)) / total
        dcg_k += sum(w * (z < k) / np.log2(z + 2) for w, z in zip(weights, above)) / total
    return recall / users, dcg / users, dcg_k / users


@pytest.mark.parametrize("gamma", [-1.0, 0.5, 1.69])
def test_popularity_snips_equals_yang_et_al(gamma):
    rng = np.random.default_rng(8)
    y_true = (rng.random((50, 20)) < 0.15).astype(int)
    y_score = rng.random((50, 20))  # distinct: "strictly above" is the position
    counts = rng.integers(0, 30, 20)
    counts[:2] = 0  # never seen in training: their positives are left out
    propensity = sr.popularity_propensity(counts, gamma)
    seen = y_true * (counts > 0)
    names = [
        "ips_hits(normalize='per_query')@5",
        "ips_dcg(normalize='per_query')",
        "ips_dcg(normalize='per_query')@5",
    ]
    got = sr.evaluate(seen, y_score, names, propensity=propensity, no_relevant="skip")
    expected = _yang_eq12(y_true, y_score, counts, gamma, 5)
    assert [got[name] for name in names] == pytest.approx(expected, rel=1e-12)
    with pytest.raises(ValueError, match="clicked with propensity 0"):
        sr.evaluate(y_true, y_score, names, propensity=propensity)


def test_denoising_needs_every_candidate_displayed_but_excluded_cells_are_no_candidates():
    clicks = [[0, 1, 1, 0]]
    scores = [[2.0, 1.0, 3.0, 0.0]]
    propensity = [[1.0, 0.5, 1 / 3, 0.0]]  # the last candidate was never displayed
    with pytest.raises(ValueError, match="sums over every displayed candidate"):
        sr.ips_dcg_score(clicks, scores, propensity=propensity, eps_minus=0.1)
    excluded = [[0, 0, 0, 1]]  # not a candidate: the estimate is the three displayed ones'
    got = sr.ips_dcg_score(clicks, scores, propensity=propensity, eps_minus=0.1, exclude=excluded)
    expected = sr.ips_dcg_score(
        [[0, 1, 1]], [[2.0, 1.0, 3.0]], propensity=[[1.0, 0.5, 1 / 3]], eps_minus=0.1
    )
    assert got == expected
