"""A call of list- and corpus-level measures alone (coverage, novelty, popularity...) does
not join the run with the judgments: the prepared input holds the queries' number and
counts (`inputs._lists_only`), never a `_Queries`. Checked here: the join is not made, and
the values, the per-user tables, the warnings and the errors are those of the call that
prepares the input whole (the lazy path switched off), and the list values those of a
call mixed with an accuracy metric, to the bit. And what makes these calls fast keeps
their values: novelty read per catalog item, the top k of a score matrix without a sort
of whole rows."""

import warnings

import numpy as np
import pytest
import scipy.sparse

import sklearn_rank as sr
from sklearn_rank.inputs import _lists_only, _prepared
from sklearn_rank.inputs._lists_only import _distinct_in_range, _QueryCounts
from sklearn_rank.inputs._queries import _Queries
from sklearn_rank.inputs._side import _top_columns
from sklearn_rank.metrics._plan import _Plan

N_USERS, N_ITEMS, TOP = 40, 30, 8
LIST_NAMES = [
    "coverage@5",
    "entropy@5",
    "gini@5",
    "novelty@5",
    "popularity@5",
    "aplt@5",
    "aclt@5",
    "mean_pop_rank@5",
    "novelty(average='slots')@5",
    "pop_rsp@5",
]


def _data(seed=0):
    rng = np.random.default_rng(seed)
    top = np.array([rng.permutation(N_ITEMS)[:TOP] for _ in range(N_USERS)])
    dense = np.ceil(rng.random((N_USERS, N_ITEMS)) * 30) - 27  # 1..3 on a tenth of the cells
    dense[:3] = 0  # users without a relevant test item
    truth = scipy.sparse.csr_matrix(np.maximum(dense, 0))
    train = (rng.integers(0, N_USERS + 5, 200), rng.integers(0, N_ITEMS, 200))
    return truth, top, train


def _forms(seed=0):
    """(name, y_true, y_score) of one evaluation in the forms the lazy path covers."""
    truth, top, _train = _data(seed)
    coo = truth.tocoo()
    users = np.repeat(np.arange(N_USERS), TOP)
    scores = -np.tile(np.arange(TOP, dtype=float), N_USERS)
    names = np.array([f"u{u}" for u in range(N_USERS)])
    # Judgments of users the run lacks and a run of users without judgments.
    kept = users >= 2
    ragged = [row[: 3 + i % 5].tolist() for i, row in enumerate(top)]
    judgments = sr.ItemJudgments(coo.row, coo.col, coo.data)
    return [
        ("sparse truth, top-N ids", truth, sr.ItemRanking.from_topn(top)),
        ("sparse truth, scored rows", truth, sr.ItemRanking(users, top.ravel(), scores)),
        ("sparse truth, ragged lists", truth, sr.ItemRanking.from_topn(ragged)),
        (
            "judgments and a run by string ids",
            sr.ItemJudgments(names[coo.row], coo.col, coo.data),
            sr.ItemRanking(names[users][kept], top.ravel()[kept], scores[kept]),
        ),
        ("judgments, top-N ids", judgments, sr.ItemRanking.from_topn(top)),
        ("ranked lists", [dict(zip(r.indices.tolist(), r.data.tolist())) for r in truth], ragged),
    ]  # fmt: skip


FORMS = [form[0] for form in _forms()]


@pytest.fixture
def whole(monkeypatch):
    """Switch the lazy path off: every call prepares its input whole, as before it."""

    def prepare_whole():
        monkeypatch.setattr(_prepared, "_query_counts", lambda *args, **kwargs: None)

    return prepare_whole


def _no_join(monkeypatch):
    def refused(*args, **kwargs):
        raise AssertionError("the run was joined with the judgments")

    monkeypatch.setattr(_prepared, "_normalise", refused)


def _recorded(call):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = call()
        except (ValueError, TypeError) as error:
            result = (type(error), str(error))
    return result, [(w.category, str(w.message)) for w in caught]


def _same(got, expected):
    assert type(got) is type(expected)
    if isinstance(expected, dict):
        assert list(got) == list(expected)
        for key in expected:
            np.testing.assert_array_equal(got[key], expected[key], strict=True)
    else:
        assert got == expected


