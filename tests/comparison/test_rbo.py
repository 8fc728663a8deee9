"""Rank-biased overlap: the authors' published example, brute force from the definition on
the prefixes extended as the bounds assume, and the per-query version against the
two-ranking one."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sklearn_rank import ItemRanking, rank_biased_overlap, rank_biased_overlap_runs

X = ["red", {"blue", "green"}, "yellow", "pink"]
Y = [{"blue", "red"}, "white", {"yellow", "black", "purple"}, "green"]

# Corsi & Urbano's README (sigir2024-rbo, rbo/Python/README.md), p = 0.95.
PUBLISHED = {
    "a": {"ext": 0.6922853, "min": 0.3310519, "max": 0.8930692, "res": 0.5620173},
    "w": {"ext": 0.7068257, "min": 0.3429684, "max": 0.9049857},
    "b": {"ext": 0.7207131, "min": 0.3509163, "max": 0.9129336},
}


@pytest.mark.parametrize("ties", ["a", "w", "b"])
def test_published_example(ties):
    scores = rank_biased_overlap(X, Y, p=0.95, ties=ties)
    for name, expected in PUBLISHED[ties].items():
        assert scores[name] == pytest.approx(expected, abs=1e-7)
    assert scores["res"] == scores["max"] - scores["min"]


def test_uneven_lists_without_ties():
    # dlukes/rbo issue #5's example (DECIDE.md 3.3): that package gives 0.194686,
    # 0.453356, 0.450969 here.
    scores = rank_biased_overlap(list("NHMACFL"), list("CGNA"), p=0.9)
    assert scores["min"] == pytest.approx(0.260303, abs=1e-6)
    assert scores["res"] == pytest.approx(0.428691, abs=1e-6)
    assert scores["ext"] == pytest.approx(0.490384, abs=1e-6)
    # dlukes/rbo issue #4: a prefix of the other ranking extrapolates to 1, not 1.0453.
    assert rank_biased_overlap([1, 2, 3], [1], p=0.4)["ext"] == pytest.approx(1.0, abs=1e-15)


def test_edge_cases():
    same = rank_biased_overlap(["a", {"b", "c"}, "d"], ["a", {"b", "c"}, "d"], p=0.9)
    assert same["ext"] == pytest.approx(0.9775, abs=1e-12)  # a: < 1 with ties
    for ties in ("w", "b"):
        scores = rank_biased_overlap(["a", {"b", "c"}, "d"], ["a", {"c", "b"}, "d"], ties=ties)
        assert scores["ext"] == pytest.approx(1.0, abs=1e-15)
        assert scores["max"] == pytest.approx(1.0, abs=1e-15)
    disjoint = rank_biased_overlap([1, 2, 3], [4, 5], p=0.4)
    assert disjoint["ext"] == disjoint["min"] == 0.0
    # max: S = [4, 5]'s unseen ranks take 1, 2, 3 and L's take 4, 5: overlaps 1, 3, 5 at
    # depths 3, 4, 5, then identical.
    p = 0.4
    agreement = [0, 0, 1 / 3, 3 / 4, 1]
    by_hand = (1 - p) / p * sum(a * p**d for d, a in enumerate(agreement, 1))
    by_hand += (1 - p) / p * p**6 / (1 - p)
    assert disjoint["max"] == pytest.approx(by_hand, abs=1e-15)
    identical = rank_biased_overlap(list(range(20)), list(range(20)), p=0.9)
    assert identical["ext"] == pytest.approx(1.0, abs=1e-15)
    assert identical["max"] == pytest.approx(1.0, abs=1e-15)


@pytest.mark.parametrize(
    "x, y, kwargs, message",
    [
        ([1], [1], {"p": 1.0}, "p must be a number in \\(0, 1\\)"),
        ([1], [1], {"p": 0}, "p must be"),
        ([1], [1], {"ties": "c"}, "ties must be one of"),
        ([], [1], {}, "x must rank at least one item"),
        ([1, 2, 1], [1], {}, "x ranks item 1 more than once"),
        ([1, {2, 1}], [1], {}, "x ranks item 1 more than once"),
        ([1], [set()], {}, "y has an empty tie group at rank 1"),
        ("abc", [1], {}, "x must be a sequence"),
    ],
)
def test_checks(x, y, kwargs, message):
    with pytest.raises(ValueError, match=message):
        rank_biased_overlap(x, y, **kwargs)


# --- brute force from the definition --------------------------------------------------


def _flat(ranking):
    items, tops, bottoms, rank = [], [], [], 1
    for entry in ranking:
        group = sorted(entry) if isinstance(entry, (set, list)) else [entry]
        for item in group:
            items.append(item)
            tops.append(rank)
            bottoms.append(rank + len(group) - 1)
        rank += len(group)
    return items, tops, bottoms


def _contributions(ranking, depth, ties):
    """(items, (n_items, depth) array): the chance each item is in the top d, d = 1..depth,
    as a dense table (an item of a group at ranks t..b: d >= t for w; (d - t + 1) /
    (b - t + 1) capped at 1 for a and b)."""
    items, tops, bottoms = _flat(ranking)
    d = np.arange(1, depth + 1)[None, :]
    tops, bottoms = np.array(tops)[:, None], np.array(bottoms)[:, None]
    if ties == "w":
        return items, (d >= tops).astype(float)
    return items, np.where(d < tops, 0.0, np.minimum(1.0, (d - tops + 1) / (bottoms - tops + 1)))


def _definition(x, y, p, ties):
    """(1 - p) / p * sum_d A_d p^d over two rankings of the same length, A_d from the
    variant's definition on the dense tables of contributions."""
    depth = len(_flat(x)[0])
    assert len(_flat(y)[0]) == depth
    items_x, cx = _contributions(x, depth, ties)
    items_y, cy = _contributions(y, depth, ties)
    where_y = {item: i for i, item in enumerate(items_y)}
    shared = [(i, where_y[item]) for i, item in enumerate(items_x) if item in where_y]
    overlap = sum(cx[i] * cy[j] for i, j in shared) if shared else np.zeros(depth)
    d = np.arange(1, depth + 1)
    if ties == "w":
        agreement = 2 * overlap / (cx.sum(axis=0) + cy.sum(axis=0))
    elif ties == "a":
        agreement = overlap / d
    else:
        agreement = overlap / np.sqrt((cx**2).sum(axis=0)) / np.sqrt((cy**2).sum(axis=0))
    return (1 - p) / p * float(np.sum(agreement * p**d))


