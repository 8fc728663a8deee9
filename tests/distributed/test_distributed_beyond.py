"""Beyond-accuracy metrics on Dask: the numbers of `evaluate`, to the bit, per-user ones
per query and corpus-level ones merged from the partitions' item counts; the training
popularity from an in-memory table or one aggregation over a Dask table."""

import numpy as np
import pytest

import sklearn_rank as sr

dd = pytest.importorskip("dask.dataframe")
pd = pytest.importorskip("pandas")

from sklearn_rank.distributed import evaluate_dask  # noqa: E402

NAMES = [
    "coverage@10", "entropy@10", "entropy(weighting='users')@10", "gini@10",
    "gini(counts='lists')@10", "novelty@10", "novelty(average='slots')@10",
    "popularity@10", "aplt@10", "aclt@10", "efd@10", "epc@10", "mean_pop_rank@10",
    "diversity@10", "ndcg@10",
]  # fmt: skip


def _case(seed=0, n_users=150, n_items=40):
    rng = np.random.default_rng(seed)
    rows = []
    for user in range(n_users):
        for position, item in enumerate(rng.permutation(n_items)[: rng.integers(0, 13)]):
            rows.append((user, int(item), float(-position)))  # short and empty lists
    run = pd.DataFrame(rows, columns=["query", "item", "score"])
    truth = pd.DataFrame(
        {"query": rng.integers(0, n_users, 400), "item": rng.integers(0, n_items, 400)}
    ).drop_duplicates()
    truth["relevance"] = 1.0
    train = (rng.integers(0, 200, 900), np.minimum(rng.zipf(1.4, 900), n_items) - 1)
    features = rng.integers(0, 2, (n_items, 5)).astype(float)
    return run, truth, train, features, n_items


def _in_memory(run, truth, names, **kwargs):
    return sr.evaluate(
        sr.ItemJudgments(truth["query"], truth["item"], truth["relevance"]),
        sr.ItemRanking(run["query"], run["item"], run["score"]),
        names,
        ties="stable",
        no_relevant="skip",
        **kwargs,
    )


@pytest.mark.parametrize("npartitions", [1, 3])
def test_every_metric_equals_evaluate_to_the_bit(npartitions):
    run, truth, train, features, n_items = _case()
    side = dict(train=train, catalog=n_items, item_features=features)
    expected = _in_memory(run, truth, NAMES, **side)
    got = evaluate_dask(
        dd.from_pandas(run, npartitions=npartitions),
        NAMES,
        judgments=dd.from_pandas(truth, npartitions=2),
        ties="stable",
        no_relevant="skip",
        **side,
    )
    assert list(got) == NAMES
    assert got == expected


def test_a_dask_training_table_gives_the_same_popularity():
    run, truth, train, features, n_items = _case(1)
    names = ["novelty@10", "popularity@10", "aplt@10", "gini@10", "coverage@10"]
    expected = _in_memory(run, truth, names, train=train, catalog=n_items)
    table = dd.from_pandas(pd.DataFrame({"query": train[0], "item": train[1]}), npartitions=3)
    got = evaluate_dask(
        dd.from_pandas(run, npartitions=2),
        names,
        judgments=dd.from_pandas(truth, npartitions=2),
        train=table,
        catalog=n_items,
        ties="stable",
        no_relevant="skip",
    )
    assert got == expected


def test_per_user_values_per_query():
    run, truth, train, features, n_items = _case(2)
    names = ["novelty@5", "popularity@5", "diversity@5"]
    side = dict(train=train, catalog=n_items, item_features=features)
    expected = sr.evaluate(
        sr.ItemJudgments(truth["query"], truth["item"], truth["relevance"]),
        sr.ItemRanking(run["query"], run["item"], run["score"]),
        names, ties="stable", per_query="table", **side,
    )  # fmt: skip
    got = evaluate_dask(
        dd.from_pandas(run, npartitions=3), names, judgments=dd.from_pandas(truth, npartitions=2),
        ties="stable", per_query=True, **side,
    ).compute().set_index("query")  # fmt: skip
    for name in names:
        np.testing.assert_array_equal(got.loc[expected["query"], name].to_numpy(), expected[name])


def test_refusals_name_the_reason():
    run, truth, _train, _features, n_items = _case(3)
    data, judgments = dd.from_pandas(run, npartitions=2), dd.from_pandas(truth, npartitions=1)
    with pytest.raises(ValueError, match="corpus-level"):
        evaluate_dask(data, ["coverage@5"], judgments=judgments, catalog=n_items, per_query=True)
    with pytest.raises(ValueError, match="serendipity reads each user's training items"):
        evaluate_dask(
            data, ["serendipity@5"], judgments=judgments, catalog=n_items, item_features=_features
        )
    with pytest.raises(ValueError, match="need the catalog"):
        evaluate_dask(data, ["coverage@5"], judgments=judgments)


