"""Measures averaged over judgment groups (trec_eval's ``-R qrels_jg``, ``-m qrels_jg``):
`evaluate_judgment_groups`. Each (query, group) is evaluated as a query of its own by
`evaluate`, through the one pipeline, and each query's groups are averaged."""

import numpy as np

from ..inputs._preferences import _grouped_as_queries

#: The query id of a (query, group) pair: no whitespace occurs in a TREC field.
_SEPARATOR = "\t"


def evaluate_judgment_groups(
    judgments,
    ranking,
    metrics,
    *,
    convention="trec_eval",
    per_query=False,
    n_jobs=None,
    **conventions,
):
    """Metrics averaged over the judgment groups of each query (trec_eval's ``*_avgjg``).

    Each judgment group (an assessor) grades the documents of a query on its own; each
    metric is computed against each group's grades, then averaged over the query's groups
    (trec_eval's ``map_avgjg``, ``P_avgjg``, ``Rprec_mult_avgjg`` are ``map``,
    ``precision@k`` and ``rprec_mult`` averaged so), then over queries.

    Parameters
    ----------
    judgments : GroupedJudgments
        From `read_trec_qrels_jg`: one grade per document and group.
    ranking : ItemRanking
        The run.
    metrics : str or list of str
        Metric names as `evaluate` reads them (``"map"``, ``"precision@10"``...).
    convention : str, default="trec_eval"
        The conventions' preset, as in `evaluate`.
    per_query : bool, default=False
        Return each query's value (queries of the judgments that the run has, sorted as
        strings) instead of the mean over them.
    n_jobs : int, default=None
        Threads, as in `evaluate`.
    **conventions
        Other conventions of `evaluate` (``relevance_threshold``, ``judged_only``...).

    Returns
    -------
    values : dict
        Metric name to the mean over queries (float) or, with ``per_query=True``, to an
        ndarray of shape (n_queries,).

    Raises
    ------
    ValueError
        As `evaluate` does for the metrics and conventions.

    See Also
    --------
    read_trec_qrels_jg : the judgments.
    evaluate_preferences : preference judgments.

    Notes
    -----
    Group values are added in the groups' order (their ids sorted as strings), then
    divided by their number, and queries are averaged in their order, as trec_eval adds
    them (m_map_avgjg.c, meas_avg.c).

    References
    ----------
    .. [1] trec_eval 10.0, ``form_res_rels_jg.c``, ``m_map_avgjg.c``, ``m_P_avgjg.c``,
       ``m_Rprec_mult_avgjg.c``, https://github.com/usnistgov/trec_eval

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_rank import GroupedJudgments, ItemRanking, evaluate_judgment_groups
    >>> judgments = GroupedJudgments(
    ...     np.array(["q1"] * 4, dtype=object), np.array(["1", "1", "2", "2"], dtype=object),
    ...     np.array(["0"] * 4, dtype=object), np.array(["a", "b", "a", "b"]),
    ...     np.array([1.0, 0.0, 0.0, 1.0]))
    >>> run = ItemRanking(["q1", "q1"], ["a", "b"], [2.0, 1.0])
    >>> evaluate_judgment_groups(judgments, run, ["precision@1", "map"])
    {'precision@1': 0.5, 'map': 0.75}
    """
    from ..inputs import query_ids
    from ._aggregate import _in_order
    from ._evaluate import evaluate

    metrics = [metrics] if isinstance(metrics, str) else list(metrics)  # as evaluate
    truth, runs, pairs = _grouped_as_queries(judgments, ranking, _SEPARATOR)
    values = evaluate(
        truth,
        runs,
        list(metrics),
        convention=convention,
        per_query=True,
        n_jobs=n_jobs,
        **conventions,
    )
    evaluated = np.asarray(query_ids(truth, runs, convention=convention), dtype=object)
    row = {q: i for i, q in enumerate(evaluated.tolist())}
    index = np.array([row.get(p, -1) for p in pairs.tolist()], dtype=np.int64)
    query_of_pair = np.array([p.split(_SEPARATOR, 1)[0] for p in pairs.tolist()], dtype=object)
    queries, pair_query = np.unique(query_of_pair.astype(str), return_inverse=True)
    pair_query = pair_query.ravel()
    has_run = np.bincount(pair_query, weights=index >= 0, minlength=queries.size) > 0
    out = {}
    for name in metrics:
        column = np.asarray(values[name], dtype=np.float64)
        by_pair = np.where(index >= 0, column[np.maximum(index, 0)], 0.0)
        total = np.bincount(pair_query, weights=by_pair, minlength=queries.size)
        groups = np.bincount(pair_query, minlength=queries.size)
        mean = (total / groups)[has_run]
        out[name] = mean if per_query else _in_order(mean, "mean")
    return out
