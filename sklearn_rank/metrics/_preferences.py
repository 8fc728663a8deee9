"""trec_eval's preference measures (``-R prefs``, ``-R qrels_prefs``, ``-m all_prefs``):
`evaluate_preferences`. A preference measure counts the pairs of documents a judgment
group prefers that the run orders the same way; it is no sum of per-item gains, so it is
computed from counts of preferences (`_preference_counts`), not by the ranking kernel.
Every query at once, over flat arrays; per-query values added in trec_eval's order."""

import numpy as np

from ..inputs._preferences import _prepare_preferences
from ._preference_counts import _count

#: trec_eval's preference measures, in its table's order (measures.c), and whether each
#: is a count (summed on the ``all`` line, printed as an integer).
PREFERENCE_MEASURES = {
    "prefs_num_prefs_poss": True,
    "prefs_num_prefs_ful": True,
    "prefs_num_prefs_ful_ret": True,
    "prefs_simp": False,
    "prefs_pair": False,
    "prefs_avgjg": False,
    "prefs_avgjg_Rnonrel": False,
    "prefs_simp_ret": False,
    "prefs_pair_ret": False,
    "prefs_avgjg_ret": False,
    "prefs_avgjg_Rnonrel_ret": False,
    "prefs_simp_imp": False,
    "prefs_pair_imp": False,
    "prefs_avgjg_imp": False,
}

#: trec_eval's ``-m prefs``.
PREFERENCE_OFFICIAL = ("prefs_num_prefs_poss", "prefs_num_prefs_ful", "prefs_num_prefs_ful_ret")
PREFERENCE_OFFICIAL += ("prefs_simp", "prefs_pair", "prefs_avgjg")


def _ratio(numerator, denominator):
    """numerator / denominator, 0 where the denominator is 0 (trec_eval leaves 0)."""
    out = np.zeros(numerator.shape, dtype=np.float64)
    np.divide(numerator, denominator, out=out, where=denominator != 0)
    return out


def _per_query(values, group_query, n_queries):
    """Sums per query of per-group values, added in group order (bincount adds in turn)."""
    return np.bincount(group_query, weights=values, minlength=n_queries)


def _average_over_groups(ratios, group_query, n_queries):
    """Sum of the groups' ratios over the number of groups when the sum is positive
    (a NaN sum stays 0, as ``sum > 0.0`` is false in C)."""
    total = _per_query(ratios, group_query, n_queries)
    groups = np.bincount(group_query, minlength=n_queries)
    out = np.zeros(n_queries)
    positive = total > 0
    out[positive] = total[positive] / groups[positive]
    return out


def _pair_table(pairs, njr_of_group, group_query):
    """prefs_pair*'s document pairs: for each pair of documents judged against each other
    by some group, its query, its block (0: both retrieved, 1: one, 2: none) and the share
    of the groups' preferences between them that the run fulfils, in trec_eval's order
    (block, then ranks)."""
    if not pairs.group.size:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64), np.zeros(0)
    query = group_query[pairs.group]
    low = np.minimum(pairs.better, pairs.worse)
    high = np.maximum(pairs.better, pairs.worse)
    njr = njr_of_group[pairs.group]
    block = (low >= njr).astype(np.int64) + (high >= njr)
    order = np.lexsort((high, low, block, query))
    keys = np.stack([query[order], low[order], high[order]])
    new = np.r_[True, (np.diff(keys, axis=1) != 0).any(axis=0)]
    pair_id = np.cumsum(new) - 1
    forward = np.bincount(pair_id, weights=(pairs.better < pairs.worse)[order])
    share = forward / np.bincount(pair_id)
    pair_block = block[order][new]
    share[pair_block == 2] = 0.0
    return keys[0][new], pair_block, share


def _pair_values(table, n_queries, blocks):
    """prefs_pair*: the mean share over the pairs of ``blocks`` (pairs of block 2 count
    but add 0), added in trec_eval's order."""
    pair_query, pair_block, share = table
    wanted = np.isin(pair_block, blocks)
    sums = np.bincount(pair_query[wanted], weights=share[wanted], minlength=n_queries)
    counts = np.bincount(pair_query[wanted], minlength=n_queries)
    return _ratio(sums, counts)


