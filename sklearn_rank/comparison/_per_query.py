"""`compare_per_query`: the comparison of per-query values already computed (a saved table,
`evaluate`'s, `evaluate_dask`'s or `evaluate_spark`'s per-query output, another tool's),
with every test, correction and interval of `compare`."""

from collections.abc import Mapping

import numpy as np

from ..metrics._lists import _greater_is_better
from ..metrics._plan import _Plan
from ..utils._ids import _concat_ids, _factorize, _id_array
from ..utils._validation import _python_value, _shown
from ._align import _fill_missing
from ._compare import _check_baseline
from ._core import _comparison
from ._intervals import _check_interval_resamples
from ._parameters import DECIMALS, MISSING_QUERIES, _checked_shared, _fill_declared

LONG_COLUMNS = ("query", "run", "metric", "value")


def _is_frame(table):
    return hasattr(table, "columns") and hasattr(table, "__getitem__")


def _in_memory(table):
    """A Dask DataFrame computed, a Spark DataFrame collected to pandas; others as given."""
    if hasattr(table, "toPandas"):
        return table.toPandas()
    if type(table).__module__.split(".")[0] == "dask" and hasattr(table, "compute"):
        return table.compute()
    return table


def _columns_of(table):
    return [str(c) for c in table.columns] if _is_frame(table) else [str(c) for c in table]


def _column(table, name, where):
    """One column of a dict of arrays or a pandas or polars DataFrame, as an ndarray."""
    names = _columns_of(table)
    if name not in names:
        raise ValueError(f"{where} has no column {name!r}; its columns are {names}.")
    if _is_frame(table):
        key = next(c for c in table.columns if str(c) == name)
        values = table[key].to_numpy()
    else:
        key = next(c for c in table if str(c) == name)
        values = table[key]
    if not isinstance(values, np.ndarray):
        values = _id_array(list(values))
    if values.ndim != 1:
        raise ValueError(f"{where}: column {name!r} must be 1-D; got shape {values.shape}.")
    return values


def _values(column, where):
    try:
        values = np.asarray(column, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"{where}: the values must be numbers; got {_shown(column)}.") from None
    return values


def _is_per_run(table):
    """Whether ``table`` is {run name: one run's per-query table}."""
    return (
        isinstance(table, Mapping)
        and len(table) > 0
        and all(isinstance(v, Mapping) or _is_frame(v) for v in table.values())
    )


def _long_rows(table, query):
    """(query ids, run names, metric names, values) of every row, from either form."""
    if _is_per_run(table):
        parts = []
        for run_name, run_table in table.items():
            run_table = _in_memory(run_table)
            where = f"table[{run_name!r}]"
            ids = _column(run_table, query, where)
            metric_names = [c for c in _columns_of(run_table) if c != query]
            if not metric_names:
                raise ValueError(f"{where} has no metric column besides {query!r}.")
            for metric in metric_names:
                values = _values(_column(run_table, metric, where), where)
                if values.shape != ids.shape:
                    raise ValueError(f"{where}: column {metric!r} has another length.")
                parts.append((ids, str(run_name), metric, values))
        return (
            _concat_ids([ids for ids, *_ in parts]),
            np.repeat([run for _, run, _, _ in parts], [p[0].size for p in parts]),
            np.repeat([metric for _, _, metric, _ in parts], [p[0].size for p in parts]),
            np.concatenate([values for *_, values in parts]),
        )
    table = _in_memory(table)
    if not (isinstance(table, Mapping) or _is_frame(table)):
        raise ValueError(
            "table must be a dict of arrays or a pandas or polars DataFrame with columns "
            f"{query!r}, 'run', 'metric', 'value', or a dict {{run name: per-query table}}; "
            f"got {_shown(table)}."
        )
    ids = _column(table, query, "table")
    runs = _column(table, "run", "table").astype(str)
    metrics = _column(table, "metric", "table").astype(str)
    values = _values(_column(table, "value", "table"), "table")
    if not ids.size == runs.size == metrics.size == values.size:
        raise ValueError("table: the columns must have the same length.")
    return ids, runs, metrics, values


