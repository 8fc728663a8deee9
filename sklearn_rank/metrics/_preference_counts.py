"""Counting preferences (form_prefs_counts.c): per judgment group, how many of its
preferences the run fulfils, among retrieved documents, with one retrieved ("implied")
or none, over flat arrays of all queries. `_preferences` turns the counts into
trec_eval's ``prefs_*`` measures.

A group of one subgroup (equivalence classes by level: every document preferred to those
of a lower level) is counted in closed form from its levels and the documents' ranks,
without listing its pairs: O(rows x levels of a group). A group of several subgroups (a
partial order: the transitive closure of its subgroups' preferences) is a small matrix,
one group at a time. The pairs themselves are listed only where prefs_pair needs them:
for queries judged by several groups (the groups' preferences about one pair of documents
are pooled) or with a document twice in one group."""

from typing import NamedTuple

import numpy as np


class _Pairs(NamedTuple):
    """Preferences ``better > worse`` of some groups, as docid ranks."""

    group: np.ndarray
    better: np.ndarray
    worse: np.ndarray


class _GroupCounts(NamedTuple):
    """Per group. The ``upper_`` counts are those of the pairs whose worse document is above
    the group's lowest level (one-subgroup groups only: prefs_avgjg_Rnonrel recounts
    them)."""

    fulfilled_ret: np.ndarray
    possible_ret: np.ndarray
    fulfilled_imp: np.ndarray
    possible_imp: np.ndarray
    not_occurring: np.ndarray
    relevant: np.ndarray
    relevant_ret: np.ndarray
    nonrelevant: np.ndarray
    nonrelevant_ret: np.ndarray
    upper_fulfilled_ret: np.ndarray
    upper_fulfilled_imp: np.ndarray
    upper_possible_ret: np.ndarray
    upper_pairs: np.ndarray


class _Counted(NamedTuple):
    counts: _GroupCounts
    pairs: _Pairs  # the pairs of the queries in listed_queries
    listed_queries: np.ndarray  # bool per query: its pairs are listed
    array_groups: dict  # group -> (docid ranks, levels, closure matrix), several subgroups


def _ragged_ranges(starts, counts):
    """``concatenate([arange(s, s + c) for s, c in zip(starts, counts)])`` and the index
    of the range each value comes from, without a loop."""
    total = int(counts.sum())
    owner = np.repeat(np.arange(counts.size), counts)
    offsets = np.cumsum(counts) - counts
    return starts[owner] + np.arange(total) - offsets[owner], owner


def _level_blocks(subgroup, level):
    """For each row (sorted by subgroup, level descending): where its level block ends
    and where its subgroup ends."""
    n = subgroup.size
    new_block = np.r_[True, (subgroup[1:] != subgroup[:-1]) | (level[1:] != level[:-1])]
    block = np.cumsum(new_block) - 1
    block_end = np.r_[np.flatnonzero(new_block)[1:], n][block]
    new_subgroup = np.r_[True, subgroup[1:] != subgroup[:-1]]
    sub = np.cumsum(new_subgroup) - 1
    subgroup_end = np.r_[np.flatnonzero(new_subgroup)[1:], n][sub]
    return block_end, subgroup_end


def _direct_pairs(rows, prepared):
    """Each row preferred to every row of its subgroup at a lower level (indices)."""
    if not rows.size:
        return rows, rows
    block_end, subgroup_end = _level_blocks(prepared.subgroup[rows], prepared.level[rows])
    worse, better = _ragged_ranges(block_end, subgroup_end - block_end)
    return rows[better], rows[worse]


def _closure(matrix):
    """form_prefs_counts.c's add_transitives: square the reflexive relation until it no
    longer changes, then drop the diagonal; a cycle is an inconsistent group."""
    n = matrix.shape[0]
    current = matrix | np.eye(n, dtype=bool)
    while True:
        squared = (current.astype(np.int64) @ current.astype(np.int64)) > 0
        if np.array_equal(squared, current):
            break
        current = squared
    np.fill_diagonal(current, False)
    if (current & current.T).any():
        raise ValueError("inconsistent preferences within a judgment group (a cycle)")
    return current


def _segment_starts(keys):
    """For sorted ``keys``: each element's index of the first element with its key."""
    new = np.r_[True, keys[1:] != keys[:-1]][: keys.size]
    return np.flatnonzero(new)[np.cumsum(new) - 1]


def _before_in_segment(values, starts):
    """Sum of ``values`` over the earlier elements of each element's segment."""
    total = np.cumsum(values)
    exclusive = total - values
    return exclusive - exclusive[starts]


