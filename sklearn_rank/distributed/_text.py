"""What both engine adapters say alike: the shared parameter documentation, the column
checks made from a frame's schema before any data is read, and the missing-extra error."""

import textwrap

from ._tables import ITEM, QUERY, RELEVANCE, SCORE, WEIGHT

_PARAMETERS = """\
metrics : str or list of str
    Metric names such as ``"ndcg@10"``, ``"map"``, ``"precision@5"``, read as
    `sklearn_rank.evaluate` reads them: every metric of `get_metric_names`, with its own
    parameters (``"rbp(p=0.9)"``), trec_eval's and ir_measures' spellings (``"P_10"``,
    ``"ndcg_cut.10"``, ``"nDCG@10"``, ``"official"``); a name given twice is computed
    once. ERR without ``max_grade`` takes the largest grade of the judgments of the
    queries kept, as `evaluate` does: one more pass over the relevance column first.
query, item : str, default="query", "item"
    Columns of the query (user) ids and item ids, in ``data`` and in ``judgments``.
    Ids are numbers or strings; an item appears at most once per query in each table.
relevance : str or None, default="relevance"
    Column of the relevance (gain; 0 means judged not relevant): of ``data`` without
    ``judgments``, of ``judgments`` otherwise, where None means that every judgments row
    is relevant (binary truth).
score : str, default="score"
    Column of the scores of ``data``, higher ranks first.
rank : str or None, default=None
    Column of ranks (1 first) of ``data``, read instead of ``score``.
judgments : DataFrame of the same engine, default=None
    The truth as a second table of (query, item[, relevance]) rows, ``data`` then being
    the run (query, item, score or rank): a recommender's test interactions beside its
    top-N lists. Judged items that were never ranked still count as relevant items.
sample_weight : str or None, default=None
    Column of ``data`` with the weight of each row's query in the mean, constant within a
    query; non-negative, not all zero.
per_query : bool, default=False
    Return the per-query values as a distributed frame (not collected) instead of the
    means.
**conventions
    ``convention``, ``ties``, ``gain``, ``ap_denominator``, ``no_relevant``,
    ``relevance_threshold``, ``short_lists``, ``log_base``, ``tie_break``, ``query_set``,
    ``score_dtype``, ``iprec_rounding``, ``judged_only``: as for `sklearn_rank.evaluate`.
    With ``ties="stable"`` (and ``tie_break="input"`` or ``"relevance_ascending"``) tied
    scores keep the row order of ``data`` as collecting it would give (partition by
    partition): the rows carry their position through the shuffle."""

_ROLES = {QUERY: "query", ITEM: "item", RELEVANCE: "relevance", WEIGHT: "sample_weight"}


def _roles(spec, table):
    """Internal column -> the user's column, for the run (``data``), the judgments or the
    training table (``train``: its users and items)."""
    c = spec.columns
    roles = {QUERY: c["query"], ITEM: c["item"]}
    if table == "train":
        return roles
    if table == "data":
        roles[SCORE] = c["rank"] if spec.ranks else c["score"]
        if not spec.two_tables:
            roles[RELEVANCE] = c["relevance"]
        if spec.weighted:
            roles[WEIGHT] = c["sample_weight"]
    elif c["relevance"] is not None:
        roles[RELEVANCE] = c["relevance"]
    return roles


# The beyond-accuracy side inputs of `evaluate_dask` and `evaluate_spark`, in each engine's
# words.
_BEYOND_PARAMETERS = """train : tuple, array-like, scipy.sparse matrix or {table_type}, default=None
    The training interactions of the beyond-accuracy metrics (``novelty``,
    ``popularity``, ``aplt``...): any form `sklearn_rank.evaluate` takes, or a {engine}
    DataFrame of (query, item) rows with the ``query`` and ``item`` columns (of the
    types they have in ``data``). Its item popularity is computed once, by one
    aggregation, and handed to every partition. The measures that read each user's
    training items (``serendipity``, ``pop_rsp``, ``pop_reo``) read them from the
    table's rows, which then travel to their users' partitions in the same shuffle as
    the queries; an in-memory ``train`` is handed whole to every partition. The item
    co-occurrences of ``similarity="cooccurrence"`` (``diversity``, ``serendipity``)
    read every training user: a training table is then collected once, on the
    client, and handed whole to every partition.
item_features : array-like or scipy.sparse matrix of shape (n_items, n_features), default=None
    Item feature vectors, one row per catalog item (``diversity``).
catalog : int or array-like of shape (n_items,), default=None
    The catalog: a number of items (ids 0..n_items-1) or the item ids; needed by the
    beyond-accuracy metrics unless ``train`` is a matrix. Corpus-level metrics
    (``coverage``, ``entropy``, ``gini``, ``pop_rsp``...) add each partition's counts on the
    {driver}: the values of `evaluate`, to the bit."""
_ENGINE_WORDS = {
    "evaluate_dask": {
        "table_type": "dask.dataframe.DataFrame",
        "engine": "Dask",
        "driver": "client",
    },
    "evaluate_spark": {
        "table_type": "pyspark.sql.DataFrame",
        "engine": "Spark",
        "driver": "driver",
    },
}


def _fill_distributed_doc(function):
    blocks = {
        "{distributed_parameters}": _PARAMETERS,
        "{beyond_parameters}": _BEYOND_PARAMETERS.format(**_ENGINE_WORDS[function.__name__]),
    }
    lines = []
    for line in function.__doc__.splitlines():
        if line.strip() in blocks:
            indent = line[: len(line) - len(line.lstrip())]
            lines.append(textwrap.indent(blocks[line.strip()], indent))
        else:
            lines.append(line)
    function.__doc__ = "\n".join(lines)
    return function


def _role(internal, spec):
    if internal == SCORE:
        return "rank" if spec.ranks else "score"
    return _ROLES[internal]


def _check_columns(columns, roles, spec, table):
    """Every column a role names must be in the table."""
    for internal, name in roles.items():
        if name not in columns:
            raise ValueError(
                f"The {_role(internal, spec)} column {name!r} is not in {table}; its columns "
                f"are {columns}."
            )


def _check_type(internal, name, type_text, kind, spec, table):
    """Refuse a column whose type cannot serve its role (a score column of strings).

    ``kind``: the numpy kind of the column's values ("i", "u", "f", "b"; anything else
    for strings, dates and other types).
    """
    allowed = {SCORE: "iuf", RELEVANCE: "biuf", WEIGHT: "iuf"}.get(internal)
    if allowed is not None and kind not in allowed:
        raise ValueError(
            f"The {_role(internal, spec)} column {name!r} of {table} must hold numbers; "
            f"got type {type_text}."
        )


def _missing_engine(function, extra, module):
    return ImportError(
        f'{function} needs {module}, which is not installed: pip install "sklearn-rank[{extra}]"'
    )
