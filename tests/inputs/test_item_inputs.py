"""Recommender and search inputs: sparse truth, top-N ids, item tables, exclusion, presets."""

import numpy as np
import pytest
import scipy.sparse
from reference import reference_mean, reference_per_query

import sklearn_rank as sr

AT_K = [
    "precision@3",
    "recall@3",
    "f1@3",
    "hit_rate@2",
    "mrr@3",
    "map@3",
    "ndcg@3",
    "cg@3",
    "dcg@3",
    "auc@3",
]
WHOLE = ["mrr", "map", "ndcg", "auc", "arp", "kendall_tau", "precision", "recall"]


def _case(seed, n_users=12, n_items=9):
    rng = np.random.default_rng(seed)
    y_true = rng.integers(0, 4, (n_users, n_items)) * (rng.random((n_users, n_items)) < 0.35)
    y_true[0] = 0  # a user with nothing relevant
    y_score = rng.integers(0, 5, (n_users, n_items)) / 4.0  # ties
    return y_true.astype(float), y_score


def _rows(y_true, y_score, rng=None):
    """The matrices as (query, item, score) rows and (query, item, relevance) judgments."""
    users, items = np.nonzero(np.ones_like(y_score, dtype=bool))
    order = np.arange(users.size) if rng is None else rng.permutation(users.size)
    run = sr.ItemRanking(users[order], items[order], y_score[users, items][order])
    judged = np.nonzero(y_true)
    truth = sr.ItemJudgments(judged[0], judged[1], y_true[judged])
    return truth, run


def _by_row(result, truth, run):
    """Per-query values of item forms put back in row (integer query id) order."""
    ids = sr.query_ids(truth, run).astype(int)
    out = {}
    for name, values in result.items():
        out[name] = np.empty_like(values)
        out[name][ids] = values
    return out


def _assert_same(got, expected, names):
    for name in names:
        np.testing.assert_allclose(
            got[name], expected[name], atol=1e-12, equal_nan=True, err_msg=name
        )


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("ties", ["average", "stable"])
def test_dense_sparse_and_item_rows_agree(seed, ties):
    y_true, y_score = _case(seed)
    names = AT_K + WHOLE
    dense = sr.evaluate(y_true, y_score, names, ties=ties, per_query=True)
    sparse = sr.evaluate(
        scipy.sparse.csr_matrix(y_true),
        y_score,
        names,
        ties=ties,
        per_query=True,
        convention="sklearn",
    )
    _assert_same(sparse, dense, names)
    # In a recommender's forms (item ids, a sparse truth matrix), queries without a
    # relevant item are skipped by default (users without test items): dense arrays do so
    # with no_relevant="skip".
    dense = sr.evaluate(y_true, y_score, names, ties=ties, per_query=True, no_relevant="skip")
    sparse = sr.evaluate(scipy.sparse.csr_matrix(y_true), y_score, names, ties=ties, per_query=True)
    _assert_same(sparse, dense, names)
    truth, run = _rows(y_true, y_score)  # rows in column order: stable ties agree too
    _assert_same(
        _by_row(sr.evaluate(truth, run, names, ties=ties, per_query=True), truth, run), dense, names
    )
    # A sparse truth matrix against the same run agrees as well.
    coo = scipy.sparse.coo_matrix(y_true)
    _assert_same(
        _by_row(sr.evaluate(coo, run, names, ties=ties, per_query=True), coo, run), dense, names
    )


@pytest.mark.parametrize("seed", range(3))
def test_shuffled_item_rows_agree_under_average_ties(seed):
    y_true, y_score = _case(seed)
    names = AT_K + WHOLE
    truth, run = _rows(y_true, y_score, np.random.default_rng(seed))
    got = sr.evaluate(truth, run, names, per_query=True)
    # Query order is first appearance in the judgments, then run-only queries.
    order = sr.query_ids(truth, run)
    expected = sr.evaluate(y_true, y_score, names, per_query=True, no_relevant="skip")
    _assert_same({n: got[n] for n in names}, {n: expected[n][order] for n in names}, names)


