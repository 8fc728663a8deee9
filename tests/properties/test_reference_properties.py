"""Sanity tests of the reference implementation, and property tests of sklearn_rank against it.

Part 1 checks ``tests/reference.py`` against the worked examples and the convention cases of
METRICS.md, against scipy.stats.kendalltau and sklearn.metrics.ndcg_score/dcg_score, and against
closed forms for fully tied queries. It needs only numpy/scipy/scikit-learn.

Part 2 draws small, tie-heavy inputs with hypothesis and compares every public metric of
sklearn_rank, in the dense, long and list input forms, per query and averaged, through the
individual functions and through ``evaluate``, with the reference. It is skipped while the
package sklearn_rank does not exist.
"""

import math
from fractions import Fraction
from functools import lru_cache

import numpy as np
import pytest
import scipy.stats
import sklearn.metrics
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from reference import METRICS, reference_mean, reference_per_query

import sklearn_rank as sr

TOL = 1e-9


def _close(a, b, tol=TOL):
    return abs(a - b) <= tol


# ============================================================================================
# Part 1: sanity of the reference
# ============================================================================================

# Hivemall's worked example: truth {1, 2, 4}; ranked list [1, 3, 2, 6] (scores 10, 8, 6, 2);
# item 4 is relevant but never scored -> extra.
HIVEMALL_REL = [1, 0, 1, 0]
HIVEMALL_SCORE = [10.0, 8.0, 6.0, 2.0]
HIVEMALL_EXTRA = [1]
HIVEMALL_TABLE = {
    # metric: (top-4, top-2)
    "recall": (0.6666666666666666, 0.3333333333333333),
    "precision": (0.5, 0.5),
    "map": (0.5555555555555555, 0.3333333333333333),
    "auc": (0.75, 1.0),
    "mrr": (1.0, 1.0),
    "ndcg": (0.7039180890341349, 0.6131471927654585),
}


@pytest.mark.parametrize("ties", ["average", "stable"])
@pytest.mark.parametrize("metric", sorted(HIVEMALL_TABLE))
def test_reference_hivemall_binary(metric, ties):
    for k, expected in zip((4, 2), HIVEMALL_TABLE[metric]):
        got = reference_per_query(
            metric,
            HIVEMALL_REL,
            HIVEMALL_SCORE,
            HIVEMALL_EXTRA,
            k=k,
            ties=ties,
            ap_denominator="relevant",
        )
        assert _close(got, expected, 1e-12), (metric, k, got, expected)
    # binary labels: exponential gain is the same as linear gain
    for k in (2, 4):
        lin = reference_per_query(
            "ndcg", HIVEMALL_REL, HIVEMALL_SCORE, HIVEMALL_EXTRA, k=k, ties=ties
        )
        exp = reference_per_query(
            "ndcg", HIVEMALL_REL, HIVEMALL_SCORE, HIVEMALL_EXTRA, k=k, ties=ties, gain="exponential"
        )
        assert _close(lin, exp, 1e-12)


def test_reference_hivemall_graded():
    rel = [5, 2, 4, 1, 3]
    score = [10, 8, 6, 2, 1]
    for k, expected in ((2, 0.8128912838590544), (3, 0.9187707805346093)):
        got = reference_per_query("ndcg", rel, score, k=k, gain="exponential")
        assert _close(got, expected, 1e-12), (k, got, expected)


def test_reference_case_a():
    rel = [1, 0, 1, 0, 1, 1]
    score = [6, 5, 4, 3, 2, 1]
    expected_ap3 = {"relevant": Fraction(5, 12), "min_k": Fraction(5, 9), "hits": Fraction(5, 6)}
    for denominator, expected in expected_ap3.items():
        got = reference_per_query("map", rel, score, k=3, ap_denominator=denominator)
        assert _close(got, float(expected), 1e-12)
        assert round(got, 4) == {"relevant": 0.4167, "min_k": 0.5556, "hits": 0.8333}[denominator]
        full = reference_per_query("map", rel, score, ap_denominator=denominator)
        assert _close(full, 11 / 15, 1e-12)
        assert round(full, 4) == 0.7333
    ndcg3 = reference_per_query("ndcg", rel, score, k=3)
    assert _close(ndcg3, 1.5 / (1 + 1 / math.log2(3) + 0.5), 1e-12)
    assert round(ndcg3, 4) == 0.7039
    assert _close(reference_per_query("precision", rel, score, k=3), 2 / 3, 1e-12)
    assert _close(reference_per_query("recall", rel, score, k=3), 0.5, 1e-12)


