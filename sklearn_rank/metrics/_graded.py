"""Public metric functions of graded relevance (gains): CG, DCG, NDCG and Kendall tau.

Each is a thin, documented entry point into `_evaluate._score`; the definitions live in
`_reductions.py` and `docs/metrics.md`.
"""

import textwrap

import numpy as np

from ..conventions import _fill_doc
from ..inputs._normalise import _is_list_form
from ..inputs._tables import ItemJudgments, ItemRanking
from ..utils._validation import _as_float_array, _check_finite, _is_bool
from ._evaluate import _score
from ._signatures import _with_conventions

_IGNORE_TIES_DOC = """\
ignore_ties : bool or None, default=None
    scikit-learn's parameter, so that code written for `sklearn.metrics.{name}` runs
    unchanged and gives its values. False is ``ties="average"``. True is
    ``ties="stable"`` with the tied items of each matrix row in the order scikit-learn
    leaves them: the reverse of numpy's default ``argsort`` of the row, an order numpy does
    not specify (it differs between numpy versions and CPUs). For a value that does not
    depend on it, use ``ties="stable"`` (ties keep the input order). For input other than
    matrices, True is ``ties="stable"``. None leaves the choice to ``ties``; ``ties`` or
    ``tie_break`` contradicting ``ignore_ties`` is a ValueError."""


def _document_ignore_ties(function):
    text = textwrap.indent(_IGNORE_TIES_DOC.format(name=function.__name__), "    ")
    function.__doc__ = function.__doc__.replace("    {ignore_ties}", text)
    return function


def _sklearn_ties(y_true, y_score, groups, ignore_ties, conventions):
    """scikit-learn's ``ignore_ties`` as ``ties``; for matrices with True, scores that
    rank every row in scikit-learn's order (``np.argsort(y_score)[:, ::-1]``, as its
    ``_dcg_sample_scores``), so that no tie is left for our sort to break differently."""
    if ignore_ties is None:
        return y_score, conventions
    if not _is_bool(ignore_ties):
        raise ValueError(f"ignore_ties must be True, False or None; got {ignore_ties!r}.")
    wanted = "stable" if ignore_ties else "average"
    ties = conventions.get("ties")
    if ties is not None and ties != wanted:
        raise ValueError(
            f"ignore_ties={bool(ignore_ties)} is scikit-learn's spelling of ties={wanted!r}; "
            f"got ties={ties!r} too. Pass one of them."
        )
    conventions = dict(conventions, ties=wanted)
    if not ignore_ties:
        return y_score, conventions
    if conventions.get("tie_break") is not None:
        raise ValueError(
            "ignore_ties=True breaks ties in scikit-learn's order; tie_break="
            f"{conventions['tie_break']!r} contradicts it. Pass ties='stable' with tie_break "
            "instead."
        )
    if (
        groups is not None
        or isinstance(y_score, ItemRanking)
        or isinstance(y_true, ItemJudgments)
        or _is_list_form(y_true)
    ):
        return y_score, conventions
    scores = _as_float_array("y_score", y_score, keep_numeric=True)  # scikit-learn's dtype
    if scores.ndim != 2:
        return y_score, conventions  # the normaliser says what is wrong
    _check_finite("y_score", scores)
    order = np.argsort(scores)[:, ::-1]
    n_queries, width = scores.shape
    strict = np.empty((n_queries, width))
    strict[np.arange(n_queries)[:, None], order] = np.arange(width, 0, -1, dtype=np.float64)
    return strict, conventions


@_with_conventions("cg")
@_fill_doc
def cg_score(
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
    """Cumulative gain CG@k: the sum of the gains of the top k items.

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
        per_query=per_query,
        **conventions,
    )


@_with_conventions("dcg")
@_fill_doc
@_document_ignore_ties
def dcg_score(
    y_true,
    y_score,
    *,
    k=None,
    groups=None,
    exclude=None,
    sample_weight=None,
    ignore_ties=None,
    per_query=False,
    **conventions,
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
    {ignore_ties}
    {conventions}
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
    y_score, conventions = _sklearn_ties(y_true, y_score, groups, ignore_ties, conventions)
    return _score(
        "dcg",
        y_true,
        y_score,
        k=k,
        groups=groups,
        exclude=exclude,
        sample_weight=sample_weight,
        per_query=per_query,
        **conventions,
    )


@_with_conventions("ndcg")
@_fill_doc
@_document_ignore_ties
def ndcg_score(
    y_true,
    y_score,
    *,
    k=None,
    groups=None,
    exclude=None,
    sample_weight=None,
    ignore_ties=None,
    per_query=False,
    **conventions,
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
    {ignore_ties}
    {conventions}
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
    y_score, conventions = _sklearn_ties(y_true, y_score, groups, ignore_ties, conventions)
    return _score(
        "ndcg",
        y_true,
        y_score,
        k=k,
        groups=groups,
        exclude=exclude,
        sample_weight=sample_weight,
        per_query=per_query,
        **conventions,
    )


@_with_conventions("kendall_tau")
@_fill_doc
def kendall_tau_score(
    y_true,
    y_score,
    *,
    groups=None,
    exclude=None,
    sample_weight=None,
    per_query=False,
    **conventions,
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
    {conventions}
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
        per_query=per_query,
        **conventions,
    )