@pytest.mark.parametrize("seed", range(3))
def test_top_n_ids_agree_with_dense_within_n(seed):
    y_true, y_score = _case(seed)
    ranked = np.argsort(-y_score, axis=1, kind="stable")  # the stable ranking of each row
    dense = sr.evaluate(y_true, y_score, AT_K, ties="stable", per_query=True, no_relevant="skip")
    # The whole ranking as ids: every metric agrees, whole-list ones too.
    truth = scipy.sparse.csr_matrix(y_true)
    full = sr.ItemRanking.from_topn(ranked)
    _assert_same(
        _by_row(sr.evaluate(truth, full, AT_K + WHOLE, per_query=True), truth, full),
        sr.evaluate(
            y_true, y_score, AT_K + WHOLE, ties="stable", per_query=True, no_relevant="skip"
        ),
        AT_K + WHOLE,
    )
    # Top-5 only: cut-offs within 5 agree (relevant items past 5 still count in R, IDCG).
    for top5 in (
        sr.ItemRanking.from_topn(ranked[:, :5]),
        sr.ItemRanking.from_topn([row.tolist() for row in ranked[:, :5]]),
    ):
        _assert_same(
            _by_row(sr.evaluate(truth, top5, AT_K, per_query=True), truth, top5), dense, AT_K
        )


def test_dataframes_agree():
    pandas = pytest.importorskip("pandas")
    y_true, y_score = _case(7)
    truth, run = _rows(y_true, y_score)
    run_frame = pandas.DataFrame({"user": run.queries, "item": run.items, "score": run.scores})
    truth_frame = pandas.DataFrame(
        {"user": truth.queries, "item": truth.items, "rel": truth.relevance}
    )
    got = sr.evaluate(
        sr.ItemJudgments.from_frame(truth_frame, query="user", relevance="rel"),
        sr.ItemRanking.from_frame(run_frame, query="user"),
        AT_K + WHOLE,
        per_query=True,
    )
    _assert_same(got, sr.evaluate(truth, run, AT_K + WHOLE, per_query=True), AT_K + WHOLE)
    with pytest.raises(ValueError, match=r"query column 'uid' is not in the table; its columns"):
        sr.ItemRanking.from_frame(run_frame, query="uid")
    broken = run_frame.astype({"score": float})
    broken.loc[3, "score"] = np.nan
    with pytest.raises(ValueError, match="Column 'score' has a missing value at row 3"):
        sr.ItemRanking.from_frame(broken, query="user")


@pytest.mark.parametrize("library", ["pandas", "polars"])
def test_a_frame_of_ranks_reads_as_its_scores(library):
    frames = pytest.importorskip(library)
    y_true, y_score = _case(7)
    truth, run = _rows(y_true, y_score)
    # Dense ranks of each query, 1 for its highest score: equal scores share a rank.
    ranks = np.empty(run.scores.size, dtype=np.int64)
    for query in np.unique(run.queries):
        rows = np.flatnonzero(run.queries == query)
        distinct, which = np.unique(-run.scores[rows], return_inverse=True)
        ranks[rows] = which.ravel() + 1
    ranked = frames.DataFrame({"user": run.queries, "item": run.items, "position": ranks})
    names = AT_K + WHOLE
    got = sr.evaluate(
        truth,
        sr.ItemRanking.from_frame(ranked, query="user", rank="position"),
        names,
        per_query=True,
    )
    _assert_same(got, sr.evaluate(truth, run, names, per_query=True), names)
    # The frame a top-N table gives has no score column: the error says to read the ranks.
    with pytest.raises(ValueError, match=r"no score|'score' is not in the table.*pass rank="):
        sr.ItemRanking.from_frame(ranked, query="user")