@pytest.mark.parametrize("form", range(len(FORMS)), ids=FORMS)
def test_a_list_only_call_prepares_no_joined_queries(form, monkeypatch):
    _name, y_true, y_score = _forms()[form]
    _truth, _top, train = _data()
    plan = _Plan.from_names(LIST_NAMES, {})
    prepared = plan.prepare(y_true, y_score, side_inputs={"train": train, "catalog": N_ITEMS})
    assert isinstance(prepared.queries, _QueryCounts)
    assert not isinstance(prepared.queries, _Queries)
    with pytest.warns(UserWarning, match="have no relevant item"):  # ndcg's, not theirs
        mixed = sr.evaluate(y_true, y_score, ["ndcg@5", *LIST_NAMES], train=train, catalog=N_ITEMS)
    _no_join(monkeypatch)
    alone = sr.evaluate(y_true, y_score, LIST_NAMES, train=train, catalog=N_ITEMS)
    assert list(alone) == LIST_NAMES
    for name in LIST_NAMES:
        assert alone[name] == mixed[name] or (np.isnan(alone[name]) and np.isnan(mixed[name]))


def _exclude(shape=(N_USERS, N_ITEMS)):
    """A third of the cells: lists of TOP items lose some, and some fall below k = 5."""
    return scipy.sparse.csr_matrix(np.random.default_rng(5).random(shape) < 0.3)


@pytest.mark.parametrize("form", range(len(FORMS)), ids=FORMS)
@pytest.mark.parametrize("n_jobs, exclude", [(1, None), (2, None), (1, "exclude")])
def test_values_tables_and_warnings_equal_the_whole_preparation(form, n_jobs, exclude, whole):
    _name, y_true, y_score = _forms()[form]
    _truth, _top, train = _data()
    exclude = None if exclude is None else _exclude()
    if exclude is not None and form != 3:  # string ids: exclude refuses them, as before
        plan = _Plan.from_names(["novelty@5"], {})
        with pytest.warns(UserWarning, match="exclude left"):  # lists cut below k
            prepared = plan.prepare(
                y_true, y_score, exclude=exclude, side_inputs={"train": train, "catalog": N_ITEMS}
            )
        assert isinstance(prepared.queries, _QueryCounts)
    per_user = ["novelty@5", "popularity@5", "aplt@5", "diversity@5"]
    features = np.random.default_rng(1).random((N_ITEMS, 4))
    calls = {
        "means": lambda: sr.evaluate(
            y_true, y_score, LIST_NAMES, train=train, catalog=N_ITEMS, n_jobs=n_jobs,
            exclude=exclude,
        ),
        "per user": lambda: sr.evaluate(
            y_true, y_score, per_user, train=train, item_features=features, per_query=True,
            catalog=N_ITEMS, n_jobs=n_jobs, exclude=exclude,
        ),
        "table": lambda: sr.evaluate(
            y_true, y_score, per_user, train=train, item_features=features,
            per_query="table", catalog=N_ITEMS, n_jobs=n_jobs, exclude=exclude,
        ),
        "weights": lambda: sr.evaluate(
            y_true, y_score, ["novelty@5"], train=train, catalog=N_ITEMS,
            sample_weight=np.arange(len(_ids(y_true, y_score))) % 3 + 1.0, exclude=exclude,
        ),
        "rectools": lambda: sr.evaluate(
            y_true, y_score, ["coverage@5", "novelty@5", "popularity@5"], train=train,
            catalog=N_ITEMS, convention="rectools", exclude=exclude,
        ),
    }  # fmt: skip
    lazy = {name: _recorded(call) for name, call in calls.items()}
    whole()
    for name, call in calls.items():
        got, expected = lazy[name], _recorded(call)
        _same(got[0], expected[0])
        assert got[1] == expected[1], name


def _ids(y_true, y_score):
    return sr.query_ids(y_true, y_score)


@pytest.mark.parametrize("form", range(len(FORMS)), ids=FORMS)
def test_the_per_user_table_counts_the_same_ranked_items(form, whole):
    # A comparison reads the table's items per user (a user the run lacks has none).
    _name, y_true, y_score = _forms()[form]
    _truth, _top, train = _data()
    plan = _Plan.from_names(["novelty@5", "aplt@5"], {})

    def table():
        prepared = plan.prepare(y_true, y_score, side_inputs={"train": train, "catalog": N_ITEMS})
        return plan.run(prepared, table=True)

    lazy = table()
    whole()
    expected = table()
    np.testing.assert_array_equal(lazy.ids, expected.ids, strict=True)
    np.testing.assert_array_equal(lazy.n_candidates, expected.n_candidates)
    for label in expected.values:
        np.testing.assert_array_equal(lazy.values[label], expected.values[label], strict=True)


