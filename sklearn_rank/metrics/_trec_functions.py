"""Public functions of trec_eval's counts, R-precision and GM-MAP.

Each is a thin, documented entry point into `_evaluate._score`; the definitions live in
`_trec.py` and `docs/metrics.md`.
"""

from ..conventions import _fill_doc
from ._evaluate import _score
from ._signatures import _with_conventions


@_with_conventions("num_ret")
@_fill_doc
def num_retrieved(
    y_true,
    y_score,
    *,
    groups=None,
    exclude=None,
    sample_weight=None,
    per_query=False,
    **conventions,
):
    """Number of retrieved items (candidates) per query; summed over queries.

    The ``all`` line of trec_eval sums it over queries (``num_ret``); so does the mean here:
    the result is the (weighted) sum.

    Parameters
    ----------
    {y_true}
    {y_score}
    {groups}
    {exclude}
    {sample_weight}
    {conventions}
    {per_query}

    Returns
    -------
    {returns}

    See Also
    --------
    num_relevant, num_relevant_retrieved

    References
    ----------
    .. [1] trec_eval 10.0, ``m_num_ret.c``.

    Examples
    --------
    >>> from sklearn_rank import ItemJudgments, ItemRanking, num_retrieved
    >>> truth = ItemJudgments(["q"] * 4, ["a", "b", "c", "d"], [1, 0, 2, 0])
    >>> run = ItemRanking(["q"] * 4, ["b", "a", "e", "c"], [0.9, 0.8, 0.7, 0.6])
    >>> num_retrieved(truth, run)
    4.0
    """
    return _score(
        "num_ret",
        y_true,
        y_score,
        groups=groups,
        exclude=exclude,
        sample_weight=sample_weight,
        per_query=per_query,
        **conventions,
    )


@_with_conventions("num_rel")
@_fill_doc
def num_relevant(
    y_true,
    y_score,
    *,
    groups=None,
    exclude=None,
    sample_weight=None,
    per_query=False,
    **conventions,
):
    """Number of relevant judged items R per query, ranked or not; summed over queries.

    trec_eval's ``num_rel``: the sum over queries.

    Parameters
    ----------
    {y_true}
    {y_score}
    {groups}
    {exclude}
    {sample_weight}
    {conventions}
    {per_query}

    Returns
    -------
    {returns}

    See Also
    --------
    num_retrieved, num_relevant_retrieved

    References
    ----------
    .. [1] trec_eval 10.0, ``m_num_rel.c``.

    Examples
    --------
    >>> from sklearn_rank import ItemJudgments, ItemRanking, num_relevant
    >>> truth = ItemJudgments(["q"] * 4, ["a", "b", "c", "d"], [1, 0, 2, 0])
    >>> run = ItemRanking(["q"] * 4, ["b", "a", "e", "c"], [0.9, 0.8, 0.7, 0.6])
    >>> num_relevant(truth, run)
    2.0
    >>> num_relevant(truth, run, relevance_threshold=2)
    1.0
    """
    return _score(
        "num_rel",
        y_true,
        y_score,
        groups=groups,
        exclude=exclude,
        sample_weight=sample_weight,
        per_query=per_query,
        **conventions,
    )


@_with_conventions("num_rel_ret")
@_fill_doc
def num_relevant_retrieved(
    y_true,
    y_score,
    *,
    groups=None,
    exclude=None,
    sample_weight=None,
    per_query=False,
    **conventions,
):
    """Number of relevant retrieved items per query; summed over queries.

    trec_eval's ``num_rel_ret``: the sum over queries.

    Parameters
    ----------
    {y_true}
    {y_score}
    {groups}
    {exclude}
    {sample_weight}
    {conventions}
    {per_query}

    Returns
    -------
    {returns}

    See Also
    --------
    num_retrieved, num_relevant

    References
    ----------
    .. [1] trec_eval 10.0, ``m_num_rel_ret.c``.

    Examples
    --------
    >>> from sklearn_rank import ItemJudgments, ItemRanking, num_relevant_retrieved
    >>> truth = ItemJudgments(["q"] * 4, ["a", "b", "c", "d"], [1, 0, 2, 0])
    >>> run = ItemRanking(["q"] * 4, ["b", "a", "e", "c"], [0.9, 0.8, 0.7, 0.6])
    >>> num_relevant_retrieved(truth, run)
    2.0
    """
    return _score(
        "num_rel_ret",
        y_true,
        y_score,
        groups=groups,
        exclude=exclude,
        sample_weight=sample_weight,
        per_query=per_query,
        **conventions,
    )


@_with_conventions("num_nonrel_judged_ret")
@_fill_doc
def num_nonrelevant_judged_retrieved(
    y_true,
    y_score,
    *,
    groups=None,
    exclude=None,
    sample_weight=None,
    per_query=False,
    **conventions,
):
    """Number of judged non-relevant retrieved items per query; summed over queries.

    Unjudged candidates (absent from the truth) do not count: with dense matrices or long
    format every candidate is judged.

    Parameters
    ----------
    {y_true}
    {y_score}
    {groups}
    {exclude}
    {sample_weight}
    {conventions}
    {per_query}

    Returns
    -------
    {returns}

    See Also
    --------
    bpref_score

    References
    ----------
    .. [1] trec_eval 10.0, ``m_num_nonrel_judged_ret.c``.

    Examples
    --------
    >>> from sklearn_rank import ItemJudgments, ItemRanking, num_nonrelevant_judged_retrieved
    >>> truth = ItemJudgments(["q"] * 4, ["a", "b", "c", "d"], [1, 0, 2, 0])
    >>> run = ItemRanking(["q"] * 4, ["b", "a", "e", "c"], [0.9, 0.8, 0.7, 0.6])
    >>> num_nonrelevant_judged_retrieved(truth, run)
    1.0
    """
    return _score(
        "num_nonrel_judged_ret",
        y_true,
        y_score,
        groups=groups,
        exclude=exclude,
        sample_weight=sample_weight,
        per_query=per_query,
        **conventions,
    )


