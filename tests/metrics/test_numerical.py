"""Numerical robustness: extreme and nearly equal scores, very large inputs, large gains,
and means over many queries, each against a value computed independently in Python
(integers, fractions, math.fsum)."""

import math
from fractions import Fraction

import numpy as np
import pytest
import scipy.stats

import sklearn_rank as sr
from sklearn_rank.metrics._registry import METRICS

# The click-log estimators need a side input (the propensities) that the inputs here do not
# carry; tests/metrics/test_clicks.py checks them on the forms that carry one.
METRICS = {name: metric for name, metric in METRICS.items() if metric.side_inputs is None}

NAMES = sorted(METRICS)
LABELS = [f"{name}@3" if METRICS[name].takes_k else name for name in NAMES] + [
    name for name in NAMES if METRICS[name].takes_k
]
# The closed forms of the million-item tests cover the first metrics; trec_eval's measures,
# ERR and RBP have theirs in test_trec_*.py.
CORE = [name for name in NAMES if METRICS[name].family == "core"]
CORE_LABELS = [label for label in LABELS if METRICS[label.split("@")[0]].family == "core"]
BIG = np.finfo(np.float64).max
TINY = np.finfo(np.float64).tiny  # smallest normal number
DENORMAL = 5e-324  # smallest subnormal number


def _same(got, expected):
    assert got.keys() == expected.keys()
    for name in expected:
        np.testing.assert_array_equal(got[name], expected[name], err_msg=name)
        assert not np.isnan(got[name]).any(), name


def _as_ranks(scores):
    """Integer scores in the same order with the same ties: what the ranking must see."""
    return scipy.stats.rankdata(scores, method="dense", axis=-1).astype(np.int64)


# --- very large and very small scores --------------------------------------------------------

EXTREMES = np.array(
    [
        BIG,
        1e300,
        1e150,
        1.0,
        1e-300,
        TINY,
        DENORMAL,
        0.0,
        -0.0,
        -DENORMAL,
        -TINY,
        -1e-300,
        -1.0,
        -1e300,
        -BIG,
    ]
)


@pytest.mark.parametrize("ties", ["average", "stable"])
def test_extreme_scores_rank_as_their_order(ties):
    rng = np.random.default_rng(0)
    n = EXTREMES.size
    # Three queries: the extremes shuffled, again with duplicates (ties at the extremes),
    # and reversed. 0.0 and -0.0 are equal, so they tie.
    scores = np.array(
        [
            rng.permutation(EXTREMES),
            rng.choice(EXTREMES[[0, 1, 5, 6, 9, 13, 14]], n),
            EXTREMES[::-1],
        ]
    )
    y_true = rng.integers(0, 3, (3, n)).astype(float)
    expected = sr.evaluate(y_true, _as_ranks(scores), LABELS, ties=ties, per_query=True)
    _same(sr.evaluate(y_true, scores, LABELS, ties=ties, per_query=True), expected)
    groups = np.repeat(["a", "b", "c"], n)
    _same(
        sr.evaluate(
            y_true.ravel(), scores.ravel(), LABELS, groups=groups, ties=ties, per_query=True
        ),
        expected,
    )
    # Ranked lists given as dicts item -> score.
    # Every cell of the matrix is judged, zeros included: so is every key here.
    truth = [dict(enumerate(row)) for row in y_true]
    runs = [dict(enumerate(row)) for row in scores]
    _same(sr.evaluate(truth, runs, LABELS, ties=ties, per_query=True), expected)


def test_signed_zeros_tie():
    got = sr.evaluate([[0, 1]], [[0.0, -0.0]], ["mrr", "precision@1"])
    assert got == {"mrr": 0.75, "precision@1": 0.5}  # the expected value over both orders


def test_float32_scores_that_overflow_or_underflow():
    # score_dtype="float32" (trec_eval, XGBoost) rounds scores first: 1e300 becomes inf,
    # which is refused by name, and 1e-300 becomes 0, which then ties with 0.
    with pytest.raises(
        ValueError,
        match=r"y_score as float32 \(score_dtype='float32'\) must "
        r"contain only finite numbers; got inf at index 0",
    ):
        sr.evaluate([[1, 0]], [[1e300, 0.0]], ["mrr"], score_dtype="float32")
    assert sr.evaluate([[1, 0]], [[1e-300, 0.0]], ["mrr"], score_dtype="float32") == {"mrr": 0.75}
    assert sr.evaluate([[1, 0]], [[1e-300, 0.0]], ["mrr"]) == {"mrr": 1.0}