# --- The measures that read each user's training items ---------------------------------
# The training table's rows travel with their users' queries (one shuffle); the item
# co-occurrences read the whole table, collected once. Inputs cut into uneven partitions
# in random row order, so a user's training rows, queries and judgments start in
# different partitions; users without training rows and training users without queries.

HISTORY_NAMES = [
    "serendipity@10", "serendipity(relevance='all')@5", "pop_rsp@10", "pop_reo@10",
    "pop_reo(head_share=0.5)@5", "serendipity(similarity='cooccurrence')@10",
    "diversity(similarity='cooccurrence')@10", "rank_serendipity@10", "novelty@10",
    "coverage@10", "ndcg@10",
]  # fmt: skip
ROWS_ONLY = ["serendipity@10", "pop_rsp@10", "pop_reo@5", "aplt@10", "gini@10", "ndcg@10"]


def _history_case(seed, string_ids=False):
    """A run, its judgments and a training table (rows in random order, repeated rows,
    users 0..149 of which the run ranks 0..119; every seventh user has no training row)."""
    run, truth, _train, features, n_items = _case(seed, n_users=120)
    rng = np.random.default_rng(seed + 100)
    users = rng.integers(0, 150, 1200)
    users = users[users % 7 != 0]
    train = pd.DataFrame(
        {"query": users, "item": np.minimum(rng.zipf(1.4, users.size), n_items) - 1}
    )
    train = pd.concat([train, train.sample(150, random_state=seed)], ignore_index=True)
    frames = [run, truth, train]
    if string_ids:
        frames = [f.assign(query="u" + f["query"].astype(str)) for f in frames]
    run, truth, train = (f.sample(frac=1.0, random_state=seed) for f in frames)
    return run, truth, train, features, n_items


def _uneven(frame, shares=(0.05, 0.55, 0.6)):
    """Partitions of uneven sizes (5%, 50%, 5%, 40% of the rows), in the frame's order."""
    cuts = [0, *(np.asarray(shares) * len(frame)).astype(int), len(frame)]
    parts = [frame.iloc[a:b].reset_index(drop=True) for a, b in zip(cuts[:-1], cuts[1:])]
    return dd.concat([dd.from_pandas(part, npartitions=1, sort=False) for part in parts])


def _rows(train):
    return (train["query"].to_numpy(), train["item"].to_numpy())


@pytest.mark.parametrize("string_ids", [False, True])
def test_history_measures_from_a_training_table_equal_evaluate(string_ids):
    run, truth, train, features, n_items = _history_case(5, string_ids)
    side = dict(catalog=n_items, item_features=features)
    expected = _in_memory(run, truth, HISTORY_NAMES, train=_rows(train), **side)
    assert not any(np.isnan(value) for value in expected.values())
    got = evaluate_dask(
        _uneven(run), HISTORY_NAMES, judgments=_uneven(truth, (0.3, 0.35, 0.9)),
        train=_uneven(train, (0.1, 0.2, 0.7)), ties="stable", no_relevant="skip", **side,
    )  # fmt: skip
    assert list(got) == HISTORY_NAMES
    assert got == expected


def test_history_rows_travel_with_the_queries(monkeypatch):
    """Without co-occurrence, the training table is not collected: its rows reach their
    users' partitions in the queries' shuffle, and an in-memory ``train`` gives the same."""
    run, truth, train, features, n_items = _history_case(6)
    side = dict(catalog=n_items, item_features=features)
    expected = _in_memory(run, truth, ROWS_ONLY, train=_rows(train), **side)
    data, judgments = _uneven(run), _uneven(truth, (0.5, 0.6, 0.61))
    for given in (_uneven(train, (0.01, 0.02, 0.5)), _rows(train)):
        got = evaluate_dask(
            data, ROWS_ONLY, judgments=judgments, train=given, ties="stable",
            no_relevant="skip", **side,
        )  # fmt: skip
        assert got == expected
    from sklearn_rank.distributed import _dask

    history_rows = []
    original = _dask._side_on_driver

    def spy(*args):
        out = original(*args)
        history_rows.append(out[0].history_rows)
        return out

    monkeypatch.setattr(_dask, "_side_on_driver", spy)
    evaluate_dask(data, ["pop_rsp@10"], judgments=judgments, train=_uneven(train), **side)
    evaluate_dask(
        data, ["diversity(similarity='cooccurrence')@10"], judgments=judgments,
        train=_uneven(train), **side,
    )  # fmt: skip
    assert history_rows == [True, False]  # rows shuffled; co-occurrence: the table collected


