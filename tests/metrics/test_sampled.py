"""Sampled-negative evaluation: the spec's worked examples (SAMPLED_AND_CLICKS.md part A),
the corrections' values, the identity when every negative is drawn, and Monte-Carlo
checks of what is unbiased."""

import itertools
import warnings

import numpy as np
import pytest
import scipy.sparse

from sklearn_rank import evaluate, sample_negatives
from sklearn_rank.metrics._sampled_corrections import _sampled_rank_matrix

_QUIET = pytest.mark.filterwarnings("ignore:.*computed on the sampled lists")


def _at_each_sampled_rank(metric, length):
    """The library's metric of one positive at rank 1..length of a list of ``length``."""
    y_true = np.zeros((length, length))
    y_true[np.arange(length), np.arange(length)] = 1
    y_score = np.tile(np.arange(length, 0, -1.0), (length, 1))
    return evaluate(y_true, y_score, [metric], per_query=True)[metric]


@pytest.mark.parametrize(
    "replacement, expected",
    [
        (True, [8 / 27, 20 / 27, 65 / 108, 0.703772, 2 / 3]),
        (False, [5 / 21, 65 / 84, 65 / 112, 0.688363, 2 / 3]),
    ],
)
def test_expected_sampled_metric_a2(replacement, expected):
    # n = 10, m = 3, exact rank R = 4: 3 of the 9 negatives above the positive.
    matrix = _sampled_rank_matrix(9, 3, replacement)
    for metric, value in zip(["hit_rate@1", "hit_rate@2", "mrr", "ndcg", "auc"], expected):
        got = matrix[3] @ _at_each_sampled_rank(metric, 4)
        assert got == pytest.approx(value, abs=5e-7)


@_QUIET
def test_several_positives_a3_by_enumeration():
    # n = 6, positives at exact ranks 1 and 4 (2 negatives between them), m = 2 with
    # replacement: every ordered draw of the 4 negatives, equally likely.
    negatives = [0.9, 0.8, 0.1, 0.05]  # scores: the positives score 1.0 and 0.5
    lists = [
        (1.0, 0.5, negatives[a], negatives[b]) for a, b in itertools.product(range(4), repeat=2)
    ]
    y_score = np.array(lists)
    y_true = np.tile([1, 1, 0, 0], (len(lists), 1))
    values = evaluate(y_true, y_score, ["recall@2", "map"], per_query=True)
    assert values["recall@2"].mean() == pytest.approx(0.625, abs=1e-12)
    assert values["map"].mean() == pytest.approx(0.854167, abs=5e-7)


@_QUIET
def test_ties_with_negatives_a4_by_enumeration():
    # n = 5: one negative above the positive, one tied, two below; m = 1 with replacement.
    y_true = np.tile([1, 0], (4, 1))
    y_score = np.array([[0.5, s] for s in (0.9, 0.5, 0.1, 0.2)])
    assert evaluate(y_true, y_score, ["mrr"], per_query=True)["mrr"].mean() == 0.8125


def _one_user_per_sampled_rank(m):
    """m + 1 users, user r's positive at sampled rank r + 1 among m negatives."""
    y_true = np.zeros((m + 1, m + 1))
    y_true[np.arange(m + 1), np.arange(m + 1)] = 1
    return y_true, np.tile(np.arange(m + 1, 0, -1.0), (m + 1, 1))


@pytest.mark.parametrize(
    "metric, correction, gamma, expected",
    [
        ("hit_rate@1", "bv", 1.0, [0.36, 0, 0, 0]),
        ("hit_rate@1", "posterior_mean", 0.1, [0.36, 0, 0, 0]),
        ("hit_rate@1", "bv", 0.1, [0.629651, -0.427622, 0.078171, 0.009909]),
        ("hit_rate@1", "bv", 0.01, [0.784938, -0.931752, 0.465973, -0.052314]),
        ("ndcg", "bv", 0.1, [0.871309, 0.252126, 0.334372, 0.295174]),
        ("ndcg", "rank_estimate", 0.1, 1 / np.log2(np.array([1, 4, 7, 10]) + 1)),
    ],
)
def test_corrected_vectors_a5(metric, correction, gamma, expected):
    # n = 10, m = 3 with replacement, uniform prior: the estimate at each sampled rank.
    y_true, y_score = _one_user_per_sampled_rank(3)
    got = evaluate(
        y_true,
        y_score,
        [metric],
        catalog_size=10,
        correction=correction,
        gamma=gamma,
        replacement=True,
        per_query=True,
    )[metric]
    np.testing.assert_allclose(got, expected, atol=5e-7)