def test_reference_case_b():
    rel = [0, 0, 1, 1]
    score = [0.3, 0.3, 0.3, 0.3]
    assert _close(reference_per_query("ndcg", rel, score, k=2, ties="average"), 0.5, 1e-12)
    assert reference_per_query("ndcg", rel, score, k=2, ties="stable") == 0.0
    assert _close(sklearn.metrics.ndcg_score([rel], [score], k=2), 0.5, 1e-12)


def test_reference_case_c():
    # METRICS.md says "ranked in that order", but its numbers (0.9134 / 0.8340) are those of the
    # labels [3, 2, 0, 1] with the gain-2 item ranked first and the gain-3 item second; ranked
    # exactly in the order 3, 2, ... NDCG@2 would be 1.0. The scores below give that ranking.
    rel = [3, 2, 0, 1]
    score = [0.9, 1.0, 0.1, 0.2]
    assert reference_per_query("ndcg", rel, [4, 3, 2, 1], k=2) == 1.0
    lin = reference_per_query("ndcg", rel, score, k=2, gain="linear")
    exp = reference_per_query("ndcg", rel, score, k=2, gain="exponential")
    assert round(lin, 4) == 0.9134
    assert round(exp, 4) == 0.8340
    assert _close(lin, sklearn.metrics.ndcg_score([rel], [score], k=2), 1e-12)


def test_reference_case_d():
    q1 = reference_per_query("ndcg", [0, 0, 0, 0], [4, 3, 2, 1], k=2)
    q2 = reference_per_query("ndcg", [0, 0, 0, 1], [4, 3, 2, 1], k=2)
    assert q1 is None
    assert q2 == 0.0
    assert reference_mean([q1, q2], no_relevant=0.0) == 0.0
    assert reference_mean([q1, q2], no_relevant=1.0) == 0.5
    assert reference_mean([q1, q2], no_relevant="skip") == 0.0
    with pytest.raises(ValueError):
        reference_mean([q1, q2], no_relevant="error")
    sk = sklearn.metrics.ndcg_score([[0, 0, 0, 0], [0, 0, 0, 1]], [[4, 3, 2, 1]] * 2, k=2)
    assert sk == 0.0


def test_reference_mean():
    assert reference_mean([1.0, 0.0, None], [1, 3, 4], 0.5) == pytest.approx(3.0 / 8)
    assert reference_mean([1.0, 0.0, None], [1, 3, 4], "skip") == pytest.approx(0.25)
    assert reference_mean([0.2, 0.4]) == pytest.approx(0.3)
    assert math.isnan(reference_mean([None, None], no_relevant="skip"))
    assert reference_mean([0.5, 0.25], no_relevant="error") == pytest.approx(0.375)
    with pytest.raises(ValueError):
        reference_mean([0.5, None], no_relevant="error")


def test_reference_no_relevant_item_rules():
    # graded labels below the threshold: no relevant item for the binary metrics, but NDCG exists
    rel, score = [1, 1, 0], [3, 2, 1]
    for metric in ("precision", "recall", "f1", "hit_rate", "mrr", "map", "auc", "arp"):
        assert reference_per_query(metric, rel, score, relevance_threshold=2) is None, metric
    for metric in ("cg", "dcg", "ndcg", "kendall_tau"):
        assert reference_per_query(metric, rel, score, relevance_threshold=2) is not None
    # relevant item only among the extras: ARP has no relevant candidate, the others exist
    rel, score, extra = [0, 0], [2, 1], [3]
    assert reference_per_query("arp", rel, score, extra) is None
    assert reference_per_query("recall", rel, score, extra) == 0.0
    assert reference_per_query("auc", rel, score, extra) == 0.5
    assert reference_per_query("ndcg", rel, score, extra) == 0.0
    assert reference_per_query("kendall_tau", rel, score, extra) == 0.0
    # empty ranking with a relevant extra
    assert reference_per_query("precision", [], [], [1], k=3) == 0.0
    assert reference_per_query("precision", [], [], [1], k=3, short_lists="length") == 0.0
    assert reference_per_query("f1", [], [], [1], k=3) == 0.0
    assert reference_per_query("ndcg", [], [], [2]) == 0.0
    assert reference_per_query("arp", [], [], [2]) is None
    # everything zero
    for metric in METRICS:
        assert reference_per_query(metric, [0, 0, 0], [1, 1, 0]) is None


