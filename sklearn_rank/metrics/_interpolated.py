"""Interpolated precision at recall levels, as trec_eval's ``iprec_at_recall`` defines it.

Per query with R relevant items, h of them ranked, and the m-th relevant item at rank r_m:
at recall level p, c = round(p R) (trec_eval 10.0: ``lround``, halves away from zero;
9.x and pytrec_eval: ``(long)(p R + 0.9)``); the value is 0 if c > h, else
max over m >= max(c, 1) of m / r_m, the best precision at or after the c-th relevant item
(shared/spec/MEASURES_TREC.md, sections 2 and 3).

With ``ties="stable"`` every tie group is one item and the value is that maximum. With
``ties="average"`` it is the exact expected value over the orderings of tied items: a
group of n items, a of them relevant, H relevant before it and s items before it, yields
V = max over its relevant j (H + j >= c) of (H + j) / (s + q_j), q_1 < ... < q_a the
random ranks of its relevant items inside it. Groups are independent and the value is
the largest V. Groups that are one item or all relevant are constant; their largest value
and every group's least possible one, (H + a) / (s + n), give a floor D. Above it,
E = D + sum over the values t_1 < t_2 < ... that a group can take of
(t_i - t_(i-1)) (1 - prod over groups of P(V < t_i)), with t_0 = D. For t = num / den,
V < t holds when q_j >= L_j = floor((H + j) den / num) - s + 1 for every counted j, and
its probability is counted over the a-subsets of 1..n by a dynamic programme over
positions, batched over every (group, threshold) of the same n and a. It costs
O(n a) per group and threshold, with up to a (n - a + 1) thresholds a group: cheap for the
small tie groups of real runs, O(a^2 n^2) for one large group of tied relevant items.
"""

from types import SimpleNamespace

import numpy as np

from ._curve_base import _aggregate_curve
from ._evaluate import _no_relevant_rule, _prepare, _warn_skipped
from ._kernel import _rank

DEFAULT_RECALL_LEVELS = np.arange(11) / 10.0  # 0.0, 0.1, ..., 1.0 as trec_eval's literals
TREC_EVAL_VERSIONS = ("10", "9")
_MEASURE = SimpleNamespace(
    name="iprec_at_recall",
    conventions=("relevance_threshold",),
    negative_relevance=False,
    no_relevant_default=0.0,
)
_BLOCK = 1 << 20  # cells of one batch of the dynamic programme


def _check_recall_levels(recall_levels):
    levels = np.asarray(recall_levels if recall_levels is not None else DEFAULT_RECALL_LEVELS)
    if levels.ndim == 0:
        levels = levels[None]
    try:
        levels = levels.astype(np.float64)
    except (TypeError, ValueError):
        levels = np.array([np.nan])
    if (
        levels.ndim != 1
        or levels.size == 0
        or not np.isfinite(levels).all()
        or (levels < 0).any()
        or (levels > 1).any()
    ):
        raise ValueError(
            "recall_levels must be a non-empty 1-D list of numbers in [0, 1]; got "
            f"{recall_levels!r}."
        )
    return levels


def _check_version(trec_eval_version, convention):
    if trec_eval_version is None:
        # The trec_eval 9.x preset (pytrec_eval's rules) rounds recall levels as 9.x does.
        return "9" if convention == "trec_eval9" else "10"
    if trec_eval_version not in TREC_EVAL_VERSIONS:
        raise ValueError(f"trec_eval_version must be '10', '9' or None; got {trec_eval_version!r}.")
    return trec_eval_version


def _cut_off_counts(levels, relevant, version):
    """c per query and level: how many relevant items recall level p needs."""
    x = relevant[:, None] * levels[None, :]
    if version == "9":
        return np.floor(x + 0.9)
    whole = np.floor(x)
    return whole + (x - whole >= 0.5)  # lround: halves away from zero


