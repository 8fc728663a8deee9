"""Engine-free layers of a distributed evaluation: what the engines run and gather.

1. `_Spec`: the request, checked once on the driver (metric names, conventions, columns).
2. `_per_query_table`: one partition holding whole queries (its rows of the run and of the
   judgments) in, one computation through the call's plan on all of them, a small
   per-query table out: the query id, one value per metric (NaN where the query has no
   relevant item) and the query's weight.
3. `_mean_of_tables`: the gathered per-query tables reduced with the library's own
   aggregator (`_aggregate`), so that ``no_relevant``, weights and every error are those of
   `evaluate`; partition means are never averaged.

The engine adapters (`_dask.py`, `_spark.py`) only bring each query's rows together and
move these tables. Partitions arrive as pandas DataFrames with the internal column names
below, whatever the user's columns are called.
"""

import dataclasses
from dataclasses import dataclass

import numpy as np

from ..inputs import ItemJudgments, ItemRanking
from ..inputs._normalise import _from_codes
from ..inputs._prepared import _Prepared
from ..metrics._aggregate import _aggregate
from ..metrics._plan import _Plan
from ..utils._ids import _concat_ids, _factorize
from ..utils._validation import _check_per_query, _python_value

# Internal column names of the frames the engines shuffle.
QUERY, ITEM, SCORE, RELEVANCE, WEIGHT, ORDER, SIDE = (
    "__sr_query",
    "__sr_item",
    "__sr_score",
    "__sr_relevance",
    "__sr_weight",
    "__sr_order",
    "__sr_side",
)
# Values of SIDE when a run, its judgments and the training rows of its users travel together.
RUN_SIDE, TRUTH_SIDE, TRAIN_SIDE = 1, 0, 2
# Bits of the order key left for the row number inside one input partition: the key is
# partition number * 2**ORDER_BITS + row (what Spark's monotonically_increasing_id does).
ORDER_BITS = 33


@dataclass(frozen=True)
class _Spec:
    """What every partition computes, and how the user named things.

    plan : the call's `_Plan`: the requests, as `evaluate` reads the metric names, and
        the resolved conventions.
    columns : role -> the user's column name (query, item, score or rank, relevance,
        sample_weight), for messages and for the output's query column.
    two_tables : the judgments are a second table (rows tagged by SIDE).
    ranks : the run gives ranks (1 first), not scores.
    ordered : rows carry ORDER, their position in the input, to break ties by it.
    weighted : rows carry WEIGHT.
    side_inputs : the beyond-accuracy measures' side inputs every partition reads (the
        catalog, item features, and the popularity of the whole training table computed
        once on the driver), or None.
    corpus : a plan of the corpus-level requests (their partitions' partial counts are
        added on the driver), or None; ``plan`` then holds the others.
    history_rows : the training table's rows travel with their users' queries (SIDE
        TRAIN_SIDE): each partition reads its users' training items from them
        (`_partition_side`).
    """

    plan: _Plan
    columns: dict
    two_tables: bool
    ranks: bool
    ordered: bool
    weighted: bool
    side_inputs: dict | None = None
    corpus: _Plan | None = None
    history_rows: bool = False

    @property
    def requests(self):
        return self.plan.requests

    @property
    def conventions(self):
        return self.plan.conventions

    @property
    def labels(self):
        return [r.label for r in self.requests]

    @property
    def query_name(self):
        return self.columns["query"]

    @property
    def needs_items(self):
        """Whether a partition must join its rows as `ItemJudgments` / `ItemRanking`:
        two tables, trec_eval's tie rule (item ids decide) or condensed lists
        (``judged_only``). Otherwise one table is read as long format, with a mask of
        its judged rows where a measure tells them from rows judged 0 (bpref...)."""
        return (
            self.two_tables
            or self.conventions["tie_break"] == "item_descending"
            or bool(self.conventions["judged_only"])
            or self.side_inputs is not None  # beyond-accuracy measures read item ids
        )

    @property
    def needs_judged(self):
        """Whether a measure reads judged positions (bpref, Judged@k...)."""
        return any(r.metric.needs_judged for r in self.requests)

    @property
    def statistics(self):
        """The statistics over the whole input the requests need (ERR's top grade without
        ``max_grade``): the engine computes each over every partition first."""
        return self.plan.statistics

    def with_statistics(self, values):
        """This spec with the statistics' values filled in (``values``: name -> the value
        an engine found over the judgments of the queries `evaluate` keeps; None or NaN:
        none found), as `evaluate` fills them."""
        merged = {s.name: s.merge([values.get(s.name)]) for s in self.statistics}
        return dataclasses.replace(self, plan=self.plan.with_statistics(merged))

    def partition_plan(self):
        """The plan of one partition: every partition marks a query without a relevant
        item by NaN ("skip"); the metric's own rule is applied centrally
        (`_mean_of_tables`) or per query (`_apply_rules`), as `evaluate` would apply it."""
        return _Plan(self.requests, dict(self.conventions, no_relevant="skip"))

    def with_side(self, side_inputs):
        """This spec with the side inputs of the beyond-accuracy requests and its
        corpus-level requests apart (`_Plan.corpus_split`)."""
        plan, corpus = self.plan.corpus_split()
        return dataclasses.replace(self, plan=plan, corpus=corpus, side_inputs=side_inputs)


