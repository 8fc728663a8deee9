"""Exact tie averaging at the extremes (issue 28, item 4): infAP of one large tie group in
O(n) memory, against the brute force over orderings (tests/reference.py) on small groups and
against an unwindowed sum on large ones; interpolated precision refused, with a message
naming ties="stable", where its exact average would run for minutes or hours."""

import math
import tracemalloc

import numpy as np
import pytest
from reference import reference_trec
from scipy.special import gammaln

import sklearn_rank as sr
from sklearn_rank.metrics import _cascade, _trec

EPSILON = 1e-5  # trec_eval's INFAP_EPSILON


def _one_query(labels, scores, unranked=()):
    """ItemJudgments and ItemRanking of one query: ``labels[i]`` None = unjudged."""
    items = [f"d{i}" for i in range(len(labels))]
    judged = [(item, label) for item, label in zip(items, labels) if label is not None]
    judged += [(f"u{j}", label) for j, label in enumerate(unranked)]
    truth = sr.ItemJudgments(
        ["q"] * len(judged), [item for item, _ in judged], [label for _, label in judged]
    )
    run = sr.ItemRanking(["q"] * len(items), items, scores)
    return truth, run


@pytest.mark.parametrize("seed", range(40))
def test_infap_of_a_tie_group_equals_every_ordering(seed):
    # A tie group of up to 7 items (relevant, judged non-relevant and unjudged) after a few
    # untied items, and sometimes a second group: every ordering enumerated.
    rng = np.random.default_rng(seed)
    n_before, n_group = int(rng.integers(0, 4)), int(rng.integers(2, 8))
    labels = [
        None if rng.random() < 0.35 else int(rng.integers(0, 3)) for _ in range(n_before + n_group)
    ]
    if not any(labels[n_before:]):
        labels[n_before] = 1
    scores = [10.0 - i for i in range(n_before)] + [1.0] * n_group
    if seed % 4 == 0:
        scores[-2:] = [0.5, 0.5]
    unranked = [1] if seed % 3 == 0 else []
    truth, run = _one_query(labels, scores, unranked)
    got = sr.inferred_average_precision_score(truth, run, ties="average")
    expected = reference_trec("infap", labels, scores, unranked)
    assert got == pytest.approx(expected, rel=1e-12, abs=1e-14)


def _constant_dense_infap(relevant):
    """infAP of one all-judged query with equal scores: the j items above a relevant item
    are all judged (j = q - 1), (a - 1) / (n - 1) of them relevant on average."""
    n, a = relevant.size, int(relevant.sum())
    share = (a - 1) / (n - 1)
    terms = [(1 + j * (j * share + EPSILON) / (j + 2 * EPSILON)) / (j + 1) for j in range(n)]
    return math.fsum(terms) / n  # a items, each E[term], divided by R = a


def test_infap_of_one_large_all_judged_tie_group_in_little_memory():
    # 300 equal scores, 90 relevant: the former sum over (position, relevant above,
    # non-relevant above) held 300 x 90 x 211 cells per temporary (45 MB each).
    rng = np.random.default_rng(0)
    relevant = np.zeros(300)
    relevant[rng.choice(300, 90, replace=False)] = 1.0
    sr.inferred_average_precision_score(relevant[None, :8], np.zeros((1, 8)))  # imports
    tracemalloc.start()
    try:
        got = sr.inferred_average_precision_score(relevant[None, :], np.zeros((1, 300)))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert got == pytest.approx(_constant_dense_infap(relevant), rel=1e-12)
    assert peak < 4 * 2**20


def _unwindowed_infap(n, a, b):
    """E[term] of a relevant item of one tie group (a relevant, b judged non-relevant,
    the rest unjudged, nothing before it), summed over every count of judged items above
    it: no window."""
    judged = a - 1 + b
    share = (a - 1) / judged if judged else 0.0
    above = np.arange(n)[:, None]  # q - 1
    j = np.arange(judged + 1)[None, :]
    log_comb = lambda top, bottom: (  # noqa: E731
        gammaln(top + 1.0) - gammaln(bottom + 1.0) - gammaln(top - bottom + 1.0)
    )
    rest = above - j
    inside = (rest >= 0) & (rest <= n - 1 - judged)
    rest = np.clip(rest, 0, n - 1 - judged)
    log_prob = log_comb(judged, j) + log_comb(n - 1 - judged, rest) - log_comb(n - 1, above)
    prob = np.where(inside, np.exp(log_prob), 0.0)  # every count of judged items above
    term = 1 + j * (j * share + EPSILON) / (j + 2 * EPSILON)
    total = math.fsum((prob * term).sum(axis=1) / (above[:, 0] + 1.0))
    return total / n