def test_history_measures_of_one_table_and_per_user_values():
    """One table (a null relevance: ranked, not judged), input-order ties, and the
    per-user values of serendipity."""
    run, truth, train, features, n_items = _history_case(7)
    table = run.merge(truth, on=["query", "item"], how="left")
    table["relevance"] = table["relevance"].where(table["relevance"].notna(), None)
    judged = table[table["relevance"].notna()]
    side = dict(catalog=n_items, item_features=features)
    names = ["serendipity@10", "pop_rsp@10", "pop_reo@10", "ndcg@10"]
    expected = _in_memory(table, judged, names, train=_rows(train), **side)
    got = evaluate_dask(
        _uneven(table), names, train=_uneven(train), ties="stable", no_relevant="skip", **side
    )
    assert got == expected
    per_user = ["serendipity@10", "serendipity(similarity='cooccurrence')@5"]
    expected = sr.evaluate(
        sr.ItemJudgments(truth["query"], truth["item"], truth["relevance"]),
        sr.ItemRanking(run["query"], run["item"], run["score"]),
        per_user, per_query="table", train=_rows(train), **side,
    )  # fmt: skip
    got = evaluate_dask(
        _uneven(run), per_user, judgments=_uneven(truth), train=_uneven(train), per_query=True,
        **side,
    ).compute().set_index("query")  # fmt: skip
    assert len(got) == len(expected["query"])
    for name in per_user:
        np.testing.assert_array_equal(got.loc[expected["query"], name].to_numpy(), expected[name])
    # users with a list but no training row have no serendipity (left out of the mean)
    untrained = np.isin(expected["query"], train["query"], invert=True)
    assert untrained.any() and np.isnan(expected["serendipity@10"][untrained]).all()


def test_history_presets_and_errors_as_evaluate():
    run, truth, train, features, n_items = _history_case(8)
    data, judgments = _uneven(run), _uneven(truth)
    # Elliot's PopRSP fails on a recommended user without training rows: refused alike.
    with pytest.raises(ValueError, match="without training interactions fails in Elliot"):
        evaluate_dask(
            data, ["pop_rsp@10"], judgments=judgments, train=_uneven(train), catalog=n_items,
            convention="elliot",
        )  # fmt: skip
    trained = run[run["query"].isin(train["query"])]
    names = ["pop_rsp@10", "pop_reo@10", "aclt@10"]
    expected = _in_memory(
        trained, truth, names, train=_rows(train), catalog=n_items, convention="elliot"
    )
    got = evaluate_dask(
        _uneven(trained), names, judgments=judgments, train=_uneven(train), catalog=n_items,
        ties="stable", no_relevant="skip", convention="elliot",
    )  # fmt: skip
    assert got == expected
    # Microsoft's preset reads co-occurrences without item features.
    names = ["diversity@10", "serendipity@10", "novelty@10"]
    expected = _in_memory(
        run, truth, names, train=_rows(train), catalog=n_items, convention="recommenders"
    )
    got = evaluate_dask(
        data, names, judgments=judgments, train=_uneven(train), catalog=n_items,
        ties="stable", no_relevant="skip", convention="recommenders",
    )  # fmt: skip
    assert got == expected
    # An item outside the catalog, a training table whose ids have another type.
    outside = pd.concat([train, pd.DataFrame({"query": [3], "item": [n_items + 5]})])
    with pytest.raises(ValueError) as in_memory:
        _in_memory(run, truth, ["pop_rsp@10"], train=_rows(outside), catalog=n_items)
    with pytest.raises(ValueError) as on_dask:
        evaluate_dask(
            data, ["pop_rsp@10"], judgments=judgments, train=_uneven(outside), catalog=n_items
        )
    assert str(on_dask.value) == str(in_memory.value)
    strings = train.assign(query=train["query"].astype(str))
    with pytest.raises(ValueError, match="has type .* in data and .* in train"):
        evaluate_dask(
            data, ["pop_rsp@10"], judgments=judgments, train=dd.from_pandas(strings, 2),
            catalog=n_items,
        )  # fmt: skip


