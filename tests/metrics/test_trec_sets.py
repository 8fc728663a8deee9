"""trec_eval's set measures and the rest of all_trec (set_relative_P, set_map, utility,
relative_P, gm_bpref, binG, G, Rndcg, ndcg_rel, rbp_resid): closed forms on hand-made
queries, a slow
obvious reference written from trec_eval's m_*.c loops, and the exact tie average
against every ordering of the tied items."""

import itertools
import math

import numpy as np
import pytest

import sklearn_rank as sr

NAMES = [
    "set_relative_precision",
    "set_map",
    "utility",
    "utility(coefficients='2,-1,-0.5,0.25')",
    "relative_precision@3",
    "relative_precision@10",
    "gm_bpref",
    "bin_g",
    "rndcg",
    "ndcg_rel",
    "g",
    "g(level_gains='1=3,2=9,3=0.5')",
    "ndcg_rel(level_gains='1=4,3=1')",
    "ndcg_gains(level_gains='1=3,2=9,3=0.5')",
    "trec_rbp_residual(p=0.9)",
]


def _reference(name, ranked, qrels, level=1):
    """One query, trec_eval's loops: ``ranked`` docnos in rank order, ``qrels`` {doc: grade}."""
    grades = [qrels.get(d) for d in ranked]  # None: unjudged
    rel = [g is not None and g >= level for g in grades]
    n, h = len(ranked), sum(rel)
    big_r = sum(g >= level for g in qrels.values())
    if name == "set_relative_precision":
        return h / min(n, big_r) if n and big_r else 0.0
    if name == "set_map":
        return h * h / (n * big_r) if n and big_r else 0.0
    if name.startswith("utility"):
        p = (1, -1, 0, 0) if name == "utility" else (2, -1, -0.5, 0.25)
        return p[0] * h + p[1] * (n - h) + p[2] * (big_r - h) + p[3] * (h - n - big_r)
    if name.startswith("relative_precision"):
        k = int(name.split("@")[1])
        return sum(rel[:k]) / min(k, big_r) if big_r else 0.0
    if name == "gm_bpref":  # per query: bpref
        judged_non = sum(0 <= g < level for g in qrels.values())
        total, seen = 0.0, 0
        for g in grades:
            if g is None:
                continue
            if g < level:
                seen += 1
            elif seen:
                total += 1 - min(seen, big_r) / min(judged_non, big_r)
            else:
                total += 1
        return total / big_r if big_r else 0.0
    if name == "bin_g":
        total, so_far = 0.0, 0
        for i, r in enumerate(rel):
            if r:
                so_far += 1
                total += 1 / math.log2(3 + i - so_far)
        return total / big_r if so_far else 0.0
    if name == "rndcg":
        return _rndcg(grades, qrels, big_r)
    if name == "ndcg_rel":
        return _ndcg_rel(grades, qrels)
    if name == "g":
        return _g(grades, qrels)
    if name.startswith("g("):
        return _g(grades, qrels, {1: 3, 2: 9, 3: 0.5})
    if name.startswith("ndcg_rel("):
        return _ndcg_rel(grades, qrels, {1: 4, 3: 1})
    if name.startswith("ndcg_gains"):
        gain = {0: 0, 1: 3, 2: 9, 3: 0.5}
        ideal = sorted((gain[g] for g in qrels.values() if gain[g] > 0), reverse=True)
        dcg = sum(gain[g] / math.log2(i + 2) for i, g in enumerate(grades) if g is not None)
        idcg = sum(v / math.log2(i + 2) for i, v in enumerate(ideal))
        return dcg / idcg if idcg else 0.0
    if name.startswith("trec_rbp_residual"):
        p, total, unjudged = 0.9, 0.0, 0
        for i, g in enumerate(grades):
            if g is None:
                unjudged += 1
                total += p**i
        return p**n + (1 - p) * total if unjudged else 0.0
    raise AssertionError(name)