def _check_name(name, role, optional=False):
    if name is None and optional:
        return None
    if not isinstance(name, str) or not name:
        raise ValueError(f"{role} must be a column name (a non-empty string); got {name!r}.")
    return name


def _make_spec(
    metrics,
    conventions,
    *,
    query,
    item,
    relevance,
    score,
    rank,
    judgments_given,
    sample_weight,
    per_query,
):
    """Check every argument that needs no data, as `evaluate` does; return a `_Spec`."""
    _check_per_query(per_query)
    # evaluate's own reading of the names: every spelling (``rbp(p=0.9)``, ``P_10``,
    # ``nDCG@10``, ``official``), a preset's default cut-off, a name given twice once.
    plan = _Plan.from_names(metrics, conventions)
    requests, resolved = plan.requests, plan.conventions
    columns = {
        "query": _check_name(query, "query"),
        "item": _check_name(item, "item"),
        "relevance": _check_name(relevance, "relevance", optional=judgments_given),
        "sample_weight": _check_name(sample_weight, "sample_weight", optional=True),
    }
    if rank is not None:
        columns["rank"] = _check_name(rank, "rank")
    else:
        columns["score"] = _check_name(score, "score (or rank)")
    if columns["query"] in [r.label for r in requests]:
        raise ValueError(
            f"The query column {query!r} has the name of a requested metric; rename it."
        )
    for request in requests:
        if request.metric.side_inputs is not None:
            raise ValueError(
                f"{request.label!r} reads propensities, a side input the engines do not take "
                "yet: compute it with evaluate on the collected rows."
            )
    return _Spec(
        plan=plan,
        columns=columns,
        two_tables=judgments_given,
        ranks=rank is not None,
        # A shuffle loses the input order; it is carried along only where it decides
        # something: ties broken by input order (CatBoost's rule falls back to it among
        # tied items of equal relevance, judged 0 or not judged).
        ordered=resolved["ties"] == "stable"
        and resolved["tie_break"] in ("input", "relevance_ascending"),
        weighted=sample_weight is not None,
    )


def _ids(values):
    """Ids of one column as the normaliser reads them fast: strings as a numpy str array
    (object arrays would be numbered one Python object at a time)."""
    if values.dtype == object and values.size:
        import pandas as pd

        if pd.api.types.infer_dtype(values, skipna=False) == "string":
            return values.astype(str)
    return values


def _check_present(frame, column, role, spec, table):
    """Refuse a missing value in one column, naming the column and the query."""
    values = frame[column]
    missing = values.isna().to_numpy()
    if missing.any():
        row = int(np.flatnonzero(missing)[0])
        where = "" if column == QUERY else f" (query {_python_value(frame[QUERY].iloc[row])!r})"
        raise ValueError(
            f"The {role} column {spec.columns[role]!r} of {table} has a missing value{where}; "
            "every row needs one."
        )


def _check_finite_numbers(values, frame, role, spec, table):
    bad = ~np.isfinite(values)
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        raise ValueError(
            f"The {role} column {spec.columns[role]!r} of {table} must hold finite numbers; "
            f"got {float(values[row])!r} for query {_python_value(frame[QUERY].iloc[row])!r}."
        )


def _empty_table(spec, query_dtype):
    import pandas as pd

    columns = {spec.query_name: pd.Series([], dtype=query_dtype)}
    columns.update({label: pd.Series([], dtype=np.float64) for label in spec.labels})
    columns[WEIGHT] = pd.Series([], dtype=np.float64)
    return pd.DataFrame(columns)