def test_infap_of_a_large_mixed_tie_group_sums_only_a_window_of_judged_counts():
    # 2,000 equal scores, half of them unjudged: the window of judged counts above each
    # position (all but 1e-31 of the hypergeometric mass) gives the full sum's value.
    rng = np.random.default_rng(1)
    n = 2000
    labels = [None if rng.random() < 0.5 else int(rng.random() < 0.3) for _ in range(n)]
    a = sum(1 for x in labels if x == 1)
    b = sum(1 for x in labels if x == 0)
    truth, run = _one_query(labels, np.zeros(n))
    got = sr.inferred_average_precision_score(truth, run, ties="average")
    assert got == pytest.approx(_unwindowed_infap(n, a, b), rel=1e-12)


def test_infap_refuses_a_tie_group_beyond_its_bound_and_names_stable_ties():
    # 60,000 equal scores, judged and unjudged mixed: about 12 n**1.5 terms, refused at
    # once (the former code asked numpy for 60,000 x a x b cells).
    rng = np.random.default_rng(2)
    n = 60_000
    labels = [None if x < 0.5 else int(x < 0.6) for x in rng.random(n)]
    truth, run = _one_query(labels, np.zeros(n))
    with pytest.raises(ValueError, match=r'infap: .*60000 items.*ties="stable"'):
        sr.inferred_average_precision_score(truth, run, ties="average")
    # Broken ties need no averaging.
    assert 0.0 < sr.inferred_average_precision_score(truth, run, ties="stable") < 1.0


def test_interpolated_precision_refuses_costly_ties_and_names_stable_ties(monkeypatch):
    # The dynamic programme costs O(a**2 n**2) for one tie group (iprec_avg of 800 equal
    # scores ran 162 s): beyond a documented number of its steps per query, a ValueError.
    monkeypatch.setattr(_trec, "_IPREC_STEPS", 10_000)
    relevant = np.zeros((1, 40))
    relevant[0, ::2] = 1.0
    with pytest.raises(ValueError, match=r'n = 40, a = 20\. Pass ties="stable"'):
        sr.eleven_point_average_precision_score(relevant, np.zeros((1, 40)))
    with pytest.raises(ValueError, match='ties="stable"'):
        sr.interpolated_precision_score(relevant, np.zeros((1, 40)), recall=0.5)
    # Small ties still averaged exactly.
    few = sr.interpolated_precision_score([[1, 0, 1]], [[0.5, 0.5, 0.5]], recall=1.0)
    assert few == pytest.approx(7 / 9, rel=1e-15)


def test_interpolated_precision_refusal_is_per_query(monkeypatch):
    # Many queries with small ties add up, but each stays under the bound: computed.
    monkeypatch.setattr(_trec, "_IPREC_STEPS", 2_000)
    relevant = np.tile([1.0, 0.0, 1.0, 0.0, 0.0, 1.0], (500, 1))
    got = sr.eleven_point_average_precision_score(relevant, np.zeros_like(relevant))
    one = sr.eleven_point_average_precision_score(relevant[:1], np.zeros((1, 6)))
    assert got == pytest.approx(one, rel=1e-15)


def test_interpolated_precision_refuses_a_large_tie_group_quickly():
    # 3,000 equal scores, about 1,500 relevant: 12 million thresholds to list, refused
    # before they are made.
    rng = np.random.default_rng(3)
    relevant = (rng.random((1, 3000)) < 0.5).astype(float)
    with pytest.raises(ValueError, match="thresholds for one query"):
        sr.eleven_point_average_precision_score(relevant, np.zeros((1, 3000)))