def _fill_min(short, long, depth):
    """The prefixes extended with new items, none shared (the lower bound's assumption)."""
    n_short, n_long = len(_flat(short)[0]), len(_flat(long)[0])
    return (
        list(short) + [f"s{i}" for i in range(n_short, depth)],
        list(long) + [f"l{i}" for i in range(n_long, depth)],
    )


def _fill_max(short, long, depth):
    """The prefixes extended so that every unseen item matches as early as possible, then
    the same new items (the upper bound's assumption; the authors' fill_max in test.R)."""
    s_items, l_items = _flat(short)[0], _flat(long)[0]
    short, long = list(short), list(long)
    only_s, only_l = [], []
    d = 0
    while d < len(l_items) or only_s or only_l:
        in_l = l_items[d] if d < len(l_items) else None
        in_s = s_items[d] if d < len(s_items) else None
        if in_l is None or in_s is None or in_l != in_s:
            if in_l is not None:
                if in_l in only_s:
                    only_s.remove(in_l)
                else:
                    only_l.append(in_l)
            if in_s is not None:
                if in_s in only_l:
                    only_l.remove(in_s)
                else:
                    only_s.append(in_s)
            if in_l is None:
                l_items.append(only_s[0])
                long.append(only_s.pop(0))
            if in_s is None:
                s_items.append(only_l[0])
                short.append(only_l.pop(0))
        d += 1
    common = [f"c{i}" for i in range(len(l_items), depth)]
    return short + common, long + common


@st.composite
def _rankings(draw):
    pool = list(range(14))

    def one():
        items = draw(st.permutations(pool))[: draw(st.integers(1, 12))]
        ranking, i = [], 0
        while i < len(items):
            size = draw(st.integers(1, 3))
            group = items[i : i + size]
            ranking.append(set(group) if len(group) > 1 else group[0])
            i += size
        return ranking

    return one(), one(), draw(st.floats(0.5, 0.9))


@settings(max_examples=60, deadline=None)
@given(_rankings(), st.sampled_from(["a", "b", "w"]))
def test_bounds_equal_the_definition_on_extended_rankings(case, ties):
    x, y, p = case
    scores = rank_biased_overlap(x, y, p=p, ties=ties)
    n_x, n_y = len(_flat(x)[0]), len(_flat(y)[0])
    short, long = (x, y) if n_x < n_y else (y, x)
    depth = 350  # p ** 350 <= 1e-16: the truncated sum is the infinite one to rounding
    assert scores["min"] == pytest.approx(
        _definition(*_fill_min(short, long, depth), p, ties), abs=1e-12
    )
    assert scores["max"] == pytest.approx(
        _definition(*_fill_max(short, long, depth), p, ties), abs=1e-12
    )
    assert scores["min"] - 1e-15 <= scores["ext"] <= scores["max"] + 1e-15


@settings(max_examples=30, deadline=None)
@given(_rankings())
def test_variants_agree_without_ties(case):
    x, y, p = case
    x = [item for entry in x for item in (sorted(entry) if isinstance(entry, set) else [entry])]
    y = [item for entry in y for item in (sorted(entry) if isinstance(entry, set) else [entry])]
    a, b, w = (rank_biased_overlap(x, y, p=p, ties=t) for t in "abw")
    for name in ("ext", "min", "max"):
        assert a[name] == pytest.approx(w[name], abs=1e-15)
        assert b[name] == pytest.approx(w[name], abs=1e-15)


