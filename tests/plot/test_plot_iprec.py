"""Interpolated precision at recall levels (trec_eval's iprec_at_recall), the data of
InterpolatedPrecisionRecallDisplay: against pytrec_eval, a slow reference and brute force
over the orderings of tied scores."""

import itertools
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import sklearn_rank as sr
from sklearn_rank.conventions._declarations import CONVENTIONS, resolve
from sklearn_rank.metrics._interpolated import DEFAULT_RECALL_LEVELS, _interpolated_precision

TOLERANCE = 1e-12


def _iprec(y_true, y_score, *, convention=None, per_query=True, **kwargs):
    explicit = {key: kwargs.pop(key) for key in list(kwargs) if key in CONVENTIONS}
    return _interpolated_precision(
        y_true,
        y_score,
        per_query=per_query,
        conventions=resolve(convention, explicit),
        **kwargs,
    )[1]


def _needed(p, n_relevant, rounding):
    x = p * n_relevant
    if rounding == "plus_0.9":
        return int(x + 0.9)  # C's (long) truncation
    return int(math.floor(x + 0.5)) if x - math.floor(x) != 0.5 else int(x) + 1


def _reference(ranked_relevant, n_relevant, levels, rounding):
    """trec_eval's rule, read from m_iprec_at_recall.c: one ranking, plain loops."""
    ranks = [i + 1 for i, hit in enumerate(ranked_relevant) if hit]
    values = []
    for p in levels:
        c = _needed(p, n_relevant, rounding)
        if n_relevant == 0 or c > len(ranks):
            values.append(0.0)
            continue
        values.append(max(m / r for m, r in enumerate(ranks, start=1) if m >= max(c, 1)))
    return values


def _brute_force(relevant, score, levels, rounding):
    """The mean of the reference over every ordering of each group of tied scores."""
    order = sorted(range(len(score)), key=lambda i: -score[i])
    groups = [list(g) for _s, g in itertools.groupby(order, key=lambda i: score[i])]
    n_relevant = sum(relevant)
    total, count = np.zeros(len(levels)), 0
    for orderings in itertools.product(*(itertools.permutations(g) for g in groups)):
        ranked = [relevant[i] for group in orderings for i in group]
        total += _reference(ranked, n_relevant, levels, rounding)
        count += 1
    return total / count


def test_rounding_rules_differ_where_trec_eval_versions_do():
    # p R = 0.3 * 4 = 1.2: trec_eval 10.0 needs lround(1.2) = 1 relevant item, 9.x
    # (long)(1.2 + 0.9) = 2. Relevant at ranks 1, 5, 6, 7: precisions 1, 2/5, 3/6, 4/7.
    y_true = [[1, 0, 0, 0, 1, 1, 1]]
    y_score = [[7, 6, 5, 4, 3, 2, 1]]
    levels = [0.3, 0.5, 1.0]  # 0.5 * 4 = 2: both need 2
    ten = _iprec(y_true, y_score, recall_levels=levels, iprec_rounding="nearest")
    nine = _iprec(y_true, y_score, recall_levels=levels, iprec_rounding="plus_0.9")
    np.testing.assert_allclose(ten, [[1.0, 4 / 7, 4 / 7]], rtol=0, atol=TOLERANCE)
    np.testing.assert_allclose(nine, [[4 / 7, 4 / 7, 4 / 7]], rtol=0, atol=TOLERANCE)
    # Halves round away from zero in 10.0: 0.5 * 3 = 1.5 needs 2.
    assert _needed(0.5, 3, "nearest") == 2 and _needed(0.1, 5, "nearest") == 1
    # The trec_eval9 preset follows 9.x (as its float32 scores do); others follow 10.0.
    preset = _iprec(y_true, y_score, recall_levels=levels, convention="trec_eval9")
    np.testing.assert_array_equal(preset, nine)
    np.testing.assert_array_equal(_iprec(y_true, y_score, recall_levels=levels), ten)


@pytest.mark.parametrize("rounding", ["nearest", "plus_0.9"])
def test_stable_ties_equal_the_reference(rounding):
    rng = np.random.default_rng(0)
    levels = [0.0, 0.05, 0.15, 0.25, 0.5, 0.33, 0.75, 0.95, 1.0]
    y_true = (rng.random((60, 12)) < 0.3).astype(int) * rng.integers(1, 3, (60, 12))
    y_score = rng.integers(0, 4, (60, 12)).astype(float)
    got = _iprec(y_true, y_score, recall_levels=levels, iprec_rounding=rounding, ties="stable")
    for row in range(60):
        order = np.argsort(-y_score[row], kind="stable")
        expected = _reference(
            y_true[row][order] > 0, int((y_true[row] > 0).sum()), levels, rounding
        )
        np.testing.assert_allclose(got[row], expected, rtol=0, atol=TOLERANCE)


