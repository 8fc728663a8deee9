"""`evaluate_spark`: each query's rows brought together by ``repartition(query)``, then
the engine-free per-query computation (`_tables.py`) on every partition through
``mapInPandas`` (Arrow batches, concatenated first: a query may straddle two batches)."""

import contextlib
import functools
import re
import warnings

import numpy as np

from ._beyond import _corpus_partials, _side_on_driver
from ._tables import (
    ORDER,
    QUERY,
    RELEVANCE,
    RUN_SIDE,
    SCORE,
    SIDE,
    TRAIN_SIDE,
    TRUTH_SIDE,
    WEIGHT,
    _apply_rules,
    _ids,
    _make_spec,
    _mean_of_tables,
    _per_query_table,
)
from ._text import _check_columns, _check_type, _fill_distributed_doc, _missing_engine, _roles

_ARROW = "spark.sql.execution.arrow.pyspark.enabled"


def _import_spark():
    try:
        from pyspark.sql import functions, types
    except ImportError as error:
        raise _missing_engine("evaluate_spark", "spark", "pyspark") from error
    return functions, types


# What the Python workers import to compute a partition (mapInPandas hands them Arrow
# batches as pandas frames): checked once per Spark application, before the first job.
_WORKER_MODULES = ("numpy", "scipy", "pandas", "pyarrow", "sklearn", "sklearn_rank")
_CHECKED_APPLICATIONS = set()


def _check_workers(session):
    """Refuse, with what to install, a session whose Python workers lack a module the job
    needs: the job itself would fail inside a Java traceback."""
    try:
        context = session.sparkContext
        application = context.applicationId
    except Exception:  # Spark Connect has no SparkContext: the job's own error then
        return
    if application in _CHECKED_APPLICATIONS:
        return
    needed = _WORKER_MODULES

    def missing(_):  # a nested function: pickled by value, so it runs without sklearn_rank
        import importlib.util

        return [name for name in needed if importlib.util.find_spec(name) is None]

    try:
        lacking = context.parallelize([0], 1).map(missing).collect()[0]
    except Exception as error:  # the workers' Python does not even start
        raise ImportError(
            "evaluate_spark: the Python workers of this Spark session could not run ("
            f"{str(error).strip().splitlines()[0][:200]}). Set PYSPARK_PYTHON (or "
            "spark.pyspark.python) to a Python of the driver's version that has "
            "sklearn-rank[spark] installed, e.g. the python of a virtual environment that is "
            "not on PATH, before the session starts."
        ) from None
    if lacking:
        modules = ", ".join(lacking)
        raise ImportError(
            f"evaluate_spark: the Python workers of this Spark session cannot import "
            f"{modules}, which they need to compute each partition (mapInPandas). Install "
            "them in the workers' Python (pip install 'sklearn-rank[spark]'), or set "
            "PYSPARK_PYTHON (or spark.pyspark.python) to a Python that has them, e.g. the "
            "python of a virtual environment that is not on PATH, before the session starts."
        )
    _CHECKED_APPLICATIONS.add(application)


@contextlib.contextmanager
def _quiet_pyspark():
    """pyspark's own warnings about the pandas the spark extra installs (pandas 3: "not yet
    fully support[ed]", pyspark's use of the deprecated ``copy`` keyword) say nothing about
    the user's call: evaluate_spark is tested with pyspark 4.3 on pandas 3.1
    (docs/distributed.md)."""
    with warnings.catch_warnings():
        warnings.filterwarnings(
            "ignore", message="PySpark does not yet fully support pandas", module="pyspark"
        )
        warnings.filterwarnings(
            "ignore", message="The copy keyword is deprecated", module="pyspark"
        )
        yield


def _is_spark_frame(frame):
    # Classic and Spark Connect DataFrames are different classes of the same name.
    cls = type(frame)
    return cls.__name__ == "DataFrame" and cls.__module__.startswith("pyspark.sql")


def _kind(data_type, types):
    """The numpy kind a Spark type arrives as in pandas (for the type checks)."""
    if isinstance(data_type, (types.ByteType, types.ShortType, types.IntegerType)):
        return "i"
    if isinstance(data_type, types.LongType):
        return "i"
    if isinstance(data_type, (types.FloatType, types.DoubleType, types.DecimalType)):
        return "f"
    if isinstance(data_type, types.BooleanType):
        return "b"
    return "O"


