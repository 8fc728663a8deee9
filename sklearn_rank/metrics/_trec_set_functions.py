"""Public functions of trec_eval's set measures (set_relative_P, set_map, set_F.x,
utility) and relative_P.

Each is a thin, documented entry point into `_evaluate._score`; the definitions live in
`_trec_sets.py` and `docs/metrics.md`.
"""

from ..conventions import _fill_doc
from ._evaluate import _score
from ._signatures import _with_conventions


@_with_conventions("set_relative_precision")
@_fill_doc
def set_relative_precision_score(
    y_true,
    y_score,
    *,
    groups=None,
    exclude=None,
    sample_weight=None,
    per_query=False,
    **conventions,
):
    """Set precision relative to the best possible: relevant candidates / min(N, R).

    trec_eval's ``set_relative_P``: h / min(N, R), h the relevant candidates, N the
    candidates, R the relevant judged items; 0 where N or R is 0.

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
    set_average_precision_score, relative_precision_at_k_score

    References
    ----------
    .. [1] trec_eval 10.0, ``m_set_rel_P.c``.

    Examples
    --------
    >>> from sklearn_rank import ItemJudgments, ItemRanking, set_relative_precision_score
    >>> truth = ItemJudgments(["q"] * 4, ["a", "b", "c", "d"], [1, 0, 2, 0])
    >>> run = ItemRanking(["q"] * 4, ["b", "a", "e", "c"], [0.9, 0.8, 0.7, 0.6])
    >>> set_relative_precision_score(truth, run)
    1.0
    """
    return _score(
        "set_relative_precision",
        y_true,
        y_score,
        groups=groups,
        exclude=exclude,
        sample_weight=sample_weight,
        per_query=per_query,
        **conventions,
    )


@_with_conventions("set_map")
@_fill_doc
def set_average_precision_score(
    y_true,
    y_score,
    *,
    groups=None,
    exclude=None,
    sample_weight=None,
    per_query=False,
    **conventions,
):
    """Unranked average precision: relevant candidates squared / (N R).

    trec_eval's ``set_map``: set precision h / N times set recall h / R; 0 where N or R
    is 0.

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
    set_relative_precision_score

    References
    ----------
    .. [1] trec_eval 10.0, ``m_set_map.c``.

    Examples
    --------
    >>> from sklearn_rank import ItemJudgments, ItemRanking, set_average_precision_score
    >>> truth = ItemJudgments(["q"] * 4, ["a", "b", "c", "d"], [1, 0, 2, 0])
    >>> run = ItemRanking(["q"] * 4, ["b", "a", "e", "c"], [0.9, 0.8, 0.7, 0.6])
    >>> set_average_precision_score(truth, run)
    0.5
    """
    return _score(
        "set_map",
        y_true,
        y_score,
        groups=groups,
        exclude=exclude,
        sample_weight=sample_weight,
        per_query=per_query,
        **conventions,
    )


@_with_conventions("set_f")
@_fill_doc
def set_f_score(
    y_true,
    y_score,
    *,
    beta=1.0,
    groups=None,
    exclude=None,
    sample_weight=None,
    per_query=False,
    **conventions,
):
    """F of the candidate set with recall weighted by beta: trec_eval's set_F.x.

    (beta + 1) P R / (beta P + R) with P = h / N and R = h / R (the relevant judged items);
    0 where no relevant item is retrieved. trec_eval's x is beta here (it plays the role
    of beta squared in van Rijsbergen's F); beta = 1 is the set's F1.

    Parameters
    ----------
    {y_true}
    {y_score}
    {beta}
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
    f1_at_k_score, set_relative_precision_score

    References
    ----------
    .. [1] trec_eval 10.0, ``m_set_F.c``.

    Examples
    --------
    >>> from sklearn_rank import ItemJudgments, ItemRanking, set_f_score
    >>> truth = ItemJudgments(["q"] * 4, ["a", "b", "c", "d"], [1, 0, 2, 0])
    >>> run = ItemRanking(["q"] * 4, ["b", "a", "e", "c"], [0.9, 0.8, 0.7, 0.6])
    >>> round(set_f_score(truth, run, beta=0.5), 6)  # 1.5 * 0.5 * 1 / (0.5 * 0.5 + 1)
    0.6
    """
    return _score(
        "set_f",
        y_true,
        y_score,
        beta=beta,
        groups=groups,
        exclude=exclude,
        sample_weight=sample_weight,
        per_query=per_query,
        **conventions,
    )


@_with_conventions("utility")
@_fill_doc
def utility_score(
    y_true,
    y_score,
    *,
    coefficients=(1.0, -1.0, 0.0, 0.0),
    groups=None,
    exclude=None,
    sample_weight=None,
    per_query=False,
    **conventions,
):
    """Set utility: p1 h + p2 (N - h) + p3 (R - h) + p4 (h - N - R).

    trec_eval's ``utility.p1,p2,p3,p4`` (default 1, -1, 0, 0): each relevant candidate is
    worth p1, each non-relevant one p2, each relevant item not retrieved p3 and each
    non-relevant one not retrieved p4 (the collection size, trec_eval's -N, is 0, so
    that term is h - N - R, as in trec_eval without -N). Every query has a value,
    relevant items or not.

    Parameters
    ----------
    {y_true}
    {y_score}
    {coefficients}
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
    set_average_precision_score

    References
    ----------
    .. [1] trec_eval 10.0, ``m_utility.c``.

    Examples
    --------
    >>> from sklearn_rank import ItemJudgments, ItemRanking, utility_score
    >>> truth = ItemJudgments(["q"] * 4, ["a", "b", "c", "d"], [1, 0, 2, 0])
    >>> run = ItemRanking(["q"] * 4, ["b", "a", "e", "c"], [0.9, 0.8, 0.7, 0.6])
    >>> utility_score(truth, run, coefficients=(2, -1, 0, 0))
    2.0
    """
    return _score(
        "utility",
        y_true,
        y_score,
        coefficients=coefficients,
        groups=groups,
        exclude=exclude,
        sample_weight=sample_weight,
        per_query=per_query,
        **conventions,
    )


@_with_conventions("relative_precision")
@_fill_doc
def relative_precision_at_k_score(
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
    """Relative precision at k: hits in the top k / min(k, R).

    trec_eval's ``relative_P_k``: precision up to rank R, recall after it; 0 where R is 0.
    Without k, k is the number of candidates (``set_relative_P``).

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
    precision_at_k_score, set_relative_precision_score

    References
    ----------
    .. [1] trec_eval 10.0, ``m_rel_P.c``.

    Examples
    --------
    >>> from sklearn_rank import ItemJudgments, ItemRanking, relative_precision_at_k_score
    >>> truth = ItemJudgments(["q"] * 4, ["a", "b", "c", "d"], [1, 0, 2, 0])
    >>> run = ItemRanking(["q"] * 4, ["b", "a", "e", "c"], [0.9, 0.8, 0.7, 0.6])
    >>> relative_precision_at_k_score(truth, run, k=2)
    0.5
    """
    return _score(
        "relative_precision",
        y_true,
        y_score,
        k=k,
        groups=groups,
        exclude=exclude,
        sample_weight=sample_weight,
        per_query=per_query,
        **conventions,
    )
