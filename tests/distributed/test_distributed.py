"""evaluate_dask gives the numbers of `evaluate` on the same rows collected in memory.

Random tables built to break a distributed evaluation: heavy score ties (so that
``ties="stable"`` depends on the input order, which the shuffle destroys and the rows
must carry), judged items that were never ranked and ranked items never judged, queries
only on one side, string query ids, rows in random order and every query spread over
many partitions. Every registry metric (with and without a cut-off), both tie modes and
every preset, on a Dask LocalCluster of two worker processes; the reference is
`sklearn_rank.evaluate` on ItemJudgments / ItemRanking made from the collected rows.
The grouped searches under joblib's Dask backend give the cv_results_ of a local run.
The helpers here also serve tests/distributed/test_distributed_spark.py.
"""

import sys

import numpy as np
import pytest

import sklearn_rank as sr
from sklearn_rank.conventions._declarations import PRESETS
from sklearn_rank.metrics._registry import METRICS

# The click-log estimators need a side input (the propensities) that the inputs here do not
# carry; tests/metrics/test_clicks.py checks them on the forms that carry one.
METRICS = {name: metric for name, metric in METRICS.items() if metric.side_inputs is None}

# Every metric of the registry, with a cut-off where it takes one, in one call; then names
# with the measures' own parameters, trec_eval's and ir_measures' spellings (``official``
# stands for 28 measures), and a name given twice (computed once, as evaluate does).
NAMES = [m.name for m in METRICS.values()] + [f"{m.name}@3" for m in METRICS.values() if m.takes_k]
SPELLINGS = [
    "rbp(p=0.5)@4",
    "rbp(gains='query_max')",
    "err(max_grade=5)@3",
    "iprec(recall=0.3)",
    "rprec_mult(x=1.4)",
    "P_2",
    "ndcg_cut.2,4",
    "nDCG@3",
    "AP(rel=2)",
    "Judged@5",
    "official",
    "map",
]
# Without the measures that tell unjudged rows from rows judged 0 (bpref, Judged@k...), a
# partition of one table is read as long format without a mask of its judged rows: that
# path is checked with these names.
LONG_NAMES = [n for n in NAMES if not METRICS[n.split("@")[0]].needs_judged] + [
    "rbp(p=0.5)@4",
    "P_2",
    "nDCG@3",
    "err",
]
# (convention, ties): both tie modes without a preset, each preset with its own.
SETTINGS = [(None, "average"), (None, "stable")] + [(name, None) for name in PRESETS]


def query_name(i):
    """String ids of unequal lengths: q0, q01, q002, q3..."""
    return f"q{i:0{1 + i % 3}d}"


def one_table(seed, n_queries=40, with_nulls=True):
    """(query, item, relevance, score) rows; a null relevance: ranked, not judged."""
    import pandas as pd

    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 12, n_queries)
    queries = np.repeat([query_name(i) for i in range(n_queries)], sizes)
    items = np.concatenate([rng.permutation(30)[:s] for s in sizes])
    n = queries.size
    relevance = rng.integers(1, 4, n) * (rng.random(n) < 0.4)
    relevance[np.isin(queries, [query_name(0), query_name(4)])] = 0  # no relevant item
    frame = pd.DataFrame(
        {
            "query": queries,
            "item": items,
            "relevance": relevance.astype(float),
            "score": rng.integers(0, 3, n) / 2.0,  # heavy ties
        }
    )
    if with_nulls:
        frame.loc[rng.random(n) < 0.2, "relevance"] = np.nan  # not judged
        frame.loc[frame["query"] == query_name(1), "relevance"] = np.nan  # never judged
    return frame.sample(frac=1.0, random_state=seed).reset_index(drop=True)


def two_tables(seed, n_queries=40):
    """A run (query, item, score) and judgments (query, item, relevance) that overlap:
    judged items never ranked, ranked items never judged, queries on one side only."""
    rng = np.random.default_rng(seed)
    table = one_table(seed, n_queries, with_nulls=False)
    run = table[rng.random(len(table)) < 0.8][["query", "item", "score"]]
    judged = table[rng.random(len(table)) < 0.7][["query", "item", "relevance"]]
    run = run[run["query"] != query_name(2)]  # judged only
    judged = judged[judged["query"] != query_name(3)]  # ranked only
    return run.reset_index(drop=True), judged.reset_index(drop=True)