# --- scores one ulp apart are not ties -------------------------------------------------------


@pytest.mark.parametrize(
    "x",
    [1.0, -1.0, 0.0, DENORMAL, TINY, 1e-300, 1e300, 2.0**53, BIG / 2, -BIG / 2],
    ids=["1", "-1", "0", "denormal", "tiny", "1e-300", "1e300", "2**53", "big", "-big"],
)
@pytest.mark.parametrize("ties", ["average", "stable"])
def test_scores_one_ulp_apart_are_not_ties(x, ties):
    up = np.nextafter(x, np.inf)
    down = np.nextafter(x, -np.inf)
    scores = np.array([[x, np.nextafter(up, np.inf), down, up, np.nextafter(down, -np.inf)]])
    y_true = np.array([[0.0, 0.0, 1.0, 2.0, 1.0]])
    ranks = np.array([[3, 5, 2, 4, 1]])
    assert (_as_ranks(scores) == ranks).all()  # five distinct scores
    expected = sr.evaluate(y_true, ranks, LABELS, ties=ties)
    _same(sr.evaluate(y_true, scores, LABELS, ties=ties), expected)
    _same(sr.evaluate(y_true.ravel(), scores.ravel(), LABELS, groups=[7] * 5, ties=ties), expected)
    # The data are such that ties would change the values: the test sees a tie if any.
    tied = sr.evaluate(y_true, np.zeros((1, 5)), LABELS)
    assert expected["mrr"] != tied["mrr"] and expected["ndcg@3"] != tied["ndcg@3"]


def test_float32_scores_one_float32_ulp_apart_are_not_ties():
    x = np.float32(0.1)
    scores = np.array(
        [[x, np.nextafter(x, np.float32(1)), np.nextafter(x, np.float32(0))]], dtype=np.float32
    )
    y_true = [[0, 1, 0]]
    expected = sr.evaluate(y_true, [[2, 3, 1]], LABELS)
    _same(sr.evaluate(y_true, scores, LABELS), expected)
    _same(sr.evaluate(y_true, scores, LABELS, score_dtype="float32"), expected)


def test_scores_equal_in_float32_but_not_in_float64():
    # Distinct in float64, not ties; score_dtype="float32" rounds them into one tie.
    scores = [[1.0, 1.0 + 2.0**-40]]
    assert sr.evaluate([[1, 0]], scores, ["mrr"]) == {"mrr": 0.5}
    assert sr.evaluate([[1, 0]], scores, ["mrr"], score_dtype="float32") == {"mrr": 0.75}


# --- 10^6 items in one query -----------------------------------------------------------------

N = 10**6
POSITIONS = [0, 10, 123_456, N - 1]  # 0-based positions of the relevant items
GRADES = [3, 1, 2, 1]


def _one_long_query():
    y_true = np.zeros(N)
    y_true[POSITIONS] = GRADES
    return y_true, -np.arange(N, dtype=np.float64)  # position = index, no ties


def _closed_forms():
    """Every metric of the one long query, from its definition, in Python."""
    R = len(POSITIONS)

    def discount(p):  # p 0-based
        return 1.0 / math.log2(p + 2)

    def dcg(k, positions=POSITIONS, grades=GRADES):
        return math.fsum(g * discount(p) for p, g in zip(positions, grades) if p < k)

    def idcg(k):
        return dcg(k, range(R), sorted(GRADES, reverse=True))

    def ap(k):
        return float(sum(Fraction(i + 1, p + 1) for i, p in enumerate(POSITIONS) if p < k) / R)

    # AUC: each relevant item against the non-relevant items ranked after it.
    right = sum((N - 1 - p) - (R - 1 - i) for i, p in enumerate(POSITIONS))
    # Kendall tau-b: the ranking is strict; relevance ties are the zeros and the two 1s.
    numerator = sum((N - 1 - p - (R - 1 - i)) - (p - i) for i, p in enumerate(POSITIONS))
    numerator += sum(np.sign(GRADES[i] - GRADES[j]) for i in range(R) for j in range(i + 1, R))
    pairs = N * (N - 1) // 2
    tied = (N - R) * (N - R - 1) // 2 + 1
    values = {
        "precision@3": 1 / 3,
        "recall@3": 1 / R,
        "f1@3": 2 * 1 / (3 + R),
        "hit_rate@3": 1.0,
        "mrr@3": 1.0,
        "map@3": ap(3),
        "cg@3": 3.0,
        "dcg@3": dcg(3),
        "ndcg@3": dcg(3) / idcg(3),
        "auc@3": 1.0,  # one relevant item above two non-relevant ones
        "arp": float(Fraction(sum(p + 1 for p in POSITIONS), R * N)),
        "kendall_tau": numerator / math.sqrt(pairs * (pairs - tied)),
        "precision": float(Fraction(R, N)),
        "recall": 1.0,
        "f1": float(Fraction(2 * R, N + R)),
        "hit_rate": 1.0,
        "mrr": 1.0,
        "map": ap(N),
        "cg": float(sum(GRADES)),
        "dcg": dcg(N),
        "ndcg": dcg(N) / idcg(N),
        "auc": float(Fraction(right, R * (N - R))),
    }
    assert values.keys() == set(CORE_LABELS)
    return values


