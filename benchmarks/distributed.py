"""evaluate_dask and evaluate_spark against in-memory evaluate and Spark's RankingEvaluator.

Not a test: run it by hand, on a quiet machine for the full sizes (the defaults need about
10 GB of memory for the in-memory reference of 5 x 10^7 rows, and a few GB of disk in the
temporary directory):

    python benchmarks/distributed.py                       # 10^6, 10^7, 5 x 10^7 rows
    python benchmarks/distributed.py --rows 1e5 1e6 --spark-rows 1e6 --repeat 1  # a check

For each size, a table of (query, item, relevance, score) rows, about 200 rows per query,
queries spread over every file, is written as parquet (files of 10^6 rows) under a
temporary directory, which is removed at the end. Then:

- Dask: ``evaluate_dask`` on ``dd.read_parquet`` (reading, the shuffle on the query and the
  evaluation) on a LocalCluster of 2 worker processes with ``memory_limit="2GB"`` each,
  against ``evaluate`` in one process on the same rows already loaded in memory (long
  format: the fastest in-memory form). The numbers must agree to 1e-12. The largest
  resident memory of a worker is sampled while evaluate_dask runs.
- Spark (``--spark-rows``, local[2]): ``evaluate_spark(convention="spark")`` on
  ``spark.read.parquet``, against Spark's RankingEvaluator, whose time counts building the
  arrays it needs (a groupBy collecting each query's items sorted by score and its
  relevant items, cached) and one ``evaluate`` per metric. Scores have no ties here, so
  both must give the same numbers. Both are warmed up on a few rows first, then run in
  turn.

Each side runs ``--repeat`` times (default 2) and its least time counts; every ratio
printed is measured in the same run.
"""

import argparse
import os
import shutil
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np

# This file's name would hide the `distributed` package (Dask's) from its own folder.
_HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _HERE]

METRICS = ["ndcg@10", "map", "mrr", "precision@10", "recall@10"]
SPARK_METRICS = {
    "ndcg@10": ("ndcgAtK", 10),
    "map": ("meanAveragePrecision", None),
    "precision@10": ("precisionAtK", 10),
    "recall@10": ("recallAtK", 10),
}
ROWS_PER_QUERY = 200
ROWS_PER_FILE = 10**6