def test_reference_short_lists_and_f1():
    rel, score = [1, 0], [2, 1]  # n = 2 < k = 5, R = 1 + 1 extra = 2
    assert reference_per_query("precision", rel, score, [1], k=5) == pytest.approx(1 / 5)
    assert reference_per_query(
        "precision", rel, score, [1], k=5, short_lists="length"
    ) == pytest.approx(1 / 2)
    p, r = 1 / 5, 1 / 2
    assert reference_per_query("f1", rel, score, [1], k=5) == pytest.approx(2 * p * r / (p + r))
    p = 1 / 2
    assert reference_per_query("f1", rel, score, [1], k=5, short_lists="length") == pytest.approx(
        2 * p * r / (p + r)
    )


def test_reference_arp_cg_dcg_log_base():
    rel, score = [0, 2, 0, 1], [4, 3, 2, 1]
    assert reference_per_query("arp", rel, score) == pytest.approx((2 / 4 + 4 / 4) / 2)
    assert reference_per_query("cg", rel, score, k=2) == 2.0
    assert reference_per_query("cg", rel, score, k=2, gain="exponential") == 3.0
    assert reference_per_query("dcg", rel, score, k=3, log_base=10) == pytest.approx(
        2 / math.log10(3)
    )
    assert reference_per_query("dcg", rel, score) == pytest.approx(
        2 / math.log2(3) + 1 / math.log2(5)
    )


# ---- against scikit-learn and scipy ----------------------------------------------------------

SCORE_VALUES = [0.0, 0.5, 1.0]
REL_VALUES = [0, 0, 0, 0, 1, 2, 3, 4]
MAX_ORDERINGS = 720


def n_orderings(scores):
    count = 1
    for c in np.unique(np.asarray(scores, dtype=float), return_counts=True)[1]:
        count *= math.factorial(int(c))
    return count


def tie_limited_scores(n, values=SCORE_VALUES):
    """Scores from a tiny set (heavy ties), sometimes all tied, at most MAX_ORDERINGS orderings."""
    tied = st.sampled_from(values).map(lambda v: [v] * n)
    spread = st.lists(st.sampled_from(values), min_size=n, max_size=n)
    options = [spread, spread] + ([tied] if math.factorial(n) <= MAX_ORDERINGS else [])
    return st.one_of(options).filter(lambda s: n_orderings(s) <= MAX_ORDERINGS)


def rel_row(n, values=REL_VALUES):
    return st.one_of(
        st.lists(st.sampled_from(values), min_size=n, max_size=n),
        st.just([0] * n),
    )


@st.composite
def sklearn_rows(draw):
    n_items = draw(st.integers(2, 7))
    n_rows = draw(st.integers(1, 4))
    rel = [draw(rel_row(n_items)) for _ in range(n_rows)]
    score = [draw(tie_limited_scores(n_items)) for _ in range(n_rows)]
    return rel, score