_CORRECTABLE = ["hit_rate@3", "recall@4", "precision@3", "ndcg", "ndcg@5", "mrr", "map", "auc"]


@pytest.mark.parametrize("correction", ["rank_estimate", "bv", "posterior_mean", "em"])
@pytest.mark.parametrize("ties", ["average", "stable"])
def test_every_negative_drawn_gives_the_exact_metric(correction, ties):
    # Without replacement, m = n - L: the sampled list is the catalogue and every
    # correction is the identity, with several positives and ties with negatives.
    rng = np.random.default_rng(7)
    y_true = (rng.random((30, 12)) < 0.25).astype(float)
    y_true[y_true.sum(axis=1) == 0, 0] = 1
    y_score = rng.integers(0, 5, size=y_true.shape).astype(float)
    # positives of a user get distinct scores (ties with negatives stay)
    y_score[y_true == 1] = np.concatenate([np.arange(r.sum()) + 0.5 for r in y_true])
    exact = evaluate(y_true, y_score, _CORRECTABLE, ties=ties, per_query=True)
    corrected = evaluate(
        y_true,
        y_score,
        _CORRECTABLE,
        ties=ties,
        per_query=True,
        catalog_size=12,
        correction=correction,
    )
    for name in _CORRECTABLE:
        np.testing.assert_allclose(corrected[name], exact[name], rtol=1e-9, atol=1e-12)


def _users_at_exact_ranks(ranks, n_items, n_negatives, replacement, seed, positives=None):
    """Users whose positives sit at the given exact ranks of a catalogue of ``n_items``
    (item j scores -j, so the item id is its exact rank - 1), with sampled negatives."""
    ranks = np.atleast_2d(np.asarray(ranks).T).T if positives is None else ranks
    n_users = ranks.shape[0]
    rows = np.repeat(np.arange(n_users), ranks.shape[1])
    y_true = scipy.sparse.csr_matrix(
        (np.ones(rows.size), (rows, ranks.ravel() - 1)), shape=(n_users, n_items)
    )
    sample = sample_negatives(y_true, n_negatives, replacement=replacement, random_state=seed)
    return sample, -sample.item_ids.astype(float)


def _exact(metric, ranks, n_items):
    """The full-catalogue metric of users with positives at ``ranks`` (n_users, L)."""
    distinct, user_of = np.unique(ranks, axis=0, return_inverse=True)
    y_true = np.zeros((distinct.shape[0], n_items))
    np.put_along_axis(y_true, distinct - 1, 1.0, axis=1)
    y_score = np.tile(-np.arange(n_items, dtype=float), (distinct.shape[0], 1))
    return evaluate(y_true, y_score, [metric], per_query=True)[metric][user_of.ravel()]


def _within_three_standard_errors(values, truth):
    standard_error = values.std(ddof=1) / np.sqrt(values.size)
    assert abs(values.mean() - truth) <= 3 * standard_error, (values.mean(), truth, standard_error)