def reference(run, judged=None, names=NAMES, **options):
    """`evaluate` on frames in memory: (means, {label: {query id: per-query value}})."""
    if judged is None:
        judged = run[run["relevance"].notna()]
    truth = sr.ItemJudgments.from_frame(judged, relevance="relevance")
    ranking = sr.ItemRanking.from_frame(run)
    means = sr.evaluate(truth, ranking, names, **options)
    values = sr.evaluate(truth, ranking, names, per_query="table", **options)
    ids = values.pop("query").tolist()
    return means, {label: dict(zip(ids, column)) for label, column in values.items()}


def assert_same(got_means, got_table, expected, query="query"):
    """The means and the per-query table of a distributed call equal `evaluate`'s, label
    by label (the labels too: trec_eval's groups expand as in memory)."""
    means, per_query = expected
    assert list(got_means) == list(means)
    assert [c for c in got_table.columns if c != query] == list(means)
    for label in means:
        assert got_means[label] == pytest.approx(means[label], abs=1e-12, rel=1e-12), label
    labels = list(means)
    assert sorted(got_table[query].tolist()) == sorted(per_query[labels[0]])
    for label in labels:
        expected_values = [per_query[label][q] for q in got_table[query]]
        np.testing.assert_allclose(
            got_table[label].to_numpy(), expected_values, rtol=1e-12, atol=1e-12, err_msg=label
        )


@pytest.fixture(scope="module")
def dask_client():
    """A LocalCluster of two worker processes, on this machine only."""
    pytest.importorskip("dask.dataframe")
    distributed = pytest.importorskip("distributed")
    cluster = distributed.LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        host="127.0.0.1",
        dashboard_address=None,
    )
    client = distributed.Client(cluster)
    yield client
    client.close()
    cluster.close()


def _dask(frame, npartitions=9):
    dd = pytest.importorskip("dask.dataframe")
    return dd.from_pandas(frame, npartitions=npartitions, sort=False)


@pytest.mark.slow
@pytest.mark.parametrize("convention, ties", SETTINGS)
def test_one_table_equals_evaluate(dask_client, convention, ties):
    frame = one_table(1)
    data = _dask(frame)
    options = {"convention": convention, "ties": ties}
    names = NAMES + SPELLINGS  # with a mask of judged rows (items under trec_eval's ties)
    means = sr.evaluate_dask(data, names, **options)
    table = sr.evaluate_dask(data, names, per_query=True, **options).compute()
    # The collected rows, in the order compute() returns them.
    collected = data.compute()
    assert_same(means, table, reference(collected, names=names, **options))
    means = sr.evaluate_dask(data, LONG_NAMES, **options)  # no mask of judged rows
    expected = reference(collected, names=LONG_NAMES, **options)[0]
    assert means == pytest.approx(expected, abs=1e-12, rel=1e-12)


@pytest.mark.slow
@pytest.mark.parametrize("convention, ties", SETTINGS)
def test_run_and_judgments_equal_evaluate(dask_client, convention, ties):
    run, judged = two_tables(2)
    data, judgments = _dask(run, 7), _dask(judged, 5)
    options = {"convention": convention, "ties": ties}
    names = NAMES + SPELLINGS
    means = sr.evaluate_dask(data, names, judgments=judgments, **options)
    table = sr.evaluate_dask(data, names, judgments=judgments, per_query=True, **options)
    assert_same(means, table.compute(), reference(run, judged, names=names, **options))


@pytest.mark.slow
def test_weights_ranks_and_no_relevant_rules(dask_client):
    frame = one_table(3)
    rng = np.random.default_rng(3)
    ids = frame["query"].unique()
    weight_of = dict(zip(ids, rng.integers(0, 4, ids.size).astype(float)))
    frame["weight"] = frame["query"].map(weight_of)
    # Ranks 1.. within each query, from scores with ties broken by item: no ties left.
    frame["position"] = (
        frame.sort_values(["score", "item"], ascending=[False, True]).groupby("query").cumcount()
        + 1
    )
    data = _dask(frame, 6)
    names = ["ndcg@3", "map", "arp", "auc"]
    truth = sr.ItemJudgments.from_frame(frame[frame["relevance"].notna()], relevance="relevance")
    run = sr.ItemRanking(frame["query"], frame["item"], -frame["position"].to_numpy(float))
    order = sr.query_ids(truth, run)
    for rule in (None, "skip", 0.25):
        got = sr.evaluate_dask(
            data, names, rank="position", sample_weight="weight", no_relevant=rule
        )
        expected = sr.evaluate(
            truth, run, names, sample_weight=[weight_of[q] for q in order], no_relevant=rule
        )
        for name in names:
            assert got[name] == pytest.approx(expected[name], abs=1e-12), (rule, name)
    with pytest.raises(ValueError, match="no relevant item \\(the first is query 'q"):
        sr.evaluate_dask(data, names, no_relevant="error")
    with pytest.raises(ValueError, match="no relevant item"):
        sr.evaluate_dask(data, names, no_relevant="error", per_query=True).compute()
    table = sr.evaluate_dask(data, ["arp"], per_query=True).compute().set_index("query")
    assert np.isnan(table.loc[query_name(1), "arp"])  # never judged: skipped, as evaluate does


