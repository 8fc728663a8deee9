"""`evaluate_dask`: each query's rows brought together by a Dask shuffle, then the
engine-free per-query computation (`_tables.py`) on every partition."""

import functools

import numpy as np

from ._beyond import _corpus_partials, _side_on_driver
from ._tables import (
    ORDER,
    ORDER_BITS,
    QUERY,
    RELEVANCE,
    RUN_SIDE,
    SCORE,
    SIDE,
    TRAIN_SIDE,
    TRUTH_SIDE,
    WEIGHT,
    _apply_rules,
    _empty_table,
    _ids,
    _make_spec,
    _mean_of_tables,
    _per_query_table,
)
from ._text import _check_columns, _check_type, _fill_distributed_doc, _missing_engine, _roles


def _import_dask():
    try:
        import dask.dataframe as dd
    except ImportError as error:
        raise _missing_engine("evaluate_dask", "dask", "dask") from error
    return dd


def _frame_columns(frame, query):
    """The columns of a dask DataFrame, its index counting as a column when it is named."""
    columns = [str(c) for c in frame.columns]
    if frame.index.name is not None and frame.index.name not in columns:
        columns.append(str(frame.index.name))
    return columns


def _partitioned_by(frame, query):
    """Whether every query's rows are in one partition already: the frame has one
    partition, the query is the index with known divisions, or the frame comes straight
    from a shuffle on the query."""
    if frame.npartitions == 1:
        return "one"
    if frame.index.name == query and query not in frame.columns and frame.known_divisions:
        return "divisions"
    mapping = getattr(frame.expr, "unique_partition_mapping_columns_from_shuffle", None)
    if mapping and (query,) in mapping:
        return "shuffle"
    return None


def _select(part, roles, side, spec, partition_info=None):
    """One input partition in the internal columns (`_tables.QUERY`...), every table with
    the same columns, so that a run and its judgments can travel as one frame. The
    user's columns are renamed, not copied (pandas' copy-on-write)."""
    if roles[QUERY] not in part.columns:
        part = part.reset_index()
    n = len(part)
    selected = part[list(roles.values())]
    selected.columns = list(roles)
    extra = {}
    for internal in (SCORE, RELEVANCE) + ((WEIGHT,) if spec.weighted else ()):
        if internal not in roles:
            extra[internal] = np.full(n, np.nan)
    if side is not None:
        extra[SIDE] = np.full(n, side, dtype=np.int8)
    if spec.ordered:
        number = 0 if partition_info is None else int(partition_info["number"])
        order = (np.int64(number) << ORDER_BITS) + np.arange(n, dtype=np.int64)
        extra[ORDER] = order if side in (None, RUN_SIDE) else 0 * order
    if extra:
        selected = selected.assign(**extra)
    return selected.reset_index(drop=True)


def _prepare(frame, spec, table, side, dd):
    if not isinstance(frame, dd.DataFrame):
        raise TypeError(
            f"{table} must be a dask DataFrame; got {type(frame).__name__}. For pandas or "
            "polars frames use sklearn_rank.evaluate with ItemRanking.from_frame and "
            "ItemJudgments.from_frame."
        )
    roles = _roles(spec, table)
    columns = _frame_columns(frame, spec.query_name)
    _check_columns(columns, roles, spec, table)
    meta = frame._meta
    if spec.query_name not in meta.columns:
        meta = meta.reset_index()
    for internal, name in roles.items():
        _check_type(internal, name, str(meta[name].dtype), meta[name].dtype.kind, spec, table)
    used = list(dict.fromkeys(name for name in roles.values() if name in frame.columns))
    if len(used) < len(frame.columns):
        # Chosen before the opaque map_partitions, so that a parquet reader reads only these.
        frame = frame[used]
    selected = frame.map_partitions(
        _select, roles, side, spec, meta=_select(meta, roles, side, spec)
    )
    return selected, meta


