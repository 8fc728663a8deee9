"""Public metric functions of binary relevance (an item is relevant or not): Precision@k,
Recall@k, F1@k, hit rate, MRR, MAP, ranking AUC and ARP.

Each is a thin, documented entry point into `_evaluate._score`; the definitions live in
`_reductions.py` and `docs/metrics.md`.
"""

from ..conventions import _fill_doc
from ._evaluate import _score
from ._signatures import _with_conventions


@_with_conventions("precision")
@_fill_doc
def precision_at_k_score(
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
    """Precision@k: the share of the top k items that are relevant, averaged over queries.

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
    recall_at_k_score, f1_at_k_score, evaluate

    References
    ----------
    .. [1] C. D. Manning, P. Raghavan and H. Schuetze, "Introduction to Information
       Retrieval", Cambridge University Press, 2008, chapter 8.

    Examples
    --------
    >>> from sklearn_rank import precision_at_k_score
    >>> precision_at_k_score([{1, 2, 4}], [[1, 3, 2, 6]], k=4)
    0.5
    >>> precision_at_k_score([[1, 0, 1, 0]], [[0.9, 0.5, 0.5, 0.1]], k=2)
    0.75
    >>> precision_at_k_score([[1, 0, 1, 0]], [[0.9, 0.5, 0.5, 0.1]], k=2, ties="stable")
    0.5
    """
    return _score(
        "precision",
        y_true,
        y_score,
        k=k,
        groups=groups,
        exclude=exclude,
        sample_weight=sample_weight,
        per_query=per_query,
        **conventions,
    )


@_with_conventions("recall")
@_fill_doc
def recall_at_k_score(
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
    """Recall@k: the share of a query's relevant items found in its top k.

    Relevant items that were never scored count in the denominator.

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
    precision_at_k_score, f1_at_k_score

    References
    ----------
    .. [1] C. D. Manning, P. Raghavan and H. Schuetze, "Introduction to Information
       Retrieval", Cambridge University Press, 2008, chapter 8.

    Examples
    --------
    >>> from sklearn_rank import recall_at_k_score
    >>> recall_at_k_score([{1, 2, 4}], [[1, 3, 2, 6]], k=4)
    0.6666666666666666
    >>> recall_at_k_score([0, 1, 1, 1], [0.3, 0.9, 0.2, 0.1], k=1,
    ...                   groups=["q1", "q1", "q2", "q2"], per_query=True)
    array([1. , 0.5])
    """
    return _score(
        "recall",
        y_true,
        y_score,
        k=k,
        groups=groups,
        exclude=exclude,
        sample_weight=sample_weight,
        per_query=per_query,
        **conventions,
    )


@_with_conventions("f1")
@_fill_doc
def f1_at_k_score(
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
    """F1@k: per query the harmonic mean of Precision@k and Recall@k, then averaged.

    A query with no relevant item in its top k scores 0. The mean is of per-query F1
    values, not the F1 of mean precision and mean recall.

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
    precision_at_k_score, recall_at_k_score

    References
    ----------
    .. [1] C. J. van Rijsbergen, "Information Retrieval", 2nd ed., Butterworths, 1979.

    Examples
    --------
    >>> from sklearn_rank import f1_at_k_score
    >>> round(f1_at_k_score([{1, 2, 4}], [[1, 3, 2, 6]], k=4), 6)
    0.571429
    """
    return _score(
        "f1",
        y_true,
        y_score,
        k=k,
        groups=groups,
        exclude=exclude,
        sample_weight=sample_weight,
        per_query=per_query,
        **conventions,
    )


@_with_conventions("hit_rate")
@_fill_doc
def hit_rate_score(
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
    """Hit rate@k (1-call@k, success@k): 1 if the top k holds a relevant item, else 0.

    With ``ties="average"`` it is the probability of a hit over orderings of tied items.

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
    mean_reciprocal_rank_score

    References
    ----------
    .. [1] H. Chen and D. R. Karger, "Less is More: Probabilistic Models for Retrieving
       Fewer Relevant Documents", SIGIR 2006 (k-call).

    Examples
    --------
    >>> from sklearn_rank import hit_rate_score
    >>> hit_rate_score([[0, 1, 0], [1, 0, 0]], [[0.9, 0.8, 0.7], [0.1, 0.9, 0.8]], k=1)
    0.0
    >>> hit_rate_score([[0, 1, 0], [1, 0, 0]], [[0.9, 0.8, 0.7], [0.1, 0.9, 0.8]], k=2)
    0.5
    """
    return _score(
        "hit_rate",
        y_true,
        y_score,
        k=k,
        groups=groups,
        exclude=exclude,
        sample_weight=sample_weight,
        per_query=per_query,
        **conventions,
    )


@_with_conventions("mrr")
@_fill_doc
def mean_reciprocal_rank_score(
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
    """Mean reciprocal rank: 1 / rank of the first relevant item (0 if not in the top k).

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
    hit_rate_score, mean_average_precision_score

    References
    ----------
    .. [1] E. M. Voorhees, "The TREC-8 Question Answering Track Report", TREC 1999.

    Examples
    --------
    >>> from sklearn_rank import mean_reciprocal_rank_score
    >>> mean_reciprocal_rank_score([[0, 0, 1], [0, 1, 0]], [[0.9, 0.8, 0.7], [0.9, 0.8, 0.7]])
    0.41666666666666663
    >>> round(mean_reciprocal_rank_score([[0, 0, 1]], [[0.5, 0.5, 0.5]]), 6)  # E[1/rank]
    0.611111
    """
    return _score(
        "mrr",
        y_true,
        y_score,
        k=k,
        groups=groups,
        exclude=exclude,
        sample_weight=sample_weight,
        per_query=per_query,
        **conventions,
    )


@_with_conventions("map")
@_fill_doc
def mean_average_precision_score(
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
    """Mean average precision (MAP, AP@k): mean precision at the ranks of relevant items.

    Per query, the sum of Precision@rank over relevant items ranked in the top k, divided
    by ``ap_denominator``. Not the same as `sklearn.metrics.average_precision_score`, which
    scores one binary classification problem.

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
    mean_reciprocal_rank_score, ndcg_score

    References
    ----------
    .. [1] C. D. Manning, P. Raghavan and H. Schuetze, "Introduction to Information
       Retrieval", Cambridge University Press, 2008, section 8.4.

    Examples
    --------
    >>> from sklearn_rank import mean_average_precision_score
    >>> y_true, y_score = [[1, 0, 1, 0, 1, 1]], [[6, 5, 4, 3, 2, 1]]
    >>> round(mean_average_precision_score(y_true, y_score, k=3), 4)
    0.4167
    >>> round(mean_average_precision_score(y_true, y_score, k=3, ap_denominator="min_k"), 4)
    0.5556
    >>> round(mean_average_precision_score(y_true, y_score), 4)
    0.7333
    """
    return _score(
        "map",
        y_true,
        y_score,
        k=k,
        groups=groups,
        exclude=exclude,
        sample_weight=sample_weight,
        per_query=per_query,
        **conventions,
    )


@_with_conventions("auc")
@_fill_doc
def ranking_auc_score(
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
    """Ranking AUC: the share of (relevant, non-relevant) pairs ranked in the right order.

    Pairs are formed among the scored candidates of each query; pairs of tied items count
    1/2. A query with relevant items but no pair scores 0.5.

    Parameters
    ----------
    {y_true}
    {y_score}
    {k_auc}
    {groups}
    {exclude}
    {sample_weight}
    {conventions}
    {per_query}

    Returns
    -------
    {returns}

    References
    ----------
    .. [1] Apache Hivemall, "Ranking Measures" (AUC of a top-k list).
    .. [2] W. Pan, "Ranking-Oriented Evaluation Metrics" (lecture notes).

    Examples
    --------
    >>> from sklearn_rank import ranking_auc_score
    >>> ranking_auc_score([{1, 2, 4}], [[1, 3, 2, 6]], k=4)
    0.75
    >>> ranking_auc_score([[1, 0, 1, 0]], [[0.9, 0.8, 0.8, 0.1]])
    0.875
    """
    return _score(
        "auc",
        y_true,
        y_score,
        k=k,
        groups=groups,
        exclude=exclude,
        sample_weight=sample_weight,
        per_query=per_query,
        **conventions,
    )


@_with_conventions("arp")
@_fill_doc
def average_relative_position(
    y_true,
    y_score,
    *,
    groups=None,
    exclude=None,
    sample_weight=None,
    per_query=False,
    **conventions,
):
    """Average relative position (ARP): where the relevant items sit, lower is better.

    Per query, the mean over relevant candidates of position / number of candidates: the
    metric ``arp`` of `evaluate`, Hivemall's average relative position. Not the "average
    recommendation popularity" (also ARP) of recommender papers, which measures how popular
    the recommended items are. Lower is better, so the name has no ``_score``.

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

    References
    ----------
    .. [1] W. Pan, "Ranking-Oriented Evaluation Metrics" (lecture notes): relative
       position RP and its average ARP.

    Examples
    --------
    >>> from sklearn_rank import average_relative_position
    >>> average_relative_position([[1, 0, 1, 0]], [[4, 3, 2, 1]])
    0.5
    """
    return _score(
        "arp",
        y_true,
        y_score,
        groups=groups,
        exclude=exclude,
        sample_weight=sample_weight,
        per_query=per_query,
        **conventions,
    )