def _shuffles(frame):
    kinds = ("Shuffle", "RearrangeByColumn", "SetIndex")
    return sum(any(k in type(e).__name__ for k in kinds) for e in frame.expr.walk())


@pytest.mark.slow
def test_shuffle_is_skipped_when_partitioned_by_query(dask_client):
    frame = one_table(4)
    data = _dask(frame, 5)
    expected = reference(frame)
    assert _shuffles(sr.evaluate_dask(data, NAMES, per_query=True)) == 1
    for partitioned in (data.set_index("query"), data.shuffle(on="query")):
        table = sr.evaluate_dask(partitioned, NAMES, per_query=True)
        assert _shuffles(table) == _shuffles(partitioned) == 1  # none added
        assert_same(sr.evaluate_dask(partitioned, NAMES), table.compute(), expected)
    run, judged = two_tables(5)
    both = [
        _dask(t, 4).set_index("query", divisions=["q0", "q3", "q6", "q9"]) for t in (run, judged)
    ]
    table = sr.evaluate_dask(both[0], NAMES, judgments=both[1], per_query=True)
    assert _shuffles(table) == 2  # the two set_index, none added
    assert_same(
        sr.evaluate_dask(both[0], NAMES, judgments=both[1]), table.compute(), reference(run, judged)
    )
    # One partition holds every query: nothing to bring together, one table or two.
    single = _dask(frame, 1)
    table = sr.evaluate_dask(single, LONG_NAMES, per_query=True)
    assert _shuffles(table) == 0
    assert_same(
        sr.evaluate_dask(single, LONG_NAMES), table.compute(), reference(frame, names=LONG_NAMES)
    )
    table = sr.evaluate_dask(_dask(run, 1), NAMES, judgments=_dask(judged, 1), per_query=True)
    assert _shuffles(table) == 0
    assert_same(
        sr.evaluate_dask(_dask(run, 1), NAMES, judgments=_dask(judged, 1)),
        table.compute(),
        reference(run, judged),
    )


def test_partition_restores_input_order_among_ties():
    """A shuffle may deliver a query's rows in any order: the partition puts them back
    in input order by the position they carry, so ties="stable" is that of the input."""
    import pandas as pd

    from sklearn_rank.distributed import _tables as t

    frame = one_table(6, n_queries=8, with_nulls=False)
    rows = pd.DataFrame(
        {
            t.QUERY: frame["query"],
            t.ITEM: frame["item"],
            t.SCORE: frame["score"],
            t.RELEVANCE: frame["relevance"],
            t.ORDER: np.arange(len(frame), dtype=np.int64),
        }
    )
    names = ["ndcg@3", "map", "mrr", "precision@2"]
    mixed = rows.sample(frac=1.0, random_state=0)
    expected = reference(frame, names=names, ties="stable")[1]

    def table(spec):
        out = t._apply_rules(t._per_query_table(mixed, spec, object), spec).set_index("query")
        return {name: out[name].to_dict() for name in names}

    spec = t._make_spec(
        names,
        {"ties": "stable"},
        query="query",
        item="item",
        relevance="relevance",
        score="score",
        rank=None,
        judgments_given=False,
        sample_weight=None,
        per_query=False,
    )
    assert spec.ordered
    got = table(spec)
    for name in names:
        assert got[name] == pytest.approx(expected[name], abs=1e-12, nan_ok=True)
    # Without the carried positions the mixed rows give other values: the test can fail.
    import dataclasses

    unordered = table(dataclasses.replace(spec, ordered=False))
    assert any(unordered[n] != pytest.approx(expected[n], abs=1e-12) for n in names)


@pytest.fixture
def small():
    pytest.importorskip("dask.dataframe")
    frame = one_table(7, n_queries=6)
    return frame, _dask(frame, 3)


