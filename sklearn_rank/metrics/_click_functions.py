"""Public functions of the click-log (IPS) estimators.

Each is a thin, documented entry point into `_evaluate._score`; the definitions live in
`_clicks.py` and `docs/clicks.md`.
"""

import numpy as np

from ..conventions import _fill_doc
from ._evaluate import _score
from ._signatures import _with_conventions


@_with_conventions("ips_dcg")
@_fill_doc
def ips_dcg_score(
    y_true,
    y_score,
    *,
    k=None,
    propensity=None,
    position=None,
    eta=None,
    max_weight=None,
    normalize="none",
    eps_plus=1.0,
    eps_minus=0.0,
    groups=None,
    exclude=None,
    sample_weight=None,
    per_query=False,
    **conventions,
):
    """IPS DCG@k: the DCG of a new ranking estimated from logged clicks.

    sum over clicked items d of 1 / log2(rank(d) + 1) / theta(d), rank(d) the item's
    position in the new ranking (inside the top k) and theta(d) its examination propensity
    under the logging ranker. Unbiased for the DCG@k of the binary relevance when clicks
    fall exactly on examined relevant items and every relevant item had theta > 0
    (docs/clicks.md). Values may exceed any DCG (a weight 1 / theta can be large).

    Parameters
    ----------
    y_true : array-like of shape (n_queries, n_items), or (n_rows,) with groups
        The logged clicks: 1 where the logged item was clicked, 0 elsewhere.
    {y_score}
    {k}
    {propensity}
    {position}
    {eta}
    {max_weight}
    {normalize}
    {eps_plus}
    {eps_minus}
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
    ips_precision_score, ips_hits_score, ips_rank_sum, dcg_score

    References
    ----------
    .. [1] T. Joachims, A. Swaminathan and T. Schnabel, "Unbiased Learning-to-Rank with
       Biased Feedback", WSDM 2017.
    .. [2] L. Yang, Y. Cui, Y. Xuan, C. Wang, S. Belongie and D. Estrin, "Unbiased Offline
       Recommender Evaluation for Missing-Not-At-Random Implicit Feedback", RecSys 2018.

    Examples
    --------
    >>> from sklearn_rank import ips_dcg_score

    One logged query: items a, b, c displayed in that order, examined with probability
    1, 1/2, 1/3 (``eta=1``), b and c clicked; the new ranking puts c, a, b.

    >>> clicks = [[0, 1, 1]]
    >>> new_scores = [[2.0, 1.0, 3.0]]
    >>> float(ips_dcg_score(clicks, new_scores, k=2, position=[[1, 2, 3]], eta=1.0))
    3.0
    >>> float(ips_dcg_score(clicks, new_scores, propensity=[[1.0, 0.5, 1 / 3]]))
    4.0
    >>> float(ips_dcg_score(clicks, new_scores, position=[[1, 2, 3]], eta=1.0, max_weight=2))
    3.0
    """
    return _score(
        "ips_dcg",
        y_true,
        y_score,
        k=k,
        groups=groups,
        exclude=exclude,
        sample_weight=sample_weight,
        per_query=per_query,
        side={"propensity": propensity, "position": position},
        eta=eta,
        max_weight=max_weight,
        normalize=normalize,
        eps_plus=eps_plus,
        eps_minus=eps_minus,
        **conventions,
    )


@_with_conventions("ips_precision")
@_fill_doc
def ips_precision_score(
    y_true,
    y_score,
    *,
    k=None,
    propensity=None,
    position=None,
    eta=None,
    max_weight=None,
    normalize="none",
    eps_plus=1.0,
    eps_minus=0.0,
    groups=None,
    exclude=None,
    sample_weight=None,
    per_query=False,
    **conventions,
):
    """IPS Precision@k: the precision of a new ranking estimated from logged clicks.

    sum over clicked items d in the top k of the new ranking of 1 / theta(d), divided by
    k (by the number of candidates without k); theta(d) is the item's examination
    propensity under the logging ranker. Unbiased under the conditions of
    `ips_dcg_score`; values may exceed 1.

    Parameters
    ----------
    y_true : array-like of shape (n_queries, n_items), or (n_rows,) with groups
        The logged clicks: 1 where the logged item was clicked, 0 elsewhere.
    {y_score}
    {k}
    {propensity}
    {position}
    {eta}
    {max_weight}
    {normalize}
    {eps_plus}
    {eps_minus}
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
    ips_dcg_score, ips_hits_score, precision_at_k_score

    References
    ----------
    .. [1] T. Joachims, A. Swaminathan and T. Schnabel, "Unbiased Learning-to-Rank with
       Biased Feedback", WSDM 2017.
    .. [2] L. Yang, Y. Cui, Y. Xuan, C. Wang, S. Belongie and D. Estrin, "Unbiased Offline
       Recommender Evaluation for Missing-Not-At-Random Implicit Feedback", RecSys 2018.

    Examples
    --------
    >>> from sklearn_rank import ips_precision_score

    One logged query: items a, b, c displayed in that order, examined with probability
    1, 1/2, 1/3 (``eta=1``), b and c clicked; the new ranking puts c, a, b.

    >>> clicks = [[0, 1, 1]]
    >>> new_scores = [[2.0, 1.0, 3.0]]
    >>> float(ips_precision_score(clicks, new_scores, k=2, position=[[1, 2, 3]], eta=1.0))
    1.5
    """
    return _score(
        "ips_precision",
        y_true,
        y_score,
        k=k,
        groups=groups,
        exclude=exclude,
        sample_weight=sample_weight,
        per_query=per_query,
        side={"propensity": propensity, "position": position},
        eta=eta,
        max_weight=max_weight,
        normalize=normalize,
        eps_plus=eps_plus,
        eps_minus=eps_minus,
        **conventions,
    )