def _rnonrel(prepared, counted, retrieved_only):
    """prefs_avgjg_Rnonrel(_ret) per group: the ratio as if each group had as many
    non-relevant (retrieved) documents as relevant (retrieved) ones (m_prefs_avgjg_Rnonrel.c).
    Where it has fewer, the missing ones are fulfilled preferences of each relevant
    document; where it has more, only its first R non-relevant ones count, and the
    preferences are counted again, as the C code counts them (see `_recount`)."""
    c = counted.counts
    if retrieved_only:
        relevant, nonrelevant = c.relevant_ret, c.nonrelevant_ret
        fulfilled, possible = c.fulfilled_ret, c.possible_ret
    else:
        relevant, nonrelevant = c.relevant, c.nonrelevant
        fulfilled = c.fulfilled_ret + c.fulfilled_imp
        possible = c.possible_ret + c.possible_imp + c.not_occurring
    extra = relevant - nonrelevant
    fulfilled = (fulfilled + c.relevant_ret * extra).astype(np.float64)
    # c.relevant, not the retrieved count, in both measures, as in the C code.
    possible = (possible + c.relevant * extra).astype(np.float64)
    recount = np.flatnonzero(extra < 0)
    if recount.size:
        ful, poss = _recount(prepared, counted, recount, relevant, retrieved_only)
        fulfilled[recount], possible[recount] = ful, poss
    with np.errstate(invalid="ignore", divide="ignore"):
        return fulfilled / possible  # 0/0 is NaN there too


def _recount(prepared, counted, groups, keep, retrieved_only):
    """The C code's ``recalculate`` for ``groups``. A group of one subgroup keeps the
    first ``keep[g]`` documents (by rank) of its lowest level; it counts its pairs between
    higher levels as before, and every document of the group (those of the lowest level
    included, as the C loop does) against each kept one: fulfilled when the document is
    retrieved and ranked above. With ``retrieved_only`` only retrieved documents count."""
    njr = prepared.judged_retrieved[prepared.group_query]
    ful = np.zeros(groups.size)
    poss = np.zeros(groups.size)
    slot_of = np.full(prepared.group_query.size, -1)
    slot_of[groups] = np.arange(groups.size)
    for g in [g for g in groups.tolist() if g in counted.array_groups]:
        ful[slot_of[g]], poss[slot_of[g]] = _recount_array(
            counted.array_groups[g], njr[g], counted.counts.relevant[g], retrieved_only
        )
    is_ec = np.zeros(prepared.group_query.size, dtype=bool)
    is_ec[groups] = True
    is_ec[list(counted.array_groups)] = False
    if not is_ec.any():
        return ful, poss
    n = groups.size
    rows = np.flatnonzero(is_ec[prepared.group])
    group, rank, level = prepared.group[rows], prepared.rank[rows], prepared.level[rows]
    retrieved = rank < njr[group]
    new_group = np.r_[True, group[1:] != group[:-1]]
    starts = np.flatnonzero(new_group)
    ends = np.r_[starts[1:], group.size]
    lowest = np.full(prepared.group_query.size, np.nan)
    lowest[group[starts]] = level[ends - 1]
    in_last = level == lowest[group]
    first_last = np.where(in_last, np.arange(group.size), group.size)
    first_last = np.minimum.reduceat(first_last, starts)[np.cumsum(new_group) - 1]
    kept = in_last & (np.arange(group.size) - first_last < keep[group])
    if retrieved_only:
        kept &= retrieved

    # Pairs whose worse document is above the lowest level, counted again.
    c = counted.counts
    if retrieved_only:
        part_ful, part_all = c.upper_fulfilled_ret[groups], c.upper_possible_ret[groups]
    else:
        part_ful = c.upper_fulfilled_ret[groups] + c.upper_fulfilled_imp[groups]
        part_all = c.upper_pairs[groups]

    # Every (retrieved) document against the kept ones of its group ranked below it.
    sources = retrieved if retrieved_only else np.ones(group.size, dtype=bool)
    width = np.int64(rank.max() + 2)
    base = group.astype(np.int64) * width
    kept_keys = np.sort(base[kept] + rank[kept])
    below = np.searchsorted(kept_keys, base + width) - np.searchsorted(
        kept_keys, base + rank, side="right"
    )
    row_slot = slot_of[group]
    n_kept = np.bincount(row_slot[kept], minlength=n)
    won = np.where(retrieved, below, 0)
    part2_ful = np.bincount(row_slot, weights=won, minlength=n)
    part2_all = np.bincount(row_slot, weights=sources, minlength=n) * n_kept
    ec_slots = slot_of[np.flatnonzero(is_ec)]
    ful[ec_slots] = (part_ful + part2_ful)[ec_slots]
    poss[ec_slots] = (part_all + part2_all)[ec_slots]
    return ful, poss