def _prepare(frame, spec, table, side, functions, types):
    """The columns a partition needs, under their internal names."""
    if not _is_spark_frame(frame):
        raise TypeError(
            f"{table} must be a pyspark DataFrame; got {type(frame).__name__}. For pandas or "
            "polars frames use sklearn_rank.evaluate with ItemRanking.from_frame and "
            "ItemJudgments.from_frame."
        )
    roles = _roles(spec, table)
    _check_columns(list(frame.columns), roles, spec, table)
    fields = {field.name: field.dataType for field in frame.schema.fields}
    columns = []
    for internal, name in roles.items():
        data_type = fields[name]
        _check_type(internal, name, data_type.simpleString(), _kind(data_type, types), spec, table)
        column = frame[name]
        if isinstance(data_type, types.DecimalType):
            column = column.cast("double")  # decimals would arrive as Python objects
        columns.append(column.alias(internal))
    empty = functions.lit(None).cast("double")
    if SCORE not in roles:
        columns.append(empty.alias(SCORE))
    if RELEVANCE not in roles:
        columns.append(empty.alias(RELEVANCE))
    if spec.weighted and WEIGHT not in roles:
        columns.append(empty.alias(WEIGHT))
    if side is not None:
        columns.append(functions.lit(side).cast("byte").alias(SIDE))
    if spec.ordered:
        # Increasing in the order collect() returns rows: partition, then row.
        order = (
            functions.monotonically_increasing_id()
            if side in (None, RUN_SIDE)
            else functions.lit(0).cast("long")
        )
        columns.append(order.alias(ORDER))
    return frame.select(*columns), fields


_COLUMNS = {"relevance": RELEVANCE}  # a statistic's column role -> the frame's column


def _statistic(run, truth, spec, statistic, functions):
    """A statistic over the judgments of the queries `evaluate` keeps (ERR's top grade:
    the largest relevance), one aggregation before the repartition."""
    aggregation, role = statistic.column
    if truth is None:  # one table: every judged row's query is kept
        truth = run
    elif spec.columns[role] is None:
        return None  # binary judgments: every grade is 1
    elif spec.conventions["query_set"] == "both":  # only queries the run ranks count
        truth = truth.join(run.select(QUERY).distinct(), on=QUERY, how="left_semi")
    column = functions.col(_COLUMNS[role])
    judged = truth.where(column.isNotNull() & ~functions.isnan(column))
    return judged.agg(getattr(functions, aggregation)(column)).collect()[0][0]


def _by_query(frame):
    """``frame`` repartitioned on the query into as many partitions as it had (at least
    one per core). ``repartition(column)`` alone takes ``spark.sql.shuffle.partitions``,
    which adaptive execution may coalesce below the number of cores (3 partitions of
    10^7 rows on 2 cores: a third of the time with one core idle)."""
    try:
        count = max(
            frame.rdd.getNumPartitions(), frame.sparkSession.sparkContext.defaultParallelism
        )
    except Exception:  # Spark Connect has no RDD: Spark's own choice
        return frame.repartition(frame[QUERY])
    return frame.repartition(count, frame[QUERY])


def _worker_error(error):
    """The message of a ValueError raised inside a Python worker, or None."""
    found = re.findall(r"^ValueError: (.+)$", str(error), flags=re.MULTILINE)
    return found[-1] if found else None


