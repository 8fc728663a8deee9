"""Public functions of trec_eval's interpolated precision, bpref, infAP, and Judged@k and unj@k.

Each is a thin, documented entry point into `_evaluate._score`; the definitions live in
`_trec.py` and `docs/metrics.md`.
"""

import functools
import warnings

from ..conventions import _fill_doc
from ._evaluate import _score
from ._signatures import _with_conventions


@_with_conventions("iprec")
@_fill_doc
def interpolated_precision_score(
    y_true,
    y_score,
    *,
    recall=0.0,
    groups=None,
    exclude=None,
    sample_weight=None,
    per_query=False,
    **conventions,
):
    """Interpolated precision at a recall level.

    The best precision at or after the rank where the query reaches ``recall``: with c the
    number of relevant items that level asks for (see ``iprec_rounding``), 0 if fewer than c
    relevant items are retrieved, else max over m >= max(c, 1) of m / rank of the m-th
    relevant item. Under ``ties="average"`` the exact expected maximum over orderings of
    tied scores (derived in ``sklearn_rank/metrics/_trec.py``), whose cost grows as a**2 n**2
    for a tie group of n items, a of them relevant: a query that would need more than
    2**28 steps (equal scores on about 200 items, half of them relevant) raises a
    ValueError; pass ``ties="stable"`` there.

    Parameters
    ----------
    {y_true}
    {y_score}
    {recall}
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
    eleven_point_average_precision_score

    References
    ----------
    .. [1] C. D. Manning, P. Raghavan and H. Schuetze, "Introduction to Information Retrieval",
       chapter 8.4.
    .. [2] trec_eval 10.0, ``m_iprec_at_recall.c``.

    Examples
    --------
    >>> from sklearn_rank import ItemJudgments, ItemRanking, interpolated_precision_score
    >>> truth = ItemJudgments(["q"] * 4, ["a", "b", "c", "d"], [1, 0, 2, 0])
    >>> run = ItemRanking(["q"] * 4, ["b", "a", "e", "c"], [0.9, 0.8, 0.7, 0.6])
    >>> interpolated_precision_score(truth, run, recall=0.5)
    0.5
    >>> interpolated_precision_score([[1, 0, 1]], [[0.5, 0.5, 0.5]], recall=1.0)
    0.7777777777777778
    """
    return _score(
        "iprec",
        y_true,
        y_score,
        recall=recall,
        groups=groups,
        exclude=exclude,
        sample_weight=sample_weight,
        per_query=per_query,
        **conventions,
    )


@_with_conventions("iprec_avg")
@_fill_doc
def eleven_point_average_precision_score(
    y_true,
    y_score,
    *,
    levels=(0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0),
    groups=None,
    exclude=None,
    sample_weight=None,
    per_query=False,
    **conventions,
):
    """11-point interpolated average precision.

    The mean of `interpolated_precision_score` at recall 0, 0.1, ..., 1 (trec_eval's
    ``11pt_avg``), or at the recall ``levels`` given (``11pt_avg..25,.5,.75``), with its
    bound on the cost of exact tie averaging.

    Parameters
    ----------
    {y_true}
    {y_score}
    {levels}
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
    interpolated_precision_score

    References
    ----------
    .. [1] C. D. Manning, P. Raghavan and H. Schuetze, "Introduction to Information Retrieval",
       chapter 8.4.
    .. [2] trec_eval 10.0, ``m_11pt_avg.c``.

    Examples
    --------
    >>> from sklearn_rank import ItemJudgments, ItemRanking, eleven_point_average_precision_score
    >>> truth = ItemJudgments(["q"] * 4, ["a", "b", "c", "d"], [1, 0, 2, 0])
    >>> run = ItemRanking(["q"] * 4, ["b", "a", "e", "c"], [0.9, 0.8, 0.7, 0.6])
    >>> eleven_point_average_precision_score(truth, run)
    0.5
    >>> eleven_point_average_precision_score(truth, run, levels=(0.5, 1.0))
    0.5
    """
    return _score(
        "iprec_avg",
        y_true,
        y_score,
        levels=levels,
        groups=groups,
        exclude=exclude,
        sample_weight=sample_weight,
        per_query=per_query,
        **conventions,
    )


@_with_conventions("bpref")
@_fill_doc
def bpref_score(
    y_true,
    y_score,
    *,
    groups=None,
    exclude=None,
    sample_weight=None,
    per_query=False,
    **conventions,
):
    """bpref: how many judged non-relevant items each relevant item outranks.

    (1/R) sum over relevant retrieved items of 1 - min(n, R) / min(N_J, R), n the judged
    non-relevant items ranked above it, N_J the judged non-relevant items of the query
    (ranked or not). Unjudged items are ignored. Exact tie averaging: a relevant item of a
    tie group with b judged non-relevant items has 0..b of them above it, uniformly.

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
    inferred_average_precision_score, judged_at_k_score

    References
    ----------
    .. [1] C. Buckley and E. M. Voorhees, "Retrieval Evaluation with Incomplete Information",
       SIGIR 2004.
    .. [2] trec_eval 10.0, ``m_bpref.c``.

    Examples
    --------
    >>> from sklearn_rank import ItemJudgments, ItemRanking, bpref_score
    >>> truth = ItemJudgments(["q"] * 4, ["a", "b", "c", "d"], [1, 0, 2, 0])
    >>> run = ItemRanking(["q"] * 4, ["b", "a", "e", "c"], [0.9, 0.8, 0.7, 0.6])
    >>> bpref_score(truth, run)
    0.5
    """
    return _score(
        "bpref",
        y_true,
        y_score,
        groups=groups,
        exclude=exclude,
        sample_weight=sample_weight,
        per_query=per_query,
        **conventions,
    )