def _metric_traits(label):
    """(how evaluate aggregates it, whether lower is better) for a metric name the library
    knows; ("mean", False) for another tool's."""
    try:
        request = _Plan.from_names([label], {}).requests[0]
    except (ValueError, TypeError, KeyError):
        return "mean", False
    return request.metric.aggregate, not _greater_is_better(request)


def _matrices(ids, runs, metrics, values):
    """The query ids (the first run's order, then queries new in each later run), the run
    and metric names (first appearance), label -> (n_queries, n_runs) values, and the
    (n_queries, n_runs) mask of queries each run has no row for."""
    run_codes, run_names = _factorize(runs, None, "run")
    metric_codes, metric_names = _factorize(metrics, None, "metric")
    by_run = np.argsort(run_codes, kind="stable")
    query_codes = np.empty(ids.size, dtype=np.int64)
    query_codes[by_run], query_ids = _factorize(ids[by_run], None, "query ids")
    n_queries, n_runs, n_metrics = query_ids.size, run_names.size, metric_names.size
    cell = (metric_codes * n_queries + query_codes) * n_runs + run_codes
    counts = np.bincount(cell, minlength=n_metrics * n_queries * n_runs)
    if (counts > 1).any():
        row = int(np.flatnonzero(counts[cell] > 1)[0])
        raise ValueError(
            f"table has more than one value for query {_python_value(ids[row])!r}, run "
            f"{str(runs[row])!r}, metric {str(metrics[row])!r}."
        )
    present = counts.reshape(n_metrics, n_queries, n_runs) > 0
    has_query = present.any(axis=0)
    incomplete = has_query & ~present.all(axis=0)
    if incomplete.any():
        q, r = np.argwhere(incomplete)[0]
        lacking = str(metric_names[np.flatnonzero(~present[:, q, r])[0]])
        raise ValueError(
            f"run {str(run_names[r])!r} has values of query {_python_value(query_ids[q])!r} for "
            f"some metrics but not for {lacking!r}: each run needs every metric of a query "
            "it has."
        )
    filled = np.full(n_metrics * n_queries * n_runs, np.nan)
    filled[cell] = values
    filled = filled.reshape(n_metrics, n_queries, n_runs)
    matrices = {str(label): filled[m] for m, label in enumerate(metric_names)}
    return query_ids, [str(name) for name in run_names], matrices, ~has_query