@pytest.mark.slow
@settings(max_examples=60, deadline=None)
@given(sklearn_rows(), st.sampled_from([None, 1, 2, 3, 5, 10]), st.sampled_from([2, 10, math.e]))
def test_reference_matches_sklearn_ndcg_and_dcg(rows, k, log_base):
    rel, score = rows
    weights = [1.0 + i for i in range(len(rel))]
    per_row = []
    for r, s in zip(rel, score):
        ref = reference_per_query("ndcg", r, s, k=k, ties="average")
        ref = 0.0 if ref is None else ref
        per_row.append(ref)
        sk = sklearn.metrics.ndcg_score([r], [s], k=k)
        assert _close(ref, sk), (r, s, k, ref, sk)
        ref_dcg = reference_per_query("dcg", r, s, k=k, ties="average", log_base=log_base)
        ref_dcg = 0.0 if ref_dcg is None else ref_dcg
        sk_dcg = sklearn.metrics.dcg_score([r], [s], k=k, log_base=log_base)
        assert _close(ref_dcg, sk_dcg), (r, s, k, log_base, ref_dcg, sk_dcg)
    sk_mean = sklearn.metrics.ndcg_score(rel, score, k=k, sample_weight=weights)
    assert _close(reference_mean(per_row, weights, 0.0), sk_mean)


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 7).flatmap(lambda n: st.tuples(rel_row(n), st.permutations(range(n)))))
def test_reference_kendall_tau_strict_matches_scipy(data):
    rel, perm = data
    score = [float(p) for p in perm]  # distinct scores: a strict ordering
    for ties in ("average", "stable"):
        ref = reference_per_query("kendall_tau", rel, score, ties=ties)
        if not any(r > 0 for r in rel):
            assert ref is None
            continue
        if len(set(rel)) == 1:
            assert ref == 0.0
            continue
        expected = scipy.stats.kendalltau(score, rel, variant="b").statistic
        assert _close(ref, expected), (rel, score, ref, expected)


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 6).flatmap(lambda n: st.tuples(rel_row(n), tie_limited_scores(n))))
def test_reference_kendall_tau_expected_value_over_ties(data):
    """With tied scores, the brute-force expectation of tau-b over the orderings of the tied
    items equals (C - D) / sqrt(n0 * (n0 - n2)): tied-score pairs are concordant and
    discordant equally often, and a strict ranking has no tied pairs (n1 = 0)."""
    rel, score = data
    assume(any(r > 0 for r in rel) and len(set(rel)) > 1)
    n = len(rel)
    concordant = discordant = tied_rel = 0
    for i in range(n):
        for j in range(i + 1, n):
            ds = score[i] - score[j]
            dr = rel[i] - rel[j]
            if dr == 0:
                tied_rel += 1
            elif ds * dr > 0:
                concordant += 1
            elif ds * dr < 0:
                discordant += 1
    n0 = n * (n - 1) // 2
    expected = (concordant - discordant) / math.sqrt(n0 * (n0 - tied_rel))
    got = reference_per_query("kendall_tau", rel, score, ties="average")
    assert _close(got, expected), (rel, score, got, expected)


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 6), st.data())
def test_reference_all_tied_closed_forms(n, data):
    """A query whose candidates all have the same score, binary relevance, r relevant."""
    r = data.draw(st.integers(1, n))
    k = data.draw(st.integers(1, n))
    rel = [1] * r + [0] * (n - r)
    rel = data.draw(st.permutations(rel))
    score = [0.5] * n

    def ref(metric, **kw):
        return reference_per_query(metric, rel, score, ties="average", **kw)

    assert _close(ref("precision", k=k), r / n)
    assert _close(ref("recall", k=k), k / n)
    assert _close(ref("hit_rate", k=k), 1 - math.comb(n - r, k) / math.comb(n, k))
    assert _close(ref("auc"), 0.5)
    assert _close(ref("arp"), (n + 1) / (2 * n))
    # expected reciprocal rank of the first relevant item among n tied items
    err = sum(Fraction(math.comb(n - i, r - 1), math.comb(n, r) * i) for i in range(1, n + 1))
    assert _close(ref("mrr"), float(err))
    # the ranking carries no information: tau-b has expectation 0
    if 0 < r < n:
        assert _close(ref("kendall_tau"), 0.0)
    # DCG: every position holds a relevant item with probability r/n
    expected_dcg = sum((r / n) / math.log2(i + 1) for i in range(1, k + 1))
    assert _close(ref("dcg", k=k), expected_dcg)