@_fill_distributed_doc
def evaluate_spark(
    data,
    metrics,
    *,
    query="query",
    item="item",
    relevance="relevance",
    score="score",
    rank=None,
    judgments=None,
    sample_weight=None,
    per_query=False,
    train=None,
    item_features=None,
    catalog=None,
    **conventions,
):
    """Evaluate a ranking held in a Spark DataFrame, with the numbers of `evaluate`.

    The rows of each query are brought together by ``repartition`` on the query column
    (into as many partitions as ``data`` has, at least one per core);
    every partition then ranks all its queries at once with the in-memory kernel
    (``mapInPandas``), and only a small table of per-query values returns to the driver,
    where the mean is taken as `evaluate` takes it. No list of items per query is built.
    ``convention="spark"`` gives the numbers of Spark's own ``RankingEvaluator``.

    Parameters
    ----------
    data : pyspark.sql.DataFrame
        One row per (query, item): the query, item and score (or rank) columns, and,
        without ``judgments``, the relevance column too (a null relevance means the item
        is ranked but not judged).
    {distributed_parameters}
    {beyond_parameters}

    Returns
    -------
    results : dict or pyspark.sql.DataFrame
        Metric name -> mean over queries (float). With ``per_query=True``, a Spark
        DataFrame (not collected) with the query column and one double column per metric,
        one row per query.

    See Also
    --------
    sklearn_rank.evaluate : The same on data in memory.
    evaluate_dask : The same on a Dask DataFrame.

    Notes
    -----
    Errors found in the data (a null score, a repeated item) are raised by the Python
    workers; the driver raises them again as ValueError with the same message. With
    ``ties="stable"``, "input order" is the order ``collect()`` would return, which Spark
    keeps only for frames not produced by a shuffle (a join, a groupBy): give a rank
    column or use ``ties="average"`` there.

    Examples
    --------
    >>> from pyspark.sql import SparkSession  # doctest: +SKIP
    >>> from sklearn_rank.distributed import evaluate_spark
    >>> spark = SparkSession.builder.master("local[2]").getOrCreate()  # doctest: +SKIP
    >>> data = spark.createDataFrame(
    ...     [("u1", "a", 1, 0.9), ("u1", "b", 0, 0.5), ("u1", "c", 2, 0.1),
    ...      ("u2", "a", 0, 0.8), ("u2", "d", 1, 0.3)],
    ...     ["query", "item", "relevance", "score"],
    ... )  # doctest: +SKIP
    >>> results = evaluate_spark(data, ["ndcg@2", "mrr"])  # doctest: +SKIP
    >>> {name: round(value, 4) for name, value in results.items()}  # doctest: +SKIP
    {'ndcg@2': 0.5055, 'mrr': 0.75}
    """
    functions, types = _import_spark()
    with _quiet_pyspark():
        return _evaluate_spark(
            data,
            metrics,
            conventions,
            functions,
            types,
            query=query,
            item=item,
            relevance=relevance,
            score=score,
            rank=rank,
            judgments=judgments,
            sample_weight=sample_weight,
            per_query=per_query,
            side=(train, item_features, catalog),
        )


def _evaluate_spark(
    data,
    metrics,
    conventions,
    functions,
    types,
    *,
    query,
    item,
    relevance,
    score,
    rank,
    judgments,
    sample_weight,
    per_query,
    side=(None, None, None),
):
    spec = _make_spec(
        metrics,
        dict(conventions),
        query=query,
        item=item,
        relevance=relevance,
        score=score,
        rank=rank,
        judgments_given=judgments is not None,
        sample_weight=sample_weight,
        per_query=per_query,
    )
    train, item_features, catalog = side
    spec, n_items, popularity, order = _side_on_driver(
        spec, train, item_features, catalog, per_query,
        functools.partial(_aggregated_training, query=query, item=item, functions=functions),
        functools.partial(_collected_training, query=query, item=item),
    )  # fmt: skip
    tagged = spec.two_tables or spec.history_rows  # rows of several tables travel together
    frame, fields = _prepare(data, spec, "data", RUN_SIDE if tagged else None, functions, types)
    _check_workers(data.sparkSession)
    truth = None
    if judgments is not None:
        truth, truth_fields = _prepare(judgments, spec, "judgments", TRUTH_SIDE, functions, types)
        _check_id_types(fields, truth_fields, spec, "judgments")
    if spec.statistics:
        spec = spec.with_statistics(
            {s.name: _statistic(frame, truth, spec, s, functions) for s in spec.statistics}
        )
    if truth is not None:
        frame = frame.unionByName(truth.select(*frame.columns))
    if spec.history_rows:
        # Each user's training rows join the user's queries in one partition (the one
        # repartition on the query below moves the run, the judgments and these rows).
        history, history_fields = _prepare(train, spec, "train", TRAIN_SIDE, functions, types)
        _check_id_types(fields, history_fields, spec, "train")
        frame = frame.unionByName(history.select(*frame.columns))
    query_type = fields[spec.columns["query"]]
    schema = types.StructType(
        [types.StructField(spec.query_name, query_type)]
        + [types.StructField(label, types.DoubleType()) for label in spec.labels]
        + ([] if per_query else [types.StructField(WEIGHT, types.DoubleType())])
    )

    def per_partition(batches):
        import pandas as pd

        parts = list(batches)  # the whole partition: a query may straddle two batches
        if not parts:
            return
        rows = pd.concat(parts, ignore_index=True)
        if not len(rows):
            return
        table = _per_query_table(rows, spec, rows[QUERY].dtype)
        yield _apply_rules(table, spec) if per_query else table

    partitioned = _by_query(frame)
    if per_query:
        return partitioned.mapInPandas(per_partition, schema)
    means = {}
    if spec.requests:
        means = _mean_of_tables(_collect(partitioned.mapInPandas(per_partition, schema)), spec)
    if spec.corpus is None:
        return means
    values = _corpus_values(partitioned, spec, n_items, popularity, types)
    return {label: {**means, **values}[label] for label in order}