@st.composite
def _tied_queries(draw):
    n_items = draw(st.integers(1, 7))
    relevant = draw(st.lists(st.integers(0, 1), min_size=n_items, max_size=n_items))
    score = draw(st.lists(st.integers(0, 2), min_size=n_items, max_size=n_items))
    return relevant, score


@pytest.mark.slow
@settings(
    max_examples=120,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(
    st.lists(_tied_queries(), min_size=1, max_size=4),
    st.sampled_from(["nearest", "plus_0.9"]),
    st.lists(st.sampled_from([0.0, 0.1, 0.2, 0.3, 0.45, 0.5, 0.7, 1.0]), min_size=1, max_size=5),
)
def test_average_ties_equal_brute_force_over_orderings(queries, rounding, levels):
    # Several queries of different lengths in one call: long format.
    relevant = [r for rel, _s in queries for r in rel]
    score = [float(s) for _r, sc in queries for s in sc]
    groups = [i for i, (rel, _s) in enumerate(queries) for _ in rel]
    got = _iprec(relevant, score, groups=groups, recall_levels=levels, iprec_rounding=rounding)
    for i, (rel, sc) in enumerate(queries):
        expected = _brute_force(rel, sc, levels, rounding)
        np.testing.assert_allclose(got[i], expected, rtol=0, atol=TOLERANCE)


def test_large_tie_group_with_many_relevant_items():
    # One group of 9 tied items, 4 relevant, after 3 items: 9!/(4!5!) = 126 placements
    # of the relevant items, each equally likely; enumerate them.
    relevant = [1, 0, 1] + [1, 0, 1, 0, 0, 1, 0, 1, 0]
    score = [9.0, 8.0, 7.0] + [1.0] * 9
    levels = DEFAULT_RECALL_LEVELS
    got = _iprec([relevant], [score])[0]
    total = np.zeros(levels.size)
    placements = list(itertools.combinations(range(9), 4))
    for places in placements:
        tail = [1 if i in places else 0 for i in range(9)]
        total += _reference([1, 0, 1] + tail, 6, levels, "nearest")
    np.testing.assert_allclose(got, total / len(placements), rtol=0, atol=TOLERANCE)


def test_no_ties_average_equals_stable():
    rng = np.random.default_rng(1)
    y_true = rng.random((30, 20)) < 0.2
    y_score = rng.random((30, 20))
    np.testing.assert_array_equal(_iprec(y_true, y_score), _iprec(y_true, y_score, ties="stable"))


def _trec_case(seed, n_queries=80):
    """qrels and run dicts with graded labels, tied scores, scores equal in float32,
    unjudged and unranked documents, queries with nothing relevant."""
    rng = np.random.default_rng(seed)
    qrels, run = {}, {}
    for q in range(n_queries):
        docs = [f"d{i}" for i in rng.choice(40, int(rng.integers(1, 25)), replace=False)]
        judged = [f"d{i}" for i in rng.choice(40, int(rng.integers(1, 12)), replace=False)]
        qrels[f"q{q}"] = {d: int(rng.integers(0, 3)) for d in judged}
        scores = np.round(rng.random(len(docs)), 1) + rng.choice([0.0, 1e-9], len(docs))
        run[f"q{q}"] = dict(zip(docs, scores.tolist()))
    return qrels, run


def _tables(qrels, run):
    truth = sr.ItemJudgments(
        [q for q in qrels for _d in qrels[q]],
        [d for q in qrels for d in qrels[q]],
        [v for q in qrels for v in qrels[q].values()],
    )
    ranking = sr.ItemRanking(
        [q for q in run for _d in run[q]],
        [d for q in run for d in run[q]],
        [v for q in run for v in run[q].values()],
    )
    return truth, ranking


@pytest.mark.parametrize("relevance_level", [1, 2])
@pytest.mark.parametrize("levels", [None, [0.0, 0.15, 0.25, 0.35, 0.5, 0.65, 0.75, 0.85, 1.0]])
def test_pytrec_eval_iprec_at_recall(relevance_level, levels):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    qrels, run = _trec_case(relevance_level)
    shown = DEFAULT_RECALL_LEVELS if levels is None else levels
    measure = (
        "iprec_at_recall" if levels is None else "iprec_at_recall." + ",".join(map(str, levels))
    )
    results = pytrec_eval.RelevanceEvaluator(
        qrels, {measure}, relevance_level=relevance_level
    ).evaluate(run)
    truth, ranking = _tables(qrels, run)
    # convention="trec_eval9": stable ties by docno descending, float32 scores, the
    # queries of both, and trec_eval 9.x's rounding (pytrec_eval bundles 9.x).
    got = _iprec(
        truth,
        ranking,
        recall_levels=levels,
        convention="trec_eval9",
        relevance_threshold=relevance_level,
    )
    ids = sr.query_ids(truth, ranking, convention="trec_eval9")
    expected = [[results[q][f"iprec_at_recall_{p:.2f}"] for p in shown] for q in ids]
    np.testing.assert_allclose(got, expected, rtol=0, atol=TOLERANCE)
    mean = _iprec(
        truth,
        ranking,
        recall_levels=levels,
        convention="trec_eval9",
        relevance_threshold=relevance_level,
        per_query=False,
    )
    np.testing.assert_allclose(mean, np.mean(expected, axis=0), rtol=0, atol=TOLERANCE)
    # The 10.0 rule differs from pytrec_eval's somewhere on this data.
    ten = _iprec(
        truth,
        ranking,
        recall_levels=levels,
        convention="trec_eval9",
        iprec_rounding="nearest",
        relevance_threshold=relevance_level,
    )
    assert np.abs(ten - np.array(expected)).max() > 0.01


def test_pytrec_eval_11pt_avg_is_the_mean_of_the_curve():
    pytrec_eval = pytest.importorskip("pytrec_eval")
    qrels, run = _trec_case(5)
    results = pytrec_eval.RelevanceEvaluator(qrels, {"11pt_avg"}).evaluate(run)
    truth, ranking = _tables(qrels, run)
    got = _iprec(truth, ranking, convention="trec_eval9")
    ids = sr.query_ids(truth, ranking, convention="trec_eval9")
    np.testing.assert_allclose(
        got.mean(axis=1), [results[q]["11pt_avg"] for q in ids], rtol=0, atol=TOLERANCE
    )


def test_input_forms_agree():
    rng = np.random.default_rng(2)
    y_true = rng.integers(0, 3, (8, 6)) * (rng.random((8, 6)) < 0.5)
    y_score = rng.integers(0, 3, (8, 6)).astype(float)
    dense = _iprec(y_true, y_score)
    order = rng.permutation(y_true.size)
    groups = np.repeat(np.arange(8), 6)[order]
    long = _iprec(y_true.ravel()[order], y_score.ravel()[order], groups=groups)
    np.testing.assert_allclose(long[np.argsort(sr.query_ids(groups))], dense, atol=TOLERANCE)
    lists = [{j: y_true[i, j] for j in range(6) if y_true[i, j]} for i in range(8)]
    scores = [{j: y_score[i, j] for j in range(6)} for i in range(8)]
    # Item-id forms leave queries without a relevant item out by default; arrays count 0.
    np.testing.assert_allclose(_iprec(lists, scores, no_relevant=0.0), dense, atol=TOLERANCE)


def test_empty_ranking_and_no_relevant_queries():
    truth = sr.ItemJudgments(["a", "b", "c"], ["x", "x", "x"], [1, 1, 0])
    run = sr.ItemRanking(["a", "c", "d"], ["x", "x", "x"], [1.0, 1.0, 1.0])
    # a: found first; b: judged, not in the run (empty ranking, 0 at every level, where
    # trec_eval -J would give NaN at p = 0); c, d: nothing relevant (no_relevant: left out
    # by default for inputs with item ids, with a warning).
    with pytest.warns(UserWarning, match="2 of 4 queries have no relevant item"):
        default = _iprec(truth, run, recall_levels=[0.0, 1.0])
    nan = np.nan
    np.testing.assert_array_equal(default, [[1.0, 1.0], [0.0, 0.0], [nan, nan], [nan, nan]])
    got = _iprec(truth, run, recall_levels=[0.0, 1.0], no_relevant=0.0)
    np.testing.assert_array_equal(got, [[1.0, 1.0], [0.0, 0.0], [0.0, 0.0], [0.0, 0.0]])
    skipped = _iprec(truth, run, recall_levels=[0.0, 1.0], no_relevant="skip", per_query=False)
    np.testing.assert_array_equal(skipped, [0.5, 0.5])


@pytest.mark.parametrize(
    "levels", [[], [1.5], [-0.1], [[0.1, 0.2]], ["a"], [np.nan]], ids=lambda v: repr(v)
)
def test_bad_recall_levels(levels):
    with pytest.raises(ValueError, match="recall_levels must be a non-empty 1-D list"):
        _iprec([[1, 0]], [[0.5, 0.2]], recall_levels=levels)


def test_unsorted_levels_keep_their_order():
    y_true, y_score = [[1, 0, 1, 1]], [[4.0, 3.0, 2.0, 1.0]]
    sorted_values = _iprec(y_true, y_score, recall_levels=[0.2, 0.6, 1.0])
    shuffled = _iprec(y_true, y_score, recall_levels=[1.0, 0.2, 0.6])
    np.testing.assert_array_equal(shuffled, sorted_values[:, [2, 0, 1]])


def _tie_heavy_inputs():
    """Matrices with fractional and graded relevance, long format, and runs with unjudged
    items, queries without relevant items and scores tied in groups of every size."""
    rng = np.random.default_rng(7)
    graded = rng.integers(0, 4, (25, 14)) * (rng.random((25, 14)) < 0.4)
    graded[:3] = 0
    fractional = np.round(rng.random((25, 14)) * 2, 1) * (rng.random((25, 14)) < 0.5)
    scores = rng.integers(0, 3, (25, 14)).astype(float)
    groups = rng.integers(0, 20, 300)
    qrels, run = _trec_case(11, n_queries=30)
    truth, ranking = _tables(qrels, run)
    return {
        "graded": ((graded, scores), {}),
        "fractional": ((fractional, scores), {"relevance_threshold": 0.5}),
        "long": ((rng.integers(0, 3, 300), rng.integers(0, 2, 300) * 1.0), {"groups": groups}),
        "items": ((truth, ranking), {"relevance_threshold": 2}),
        "judged only": ((truth, ranking), {"judged_only": True}),
    }


@pytest.mark.parametrize("rounding", ["nearest", "plus_0.9"])
@pytest.mark.parametrize("ties", ["average", "stable"])
@pytest.mark.parametrize("case", sorted(_tie_heavy_inputs()))
def test_curve_equals_the_registry_measures(case, ties, rounding):
    (y_true, y_score), options = _tie_heavy_inputs()[case]
    levels = [0.0, 0.05, 0.25, 0.3, 1 / 3, 0.45, 0.5, 0.75, 0.95, 1.0]
    conventions = dict(ties=ties, iprec_rounding=rounding, no_relevant=0.0, **options)
    groups = conventions.pop("groups", None)
    names = [f"iprec(recall={p!r})" for p in levels] + ["iprec_avg"]
    expected = sr.evaluate(y_true, y_score, names, groups=groups, per_query=True, **conventions)
    got = _iprec(y_true, y_score, recall_levels=levels, groups=groups, **conventions)
    np.testing.assert_allclose(
        got, np.column_stack([expected[n] for n in names[:-1]]), rtol=0, atol=TOLERANCE
    )
    eleven = _iprec(y_true, y_score, groups=groups, **conventions)
    np.testing.assert_allclose(eleven.mean(axis=1), expected["iprec_avg"], rtol=0, atol=TOLERANCE)
    assert (got > 0).any() and (got < 1).any()


def _placements_average(relevant, score, levels, rounding):
    """The mean of the reference over every placement of the relevant items inside each
    group of tied scores (all equally likely): fewer cases than every ordering."""
    order = sorted(range(len(score)), key=lambda i: -score[i])
    groups = [[relevant[i] for i in g] for _s, g in itertools.groupby(order, lambda i: score[i])]
    sizes = [(len(g), sum(g)) for g in groups]
    total, count = np.zeros(len(levels)), 0
    for places in itertools.product(*(itertools.combinations(range(n), a) for n, a in sizes)):
        ranked = [i in chosen for (n, _a), chosen in zip(sizes, places) for i in range(n)]
        total += _reference(ranked, sum(relevant), levels, rounding)
        count += 1
    return total / count


@pytest.mark.parametrize("rounding", ["nearest", "plus_0.9"])
def test_tie_average_past_a_rank_its_precision_does_not_give_back(rounding):
    # Tie groups of 6 items (4 relevant), 5 (2) and 5 (all 5 relevant: fixed ranks 12 to
    # 16). The 9th relevant item sits at rank 14, and 9 / (9 / 14) is 13.999999999999998
    # in float64: a rank recovered from count and precision must not be truncated to 13.
    y_true = [0, 0, 3, 1, 1, 1, 2, 1, 1, 2, 0, 3, 1, 0, 1, 0]
    y_score = [1, 1, 2, 0, 0, 0, 2, 2, 1, 0, 2, 0, 1, 1, 2, 2]
    assert int(9 / (9 / 14)) == 13
    levels = list(DEFAULT_RECALL_LEVELS)
    expected = _placements_average([y > 0 for y in y_true], y_score, levels, rounding)
    names = [f"iprec(recall={p})" for p in levels]
    got = sr.evaluate([y_true], [y_score], [*names, "iprec_avg"], iprec_rounding=rounding)
    np.testing.assert_allclose([got[n] for n in names], expected, rtol=0, atol=TOLERANCE)
    np.testing.assert_allclose(got["iprec_avg"], expected.mean(), rtol=0, atol=TOLERANCE)
    curve = _iprec([y_true], [y_score], iprec_rounding=rounding)[0]
    np.testing.assert_allclose(curve, expected, rtol=0, atol=TOLERANCE)