@pytest.mark.slow
@pytest.mark.parametrize("form", ["dense", "long"])
@pytest.mark.parametrize("ties", ["average", "stable"])
def test_a_million_items_in_one_query(form, ties):
    y_true, y_score = _one_long_query()
    if form == "dense":
        got = sr.evaluate(y_true[None, :], y_score[None, :], CORE_LABELS, ties=ties)
    else:
        order = np.random.default_rng(1).permutation(N)  # rows in any order
        got = sr.evaluate(
            y_true[order], y_score[order], CORE_LABELS, groups=np.zeros(N, dtype=int), ties=ties
        )
    expected = _closed_forms()
    for name in CORE_LABELS:
        assert got[name] == pytest.approx(expected[name], rel=1e-13, abs=0), name


def test_a_million_tied_items_in_one_query():
    # Every score equal: the expected value over all N! orderings, in closed form.
    y_true = np.zeros((1, N))
    y_true[0, POSITIONS] = 1.0
    m, k = len(POSITIONS), 10
    got = sr.evaluate(
        y_true,
        np.zeros((1, N)),
        [
            f"{name}@{k}"
            for name in ("precision", "recall", "hit_rate", "mrr", "map", "cg", "ndcg", "auc")
        ]
        + ["auc", "arp", "kendall_tau"],
    )
    p_rel = Fraction(m, N)
    p_two = Fraction(m * (m - 1), N * (N - 1))
    discounts = [1.0 / math.log2(p + 1) for p in range(1, k + 1)]
    expected = {
        f"precision@{k}": p_rel,
        f"recall@{k}": Fraction(k, N),
        f"hit_rate@{k}": 1 - Fraction(math.comb(N - m, k), math.comb(N, k)),
        # P(first relevant item at position j) = C(N - j, m - 1) / C(N, m).
        f"mrr@{k}": sum(
            Fraction(math.comb(N - j, m - 1), math.comb(N, m) * j) for j in range(1, k + 1)
        ),
        # E[rel(p) * hits up to p] = P(rel p) + (p - 1) P(rel p and rel q), by linearity.
        f"map@{k}": sum((p_rel + (p - 1) * p_two) / p for p in range(1, k + 1)) / m,
        f"cg@{k}": k * p_rel,
        f"ndcg@{k}": float(p_rel) * math.fsum(discounts) / math.fsum(discounts[:m]),
        f"auc@{k}": Fraction(1, 2),
        "auc": Fraction(1, 2),
        "arp": Fraction(N + 1, 2 * N),
        "kendall_tau": 0,
    }
    for name, value in expected.items():
        # Binomial ratios go through gammaln, whose rounding grows with the group: the
        # docs give 1e-10 for 10^5 tied items; 10^6 measure 1.6e-9 (hit rate, MRR).
        assert got[name] == pytest.approx(float(value), rel=5e-9, abs=1e-15), name


# --- 10^6 queries of one item ----------------------------------------------------------------


def _one_item_queries(seed=2):
    rng = np.random.default_rng(seed)
    relevance = rng.integers(0, 4, N) * (rng.random(N) < 0.5)
    return relevance.astype(np.float64), rng.random(N)


def _one_item_means(relevance):
    """Means over one-item queries: a query is relevant or not, every position is 1."""
    relevant = int(np.count_nonzero(relevance))
    share = float(Fraction(relevant, N))
    return {
        **{name: share for name in ("precision", "recall", "f1", "hit_rate", "mrr", "map", "ndcg")},
        "cg": math.fsum(relevance) / N,
        "dcg": math.fsum(relevance) / N,
        "auc": float(Fraction(relevant, 2 * N)),  # 0.5 without a pair, 0 without a relevant
        "arp": 1.0,  # queries without a relevant candidate are skipped
        "kendall_tau": 0.0,  # fewer than two candidates
    }


