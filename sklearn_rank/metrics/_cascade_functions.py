"""Public functions of the user-model measures ERR and RBP (with its residual).

Each is a thin, documented entry point into `_evaluate._score`; the definitions live in
`_cascade.py` and `docs/metrics.md`.
"""

from ..conventions import _fill_doc
from ._evaluate import _score
from ._signatures import _with_conventions


@_with_conventions("err")
@_fill_doc
def err_score(
    y_true,
    y_score,
    *,
    k=None,
    max_grade=None,
    groups=None,
    exclude=None,
    sample_weight=None,
    per_query=False,
    **conventions,
):
    """ERR@k: expected reciprocal rank of a cascade user.

    sum over ranks i <= k of rho_i / i times the probability prod_{j<i} (1 - rho_j) that the
    user read on to i, rho(g) = (2**g - 1) / 2**max_grade the probability that a grade-g
    item satisfies. Under ``ties="average"`` the exact expected value over orderings of tied
    scores (a normalised recursion of elementary symmetric means, derived in
    ``sklearn_rank/metrics/_cascade.py``).

    Parameters
    ----------
    {y_true}
    {y_score}
    {k}
    {max_grade}
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
    rbp_score, ndcg_score

    References
    ----------
    .. [1] O. Chapelle, D. Metzler, Y. Zhang and P. Grinspan, "Expected Reciprocal Rank for
       Graded Relevance", CIKM 2009.

    Examples
    --------
    >>> from sklearn_rank import ItemJudgments, ItemRanking, err_score
    >>> truth = ItemJudgments(["q"] * 4, ["a", "b", "c", "d"], [1, 0, 2, 0])
    >>> run = ItemRanking(["q"] * 4, ["b", "a", "e", "c"], [0.9, 0.8, 0.7, 0.6])
    >>> err_score(truth, run, k=4, max_grade=2)
    0.265625
    >>> err_score([[2, 0, 1]], [[0.5, 0.5, 0.1]], max_grade=2)
    0.5833333333333334
    """
    return _score(
        "err",
        y_true,
        y_score,
        k=k,
        max_grade=max_grade,
        groups=groups,
        exclude=exclude,
        sample_weight=sample_weight,
        per_query=per_query,
        **conventions,
    )


@_with_conventions("rbp")
@_fill_doc
def rbp_score(
    y_true,
    y_score,
    *,
    k=None,
    p=0.8,
    gains="binary",
    groups=None,
    exclude=None,
    sample_weight=None,
    per_query=False,
    **conventions,
):
    """RBP@k: rank-biased precision of a user who reads on with probability p.

    (1 - p) sum over ranks i <= k of rel_i p**(i - 1), rel_i = 1 for a relevant item (binary,
    as ir_measures' ``RBP(rel=r, p=p)``). Linear in position: exact under tied scores. See
    `rbp_residual` for the weight of what is unjudged.

    Parameters
    ----------
    {y_true}
    {y_score}
    {k}
    {p}
    {gains}
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
    rbp_residual, err_score

    References
    ----------
    .. [1] A. Moffat and J. Zobel, "Rank-Biased Precision for Measurement of Retrieval
       Effectiveness", ACM TOIS 27(1), 2008.

    Examples
    --------
    >>> from sklearn_rank import ItemJudgments, ItemRanking, rbp_score
    >>> truth = ItemJudgments(["q"] * 4, ["a", "b", "c", "d"], [1, 0, 2, 0])
    >>> run = ItemRanking(["q"] * 4, ["b", "a", "e", "c"], [0.9, 0.8, 0.7, 0.6])
    >>> rbp_score(truth, run, p=0.5)
    0.3125
    """
    return _score(
        "rbp",
        y_true,
        y_score,
        k=k,
        p=p,
        gains=gains,
        groups=groups,
        exclude=exclude,
        sample_weight=sample_weight,
        per_query=per_query,
        **conventions,
    )


@_with_conventions("rbp_residual")
@_fill_doc
def rbp_residual(
    y_true,
    y_score,
    *,
    k=None,
    p=0.8,
    groups=None,
    exclude=None,
    sample_weight=None,
    per_query=False,
    **conventions,
):
    """RBP's residual: how much RBP@k could still grow.

    (1 - p) sum of p**(i - 1) over the unjudged ranks i <= d, plus p**d for the ranks below
    d = min(k, N): the true RBP lies in [RBP, RBP + residual] (Moffat and Zobel). Unlike
    trec_eval's ``rbp_resid`` it keeps p**d when no unjudged item is retrieved.

    Parameters
    ----------
    {y_true}
    {y_score}
    {k}
    {p}
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
    rbp_score

    References
    ----------
    .. [1] A. Moffat and J. Zobel, "Rank-Biased Precision for Measurement of Retrieval
       Effectiveness", ACM TOIS 27(1), 2008.

    Examples
    --------
    >>> from sklearn_rank import ItemJudgments, ItemRanking, rbp_residual
    >>> truth = ItemJudgments(["q"] * 4, ["a", "b", "c", "d"], [1, 0, 2, 0])
    >>> run = ItemRanking(["q"] * 4, ["b", "a", "e", "c"], [0.9, 0.8, 0.7, 0.6])
    >>> rbp_residual(truth, run, p=0.5)
    0.1875
    >>> rbp_residual(truth, run, k=2, p=0.5)
    0.25
    """
    return _score(
        "rbp_residual",
        y_true,
        y_score,
        k=k,
        p=p,
        groups=groups,
        exclude=exclude,
        sample_weight=sample_weight,
        per_query=per_query,
        **conventions,
    )