def _brute_force(y_true, y_score, excluded, name, ties):
    """Delete the excluded items first, then score each query with the slow reference."""
    metric, _, k = name.partition("@")
    values = []
    for row in range(y_true.shape[0]):
        keep = ~excluded[row]
        values.append(
            reference_per_query(
                metric,
                y_true[row, keep].tolist(),
                y_score[row, keep].tolist(),
                k=int(k) if k else None,
                ties=ties,
            )
        )
    return reference_mean(values, None, 0.0 if metric != "arp" else "skip")


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("ties", ["average", "stable"])
def test_exclusion_equals_deleting_the_items_first(seed, ties):
    y_true, y_score = _case(seed, n_users=8, n_items=7)
    rng = np.random.default_rng(100 + seed)
    excluded = rng.random(y_true.shape) < 0.3
    excluded[1] = True  # a user whose every item is excluded
    names = AT_K + WHOLE
    for exclude in (excluded, scipy.sparse.csr_matrix(excluded)):
        dense = sr.evaluate(y_true, y_score, names, exclude=exclude, ties=ties)
        # A sparse truth skips a user without a relevant item by default; the brute
        # force takes each metric's own value, as scikit-learn's rule (the dense default).
        sparse = sr.evaluate(
            scipy.sparse.csr_matrix(y_true),
            y_score,
            names,
            exclude=exclude,
            ties=ties,
            convention="sklearn",
        )
        for name in names:
            expected = _brute_force(y_true, y_score, excluded, name, ties)
            assert dense[name] == pytest.approx(expected, abs=1e-9), name
            assert sparse[name] == pytest.approx(expected, abs=1e-9), name


def test_exclusion_with_top_n_ids_drops_excluded_items_from_the_list():
    # User 0 was recommended [4, 1, 2]; item 4 is a training item: the list is [1, 2].
    truth = scipy.sparse.csr_matrix(np.array([[0, 1, 0, 0, 1], [1, 0, 0, 0, 0]]))
    exclude = scipy.sparse.csr_matrix(np.array([[0, 0, 0, 0, 1], [0, 0, 0, 0, 0]]))
    run = sr.ItemRanking.from_topn([[4, 1, 2], [0, 3]])
    got = sr.evaluate(
        truth, run, ["precision@1", "mrr", "recall@2"], exclude=exclude, per_query=True
    )
    assert got["precision@1"].tolist() == [1.0, 1.0]
    assert got["mrr"].tolist() == [1.0, 1.0]
    # Item 4 is excluded from user 0's truth too: R = 1.
    assert got["recall@2"].tolist() == [1.0, 1.0]
    with pytest.raises(ValueError, match="item ids must be integers in"):
        sr.evaluate(truth, sr.ItemRanking.from_topn([["a"], ["b"]]), ["mrr"], exclude=exclude)


def test_exclusion_refused_for_long_format():
    with pytest.raises(ValueError, match="exclude needs items"):
        sr.ndcg_score([1, 0], [0.5, 0.2], groups=[1, 1], exclude=[[1, 0]])
    with pytest.raises(ValueError, match=r"exclude must have the shape of y_score \(1, 2\)"):
        sr.ndcg_score([[1, 0]], [[0.5, 0.2]], exclude=[[1, 0, 0]])


@pytest.mark.parametrize(
    "convention, explicit",
    [
        ("sklearn", {"ties": "average", "gain": "linear"}),
        ("lightgbm", {"ties": "stable", "gain": "exponential", "ap_denominator": "min_k"}),
        (
            "xgboost",
            {
                "ties": "stable",
                "gain": "exponential",
                "ap_denominator": "min_k",
                "short_lists": "length",
                "score_dtype": "float32",
            },
        ),
        (
            "hivemall",
            {
                "ties": "stable",
                "gain": "exponential",
                "ap_denominator": "hits",
                "short_lists": "length",
            },
        ),
    ],
)
def test_presets_equal_their_parameters_and_explicit_parameters_win(convention, explicit):
    y_true, y_score = _case(3)
    names = ["ndcg@3", "map@3", "precision@20", "mrr", "auc", "arp"]
    preset = sr.evaluate(y_true, y_score, names, convention=convention, per_query=True)
    by_hand = sr.evaluate(y_true, y_score, names, per_query=True, **explicit)
    # LightGBM and XGBoost score a query with no relevant item 1 in ndcg and map only.
    empty = 1.0 if convention in ("lightgbm", "xgboost") else 0.0
    for name in names:
        expected = by_hand[name].copy()
        if name.startswith(("ndcg", "map")):
            expected[0] = empty  # row 0 has no relevant item
        if name == "auc" and convention == "hivemall":
            expected[0] = 0.5  # Hivemall's AUC without a relevant item
        if name == "arp":
            assert np.isnan(preset[name][0])  # never the best score: skipped
        np.testing.assert_array_equal(preset[name], expected, err_msg=name)
    overridden = sr.evaluate(
        y_true,
        y_score,
        names,
        convention=convention,
        gain="linear",
        ap_denominator="relevant",
        no_relevant=0.0,
    )
    assert overridden == sr.evaluate(
        y_true,
        y_score,
        names,
        **{**explicit, "gain": "linear", "ap_denominator": "relevant", "no_relevant": 0.0},
    )