def _rndcg(grades, qrels, big_r):
    """m_Rndcg.c's loops, line for line (default gains: the grades)."""
    if big_r == 0:
        return 0.0
    levels = max(qrels.values()) + 1
    counts = [sum(g == level for g in qrels.values()) for level in range(levels)]
    cur = levels - 1
    ideal_gain = float(cur)
    old, at_level, dcg, idcg, total, points, i = ideal_gain, 0, 0.0, 0.0, 0.0, 0, 0

    def step():
        nonlocal at_level, cur, ideal_gain
        at_level += 1
        while cur >= 0 and at_level > counts[cur]:
            at_level, cur = 1, cur - 1
            ideal_gain = float(cur) if cur >= 0 else 0.0

    n = len(grades)
    while i < n and ideal_gain > 0:
        gain = grades[i] or 0
        step()
        if old != ideal_gain:
            if idcg > 0:
                total, points = total + dcg / idcg, points + 1
            old = ideal_gain
        dcg += gain / math.log2(i + 2) if gain else 0.0
        idcg += ideal_gain / math.log2(i + 2) if ideal_gain > 0 else 0.0
        i += 1
    if i < n:
        while i < n:
            gain = grades[i] or 0
            dcg += gain / math.log2(i + 2) if gain else 0.0
            i += 1
        if idcg > 0:
            total, points = total + dcg / idcg, points + 1
    while ideal_gain > 0:
        step()
        if old != ideal_gain:
            if idcg > 0:
                total, points = total + dcg / idcg, points + 1
            old = ideal_gain
        idcg += ideal_gain / math.log2(i + 2) if ideal_gain > 0 else 0.0
        i += 1
    return total / points


def _ndcg_rel(grades, qrels, gains=None):
    """m_ndcg_rel.c: nDCG at each positive item's rank, at N for those not retrieved."""
    gains = gains or {}
    grades = [None if g is None else gains.get(g, g) for g in grades]
    ideal = sorted((gains.get(g, g) for g in qrels.values() if gains.get(g, g) > 0), reverse=True)
    if not ideal:
        return 0.0

    def idcg(depth):
        return sum(g / math.log2(i + 2) for i, g in enumerate(ideal[:depth]))

    total, dcg, found = 0.0, 0.0, 0
    for i, g in enumerate(grades):
        dcg += (g or 0) / math.log2(i + 2)
        if g and g > 0:
            total += dcg / idcg(i + 1)
            found += 1
    total += (len(ideal) - found) * dcg / idcg(len(ideal))
    return total / len(ideal) if total > 0 else 0.0


def _g(grades, qrels, gains=None):
    """m_G.c: gain / log2(2 + ideal cost so far - gain gathered so far), / ideal total."""
    gains = gains or {}
    grades = [None if g is None else gains.get(g, g) for g in grades]
    ideal = sorted((gains.get(g, g) for g in qrels.values() if gains.get(g, g) > 0), reverse=True)
    if not ideal:
        return 0.0
    total, cost, gathered = 0.0, 0.0, 0.0
    for i, g in enumerate(grades):
        gain = max(g or 0, 0)
        gathered += gain
        cost += max(ideal[i] if i < len(ideal) else 0.0, 1.0)
        if gain:
            total += gain / math.log2(2 + cost - gathered)
    return total / sum(ideal)


def _random_query(rng, n_items):
    docs = [f"d{i}" for i in range(n_items + 3)]
    qrels = {}
    for d in docs:
        if rng.random() < 0.75:
            qrels[d] = int(rng.choice([0, 0, 1, 2, 3]))
    ranked = list(rng.permutation(docs)[:n_items])
    scores = rng.integers(0, 3, size=n_items).astype(float)
    return ranked, scores, qrels


def _evaluate(ranked, scores, qrels, **conventions):
    truth = sr.ItemJudgments(["q"] * len(qrels), list(qrels), list(qrels.values()))
    run = sr.ItemRanking(["q"] * len(ranked), ranked, scores)
    values = sr.evaluate(truth, run, NAMES, per_query=True, no_relevant=0, **conventions)
    return {name: values[name][0] for name in NAMES}


@pytest.mark.parametrize("seed", range(12))
def test_stable_order_equals_trec_eval_loops(seed):
    rng = np.random.default_rng(seed)
    ranked, _scores, qrels = _random_query(rng, int(rng.integers(1, 12)))
    if not any(g >= 1 for g in qrels.values()):
        qrels["d0"] = 2
    scores = -np.arange(len(ranked), dtype=float)  # no ties: the listed order
    got = _evaluate(ranked, scores, qrels)
    for name in NAMES:
        assert got[name] == pytest.approx(_reference(name, ranked, qrels), abs=1e-12), name


def _precision_sum(grades, level=1):
    """S of yaap: the sum of precision at the relevant ranks."""
    total, found = 0.0, 0
    for i, g in enumerate(grades):
        if g is not None and g >= level:
            found += 1
            total += found / (i + 1)
    return total