def _recount_array(array_group, njr, relevant, retrieved_only):
    """``recalculate`` for a preference-array group: drop its non-relevant documents
    after the first R (by rank; among the retrieved ones for the ``_ret`` measure) and
    count the remaining preferences (fulfilled: the preferred document retrieved and
    ranked above)."""
    ranks, levels, matrix = array_group
    zero = levels == 0
    scan = zero & (ranks < njr) if retrieved_only else zero
    seen = np.cumsum(scan)
    hit = np.flatnonzero(scan & (seen == relevant + 1))
    if hit.size:
        first_discarded = ranks[hit[0]]
    else:
        first_discarded = njr if retrieved_only else np.iinfo(np.int64).max
    keep = ~((ranks >= first_discarded) & zero)
    if retrieved_only:
        keep &= ranks < njr
    sub = matrix[np.ix_(keep, keep)]
    r = ranks[keep]
    i, j = np.nonzero(sub)
    fulfilled = np.count_nonzero((r[i] < njr) & (r[j] > r[i]))
    return float(fulfilled), float(i.size)


def _preference_values(prepared, names):
    """Per-query values of trec_eval's preference measures ``names``."""
    counted = _count(prepared)
    c = counted.counts
    gq = prepared.group_query
    n = prepared.query_ids.size
    njr = prepared.judged_retrieved[gq]

    tables = []

    def pair_table():  # computed once, for the three prefs_pair measures
        if not tables:
            tables.append(_pair_table(counted.pairs, njr, gq))
        return tables[0]

    def pair_values(blocks, fulfilled, possible):
        # One group and no repeated document: each pair is one preference, its share 1
        # or 0, so the mean share is fulfilled over possible (exact integers either way).
        pooled = _pair_values(pair_table(), n, blocks)
        alone = _ratio(total(fulfilled), total(possible))
        return np.where(counted.listed_queries, pooled, alone)

    def total(values):
        return _per_query(values.astype(np.float64), gq, n)

    ful_all = c.fulfilled_ret + c.fulfilled_imp
    poss_all = c.possible_ret + c.possible_imp + c.not_occurring
    poss_imp = c.possible_ret + c.possible_imp
    compute = {
        "prefs_num_prefs_poss": lambda: total(poss_all),
        "prefs_num_prefs_ful": lambda: total(ful_all),
        "prefs_num_prefs_ful_ret": lambda: total(c.fulfilled_ret),
        "prefs_simp": lambda: _ratio(total(ful_all), total(poss_all)),
        "prefs_simp_ret": lambda: _ratio(total(c.fulfilled_ret), total(c.possible_ret)),
        "prefs_simp_imp": lambda: _ratio(total(ful_all), total(poss_imp)),
        "prefs_avgjg": lambda: _average_over_groups(_ratio(ful_all, poss_all), gq, n),
        "prefs_avgjg_ret": lambda: _average_over_groups(
            _ratio(c.fulfilled_ret, c.possible_ret), gq, n
        ),
        "prefs_avgjg_imp": lambda: _average_over_groups(_ratio(ful_all, poss_imp), gq, n),
        "prefs_avgjg_Rnonrel": lambda: _average_over_groups(
            _rnonrel(prepared, counted, False), gq, n
        ),
        "prefs_avgjg_Rnonrel_ret": lambda: _average_over_groups(
            _rnonrel(prepared, counted, True), gq, n
        ),
        "prefs_pair": lambda: pair_values((0, 1, 2), ful_all, poss_all),
        "prefs_pair_ret": lambda: pair_values((0,), c.fulfilled_ret, c.possible_ret),
        "prefs_pair_imp": lambda: pair_values((0, 1), ful_all, poss_imp),
    }
    return {name: compute[name]() for name in names}


