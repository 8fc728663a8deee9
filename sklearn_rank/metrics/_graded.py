"""Public metric functions of graded relevance (gains): CG, DCG, NDCG and Kendall tau.

Each is a thin, documented entry point into `_evaluate._score`; the definitions live in
`_reductions.py` and `docs/metrics.md`.
"""

from ..conventions import _fill_doc
from ._evaluate import _score


@_fill_doc
def cg_score(
    y_true,
    y_score,
    *,
    k=None,
    groups=None,
    exclude=None,
    sample_weight=None,
    ties="average",
    gain="linear",
    no_relevant=0.0,
    per_query=False,
):
    """Cumulative gain CG@k: the sum of the gains of the top k items.

    Parameters
    ----------
    {y_true}
    {y_score}
    {k}
    {groups}
    {exclude}
    {sample_weight}
    {ties}
    {gain}
    {no_relevant}
    {per_query}

    Returns
    -------
    {returns}

    See Also
    --------
    dcg_score, ndcg_score

    References
    ----------
    .. [1] K. Jarvelin and J. Kekalainen, "Cumulated gain-based evaluation of IR
       techniques", ACM TOIS 20(4), 2002.

    Examples
    --------
    >>> from sklearn_rank import cg_score
    >>> cg_score([[3, 2, 0, 1]], [[4, 3, 2, 1]], k=2)
    5.0
    >>> cg_score([[3, 2, 0, 1]], [[4, 3, 2, 1]], k=2, gain="exponential")
    10.0
    """
    return _score(
        "cg",
        y_true,
        y_score,
        k=k,
        groups=groups,
        exclude=exclude,
        sample_weight=sample_weight,
        ties=ties,
        gain=gain,
        no_relevant=no_relevant,
        per_query=per_query,
    )


@_fill_doc
def dcg_score(
    y_true,
    y_score,
    *,
    k=None,
    groups=None,
    exclude=None,
    sample_weight=None,
    ties="average",
    gain="linear",
    log_base=2,
    no_relevant=0.0,
    per_query=False,
):
    """Discounted cumulative gain DCG@k: sum of gain / log(position + 1) over the top k.

    With default parameters this equals `sklearn.metrics.dcg_score`.

    Parameters
    ----------
    {y_true}
    {y_score}
    {k}
    {groups}
    {exclude}
    {sample_weight}
    {ties}
    {gain}
    {log_base}
    {no_relevant}
    {per_query}

    Returns
    -------
    {returns}

    See Also
    --------
    ndcg_score, cg_score

    References
    ----------
    .. [1] K. Jarvelin and J. Kekalainen, "Cumulated gain-based evaluation of IR
       techniques", ACM TOIS 20(4), 2002.
    .. [2] F. McSherry and M. Najork, "Computing Information Retrieval Performance
       Measures Efficiently in the Presence of Tied Scores", ECIR 2008.

    Examples
    --------
    >>> from sklearn_rank import dcg_score
    >>> round(dcg_score([[3, 2, 0, 1]], [[4, 3, 2, 1]], k=2), 4)
    4.2619
    >>> round(dcg_score([[1, 0]], [[0.5, 0.5]]), 4)  # tied: the expected value
    0.8155
    """
    return _score(
        "dcg",
        y_true,
        y_score,
        k=k,
        groups=groups,
        exclude=exclude,
        sample_weight=sample_weight,
        ties=ties,
        gain=gain,
        log_base=log_base,
        no_relevant=no_relevant,
        per_query=per_query,
    )


@_fill_doc
def ndcg_score(
    y_true,
    y_score,
    *,
    k=None,
    groups=None,
    exclude=None,
    sample_weight=None,
    ties="average",
    gain="linear",
    no_relevant=0.0,
    per_query=False,
):
    """Normalized DCG@k: DCG@k divided by the DCG@k of the ideal ordering.

    The ideal ordering sorts all judged items by relevance, including relevant items that
    were never scored (list input). With default parameters this equals
    `sklearn.metrics.ndcg_score`.

    Parameters
    ----------
    {y_true}
    {y_score}
    {k}
    {groups}
    {exclude}
    {sample_weight}
    {ties}
    {gain}
    {no_relevant}
    {per_query}

    Returns
    -------
    {returns}

    See Also
    --------
    dcg_score

    References
    ----------
    .. [1] K. Jarvelin and J. Kekalainen, "Cumulated gain-based evaluation of IR
       techniques", ACM TOIS 20(4), 2002.
    .. [2] C. Burges et al., "Learning to Rank using Gradient Descent", ICML 2005
       (exponential gain).

    Examples
    --------
    >>> from sklearn_rank import ndcg_score
    >>> round(ndcg_score([[3, 2, 0, 1]], [[3, 4, 1, 2]], k=2), 4)
    0.9134
    >>> round(ndcg_score([[3, 2, 0, 1]], [[3, 4, 1, 2]], k=2, gain="exponential"), 4)
    0.834
    >>> round(ndcg_score([[0, 0, 1, 1]], [[1, 1, 1, 1]], k=2), 4)
    0.5
    """
    return _score(
        "ndcg",
        y_true,
        y_score,
        k=k,
        groups=groups,
        exclude=exclude,
        sample_weight=sample_weight,
        ties=ties,
        gain=gain,
        no_relevant=no_relevant,
        per_query=per_query,
    )


@_fill_doc
def kendall_tau_score(
    y_true,
    y_score,
    *,
    groups=None,
    exclude=None,
    sample_weight=None,
    ties="average",
    no_relevant=0.0,
    per_query=False,
):
    """Kendall tau-b rank correlation between the scores and the relevance, per query.

    With no tied scores this is `scipy.stats.kendalltau`. With tied scores,
    ``ties="average"`` gives the expected tau-b over orderings of the tied items (pairs
    tied in score count 0 in the numerator, but the ranking has no ties in the
    denominator), and ``ties="stable"`` breaks them by input order. A query with fewer
    than two candidates, or whose candidates all have equal relevance, scores 0.

    Parameters
    ----------
    {y_true}
        Negative relevance is accepted here.
    {y_score}
    {groups}
    {exclude}
    {sample_weight}
    {ties}
    {no_relevant}
    {per_query}

    Returns
    -------
    {returns}

    References
    ----------
    .. [1] M. G. Kendall, "The treatment of ties in ranking problems", Biometrika 33(3),
       1945.

    Examples
    --------
    >>> from sklearn_rank import kendall_tau_score
    >>> kendall_tau_score([[3, 2, 1, 0]], [[0.9, 0.7, 0.8, 0.1]])
    0.6666666666666666
    """
    return _score(
        "kendall_tau",
        y_true,
        y_score,
        groups=groups,
        exclude=exclude,
        sample_weight=sample_weight,
        ties=ties,
        no_relevant=no_relevant,
        per_query=per_query,
    )