def write_table(directory, n_rows, seed, ties=True, top=4):
    """Parquet files of random rows; every file holds rows of every query."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    directory.mkdir(parents=True)
    rng = np.random.default_rng(seed)
    n_queries = max(1, n_rows // ROWS_PER_QUERY)
    for start in range(0, n_rows, ROWS_PER_FILE):
        n = min(ROWS_PER_FILE, n_rows - start)
        score = rng.random(n)
        table = pa.table(
            {
                "query": rng.integers(0, n_queries, n),
                "item": np.arange(start, start + n, dtype=np.int64),  # unique per query
                "relevance": (rng.integers(1, top, n) * (rng.random(n) < 0.1)).astype(float),
                "score": np.round(score, 3) if ties else score,  # ties: 1,000 values
            }
        )
        pq.write_table(table, directory / f"part-{start // ROWS_PER_FILE:05d}.parquet")
    return n_queries


def in_memory(directory, repeat):
    """evaluate on the rows loaded in memory; returns (least seconds, results)."""
    import pyarrow.parquet as pq

    from sklearn_rank import evaluate

    table = pq.read_table(directory)
    columns = {name: table[name].to_numpy() for name in ("query", "relevance", "score")}
    del table
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        results = evaluate(columns["relevance"], columns["score"], METRICS, groups=columns["query"])
        times.append(time.perf_counter() - start)
    return min(times), results


class _PeakMemory:
    """The largest resident memory of each Dask worker process, sampled every 0.2 s."""

    def __init__(self, client):
        self.client, self.peak, self.stop = client, {}, threading.Event()
        self.thread = threading.Thread(target=self._sample, daemon=True)

    def _sample(self):
        while not self.stop.wait(0.2):
            try:
                sizes = self.client.run(_resident_memory)
            except Exception:  # a worker restarting or the cluster closing
                continue
            for worker, size in sizes.items():
                self.peak[worker] = max(self.peak.get(worker, 0), size)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.stop.set()
        self.thread.join()


def _resident_memory():
    import psutil

    return psutil.Process().memory_info().rss


def on_dask(directory, client):
    import dask.dataframe as dd

    from sklearn_rank.distributed import evaluate_dask

    with _PeakMemory(client) as memory:
        start = time.perf_counter()
        data = dd.read_parquet(str(directory))
        results = evaluate_dask(data, METRICS)
        seconds = time.perf_counter() - start
    return seconds, results, data.npartitions, max(memory.peak.values(), default=0)


def dask_runs(sizes, root, repeat):
    from distributed import Client, LocalCluster

    print("\nDask: evaluate_dask (read parquet + shuffle + evaluate) vs in-memory evaluate")
    print(f"least of {repeat} runs each; peak: the largest resident memory of a worker")
    print(
        f"{'rows':>12} {'queries':>9} {'parts':>6} {'in memory':>10} {'dask':>9} {'ratio':>6} "
        f"{'peak':>9}"
    )
    with (
        LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            memory_limit="2GB",
            host="127.0.0.1",
            dashboard_address=None,
            local_directory=str(root / "dask-worker-space"),
        ) as cluster,
        Client(cluster) as client,
    ):
        for n_rows in sizes:
            directory = root / f"dask-{n_rows}"
            n_queries = write_table(directory, n_rows, seed=n_rows % 1000)
            memory_time, expected = in_memory(directory, repeat)
            runs = [on_dask(directory, client) for _ in range(repeat)]
            for _seconds, got, _parts, _peak in runs:
                for name in METRICS:
                    assert abs(got[name] - expected[name]) <= 1e-12, (name, got, expected)
            dask_time = min(run[0] for run in runs)
            parts, peak = runs[0][2], max(run[3] for run in runs)
            print(
                f"{n_rows:>12,} {n_queries:>9,} {parts:>6} {memory_time:>9.2f}s "
                f"{dask_time:>8.2f}s {dask_time / memory_time:>5.2f}x {peak / 2**30:>7.2f}GB"
            )
            shutil.rmtree(directory)
    print("(equal to the in-memory numbers to 1e-12 at every size)")


def spark_session():
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    from pyspark.sql import SparkSession

    session = (
        SparkSession.builder.master("local[2]")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.driver.memory", "4g")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    return session


def ranking_evaluator(data, F):
    """Spark's RankingEvaluator, with the arrays it needs built first (each query's items
    sorted by score, and its relevant items): (seconds, grouping seconds, results)."""
    from pyspark.ml.evaluation import RankingEvaluator

    start = time.perf_counter()
    pairs = F.sort_array(
        F.collect_list(F.struct((-F.col("score")).alias("s"), F.col("item").alias("i")))
    )
    relevant = F.collect_list(F.when(F.col("relevance") > 0, F.col("item")))
    arrays = (
        data.groupBy("query")
        .agg(pairs.alias("pairs"), relevant.alias("label"))
        .select(
            F.col("pairs.i").cast("array<double>").alias("prediction"),
            F.col("label").cast("array<double>").alias("label"),
        )
        .cache()
    )
    arrays.count()
    grouping_time = time.perf_counter() - start
    evaluator = RankingEvaluator()
    results = {}
    for name, (metric, k) in SPARK_METRICS.items():
        params = {evaluator.metricName: metric}
        if k is not None:
            params[evaluator.k] = k
        results[name] = evaluator.evaluate(arrays, params)
    seconds = time.perf_counter() - start
    arrays.unpersist()
    return seconds, grouping_time, results


def spark_runs(n_rows, root, repeat):
    import warnings

    from pyspark.sql import functions as F

    from sklearn_rank.distributed import evaluate_spark

    warnings.filterwarnings("ignore", message="PySpark does not yet fully support pandas")
    directory = root / f"spark-{n_rows}"
    # RankingEvaluator's labels are binary: relevance 0 or 1.
    n_queries = write_table(directory, n_rows, seed=7, ties=False, top=2)
    spark = spark_session()
    names = list(SPARK_METRICS)
    try:
        data = spark.read.parquet(str(directory))
        # Both warmed up first on a few rows (the JVM's code, Spark's Python workers).
        few = data.limit(10_000)
        evaluate_spark(few, names, convention="spark")
        ranking_evaluator(few, F)
        ours_times, theirs_runs = [], []
        for _ in range(repeat):  # alternating, so that a slow spell slows both
            start = time.perf_counter()
            ours = evaluate_spark(data, names, convention="spark")
            ours_times.append(time.perf_counter() - start)
            theirs_runs.append(ranking_evaluator(data, F))
    finally:
        spark.stop()
        shutil.rmtree(directory)
    theirs = theirs_runs[0][2]
    for name in names:
        assert abs(ours[name] - theirs[name]) <= 1e-9, (name, ours, theirs)
    ours_time = min(ours_times)
    theirs_time, grouping_time, _ = min(theirs_runs, key=lambda run: run[0])
    print(f"\nSpark local[2], {n_rows:,} rows, {n_queries:,} queries, metrics {names}")
    print(f"least of {repeat} runs each, alternating, after a warm-up of both")
    print(f"  evaluate_spark(convention='spark')             {ours_time:8.2f} s")
    print(
        f"  RankingEvaluator (grouping {grouping_time:.2f} s + {len(names)} evaluations) "
        f"{theirs_time:8.2f} s  ({theirs_time / ours_time:.2f}x ours)"
    )
    print("  (the same numbers, to 1e-9)")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=float, nargs="+", default=[1e6, 1e7, 5e7])
    parser.add_argument("--spark-rows", type=float, default=1e7)
    parser.add_argument("--no-dask", action="store_true")
    parser.add_argument("--no-spark", action="store_true")
    parser.add_argument("--tmp", default=None, help="where the parquet files go (default /tmp)")
    parser.add_argument("--repeat", type=int, default=2, help="runs of each side (the least)")
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="sklearn_rank_distributed_", dir=args.tmp))
    try:
        if not args.no_dask:
            dask_runs([int(n) for n in args.rows], root, args.repeat)
        if not args.no_spark:
            spark_runs(int(args.spark_rows), root, args.repeat)
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