@pytest.mark.parametrize("seed", range(12))
def test_yaap_is_trec_eval_loop_and_its_log_applies_to_the_tie_average(seed):
    rng = np.random.default_rng(300 + seed)
    ranked, scores, qrels = _random_query(rng, int(rng.integers(2, 8)))
    truth = sr.ItemJudgments(["q"] * len(qrels), list(qrels), list(qrels.values()))
    big_r = sum(g >= 1 for g in qrels.values())
    stable = sr.ItemRanking(["q"] * len(ranked), ranked, -np.arange(len(ranked), dtype=float))
    s = _precision_sum([qrels.get(d) for d in ranked])
    want = math.log((1 + s) / (1 + big_r - s))
    assert sr.yaap_score(truth, stable, no_relevant=0) == pytest.approx(want, abs=1e-12)
    tied = sr.ItemRanking(["q"] * len(ranked), ranked, scores)
    groups = [[d for d, v in zip(ranked, scores) if v == value] for value in sorted(set(scores))]
    sums = [
        _precision_sum([qrels.get(d) for group in orders for d in group])
        for orders in itertools.product(*(itertools.permutations(g) for g in groups[::-1]))
    ]
    mean = sum(sums) / len(sums)
    want = math.log((1 + mean) / (1 + big_r - mean))
    assert sr.yaap_score(truth, tied, no_relevant=0) == pytest.approx(want, abs=1e-12)


@pytest.mark.parametrize("seed", range(12))
def test_tie_average_is_the_mean_over_every_ordering(seed):
    rng = np.random.default_rng(100 + seed)
    ranked, scores, qrels = _random_query(rng, int(rng.integers(2, 8)))
    if not any(g >= 1 for g in qrels.values()):
        qrels[ranked[0]] = 1
    got = _evaluate(ranked, scores, qrels)
    # every ordering of the tied items: sort by score, permute inside each group
    groups = [[d for d, s in zip(ranked, scores) if s == value] for value in sorted(set(scores))]
    groups.reverse()
    totals = dict.fromkeys(NAMES, 0.0)
    count = 0
    for orders in itertools.product(*(itertools.permutations(g) for g in groups)):
        order = [d for group in orders for d in group]
        for name in NAMES:
            totals[name] += _reference(name, order, qrels)
        count += 1
    for name in NAMES:
        assert got[name] == pytest.approx(totals[name] / count, abs=1e-12), name


def test_closed_forms_on_one_query():
    # b (0), a (1), e (unjudged), c (2); d (0) not retrieved: N = 4, R = 2, h = 2
    truth = sr.ItemJudgments(["q"] * 4, ["a", "b", "c", "d"], [1, 0, 2, 0])
    run = sr.ItemRanking(["q"] * 4, ["b", "a", "e", "c"], [0.9, 0.8, 0.7, 0.6])
    assert sr.set_relative_precision_score(truth, run) == 1.0  # 2 / min(4, 2)
    assert sr.set_average_precision_score(truth, run) == 0.5  # 2**2 / (4 * 2)
    assert sr.utility_score(truth, run) == 0.0  # 2 - 2
    assert sr.utility_score(truth, run, coefficients=(2, -1, -3, 0.5)) == 2.0 + 0.5 * -4
    assert sr.relative_precision_at_k_score(truth, run, k=1) == 0.0
    assert sr.relative_precision_at_k_score(truth, run, k=3) == 0.5  # 1 / min(3, 2)
    assert sr.binary_g_score(truth, run) == pytest.approx((1 / math.log2(3) + 1 / 2) / 2)
    # boundaries B = 1 (grade 2), 2 (grade 1); N = 4 > 2 + 1: the final point at N
    idcg2 = 2 + 1 / math.log2(3)
    dcg4 = 1 / math.log2(3) + 2 / math.log2(5)
    expected = (0 / 2 + (1 / math.log2(3)) / idcg2 + dcg4 / idcg2) / 3
    assert sr.r_ndcg_score(truth, run) == pytest.approx(expected, abs=1e-15)
    assert sr.trec_rbp_residual(truth, run, p=0.5) == 0.5**4 + 0.5 * 0.5**2
    judged = sr.ItemRanking(["q"] * 3, ["b", "a", "c"], [0.9, 0.8, 0.6])
    assert sr.trec_rbp_residual(truth, judged) == 0.0  # nothing unjudged: 0


