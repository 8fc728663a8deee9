"""Public functions of trec_eval's set measures and its experimental ones (relative_P,
utility, gm_bpref, binG, Rndcg, rbp_resid).

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


@_with_conventions("gm_bpref")
@_fill_doc
def geometric_mean_bpref_score(
    y_true,
    y_score,
    *,
    groups=None,
    exclude=None,
    sample_weight=None,
    per_query=False,
    **conventions,
):
    """bpref combined over queries by the geometric mean.

    trec_eval's ``gm_bpref``: each query's bpref floored at 1e-5, combined by
    exp(mean(log)); per query (``per_query=True``) the values are bpref's.

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
    bpref_score, geometric_mean_average_precision_score

    References
    ----------
    .. [1] trec_eval 10.0, ``m_gm_bpref.c``.

    Examples
    --------
    >>> from sklearn_rank import ItemJudgments, ItemRanking, geometric_mean_bpref_score
    >>> truth = ItemJudgments(["q"] * 4, ["a", "b", "c", "d"], [1, 0, 2, 0])
    >>> run = ItemRanking(["q"] * 4, ["b", "a", "e", "c"], [0.9, 0.8, 0.7, 0.6])
    >>> geometric_mean_bpref_score(truth, run)
    0.5
    """
    return _score(
        "gm_bpref",
        y_true,
        y_score,
        groups=groups,
        exclude=exclude,
        sample_weight=sample_weight,
        per_query=per_query,
        **conventions,
    )


@_with_conventions("bin_g")
@_fill_doc
def binary_g_score(
    y_true,
    y_score,
    *,
    groups=None,
    exclude=None,
    sample_weight=None,
    per_query=False,
    **conventions,
):
    """Binary G: (1/R) sum over relevant candidates of 1 / log2(2 + non-relevant above).

    trec_eval's experimental ``binG``: a relevant item ranked below b non-relevant ones
    (unjudged included) adds 1 / log2(2 + b); the sum is divided by R; 0 where no
    relevant item is retrieved.

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
    ndcg_score

    References
    ----------
    .. [1] trec_eval 10.0, ``m_binG.c``.

    Examples
    --------
    >>> from sklearn_rank import ItemJudgments, ItemRanking, binary_g_score
    >>> truth = ItemJudgments(["q"] * 4, ["a", "b", "c", "d"], [1, 0, 2, 0])
    >>> run = ItemRanking(["q"] * 4, ["b", "a", "e", "c"], [0.9, 0.8, 0.7, 0.6])
    >>> round(binary_g_score(truth, run), 6)
    0.565465
    """
    return _score(
        "bin_g",
        y_true,
        y_score,
        groups=groups,
        exclude=exclude,
        sample_weight=sample_weight,
        per_query=per_query,
        **conventions,
    )


@_with_conventions("rndcg")
@_fill_doc
def r_ndcg_score(
    y_true,
    y_score,
    *,
    groups=None,
    exclude=None,
    sample_weight=None,
    per_query=False,
    **conventions,
):
    """nDCG averaged at the ideal ranking's grade boundaries (trec_eval's Rndcg).

    With the judged items' positive grades sorted descending, B_1 < B_2 < ... are the
    numbers of items of grade at least each grade; the value is the mean of
    DCG@B / IDCG@B over them, and of DCG@N / IDCG when the N candidates reach beyond
    the last boundary plus one (trec_eval's loop, m_Rndcg.c). Linear gain, log2
    discount, grades as gains whatever the relevance threshold, which decides only
    whether R is 0: then 0.

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
    ndcg_score

    References
    ----------
    .. [1] trec_eval 10.0, ``m_Rndcg.c``.

    Examples
    --------
    >>> from sklearn_rank import ItemJudgments, ItemRanking, r_ndcg_score
    >>> truth = ItemJudgments(["q"] * 4, ["a", "b", "c", "d"], [1, 0, 2, 0])
    >>> run = ItemRanking(["q"] * 4, ["b", "a", "e", "c"], [0.9, 0.8, 0.7, 0.6])
    >>> round(r_ndcg_score(truth, run), 6)
    0.269007
    """
    return _score(
        "rndcg",
        y_true,
        y_score,
        groups=groups,
        exclude=exclude,
        sample_weight=sample_weight,
        per_query=per_query,
        **conventions,
    )


@_with_conventions("trec_rbp_residual")
@_fill_doc
def trec_rbp_residual(
    y_true,
    y_score,
    *,
    p=0.8,
    groups=None,
    exclude=None,
    sample_weight=None,
    per_query=False,
    **conventions,
):
    """trec_eval's RBP residual: p**N + (1 - p) sum of p**(i - 1) over unjudged ranks i.

    trec_eval's ``rbp_resid``: the weight RBP could gain if every unjudged candidate and
    everything below the list were relevant, where some candidate is unjudged; 0 where
    every candidate is judged (trec_eval then leaves the value at 0). trec_eval's
    default p is 0.9 (its names ``rbp_resid`` here use it). Lower is better.

    Parameters
    ----------
    {y_true}
    {y_score}
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
    rbp_residual, rbp_score

    References
    ----------
    .. [1] trec_eval 10.0, ``m_rbp_resid.c``.

    Examples
    --------
    >>> from sklearn_rank import ItemJudgments, ItemRanking, trec_rbp_residual
    >>> truth = ItemJudgments(["q"] * 4, ["a", "b", "c", "d"], [1, 0, 2, 0])
    >>> run = ItemRanking(["q"] * 4, ["b", "a", "e", "c"], [0.9, 0.8, 0.7, 0.6])
    >>> round(trec_rbp_residual(truth, run), 6)
    0.5376
    """
    return _score(
        "trec_rbp_residual",
        y_true,
        y_score,
        p=p,
        groups=groups,
        exclude=exclude,
        sample_weight=sample_weight,
        per_query=per_query,
        **conventions,
    )