@_fill_declared
def compare_per_query(
    table,
    *,
    baseline=None,
    test="randomization",
    alternative="two-sided",
    correction="holm",
    confidence=0.95,
    n_resamples=10_000,
    missing="zero",
    random_state=None,
    decimals=None,
    query="query",
):
    """Compare runs from per-query values already computed: paired tests, intervals and
    effect sizes, as `compare` gives them from judgments.

    Parameters
    ----------
    table : dict, pandas or polars DataFrame
        The per-query values, in one of two forms:

        - a long table, a dict of arrays or a DataFrame with the columns ``query``
          (ids), ``run`` (names), ``metric`` (names such as ``"ndcg@10"``) and
          ``value``, one row per query, run and metric;
        - a dict {run name: that run's per-query table}, each a dict of arrays or a
          DataFrame with the ``query`` column and one column per metric: the output
          of ``evaluate(..., per_query="table")``, of ``evaluate_dask(...,
          per_query=True)`` (computed here if it is not) or of ``evaluate_spark(...,
          per_query=True)`` (collected here).

        A NaN value is a query the metric left out (``no_relevant="skip"``). Queries are
        paired by id; a query a run has no row for is handled by ``missing``.
    baseline : str, default=None
        The name of the run each other run is compared with; None compares every pair
        (each later run with each earlier one).
    {test}
    {alternative}
    {correction}
    {confidence}
    {n_resamples}
    {missing}
    {random_state}
    {decimals}
    query : str, default="query"
        The name of the query id column.

    Returns
    -------
    result : Comparison
        As `compare` returns it. A metric the library knows is summarised as `evaluate`
        does (a mean, a sum such as ``num_rel_ret``, the geometric mean of ``gm_map``)
        and its direction read from the registry; another tool's metric is averaged and
        taken as greater-is-better.

    Raises
    ------
    ValueError
        For a table without the columns named, an infinite value, a query with two
        values for the same run and metric, a run with some metrics of a query but not
        others, fewer than two runs or two queries, a baseline that is not a run, or a
        parameter `compare` refuses.

    See Also
    --------
    compare : The same from judgments and runs; equal to the bit on the same values under
        the default conventions (a trec_eval preset's plain summation of the means is
        `compare`'s alone: here the means are summed accurately, within 1e-15).
    evaluate : Per-query values with their ids (``per_query="table"``).

    Examples
    --------
    >>> from sklearn_rank import compare_per_query
    >>> table = {
    ...     "query": ["q1", "q2", "q3", "q4"] * 2,
    ...     "run": ["bm25"] * 4 + ["dense"] * 4,
    ...     "metric": ["ndcg@10"] * 8,
    ...     "value": [0.2, 0.5, 0.1, 0.4, 0.4, 0.6, 0.3, 0.7],
    ... }
    >>> result = compare_per_query(table, baseline="bm25", test="t")
    >>> result.pairs["diff"].round(4).tolist(), result.pairs["pvalue"].round(4).tolist()
    ([0.2], [0.0163])
    """
    test, alternative, correction, confidence, n_resamples, random_state = _checked_shared(
        test, alternative, correction, confidence, n_resamples, random_state
    )
    if test != "t":
        _check_interval_resamples(n_resamples)
    missing = MISSING_QUERIES.validate(missing)
    decimals = DECIMALS.validate(decimals)
    if test == "corrected_t":
        raise ValueError(
            "test='corrected_t' compares fold scores of a cross-validation: use "
            "compare_search(search, test='corrected_t'); compare_per_query takes 't', "
            "'wilcoxon', 'randomization', 'bootstrap' or 'tukey_hsd'."
        )
    if not isinstance(query, str):
        raise ValueError(f"query must be the name of the query id column; got {_shown(query)}.")
    ids, runs, metrics, values = _long_rows(table, query)
    infinite = np.flatnonzero(np.isinf(values))
    if infinite.size:  # caught later only as a sum "too large", about judgments' gains
        row = int(infinite[0])
        raise ValueError(
            f"table: the value of query {_python_value(ids[row])!r}, run {str(runs[row])!r}, "
            f"metric {str(metrics[row])!r} is {float(values[row])!r}; values must be finite "
            "numbers (NaN: a query the metric left out)."
        )
    query_ids, run_names, matrices, lacking = _matrices(ids, runs, metrics, values)
    if len(run_names) < 2:
        raise ValueError(
            f"table must hold at least two runs to compare; got {len(run_names)} "
            f"({', '.join(map(repr, run_names)) or 'none'})."
        )
    baseline = _check_baseline(baseline, run_names)
    query_ids, matrices = _fill_missing(query_ids, matrices, lacking, lacking, run_names, missing)
    if query_ids.size < 2:
        raise ValueError(
            f"compare_per_query needs at least 2 queries to test; got {query_ids.size}"
            + (" after missing='drop'." if missing == "drop" else ".")
        )
    traits = {label: _metric_traits(label) for label in matrices}
    return _comparison(
        matrices,
        run_names,
        query_ids,
        lacking.sum(axis=0).astype(np.int64),
        baseline=baseline,
        test=test,
        correction=correction,
        confidence=confidence,
        n_resamples=n_resamples,
        random_state=random_state,
        lower_is_better=tuple(label for label, (_, lower) in traits.items() if lower),
        decimals=decimals,
        alternative=alternative,
        aggregates={label: how for label, (how, _) in traits.items()},
        conventions={label: {} for label in matrices},
    )