@_with_conventions("rprec")
@_fill_doc
def r_precision_score(
    y_true,
    y_score,
    *,
    groups=None,
    exclude=None,
    sample_weight=None,
    per_query=False,
    **conventions,
):
    """R-precision: precision at rank R, the number of relevant items.

    Positions beyond the list count as non-relevant; 0 for a query without a relevant item
    (``no_relevant``). Under ``ties="average"`` the exact expected value over orderings of tied
    scores (linear in position).

    Parameters
    ----------
    {y_true}
    {y_score}
    {groups}
    {exclude}
    {sample_weight}
    {conventions}
    {per_query}

    Returns
    -------
    {returns}

    See Also
    --------
    r_precision_mult_score, precision_at_k_score

    References
    ----------
    .. [1] J. A. Aslam, E. Yilmaz and V. Pavlu, "A geometric interpretation of R-precision and its
       correlation with average precision", SIGIR 2005.
    .. [2] trec_eval 10.0, ``m_Rprec.c``.

    Examples
    --------
    >>> from sklearn_rank import ItemJudgments, ItemRanking, r_precision_score
    >>> truth = ItemJudgments(["q"] * 4, ["a", "b", "c", "d"], [1, 0, 2, 0])
    >>> run = ItemRanking(["q"] * 4, ["b", "a", "e", "c"], [0.9, 0.8, 0.7, 0.6])
    >>> r_precision_score(truth, run)
    0.5
    """
    return _score(
        "rprec",
        y_true,
        y_score,
        groups=groups,
        exclude=exclude,
        sample_weight=sample_weight,
        per_query=per_query,
        **conventions,
    )


@_with_conventions("rprec_mult")
@_fill_doc
def r_precision_mult_score(
    y_true,
    y_score,
    *,
    x=1.0,
    groups=None,
    exclude=None,
    sample_weight=None,
    per_query=False,
    **conventions,
):
    """Precision at a multiple x of R: at rank (long)(x R + 0.9).

    trec_eval's ``Rprec_mult_x`` (its default x values are 0.2, 0.4, ..., 2.0); 0 where the
    rank is 0.

    Parameters
    ----------
    {y_true}
    {y_score}
    {x}
    {groups}
    {exclude}
    {sample_weight}
    {conventions}
    {per_query}

    Returns
    -------
    {returns}

    See Also
    --------
    r_precision_score

    References
    ----------
    .. [1] trec_eval 10.0, ``m_Rprec_mult.c``.

    Examples
    --------
    >>> from sklearn_rank import ItemJudgments, ItemRanking, r_precision_mult_score
    >>> truth = ItemJudgments(["q"] * 4, ["a", "b", "c", "d"], [1, 0, 2, 0])
    >>> run = ItemRanking(["q"] * 4, ["b", "a", "e", "c"], [0.9, 0.8, 0.7, 0.6])
    >>> r_precision_mult_score(truth, run, x=2.0)
    0.5
    """
    return _score(
        "rprec_mult",
        y_true,
        y_score,
        x=x,
        groups=groups,
        exclude=exclude,
        sample_weight=sample_weight,
        per_query=per_query,
        **conventions,
    )


@_with_conventions("gm_map")
@_fill_doc
def geometric_mean_average_precision_score(
    y_true,
    y_score,
    *,
    k=None,
    groups=None,
    exclude=None,
    sample_weight=None,
    per_query=False,
    **conventions,
):
    """GM-MAP: the geometric mean over queries of average precision.

    Each query's AP (its exact expected value under tied scores) is floored at 1e-5, and the
    result is exp of the (weighted) mean of the logs, as trec_eval's ``gm_map``; per query the
    AP itself is returned.

    Parameters
    ----------
    {y_true}
    {y_score}
    {k}
    {groups}
    {exclude}
    {sample_weight}
    {conventions}
    {per_query}

    Returns
    -------
    {returns}

    See Also
    --------
    mean_average_precision_score

    References
    ----------
    .. [1] S. Robertson, "On GMAP: and other transformations", CIKM 2006.
    .. [2] trec_eval 10.0, ``m_gm_map.c``.

    Examples
    --------
    >>> from sklearn_rank import ItemJudgments, ItemRanking, geometric_mean_average_precision_score
    >>> truth = ItemJudgments(["q"] * 4, ["a", "b", "c", "d"], [1, 0, 2, 0])
    >>> run = ItemRanking(["q"] * 4, ["b", "a", "e", "c"], [0.9, 0.8, 0.7, 0.6])
    >>> geometric_mean_average_precision_score(truth, run)
    0.5
    """
    return _score(
        "gm_map",
        y_true,
        y_score,
        k=k,
        groups=groups,
        exclude=exclude,
        sample_weight=sample_weight,
        per_query=per_query,
        **conventions,
    )