@_with_conventions("ips_hits")
@_fill_doc
def ips_hits_score(
    y_true,
    y_score,
    *,
    k=None,
    propensity=None,
    position=None,
    eta=None,
    max_weight=None,
    normalize="none",
    eps_plus=1.0,
    eps_minus=0.0,
    groups=None,
    exclude=None,
    sample_weight=None,
    per_query=False,
    **conventions,
):
    """IPS hits@k: the number of relevant items in the top k, estimated from clicks.

    sum over clicked items d in the top k of the new ranking of 1 / theta(d). Without k it
    estimates the query's number of relevant items; ``normalize="per_query"`` divides by
    that estimate (a self-normalised recall@k, biased). The pooled recall@k, consistent,
    is the mean of ``ips_hits@k`` over the mean of ``ips_hits`` (docs/clicks.md).

    Parameters
    ----------
    y_true : array-like of shape (n_queries, n_items), or (n_rows,) with groups
        The logged clicks: 1 where the logged item was clicked, 0 elsewhere.
    {y_score}
    {k}
    {propensity}
    {position}
    {eta}
    {max_weight}
    {normalize}
    {eps_plus}
    {eps_minus}
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
    ips_dcg_score, ips_precision_score, recall_at_k_score

    References
    ----------
    .. [1] T. Joachims, A. Swaminathan and T. Schnabel, "Unbiased Learning-to-Rank with
       Biased Feedback", WSDM 2017.
    .. [2] L. Yang, Y. Cui, Y. Xuan, C. Wang, S. Belongie and D. Estrin, "Unbiased Offline
       Recommender Evaluation for Missing-Not-At-Random Implicit Feedback", RecSys 2018.

    Examples
    --------
    >>> from sklearn_rank import ips_hits_score

    One logged query: items a, b, c displayed in that order, examined with probability
    1, 1/2, 1/3 (``eta=1``), b and c clicked; the new ranking puts c, a, b.

    >>> clicks = [[0, 1, 1]]
    >>> new_scores = [[2.0, 1.0, 3.0]]
    >>> float(ips_hits_score(clicks, new_scores, k=2, position=[[1, 2, 3]], eta=1.0))
    3.0
    >>> float(ips_hits_score(clicks, new_scores, position=[[1, 2, 3]], eta=1.0))
    5.0
    >>> float(ips_hits_score(clicks, new_scores, k=2, position=[[1, 2, 3]], eta=1.0,
    ...                      normalize="per_query"))
    0.6
    """
    return _score(
        "ips_hits",
        y_true,
        y_score,
        k=k,
        groups=groups,
        exclude=exclude,
        sample_weight=sample_weight,
        per_query=per_query,
        side={"propensity": propensity, "position": position},
        eta=eta,
        max_weight=max_weight,
        normalize=normalize,
        eps_plus=eps_plus,
        eps_minus=eps_minus,
        **conventions,
    )


