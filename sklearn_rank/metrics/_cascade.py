"""Reductions of the user-model measures: ERR (Chapelle et al., CIKM 2009) and RBP with
its residual (Moffat and Zobel, ACM TOIS 2008), over the kernel's tie groups.

RBP is linear in position: each position of a tie group holds its mean gain. ERR is not:
its value at a position depends on the items above. Under ``ties="average"`` it is the
exact expectation over orderings of each group, derived here:
the survival before a group does not depend on the order of earlier groups, and inside
a group an item's rank is uniform with a uniform subset of the others above it, whose
mean product of (1 - rho) comes from a normalised (convex) recursion of elementary
symmetric means, free of overflow and cancellation.
"""

import numpy as np

from ._counting import _log_comb


def _stopping(rel, max_grade):
    """ERR's stopping probability of a grade: (2**g - 1) / 2**max_grade."""
    return (np.exp2(rel) - 1.0) / np.exp2(max_grade)


def _top_grade(r, max_grade):
    _codes, judged = r.queries.judged()
    highest = float(judged.max()) if judged.size else 0.0
    if max_grade is None:
        return max(highest, 1.0)
    if highest > max_grade:
        raise ValueError(
            f"err: a grade of {highest!r} is above max_grade={max_grade!r}; ERR's stopping "
            "probability (2**g - 1) / 2**max_grade needs every grade <= max_grade."
        )
    return max_grade


def expected_reciprocal_rank(r, k=None, *, max_grade):
    top = _top_grade(r, max_grade)
    rho = _stopping(np.maximum(r.rel, 0.0), top)
    log_stay = r.group_sum(np.log1p(-rho))
    survival = np.exp(_sum_of_earlier_groups(r, log_stay))
    # One-item groups (inside the top k); the tied ones are replaced below.
    contribution = r.group_sum(rho) * survival / (r.start + 1.0) * (r.taken(k) > 0)
    tied = np.flatnonzero((r.size > 1) & (r.group_sum(rho) > 0) & (r.taken(k) > 0))
    if tied.size:
        bounds = np.searchsorted(r.group, np.arange(r.n_groups + 1))
        small = r.size[tied] <= _SMALL_GROUP
        if small.any():
            g = tied[small]
            contribution[g] = survival[g] * _small_groups_err(r, g, bounds, rho, k)
        for g in tied[~small]:
            values = rho[bounds[g] : bounds[g + 1]]
            reach = int(r.size[g]) if k is None else min(int(r.size[g]), k - int(r.start[g]))
            contribution[g] = survival[g] * _group_err(
                int(r.start[g]), int(r.size[g]), values, reach
            )
    return r.per_query(contribution), r.relevant_count(None) > 0


# Tie groups of at most this many items are averaged together, in batches of groups of one
# shape (`_small_groups_err`); larger ones one by one (`_group_err`).
_SMALL_GROUP = 64