def test_reference_ties_stable_uses_input_order():
    rel = [0, 1, 0, 2]
    score = [1.0, 1.0, 0.0, 0.0]
    # stable order: 0, 1, 2, 3 -> relevances 0, 1, 0, 2
    assert reference_per_query("mrr", rel, score, ties="stable") == 0.5
    assert reference_per_query("cg", rel, score, k=1, ties="stable") == 0.0
    # average: the first place is item 0 or 1 with probability 1/2 each
    assert reference_per_query("mrr", rel, score, ties="average") == pytest.approx(0.75)
    assert reference_per_query("cg", rel, score, k=1, ties="average") == pytest.approx(0.5)


# ============================================================================================
# Part 2: sklearn_rank against the reference
# ============================================================================================

FUNCTIONS = {
    "precision": "precision_at_k_score",
    "recall": "recall_at_k_score",
    "f1": "f1_at_k_score",
    "hit_rate": "hit_rate_score",
    "mrr": "mean_reciprocal_rank_score",
    "map": "mean_average_precision_score",
    "cg": "cg_score",
    "dcg": "dcg_score",
    "ndcg": "ndcg_score",
    "auc": "ranking_auc_score",
    "arp": "average_relative_position",
    "kendall_tau": "kendall_tau_score",
}

# The convention parameters each public function accepts (besides groups, sample_weight,
# ties, no_relevant and per_query, which all accept).
ACCEPTS = {
    "precision": {"k", "relevance_threshold", "short_lists"},
    "recall": {"k", "relevance_threshold"},
    "f1": {"k", "relevance_threshold", "short_lists"},
    "hit_rate": {"k", "relevance_threshold"},
    "mrr": {"k", "relevance_threshold"},
    "map": {"k", "relevance_threshold", "ap_denominator"},
    "cg": {"k", "gain"},
    "dcg": {"k", "gain", "log_base"},
    "ndcg": {"k", "gain"},
    "auc": {"k", "relevance_threshold"},
    "arp": {"relevance_threshold"},
    "kendall_tau": set(),
}
DEFAULT_NO_RELEVANT = {name: ("skip" if name == "arp" else 0.0) for name in METRICS}
K_VALUES = [None, 1, 2, 3, 5, 10]

assert set(FUNCTIONS) == set(METRICS) == set(ACCEPTS)


@lru_cache(maxsize=200_000)
def _ref_cached(metric, rel, score, extra, params):
    return reference_per_query(metric, list(rel), list(score), list(extra), **dict(params))


def ref_value(metric, rel, score, extra, conv, *, for_evaluate=False):
    """The reference for one query, using only the parameters the metric takes."""
    params = {"ties": conv["ties"]}
    for p in ACCEPTS[metric]:
        if p == "log_base" and for_evaluate:
            continue  # evaluate has no log_base
        params[p] = conv[p]
    return _ref_cached(
        metric,
        tuple(float(r) for r in rel),
        tuple(float(s) for s in score),
        tuple(float(e) for e in extra),
        tuple(sorted(params.items())),
    )


def lib_kwargs(metric, conv, no_relevant):
    kw = {"ties": conv["ties"]}
    for p in ACCEPTS[metric]:
        kw[p] = conv[p]
    if no_relevant is not None:
        kw["no_relevant"] = no_relevant
    return kw


def effective_no_relevant(metric, no_relevant, item_ids=False):
    """Inputs with item ids (ranked lists) skip a query without a relevant item by
    default, as recommender libraries leave out users without test items."""
    if no_relevant is None and item_ids:
        return "skip"
    return DEFAULT_NO_RELEVANT[metric] if no_relevant is None else no_relevant


def expected_per_query(values, no_relevant):
    return [
        (math.nan if no_relevant == "skip" else float(no_relevant)) if v is None else v
        for v in values
    ]


def assert_per_query(actual, expected, context):
    actual = np.asarray(actual, dtype=float)
    assert actual.shape == (len(expected),), (context, actual, expected)
    for i, (a, e) in enumerate(zip(actual, expected)):
        if math.isnan(e):
            assert math.isnan(a), (f"query {i}: expected NaN (skipped), got {a}", context)
        else:
            assert not math.isnan(a) and _close(a, e), (
                f"query {i}: expected {e!r}, got {a!r}",
                context,
            )