@pytest.mark.parametrize(
    "change, options, message",
    [
        (None, {"query": "user"}, "The query column 'user' is not in data; its columns are"),
        (None, {"score": "prediction"}, "The score column 'prediction' is not in data"),
        (None, {"rank": "rank"}, "The rank column 'rank' is not in data"),
        (None, {"relevance": "label"}, "The relevance column 'label' is not in data"),
        (None, {"sample_weight": "w"}, "The sample_weight column 'w' is not in data"),
        ("score_text", {}, "The score column 'score' of data must hold numbers; got type"),
        ("null_score", {}, "The score column 'score' of data has a missing value \\(query"),
        ("null_item", {}, "The item column 'item' of data has a missing value \\(query"),
        ("null_query", {}, "The query column 'query' of data has a missing value"),
        ("nan_score", {}, "The score column 'score' of data has a missing value"),
        ("inf_score", {}, "The score column 'score' of data must hold finite numbers; got inf"),
        ("duplicate", {}, "data has item .* more than once for query 'q"),
        ("empty", {}, "No query to evaluate: the frames are empty"),
        (None, {"ties": "random"}, "ties must be one of"),
        (None, {"convention": "nonesuch"}, "convention must be one of"),
        (None, {"metrics": ["ndcg@0"]}, "must be a positive integer"),
        (None, {"metrics": []}, "at least one metric"),
        (None, {"per_query": "yes"}, "per_query must be True or False"),
    ],
)
def test_bad_input_is_named(small, change, options, message):
    frame, data = small
    frame = frame.copy()
    if change == "score_text":
        frame["score"] = frame["score"].astype(str)
    elif change in ("null_score", "nan_score"):
        frame["score"] = frame["score"].astype(object if change == "null_score" else float)
        frame.loc[3, "score"] = None if change == "null_score" else np.nan
        frame["score"] = frame["score"].astype(float)
    elif change == "null_item":
        frame["item"] = frame["item"].astype("Int64")
        frame.loc[2, "item"] = None
    elif change == "null_query":
        frame.loc[1, "query"] = None
    elif change == "inf_score":
        frame.loc[4, "score"] = np.inf
    elif change == "duplicate":
        frame = pd_concat(frame, frame.iloc[[5]])
    elif change == "empty":
        frame = frame.iloc[:0]
    if change is not None:
        data = _dask(frame, 3)
    metrics = options.pop("metrics", ["ndcg@3", "map"])
    with pytest.raises(ValueError, match=message):
        sr.evaluate_dask(data, metrics, **options)


def pd_concat(*frames):
    import pandas as pd

    return pd.concat(frames, ignore_index=True)


def test_bad_judgments_are_named(small):
    frame, data = small
    judged = frame[["query", "item", "relevance"]].dropna()
    run = _dask(frame[["query", "item", "score"]], 2)
    with pytest.raises(ValueError, match="The relevance column 'grade' is not in judgments"):
        sr.evaluate_dask(run, ["map"], judgments=_dask(judged, 2), relevance="grade")
    other = judged.assign(query=judged["query"].str.len())
    with pytest.raises(ValueError, match="The query column 'query' has type .* in data and"):
        sr.evaluate_dask(run, ["map"], judgments=_dask(other, 2))
    twice = pd_concat(judged, judged.iloc[[0]])
    with pytest.raises(ValueError, match="judgments judges item .* more than once for query"):
        sr.evaluate_dask(run, ["map"], judgments=_dask(twice, 2))
    with pytest.raises(TypeError, match="data must be a dask DataFrame; got DataFrame"):
        sr.evaluate_dask(frame, ["map"])
    with pytest.raises(TypeError, match="unknown convention parameter 'gains'"):
        sr.evaluate_dask(data, ["map"], gains="linear")
    # Binary judgments (no relevance column): every row relevant.
    binary = judged[judged["relevance"] > 0][["query", "item"]]
    got = sr.evaluate_dask(run, ["map", "ndcg"], judgments=_dask(binary, 2), relevance=None)
    truth = sr.ItemJudgments.from_frame(binary)
    expected = sr.evaluate(truth, sr.ItemRanking.from_frame(frame), ["map", "ndcg"])
    assert got == pytest.approx(expected, abs=1e-12, nan_ok=True)


@pytest.mark.parametrize("module", ["dask", "dask.dataframe"])
def test_missing_dask_names_the_extra(small, monkeypatch, module):
    frame, data = small
    monkeypatch.setitem(sys.modules, module, None)
    with pytest.raises(ImportError, match='pip install "sklearn-rank\\[dask\\]"'):
        sr.evaluate_dask(data, ["map"])


