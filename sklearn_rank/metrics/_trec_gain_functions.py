"""Public functions of trec_eval's gm_bpref, binG, G, Rndcg, ndcg_rel, ndcg with gains per
grade, rbp_resid and yaap.

Each is a thin, documented entry point into `_evaluate._score`; the definitions live in
`_trec_sets.py` and `docs/metrics.md`.
"""

from ..conventions import _fill_doc
from ._evaluate import _score
from ._signatures import _with_conventions


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
    level_gains=None,
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
    {level_gains}
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
        level_gains=level_gains,
        groups=groups,
        exclude=exclude,
        sample_weight=sample_weight,
        per_query=per_query,
        **conventions,
    )


@_with_conventions("ndcg_gains")
@_fill_doc
def ndcg_with_gains_score(
    y_true,
    y_score,
    *,
    level_gains=None,
    groups=None,
    exclude=None,
    sample_weight=None,
    per_query=False,
    **conventions,
):
    """nDCG with a gain per grade, as trec_eval's ``ndcg.1=3,2=9,4=4.5``.

    DCG of the candidates' gains (log2, no cut-off) over the DCG of every judged item of
    positive gain sorted by gain; a grade not listed keeps its grade as gain (with none
    listed: `ndcg_score` under trec_eval's rules). Linear in position: exact under tie
    averaging. trec_eval sorts the grades by ``(int)(g1 - g2)``, so gains closer than 1
    may be ordered wrongly there (docs/metrics.md); here they are sorted by value.

    Parameters
    ----------
    {y_true}
    {y_score}
    {level_gains}
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
    .. [1] trec_eval 10.0, ``m_ndcg.c`` and ``gain_init.c``.

    Examples
    --------
    >>> from sklearn_rank import ItemJudgments, ItemRanking, ndcg_with_gains_score
    >>> truth = ItemJudgments(["q"] * 4, ["a", "b", "c", "d"], [1, 0, 2, 0])
    >>> run = ItemRanking(["q"] * 4, ["b", "a", "e", "c"], [0.9, 0.8, 0.7, 0.6])
    >>> # (3 / log2(3) + 9 / log2(5)) / (9 + 3 / log2(3))
    >>> round(ndcg_with_gains_score(truth, run, level_gains={1: 3, 2: 9}), 6)
    0.529605
    """
    return _score(
        "ndcg_gains",
        y_true,
        y_score,
        level_gains=level_gains,
        groups=groups,
        exclude=exclude,
        sample_weight=sample_weight,
        per_query=per_query,
        **conventions,
    )


@_with_conventions("g")
@_fill_doc
def g_score(
    y_true,
    y_score,
    *,
    level_gains=None,
    groups=None,
    exclude=None,
    sample_weight=None,
    per_query=False,
    **conventions,
):
    """trec_eval's experimental G: gain relative to the best gain gathered so far.

    The item at rank i with gain g > 0 (its grade) adds g / log2(2 + C_i - S_i), S_i the
    gain gathered up to rank i and C_i the sum over ranks j <= i of max(ideal gain at j, 1);
    the sum is divided by the total gain of the ideal ranking (0 when that is 0). Under
    ``ties="average"`` a tie group is averaged over its orderings by a walk over its states
    (how many items of each gain are placed), refused with a ValueError beyond 2**22
    states (a group of about 2,000 tied items of three grades): ``ties="stable"`` then.

    Parameters
    ----------
    {y_true}
    {y_score}
    {level_gains}
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
    binary_g_score, ndcg_score

    References
    ----------
    .. [1] trec_eval 10.0, ``m_G.c``.

    Examples
    --------
    >>> from sklearn_rank import ItemJudgments, ItemRanking, g_score
    >>> truth = ItemJudgments(["q"] * 4, ["a", "b", "c", "d"], [1, 0, 2, 0])
    >>> run = ItemRanking(["q"] * 4, ["b", "a", "e", "c"], [0.9, 0.8, 0.7, 0.6])
    >>> round(g_score(truth, run), 6)  # (1 / log2(2 + 3 - 1) + 2 / log2(2 + 5 - 3)) / 3
    0.5
    """
    return _score(
        "g",
        y_true,
        y_score,
        level_gains=level_gains,
        groups=groups,
        exclude=exclude,
        sample_weight=sample_weight,
        per_query=per_query,
        **conventions,
    )


@_with_conventions("ndcg_rel")
@_fill_doc
def ndcg_rel_score(
    y_true,
    y_score,
    *,
    level_gains=None,
    groups=None,
    exclude=None,
    sample_weight=None,
    per_query=False,
    **conventions,
):
    """nDCG averaged over the positive items: trec_eval's ndcg_rel.

    With R+ the judged items of positive grade, each positive candidate at rank i adds
    DCG@i / IDCG@min(i, R+), each positive item not retrieved adds DCG@N / IDCG, and the
    sum is divided by R+ (linear gain: the grade, log2 discount, whatever the relevance
    threshold). Exact under tie averaging (the closed form in ``_trec_sets.ndcg_rel``).

    Parameters
    ----------
    {y_true}
    {y_score}
    {level_gains}
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
    ndcg_score, r_ndcg_score

    References
    ----------
    .. [1] trec_eval 10.0, ``m_ndcg_rel.c``.

    Examples
    --------
    >>> from sklearn_rank import ItemJudgments, ItemRanking, ndcg_rel_score
    >>> truth = ItemJudgments(["q"] * 4, ["a", "b", "c", "d"], [1, 0, 2, 0])
    >>> run = ItemRanking(["q"] * 4, ["b", "a", "e", "c"], [0.9, 0.8, 0.7, 0.6])
    >>> round(ndcg_rel_score(truth, run), 6)
    0.40351
    """
    return _score(
        "ndcg_rel",
        y_true,
        y_score,
        level_gains=level_gains,
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


@_with_conventions("yaap")
@_fill_doc
def yaap_score(
    y_true,
    y_score,
    *,
    groups=None,
    exclude=None,
    sample_weight=None,
    per_query=False,
    **conventions,
):
    """Yet another average precision (Robertson's smoothed AP): trec_eval's yaap.

    log((1 + S) / (1 + R - S)), S the sum over relevant candidates of the precision at
    their rank (R times AP), R the relevant judged items: monotonic with AP on one query,
    and better behaved when averaged. Under ties S is its exact average and the log applies
    to it (as GM-MAP's log applies to the averaged AP). trec_eval leaves yaap out of
    ``all_trec``.

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
    mean_average_precision_score

    References
    ----------
    .. [1] S. Robertson, "On Smoothing Average Precision", ECIR 2012, LNCS 7224,
       pp. 158-169.
    .. [2] trec_eval 10.0, ``m_yaap.c``.

    Examples
    --------
    >>> from sklearn_rank import ItemJudgments, ItemRanking, yaap_score
    >>> truth = ItemJudgments(["q"] * 4, ["a", "b", "c", "d"], [1, 0, 2, 0])
    >>> run = ItemRanking(["q"] * 4, ["b", "a", "e", "c"], [0.9, 0.8, 0.7, 0.6])
    >>> round(yaap_score(truth, run), 6)  # S = 1/2 + 2/4: log(2 / 2)
    0.0
    """
    return _score(
        "yaap",
        y_true,
        y_score,
        groups=groups,
        exclude=exclude,
        sample_weight=sample_weight,
        per_query=per_query,
        **conventions,
    )