@_fill_distributed_doc
def evaluate_dask(
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
    """Evaluate a ranking held in a Dask DataFrame, with the numbers of `evaluate`.

    The rows of each query are brought together by a shuffle on the query column
    (skipped when the frame is partitioned by it already: one partition, the query as
    its index with known divisions, or straight from ``shuffle(on=query)``); every
    partition then ranks all its queries at once with the in-memory kernel, and only a
    small table of per-query values returns to the client, where the mean is taken as
    `evaluate` takes it.

    Parameters
    ----------
    data : dask.dataframe.DataFrame
        One row per (query, item): the query, item and score (or rank) columns, and,
        without ``judgments``, the relevance column too (a missing relevance means the
        item is ranked but not judged).
    {distributed_parameters}
    {beyond_parameters}

    Returns
    -------
    results : dict or dask.dataframe.DataFrame
        Metric name -> mean over queries (float). With ``per_query=True``, a Dask
        DataFrame (not computed) with the query column and one float column per metric,
        one row per query in no particular order.

    See Also
    --------
    sklearn_rank.evaluate : The same on data in memory.
    evaluate_spark : The same on a Spark DataFrame.

    Examples
    --------
    >>> import dask.dataframe as dd
    >>> import pandas as pd
    >>> from sklearn_rank.distributed import evaluate_dask
    >>> table = pd.DataFrame({
    ...     "query": ["u1", "u1", "u1", "u2", "u2"],
    ...     "item": ["a", "b", "c", "a", "d"],
    ...     "relevance": [1, 0, 2, 0, 1],
    ...     "score": [0.9, 0.5, 0.1, 0.8, 0.3],
    ... })
    >>> data = dd.from_pandas(table, npartitions=2)
    >>> results = evaluate_dask(data, ["ndcg@2", "mrr"])
    >>> {name: round(value, 4) for name, value in results.items()}
    {'ndcg@2': 0.5055, 'mrr': 0.75}
    """
    dd = _import_dask()
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
    run, run_meta = _prepare(data, spec, "data", RUN_SIDE if spec.two_tables else None, dd)
    query_dtype = run_meta[spec.query_name].dtype
    truth = None
    if judgments is not None:
        truth, truth_meta = _prepare(judgments, spec, "judgments", TRUTH_SIDE, dd)
        _check_id_types(run_meta, truth_meta, spec, "judgments")
        truth = truth[list(run.columns)]
    if spec.statistics:
        spec = spec.with_statistics(
            {s.name: _statistic(run, truth, spec, s) for s in spec.statistics}
        )
    spec, n_items, popularity, order = _side_on_driver(
        spec, train, item_features, catalog, per_query,
        functools.partial(_aggregated_training, query=query, item=item),
        functools.partial(_collected_training, query=query, item=item),
    )  # fmt: skip
    compute = functools.partial(_per_query_table, spec=spec, query_dtype=query_dtype)
    if spec.history_rows:
        # Each user's training rows join the user's queries in one partition: one shuffle
        # of the run, the judgments and the training table together.
        if truth is None:
            run = run.assign(**{SIDE: np.int8(RUN_SIDE)})
        history, history_meta = _prepare(train, spec, "train", TRAIN_SIDE, dd)
        _check_id_types(run_meta, history_meta, spec, "train")
        tables = [run] + ([] if truth is None else [truth]) + [history[list(run.columns)]]
        frame = dd.concat(tables).shuffle(on=QUERY)
    elif judgments is None:
        frame = run if _partitioned_by(data, query) else run.shuffle(on=QUERY)
    else:
        frame = _together(data, judgments, run, truth, query, dd)
    tables = frame.map_partitions(compute, meta=_empty_table(spec, query_dtype))
    if per_query:
        return tables.map_partitions(
            _apply_rules, spec, meta=_empty_table(spec, query_dtype)[[query] + spec.labels]
        )
    if spec.corpus is None:
        return _mean_of_tables(tables.compute(), spec)
    return _with_corpus_values(frame, tables, spec, n_items, popularity, order)


def _with_corpus_values(frame, tables, spec, n_items, popularity, order):
    """The means of the per-query metrics and the corpus-level values, in the order the
    metrics were named: each partition's partial counts of the corpus-level metrics are
    added on the client (integers: exact), then each value is computed once."""
    import dask

    partials = [dask.delayed(_corpus_partials)(part, spec) for part in frame.to_delayed()]
    if spec.plan.requests:
        pieces = tables.to_delayed()
        computed = dask.compute(*pieces, *partials)
        table = _concat_parts(*computed[: len(pieces)]) if pieces else _empty_table(spec, None)
        means = _mean_of_tables(table, spec)
        parts = list(computed[len(pieces) :])
    else:
        parts, means = list(dask.compute(*partials)), {}
    values = spec.corpus.corpus_values(parts, n_items, popularity)
    return {label: {**means, **values}[label] for label in order}


def _aggregated_training(train, query, item):
    """Per item id its training rows and distinct users, and the distinct users, of a Dask
    training table in one computation (None: ``train`` is not a Dask DataFrame)."""
    if not hasattr(train, "npartitions"):
        return None
    import dask

    rows = train[[query, item]]
    per_item, distinct, n_users = dask.compute(
        rows[item].value_counts(), rows.drop_duplicates()[item].value_counts(),
        rows[query].nunique(),
    )  # fmt: skip
    distinct = distinct.reindex(per_item.index)
    return (
        per_item.index.to_numpy(),
        per_item.to_numpy(dtype=np.float64),
        distinct.to_numpy(dtype=np.float64),
        int(n_users),
    )


def _collected_training(train, query, item):
    """A Dask training table's (user ids, item ids) rows in memory (None: ``train`` is
    not a Dask DataFrame)."""
    if not hasattr(train, "npartitions"):
        return None
    rows = train[[query, item]].compute()
    return _ids(rows[query].to_numpy()), _ids(rows[item].to_numpy())


def _check_id_types(run_meta, other_meta, spec, table):
    """The query and item columns of ``data`` and of ``table`` must have one type: ids
    of two types would neither match nor hash to the same partition."""
    for role in ("query", "item"):
        name = spec.columns[role]
        kinds = (run_meta[name].dtype, other_meta[name].dtype)
        if kinds[0] != kinds[1]:
            raise ValueError(
                f"The {role} column {name!r} has type {kinds[0]} in data and {kinds[1]} "
                f"in {table}: the ids must have one type to match; cast one of them."
            )


_COLUMNS = {"relevance": RELEVANCE}  # a statistic's column role -> the frame's column


def _statistic(run, truth, spec, statistic):
    """A statistic over the judgments of the queries `evaluate` keeps (ERR's top grade:
    the largest relevance), one pass over its column before the shuffle."""
    aggregation, role = statistic.column
    if truth is None:  # one table: every judged row's query is kept
        truth = run
    elif spec.columns[role] is None:
        return None  # binary judgments: every grade is 1
    elif spec.conventions["query_set"] == "both":  # only queries the run ranks count
        truth = truth.merge(run[[QUERY]].drop_duplicates(), on=QUERY, how="inner")
    return getattr(truth[_COLUMNS[role]], aggregation)().compute()


def _concat_parts(*parts):
    import pandas as pd

    return pd.concat(list(parts), ignore_index=True)


def _together(data, judgments, run, truth, query, dd):
    """The run's and the judgments' rows of each query in one partition."""
    how = _partitioned_by(data, query)
    if (
        how is not None
        and how == _partitioned_by(judgments, query)
        and data.npartitions == judgments.npartitions
        and (how != "divisions" or list(data.divisions) == list(judgments.divisions))
    ):
        # Partition i of both holds the same queries (one partition each, the same
        # divisions, or the same hash of ids of one type over as many partitions).
        return dd.map_partitions(_concat_parts, run, truth, align_dataframes=False, meta=run._meta)
    return dd.concat([run, truth]).shuffle(on=QUERY)