@pytest.mark.slow
def test_grouped_search_on_the_dask_backend_equals_local(dask_client):
    """GroupedGridSearchCV with the library's scorers, its fits and scores sent to the
    Dask workers by joblib, gives the cv_results_ of a local run."""
    import joblib
    from sklearn.linear_model import Ridge
    from sklearn.model_selection import GroupKFold

    from sklearn_rank.datasets import make_ranking

    X, y, groups = make_ranking(n_queries=30, random_state=0)
    scoring = ["ndcg@5", "map", "mrr"]

    def search(n_jobs):
        return sr.GroupedGridSearchCV(
            Ridge(),
            {"alpha": [0.1, 10.0]},
            scoring=scoring,
            refit="ndcg@5",
            cv=GroupKFold(3),
            n_jobs=n_jobs,
        ).fit(X, y, groups=groups)

    from distributed import get_task_stream

    local = search(None)
    with get_task_stream(dask_client) as stream, joblib.parallel_backend("dask"):
        remote = search(-1)
    assert len(stream.data) >= 6  # the 2 x 3 fits and their scoring ran on the workers
    for name in scoring:
        for key in [f"split{i}_test_{name}" for i in range(3)] + [f"mean_test_{name}"]:
            np.testing.assert_allclose(
                remote.cv_results_[key], local.cv_results_[key], rtol=0, atol=1e-12
            )
    assert remote.best_params_ == local.best_params_


def _graded_tables():
    """A run and judgments where one query holds the only grade 4 and another query,
    judged but never ranked, a grade 6: ERR's scale without max_grade is the largest
    grade of the kept queries (4 with query_set="both", 6 otherwise), never a partition's.
    """
    import pandas as pd

    run = pd.DataFrame(
        {
            "query": ["a", "a", "a", "b", "b", "c", "c", "c"],
            "item": [1, 2, 3, 1, 2, 1, 2, 3],
            "score": [0.9, 0.8, 0.1, 0.5, 0.7, 0.3, 0.2, 0.1],
        }
    )
    judged = pd.DataFrame(
        {
            "query": ["a", "a", "b", "c", "c", "z"],
            "item": [1, 3, 2, 2, 3, 1],
            "relevance": [4.0, 1.0, 1.0, 1.0, 0.0, 6.0],
        }
    )
    return run, judged


@pytest.mark.slow
@pytest.mark.parametrize("query_set", ["all", "both"])
def test_err_takes_the_largest_grade_of_all_kept_queries(dask_client, query_set):
    dd = pytest.importorskip("dask.dataframe")
    run, judged = _graded_tables()
    names = ["err", "err@2", "err(max_grade=7)@2"]
    data = dd.from_pandas(run, npartitions=3, sort=False)
    judgments = dd.from_pandas(judged, npartitions=2, sort=False)
    got = sr.evaluate_dask(data, names, judgments=judgments, query_set=query_set)
    table = sr.evaluate_dask(data, names, judgments=judgments, query_set=query_set, per_query=True)
    expected = reference(run, judged, names=names, query_set=query_set)
    assert_same(got, table.compute(), expected)
    # One table: the grades of the ranked rows (query z has none).
    one = run.merge(judged, on=["query", "item"], how="left")
    got = sr.evaluate_dask(dd.from_pandas(one, npartitions=3, sort=False), names)
    assert got == pytest.approx(reference(one, names=names)[0], abs=1e-12)
    # A partition's own largest grade gives other values: the check bites.
    top = {"all": 6.0, "both": 4.0}[query_set]
    b_alone = sr.evaluate(
        sr.ItemJudgments.from_frame(judged[judged["query"] == "b"], relevance="relevance"),
        sr.ItemRanking.from_frame(run[run["query"] == "b"]),
        ["err"],
        per_query=True,
    )["err"][0]
    assert b_alone != pytest.approx(expected[1]["err"]["b"], abs=1e-6)
    assert expected[1]["err"]["b"] == pytest.approx(1.0 / 2.0**top, abs=1e-15)  # rank 1, grade 1