def _bad_inputs():
    truth, top, _train = _data()
    repeated = top.copy()
    repeated[7, 6] = repeated[7, 1]
    negative = truth.copy()
    negative.data[4] = -1.0
    huge = truth.copy()
    huge.data[4] = 2000.0
    not_a_number = truth.copy()
    not_a_number.data[4] = np.nan
    users = np.repeat(np.arange(N_USERS), TOP)
    return {
        "a repeated item in top-N ids": (truth, sr.ItemRanking.from_topn(repeated)),
        "a repeated item in rows": (truth, sr.ItemRanking(users, repeated.ravel())),
        "a repeated judgment": (
            sr.ItemJudgments([0, 0, 1], [3, 3, 4]),
            sr.ItemRanking.from_topn(top[:2]),
        ),
        "an item past the truth's columns": (
            truth[:, : N_ITEMS - 1],
            sr.ItemRanking.from_topn(top),
        ),
        "more lists than truth rows": (truth[:5], sr.ItemRanking.from_topn(top)),
        "negative relevance": (negative, sr.ItemRanking.from_topn(top)),
        "relevance too large for an exponential gain": (huge, sr.ItemRanking.from_topn(top)),
        "NaN relevance": (not_a_number, sr.ItemRanking.from_topn(top)),
        "a repeated item in a ranked list": ([{1}, {2}], [[1, 3, 1], [2]]),
        "ranked lists of another number": ([{1}, {2}], [[1]]),
        "a relevance that is no number": ([{1: "a"}, {2: 1}], [[1], [2]]),
        "no query": (
            sr.ItemJudgments(np.zeros(0, int), np.zeros(0, int)),
            sr.ItemRanking(np.zeros(0, int), np.zeros(0, int)),
        ),
    }


@pytest.mark.parametrize("case", list(_bad_inputs()))
def test_inputs_the_normaliser_refuses_are_refused_as_before(case, whole):
    y_true, y_score = _bad_inputs()[case]
    _truth, _top, train = _data()

    def call():
        return sr.evaluate(
            y_true, y_score, ["coverage@5", "novelty@5"], train=train, catalog=N_ITEMS,
            gain="exponential",
        )  # fmt: skip

    lazy = _recorded(call)
    whole()
    expected = _recorded(call)
    assert lazy == expected
    if case != "NaN relevance":
        assert isinstance(expected[0], tuple), case  # refused


@pytest.mark.parametrize("form", [0, 1, 4, 5])
def test_an_exclude_smaller_than_the_ids_is_refused_as_before(form, whole):
    _name, y_true, y_score = _forms()[form]

    def call():
        exclude = _exclude((N_USERS, N_ITEMS - 1))
        return sr.evaluate(y_true, y_score, ["coverage@5"], catalog=N_ITEMS, exclude=exclude)

    lazy = _recorded(call)
    whole()
    assert lazy == _recorded(call)
    assert isinstance(lazy[0], tuple) and "exclude" in lazy[0][1]


def test_a_weight_of_the_wrong_length_is_refused_as_before(whole):
    _name, y_true, y_score = _forms()[0]
    _truth, _top, train = _data()

    def call():
        return sr.evaluate(
            y_true, y_score, ["novelty@5"], train=train, catalog=N_ITEMS, sample_weight=[1.0, 2.0]
        )

    lazy = _recorded(call)
    whole()
    assert lazy == _recorded(call)
    assert "sample_weight must have length 40" in lazy[0][1]


def test_a_call_with_an_accuracy_metric_still_joins():
    _name, y_true, y_score = _forms()[0]
    plan = _Plan.from_names(["ndcg@5", "coverage@5"], {})
    prepared = plan.prepare(y_true, y_score, side_inputs={"catalog": N_ITEMS})
    assert isinstance(prepared.queries, _Queries)