def test_trec_eval_conventions_on_item_ids():
    # d9 and d10 tie: trec_eval compares docnos as strings, descending: "d9" > "d10".
    truth = sr.ItemJudgments(["q1", "q1"], ["d10", "d3"], [1, 0])
    run = sr.ItemRanking(["q1", "q1", "q1", "q2"], ["d10", "d9", "d3", "d1"], [1.0, 1.0, 0.5, 0.9])
    assert sr.evaluate(truth, run, ["mrr"], convention="trec_eval") == {"mrr": 0.5}
    assert sr.evaluate(truth, run, ["mrr"], ties="stable", no_relevant=0) == {"mrr": 0.5}
    # q2 has no judgments: trec_eval leaves it out; otherwise it scores no_relevant.
    per_query = sr.evaluate(truth, run, ["mrr"], convention="trec_eval", per_query=True)
    assert per_query["mrr"].tolist() == [0.5]
    assert sr.evaluate(truth, run, ["mrr"], convention="trec_eval", tie_break="input")["mrr"] == 1.0
    # Scores equal in float32 tie: then "d3" > "d10" as strings ranks d3 first.
    run32 = sr.ItemRanking(["q1", "q1"], ["d10", "d3"], [1.0 + 1e-9, 1.0])
    assert (
        sr.evaluate(truth, run32, ["mrr"], ties="stable", tie_break="item_descending")["mrr"] == 1.0
    )
    assert (
        sr.evaluate(
            truth, run32, ["mrr"], ties="stable", score_dtype="float32", tie_break="item_descending"
        )["mrr"]
        == 0.5
    )
    with pytest.raises(ValueError, match="tie_break='item_descending' needs item ids"):
        sr.evaluate([1, 0], [0.5, 0.5], ["mrr"], groups=[1, 1], convention="trec_eval")


def test_item_descending_ties_on_matrices_break_by_column_descending():
    y_true, y_score = [[1, 0, 0]], [[0.5, 0.5, 0.5]]
    assert sr.evaluate(y_true, y_score, ["mrr"], ties="stable")["mrr"] == 1.0
    assert sr.evaluate(y_true, y_score, ["mrr"], ties="stable", tie_break="item_descending")[
        "mrr"
    ] == pytest.approx(1 / 3)
    assert (
        sr.evaluate(y_true, y_score, ["mrr@2"], ties="stable", tie_break="item_descending")["mrr@2"]
        == 0.0
    )


@pytest.mark.parametrize(
    "params, message",
    [
        ({"convention": "trec"}, "convention must be one of 'sklearn', 'trec_eval'"),
        ({"tie_break": "docno"}, "tie_break must be one of 'input', 'item_descending'"),
        ({"query_set": "ignore"}, "query_set must be one of 'all', 'judged', 'both'"),
        ({"score_dtype": "float16"}, "score_dtype must be one of 'float64', 'float32'"),
    ],
)
def test_bad_new_conventions(params, message):
    with pytest.raises(ValueError, match=message):
        sr.evaluate([[1, 0]], [[0.5, 0.2]], ["mrr"], **params)


def test_item_table_errors():
    with pytest.raises(ValueError, match="judges item 'd1' more than once for query 'q'"):
        sr.evaluate(
            sr.ItemJudgments(["q", "q"], ["d1", "d1"]),
            sr.ItemRanking(["q"], ["d1"], [1.0]),
            ["mrr"],
        )
    with pytest.raises(ValueError, match="queries and items must have the same length"):
        sr.ItemRanking(["q"], ["a", "b"])
    with pytest.raises(ValueError, match="scores must contain only finite numbers"):
        sr.ItemRanking(["q"], ["a"], [np.inf])
    with pytest.raises(ValueError, match="queries must not contain None or NaN"):
        sr.ItemJudgments([np.nan], ["a"])
    with pytest.raises(ValueError, match="y_true must be an ItemJudgments or a scipy.sparse"):
        sr.evaluate([[1, 0]], sr.ItemRanking([0], [0]), ["mrr"])
    with pytest.raises(ValueError, match="y_score must be an ItemRanking"):
        sr.evaluate(sr.ItemJudgments([0], [0]), [[0.5, 0.2]], ["mrr"])