@pytest.mark.slow
def test_a_million_one_item_queries_dense():
    relevance, scores = _one_item_queries()
    got = sr.evaluate(relevance[:, None], scores[:, None], CORE)
    assert got == _one_item_means(relevance)  # exact: sums of small integers


@pytest.mark.slow
def test_a_million_one_item_queries_long_and_shuffled():
    relevance, scores = _one_item_queries(3)
    ids = np.random.default_rng(4).permutation(N) * 7 - N  # any integer ids, any order
    names = ["ndcg", "map", "cg", "auc", "kendall_tau"]
    got = sr.evaluate(relevance, scores, names, groups=ids)
    expected = _one_item_means(relevance)
    assert got == {name: expected[name] for name in names}


# --- graded relevance up to 31 with exponential gain -----------------------------------------


def _graded_case(seed=5):
    rng = np.random.default_rng(seed)
    relevance = rng.permutation(32)  # every grade 0..31 once
    scores = rng.permutation(32).astype(np.float64)  # no ties
    return relevance, scores


def _dcg_exponential(relevance, scores, k=None):
    """DCG with gain 2**rel - 1 from exact integer gains, positions by sorting in Python."""
    ranked = [int(r) for _, r in sorted(zip(scores.tolist(), relevance.tolist()), reverse=True)]
    ranked = ranked[:k] if k else ranked
    return math.fsum((2**r - 1) / math.log2(p + 2) for p, r in enumerate(ranked))


@pytest.mark.parametrize(
    "dtype",
    [np.float64, np.float32, np.int64, np.int32, np.int8, np.uint8],
    ids=lambda d: np.dtype(d).name,
)
@pytest.mark.parametrize("k", [None, 1, 5, 40])
def test_exponential_gain_up_to_31(dtype, k):
    relevance, scores = _graded_case()
    y_true = relevance.astype(dtype)[None, :]  # 2**31 overflows int32 if computed there
    suffix = "" if k is None else f"@{k}"
    got = sr.evaluate(
        y_true,
        scores[None, :],
        ["cg" + suffix, "dcg" + suffix, "ndcg" + suffix],
        gain="exponential",
        ties="stable",
    )
    ranked = [int(r) for _, r in sorted(zip(scores.tolist(), relevance.tolist()), reverse=True)]
    top = ranked[:k] if k else ranked
    # CG is a sum of integers below 2**53: exact.
    assert got["cg" + suffix] == sum(2**r - 1 for r in top)
    dcg = _dcg_exponential(relevance, scores, k)
    ideal = _dcg_exponential(relevance, relevance.astype(np.float64), k)
    assert got["dcg" + suffix] == pytest.approx(dcg, rel=1e-15)
    assert got["ndcg" + suffix] == pytest.approx(dcg / ideal, rel=1e-15)
    assert all(np.isfinite(v) for v in got.values())


