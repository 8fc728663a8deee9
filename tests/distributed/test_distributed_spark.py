"""evaluate_spark gives the numbers of `evaluate` on the collected rows, and
``convention="spark"`` those of Spark's own RankingEvaluator / RankingMetrics.

The random tables of tests/distributed/test_distributed.py (heavy ties, missing judgments,
queries on one side only, string ids, many partitions) on Spark ``local[2]``, bound to
127.0.0.1.
"""

import os
import sys

import numpy as np
import pytest
from test_distributed import (
    LONG_NAMES,
    NAMES,
    SETTINGS,
    SPELLINGS,
    _graded_tables,
    assert_same,
    one_table,
    reference,
    two_tables,
)

import sklearn_rank as sr

pytestmark = [
    pytest.mark.slow,
    pytest.mark.filterwarnings("ignore:PySpark does not yet fully support pandas:FutureWarning"),
]


@pytest.fixture(scope="module")
def spark():
    pytest.importorskip("pyspark")
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    # The Python workers must be this interpreter (with pyarrow and sklearn_rank).
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    from pyspark.sql import SparkSession

    session = (
        SparkSession.builder.master("local[2]")
        .appName("sklearn_rank tests")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", "4")
        .config("spark.default.parallelism", "5")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


@pytest.mark.parametrize("convention, ties", SETTINGS)
def test_one_table_equals_evaluate(spark, convention, ties):
    frame = one_table(11)
    data = spark.createDataFrame(frame)  # 5 partitions, rows in this order
    assert data.rdd.getNumPartitions() == 5
    options = {"convention": convention, "ties": ties}
    names = NAMES + SPELLINGS  # with a mask of judged rows (items under trec_eval's ties)
    means = sr.evaluate_spark(data, names, **options)
    table = sr.evaluate_spark(data, names, per_query=True, **options).toPandas()
    collected = data.toPandas()
    assert_same(means, table, reference(collected, names=names, **options))
    means = sr.evaluate_spark(data, LONG_NAMES, **options)  # no mask of judged rows
    expected = reference(collected, names=LONG_NAMES, **options)[0]
    assert means == pytest.approx(expected, abs=1e-12, rel=1e-12)


@pytest.mark.parametrize("convention, ties", SETTINGS)
def test_run_and_judgments_equal_evaluate(spark, convention, ties):
    run, judged = two_tables(12)
    options = {"convention": convention, "ties": ties}
    data, judgments = spark.createDataFrame(run), spark.createDataFrame(judged)
    names = NAMES + SPELLINGS
    means = sr.evaluate_spark(data, names, judgments=judgments, **options)
    table = sr.evaluate_spark(data, names, judgments=judgments, per_query=True, **options)
    assert_same(means, table.toPandas(), reference(run, judged, names=names, **options))


@pytest.mark.parametrize("query_set", ["all", "both"])
def test_err_takes_the_largest_grade_of_all_kept_queries(spark, query_set):
    """ERR without max_grade: the grade scale is the largest grade of the queries kept
    (query z, judged but never ranked, counts only for query_set="all")."""
    run, judged = _graded_tables()
    names = ["err", "err@2", "err(max_grade=7)@2"]
    data = spark.createDataFrame(run).repartition(3)
    judgments = spark.createDataFrame(judged)
    got = sr.evaluate_spark(data, names, judgments=judgments, query_set=query_set)
    table = sr.evaluate_spark(
        data, names, judgments=judgments, query_set=query_set, per_query=True
    ).toPandas()
    assert_same(got, table, reference(run, judged, names=names, query_set=query_set))
    one = run.merge(judged, on=["query", "item"], how="left")
    got = sr.evaluate_spark(spark.createDataFrame(one), names)
    assert got == pytest.approx(reference(one, names=names)[0], abs=1e-12)


def _recommendations(seed, n_users=60, n_items=25):
    """Top-N lists (ranks) and relevant items with graded relevance, as a recommender
    evaluation has them: some users without a relevant item, some without a list, lists
    shorter than k."""
    import pandas as pd

    rng = np.random.default_rng(seed)
    run, truth = [], []
    for user in range(n_users):
        listed = rng.permutation(n_items)[: rng.integers(0, 9)]
        liked = rng.permutation(n_items)[: rng.integers(0, 7)]
        run += [(user, int(item), rank + 1) for rank, item in enumerate(listed)]
        truth += [(user, int(item), int(rng.integers(1, 4))) for item in liked]
    run = pd.DataFrame(run, columns=["query", "item", "rank"])
    truth = pd.DataFrame(truth, columns=["query", "item", "relevance"])
    return run, truth


def _spark_rows(run, truth):
    """Per user: (predicted items in rank order, labels by relevance descending, their
    relevance), for every user of either table, as RankingMetrics takes them."""
    rows = []
    for user in sorted(set(run["query"]) | set(truth["query"])):
        listed = run[run["query"] == user].sort_values("rank")["item"]
        liked = truth[truth["query"] == user].sort_values("relevance", ascending=False)
        rows.append(
            (
                [float(i) for i in listed],
                [float(i) for i in liked["item"]],
                [float(r) for r in liked["relevance"]],
            )
        )
    return rows


def test_spark_preset_equals_spark_ranking_evaluator(spark):
    from pyspark.ml.evaluation import RankingEvaluator
    from pyspark.mllib.evaluation import RankingMetrics

    run, truth = _recommendations(13)
    rows = _spark_rows(run, truth)
    arrays = spark.createDataFrame([(p, lab) for p, lab, _ in rows], ["prediction", "label"])
    evaluator = RankingEvaluator(predictionCol="prediction", labelCol="label")
    expected = {"map": evaluator.evaluate(arrays, {evaluator.metricName: "meanAveragePrecision"})}
    spark_names = {
        "precision": "precisionAtK",
        "recall": "recallAtK",
        "ndcg": "ndcgAtK",
        "map": "meanAveragePrecisionAtK",
    }
    for k in (1, 3, 5, 10):
        for ours, theirs in spark_names.items():
            params = {evaluator.metricName: theirs, evaluator.k: k}
            expected[f"{ours}@{k}"] = evaluator.evaluate(arrays, params)
    names = list(expected)
    data, judgments = spark.createDataFrame(run), spark.createDataFrame(truth)
    # Binary labels: every judged row is relevant.
    got = sr.evaluate_spark(
        data, names, rank="rank", judgments=judgments, relevance=None, convention="spark"
    )
    for name in names:
        assert got[name] == pytest.approx(expected[name], abs=1e-12), name
    # pyspark's RankingMetrics reads only (prediction, label): graded NDCG is Scala-only,
    # so its rule (RankingMetrics.ndcgAt with relevance values) is transcribed below.
    metrics = RankingMetrics(spark.sparkContext.parallelize([(p, lab) for p, lab, _ in rows]))
    assert metrics.ndcgAt(10) == pytest.approx(expected["ndcg@10"], abs=1e-12)
    graded = sr.evaluate_spark(
        data, ["ndcg@3", "ndcg@10"], rank="rank", judgments=judgments, convention="spark"
    )
    for k in (3, 10):
        assert graded[f"ndcg@{k}"] == pytest.approx(_scala_graded_ndcg(rows, k), abs=1e-12)
    # Without the preset the numbers differ (linear gain, MAP@k over R): the check bites.
    plain = sr.evaluate_spark(data, ["map@3", "ndcg@10"], rank="rank", judgments=judgments)
    assert plain["map@3"] != pytest.approx(expected["map@3"], abs=1e-6)
    assert plain["ndcg@10"] != pytest.approx(_scala_graded_ndcg(rows, 10), abs=1e-6)


def _scala_graded_ndcg(rows, k):
    """Spark's RankingMetrics.ndcgAt(k) with relevance values, one query at a time:
    gains 2**rel - 1 over natural logs; the ideal DCG takes the labels in their given
    order (here by relevance descending); 0 for an empty label set."""
    values = []
    for prediction, labels, relevance in rows:
        gain = dict(zip(labels, relevance))
        n = min(max(len(prediction), len(labels)), k)
        dcg = sum(
            (2.0 ** gain.get(prediction[i], 0.0) - 1) / np.log(i + 2)
            for i in range(min(n, len(prediction)))
        )
        ideal = sum(
            (2.0 ** gain[labels[i]] - 1) / np.log(i + 2) for i in range(min(n, len(labels)))
        )
        values.append(dcg / ideal if labels and ideal else 0.0)
    return float(np.mean(values))


@pytest.fixture
def small(spark):
    frame = one_table(14, n_queries=6)
    return frame, spark.createDataFrame(frame)


@pytest.mark.parametrize(
    "change, options, message",
    [
        (None, {"query": "user"}, "The query column 'user' is not in data; its columns are"),
        (None, {"rank": "position"}, "The rank column 'position' is not in data"),
        ("score_text", {}, "The score column 'score' of data must hold numbers; got type string"),
        ("null_score", {}, "The score column 'score' of data has a missing value \\(query"),
        ("null_item", {}, "The item column 'item' of data has a missing value \\(query"),
        ("null_query", {}, "The query column 'query' of data has a missing value"),
        ("duplicate", {}, "data has item .* more than once for query 'q"),
        ("empty", {}, "No query to evaluate: the frames are empty"),
    ],
)
def test_bad_input_is_named(spark, small, change, options, message):
    from pyspark.sql import functions

    frame, data = small
    if change == "score_text":
        data = data.withColumn("score", data["score"].cast("string"))
    elif change == "null_score":
        data = data.withColumn(
            "score", functions.when(data["item"] == 3, None).otherwise(data["score"])
        )
    elif change == "null_item":
        data = data.withColumn(
            "item", functions.when(data["item"] == 3, None).otherwise(data["item"])
        )
    elif change == "null_query":
        data = data.withColumn(
            "query", functions.when(data["item"] == 3, None).otherwise(data["query"])
        )
    elif change == "duplicate":
        data = data.union(data.limit(1))
    elif change == "empty":
        data = data.limit(0)
    with pytest.raises(ValueError, match=message):
        sr.evaluate_spark(data, ["ndcg@3", "map"], **options)


def test_not_a_spark_frame_and_missing_pyspark(small, monkeypatch):
    frame, data = small
    with pytest.raises(TypeError, match="data must be a pyspark DataFrame; got DataFrame"):
        sr.evaluate_spark(frame, ["map"])
    monkeypatch.setitem(sys.modules, "pyspark.sql", None)
    with pytest.raises(ImportError, match='pip install "sklearn-rank\\[spark\\]"'):
        sr.evaluate_spark(data, ["map"])