def test_query_ids_for_every_form():
    y_true, y_score = _case(1)
    assert sr.query_ids(y_true, y_score).tolist() == list(range(y_true.shape[0]))
    truth = sr.ItemJudgments(["b", "a"], [1, 1])
    run = sr.ItemRanking(["c", "a", "b"], [1, 2, 3], [0.1, 0.2, 0.3])
    assert sr.query_ids(truth, run).tolist() == ["b", "a", "c"]
    values = sr.evaluate(truth, run, ["hit_rate"], per_query=True, no_relevant=-1.0)
    assert values["hit_rate"].tolist() == [0.0, 0.0, -1.0]


def test_query_set_and_query_ids_follow_each_other():
    truth = sr.ItemJudgments(["q1", "q2"], ["d1", "d1"])
    run = sr.ItemRanking(["q1", "q3"], ["d1", "d1"], [1.0, 1.0])
    expected = {
        "all": (["q1", "q2", "q3"], [1.0, 0.0, 0.0]),
        "judged": (["q1", "q2"], [1.0, 0.0]),
        "both": (["q1"], [1.0]),
    }
    for query_set, (ids, values) in expected.items():
        got = sr.evaluate(truth, run, ["map"], query_set=query_set, per_query=True, no_relevant=0)[
            "map"
        ]
        assert got.tolist() == values
        assert sr.query_ids(truth, run, query_set=query_set).tolist() == ids
    assert sr.query_ids(truth, run, convention="trec_eval").tolist() == ["q1"]
    with pytest.raises(ValueError, match="No query left to evaluate"):
        sr.evaluate(truth, sr.ItemRanking(["q9"], ["d1"]), ["map"], query_set="both")


def test_xgboost_preset_reads_names_without_cut_off_as_top_32():
    y_true = np.zeros((1, 40))
    y_true[0, 34] = 1  # the only relevant item at rank 35
    y_score = -np.arange(40.0)[None, :]
    assert sr.evaluate(y_true, y_score, ["ndcg", "map"], convention="xgboost") == {
        "ndcg": 0.0,
        "map": 0.0,
    }
    assert sr.evaluate(y_true, y_score, ["ndcg"], convention="lightgbm")["ndcg"] > 0


def test_polars_dataframes_agree():
    polars = pytest.importorskip("polars")
    y_true, y_score = _case(8)
    truth, run = _rows(y_true, y_score)
    got = sr.evaluate(
        sr.ItemJudgments.from_frame(
            polars.DataFrame({"query": truth.queries, "item": truth.items, "rel": truth.relevance}),
            relevance="rel",
        ),
        sr.ItemRanking.from_frame(
            polars.DataFrame({"query": run.queries, "item": run.items, "score": run.scores})
        ),
        AT_K + WHOLE,
        per_query=True,
    )
    _assert_same(got, sr.evaluate(truth, run, AT_K + WHOLE, per_query=True), AT_K + WHOLE)
    with pytest.raises(ValueError, match="Column 'query' has a missing value at row 1"):
        sr.ItemRanking.from_frame(
            polars.DataFrame({"query": [1, None], "item": ["a", "b"], "score": [0.1, 0.2]})
        )