@pytest.mark.slow
def test_history_measures_on_a_local_cluster():
    """Worker processes: the spec and the shuffled training rows are pickled."""
    distributed = pytest.importorskip("distributed")
    run, truth, train, features, n_items = _history_case(9, string_ids=True)
    side = dict(catalog=n_items, item_features=features)
    expected = _in_memory(run, truth, HISTORY_NAMES, train=_rows(train), **side)
    cluster = distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
        dashboard_address=None,
    )  # fmt: skip
    data, judgments, table = _uneven(run), _uneven(truth), _uneven(train)
    try:
        with distributed.Client(cluster):
            got = evaluate_dask(
                data, HISTORY_NAMES, judgments=judgments, train=table, ties="stable",
                no_relevant="skip", **side,
            )  # fmt: skip
            # without co-occurrence: the training rows shuffled with the queries
            rows_only = evaluate_dask(
                data, ROWS_ONLY[:3], judgments=judgments, train=table, no_relevant="skip",
                **side,
            )  # fmt: skip
    finally:
        cluster.close()
    assert got == expected
    assert rows_only == _in_memory(run, truth, ROWS_ONLY[:3], train=_rows(train), **side)


# --- Spark: the same numbers, partial counts pickled per partition ----------------------


@pytest.fixture(scope="module")
def spark():
    import os
    import sys

    pytest.importorskip("pyspark")
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    from pyspark.sql import SparkSession

    session = (
        SparkSession.builder.master("local[2]")
        .appName("sklearn_rank beyond-accuracy tests")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", "4")
        .config("spark.default.parallelism", "3")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore:PySpark does not yet fully support pandas:FutureWarning")
def test_spark_equals_evaluate_to_the_bit(spark):
    run, truth, train, features, n_items = _case(4)
    side = dict(catalog=n_items, item_features=features)
    expected = _in_memory(run, truth, NAMES, train=train, **side)
    data, judgments = spark.createDataFrame(run), spark.createDataFrame(truth)
    got = sr.evaluate_spark(
        data, NAMES, judgments=judgments, train=train, ties="stable", no_relevant="skip", **side
    )
    assert list(got) == NAMES
    assert got == expected
    table = spark.createDataFrame(pd.DataFrame({"query": train[0], "item": train[1]}))
    names = ["novelty@10", "coverage@10", "gini@10"]
    from_table = sr.evaluate_spark(
        data, names, judgments=judgments, train=table, catalog=n_items, ties="stable",
        no_relevant="skip",
    )  # fmt: skip
    assert from_table == {name: expected[name] for name in names}


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore:PySpark does not yet fully support pandas:FutureWarning")
@pytest.mark.filterwarnings("ignore:The copy keyword is deprecated")  # pyspark's toPandas
def test_spark_history_measures_equal_evaluate(spark):
    """The training table's rows join their users' queries in the one repartition; the
    co-occurrences collect it once; an in-memory train goes whole to every partition."""
    run, truth, train, features, n_items = _history_case(10, string_ids=True)
    side = dict(catalog=n_items, item_features=features)
    expected = _in_memory(run, truth, HISTORY_NAMES, train=_rows(train), **side)
    data = spark.createDataFrame(run).repartition(3)
    judgments = spark.createDataFrame(truth).repartition(2)
    table = spark.createDataFrame(train).repartition(4)
    got = sr.evaluate_spark(
        data, HISTORY_NAMES, judgments=judgments, train=table, ties="stable",
        no_relevant="skip", **side,
    )  # fmt: skip
    assert got == expected
    names = ["serendipity@10", "pop_rsp@10", "pop_reo@10", "ndcg@10"]
    for given in (table, _rows(train)):
        got = sr.evaluate_spark(
            data, names, judgments=judgments, train=given, no_relevant="skip", **side
        )
        assert got == {name: expected[name] for name in names}
    # One table (run rows tagged apart from the training rows), input-order ties.
    one = run.merge(truth, on=["query", "item"], how="left")
    judged = one[one["relevance"].notna()]
    expected_one = _in_memory(one, judged, names, train=_rows(train), **side)
    got = sr.evaluate_spark(
        spark.createDataFrame(one), names, train=table, ties="stable", no_relevant="skip",
        **side,
    )  # fmt: skip
    assert got == expected_one
    per_user = (
        sr.evaluate_spark(
            data, ["serendipity@10"], judgments=judgments, train=table, per_query=True, **side
        )
        .toPandas()
        .set_index("query")
    )
    reference = sr.evaluate(
        sr.ItemJudgments(truth["query"], truth["item"], truth["relevance"]),
        sr.ItemRanking(run["query"], run["item"], run["score"]),
        ["serendipity@10"], per_query="table", train=_rows(train), **side,
    )  # fmt: skip
    np.testing.assert_array_equal(
        per_user.loc[reference["query"], "serendipity@10"].to_numpy(),
        reference["serendipity@10"],
    )