def _small_groups_err(r, groups, bounds, rho, k):
    """`_group_err` of each of ``groups`` (tie groups of at most `_SMALL_GROUP` items), the
    same arithmetic in the same order on every value (the same bits), batched: one row per
    (group, distinct non-zero rho), rows of one (stored non-zero, size, reach) together, so
    that the Python loops run over the few shapes of small groups, not over the groups."""
    size = r.size[groups].astype(np.int64)
    start = r.start[groups].astype(np.int64)
    reach = size if k is None else np.minimum(size, k - start)
    # The non-zero rho of every group, ascending within each group.
    count = bounds[groups + 1] - bounds[groups]
    owner = np.repeat(np.arange(groups.size), count)
    item = bounds[groups][owner] + (
        np.arange(owner.size) - np.repeat(np.cumsum(count) - count, count)
    )
    value = rho[item]
    keep = value > 0
    owner, value = owner[keep], value[keep]
    order = np.lexsort((value, owner))
    owner, value = owner[order], value[order]
    nonzero = np.bincount(owner, minlength=groups.size)
    first_of_group = np.zeros(groups.size + 1, dtype=np.int64)
    np.cumsum(nonzero, out=first_of_group[1:])
    # Rows: the first copy of each distinct value of a group, with its number of copies.
    new = np.ones(value.size, dtype=bool)
    new[1:] = (owner[1:] != owner[:-1]) | (value[1:] != value[:-1])
    at = np.flatnonzero(new)
    copies = np.diff(np.append(at, value.size))
    row_group = owner[at]
    shape = np.stack((nonzero[row_group], size[row_group], reach[row_group]))
    shapes, which = np.unique(shape, axis=1, return_inverse=True)
    which = which.ravel()
    terms = np.empty(at.size)
    for number in range(shapes.shape[1]):
        stored, n, depth = (int(x) for x in shapes[:, number])
        rows = np.flatnonzero(which == number)
        g = row_group[rows]
        # The multiset less one copy of the row's value, ascending (np.delete's order).
        local = np.arange(stored - 1)[None, :]
        skip = (at[rows] - first_of_group[g])[:, None]
        others = value[first_of_group[g][:, None] + local + (local >= skip)]
        means = _subset_means_rows(1.0 - others, n - stored, depth)
        positions = start[g][:, None] + np.arange(1, depth + 1, dtype=np.float64)
        sums = np.sum(means / positions, axis=1)
        terms[rows] = copies[rows] * value[at[rows]] * sums / n
    # Each group's terms added in ascending value, from 0.0, as `_group_err` adds them.
    total = np.zeros(groups.size)
    rank = np.arange(at.size) - _first_row_of_group(row_group, groups.size)
    for step in range(int(rank.max(initial=-1)) + 1):
        now = rank == step
        total[row_group[now]] += terms[now]
    return total


def _first_row_of_group(row_group, n_groups):
    """Per row (sorted by group): the index of the first row of its group."""
    counts = np.bincount(row_group, minlength=n_groups)
    start = np.zeros(n_groups + 1, dtype=np.int64)
    np.cumsum(counts, out=start[1:])
    return start[row_group]


def _subset_means_rows(stay, n_ones, depth):
    """`_subset_means` of each row of ``stay`` (rows of one length), the same arithmetic
    elementwise; the hypergeometric mixing one row at a time, as the same matrix-vector
    product (a batched product sums in another order)."""
    n_rows, seen_all = stay.shape
    mu = np.zeros((n_rows, depth))
    mu[:, 0] = 1.0
    j = np.arange(1, depth)
    for seen in range(seen_all):
        c = stay[:, seen : seen + 1]
        shifted = mu[:, :-1].copy()
        mu[:, 1:] = ((seen + 1 - j) * mu[:, 1:] + j * c * shifted) / (seen + 1)
        mu[:, 0] = 1.0
    if not n_ones:
        return mu
    weights = _mixing_weights(seen_all, n_ones, depth)
    width = min(seen_all + 1, depth)
    out = np.empty((n_rows, depth))
    for row in range(n_rows):
        padded = np.zeros(seen_all + 1)
        padded[:width] = mu[row, :width]
        out[row] = weights @ padded
    return out


# Cells of the mixing weights made at once: a large tie group made all of them, depth x
# (stored + 1) (20,000 equal scores, 2,000 relevant: 1.3 GB); in blocks, about 130 MB.
_MIXING_CELLS = 1 << 22


def _mixing_weights(seen, n_ones, depth, first=0):
    """P(a j-subset of ``seen`` values and ``n_ones`` ones takes i of the values), (j, i),
    for j = first..depth - 1."""
    total = seen + n_ones
    j = np.arange(first, depth)[:, None]
    i = np.arange(seen + 1)[None, :]
    ok = (i <= j) & (j - i <= n_ones)
    log_p = (
        _log_comb(seen, i)
        + _log_comb(n_ones, np.clip(j - i, 0, n_ones))
        - _log_comb(total, np.minimum(j, total))
    )
    return np.where(ok, np.exp(log_p), 0.0)


def _sum_of_earlier_groups(r, values):
    """Per group, the sum of ``values`` over the earlier groups of its query, added within
    the query only (a running sum over all queries would carry the rounding of every
    earlier query, and depend on which groups the cut-off kept). One vectorised step per
    rank of a group within its query."""
    heads = np.searchsorted(r.query, np.arange(r.n_queries))
    level = np.arange(r.n_groups) - heads[r.query]
    order = np.argsort(level, kind="stable")
    bounds = np.searchsorted(level[order], np.arange(int(level.max(initial=0)) + 2))
    out = np.zeros(r.n_groups)
    for depth in range(1, bounds.size - 1):
        at = order[bounds[depth] : bounds[depth + 1]]
        out[at] = out[at - 1] + values[at - 1]
    return out