def test_review_findings_on_item_forms():
    """Cases found in review, each once silently wrong."""
    # Sample weights follow the rows of a sparse truth matrix, judged or not.
    truth = scipy.sparse.csr_matrix(np.array([[0, 0, 0], [0, 1, 0], [1, 0, 0]]))
    scores = np.array([[3, 2, 1], [1, 3, 2], [2, 1, 3]], dtype=float)
    top = sr.ItemRanking.from_topn(np.argsort(-scores, axis=1))
    for weights in ([0, 0, 1], [1, 2, 3]):
        for rule in (0, "skip"):
            assert sr.evaluate(truth, top, ["mrr"], sample_weight=weights, no_relevant=rule) == (
                sr.evaluate(truth, scores, ["mrr"], sample_weight=weights, no_relevant=rule)
            )
    # The caller's sparse matrix is left as it was.
    matrix = scipy.sparse.csr_matrix(
        (np.array([0.0, 1, 1]), np.array([0, 1, 2]), np.array([0, 2, 3])), shape=(2, 3)
    )
    before = (matrix.data.copy(), matrix.indices.copy(), matrix.indptr.copy())
    sr.evaluate(matrix, np.ones((2, 3)), ["mrr"])
    for kept, now in zip(before, (matrix.data, matrix.indices, matrix.indptr)):
        np.testing.assert_array_equal(kept, now)
    # query_set applies to ranked lists too.
    assert sr.evaluate([{1}, {2}], [[1], []], ["mrr"], query_set="both") == {"mrr": 1.0}
    # Exclusion never renumbers or drops queries.
    dense = sr.evaluate(
        [[2], [1], [2]], [[2], [2], [1]], ["precision@2"], exclude=[[0], [1], [0]], per_query=True
    )["precision@2"]
    items = sr.evaluate(
        sr.ItemJudgments([0, 1, 2], [0, 0, 0], [2, 1, 2]),
        sr.ItemRanking([0, 1, 2], [0, 0, 0], [2, 2, 1]),
        ["precision@2"],
        exclude=np.array([[0], [1], [0]]),
        per_query=True,
        no_relevant=0,
    )["precision@2"]
    np.testing.assert_array_equal(dense, items)
    # Mixed id types stay apart; empty top-N rows keep integer ids.
    assert sr.evaluate(
        sr.ItemJudgments([0, 0], [1, "b"]), sr.ItemRanking.from_topn([[1, 2]]), ["mrr"]
    ) == {"mrr": 1.0}
    assert sr.ItemRanking.from_topn([[], [1, 2]]).items.dtype.kind == "i"
    with pytest.raises(ValueError, match="ids must be 2-D"):
        sr.ItemRanking.from_topn(np.arange(3))
    # Scores that overflow float32 are an error, not -inf (the mark of excluded items).
    with pytest.raises(ValueError, match="float32"):
        sr.evaluate([[1, 0, 0]], [[-1e39, -1e39, 5]], ["mrr"], score_dtype="float32")


@pytest.mark.parametrize("seed", range(6))
def test_top_n_matrix_fast_path_equals_item_rows(seed):
    """A top-N id matrix against sparse truth skips the join of every ranked row; the
    values must equal those of the same ranking given as (query, item) rows."""
    rng = np.random.default_rng(seed)
    n_users, n_items, n = 40, 30, 8
    truth = scipy.sparse.random(n_users, n_items, density=0.2, random_state=seed, format="csr")
    truth.data = rng.integers(0, 4, truth.nnz).astype(float)  # graded, explicit zeros
    truth.data[truth.indptr[3] : truth.indptr[4]] = 0  # a user judged, nothing relevant
    top = np.argsort(rng.random((n_users, n_items)), axis=1)[:, :n]
    rows = sr.ItemRanking(np.repeat(np.arange(n_users), n), top.ravel())
    names = AT_K + WHOLE + ["ndcg@20", "recall@20"]
    for ties in ("average", "stable"):
        fast = sr.evaluate(truth, sr.ItemRanking.from_topn(top), names, ties=ties, per_query=True)
        _assert_same(fast, sr.evaluate(truth, rows, names, ties=ties, per_query=True), names)
    top[5, 6] = top[5, 1]
    with pytest.raises(ValueError, match=f"ranks item {top[5, 1]} more than once for query 5"):
        sr.evaluate(truth, sr.ItemRanking.from_topn(top), ["ndcg"])


