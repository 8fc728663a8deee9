"""Parameter descriptions shared by every public docstring, written once.

`_fill_doc` substitutes ``{name}`` placeholders in a docstring with the declaration of a
convention (`_declarations.CONVENTIONS`), of a measure parameter
(`_measures.MEASURE_PARAMETERS`: ``{p}``, ``{max_grade}``...) or with the entries below,
indented to the docstring's level, so every function documents a parameter identically.
"""

import textwrap

from ._declarations import CONVENTION, CONVENTIONS
from ._measures import MEASURE_PARAMETERS

_PARAMETERS = {
    "y_true": """\
y_true : array-like of shape (n_queries, n_items), or (n_rows,) with groups, or list
    True relevance (gain) of each item: binary or graded, non-negative (negative values
    only for cg_score and dcg_score with linear gain, and kendall_tau_score); a
    scipy.sparse matrix is read without densifying. A 2-D array is one query per row; a
    1-D array needs ``groups``; an `ItemJudgments` goes with an `ItemRanking`. A list of
    sets (relevant item ids) or of dicts (item id -> relevance), one per query, goes with
    ranked lists in ``y_score``; judged items that were never ranked still count as
    relevant items.""",
    "y_score": """\
y_score : array-like of the same shape as y_true, list or ItemRanking
    Predicted scores, higher ranks first. With list ``y_true``: per query a sequence of
    item ids in rank order (best first), or a dict item id -> score. An `ItemRanking`
    (query, item, score rows, or top-N ids) goes with `ItemJudgments` or sparse truth.""",
    "k": """\
k : int or None, default=None
    Cut-off: only the top ``k`` positions count. None uses the whole list. A ``k`` larger
    than a query's list means the whole list (see ``short_lists`` for Precision@k).""",
    "k_auc": """\
k : int or None, default=None
    None gives the full ranking AUC over all candidates. An integer gives Hivemall's top-k
    form: only pairs of items both inside the top ``k`` count, 0.5 where there is no pair.""",
    "groups": """\
groups : array-like of shape (n_rows,), default=None
    Query id of every row, for 1-D ``y_true`` / ``y_score`` (long format): numbers or
    strings, rows of a query need not be contiguous. Must be None for 2-D or list input.""",
    "exclude": """\
exclude : array-like or scipy.sparse matrix of shape (n_queries, n_items), default=None
    Items that are not candidates for a query (a user's training items): non-zero entries
    are removed from that query, from its candidates and its truth, before ranking, so
    positions, pairs and relative positions count the remaining items only. For matrices it
    has y_score's shape; with item ids (ItemRanking, lists) rows and columns are the integer
    query and item ids.""",
    "train": """\
train : array-like or scipy.sparse matrix of shape (n_users, n_items), or tuple, default=None
    The training interactions, read by the beyond-accuracy metrics (``novelty``,
    ``popularity``, ``aplt``, ``serendipity``...): a users x items matrix of interaction
    counts as ``exclude`` takes it (rows are the query ids: row numbers), a pair
    ``(user_ids, item_ids)`` of training rows, or an `ItemJudgments` (one row per
    interaction). Item popularity and the long tail are computed once from all of it;
    each evaluated user's rows are its history.""",
    "item_features": """\
item_features : array-like or scipy.sparse matrix of shape (n_items, n_features), default=None
    Item feature vectors, one row per catalog item (``diversity``, ``serendipity``).""",
    "catalog": """\
catalog : int or array-like of shape (n_items,), default=None
    The catalog of the beyond-accuracy metrics: a number of items (ids 0..n_items-1) or
    the item ids. None: the columns of a truth or training matrix. A recommended, judged or
    trained item outside the catalog is an error.""",
    "sample_weight": """\
sample_weight : array-like of shape (n_queries,) or (n_rows,), default=None
    Weight of each query in the mean. In long format it may also be given per row, constant
    within each query. Non-negative, not all zero.""",
    "no_relevant_arp": """\
no_relevant : float, "skip" or "error", default="skip"
    Value of a query with no relevant candidate. The default leaves it out of the mean:
    0 would be the best possible score for this lower-is-better metric.""",
    "no_relevant_evaluate": """\
no_relevant : float, "skip", "error" or None, default=None
    Value of a query with no relevant item. None uses each metric's own default (0.0,
    and "skip" for ``arp``), or the preset's. "skip" leaves such queries out of that
    metric's mean.""",
    "per_query": """\
per_query : bool, default=False
    Return one value per query instead of the mean: row order for 2-D input, list order for
    lists, and for long format the order of ``query_ids(groups)`` (first appearance).""",
    "n_jobs": """\
n_jobs : int, default=None
    Threads to compute with, blocks of whole queries on each, with scikit-learn's meaning:
    None is 1, -1 every core this process may use (fewer inside ``threadpoolctl``'s
    ``threadpool_limits`` or a joblib worker's limit). Results are the same to the bit
    for every value. The default stays 1 so that scorers inside a search with its own
    ``n_jobs`` never oversubscribe the cores; small inputs use one thread whatever
    ``n_jobs`` says.""",
}

_RETURNS = """\
score : float or ndarray of shape (n_queries,)
    The (weighted) mean over queries, or the per-query values with ``per_query=True``."""


def _texts():
    texts = {name: parameter.numpydoc() for name, parameter in CONVENTIONS.items()}
    texts["convention"] = CONVENTION.numpydoc()
    texts.update((name, parameter.numpydoc()) for name, parameter in MEASURE_PARAMETERS.items())
    texts.update(_PARAMETERS, returns=_RETURNS)
    return texts


def _filled(doc, texts):
    lines = []
    for line in doc.splitlines():
        stripped = line.strip()
        if stripped.startswith("{") and stripped.endswith("}") and stripped[1:-1] in texts:
            indent = line[: len(line) - len(line.lstrip())]
            lines.append(textwrap.indent(texts[stripped[1:-1]], indent))
        else:
            lines.append(line)
    return "\n".join(lines)


def _fill_doc(function):
    """Replace ``{name}`` placeholders in the docstring with the shared descriptions."""
    function.__doc__ = _filled(function.__doc__, _texts())
    return function


def _with_declarations(parameters):
    """A decorator like `_fill_doc` that also fills the placeholders of ``parameters``
    (`Parameter` declarations kept outside this folder, such as the comparison's)."""
    own = {parameter.name: parameter.numpydoc() for parameter in parameters}

    def fill(function):
        function.__doc__ = _filled(function.__doc__, {**_texts(), **own})
        return function

    return fill