# Conventions beyond the presets' combinations: condensed lists (which need to tell
# unjudged rows from rows judged 0), thresholds, gains, the other query sets and roundings.
CONVENTION_SETS = [
    {"judged_only": True},
    {"judged_only": True, "ties": "stable", "convention": "trec_eval"},
    {"relevance_threshold": 2, "gain": "exponential", "log_base": 10.0, "no_relevant": 0.5},
    {
        "query_set": "judged",
        "score_dtype": "float32",
        "iprec_rounding": "plus_0.9",
        "short_lists": "length",
        "ap_denominator": "hits",
    },
    {"ties": "stable", "tie_break": "relevance_ascending", "query_set": "both"},
]


@pytest.mark.slow
@pytest.mark.parametrize("options", CONVENTION_SETS)
def test_conventions_equal_evaluate(dask_client, options):
    names = NAMES + SPELLINGS
    frame = one_table(8)
    data = _dask(frame, 6)
    means = sr.evaluate_dask(data, names, **options)
    table = sr.evaluate_dask(data, names, per_query=True, **options).compute()
    assert_same(means, table, reference(data.compute(), names=names, **options))
    # Without the measures that read judged positions too (a partition could then take
    # the long format, where every row is judged).
    core = ["ndcg@3", "map", "precision@3", "mrr"]
    means = sr.evaluate_dask(data, core, **options)
    assert means == pytest.approx(reference(data.compute(), names=core, **options)[0], abs=1e-12)
    run, judged = two_tables(9)
    data, judgments = _dask(run, 5), _dask(judged, 4)
    means = sr.evaluate_dask(data, names, judgments=judgments, **options)
    table = sr.evaluate_dask(data, names, judgments=judgments, per_query=True, **options)
    assert_same(means, table.compute(), reference(run, judged, names=names, **options))


def test_repeated_pairs_are_found_exactly():
    """The repeat check hashes (query, item) into 64 bits and compares the pairs that
    share a hash exactly: a collision is not a repeat, a repeat is found whatever the
    item type."""
    import pandas as pd

    from sklearn_rank.distributed._tables import _first_repeated

    golden = 0x9E3779B97F4A7C15
    inverse = pow(golden, -1, 2**64)
    # Item 0 of query 0 and item `colliding` of query 1 hash alike (0 == colliding * golden ^ 1).
    colliding = np.array([inverse], dtype=np.uint64).view(np.int64)[0]
    codes = np.array([0, 1, 1, 0])
    items = pd.Series(np.array([0, colliding, 5, 7], dtype=np.int64))
    key = items.to_numpy().view(np.uint64) * np.uint64(golden) ^ codes.astype(np.uint64)
    assert key[0] == key[1]  # the hashes collide...
    assert _first_repeated(codes, items) is None  # ...but the pairs differ
    again = pd.Series(np.array([0, colliding, 5, 7, colliding], dtype=np.int64))
    assert _first_repeated(np.array([0, 1, 1, 0, 1]), again) == 4
    assert _first_repeated(np.array([0, 1, 1, 0, 0]), again) is None  # other query
    words = pd.Series(["a", "b", "a", "b", "a"], dtype=object)
    assert _first_repeated(np.array([0, 0, 1, 1, 1]), words) == 4
    assert _first_repeated(np.array([0, 0, 1, 1, 2]), words) is None
    floats = pd.Series([0.5, 1.5, 0.5], dtype=np.float32)
    assert _first_repeated(np.array([2, 2, 2]), floats) == 2


def test_only_the_columns_used_are_read(tmp_path):
    """A parquet reader reads the query, item, score and relevance columns, not the others
    of a wide table (the columns are chosen before the partition function, which Dask
    cannot see into)."""
    import pandas as pd

    dd = pytest.importorskip("dask.dataframe")
    frame = one_table(10, n_queries=12)
    frame.assign(features="x" * 50, other=1.0).to_parquet(tmp_path / "part.parquet")
    data = dd.read_parquet(tmp_path)
    table = sr.evaluate_dask(data, ["ndcg@3", "map"], per_query=True)
    plan = table.expr.optimize(fuse=False)
    # The reader, wrapped by Dask into one node with its file grouping (FusedIO).
    nodes = [n.operand("_expr") if type(n).__name__ == "FusedIO" else n for n in plan.walk()]
    readers = [n for n in nodes if "ReadParquet" in type(n).__name__]
    assert readers and all(
        sorted(r.columns) == ["item", "query", "relevance", "score"] for r in readers
    )
    got = pd.DataFrame(table.compute()).set_index("query")
    expected = reference(frame, names=["ndcg@3", "map"])[1]
    for name in ("ndcg@3", "map"):
        assert got[name].to_dict() == pytest.approx(expected[name], abs=1e-12, nan_ok=True)