def _partition_side(frame, spec):
    """(the partition's rows of the run and the judgments, the side inputs it reads): with
    ``spec.history_rows``, the training rows that travelled with their users' queries are
    taken out and handed to the partition's plan as its ``train`` (each user's history
    is then that user's rows, all in this partition; the popularity stays the one of the
    whole training table, in ``spec.side_inputs``)."""
    if not spec.history_rows:
        return frame, spec.side_inputs
    training = (frame[SIDE] == TRAIN_SIDE).to_numpy()
    rows = frame[training]
    _check_present(rows, QUERY, "query", spec, "train")
    _check_present(rows, ITEM, "item", spec, "train")
    train = (_ids(rows[QUERY].to_numpy()), _ids(rows[ITEM].to_numpy()))
    return frame[~training], dict(spec.side_inputs, train=train)


def _split(frame, spec):
    """The run's rows and the judgments' rows of one partition. One table read as the
    long format needs no judgments apart: ``truth`` is None then."""
    if spec.two_tables:
        side = frame[SIDE].to_numpy()
        run, truth = frame[side == RUN_SIDE], frame[side == TRUTH_SIDE]
        run_table, truth_table = "data", "judgments"
    else:
        # One table: a row without relevance is ranked but not judged.
        run, truth = frame, None
        if spec.needs_items:
            truth = frame[frame[RELEVANCE].notna().to_numpy()]
        run_table = truth_table = "data"
    if spec.ordered and len(run):
        # The shuffle mixed the rows: put each query's rows back in input order, which
        # the kernel's stable sort keeps among tied scores.
        run = run.iloc[np.argsort(run[ORDER].to_numpy(), kind="stable")]
    score_role = "rank" if spec.ranks else "score"
    _check_present(run, QUERY, "query", spec, run_table)
    _check_present(run, ITEM, "item", spec, run_table)
    if spec.two_tables:  # one table: the judged rows are rows of the run, checked above
        _check_present(truth, QUERY, "query", spec, truth_table)
        _check_present(truth, ITEM, "item", spec, truth_table)
    _check_present(run, SCORE, score_role, spec, run_table)
    if spec.two_tables and spec.columns["relevance"] is not None:
        _check_present(truth, RELEVANCE, "relevance", spec, truth_table)
    if spec.weighted:
        _check_present(run, WEIGHT, "sample_weight", spec, run_table)
    return run, truth, run_table, truth_table


def _per_query_table(frame, spec, query_dtype):
    """Per-query values of every requested metric for the whole queries of one partition.

    One computation ranks every query of the partition at once. Returns a pandas
    DataFrame: the query column (the user's name), one float column per metric (NaN for
    a query without a relevant item) and WEIGHT (NaN when unweighted).
    """
    import pandas as pd

    frame, side_inputs = _partition_side(frame, spec)
    run, truth, run_table, truth_table = _split(frame, spec)
    if not len(run) and (truth is None or not len(truth)):
        return _empty_table(spec, query_dtype)
    score = _scores(run, spec, run_table)
    if spec.needs_items:
        form = _item_form(run, truth, score, spec, run_table, truth_table, side_inputs)
    else:
        form = _long_form(run, score, spec, run_table)
    ids, kept, run_codes, compute = form
    if not kept.any():
        return _empty_table(spec, query_dtype)
    weights = (
        _query_weights(run, run_codes, ids, kept, spec, run_table)
        if spec.weighted
        else np.full(int(kept.sum()), np.nan)
    )
    try:
        values = compute()
    except ValueError as error:
        raise ValueError(_in_tables(str(error), run_table, truth_table)) from None
    table = {spec.query_name: pd.Series(ids[kept]).astype(query_dtype)}
    table.update(values)
    table[WEIGHT] = weights
    return pd.DataFrame(table)


def _scores(run, spec, table):
    """The run's scores as the normaliser takes them (integers stay integers: beyond
    2**53 they are ranked, not rounded); ranks turned into scores, higher first."""
    import pandas as pd

    column = run[SCORE]
    if pd.api.types.is_integer_dtype(column.dtype):
        score = column.to_numpy(dtype=np.int64)
    else:
        score = column.to_numpy(dtype=np.float64)
        _check_finite_numbers(score, run, "rank" if spec.ranks else "score", spec, table)
    return -score if spec.ranks else score