def _interpolated_precision(
    y_true,
    y_score,
    *,
    recall_levels=None,
    trec_eval_version=None,
    groups=None,
    exclude=None,
    sample_weight=None,
    per_query=False,
    convention=None,
    conventions,
):
    """Interpolated precision at each recall level: the (weighted) mean over queries, or
    per query (n_queries, n_levels). ``conventions`` as `resolve` returns them, and
    ``convention`` the preset's name (it decides the default ``trec_eval_version``)."""
    levels = _check_recall_levels(recall_levels)
    version = _check_version(trec_eval_version, convention)
    queries, _ids, weights, item_ids = _prepare(
        [(_MEASURE.name, _MEASURE, None)],
        y_true,
        y_score,
        groups,
        exclude,
        sample_weight,
        conventions,
    )
    threshold = conventions["relevance_threshold"]
    ranking = _rank(queries, None, conventions["ties"], False, threshold)
    order = np.argsort(levels, kind="stable")
    values = np.empty((levels.size, queries.n_queries))
    values[order] = _iprec(ranking, levels[order], version, threshold).T
    rule = _no_relevant_rule(conventions, _MEASURE, item_ids)
    has_relevant = ranking.relevant_count(threshold) > 0
    if rule != _no_relevant_rule(conventions, _MEASURE) and not has_relevant.all():
        _warn_skipped([(_MEASURE.name, int((~has_relevant).sum()))], queries.n_queries)
    return levels, _aggregate_curve(
        values,
        has_relevant,
        rule,
        weights,
        per_query,
        lambda i: f"iprec_at_recall_{levels[i]:.2f}",
    )


def _iprec(r, levels, version, threshold):
    """(n_queries, n_levels) values for ascending ``levels``."""
    relevant = r.relevant_count(threshold)
    a_all = r.relevant_in_group(threshold)
    ranked = r.per_query(a_all)
    c = _cut_off_counts(levels, relevant, version)
    needed = np.maximum(c, 1.0)  # c' of the spec
    holding = np.flatnonzero(a_all > 0)
    query, start, size = r.query[holding], r.start[holding], r.size[holding]
    a, before = a_all[holding], r.before(a_all)[holding]
    reach = before + a  # counts the levels with c' <= reach as reached
    constant = (size == 1) | (a == size)
    # A constant group's value; a random group's least possible one.
    floor_value = (before + a) / (start + np.where(constant, a, size))
    reached = np.count_nonzero(needed[query] <= reach[:, None], axis=1)
    floor = np.zeros(needed.shape)
    some = reached > 0
    np.maximum.at(floor, (query[some], reached[some] - 1), floor_value[some])
    floor = np.maximum.accumulate(floor[:, ::-1], axis=1)[:, ::-1]  # reached levels: a prefix
    values = floor
    random = np.flatnonzero(~constant & some)
    if random.size:
        group = SimpleNamespace(
            query=query[random],
            start=start[random],
            size=size[random],
            a=a[random].astype(np.int64),
            before=before[random].astype(np.int64),
            reached=reached[random],
        )
        values = _expected_maximum(group, needed, floor)
    return np.where(c <= ranked[:, None], values, 0.0)


