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


def _fill_distributed_doc(function):
    lines = []
    for line in function.__doc__.splitlines():
        if line.strip() == "{distributed_parameters}":
            indent = line[: len(line) - len(line.lstrip())]
            lines.append(textwrap.indent(_PARAMETERS, indent))
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