def test_exponential_gain_up_to_31_under_tied_scores():
    # Tied items share the mean of their gains at each of their positions (exact fraction).
    relevance, _ = _graded_case()
    scores = (np.arange(32) // 4).astype(np.float64)  # eight groups of four tied items
    got = sr.evaluate(relevance[None, :], scores[None, :], ["dcg", "cg@6"], gain="exponential")
    expected_dcg, expected_cg = [], Fraction(0)
    for group in range(8):
        members = np.flatnonzero(scores == 7 - group)
        mean_gain = Fraction(sum(2 ** int(relevance[i]) - 1 for i in members), 4)
        for position in range(4 * group, 4 * group + 4):
            expected_dcg.append(float(mean_gain) / math.log2(position + 2))
            if position < 6:
                expected_cg += mean_gain
    assert got["dcg"] == pytest.approx(math.fsum(expected_dcg), rel=1e-15)
    assert got["cg@6"] == float(expected_cg)


def test_exponential_gain_at_the_float64_limit():
    # 2**1023 - 1 is finite; 1024 is refused by name; two gains of 2**1023 overflow their
    # sum, which is refused too (never inf or NaN).
    assert sr.cg_score([[1023]], [[1.0]], gain="exponential") == 2.0**1023
    dcg = sr.dcg_score([[1023, 1022]], [[2.0, 1.0]], gain="exponential")
    assert dcg == pytest.approx(2.0**1023 + 2.0**1022 / math.log2(3), rel=1e-15)
    with pytest.raises(
        ValueError, match=r"gain='exponential' needs relevance <= 1023 .*; got 1024.0"
    ):
        sr.ndcg_score([[1024, 0]], [[1.0, 0.0]], gain="exponential")
    with pytest.raises(
        ValueError,
        match=r"cg: the value of query number 0 is .*inf.*: its "
        r"relevance or gains are too large to add up in float64",
    ):
        sr.cg_score([[1023, 1023]], [[1.0, 0.0]], gain="exponential")


# --- sums over many queries ------------------------------------------------------------------


def _cg_of_one_item_queries(relevance, **params):
    """Mean of CG@1 over one-item queries: the per-query values are the relevances."""
    return sr.cg_score(relevance[:, None], np.zeros((relevance.size, 1)), k=1, **params)


@pytest.mark.slow
@pytest.mark.parametrize("case", ["uniform", "tenths", "one-large", "wide-range"])
def test_mean_over_a_million_queries_equals_fsum(case):
    rng = np.random.default_rng(6)
    relevance = {
        "uniform": rng.random(N),
        "tenths": np.full(N, 0.1),  # was 0.10000000000000003
        "one-large": np.concatenate(([1.0], np.full(N - 1, 1e-16))),  # was off by 1.3e-15
        "wide-range": 10.0 ** rng.uniform(-300, 300, N),
    }[case]
    expected = math.fsum(relevance) / N
    assert _cg_of_one_item_queries(relevance) == expected
    per_query = sr.cg_score(relevance[:, None], np.zeros((N, 1)), k=1, per_query=True)
    np.testing.assert_array_equal(per_query, relevance)


@pytest.mark.slow
def test_weighted_mean_over_a_million_queries_equals_fsum():
    rng = np.random.default_rng(7)
    relevance, weights = rng.random(N), rng.random(N) * 100
    got = _cg_of_one_item_queries(relevance, sample_weight=weights)
    assert got == math.fsum(relevance * weights) / math.fsum(weights)


@pytest.mark.parametrize(
    "weights",
    [None, [1.0, 1.0, 1.0], [1e308, 1e308, 1e308], [5e-324, 5e-324, 5e-324], [1.0, 0.0, 3.0]],
    ids=["unweighted", "ones", "huge", "subnormal", "mixed"],
)
def test_mean_of_values_near_the_float64_limit(weights):
    # Each value is finite, and so is their mean: np.average returned inf here.
    values = np.array([1e308, 1.5e308, 1.7e308])
    got = _cg_of_one_item_queries(values, sample_weight=weights)
    w = [Fraction(1)] * 3 if weights is None else [Fraction(x) for x in weights]
    exact = sum(Fraction(v) * x for v, x in zip(values.tolist(), w)) / sum(w)
    assert got == pytest.approx(float(exact), rel=2.3e-16)
    assert np.isfinite(got)


def test_integer_scores_beyond_2_53_rank_exactly_unless_read_as_float32():
    y_true = [[1, 0], [0, 1]]
    y_score = np.array([[2**54, 0], [16777217, 16777216]])
    # float64: the huge score does not turn the second row into ranks-with-ties.
    np.testing.assert_array_equal(
        sr.evaluate(y_true, y_score, ["mrr"], per_query=True)["mrr"], [1.0, 0.5]
    )
    # float32 (trec_eval, XGBoost): 16777217 and 16777216 are one float32, a tie.
    np.testing.assert_array_equal(
        sr.evaluate(y_true, y_score, ["mrr"], score_dtype="float32", per_query=True)["mrr"],
        [1.0, 0.75],
    )
    assert sr.mean_reciprocal_rank_score(np.array([[0, 1]]), np.array([[2**53, 2**53 + 1]])) == 1.0


def test_whole_relevance_levels_beyond_2_53():
    """Levels too large for float64 to count one by one take the sorting path."""
    np.testing.assert_array_equal(
        sr.ndcg_score(
            [[2.0**60, 0], [2.0**60 + 256, 2.0**60]], [[1.0, 0.0], [1.0, 0.0]], per_query=True
        ),
        [1.0, 1.0],
    )
    assert sr.ndcg_score([[2.0**53, 0]], [[1.0, 0.0]]) == 1.0


def test_only_tie_averaged_perfect_rankings_snap_to_one():
    # Perfect, with tied relevant items: the two sums round differently, the value is 1.
    rel = [[1.0, 3.0, 3.0, 3.0, 2.0, 1.0, 3.0]]
    assert sr.ndcg_score(rel, rel) == 1.0
    # Imperfect by a hair (huge gain spread, no ties): the shortfall stays visible.
    assert sr.ndcg_score([[45, 1, 0]], [[3.0, 1.0, 2.0]], gain="exponential") < 1.0
    assert sr.ndcg_score([[1e14, 1, 0]], [[3.0, 1.0, 2.0]]) < 1.0