def _long_form(run, score, spec, table):
    """One table whose ties need no item ids: its rows are the long format (relevance 0
    and, for the measures that read it, not judged where the relevance is null), which
    needs no join of a run with judgments. The queries are numbered once, by a hash
    table, and handed to the kernel as they are."""
    import pandas as pd

    codes, uniques = pd.factorize(run[QUERY], sort=False)  # numbered by first appearance
    ids = np.asarray(uniques)
    row = _first_repeated(codes, run[ITEM])
    if row is not None:
        raise ValueError(
            f"{table} has item {_python_value(run[ITEM].iloc[row])!r} more than once for query "
            f"{_python_value(run[QUERY].iloc[row])!r}; each item may appear once per query."
        )
    relevance = run[RELEVANCE].to_numpy(dtype=np.float64)
    judged = ~np.isnan(relevance)
    unjudged = not judged.all()
    if unjudged:
        _check_finite_numbers(relevance[judged], run[judged], "relevance", spec, table)
    else:
        _check_finite_numbers(relevance, run, "relevance", spec, table)
    kept = np.ones(ids.size, dtype=bool)
    if spec.conventions["query_set"] != "all" and unjudged:  # only queries with judgments
        kept = np.bincount(codes[judged], minlength=ids.size) > 0

    def compute():
        y_true = np.where(judged, relevance, 0.0) if unjudged else relevance
        y_score, groups = score, codes
        mask = judged if unjudged and spec.needs_judged else None
        if not kept.all():
            rows = kept[codes]
            renumber = np.cumsum(kept) - 1
            y_true, y_score, groups = y_true[rows], y_score[rows], renumber[codes[rows]]
            mask = None if mask is None else mask[rows]
        plan = spec.partition_plan()
        conventions = plan.conventions
        queries = _from_codes(
            y_true,
            y_score,
            groups.astype(np.int64, copy=False),
            int(kept.sum()),
            conventions["score_dtype"],
            conventions["tie_break"],
            judged=mask,
        )
        # Codes numbered by first appearance keep that order: values come in ids' order.
        prepared = _Prepared(queries, None, None, False)
        return plan.run(prepared, per_query=True, checked=False)

    return ids, kept, codes, compute


def _first_repeated(codes, items):
    """The first row whose (query, item) pair came before (None: no such row).

    One hash of both into 64 bits, sorted (faster than a hash table for millions of
    rows): pairs that share it (a repeat, or, rarely, two pairs that collide) are then
    compared exactly.
    """
    import pandas as pd

    values = items.to_numpy()
    if values.dtype.kind not in "iu" or values.dtype.itemsize != 8:
        values, _ = pd.factorize(items, sort=False)  # strings, floats...: their numbers
    key = values.astype(np.int64, copy=False).view(np.uint64) * np.uint64(0x9E3779B97F4A7C15)
    key ^= codes.astype(np.uint64)
    ranked = np.sort(key)
    same = ranked[1:] == ranked[:-1]
    if not same.any():
        return None
    shared = np.flatnonzero(np.isin(key, ranked[1:][same]))
    pairs = pd.DataFrame({"query": codes[shared], "item": values[shared]})
    repeated = np.flatnonzero(pairs.duplicated().to_numpy())
    return int(shared[repeated[0]]) if repeated.size else None


def _item_form(run, truth, score, spec, run_table, truth_table, side_inputs=None):
    """A run and its judgments (or trec_eval's tie rule, which needs the item ids): joined
    by `ItemJudgments` / `ItemRanking` as in memory (``side_inputs``: the partition's, as
    `_partition_side` gives them)."""
    run_q, truth_q = _ids(run[QUERY].to_numpy()), _ids(truth[QUERY].to_numpy())
    run_i, truth_i = _ids(run[ITEM].to_numpy()), _ids(truth[ITEM].to_numpy())
    if spec.two_tables and spec.columns["relevance"] is None:
        relevance = None  # binary judgments: every row relevant
    else:
        relevance = truth[RELEVANCE].to_numpy(dtype=np.float64)
        _check_finite_numbers(relevance, truth, "relevance", spec, truth_table)
    # The queries in the order `_from_items` numbers them (first appearance in the
    # judgments, then in the run), which is the order of the per-query values.
    codes, ids = _factorize(_concat_ids([truth_q, run_q]), None, "query ids")
    truth_codes, run_codes = codes[: truth_q.size], codes[truth_q.size :]
    kept = np.ones(ids.size, dtype=bool)
    query_set = spec.conventions["query_set"]
    if query_set != "all":  # as `_from_items` keeps queries
        kept = np.bincount(truth_codes, minlength=ids.size) > 0
        if query_set == "both":
            kept &= np.bincount(run_codes, minlength=ids.size) > 0

    def compute():
        return spec.partition_plan().evaluate(
            ItemJudgments(truth_q, truth_i, relevance),
            ItemRanking(run_q, run_i, score),
            per_query=True,
            side_inputs=side_inputs,
        )

    return ids, kept, run_codes, compute