# --- issue 28, item 6: ERR's small tie groups batched ------------------------------------------


@pytest.mark.parametrize("name", ["err", "err(max_grade=4)@3", "err@10"])
@pytest.mark.parametrize("grades", ["whole", "fractional"])
def test_err_batches_small_tie_groups_with_the_same_bits(name, grades, monkeypatch):
    # Many queries of small tie groups: ERR's exact tie average used to run a Python loop
    # per group (5.6 s of 18 s on 10^6 rows). Batched by group shape it gives the values
    # of the one-group-at-a-time code to the bit, and never calls it.
    rng = np.random.default_rng(7)
    relevance = np.where(rng.random((300, 12)) < 0.3, rng.integers(1, 5, (300, 12)), 0)
    if grades == "fractional":
        relevance = np.where(relevance > 0, rng.random((300, 12)) * 4, 0.0)
    scores = rng.integers(0, 4, (300, 12)).astype(float)
    monkeypatch.setattr(_cascade, "_SMALL_GROUP", 0)  # every group through _group_err
    one_by_one = sr.evaluate(relevance, scores, [name], per_query=True)[name]
    monkeypatch.setattr(_cascade, "_SMALL_GROUP", 64)
    calls = []
    original = _cascade._group_err
    monkeypatch.setattr(_cascade, "_group_err", lambda *args: calls.append(args) or original(*args))
    batched = sr.evaluate(relevance, scores, [name], per_query=True)[name]
    np.testing.assert_array_equal(batched, one_by_one)
    assert calls == []
    assert np.ptp(batched) > 0.1


def test_tie_averaged_trec_measures_on_long_queries_stay_within_their_input_memory():
    # 10^6 long-format rows, 1,000 queries of about 1,000 candidates with small tie groups:
    # iprec_avg listed the thresholds of 2**18 tie groups at once (3.2x the input), infAP
    # summed 2**18 terms at once (2.4x); the ranking alone takes 1.4x.
    rng = np.random.default_rng(11)
    n_rows = 1_000_000
    query = np.sort(rng.integers(0, 1000, n_rows))
    relevance = np.where(rng.random(n_rows) < 0.1, rng.integers(1, 5, n_rows), 0)
    scores = np.round(rng.random(n_rows) + 0.1 * relevance, 2)
    input_bytes = query.nbytes + relevance.nbytes + scores.nbytes
    for name in ["iprec_avg", "infap"]:
        sr.evaluate(relevance[:2000], scores[:2000], [name], groups=query[:2000])
        tracemalloc.start()
        try:
            value = sr.evaluate(relevance, scores, [name], groups=query)[name]
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert 0.1 < value < 1.0
        assert peak < 2.2 * input_bytes, (name, peak / input_bytes)


def test_err_of_a_large_tie_group_mixes_in_blocks_with_the_same_values(monkeypatch):
    # ERR's hypergeometric mixing of a tie group made a (depth, stored + 1) matrix at once
    # (20,000 equal scores: 1.3 GB); in blocks of rows its values stay those of the whole
    # product (to the last bits) and of every ordering on small groups.
    rng = np.random.default_rng(5)
    relevance = np.where(rng.random((4, 70)) < 0.3, rng.integers(1, 5, (4, 70)), 0)
    scores = np.zeros((4, 70))
    whole = sr.evaluate(relevance, scores, ["err", "err@20"], per_query=True)
    monkeypatch.setattr(_cascade, "_MIXING_CELLS", 4)
    blocks = sr.evaluate(relevance, scores, ["err", "err@20"], per_query=True)
    for name in whole:
        np.testing.assert_allclose(blocks[name], whole[name], rtol=1e-13, atol=0)
    monkeypatch.setattr(_cascade, "_SMALL_GROUP", 0)  # this small group mixed in blocks too
    labels = [0, 2, 0, 0, 1, 0, 3]
    expected = reference_trec("err", labels, [1.0] * 7, max_grade=3)
    got = sr.evaluate([labels], [[1.0] * 7], ["err(max_grade=3)"])["err(max_grade=3)"]
    assert got == pytest.approx(expected, rel=1e-13)