def _one_subgroup_counts(prepared, rows, njr, n_groups):
    """Closed-form counts of the one-subgroup groups of ``rows`` (sorted by group, level
    descending, rank). Each level block b of a group pairs with every document of the
    blocks above it: with ret(b), unret(b) its retrieved and unretrieved documents and
    ret_above(b), unret_above(b) those of the blocks above, the pairs of two retrieved
    documents number ret(b) ret_above(b), the fulfilled implied ones unret(b) ret_above(b),
    and so on. The fulfilled pairs of two retrieved documents add up, for each retrieved
    document, the retrieved documents of a higher level ranked above it: one pass per
    level index, over documents in rank order."""
    group, level, rank = prepared.group[rows], prepared.level[rows], prepared.rank[rows]
    ret = rank < njr[group]
    new_block = np.r_[True, (group[1:] != group[:-1]) | (level[1:] != level[:-1])]
    new_block = new_block[: group.size]
    block = np.cumsum(new_block) - 1
    block_group = group[new_block]
    n_blocks = block_group.size
    n_ret = np.bincount(block, weights=ret, minlength=n_blocks).astype(np.int64)
    n_unret = np.bincount(block, weights=~ret, minlength=n_blocks).astype(np.int64)
    first_block = _segment_starts(block_group)
    ret_above = _before_in_segment(n_ret, first_block)
    unret_above = _before_in_segment(n_unret, first_block)
    code = block - first_block[block]  # the level's place in its group, 0 highest
    # Each group's lowest level.
    last = np.r_[block_group[1:] != block_group[:-1], True][:n_blocks]
    upper = ~last

    def per_group(values, blocks=slice(None)):
        return np.bincount(block_group[blocks], weights=values[blocks], minlength=n_groups).astype(
            np.int64
        )

    # In rank order: the retrieved documents of a higher level ranked above each one.
    order = np.lexsort((rank, group))
    kept = ret[order]
    r_group, r_code = group[order][kept], code[order][kept]
    # Pass k reads only the groups with a level below the k-th: the passes cost the
    # documents of each group times its levels, not all documents times the most levels.
    levels_of_group = np.bincount(block_group, minlength=n_groups)
    r_levels = levels_of_group[r_group]
    higher_above = np.zeros(r_group.size, dtype=np.int64)
    for k in range(int(r_levels.max()) - 1 if r_levels.size else 0):
        active = np.flatnonzero(r_levels > k + 1)
        a_group, a_code = r_group[active], r_code[active]
        at_k = (a_code == k).astype(np.int64)
        above = _before_in_segment(at_k, _segment_starts(a_group))
        higher_above[active] += np.where(a_code > k, above, 0)
    r_upper = upper[block[order][kept]]
    fulfilled_ret = np.bincount(r_group, weights=higher_above, minlength=n_groups)
    upper_fulfilled_ret = np.bincount(
        r_group[r_upper], weights=higher_above[r_upper], minlength=n_groups
    )
    all_above = ret_above + unret_above
    return {
        "fulfilled_ret": fulfilled_ret.astype(np.int64),
        "possible_ret": per_group(n_ret * ret_above),
        "fulfilled_imp": per_group(n_unret * ret_above),
        "possible_imp": per_group(n_unret * ret_above + n_ret * unret_above),
        "not_occurring": per_group(n_unret * unret_above),
        "upper_fulfilled_ret": upper_fulfilled_ret.astype(np.int64),
        "upper_fulfilled_imp": per_group(n_unret * ret_above, upper),
        "upper_possible_ret": per_group(n_ret * ret_above, upper),
        "upper_pairs": per_group((n_ret + n_unret) * all_above, upper),
    }


def _check_one_level_per_document(prepared, rows):
    """A document twice in a one-subgroup group must have one level (form_prefs_counts.c
    refuses two); returns the groups that list a document twice (at one level)."""
    group, rank, level = prepared.group[rows], prepared.rank[rows], prepared.level[rows]
    order = np.lexsort((rank, group))
    same = (group[order][1:] == group[order][:-1]) & (rank[order][1:] == rank[order][:-1])
    if (same & (level[order][1:] != level[order][:-1])).any():
        raise ValueError("a document has two levels in one judgment subgroup")
    return np.unique(group[order][1:][same])