def assert_mean(compute, expected, context):
    """compute() returns the library's mean. When every query is skipped there is no mean:
    the library raises ValueError."""
    if math.isnan(expected):
        with pytest.raises(ValueError):
            compute()
        return
    actual = float(compute())
    assert _close(actual, expected), (f"mean: expected {expected!r}, got {actual!r}", context)


def evaluate_name(metric, k):
    if k is None or metric in ("arp", "kendall_tau"):
        return metric
    return f"{metric}@{k}"


@st.composite
def conventions(draw, graded=True):
    return {
        "ties": draw(st.sampled_from(["average", "stable"])),
        "k": draw(st.sampled_from(K_VALUES)),
        "gain": draw(st.sampled_from(["linear", "exponential"])),
        "ap_denominator": draw(st.sampled_from(["relevant", "min_k", "hits"])),
        "short_lists": draw(st.sampled_from(["k", "length"])),
        "relevance_threshold": draw(st.sampled_from([None, 2])) if graded else None,
        "log_base": draw(st.sampled_from([2, 10, math.e])),
    }


NO_RELEVANT = st.sampled_from([0.0, 1.0, "skip"])
NO_RELEVANT_EVALUATE = st.sampled_from([None, 0.0, 1.0, "skip"])


def check_all(
    y_true,
    y_score,
    queries,
    conv,
    data,
    *,
    groups=None,
    weights_for_lib=None,
    weights_per_query=None,
    context=None,
    item_ids=False,
):
    """Compare every metric, per query and averaged, through the individual functions and
    through evaluate, with the reference.

    queries: one (rel, score, extra) per query, in the library's query order.
    """
    lib = sr
    common = {}
    if groups is not None:
        common["groups"] = groups
    context = {
        "y_true": y_true,
        "y_score": y_score,
        "groups": groups,
        "sample_weight": weights_for_lib,
        "conv": conv,
        **(context or {}),
    }

    # ---- individual functions
    for metric in METRICS:
        no_relevant = data.draw(st.one_of(st.none(), NO_RELEVANT), label=f"no_relevant[{metric}]")
        nr = effective_no_relevant(metric, no_relevant, item_ids)
        fn = getattr(lib, FUNCTIONS[metric])
        kw = lib_kwargs(metric, conv, no_relevant)
        ref = [ref_value(metric, *q, conv) for q in queries]
        ctx = {
            "metric": metric,
            "function": FUNCTIONS[metric],
            "kwargs": kw,
            "reference": ref,
            **context,
        }
        got = fn(y_true, y_score, per_query=True, **common, **kw)
        assert_per_query(got, expected_per_query(ref, nr), ctx)
        assert_mean(
            lambda fn=fn, kw=kw: fn(y_true, y_score, sample_weight=weights_for_lib, **common, **kw),
            reference_mean(ref, weights_per_query, nr),
            ctx,
        )

    # ---- evaluate, every metric at once, each with its own k
    no_relevant = data.draw(NO_RELEVANT_EVALUATE, label="no_relevant[evaluate]")
    ks = {m: data.draw(st.sampled_from(K_VALUES), label=f"k[{m}]") for m in METRICS}
    names = [evaluate_name(m, ks[m]) for m in METRICS]
    kw = {
        p: conv[p] for p in ("ties", "gain", "ap_denominator", "relevance_threshold", "short_lists")
    }
    kw["no_relevant"] = no_relevant
    refs = {}
    for metric, name in zip(METRICS, names):
        mconv = dict(conv, k=ks[metric])
        ref = [ref_value(metric, *q, mconv, for_evaluate=True) for q in queries]
        nr = effective_no_relevant(metric, no_relevant, item_ids)
        refs[name] = (ref, expected_per_query(ref, nr), reference_mean(ref, weights_per_query, nr))
    got_pq = lib.evaluate(y_true, y_score, names, per_query=True, **common, **kw)
    assert set(got_pq) == set(names), (names, got_pq)
    # metrics whose mean exists, all at once; the others (every query skipped) one by one
    with_mean = [name for name in names if not math.isnan(refs[name][2])]
    got_mean = (
        lib.evaluate(y_true, y_score, with_mean, sample_weight=weights_for_lib, **common, **kw)
        if with_mean
        else {}
    )
    assert set(got_mean) == set(with_mean), (with_mean, got_mean)
    for name in names:
        ref, expected_pq, expected_mean = refs[name]
        ctx = {"metric": name, "function": "evaluate", "kwargs": kw, "reference": ref, **context}
        assert_per_query(got_pq[name], expected_pq, ctx)
        if name in got_mean:
            assert _close(float(got_mean[name]), expected_mean), (
                f"mean: expected {expected_mean!r}, got {got_mean[name]!r}",
                ctx,
            )
        else:
            assert_mean(
                lambda name=name, kw=kw: lib.evaluate(
                    y_true, y_score, [name], sample_weight=weights_for_lib, **common, **kw
                ),
                expected_mean,
                ctx,
            )


