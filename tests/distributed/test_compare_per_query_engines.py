"""compare_per_query on the per-query output of evaluate_dask and evaluate_spark: the same
comparison as compare from judgments (the engines' tests live here, where the runs without
the engines' extras leave them out)."""

import numpy as np
import pytest

from sklearn_rank import ItemJudgments, ItemRanking, compare, compare_per_query


def test_dask_per_query_output():
    pd = pytest.importorskip("pandas")
    dd = pytest.importorskip("dask.dataframe")
    from sklearn_rank import evaluate_dask

    rng = np.random.default_rng(0)
    n = 400
    frame = pd.DataFrame(
        {
            "query": rng.integers(0, 40, n).astype(str),
            "item": np.arange(n),
            "relevance": rng.integers(0, 3, n),
        }
    )
    per_run, runs = {}, {}
    for name, noise in (("a", 2.0), ("b", 0.5)):
        scores = frame["relevance"] + rng.normal(0, noise, n)
        runs[name] = ItemRanking(frame["query"], frame["item"], scores)
        data = dd.from_pandas(frame.assign(score=scores), npartitions=3)
        per_run[name] = evaluate_dask(data, ["ndcg@5", "map"], per_query=True)
    truth = ItemJudgments(frame["query"], frame["item"], frame["relevance"])
    expected = compare(truth, runs, ["ndcg@5", "map"], test="t")
    got = compare_per_query(per_run, test="t")  # queries in the engine's order
    order = [list(got.query_ids).index(q) for q in expected.query_ids]
    for label in ("ndcg@5", "map"):
        assert np.array_equal(got.per_query[label][order], expected.per_query[label])
    for column in ("mean", "ci_low", "ci_high"):
        np.testing.assert_allclose(got.runs[column], expected.runs[column], rtol=1e-13)
    for column in ("diff", "pvalue", "effect_size"):
        np.testing.assert_allclose(got.pairs[column], expected.pairs[column], rtol=1e-12)


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore:PySpark does not yet fully support pandas:FutureWarning")
def test_spark_per_query_output():
    pytest.importorskip("pyspark")
    pd = pytest.importorskip("pandas")
    import os
    import sys

    from pyspark.sql import SparkSession

    from sklearn_rank import evaluate_spark

    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    spark = (
        SparkSession.builder.master("local[1]")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .getOrCreate()
    )
    try:
        rng = np.random.default_rng(1)
        n = 300
        frame = pd.DataFrame(
            {
                "query": rng.integers(0, 30, n).astype(str),
                "item": np.arange(n),
                "relevance": rng.integers(0, 3, n),
            }
        )
        per_run, runs = {}, {}
        for name, noise in (("a", 2.0), ("b", 0.5)):
            scores = frame["relevance"] + rng.normal(0, noise, n)
            runs[name] = ItemRanking(frame["query"], frame["item"], scores)
            data = spark.createDataFrame(frame.assign(score=scores))
            per_run[name] = evaluate_spark(data, ["ndcg@5"], per_query=True)
        truth = ItemJudgments(frame["query"], frame["item"], frame["relevance"])
        expected = compare(truth, runs, ["ndcg@5"], test="t")
        got = compare_per_query(per_run, test="t")
    finally:
        spark.stop()
    order = [list(got.query_ids).index(q) for q in expected.query_ids]
    np.testing.assert_array_equal(got.per_query["ndcg@5"][order], expected.per_query["ndcg@5"])
    np.testing.assert_allclose(got.pairs["pvalue"], expected.pairs["pvalue"], rtol=1e-12)