# --- per query between two runs ---------------------------------------------------------


def _ranking_of(scores, items):
    """Items by descending score, equal scores as a tie group."""
    ranking = []
    for value in sorted(set(scores), reverse=True):
        group = [item for item, score in zip(items, scores) if score == value]
        ranking.append(set(group) if len(group) > 1 else group[0])
    return ranking


@pytest.mark.parametrize("ties", ["a", "b", "w"])
def test_runs_equal_the_two_ranking_function_per_query(ties):
    rng = np.random.default_rng(0)
    n_queries, n_items = 40, 12
    run_x = rng.integers(0, 6, size=(n_queries, n_items)).astype(float)
    run_y = rng.integers(0, 6, size=(n_queries, n_items)).astype(float)
    run_x[rng.random(run_x.shape) < 0.3] = np.nan
    run_y[rng.random(run_y.shape) < 0.5] = np.nan
    run_y[3] = np.nan  # a query run_y does not rank
    scores = rank_biased_overlap_runs(run_x, run_y, p=0.8, ties=ties)
    assert scores["query_ids"].tolist() == list(range(n_queries))
    for q in range(n_queries):
        if q == 3:
            assert all(np.isnan(scores[name][q]) for name in ("ext", "min", "max", "res"))
            continue
        rankings = []
        for run in (run_x, run_y):
            kept = np.flatnonzero(~np.isnan(run[q]))
            rankings.append(_ranking_of(run[q][kept].tolist(), kept.tolist()))
        expected = rank_biased_overlap(*rankings, p=0.8, ties=ties)
        for name in ("ext", "min", "max", "res"):
            assert scores[name][q] == pytest.approx(expected[name], abs=1e-13)


def test_runs_as_item_rankings_and_depth():
    run_x = ItemRanking(["q1"] * 4 + ["q2"] * 2, list("abcdab"), [4, 3, 3, 1, 2, 1])
    run_y = ItemRanking(["q2"] * 2 + ["q1"] * 3 + ["q3"], list("baxabz"))  # rank order
    scores = rank_biased_overlap_runs(run_x, run_y, p=0.9, ties="b")
    assert scores["query_ids"].tolist() == ["q1", "q2", "q3"]
    q1 = rank_biased_overlap(["a", {"b", "c"}, "d"], ["x", "a", "b"], p=0.9, ties="b")
    q2 = rank_biased_overlap(["a", "b"], ["b", "a"], p=0.9, ties="b")
    assert scores["ext"][:2].tolist() == pytest.approx([q1["ext"], q2["ext"]], abs=1e-15)
    assert np.isnan(scores["ext"][2])
    cut = rank_biased_overlap_runs(run_x, run_y, p=0.9, ties="b", depth=2)
    # the tie (b c) straddles depth 2: kept whole
    q1_cut = rank_biased_overlap(["a", {"b", "c"}], ["x", "a"], p=0.9, ties="b")
    assert cut["min"][0] == pytest.approx(q1_cut["min"], abs=1e-15)


def test_runs_checks():
    matrix = np.ones((2, 3))
    with pytest.raises(ValueError, match="same shape"):
        rank_biased_overlap_runs(matrix, np.ones((2, 4)))
    with pytest.raises(ValueError, match="depth must be None or an integer >= 1"):
        rank_biased_overlap_runs(matrix, matrix, depth=0)
    with pytest.raises(ValueError, match="ranks an item more than once"):
        rank_biased_overlap_runs(ItemRanking([1, 1], [2, 2]), ItemRanking([1], [2]))


def test_a_querys_values_depend_on_its_rankings_only(monkeypatch):
    from sklearn_rank.comparison import _rbo_kernel

    rng = np.random.default_rng(2)
    run_x = np.round(rng.normal(size=(60, 20)), 1)
    run_y = np.round(run_x + rng.normal(0, 0.5, run_x.shape), 1)
    run_x[rng.random(run_x.shape) < 0.3] = np.nan
    whole = rank_biased_overlap_runs(run_x, run_y, ties="b")
    monkeypatch.setattr(_rbo_kernel, "BLOCK_CELLS", 50)  # blocks of 2 or 3 queries
    blocked = rank_biased_overlap_runs(run_x, run_y, ties="b")
    for name in ("ext", "min", "max", "res"):
        assert np.array_equal(blocked[name], whole[name])
    # nor on the other queries of the call
    alone = rank_biased_overlap_runs(run_x[7:8], run_y[7:8], ties="b")
    assert all(alone[name][0] == whole[name][7] for name in ("ext", "min", "max", "res"))
