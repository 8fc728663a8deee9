"""Per-query values of several runs on the same judgments, aligned by query id.

Every run goes through the library's one plan (`metrics._plan._Plan`: prepare, run); the
judgments are prepared once where the input form allows it:
for matrices and long format the runs differ only in their scores, so the first run's
`_Queries` (validated truth, query codes, candidates) is reused with each other run's
scores. Runs with item ids (`ItemRanking`, ranked lists) are joined with the judgments
one by one; see docs/compare.md for what that costs.
"""

from collections.abc import Mapping

import numpy as np

from ..inputs._prepared import _has_item_ids, _scores_swappable, _with_scores
from ..metrics._statistics import _merged, _statistics_of
from ..utils._ids import _concat_ids, _factorize
from ..utils._validation import _python_value

MISSING = ("zero", "drop", "raise")


def _check_runs(runs):
    """Return ``runs`` as a dict {name: y_score} with at least two runs and str names."""
    if not isinstance(runs, Mapping):
        raise ValueError(
            "runs must be a dict {name: y_score} of at least two runs; got "
            f"{type(runs).__name__}."
        )
    if len(runs) < 2:
        raise ValueError(
            f"runs must hold at least two runs to compare; got {len(runs)} "
            f"({', '.join(repr(name) for name in runs) or 'none'})."
        )
    names = [str(name) for name in runs]
    if len(set(names)) != len(names):
        raise ValueError(f"runs must have distinct names; got {list(runs)!r}.")
    return dict(zip(names, runs.values()))


def _prepared_runs(plan, y_true, runs, groups, n_threads=1, side_inputs=None):
    """Each run's prepared input, as (name, `_Prepared`) pairs, made when asked for: the
    judgments are prepared once where the runs differ only by their scores.

    Errors name the run: ``runs['bm25']: y_score must contain only finite numbers...``.
    """
    first, shape = None, None
    # A run's recommended items depend on its scores: such runs are prepared whole.
    reads_lists = any(r.metric.level != "query" for r in plan.requests)
    for name, y_score in runs.items():
        try:
            if first is not None and _scores_swappable(y_true, y_score) and not reads_lists:
                queries = _with_scores(
                    first.queries,
                    y_score,
                    shape,
                    score_dtype=plan.conventions["score_dtype"],
                    shape_error=lambda got, shape=shape: (
                        f"y_true and y_score must have the same shape; got {shape} and {got}."
                    ),
                )
                current = first._replace(queries=queries)
            else:
                current = plan.prepare(
                    y_true, y_score, groups=groups, n_threads=n_threads, side_inputs=side_inputs
                )
                if first is None and _scores_swappable(y_true, y_score):
                    first, shape = current, np.shape(y_score)
        except (ValueError, TypeError) as exc:
            raise type(exc)(f"runs[{name!r}]: {exc}") from None
        yield name, current


def _run_tables(y_true, runs, plan, groups, n_threads=1, side_inputs=None):
    """Evaluate every run: a `_Table` (per-query values with ids) per run name.

    The statistics over the whole input that the requests need (ERR's top grade) are
    those of the judgments of every query any run is evaluated on, the same for every
    run: a run that leaves out the query holding the top grade is measured on the same
    scale as the others. Only then are the runs prepared all at once; otherwise one by
    one, each freed after its values.
    """
    runs_prepared = _prepared_runs(plan, y_true, runs, groups, n_threads, side_inputs)
    if plan.statistics:
        runs_prepared = list(runs_prepared)
        parts = [
            _statistics_of(plan.statistics, prepared.queries, n_threads)
            for _, prepared in runs_prepared
        ]
        plan = plan.with_statistics(_merged(plan.statistics, parts))
    tables = {}
    for name, prepared in runs_prepared:
        try:
            tables[name] = plan.run(prepared, table=True, n_threads=n_threads)
        except (ValueError, TypeError) as exc:
            raise type(exc)(f"runs[{name!r}]: {exc}") from None
    return tables