@pytest.mark.parametrize("replacement", [False, True])
def test_sampled_auc_is_unbiased_with_several_positives(replacement):
    rng = np.random.default_rng(2)
    n_items, n_users = 200, 3000
    ranks = np.sort(np.stack([rng.choice(n_items, 3, replace=False) + 1 for _ in range(40)]), 1)
    ranks = ranks[rng.integers(0, 40, n_users)]
    sample, score = _users_at_exact_ranks(ranks, n_items, 10, replacement, 0, positives=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sampled = evaluate(sample.y_true, score, ["auc"], groups=sample.groups, per_query=True)
    _within_three_standard_errors(sampled["auc"], _exact("auc", ranks, n_items).mean())
    rank_estimate = evaluate(
        sample.y_true,
        score,
        ["auc"],
        groups=sample.groups,
        per_query=True,
        catalog_size=sample.catalog_size,
        correction="rank_estimate",
        rank_estimate_rounding="none",
        replacement=replacement,
    )["auc"]
    _within_three_standard_errors(rank_estimate, _exact("auc", ranks, n_items).mean())


@pytest.mark.parametrize("replacement", [False, True])
@pytest.mark.parametrize("metric", ["ndcg", "hit_rate@10", "mrr", "recall@5"])
def test_posterior_mean_is_unbiased_under_its_prior(metric, replacement):
    # Exact ranks drawn from the prior (uniform): the mean of the posterior means is the
    # mean exact metric (the tower rule), where the sampled metric is far off.
    rng = np.random.default_rng(4)
    n_items, n_users = 500, 20_000
    ranks = rng.integers(1, n_items + 1, size=(n_users, 1))
    sample, score = _users_at_exact_ranks(ranks, n_items, 20, replacement, 1, positives=True)
    estimate = evaluate(
        sample.y_true,
        score,
        [metric],
        groups=sample.groups,
        per_query=True,
        catalog_size=n_items,
        correction="posterior_mean",
        replacement=replacement,
    )[metric]
    every_rank = np.arange(1, n_items + 1)[:, None]
    _within_three_standard_errors(estimate, _exact(metric, every_rank, n_items).mean())


def test_em_recovers_a_skewed_rank_distribution():
    # Exact ranks concentrated at the top (a good recommender): the uniform-prior
    # corrections are pulled towards the catalogue's middle; the EM's prior is not.
    rng = np.random.default_rng(5)
    n_items, n_users = 1000, 5000
    ranks = np.minimum(rng.geometric(0.02, size=(n_users, 1)), n_items)
    sample, score = _users_at_exact_ranks(ranks, n_items, 50, True, 2, positives=True)
    truth = _exact("ndcg", ranks, n_items).mean()
    common = dict(groups=sample.groups, catalog_size=n_items, replacement=True)
    em = evaluate(sample.y_true, score, ["ndcg"], correction="em", **common)["ndcg"]
    posterior = evaluate(sample.y_true, score, ["ndcg"], correction="posterior_mean", **common)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        plain = evaluate(sample.y_true, score, ["ndcg"], groups=sample.groups)["ndcg"]
    assert abs(em - truth) < 0.01 < abs(posterior["ndcg"] - truth) < abs(plain - truth)


# Krichene & Rendle's toy example as the spec transcribes it (A.8): n = 10,000, m = 100
# negatives with replacement, five instances per recommender; published mean ± std over
# 1000 repeats of the 5-instance mean.
_TOY_RANKS = {"A": [100] * 5, "B": [40, 40, 8437, 9266, 4482], "C": [212, 2, 743, 5342, 1548]}
_TOY_PUBLISHED = {
    "A": {
        "auc": (0.990, 0.004),
        "map": (0.630, 0.129),
        "ndcg": (0.724, 0.097),
        "recall@10": (1.0, 0.0),
    },
    "B": {
        "auc": (0.555, 0.014),
        "map": (0.336, 0.073),
        "ndcg": (0.444, 0.054),
        "recall@10": (0.4, 0.0),
    },
    "C": {
        "auc": (0.843, 0.014),
        "map": (0.325, 0.050),
        "ndcg": (0.460, 0.039),
        "recall@10": (0.567, 0.092),
    },
}


@pytest.mark.parametrize("recommender", sorted(_TOY_RANKS))
def test_krichene_rendle_toy_table_a8(recommender):
    n_repeats, ranks = 1000, np.array(_TOY_RANKS[recommender])
    repeated = np.tile(ranks, n_repeats)[:, None]
    sample, score = _users_at_exact_ranks(repeated, 10_000, 100, True, 3, positives=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        values = evaluate(
            sample.y_true,
            score,
            list(_TOY_PUBLISHED[recommender]),
            groups=sample.groups,
            per_query=True,
        )
    for metric, (mean, std) in _TOY_PUBLISHED[recommender].items():
        per_repeat = values[metric].reshape(n_repeats, 5).mean(axis=1)
        # the published mean has a Monte-Carlo error std / sqrt(1000), ours as much;
        # both are rounded to 3 decimals
        tolerance = 3 * np.sqrt(2) * std / np.sqrt(n_repeats) + 0.0006
        assert per_repeat.mean() == pytest.approx(mean, abs=tolerance), metric
        assert per_repeat.std() == pytest.approx(std, abs=0.1 * std + 0.0006), metric


def test_n_jobs_gives_the_same_estimates_to_the_bit(monkeypatch):
    from sklearn_rank.metrics import _blocks

    monkeypatch.setattr(_blocks, "_MIN_BLOCK_ENTRIES", 16)
    rng = np.random.default_rng(9)
    ranks = np.minimum(rng.geometric(0.05, size=(400, 1)), 300)
    sample, score = _users_at_exact_ranks(ranks, 300, 30, False, 4, positives=True)
    kwargs = dict(groups=sample.groups, catalog_size=300, per_query=True)
    for correction in ("em", "bv", "rank_estimate"):
        one = evaluate(sample.y_true, score, ["ndcg", "mrr"], correction=correction, **kwargs)
        two = evaluate(
            sample.y_true, score, ["ndcg", "mrr"], correction=correction, n_jobs=2, **kwargs
        )
        for name in one:
            np.testing.assert_array_equal(one[name], two[name])


def test_plain_sampled_metric_warns_and_bad_parameters_are_refused():
    y_true, y_score = _one_user_per_sampled_rank(3)
    with pytest.warns(UserWarning, match="ndcg computed on the sampled lists, not on the"):
        plain = evaluate(y_true, y_score, ["ndcg"], catalog_size=10)
    assert plain == evaluate(y_true, y_score, ["ndcg"])
    with pytest.raises(ValueError, match="correction='bv' needs catalog_size"):
        evaluate(y_true, y_score, ["ndcg"], correction="bv")
    with pytest.raises(ValueError, match="correction must be None or one of"):
        evaluate(y_true, y_score, ["ndcg"], catalog_size=10, correction="cls")
    with pytest.raises(ValueError, match="gamma must be a number from 0 to 1; got 2"):
        evaluate(y_true, y_score, ["ndcg"], catalog_size=10, correction="bv", gamma=2)
    with pytest.raises(ValueError, match="has no estimate of 'kendall_tau'"):
        evaluate(y_true, y_score, ["kendall_tau"], catalog_size=10, correction="bv")
    with pytest.raises(ValueError, match="more sampled negatives than its catalogue"):
        evaluate(y_true, y_score, ["ndcg"], catalog_size=3, correction="bv")
    with pytest.raises(ValueError, match="catalog_size must be one number or one per query"):
        evaluate(y_true, y_score, ["ndcg"], catalog_size=[10, 10], correction="bv")
    with pytest.raises(ValueError, match="need binary relevance"):
        evaluate(2 * y_true, y_score, ["ndcg"], catalog_size=10, correction="bv")
    tied = np.ones((1, 4))
    with pytest.raises(ValueError, match="positives of a user tie with each other"):
        evaluate([[1, 1, 0, 0]], tied, ["ndcg"], catalog_size=10, correction="bv")


def test_a_positive_never_scored_is_refused():
    from sklearn_rank import ItemJudgments, ItemRanking

    truth = ItemJudgments(["u", "u"], ["a", "c"], [1, 1])
    run = ItemRanking(["u"] * 3, ["a", "x", "y"], [0.9, 0.5, 0.1])
    with pytest.raises(ValueError, match="query number 0 has a judged positive that is not"):
        evaluate(truth, run, ["ndcg"], catalog_size=10, correction="bv")


@pytest.mark.parametrize("n_negatives, m", [(9, 3), (5, 5), (300, 40), (1000, 30)])
def test_sampled_rank_matrices_are_scipys_distributions(n_negatives, m):
    from scipy import stats

    above = np.arange(n_negatives + 1)[:, None]
    x = np.arange(m + 1)[None, :]
    without = _sampled_rank_matrix(n_negatives, m, False)
    np.testing.assert_allclose(without, stats.hypergeom.pmf(x, n_negatives, above, m), atol=1e-10)
    np.testing.assert_allclose(without.sum(axis=1), 1.0, atol=1e-10)
    with_replacement = _sampled_rank_matrix(n_negatives, m, True)
    expected = stats.binom.pmf(x, m, above / n_negatives)
    np.testing.assert_allclose(with_replacement, expected, atol=1e-13)