def _in_tables(message, run_table, truth_table):
    """An error of the in-memory evaluation, told in terms of the user's tables."""
    if run_table == truth_table:  # one table: both sides are its rows
        for said in ("y_score ranks ", "y_true judges "):
            if message.startswith(said):
                return f"{run_table} has " + message[len(said) :]
    for argument, table in (("y_score ", run_table + " "), ("y_true ", truth_table + " ")):
        if message.startswith(argument):
            return table + message[len(argument) :]
    return message


def _query_weights(run, run_codes, ids, kept, spec, table):
    """One weight per kept query from the per-row ``sample_weight`` column of the run."""
    weights = run[WEIGHT].to_numpy(dtype=np.float64)
    _check_finite_numbers(weights, run, "sample_weight", spec, table)
    name = spec.columns["sample_weight"]
    if (weights < 0).any():
        raise ValueError(
            f"The sample_weight column {name!r} must be non-negative; got "
            f"{float(weights[weights < 0][0])!r}."
        )
    low = np.full(ids.size, np.inf)
    high = np.full(ids.size, -np.inf)
    np.minimum.at(low, run_codes, weights)
    np.maximum.at(high, run_codes, weights)
    if (low[kept] != high[kept]).any():
        query = int(np.flatnonzero(kept & (low != high))[0])
        if np.isinf(low[query]):
            raise ValueError(
                f"Query {_python_value(ids[query])!r} has judgments but no row in data, so "
                f"no sample_weight ({name!r}): every query must have a row in data."
            )
        raise ValueError(
            f"The sample_weight column {name!r} must be constant within each query (it "
            f"weights whole queries); query {_python_value(ids[query])!r} has weights from "
            f"{float(low[query])!r} to {float(high[query])!r}."
        )
    return low[kept]


def _rules(spec):
    """Each metric's no_relevant rule: the rows name their items, so the rule of `evaluate`
    for inputs with item ids (queries without a relevant item left out by default)."""
    return {r.label: spec.plan.no_relevant_rule(r.metric, True) for r in spec.requests}


def _refuse_no_relevant(label, values, ids):
    missing = np.isnan(values)
    raise ValueError(
        f"{label}: {int(missing.sum())} queries have no relevant item (the first is query "
        f"{_python_value(ids[np.flatnonzero(missing)[0]])!r}) and no_relevant='error'; pass "
        "no_relevant=0.0, 1.0 or 'skip' to score them."
    )


def _apply_rules(table, spec):
    """A per-query table as ``per_query=True`` returns it: the query column and one column
    per metric with each metric's ``no_relevant`` rule applied (NaN where skipped)."""
    out = table[[spec.query_name] + spec.labels].copy()
    for label, rule in _rules(spec).items():
        values = out[label].to_numpy(dtype=np.float64)
        if rule == "error" and np.isnan(values).any():
            _refuse_no_relevant(label, values, out[spec.query_name].to_numpy())
        if rule != "skip":
            out[label] = np.where(np.isnan(values), rule, values)
    return out


def _mean_of_tables(table, spec):
    """The mean of every metric over the gathered per-query table, by `_aggregate`."""
    if not len(table):
        raise ValueError(
            "No query to evaluate: "
            + (
                "the frames are empty."
                if spec.conventions["query_set"] == "all"
                else f"no query is kept (query_set={spec.conventions['query_set']!r})."
            )
        )
    ids = table[spec.query_name].to_numpy()
    repeated = table[spec.query_name].duplicated().to_numpy()
    if repeated.any():
        # Each query must have been evaluated whole, in one partition.
        raise ValueError(
            f"Query {_python_value(ids[np.flatnonzero(repeated)[0]])!r} was found in more "
            "than one partition: the rows of a query must be brought together first."
        )
    weights = None
    if spec.weighted:
        weights = table[WEIGHT].to_numpy(dtype=np.float64)
        if not weights.any():
            raise ValueError("sample_weight must not be all zero.")
    results, skipped = {}, []
    metrics = {r.label: r.metric for r in spec.requests}
    for label, rule in _rules(spec).items():
        values = table[label].to_numpy(dtype=np.float64)
        has_relevant = ~np.isnan(values)
        if rule == "error" and not has_relevant.all():
            _refuse_no_relevant(label, values, ids)
        if rule != spec.plan.no_relevant_rule(metrics[label]) and not has_relevant.all():
            skipped.append((label, int((~has_relevant).sum())))
        results[label] = _aggregate(
            np.where(has_relevant, values, 0.0),
            has_relevant,
            rule,
            weights,
            False,
            label,
            metrics[label].aggregate,
        )
    if skipped:
        _Plan.warn_skipped(skipped, len(table))
    return results
