"""Corpus-level values of resampled users (what compare tests corpus-level measures by):
each draw's value equals `evaluate` on an input made of the drawn users' lists."""

import numpy as np
import pytest
import scipy.sparse

import sklearn_rank as sr
from sklearn_rank.inputs._side import _Lists
from sklearn_rank.metrics._corpus_resampling import _CorpusDraws, _gather
from sklearn_rank.metrics._plan import _Plan

CORPUS = ["coverage@5", "gini@5", "entropy@5", "pop_rsp@5", "pop_reo@5"]


def _case(seed, n_users=40, n_items=25):
    rng = np.random.default_rng(seed)
    truth = (rng.random((n_users, n_items)) < 0.1).astype(float)
    truth[0] = 0  # a user without a relevant item
    lists = [
        [rng.choice(n_items, int(rng.integers(0, 9)), replace=False).tolist() for _ in truth]
        for _system in range(2)
    ]
    lists[1][3] = []  # an empty list
    train = rng.poisson(0.4, (n_users, n_items))
    return scipy.sparse.csr_matrix(truth), lists, train


def _sides(name, truth, lists, train):
    plan = _Plan.from_names([name], {})
    side_inputs = {"train": train, "item_features": None, "catalog": None}
    sides = [
        plan.prepare(truth, sr.ItemRanking.from_topn(top), side_inputs=side_inputs).side
        for top in lists
    ]
    return _CorpusDraws(plan.requests[0], sides)


def test_gather_takes_the_drawn_lists_in_order_and_cuts_them():
    lists = _Lists(np.array([0, 3, 3, 5]), np.array([7, 8, 9, 1, 2]), np.arange(5.0))
    taken = _gather(lists, np.array([2, 0, 0, 1]), k=2)
    assert taken.offsets.tolist() == [0, 2, 4, 6, 6]
    assert taken.items.tolist() == [1, 2, 7, 8, 7, 8]
    assert taken.values.tolist() == [3.0, 4.0, 0.0, 1.0, 0.0, 1.0]
    assert _gather(lists, np.array([1, 1])).items.size == 0


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("name", CORPUS)
def test_a_draw_is_evaluate_on_the_drawn_users(seed, name):
    truth, lists, train = _case(seed)
    draws = _sides(name, truth, lists, train)
    observed = draws.observed()
    for system, top in enumerate(lists):
        expected = sr.evaluate(truth, sr.ItemRanking.from_topn(top), [name], train=train)[name]
        assert observed[system] == expected
    rng = np.random.default_rng(seed)
    n_users = truth.shape[0]
    # Draws with repeats, for the measures that read no user's history: the drawn users
    # as an input of their own (their truth rows, their lists), the training data (the
    # popularity) the whole one.
    if name.split("@")[0] in ("coverage", "gini", "entropy"):
        picks = rng.integers(0, n_users, (3, n_users))
        got = draws.bootstrap(picks)
        for row, users in enumerate(picks):
            for system, top in enumerate(lists):
                drawn = sr.ItemRanking.from_topn([top[u] for u in users])
                expected = sr.evaluate(truth[users], drawn, [name], train=train, catalog=25)
                assert got[row, system] == pytest.approx(expected[name], rel=1e-12, abs=1e-15)
    # Draws of distinct users in any order, for every measure: the users keep their ids,
    # so that each one's training history is their own.
    picks = np.array([rng.permutation(n_users)[: n_users // 2] for _ in range(3)])
    got = draws.bootstrap(picks)
    coo = scipy.sparse.coo_matrix(train)
    rows = (np.repeat(coo.row, coo.data), np.repeat(coo.col, coo.data))
    for row, users in enumerate(picks):
        judged = truth[users].tocoo()
        judgments = sr.ItemJudgments(users[judged.row], judged.col, judged.data)
        for system, top in enumerate(lists):
            ids = np.concatenate([np.full(len(top[u]), u) for u in users] + [[]]).astype(int)
            items = np.concatenate([top[u] for u in users] + [[]]).astype(int)
            ranks = np.concatenate([-np.arange(len(top[u])) for u in users] + [[]])
            drawn = sr.ItemRanking(ids, items, ranks.astype(float))
            expected = sr.evaluate(judgments, drawn, [name], train=rows, catalog=25)[name]
            assert got[row, system] == pytest.approx(expected, rel=1e-12, abs=1e-15)


@pytest.mark.parametrize("name", CORPUS)
def test_swaps_exchange_the_two_systems_lists_user_by_user(name):
    truth, lists, train = _case(5)
    draws = _sides(name, truth, lists, train)
    n_users = truth.shape[0]
    none = np.zeros((1, n_users), dtype=bool)
    np.testing.assert_array_equal(draws.swapped(0, 1, none)[0], draws.observed())
    every = np.ones((1, n_users), dtype=bool)
    np.testing.assert_array_equal(draws.swapped(0, 1, every)[0], draws.observed()[::-1])
    swap = np.random.default_rng(1).random(n_users) < 0.5
    mixed = [[lists[1 - s][u] if swap[u] else lists[s][u] for u in range(n_users)] for s in (0, 1)]
    got = draws.swapped(0, 1, swap[None, :])[0]
    for system in (0, 1):
        expected = sr.evaluate(truth, sr.ItemRanking.from_topn(mixed[system]), [name], train=train)[
            name
        ]
        assert got[system] == pytest.approx(expected, rel=1e-12, abs=1e-15)