def evaluate_preferences(judgments, ranking, metrics=None, *, per_query=False, max_documents=None):
    """trec_eval's preference measures of a run (``trec_eval -R prefs -m all_prefs``).

    A judgment group prefers document A to document B when one of its subgroups puts A
    at a higher level than B (or by transitivity within the group). A preference is
    *fulfilled* when the run ranks A above B, counting a retrieved A over an unretrieved
    B; "possible" preferences are all of them (``prefs_simp``, ``prefs_avgjg``...), those
    between retrieved documents only (``_ret``) or those with at least one retrieved
    document (``_imp``). ``prefs_simp`` is fulfilled over possible over all groups,
    ``prefs_avgjg`` the mean over groups of each group's ratio, ``prefs_pair`` the mean
    over document pairs of the share of groups' preferences the run fulfils,
    ``prefs_avgjg_Rnonrel`` ``prefs_avgjg`` with each group's non-relevant documents
    (level 0) counted as if there were as many as relevant ones (akin to bpref). The
    counts ``prefs_num_prefs_*`` are numbers of preferences.

    Parameters
    ----------
    judgments : GroupedJudgments
        From `read_trec_prefs` or `read_trec_qrels_prefs`.
    ranking : ItemRanking
        The run: each query's documents are ranked by score descending, then document
        id ascending (form_prefs_counts.c's order, the reverse of trec_eval's for qrels on
        tied scores); without scores, in the order of its rows (first best).
    metrics : str or list of str, default=None
        trec_eval's names of the measures (``"prefs_simp"``...); default: all fourteen.
    per_query : bool, default=False
        Return each query's values (in the order of the sorted query ids) instead of the
        mean over queries (counts: their sum).
    max_documents : int, default=None
        Keep the first ``max_documents`` documents of each query (trec_eval's ``-M``).

    Returns
    -------
    values : dict
        Measure name to its value over all judged queries (float; trec_eval's ``all``
        line, added in its order), or to an ndarray of shape (n_queries,) with
        ``per_query=True``. Every judged query counts; one absent from the run
        retrieves nothing.

    Raises
    ------
    ValueError
        For an unknown measure name, a document given two levels in one subgroup (or
        level 0 and a positive level in one group), inconsistent preferences within a
        group, or a document listed twice for a query of the run.

    See Also
    --------
    read_trec_prefs, read_trec_qrels_prefs : the judgments.
    evaluate_judgment_groups : measures averaged over the judgment groups of qrels.

    Notes
    -----
    The numbers are trec_eval 10.0's (form_prefs_counts.c and the ``m_prefs_*.c``
    measures), their quirks included: ``prefs_avgjg_Rnonrel`` counts, when a group has
    more non-relevant documents than relevant ones, the kept non-relevant documents
    against themselves too, and a group with no relevant document gives 0/0, which makes
    the query's value 0. A group of one subgroup is counted in closed form, in time
    proportional to its documents times its levels; a group of several subgroups (a
    partial order) takes a transitive closure, a matrix of its documents, one group at a
    time. The pairs of documents are listed, in memory proportional to the number of
    preferences, only for ``prefs_pair*`` on queries judged by several groups.

    References
    ----------
    .. [1] trec_eval 10.0, ``form_prefs_counts.c``, https://github.com/usnistgov/trec_eval

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_rank import GroupedJudgments, ItemRanking, evaluate_preferences
    >>> judgments = GroupedJudgments(
    ...     np.array(["q1"] * 3, dtype=object), np.array(["user1"] * 3, dtype=object),
    ...     np.array(["0"] * 3, dtype=object), np.array(["a", "b", "c"]),
    ...     np.array([2.0, 1.0, 0.0]))
    >>> run = ItemRanking(["q1", "q1", "q1"], ["b", "a", "c"], [3.0, 2.0, 1.0])
    >>> values = evaluate_preferences(judgments, run, ["prefs_num_prefs_poss", "prefs_simp"])
    >>> values["prefs_num_prefs_poss"], round(values["prefs_simp"], 4)
    (3.0, 0.6667)
    """
    from ._aggregate import _in_order

    if isinstance(metrics, str):  # one name, as evaluate takes it
        metrics = [metrics]
    names = list(PREFERENCE_MEASURES) if metrics is None else list(metrics)
    unknown = [name for name in names if name not in PREFERENCE_MEASURES]
    if unknown:
        raise ValueError(
            f"metrics: unknown preference measure {unknown[0]!r}; expected one of "
            f"{', '.join(PREFERENCE_MEASURES)}."
        )
    if max_documents is not None and (
        isinstance(max_documents, bool)
        or not isinstance(max_documents, (int, np.integer))
        or max_documents < 1
    ):
        raise ValueError(f"max_documents must be a positive integer; got {max_documents!r}.")
    prepared = _prepare_preferences(judgments, ranking, max_documents)
    values = _preference_values(prepared, names)
    if per_query:
        return values
    return {
        name: _in_order(column, "sum" if PREFERENCE_MEASURES[name] else "mean")
        for name, column in values.items()
    }