def _aligned(tables, item_ids):
    """Union of the runs' query ids and each run's values on it.

    Returns the ids (first run's order, then queries new in each later run), a dict
    label -> (n_queries, n_runs) array (NaN where a run has no value), and two boolean
    (n_queries, n_runs) arrays: the queries absent from each run's values, and those each
    run lacks (absent, or, for inputs with item ids, present with no ranked item).
    """
    names = list(tables)
    id_arrays = [tables[name].ids for name in names]
    same = all(
        ids.shape == id_arrays[0].shape and np.array_equal(ids, id_arrays[0]) for ids in id_arrays
    )
    if same:
        query_ids = id_arrays[0]
        rows = [np.arange(query_ids.size)] * len(names)
    else:
        total = sum(ids.size for ids in id_arrays)
        codes, query_ids = _factorize(_concat_ids(id_arrays), total, "query ids")
        rows = np.split(codes, np.cumsum([ids.size for ids in id_arrays])[:-1])
    n_queries, n_runs = query_ids.size, len(names)
    lacking = np.ones((n_queries, n_runs), dtype=bool)
    absent = np.ones((n_queries, n_runs), dtype=bool)
    labels = list(tables[names[0]].values)
    values = {label: np.full((n_queries, n_runs), np.nan) for label in labels}
    for column, name in enumerate(names):
        table, where = tables[name], rows[column]
        lacking[where, column] = table.n_candidates == 0 if item_ids else False
        absent[where, column] = False
        for label in labels:
            values[label][where, column] = table.values[label]
    return query_ids, values, lacking, absent


def _fill_missing(query_ids, values, lacking, absent, names, missing):
    """Apply ``missing`` to the queries some run lacks; return the ids and values.

    "zero" scores such a query 0 for that run (as ``trec_eval -c``), unless every run
    that evaluated the query left it out (``no_relevant="skip"``: no relevant item),
    where it stays NaN; "drop" leaves it out of every run; "raise" refuses it.
    """
    if not lacking.any():
        return query_ids, values
    if missing == "raise":
        column = int(np.flatnonzero(lacking.any(axis=0))[0])
        count = int(lacking[:, column].sum())
        first = _python_value(query_ids[np.flatnonzero(lacking[:, column])[0]])
        raise ValueError(
            f"missing='raise': run {names[column]!r} has no ranking for {count} of the "
            f"{query_ids.size} queries (e.g. query {first!r}). Pass missing='zero' to "
            "score them 0 (as trec_eval -c) or missing='drop' to leave them out of every run."
        )
    if missing == "drop":
        kept = ~lacking.any(axis=1)
        return query_ids[kept], {label: matrix[kept] for label, matrix in values.items()}
    filled = {}
    for label, matrix in values.items():
        skipped = np.all(np.isnan(matrix) | absent, axis=1, keepdims=True)
        filled[label] = np.where(lacking, np.where(skipped, np.nan, 0.0), matrix)
    return query_ids, filled


def _per_query_matrices(y_true, runs, plan, groups, missing, n_threads=1, side_inputs=None):
    """Per-query values of every run and metric, aligned by query id.

    Returns the query ids, label -> (n_queries, n_runs) array and the number of queries
    each run lacked (before ``missing`` applied).
    """
    if missing not in MISSING:
        allowed = ", ".join(repr(value) for value in MISSING)
        raise ValueError(f"missing must be one of {allowed}; got {missing!r}.")
    tables = _run_tables(y_true, runs, plan, groups, n_threads, side_inputs)
    first = next(iter(runs.values()))
    query_ids, values, lacking, absent = _aligned(tables, _has_item_ids(y_true, first))
    names = list(runs)
    query_ids, values = _fill_missing(query_ids, values, lacking, absent, names, missing)
    return query_ids, values, lacking.sum(axis=0).astype(np.int64)