def _corpus_values(partitioned, spec, n_items, popularity, types):
    """Each partition's partial counts of the corpus-level metrics (pickled, one row per
    partition), added on the driver (integers: exact), then each value once."""
    import pickle

    schema = types.StructType([types.StructField("partial", types.BinaryType())])

    def partials(batches):
        import pandas as pd

        parts = list(batches)
        rows = pd.concat(parts, ignore_index=True) if parts else None
        if rows is None or not len(rows):
            return
        yield pd.DataFrame({"partial": [pickle.dumps(_corpus_partials(rows, spec))]})

    collected = _collect(partitioned.mapInPandas(partials, schema))
    parts = [pickle.loads(blob) for blob in collected["partial"]]
    return spec.corpus.corpus_values(parts, n_items, popularity)


def _aggregated_training(train, query, item, functions):
    """Per item id its training rows and distinct users, and the distinct users, of a
    Spark training table (None: ``train`` is not a Spark DataFrame)."""
    if not _is_spark_frame(train):
        return None
    per_item = (
        train.groupBy(item)
        .agg(functions.count("*").alias("rows"), functions.countDistinct(query).alias("users"))
        .toPandas()
    )
    n_users = train.select(query).distinct().count()
    return (
        per_item[item].to_numpy(),
        per_item["rows"].to_numpy(dtype=np.float64),
        per_item["users"].to_numpy(dtype=np.float64),
        int(n_users),
    )


def _collected_training(train, query, item):
    """A Spark training table's (user ids, item ids) rows on the driver (None: ``train``
    is not a Spark DataFrame)."""
    if not _is_spark_frame(train):
        return None
    rows = train.select(query, item).toPandas()
    return _ids(rows[query].to_numpy()), _ids(rows[item].to_numpy())


def _check_id_types(fields, other_fields, spec, table):
    """The query and item columns of ``data`` and of ``table`` must have one type: ids
    of two types would neither match nor hash to the same partition."""
    for role in ("query", "item"):
        name = spec.columns[role]
        kinds = (fields[name], other_fields[name])
        if kinds[0] != kinds[1]:
            raise ValueError(
                f"The {role} column {name!r} has type {kinds[0].simpleString()} in data "
                f"and {kinds[1].simpleString()} in {table}: the ids must have one type to "
                "match; cast one of them."
            )


def _collect(frame):
    """The gathered per-query table, through Arrow; worker errors raised as ValueError."""
    conf = frame.sparkSession.conf
    previous = conf.get(_ARROW, None)
    conf.set(_ARROW, "true")
    try:
        return frame.toPandas()
    except Exception as error:
        message = _worker_error(error)
        if message is None:
            raise
        raise ValueError(message) from None
    finally:
        if previous is None:
            conf.unset(_ARROW)
        else:
            conf.set(_ARROW, previous)