def _expected_maximum(group, needed, floor):
    """The tie-averaged values, where a random group can beat the floor."""
    n_queries, n_levels = needed.shape
    # Levels needing the same count have the same value: compute the first of each run.
    first = np.ones(needed.shape, dtype=bool)
    first[:, 1:] = needed[:, 1:] != needed[:, :-1]
    # Tasks: (random group, level) with the level reached and the group's best value,
    # its relevant items first in it, above the floor.
    owner = np.repeat(np.arange(group.query.size), group.reached)
    level = np.arange(owner.size) - np.repeat(
        np.cumsum(group.reached) - group.reached, group.reached
    )
    q = group.query[owner]
    best = (group.before + group.a) / (group.start + group.a)
    keep = first[q, level] & (best[owner] > floor[q, level])
    owner, level, q = owner[keep], level[keep], q[keep]
    case = q * np.int64(n_levels) + level
    s, n, a, before = (x[owner] for x in (group.start, group.size, group.a, group.before))
    lowest_j = np.maximum(1, needed[q, level].astype(np.int64) - before)
    task_floor = floor[q, level]

    # Every value a task's group can take above the floor: (H + j) / (s + q_j).
    per_j = n - a + 1
    count = (a - lowest_j + 1) * per_j
    task = np.repeat(np.arange(owner.size), count)
    index = np.arange(task.size) - np.repeat(np.cumsum(count) - count, count)
    j = lowest_j[task] + index // per_j[task]
    rank = j + index % per_j[task]
    numerator, denominator = before[task] + j, s[task] + rank
    t = numerator / denominator
    above = t > task_floor[task]
    task, numerator, denominator, t = task[above], numerator[above], denominator[above], t[above]
    # Distinct thresholds per case, ascending.
    order = np.lexsort((t, case[task]))
    task, numerator, denominator, t = task[order], numerator[order], denominator[order], t[order]
    new = np.ones(t.size, dtype=bool)
    new[1:] = (case[task][1:] != case[task][:-1]) | (t[1:] != t[:-1])
    threshold_case = case[task][new]
    numerator, denominator, t = numerator[new], denominator[new], t[new]

    # Pairs (task, threshold of its case at most its best value): P(V < t) < 1 there;
    # above its best a group is always below t (factor 1).
    case_start = np.searchsorted(threshold_case, case, side="left")
    within = _count_up_to(t, threshold_case, case, best[owner]) - case_start
    pair_task = np.repeat(np.arange(owner.size), within)
    pair_threshold = case_start[pair_task] + (
        np.arange(pair_task.size) - np.repeat(np.cumsum(within) - within, within)
    )
    below = _probability_below(
        n[pair_task],
        a[pair_task],
        before[pair_task],
        s[pair_task],
        lowest_j[pair_task],
        numerator[pair_threshold],
        denominator[pair_threshold],
    )
    # Product over the tasks of each threshold.
    product = np.ones(t.size)
    np.multiply.at(product, pair_threshold, below)
    step = np.diff(np.concatenate(([0.0], t)))
    head = np.ones(t.size, dtype=bool)
    head[1:] = threshold_case[1:] != threshold_case[:-1]
    base = floor.reshape(-1)[threshold_case]
    step[head] = t[head] - base[head]
    gain = np.bincount(threshold_case, step * (1.0 - product), minlength=n_queries * n_levels)
    values = floor + gain.reshape(n_queries, n_levels)
    # Copy each run's first level to the rest of its run.
    for column in range(1, n_levels):
        same = ~first[:, column]
        values[same, column] = values[same, column - 1]
    return values


def _count_up_to(t, t_case, case, limit):
    """Per task: the index after the last threshold of its case that is <= its limit.

    ``t`` is sorted by (``t_case``, value). Values become exact integer ranks, so one
    search over (case, rank) keys serves every case.
    """
    _distinct, rank = np.unique(np.concatenate((t, limit)), return_inverse=True)
    rank = rank.ravel()
    width = np.int64(rank.max(initial=0) + 1)
    keys = t_case * width + rank[: t.size]
    return np.searchsorted(keys, case * width + rank[t.size :], side="right")


def _probability_below(n, a, before, start, lowest_j, numerator, denominator):
    """P(V < numerator / denominator) of a group of n items, a relevant, per row.

    V < t when the j-th relevant item's rank q_j in its group is at least
    L_j = floor((H + j) den / num) - s + 1 for every j >= lowest_j. Over the a-subsets of
    1..n, counted position by position and normalised as it goes (a convex combination:
    no overflow for large groups): g[pos][cnt] = ((pos - cnt) g[pos - 1][cnt]
    + cnt [pos >= L_cnt] g[pos - 1][cnt - 1]) / pos. Rows of equal (n, a) are batched.
    """
    out = np.empty(n.size)
    key = n * np.int64(a.max(initial=0) + 1) + a
    order = np.argsort(key, kind="stable")
    bounds = np.flatnonzero(np.diff(key[order], prepend=-1, append=-1))
    for first, last in zip(bounds[:-1], bounds[1:]):
        rows = order[first:last]
        size, relevant = int(n[rows[0]]), int(a[rows[0]])
        j = np.arange(1, relevant + 1)
        lower = (before[rows, None] + j) * denominator[rows, None] // numerator[rows, None]
        lower = np.where(j >= lowest_j[rows, None], lower - start[rows, None] + 1, 0)
        step = max(1, _BLOCK // (relevant + 1))
        for block in range(0, rows.size, step):
            out[rows[block : block + step]] = _subsets_above(size, lower[block : block + step])
    return out


def _subsets_above(size, lower):
    """Share of the a-subsets of 1..size whose j-th smallest element is >= lower[:, j-1]."""
    relevant = lower.shape[1]
    share = np.zeros((lower.shape[0], relevant + 1))
    share[:, 0] = 1.0
    count = np.arange(1, relevant + 1, dtype=np.float64)
    for position in range(1, size + 1):
        keep = (position - count) / position
        take = np.where(lower <= position, count / position, 0.0)
        share[:, 1:] = keep * share[:, 1:] + take * share[:, :-1]
    return share[:, relevant]