def _group_err(start, size, stored, reach):
    """E[sum over the group's items of rho / rank * prod of (1 - rho) above, in-group],
    over the orderings of a group of ``size`` items (``stored`` their non-zero rho, the
    others 0), of which the first ``reach`` positions count."""
    stored = np.sort(stored[stored > 0])
    distinct, first, counts = np.unique(stored, return_index=True, return_counts=True)
    total = 0.0
    positions = start + np.arange(1, reach + 1, dtype=np.float64)
    for value, at, count in zip(distinct, first, counts):
        others = np.delete(stored, at)  # the multiset less one copy of this grade's rho
        means = _subset_means(1.0 - others, size - 1 - others.size, reach)
        total += count * value * float(np.sum(means / positions)) / size
    return total


def _subset_means(stay, n_ones, depth):
    """mu_j, j = 0..depth - 1: the mean over j-subsets of the values ``stay`` and
    ``n_ones`` ones of their product, by the normalised recursion."""
    mu = np.zeros(depth)
    mu[0] = 1.0
    seen = 0
    for c in stay:
        j = np.arange(1, depth)
        shifted = mu[:-1].copy()
        mu[1:] = ((seen + 1 - j) * mu[1:] + j * c * shifted) / (seen + 1)
        mu[0] = 1.0
        seen += 1
    if n_ones:
        # Adding ones mixes the means hypergeometrically: a j-subset of the whole takes
        # i of the `seen` values with probability C(seen, i) C(n_ones, j - i) / C(total, j).
        padded = np.zeros(seen + 1)
        padded[: min(seen + 1, depth)] = mu[: min(seen + 1, depth)]
        if depth * (seen + 1) <= _MIXING_CELLS:
            return _mixing_weights(seen, n_ones, depth) @ padded
        # In blocks of rows (the product of a block can differ from the whole's in the
        # last bit; tie groups this large were not computed before: out of memory).
        step = max(1, _MIXING_CELLS // (seen + 1))
        mu = np.empty(depth)
        for first in range(0, depth, step):
            last = min(first + step, depth)
            mu[first:last] = _mixing_weights(seen, n_ones, last, first) @ padded
    return mu


def _rank_biased(r, k, p, item_weight):
    """sum over groups of (mean weight of its items) * sum of (1 - p) p**i over its top-k
    positions i (0-based), which is p**s (1 - p**t)."""
    weight = r.group_sum(item_weight) / r.size
    return r.per_query(weight * p ** r.start.astype(np.float64) * (1.0 - p ** r.taken(k)))


def rank_biased_precision(r, k=None, *, relevance_threshold, p, gains="binary"):
    if gains == "binary":
        hit = r.relevant(relevance_threshold)
        return _rank_biased(r, k, p, hit), r.relevant_count(relevance_threshold) > 0
    # trec_eval 10.0 (m_rbp.c): grades as gains, scaled by the query's largest grade when
    # it exceeds 1; its relevance level does not apply.
    codes, grades = r.queries.judged()
    top = np.ones(r.n_queries)
    np.maximum.at(top, codes, grades)
    gain = np.maximum(r.rel, 0.0) / top[r.query[r.group]]
    return _rank_biased(r, k, p, gain), r.relevant_count(None) > 0


def rank_biased_residual(r, k=None, *, p):
    """Moffat and Zobel's residual: the weight of the unjudged positions of the top
    d = min(k, N) plus everything below d, p**d: 1 - the weight of the judged positions."""
    depth = r.n_cand if k is None else np.minimum(r.n_cand, k)
    below = p ** depth.astype(np.float64)  # the ranks below min(k, N)
    everyone = np.ones(r.n_queries, dtype=bool)
    if r.all_judged:
        return below, everyone
    judged = r.queries.candidate_judged(r.entry) | (r.rel != 0)
    residual = np.clip(1.0 - _rank_biased(r, k, p, judged.astype(np.float64)), 0.0, 1.0)
    # Where every candidate is judged the residual is exactly the weight below.
    complete = r.per_query(r.judged_in_group()) == r.n_cand
    return np.where(complete, below, residual), everyone