@pytest.mark.parametrize("dtype", [np.uint8, np.uint32, np.uint64, np.int8, np.int16])
def test_top_n_ids_of_narrow_and_unsigned_types(dtype):
    """The largest id of the type (127 for int8) must not wrap in the (row, id) keys."""
    largest = int(np.iinfo(dtype).max) if np.iinfo(dtype).max < 2**31 else 5
    truth = scipy.sparse.csr_matrix(([1.0, 1.0], ([0, 1], [2, largest])), shape=(2, largest + 1))
    top = np.array([[2, 1], [0, largest]], dtype=dtype)
    np.testing.assert_allclose(
        sr.ndcg_score(truth, sr.ItemRanking.from_topn(top), per_query=True),
        [1.0, 1 / np.log2(3)],
        rtol=1e-15,
    )
    # The same ids as item rows (the general join) agree.
    rows = sr.ItemRanking(np.repeat([0, 1], 2), top.ravel())
    np.testing.assert_allclose(
        sr.ndcg_score(truth, rows, per_query=True), [1.0, 1 / np.log2(3)], rtol=1e-15
    )


def test_item_ids_at_the_top_of_their_type_never_match_other_queries():
    truth = sr.ItemJudgments([0], np.array([255], np.uint8), [1])
    run = sr.ItemRanking([0, 1], np.array([3, 255], np.uint8), [2.0, 1.0])
    np.testing.assert_array_equal(
        sr.mean_reciprocal_rank_score(truth, run, per_query=True, no_relevant=0), [0.0, 0.0]
    )


def test_empty_top_n_matrices():
    truth = scipy.sparse.csr_matrix([[0, 1, 2], [1, 0, 0]])
    values = sr.evaluate(
        truth, sr.ItemRanking.from_topn(np.zeros((2, 0), int)), ["ndcg", "mrr"], per_query=True
    )
    np.testing.assert_array_equal(values["ndcg"], [0.0, 0.0])
    with pytest.raises(ValueError, match="No query left to evaluate: both inputs are empty"):
        sr.evaluate(
            scipy.sparse.csr_matrix((0, 3)),
            sr.ItemRanking.from_topn(np.zeros((0, 2), int)),
            ["ndcg"],
        )


def test_top_n_rows_from_a_generator_are_read_once_and_kept():
    truth = sr.ItemJudgments([0, 1], ["a", "c"], [1, 1])
    for rows in ((row for row in [["a", "b"], ["c"]]), map(list, [["a", "b"], ["c"]])):
        run = sr.ItemRanking.from_topn(rows)
        assert run.items.tolist() == ["a", "b", "c"]
        assert sr.evaluate(truth, run, "ndcg@10") == {"ndcg@10": 1.0}


def test_repr_and_len_say_what_the_tables_hold():
    pandas = pytest.importorskip("pandas")
    cases = [
        (
            sr.ItemRanking(["u1", "u1", "u2"], ["a", "b", "a"], [0.9, 0.3, 0.5]),
            "<ItemRanking: 2 queries, 3 rows with scores, from arrays>",
            3,
        ),
        (
            sr.ItemRanking.from_topn(np.array([[4, 2, 7], [1, 2, 3]])),
            "<ItemRanking: 2 queries, 6 rows in rank order, from a top-N matrix of shape (2, 3)>",
            6,
        ),
        (
            sr.ItemRanking.from_topn([["a"], ["b", "c"], []], queries=[1, "1", 2]),
            "<ItemRanking: 2 queries, 3 rows in rank order, from top-N lists (3 lists)>",
            3,
        ),
        (
            sr.ItemRanking.from_frame(
                pandas.DataFrame({"query": [1, 1], "item": [2, 3], "score": [0.1, 0.2]})
            ),
            "<ItemRanking: 1 query, 2 rows with scores, from a pandas DataFrame>",
            2,
        ),
        (
            sr.ItemJudgments.from_sparse(scipy.sparse.csr_matrix([[0, 1, 0], [2, 0, 3]])),
            "<ItemJudgments: 2 queries, 3 rows, graded relevance, from a sparse matrix of "
            "shape (2, 3)>",
            3,
        ),
        (
            sr.ItemJudgments([1, "1", 1], ["a", "a", "b"]),
            "<ItemJudgments: 2 queries, 3 rows, binary relevance (all 1), from arrays>",
            3,
        ),
    ]
    for table, text, rows in cases:
        assert repr(table) == text
        assert len(table) == rows == table.items.size