@pytest.mark.parametrize("dtype", [np.int16, np.int32, np.int64, np.uint8])
@pytest.mark.parametrize("n_items", [5, 300, 70_000])
@pytest.mark.parametrize("block", [4, 1 << 19])
def test_distinct_ids_in_range_against_a_loop(dtype, n_items, block, monkeypatch):
    monkeypatch.setattr(_lists_only, "_BLOCK", block)
    rng = np.random.default_rng(n_items)
    n_items = min(n_items, int(np.iinfo(dtype).max))  # an id n_items fits the type
    for width in (1, 2, 5):
        for rows in (1, 3, 700):
            top = rng.integers(0, n_items, (rows, width)).astype(dtype)
            distinct = all(len(set(row.tolist())) == width for row in top)
            assert _distinct_in_range(top, n_items) == distinct
            head = np.full((rows, max(width - 1, 1)), np.iinfo(dtype).max, dtype=dtype)
            assert _distinct_in_range(top, n_items, head) == distinct
            if distinct:  # the first columns, copied as the rows were checked
                np.testing.assert_array_equal(head, top[:, : head.shape[1]])
            if rows > 2:  # an id past the catalog, or below 0, in the last row
                top[-1, -1] = n_items
                assert not _distinct_in_range(top, n_items)
                if np.iinfo(dtype).min < 0:
                    top[-1, -1] = -1
                    assert not _distinct_in_range(top, n_items)
    assert _distinct_in_range(np.zeros((0, 3), dtype=dtype), 1)


@pytest.mark.parametrize("n_users", [2, 40])  # fewer, then more slots than catalog items
@pytest.mark.parametrize("cold_items", ["one_user", "zero", "max", "raise"])
def test_novelty_per_slot_whether_read_per_item_or_per_slot(n_users, cold_items):
    rng = np.random.default_rng(n_users)
    top = np.array([rng.permutation(N_ITEMS)[:TOP] for _ in range(n_users)])
    train = (rng.integers(0, 9, 25), rng.integers(0, N_ITEMS // 2, 25))  # half cold
    name = f"novelty(cold_items={cold_items!r})@{TOP}"
    truth = scipy.sparse.csr_matrix((n_users, N_ITEMS))
    users = np.zeros(N_ITEMS)
    np.add.at(users, np.unique(train[0] * N_ITEMS + train[1]) % N_ITEMS, 1.0)
    n_users_trained = len(np.unique(train[0]))
    cold = users[top] == 0
    if cold_items == "raise":
        first = top.ravel()[cold.ravel()][0]
        with pytest.raises(ValueError, match=f"item number {first} of the catalog"):
            sr.evaluate(truth, sr.ItemRanking.from_topn(top), [name], train=train)
        return
    count = np.where(cold, 1.0, users[top]) if cold_items == "one_user" else users[top]
    with np.errstate(divide="ignore"):
        information = -np.log(count / n_users_trained) / np.log(2.0)
    if cold_items == "zero":
        information[cold] = 0.0
    if cold_items == "max":
        least = users[users > 0].min()
        information[cold] = -np.log(least / n_users_trained) / np.log(2.0)
    got = sr.evaluate(truth, sr.ItemRanking.from_topn(top), [name], train=train, per_query=True)
    in_slot_order = [sum(row.tolist()) / TOP for row in information]  # as bincount adds
    np.testing.assert_array_equal(got[name], in_slot_order)


@pytest.mark.parametrize("seed", range(6))
def test_top_columns_of_a_score_matrix_as_a_stable_sort_gives_them(seed):
    # Ties (few distinct scores), -inf (excluded cells), -0.0 beside 0.0, short rows.
    rng = np.random.default_rng(seed)
    width = int(rng.integers(8, 60))
    score = rng.integers(-3, 4, (50, width)).astype(float) / rng.choice([1.0, 7.0])
    score[rng.random(score.shape) < 0.2] = -np.inf
    score[rng.random(score.shape) < 0.1] = -0.0
    score[0] = -np.inf
    score[1] = 1.0
    for keep in range(1, width // 8 + 1):
        expected = np.argsort(-score, axis=1, kind="stable")[:, :keep]
        np.testing.assert_array_equal(_top_columns(score, keep), expected)


def test_coverage_of_a_score_matrix_reads_its_top_k_as_before():
    rng = np.random.default_rng(3)
    score = np.round(rng.random((30, 200)), 2)  # ties
    truth = scipy.sparse.csr_matrix(rng.random((30, 200)) < 0.05)
    exclude = scipy.sparse.csr_matrix(rng.random((30, 200)) < 0.3)
    names = ["coverage@5", "entropy@5", "gini(counts='lists')@5"]
    got = sr.evaluate(truth, score, names, exclude=exclude)
    top = np.argsort(-np.where(exclude.toarray(), -np.inf, score), axis=1, kind="stable")[:, :5]
    expected = sr.evaluate(truth, sr.ItemRanking.from_topn(top), names)
    assert got == expected