WEIGHT_VALUES = [0.5, 1.0, 2.0, 3.0]


# ---- dense form --------------------------------------------------------------------------------


@st.composite
def dense_inputs(draw):
    n_queries = draw(st.integers(1, 4), label="n_queries")
    n_items = draw(st.integers(1, 7), label="n_items")
    rel = [draw(rel_row(n_items)) for _ in range(n_queries)]
    score = [draw(tie_limited_scores(n_items)) for _ in range(n_queries)]
    weights = draw(
        st.one_of(
            st.none(),
            st.lists(st.sampled_from(WEIGHT_VALUES), min_size=n_queries, max_size=n_queries),
        )
    )
    return rel, score, weights


@pytest.mark.slow
@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
@given(dense_inputs(), conventions(), st.data())
def test_library_dense(inputs, conv, data):
    rel, score, weights = inputs
    queries = [(r, s, ()) for r, s in zip(rel, score)]
    as_array = data.draw(st.booleans(), label="as numpy arrays")
    y_true = np.array(rel, dtype=float) if as_array else rel
    y_score = np.array(score, dtype=float) if as_array else score
    check_all(
        y_true, y_score, queries, conv, data, weights_for_lib=weights, weights_per_query=weights
    )


# ---- long form ---------------------------------------------------------------------------------


@st.composite
def long_inputs(draw):
    n_queries = draw(st.integers(1, 4), label="n_queries")
    id_kind = draw(st.sampled_from(["str", "negint", "int"]), label="id kind")
    if id_kind == "str":
        ids = draw(
            st.lists(
                st.text(alphabet="ab-_ Q", min_size=1, max_size=4),
                min_size=n_queries,
                max_size=n_queries,
                unique=True,
            )
        )
    elif id_kind == "negint":
        ids = draw(
            st.lists(
                st.integers(-(2**62), -(2**40)), min_size=n_queries, max_size=n_queries, unique=True
            )
        )
    else:
        ids = draw(st.lists(st.integers(0, 9), min_size=n_queries, max_size=n_queries, unique=True))
    rows = []  # (id, rel, score)
    for qid in ids:
        n = draw(st.integers(1, 6))
        rel = draw(rel_row(n))
        score = draw(tie_limited_scores(n))
        rows.extend((qid, r, s) for r, s in zip(rel, score))
    order = draw(st.permutations(range(len(rows))), label="row order")
    rows = [rows[i] for i in order]
    weight_kind = draw(st.sampled_from(["none", "per_query", "per_row"]), label="weight kind")
    weight_of = {qid: draw(st.sampled_from(WEIGHT_VALUES)) for qid in ids}
    return rows, weight_kind, weight_of


@pytest.mark.slow
@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
@given(long_inputs(), conventions(), st.data())
def test_library_long(inputs, conv, data):
    lib = sr
    rows, weight_kind, weight_of = inputs
    groups = np.array([r[0] for r in rows])
    y_true = np.array([r[1] for r in rows], dtype=float)
    y_score = np.array([r[2] for r in rows], dtype=float)

    # the query order: first appearance in the (shuffled) rows
    order = []
    for qid, _, _ in rows:
        if qid not in order:
            order.append(qid)
    assert list(lib.query_ids(groups).tolist()) == order

    # each query's candidates in their row order (ties="stable" breaks ties by row order)
    queries = []
    for qid in order:
        mine = [r for r in rows if r[0] == qid]
        queries.append(([r[1] for r in mine], [r[2] for r in mine], ()))

    weights_per_query = None if weight_kind == "none" else [weight_of[q] for q in order]
    if weight_kind == "per_row":
        weights_for_lib = np.array([weight_of[r[0]] for r in rows])
    else:
        weights_for_lib = weights_per_query
    check_all(
        y_true,
        y_score,
        queries,
        conv,
        data,
        groups=groups,
        weights_for_lib=weights_for_lib,
        weights_per_query=weights_per_query,
        context={"rows": rows},
    )


