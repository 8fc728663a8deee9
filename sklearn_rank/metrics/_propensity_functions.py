"""Public functions of the propensity-scored metrics PSP@k and PSnDCG@k.

Each is a thin, documented entry point into `_evaluate._score`; the definitions live in
`_propensity_scored.py` and `docs/clicks.md`.
"""

from ..conventions import _fill_doc
from ._evaluate import _score
from ._signatures import _with_conventions


@_with_conventions("psp")
@_fill_doc
def psp_score(
    y_true,
    y_score,
    *,
    k=None,
    propensity=None,
    ps_normalize="ratio_of_means",
    ideal_mean=None,
    groups=None,
    exclude=None,
    sample_weight=None,
    per_query=False,
    **conventions,
):
    """PSP@k: propensity-scored precision of extreme multi-label ranking.

    Per instance ``(1/k) sum over the top k of y_l / p_l``: a relevant label l is weighted by
    its inverse propensity, so rare labels count more. By default divided as pyxclib does:
    the mean over instances over the mean of the propensity-ideal ranking's value (each
    instance's relevant labels sorted by decreasing ``1 / p``). With ``per_query=True`` the
    values are each instance's over that mean. Tied scores are averaged over their
    orderings (pyxclib breaks ties in an unspecified order).

    Parameters
    ----------
    y_true : array-like of shape (n_instances, n_labels), or (n_rows,) with groups
        Binary labels: 1 where the label is relevant to the instance.
    {y_score}
    k : int
        The cut-off (required).
    {propensity}
    {ps_normalize}
    {ideal_mean}
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
    psndcg_score, jain_propensity, precision_at_k_score

    References
    ----------
    .. [1] H. Jain, Y. Prabhu and M. Varma, "Extreme Multi-label Loss Functions for
       Recommendation, Tagging, Ranking & Other Missing Label Applications", KDD 2016.

    Examples
    --------
    >>> from sklearn_rank import jain_propensity, psp_score
    >>> propensity = jain_propensity([400, 20, 1], n_train=1000)  # training label counts
    >>> y_true = [[0, 1, 1]]
    >>> y_score = [[0.9, 0.5, 0.1]]
    >>> [round(float(psp_score(y_true, y_score, k=k, propensity=propensity)), 6)
    ...  for k in (1, 2, 3)]
    [0.0, 0.289091, 1.0]
    >>> round(float(psp_score(y_true, y_score, k=2, propensity=propensity,
    ...                       ps_normalize="none")), 6)
    1.40452
    """
    return _score(
        "psp",
        y_true,
        y_score,
        k=k,
        groups=groups,
        exclude=exclude,
        sample_weight=sample_weight,
        per_query=per_query,
        side={"propensity": propensity},
        ps_normalize=ps_normalize,
        ideal_mean=ideal_mean,
        **conventions,
    )


@_with_conventions("psndcg")
@_fill_doc
def psndcg_score(
    y_true,
    y_score,
    *,
    k=None,
    propensity=None,
    ps_normalize="ratio_of_means",
    ideal_mean=None,
    groups=None,
    exclude=None,
    sample_weight=None,
    per_query=False,
    **conventions,
):
    """PSnDCG@k: propensity-scored nDCG of extreme multi-label ranking.

    Per instance ``sum over ranks r <= k of y_(r) / (p_(r) log2(r + 1))`` divided by the
    binary ideal DCG of ``min(k, n)`` relevant labels, n the instance's relevant labels. By
    default divided as pyxclib does: the mean over instances over the mean of the
    propensity-ideal ranking's value. Tied scores are averaged over their orderings.

    Parameters
    ----------
    y_true : array-like of shape (n_instances, n_labels), or (n_rows,) with groups
        Binary labels: 1 where the label is relevant to the instance.
    {y_score}
    k : int
        The cut-off (required).
    {propensity}
    {ps_normalize}
    {ideal_mean}
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
    psp_score, jain_propensity, ndcg_score

    References
    ----------
    .. [1] H. Jain, Y. Prabhu and M. Varma, "Extreme Multi-label Loss Functions for
       Recommendation, Tagging, Ranking & Other Missing Label Applications", KDD 2016.

    Examples
    --------
    >>> from sklearn_rank import jain_propensity, psndcg_score
    >>> propensity = jain_propensity([400, 20, 1], n_train=1000)
    >>> [round(float(psndcg_score([[0, 1, 1]], [[0.9, 0.5, 0.1]], k=k,
    ...                           propensity=propensity)), 6) for k in (1, 2, 3)]
    [0.0, 0.204181, 0.602091]
    """
    return _score(
        "psndcg",
        y_true,
        y_score,
        k=k,
        groups=groups,
        exclude=exclude,
        sample_weight=sample_weight,
        per_query=per_query,
        side={"propensity": propensity},
        ps_normalize=ps_normalize,
        ideal_mean=ideal_mean,
        **conventions,
    )