def test_gm_bpref_is_the_geometric_mean_of_bpref_floored():
    truth = sr.ItemJudgments(["q1", "q1", "q2", "q2"], ["a", "b", "c", "d"], [1, 0, 1, 0])
    run = sr.ItemRanking(["q1", "q1", "q2", "q2"], ["b", "a", "c", "d"], [2, 1, 2, 1])
    bpref = sr.bpref_score(truth, run, per_query=True)
    assert list(bpref) == [0.0, 1.0]
    gm = sr.geometric_mean_bpref_score(truth, run)
    assert gm == pytest.approx(math.exp((math.log(1e-5) + math.log(1.0)) / 2))


def test_utility_coefficients_are_checked_with_the_value_named():
    truth, run = [[1, 0, 1]], [[3, 2, 1]]
    with pytest.raises(ValueError, match=r"coefficients must be four numbers .*got \(1, 2\)"):
        sr.utility_score(truth, run, coefficients=(1, 2))
    with pytest.raises(ValueError, match="coefficients must be four numbers such as"):
        sr.evaluate(truth, run, ["utility(coefficients='1,x,0,0')"])
    assert sr.evaluate(truth, run, ["utility(coefficients='2,-1,0,0')"]) == {
        "utility(coefficients='2,-1,0,0')": 3.0  # 2 * 2 - 1
    }


def test_g_refuses_a_tie_group_too_large_to_walk_and_names_stable():
    y_true = np.tile([3, 2, 1, 0], 1200)[None, :]
    y_score = np.zeros_like(y_true, dtype=float)
    with pytest.raises(ValueError, match="ties='stable'"):
        sr.g_score(y_true, y_score)
    assert 0 < sr.g_score(y_true, y_score, ties="stable") <= 1


def test_eleven_point_average_at_given_levels_is_the_mean_of_iprec_there():
    rng = np.random.default_rng(7)
    y_true, y_score = rng.integers(0, 3, (20, 12)), rng.integers(0, 4, (20, 12))
    levels = (0.25, 0.5, 0.75)
    got = sr.eleven_point_average_precision_score(y_true, y_score, levels=levels, per_query=True)
    iprec = [
        sr.interpolated_precision_score(y_true, y_score, recall=p, per_query=True) for p in levels
    ]
    np.testing.assert_allclose(got, (iprec[0] + iprec[1] + iprec[2]) / 3, rtol=0, atol=1e-15)
    # trec_eval's spelling and ours name the same request
    named = sr.evaluate(y_true, y_score, ["11pt_avg..25,.5,.75", "iprec_avg(levels='.25,.5,.75')"])
    assert named["11pt_avg_.25,.5,.75"] == named["iprec_avg(levels='.25,.5,.75')"]
    with pytest.raises(ValueError, match="levels must be a recall level between 0 and 1; got 1.5"):
        sr.eleven_point_average_precision_score(y_true, y_score, levels=(0.5, 1.5))


def test_set_f_weighs_recall_by_beta_as_trec_eval():
    # h = 2 of N = 4 retrieved, R = 2: P = 0.5, recall 1
    truth = sr.ItemJudgments(["q"] * 4, ["a", "b", "c", "d"], [1, 0, 2, 0])
    run = sr.ItemRanking(["q"] * 4, ["b", "a", "e", "c"], [0.9, 0.8, 0.7, 0.6])
    for beta in (0.5, 1.0, 3.0):
        expected = (beta + 1) * 0.5 * 1.0 / (beta * 0.5 + 1.0)
        assert sr.set_f_score(truth, run, beta=beta) == pytest.approx(expected, abs=1e-15)
    assert sr.set_f_score(truth, run) == pytest.approx(sr.f1_at_k_score(truth, run), abs=1e-15)
    assert sr.evaluate(truth, run, ["set_F.0.5"])["set_F_0.5"] == sr.set_f_score(
        truth, run, beta=0.5
    )


@pytest.mark.parametrize(
    "value, message",
    [
        ("1=3,x=2", "level_gains must be grade=gain pairs such as '1=3,2=9'"),
        ({0: 1.0}, "grades must be integers from 1; got 0"),
        ({1: -1.0}, "gains must be non-negative; got -1.0"),
    ],
)
def test_level_gains_are_checked_with_the_value_named(value, message):
    with pytest.raises(ValueError, match=message):
        sr.ndcg_with_gains_score([[1, 0, 2]], [[3, 2, 1]], level_gains=value)