# ---- list form ---------------------------------------------------------------------------------

ITEMS_INT = list(range(8))
ITEMS_STR = ["a", "b", "c", "d", "e", "f", "g", "h"]


@st.composite
def list_inputs(draw):
    n_queries = draw(st.integers(1, 4), label="n_queries")
    items = draw(st.sampled_from([ITEMS_INT, ITEMS_STR]), label="item ids")
    truth_kind = draw(st.sampled_from(["set", "dict"]), label="truth kind")
    ranking_kind = draw(st.sampled_from(["sequence", "dict"]), label="ranking kind")
    truths, rankings = [], []
    for _ in range(n_queries):
        if truth_kind == "set":
            truths.append(draw(st.sets(st.sampled_from(items), max_size=5)))
        else:
            truths.append(
                draw(
                    st.dictionaries(st.sampled_from(items), st.sampled_from(REL_VALUES), max_size=5)
                )
            )
        ranked = draw(st.lists(st.sampled_from(items), unique=True, max_size=6))
        if ranking_kind == "sequence":
            rankings.append(ranked)
        else:
            scores = draw(tie_limited_scores(len(ranked)))
            rankings.append(dict(zip(ranked, scores)))
    weights = draw(
        st.one_of(
            st.none(),
            st.lists(st.sampled_from(WEIGHT_VALUES), min_size=n_queries, max_size=n_queries),
        )
    )
    return truths, rankings, truth_kind, ranking_kind, weights


def _list_query(truth, ranking):
    """(rel, score, extra) of one query in list form."""
    if isinstance(truth, set):
        truth = {item: 1 for item in truth}
    if isinstance(ranking, dict):
        candidates = list(ranking)  # insertion order = "row order" for ties="stable"
        score = [ranking[item] for item in candidates]
    else:
        candidates = list(ranking)
        score = [float(len(candidates) - i) for i in range(len(candidates))]
    rel = [truth.get(item, 0) for item in candidates]
    extra = [r for item, r in truth.items() if item not in set(candidates)]
    return rel, score, extra


@pytest.mark.slow
@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
@given(list_inputs(), conventions(), st.data())
def test_library_lists(inputs, conv, data):
    truths, rankings, truth_kind, ranking_kind, weights = inputs
    if truth_kind == "set":
        conv = dict(conv, relevance_threshold=None)  # binary truth: no threshold
    queries = [_list_query(t, r) for t, r in zip(truths, rankings)]
    check_all(
        truths,
        rankings,
        queries,
        conv,
        data,
        weights_for_lib=weights,
        weights_per_query=weights,
        item_ids=True,
    )


# ---- no_relevant="error" -----------------------------------------------------------------------


@pytest.mark.parametrize("metric", METRICS)
def test_library_no_relevant_error(metric):
    lib = sr
    fn = getattr(lib, FUNCTIONS[metric])
    good_true, good_score = [[0, 2, 1], [1, 0, 0]], [[0.5, 1.0, 0.0], [0.0, 0.0, 1.0]]
    bad_true = [[0, 2, 1], [0, 0, 0]]
    value = fn(good_true, good_score, no_relevant="error")
    ref = [reference_per_query(metric, r, s) for r, s in zip(good_true, good_score)]
    assert _close(value, reference_mean(ref, no_relevant="error"))
    with pytest.raises(ValueError):
        fn(bad_true, good_score, no_relevant="error")
    with pytest.raises(ValueError):
        lib.evaluate(bad_true, good_score, [metric], no_relevant="error")
