"""Counting preferences (form_prefs_counts.c): the pairs of documents each judgment group
prefers, each pair's fate in the run, per group and per query, as flat arrays over all
queries. `_preferences` turns the counts into trec_eval's ``prefs_*`` measures."""

from typing import NamedTuple

import numpy as np


class _Pairs(NamedTuple):
    """Every preference ``better > worse`` of every group, as docid ranks."""

    group: np.ndarray
    better: np.ndarray
    worse: np.ndarray
    worse_level: np.ndarray


class _GroupCounts(NamedTuple):
    fulfilled_ret: np.ndarray
    possible_ret: np.ndarray
    fulfilled_imp: np.ndarray
    possible_imp: np.ndarray
    not_occurring: np.ndarray
    relevant: np.ndarray
    relevant_ret: np.ndarray
    nonrelevant: np.ndarray
    nonrelevant_ret: np.ndarray


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


class _Counted(NamedTuple):
    pairs: _Pairs
    counts: _GroupCounts
    array_groups: dict  # group -> (docid ranks, levels, closure matrix) of multi-subgroup groups


def _count(prepared):
    """Preference pairs and per-group counts, as form_prefs_counts.c forms them: a group
    of one subgroup (equivalence classes by level) prefers each document to every one of
    a lower level, duplicates included; a group of several subgroups (a preference array)
    takes the transitive closure of its subgroups' preferences, each pair once."""
    n_groups = prepared.group_query.size
    subgroups_per_group = np.bincount(
        prepared.group[np.r_[True, prepared.subgroup[1:] != prepared.subgroup[:-1]]],
        minlength=n_groups,
    )
    is_array = subgroups_per_group > 1
    array_row = is_array[prepared.group]
    ec_rows = np.flatnonzero(~array_row)
    better, worse = _direct_pairs(ec_rows, prepared)
    if (prepared.rank[better] == prepared.rank[worse]).any():
        raise ValueError("a document has two levels in one judgment subgroup")
    pair_group = [prepared.group[better]]
    pair_better = [prepared.rank[better]]
    pair_worse = [prepared.rank[worse]]
    pair_worse_level = [prepared.level[worse]]

    njr = prepared.judged_retrieved[prepared.group_query]
    rel = prepared.level > 0
    ret = prepared.rank < njr[prepared.group]
    n = n_groups
    relevant = np.bincount(prepared.group[ec_rows], weights=rel[ec_rows], minlength=n)
    relevant_ret = np.bincount(prepared.group[ec_rows], weights=(rel & ret)[ec_rows], minlength=n)
    nonrelevant = np.bincount(prepared.group[ec_rows], weights=~rel[ec_rows], minlength=n)
    nonrelevant_ret = np.bincount(
        prepared.group[ec_rows], weights=(~rel & ret)[ec_rows], minlength=n
    )

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
            pair_group.append(np.full(i.size, g))
            pair_better.append(ranks[i])
            pair_worse.append(ranks[j])
            pair_worse_level.append(levels[j])
            is_ret = ranks < njr[g]
            relevant[g] = np.count_nonzero(levels > 0)
            relevant_ret[g] = np.count_nonzero((levels > 0) & is_ret)
            nonrelevant[g] = np.count_nonzero(levels == 0)
            nonrelevant_ret[g] = np.count_nonzero((levels == 0) & is_ret)
            array_groups[g] = (ranks, levels, matrix)

    group = np.concatenate(pair_group).astype(np.int64)
    b = np.concatenate(pair_better).astype(np.int64)
    w = np.concatenate(pair_worse).astype(np.int64)
    worse_level = np.concatenate(pair_worse_level)
    order = np.argsort(group, kind="stable")
    pairs = _Pairs(group[order], b[order], w[order], worse_level[order])
    counts = _group_counts(pairs, njr, n)
    counts = counts._replace(
        relevant=relevant.astype(np.int64),
        relevant_ret=relevant_ret.astype(np.int64),
        nonrelevant=nonrelevant.astype(np.int64),
        nonrelevant_ret=nonrelevant_ret.astype(np.int64),
    )
    return _Counted(pairs, counts, array_groups)


def _check_zero_levels(levels, local):
    """trec_eval refuses a document of level 0 in one subgroup, above 0 in another."""
    zero = np.zeros(local.max() + 1, dtype=bool)
    positive = np.zeros(local.max() + 1, dtype=bool)
    zero[local[levels == 0]] = True
    positive[local[levels > 0]] = True
    if (zero & positive).any():
        raise ValueError("a document has both level 0 and a level above 0 in one group")


def _group_counts(pairs, njr, n_groups):
    limit = njr[pairs.group]
    better_ret = pairs.better < limit
    worse_ret = pairs.worse < limit

    def per_group(mask):
        return np.bincount(pairs.group[mask], minlength=n_groups).astype(np.int64)

    zeros = np.zeros(n_groups, dtype=np.int64)
    return _GroupCounts(
        fulfilled_ret=per_group(better_ret & worse_ret & (pairs.better < pairs.worse)),
        possible_ret=per_group(better_ret & worse_ret),
        fulfilled_imp=per_group(better_ret & ~worse_ret),
        possible_imp=per_group(better_ret != worse_ret),
        not_occurring=per_group(~better_ret & ~worse_ret),
        relevant=zeros,
        relevant_ret=zeros,
        nonrelevant=zeros,
        nonrelevant_ret=zeros,
    )