@_with_conventions("infap")
@_fill_doc
def inferred_average_precision_score(
    y_true,
    y_score,
    *,
    groups=None,
    exclude=None,
    sample_weight=None,
    per_query=False,
    **conventions,
):
    """infAP: average precision inferred from the judged items.

    trec_eval's infAP: for a relevant item at 0-based rank j with a relevant and b judged
    non-relevant items above, [1 + (a + b)(a + e) / (a + b + 2e)] / (j + 1), e = 1e-5, summed and
    divided by R; unjudged items only enlarge ranks. Exact tie averaging over where the
    item lands in its tie group and what lands above it, in O(n) memory and
    O(n sqrt(n)) time for a tie group of n items (O(n) when all are judged); a group of
    judged and unjudged items beyond about 50,000 raises a ValueError: pass
    ``ties="stable"`` there.

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
    .. [1] E. Yilmaz and J. A. Aslam, "Estimating Average Precision with Incomplete and
       Imperfect Judgments", CIKM 2006.
    .. [2] trec_eval 10.0, ``m_infap.c``.

    Examples
    --------
    >>> from sklearn_rank import ItemJudgments, ItemRanking, inferred_average_precision_score
    >>> truth = ItemJudgments(["q"] * 4, ["a", "b", "c", "d"], [1, 0, 2, 0])
    >>> run = ItemRanking(["q"] * 4, ["b", "a", "e", "c"], [0.9, 0.8, 0.7, 0.6])
    >>> round(inferred_average_precision_score(truth, run), 6)
    0.500002
    """
    return _score(
        "infap",
        y_true,
        y_score,
        groups=groups,
        exclude=exclude,
        sample_weight=sample_weight,
        per_query=per_query,
        **conventions,
    )


@_with_conventions("judged")
@_fill_doc
def judged_at_k_score(
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
    """Judged@k: the share of the top min(k, N) candidates that are judged.

    ir_measures' ``Judged@k``; judged means present in the truth, relevance 0 included.
    0 for an empty ranking.

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
    unjudged_at_k, bpref_score

    References
    ----------
    .. [1] S. MacAvaney et al., ir_measures, ``judged_provider.py``.
    .. [2] T. Sakai, "Alternatives to Bpref", SIGIR 2007.

    Examples
    --------
    >>> from sklearn_rank import ItemJudgments, ItemRanking, judged_at_k_score
    >>> truth = ItemJudgments(["q"] * 4, ["a", "b", "c", "d"], [1, 0, 2, 0])
    >>> run = ItemRanking(["q"] * 4, ["b", "a", "e", "c"], [0.9, 0.8, 0.7, 0.6])
    >>> judged_at_k_score(truth, run, k=3)
    0.6666666666666666
    """
    return _score(
        "judged",
        y_true,
        y_score,
        k=k,
        groups=groups,
        exclude=exclude,
        sample_weight=sample_weight,
        per_query=per_query,
        **conventions,
    )


@_with_conventions("unjudged")
@_fill_doc
def unjudged_at_k(
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
    """Unjudged@k: unjudged candidates in the top min(k, N), divided by k.

    trec_eval's ``unj_k``. Lower is better: as scikit-learn's ``*_score`` functions are
    greater-is-better, this one is named without ``_score`` (it was ``unjudged_at_k_score``
    before 0.2). Without k divided by N. Equals 1 - Judged@k when the list holds at least
    k items.

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
    judged_at_k_score

    References
    ----------
    .. [1] trec_eval 10.0, ``m_unjudged.c``.

    Examples
    --------
    >>> from sklearn_rank import ItemJudgments, ItemRanking, unjudged_at_k
    >>> truth = ItemJudgments(["q"] * 4, ["a", "b", "c", "d"], [1, 0, 2, 0])
    >>> run = ItemRanking(["q"] * 4, ["b", "a", "e", "c"], [0.9, 0.8, 0.7, 0.6])
    >>> unjudged_at_k(truth, run, k=3)
    0.3333333333333333
    """
    return _score(
        "unjudged",
        y_true,
        y_score,
        k=k,
        groups=groups,
        exclude=exclude,
        sample_weight=sample_weight,
        per_query=per_query,
        **conventions,
    )


# The old name keeps the new function's __name__ and signature (functools.wraps), so that
# make_ranking_scorer and the keyword checks still recognise it; only the call warns.
@functools.wraps(unjudged_at_k)
def unjudged_at_k_score(*args, **kwargs):
    warnings.warn(
        "unjudged_at_k_score is deprecated in version 0.2 and will be removed in 0.4; use "
        "unjudged_at_k (the same function: lower is better, so its name has no _score).",
        FutureWarning,
        stacklevel=2,
    )
    return unjudged_at_k(*args, **kwargs)


unjudged_at_k_score.__doc__ = """Deprecated alias of `unjudged_at_k`.

    .. deprecated:: 0.2
        ``unjudged_at_k_score`` is deprecated in 0.2 and will be removed in 0.4 (a
        FutureWarning says so): use `unjudged_at_k`, the same function. Lower is better, and
        ``*_score`` names are greater-is-better.
    """