def _count(prepared):
    """Per-group counts, as form_prefs_counts.c forms them, and the listed pairs."""
    n_groups = prepared.group_query.size
    n_queries = prepared.query_ids.size
    subgroups_per_group = np.bincount(
        prepared.group[np.r_[True, prepared.subgroup[1:] != prepared.subgroup[:-1]]],
        minlength=n_groups,
    )
    array_row = (subgroups_per_group > 1)[prepared.group]
    ec_rows = np.flatnonzero(~array_row)
    njr = prepared.judged_retrieved[prepared.group_query]
    counts = _one_subgroup_counts(prepared, ec_rows, njr, n_groups)
    repeated = _check_one_level_per_document(prepared, ec_rows)

    rel = prepared.level > 0
    ret = prepared.rank < njr[prepared.group]
    for name, mask in (
        ("relevant", rel),
        ("relevant_ret", rel & ret),
        ("nonrelevant", ~rel),
        ("nonrelevant_ret", ~rel & ret),
    ):
        counts[name] = np.bincount(
            prepared.group[ec_rows], weights=mask[ec_rows], minlength=n_groups
        ).astype(np.int64)

    # prefs_pair pools the groups' preferences about each pair of documents: listed for
    # the queries of several groups or a repeated document.
    listed_queries = np.bincount(prepared.group_query, minlength=n_queries) > 1
    listed_queries[prepared.group_query[repeated]] = True
    listed = listed_queries[prepared.group_query]
    listed_rows = ec_rows[listed[prepared.group[ec_rows]]]
    better, worse = _direct_pairs(listed_rows, prepared)
    pair_group = [prepared.group[better]]
    pair_better = [prepared.rank[better]]
    pair_worse = [prepared.rank[worse]]

    array_groups = {}
    array_rows = np.flatnonzero(array_row)
    if array_rows.size:
        d_better, d_worse = _direct_pairs(array_rows, prepared)
        # Preference arrays are rare (partial orders): one small matrix per group, its
        # rows and direct pairs found by slicing (both are in group order).
        row_groups = prepared.group[array_rows]
        groups, starts = np.unique(row_groups, return_index=True)
        ends = np.r_[starts[1:], row_groups.size]
        pair_groups = prepared.group[d_better]
        pair_starts = np.searchsorted(pair_groups, groups, side="left")
        pair_ends = np.searchsorted(pair_groups, groups, side="right")
        for g, start, end, p_start, p_end in zip(
            groups.tolist(), starts, ends, pair_starts, pair_ends
        ):
            rows = array_rows[start:end]
            ranks, local = np.unique(prepared.rank[rows], return_inverse=True)
            # rel_array: the level each document was given last, in the rows' order.
            levels = np.full(ranks.size, -1.0)
            levels[local.ravel()] = prepared.level[rows]
            _check_zero_levels(prepared.level[rows], local.ravel())
            matrix = np.zeros((ranks.size, ranks.size), dtype=bool)
            bi = np.searchsorted(ranks, prepared.rank[d_better[p_start:p_end]])
            wi = np.searchsorted(ranks, prepared.rank[d_worse[p_start:p_end]])
            matrix[bi, wi] = True
            matrix = _closure(matrix)
            i, j = np.nonzero(matrix)
            closure = _Pairs(np.full(i.size, g), ranks[i], ranks[j])
            for name, value in _pair_counts(closure, njr, g).items():
                counts[name][g] = value
            is_ret = ranks < njr[g]
            counts["relevant"][g] = np.count_nonzero(levels > 0)
            counts["relevant_ret"][g] = np.count_nonzero((levels > 0) & is_ret)
            counts["nonrelevant"][g] = np.count_nonzero(levels == 0)
            counts["nonrelevant_ret"][g] = np.count_nonzero((levels == 0) & is_ret)
            array_groups[g] = (ranks, levels, matrix)
            if listed[g]:
                pair_group.append(closure.group)
                pair_better.append(closure.better)
                pair_worse.append(closure.worse)

    group = np.concatenate(pair_group).astype(np.int64)
    order = np.argsort(group, kind="stable")
    pairs = _Pairs(
        group[order],
        np.concatenate(pair_better).astype(np.int64)[order],
        np.concatenate(pair_worse).astype(np.int64)[order],
    )
    return _Counted(_GroupCounts(**counts), pairs, listed_queries, array_groups)


def _check_zero_levels(levels, local):
    """trec_eval refuses a document of level 0 in one subgroup, above 0 in another."""
    zero = np.zeros(local.max() + 1, dtype=bool)
    positive = np.zeros(local.max() + 1, dtype=bool)
    zero[local[levels == 0]] = True
    positive[local[levels > 0]] = True
    if (zero & positive).any():
        raise ValueError("a document has both level 0 and a level above 0 in one group")


def _pair_counts(pairs, njr, g):
    """The counts of one group from its listed pairs (a preference array's closure)."""
    limit = njr[g]
    better_ret = pairs.better < limit
    worse_ret = pairs.worse < limit
    return {
        "fulfilled_ret": np.count_nonzero(better_ret & worse_ret & (pairs.better < pairs.worse)),
        "possible_ret": np.count_nonzero(better_ret & worse_ret),
        "fulfilled_imp": np.count_nonzero(better_ret & ~worse_ret),
        "possible_imp": np.count_nonzero(better_ret != worse_ret),
        "not_occurring": np.count_nonzero(~better_ret & ~worse_ret),
    }