@_with_conventions("ips_rank_sum")
@_fill_doc
def ips_rank_sum(
    y_true,
    y_score,
    *,
    propensity=None,
    position=None,
    eta=None,
    max_weight=None,
    normalize="none",
    eps_plus=1.0,
    eps_minus=0.0,
    groups=None,
    exclude=None,
    sample_weight=None,
    per_query=False,
    **conventions,
):
    """IPS rank sum: the sum of the relevant items' positions, estimated from clicks.

    sum over clicked items d of rank(d) / theta(d), rank(d) the 1-based position of d in
    the new ranking (Joachims et al.'s rank metric; lower is better). Divided by the
    estimated number of relevant items with ``normalize="per_query"`` (an average rank,
    biased).

    Parameters
    ----------
    y_true : array-like of shape (n_queries, n_items), or (n_rows,) with groups
        The logged clicks: 1 where the logged item was clicked, 0 elsewhere.
    {y_score}
    {propensity}
    {position}
    {eta}
    {max_weight}
    {normalize}
    {eps_plus}
    {eps_minus}
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
    ips_dcg_score, average_relative_position

    References
    ----------
    .. [1] T. Joachims, A. Swaminathan and T. Schnabel, "Unbiased Learning-to-Rank with
       Biased Feedback", WSDM 2017.
    .. [2] L. Yang, Y. Cui, Y. Xuan, C. Wang, S. Belongie and D. Estrin, "Unbiased Offline
       Recommender Evaluation for Missing-Not-At-Random Implicit Feedback", RecSys 2018.

    Examples
    --------
    >>> from sklearn_rank import ips_rank_sum

    One logged query: items a, b, c displayed in that order, examined with probability
    1, 1/2, 1/3 (``eta=1``), b and c clicked; the new ranking puts c, a, b.

    >>> clicks = [[0, 1, 1]]
    >>> new_scores = [[2.0, 1.0, 3.0]]
    >>> float(ips_rank_sum(clicks, new_scores, position=[[1, 2, 3]], eta=1.0))
    9.0
    """
    return _score(
        "ips_rank_sum",
        y_true,
        y_score,
        k=None,
        groups=groups,
        exclude=exclude,
        sample_weight=sample_weight,
        per_query=per_query,
        side={"propensity": propensity, "position": position},
        eta=eta,
        max_weight=max_weight,
        normalize=normalize,
        eps_plus=eps_plus,
        eps_minus=eps_minus,
        **conventions,
    )


def popularity_propensity(item_counts, popularity_exponent):
    """Propensities of items from their popularity (Yang et al., RecSys 2018).

    ``p_i = (N_i / max N) ** ((gamma + 1) / 2)``, N_i the item's count of training
    interactions and gamma the ``popularity_exponent``: popular items were more likely to be
    observed, so their test interactions weigh less. The scale cancels in the self-normalised
    estimators (``normalize="per_query"``): ``ips_hits(normalize="per_query")@K`` with these
    propensities is Yang et al.'s SNIPS recall@K, ``ips_dcg(normalize="per_query")@K`` their
    DCG@K. Items never seen in training (N_i = 0) get 0, and their test interactions must
    be left out of ``y_true`` (their propensity is undefined; Yang et al. skip them).

    Parameters
    ----------
    item_counts : array-like of shape (n_items,)
        N_i, non-negative.
    popularity_exponent : float
        gamma, fitted on the data (1.55 to 1.89 for citeulike in Yang et al.); -1 gives
        every seen item propensity 1, the plain average over the test interactions.

    Returns
    -------
    propensity : ndarray of shape (n_items,)
        p_i in [0, 1], for ``propensity=`` (one per column of a matrix).

    References
    ----------
    .. [1] L. Yang, Y. Cui, Y. Xuan, C. Wang, S. Belongie and D. Estrin, "Unbiased Offline
       Recommender Evaluation for Missing-Not-At-Random Implicit Feedback", RecSys 2018.

    Examples
    --------
    >>> from sklearn_rank import popularity_propensity
    >>> popularity_propensity([100, 25, 0], popularity_exponent=1.0)
    array([1.  , 0.25, 0.  ])
    """
    counts = np.asarray(item_counts, dtype=np.float64)
    if counts.ndim != 1 or not np.all(np.isfinite(counts)) or (counts < 0).any():
        raise ValueError(
            "item_counts must be a 1-D array of non-negative counts; got "
            f"{np.asarray(item_counts)!r}."
        )
    gamma = popularity_exponent
    if isinstance(gamma, bool) or not isinstance(gamma, (int, float, np.number)):
        raise ValueError(f"popularity_exponent must be a number; got {gamma!r}.")
    if not np.isfinite(gamma) or gamma < -1:
        raise ValueError(f"popularity_exponent must be a finite number >= -1; got {gamma!r}.")
    largest = counts.max(initial=0.0)
    if largest == 0:
        return np.zeros(counts.shape)
    seen = counts > 0
    propensity = np.zeros(counts.shape)
    propensity[seen] = (counts[seen] / largest) ** ((gamma + 1.0) / 2.0)
    return propensity
