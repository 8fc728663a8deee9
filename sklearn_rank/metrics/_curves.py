"""A metric at every cut-off k = 1..k_max, from one ranking of the input.

`metric_at_k_curve` ranks once with the prefix ``k_max`` (the kernel keeps every tie group
holding a relevant item that starts inside it), then fills a (k_max, n_queries) matrix
with per-position terms and sums it over positions. Under ``ties="average"`` a position
inside a tie group of n items, m of them relevant, holds the group's mean (m / n relevant,
G / n gain): that gives exactly every metric that sums per-position terms (precision,
recall, F1, CG, DCG, NDCG, MAP over R or min(k, R): at offset j of a group
E[rel * hits up to it] = (m/n)(H + 1) + (j - 1) m (m - 1) / (n (n - 1))), and MRR and hit
rate from the distribution of the first relevant position. AP over the hits in the top k
and the top-k AUC divide by a random count where k cuts a tie group: those cells (at most
k_max per query) are averaged over the hypergeometric number of relevant items drawn, as
`_reductions` does for one k.

Each metric's mathematics is written once: the ratios, the per-position and first-relevant
terms, a group's mean gain and the expectations at a cut tie group come from
`_reductions`, the discount and the ideal DCG's terms from `_counting`; only the sums over
positions are the curve's own. The values go through `evaluate`'s aggregator.
"""

import numpy as np

from ..conventions import _fill_doc
from ..conventions._declarations import CONVENTIONS, check_k, resolve
from ..utils._threads import _block_runner, _check_n_jobs
from ._aggregate import _aggregate
from ._blocks import _split_queries
from ._counting import _discount, _ideal_terms, _relevance_levels, _sum_by
from ._evaluate import _GAIN_FUNCTIONS, _no_relevant_rule, _prepare, _warn_skipped
from ._kernel import _rank
from ._names import _parse_name
from ._reductions import (
    _average_precision_of,
    _expected_auc_at_boundary,
    _expected_precision_over_hits,
    _f1_of,
    _has_relevant,
    _hit_rate_of,
    _mean_gain,
    _precision_coefficients,
    _precision_of,
    _ratio,
    _recall_of,
    _reciprocal_rank_terms,
    _same_as_ideal,
)
from ._registry import METRICS, _bounds, _within_bounds
from ._signatures import _with_conventions

# --------------------------------------------------------------------------- positions


class _Positions:
    """The positions 0..k_max - 1 that kept tie groups occupy, one entry per position.

    ``owner``: the group of each entry; ``offset``: 1-based place inside its group;
    ``cell``: flat index position * n_queries + query of a (k_max, n_queries) matrix.
    Matrices are laid out by cut-off, so that summing over positions adds whole rows
    (and the mean over queries sums contiguous rows).
    """

    def __init__(self, r, k_max):
        self.r, self.k_max = r, k_max
        taken = r.taken(k_max)
        self.owner = np.repeat(np.arange(r.n_groups), taken)
        first = np.cumsum(taken) - taken
        self.offset = np.arange(self.owner.size) - first[self.owner] + 1
        position = r.start[self.owner] + (self.offset - 1)
        self.cell = position * np.int64(r.n_queries) + r.query[self.owner]

    def cumulative(self, terms):
        """Per k and query: the sum of the per-entry ``terms`` over positions < k."""
        return _cumulative_cells(self.k_max, self.r.n_queries, self.cell, terms)


def _cumulative_cells(k_max, n_queries, cell, terms):
    matrix = np.zeros(k_max * n_queries)
    matrix[cell] = terms
    return _running_sum(matrix.reshape(k_max, n_queries))


def _running_sum(matrix):
    """Cumulative sum along axis 0, in place: one vector addition per row (numpy's
    cumsum along the first axis is many times slower on wide rows; on narrow ones the
    rows' Python loop would cost more). Both add in the same order."""
    if matrix.shape[1] < 256:
        return np.cumsum(matrix, axis=0, out=matrix)
    for k in range(1, matrix.shape[0]):
        np.add(matrix[k - 1], matrix[k], out=matrix[k])
    return matrix


def _at_ends(r, k_max, group_values):
    """Per k and query: the sum of ``group_values`` over groups ending at or before k
    (wholly inside the top k)."""
    end = r.start + r.size
    inside = np.flatnonzero(end <= k_max)
    cell = (end[inside] - 1) * np.int64(r.n_queries) + r.query[inside]
    matrix = _sum_by(cell, group_values[inside], k_max * r.n_queries)
    return _running_sum(matrix.reshape(k_max, r.n_queries))


def _straddles(r, k_max):
    """Cut-offs k that fall strictly inside a tie group of more than one item.

    Returns the group, t = k - start (its positions inside the top k) and the flat cell
    of each; none with ``ties="stable"``.
    """
    if r.stable:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, empty
    count = np.clip(np.minimum(r.size - 1, k_max - r.start), 0, None)
    group = np.repeat(np.arange(r.n_groups), count)
    t = np.arange(group.size) - (np.cumsum(count) - count)[group] + 1
    cell = (r.start[group] + t - 1) * np.int64(r.n_queries) + r.query[group]
    return group, t, cell


def _ks(k_max):
    """The cut-offs as a column, to broadcast against (k_max, n_queries) matrices."""
    return np.arange(1, k_max + 1, dtype=np.float64)[:, None]


# --------------------------------------------------------------------------- curves
# Each returns (values of shape (k_max, n_queries), has_relevant of shape (n_queries,)).
# What a metric's value at one k computes alike comes from `_reductions` (its ratios,
# terms and expectations); here are the sums over positions that give every k at once.


def _expected_hits_curve(p, threshold):
    r = p.r
    density = r.relevant_in_group(threshold) / r.size
    return p.cumulative(density[p.owner])


def _precision_curve(p, *, relevance_threshold, short_lists):
    hits = _expected_hits_curve(p, relevance_threshold)
    values = _precision_of(p.r, hits, _ks(p.k_max), short_lists)
    return values, _has_relevant(p.r, relevance_threshold)


def _recall_curve(p, *, relevance_threshold):
    hits = _expected_hits_curve(p, relevance_threshold)
    return _recall_of(p.r, hits, relevance_threshold), _has_relevant(p.r, relevance_threshold)


def _f1_curve(p, *, relevance_threshold, short_lists):
    hits = _expected_hits_curve(p, relevance_threshold)
    values = _f1_of(p.r, hits, _ks(p.k_max), relevance_threshold, short_lists)
    return values, _has_relevant(p.r, relevance_threshold)


def _first_relevant_curve(p, threshold, reciprocal):
    r = p.r
    query, position, prob = r.first_relevant(threshold, p.k_max)
    terms = _reciprocal_rank_terms(prob, position) if reciprocal else prob
    cell = position * np.int64(r.n_queries) + query
    return _cumulative_cells(p.k_max, r.n_queries, cell, terms), _has_relevant(r, threshold)


def _hit_rate_curve(p, *, relevance_threshold):
    values, has = _first_relevant_curve(p, relevance_threshold, reciprocal=False)
    return _hit_rate_of(values), has


def _reciprocal_rank_curve(p, *, relevance_threshold):
    return _first_relevant_curve(p, relevance_threshold, reciprocal=True)


def _gain_curve(p, gain, log_base=None):
    r = p.r
    density = _mean_gain(r, gain)[p.owner]
    if log_base is not None:
        position = (r.start[p.owner] + p.offset - 1).astype(np.float64)
        density = density * _discount(position, log_base)
    return p.cumulative(density)


def _cg_curve(p, *, gain):
    return _gain_curve(p, gain), p.r.has_nonzero()


def _dcg_curve(p, *, gain, log_base=2.0):
    return _gain_curve(p, gain, log_base), p.r.has_nonzero()


def _ndcg_curve(p, *, gain, ideal_dcg="achievable"):
    r = p.r
    values = _gain_curve(p, gain, 2.0)
    ideal = _ideal_dcg_curve(r, p.k_max, gain)
    # The ideal DCG@k grows with k from its first term, the largest gain: a query has a
    # positive ideal at every k or at none.
    has = ideal[-1] > 0
    if ideal_dcg == "k":
        # As `_reductions.normalized_dcg` (RecTools): k items of gain 1, each k's sum
        # taken as that function takes it, so that every point equals its value.
        terms = 1.0 / np.log2(np.arange(p.k_max, dtype=np.float64) + 2.0)
        full = np.array([np.sum(terms[:k]) for k in range(1, p.k_max + 1)])
        ideal = np.where(has[None, :], full[:, None], 0.0)
    # As `_reductions.normalized_dcg`: a query whose top k holds a tie group, and whose
    # DCG is the ideal up to rounding, scores exactly 1.
    tied = np.flatnonzero(r.size > 1)
    first_tie = np.full(r.n_queries, np.inf)
    np.minimum.at(first_tie, r.query[tied], r.start[tied])
    rows = np.flatnonzero(has & np.isfinite(first_tie))
    dcg, best = values[:, rows], ideal[:, rows]
    snap = (_ks(p.k_max) > first_tie[rows]) & _same_as_ideal(dcg, best)
    values = _ratio(values, ideal, out=values)
    values[:, rows] = np.where(snap, 1.0, values[:, rows])
    return values, has


def _ideal_dcg_curve(r, k_max, gain):
    """Per k and query, DCG@k of all judged relevances sorted descending: the terms of
    `_counting._ideal_dcg` for one k (`_counting._ideal_terms`), cumulated in the same
    order."""
    codes, rel = r._judged()
    positive = rel > 0
    query, rel = codes[positive], rel[positive]
    n_queries = r.n_queries
    if rel.size == 0:
        return np.zeros((k_max, n_queries))
    levels, level = _relevance_levels(rel)
    query, position, terms = _ideal_terms(query, rel, levels, level, n_queries, k_max, gain)
    return _cumulative_cells(k_max, n_queries, position * np.int64(n_queries) + query, terms)


def _precision_terms(p, threshold):
    """Per entry: E[rel(position) * hits up to it] / (position + 1), which
    `_reductions._precision_sums` sums over a group in closed form."""
    r = p.r
    first, pairs = _precision_coefficients(r, r.relevant_in_group(threshold))
    g, j = p.owner, p.offset
    return (first[g] + (j - 1.0) * pairs[g]) / (r.start[g] + j)


def _average_precision_curve(p, *, relevance_threshold, ap_denominator):
    r, k_max = p.r, p.k_max
    has = _has_relevant(r, relevance_threshold)
    terms = _precision_terms(p, relevance_threshold)
    if ap_denominator == "hits":
        return _average_precision_over_hits(p, terms, relevance_threshold), has
    total = p.cumulative(terms)
    return _average_precision_of(r, total, _ks(k_max), relevance_threshold, ap_denominator), has


def _average_precision_over_hits(p, terms, threshold):
    """Sum / hits: where k cuts a tie group, averaged over the relevant items x drawn
    into its t top-k positions (`_reductions._average_precision_over_hits`)."""
    r, k_max = p.r, p.k_max
    m = r.relevant_in_group(threshold)
    sums = _at_ends(r, k_max, _sum_by(p.owner, terms, r.n_groups))
    group, t, cell = _straddles(r, k_max)
    drawn = None
    if group.size:
        s = r.start[group]
        # The sum over the query's earlier groups is its sum at k = s, added up within
        # the query (`r.before` subtracts running sums over every query: its rounding
        # would depend on the other queries, and on the blocks of n_jobs).
        at_s = (np.maximum(s, 1) - 1) * np.int64(r.n_queries) + r.query[group]
        fixed = np.where(s > 0, sums.reshape(-1)[at_s], 0.0)
        m_drawn = np.rint(m[group]).astype(np.int64)
        drawn = _expected_precision_over_hits(
            r, s, r.size[group], m_drawn, t, r.before(m)[group], fixed
        )
    values = _ratio(sums, _at_ends(r, k_max, m), out=sums)
    if drawn is not None:
        values.reshape(-1)[cell] = drawn
    return values


def _auc_curve(p, *, relevance_threshold):
    """Top-k AUC at every k (`_reductions.ranking_auc`).

    With P positives and N = s - P negatives among the s positions of the groups wholly
    inside the top k, the correct pairs are P N + C, where C sums over those groups
    m (P through the group - its end) + m (n - m) / 2: integers and halves, exact.
    """
    r, k_max = p.r, p.k_max
    m = r.relevant_in_group(relevance_threshold)
    end = r.start + r.size
    through = r.before(m) + m
    c = m * (through - end) + 0.5 * m * (r.size - m)
    # In place: four (k_max, n_queries) matrices would each cost a pass over memory.
    positive = _at_ends(r, k_max, m)
    pairs = np.minimum(r.n_cand[None, :], _ks(k_max))
    pairs -= positive  # the negatives
    pairs *= positive
    correct = _at_ends(r, k_max, c)
    correct += pairs
    values = _ratio(correct, pairs, empty=0.5, out=correct)
    del positive, pairs
    group, t, cell = _straddles(r, k_max)
    if group.size:
        positive_before = r.before(m)[group]
        negative_before = r.start[group] - positive_before
        # The pairs of earlier groups: P N + C (C: inside and between those groups).
        correct_before = r.before(c)[group] + positive_before * negative_before
        values.reshape(-1)[cell] = _expected_auc_at_boundary(
            r.size[group],
            np.rint(m[group]).astype(np.int64),
            t,
            positive_before,
            negative_before,
            correct_before,
        )
    return values, _has_relevant(r, relevance_threshold)


_CURVES = {
    "precision": _precision_curve,
    "recall": _recall_curve,
    "f1": _f1_curve,
    "hit_rate": _hit_rate_curve,
    "mrr": _reciprocal_rank_curve,
    "map": _average_precision_curve,
    "cg": _cg_curve,
    "dcg": _dcg_curve,
    "ndcg": _ndcg_curve,
    "auc": _auc_curve,
}


# --------------------------------------------------------------------------- entry points


def _curve_metric(metric):
    """The registry entry of a metric name given without a cut-off."""
    if not isinstance(metric, str):
        raise ValueError(f"metric must be a metric name such as 'ndcg'; got {metric!r}.")
    entry, k = _parse_name(metric)
    if k is not None:
        raise ValueError(
            f"metric must be a name without a cut-off (the curve runs over k = 1..k_max); "
            f"got {metric!r}: pass {entry.name!r} and k_max={k}."
        )
    if not entry.takes_k:
        raise ValueError(f"Metric {entry.name!r} takes no cut-off, so it has no curve over k.")
    if entry.name not in _CURVES:
        raise ValueError(
            f"metric_at_k_curve has no curve for {entry.name!r}; it has curves for "
            f"{', '.join(sorted(_CURVES))}."
        )
    return entry


def _metric_curves(
    names,
    y_true,
    y_score,
    *,
    k_max,
    groups,
    exclude,
    sample_weight,
    per_query,
    conventions,
    n_jobs=None,
):
    """Several metrics' curves from one normalisation and one ranking: {name: values}.

    ``conventions`` as `sklearn_rank.conventions.resolve` returns them; ``n_jobs``: blocks
    of queries are ranked and reduced on that many threads, as in `evaluate` (per-query
    curves depend on their query alone, so the values do not depend on it).
    """
    entries = [_curve_metric(name) for name in names]
    requests = [(name, entry, k_max) for name, entry in zip(names, entries)]
    n_threads = _check_n_jobs(n_jobs)
    queries, _ids, weights, item_ids, _side = _prepare(
        requests, y_true, y_score, groups, exclude, sample_weight, conventions, n_threads
    )
    parameters = dict(conventions, gain=_GAIN_FUNCTIONS[conventions["gain"]])
    first_relevant = all(entry.first_relevant_only for entry in entries)

    def curves(make_block):
        ranking = _rank(
            make_block(),
            k_max,
            conventions["ties"],
            first_relevant,
            conventions["relevance_threshold"],
        )
        positions = _Positions(ranking, k_max)
        computed = []
        for entry in entries:
            with np.errstate(over="ignore", invalid="ignore"):
                computed.append(
                    _CURVES[entry.name](positions, **{p: parameters[p] for p in entry.conventions})
                )
        return computed

    blocks = _split_queries(queries, n_threads)
    with _block_runner(len(blocks), n_threads) as run:
        parts = run(curves, blocks)
    del blocks
    results, skipped = {}, []
    for at, (name, entry) in enumerate(zip(names, entries)):
        values, has_relevant = _joined_curves([part[at] for part in parts])
        values = _within_bounds(values, _bounds(entry.value_range), copy=False)
        rule = _no_relevant_rule(conventions, entry, item_ids)
        if rule != _no_relevant_rule(conventions, entry) and not has_relevant.all():
            skipped.append((name, int((~has_relevant).sum())))
        results[name] = _aggregate(
            values, has_relevant, rule, weights, per_query, lambda i, name=name: f"{name}@{i + 1}"
        )
    if skipped:
        _warn_skipped(skipped, queries.n_queries)
    return results


def _joined_curves(parts):
    """The (k_max, n_queries) curves and flags of blocks of queries, in query order."""
    if len(parts) == 1:
        return parts[0]
    values, has_relevant = zip(*parts)
    return np.concatenate(values, axis=1), np.concatenate(has_relevant)


def _unhonoured_conventions():
    """The conventions that apply to no metric with a curve (``iprec_rounding``): the
    curve could only ignore them, so they are refused."""
    return {
        name
        for name in CONVENTIONS
        if any(name in entry.conventions for entry in METRICS.values())
        and not any(name in METRICS[metric].conventions for metric in _CURVES)
    }


@_with_conventions()
@_fill_doc
def metric_at_k_curve(
    y_true,
    y_score,
    metric,
    *,
    k_max,
    groups=None,
    exclude=None,
    sample_weight=None,
    per_query=False,
    **conventions,
):
    """A ranking metric at every cut-off k = 1, ..., k_max, from one ranking of the input.

    ``values[k - 1]`` equals ``evaluate(y_true, y_score, [f"{metric}@{k}"])`` for every
    k (to rounding), with the same conventions, but the input is normalised and ranked
    once and the cut-offs come from cumulative sums over positions: the whole curve
    costs little more than the metric at ``k_max`` alone. Under ``ties="average"`` every
    point is the exact expected value over the orderings of tied scores. Conventions that
    do not apply to ``metric`` (``gain`` for ``"precision"``) are ignored for it, as
    `evaluate` ignores them.

    Parameters
    ----------
    {y_true}
    {y_score}
    metric : str
        A metric name without a cut-off that takes one: ``"ndcg"``, ``"dcg"``, ``"cg"``,
        ``"precision"``, ``"recall"``, ``"f1"``, ``"hit_rate"``, ``"mrr"``, ``"map"`` or
        ``"auc"`` (Hivemall's top-k form).
    k_max : int
        The largest cut-off; the curve has one point per k in 1..k_max. Memory grows as
        n_queries * k_max floats.
    {groups}
    {exclude}
    {sample_weight}
    {conventions}
    per_query : bool, default=False
        Return the per-query curves, shape (n_queries, k_max), in the query order of
        ``evaluate(..., per_query=True)``, instead of their (weighted) mean.

    Returns
    -------
    ks : ndarray of shape (k_max,)
        The cut-offs 1, ..., k_max.
    values : ndarray of shape (k_max,), or (n_queries, k_max) with ``per_query=True``
        The metric at each cut-off: the mean over queries (after ``no_relevant`` and
        ``sample_weight``), or each query's value.

    Raises
    ------
    ValueError
        If ``metric`` has no curve over k, or if ``iprec_rounding`` is given: it applies
        only to the interpolated precision, which has no curve over k
        (`InterpolatedPrecisionRecallDisplay` draws it).

    See Also
    --------
    evaluate : the metric at given cut-offs.
    MetricAtKDisplay : plots these curves.

    References
    ----------
    .. [1] F. McSherry and M. Najork, "Computing Information Retrieval Performance
       Measures Efficiently in the Presence of Tied Scores", ECIR 2008.

    Examples
    --------
    >>> from sklearn_rank import metric_at_k_curve
    >>> y_true = [[3, 2, 0, 1], [0, 0, 1, 1]]
    >>> y_score = [[0.9, 0.8, 0.1, 0.4], [0.2, 0.1, 0.7, 0.3]]
    >>> ks, values = metric_at_k_curve(y_true, y_score, "precision", k_max=4)
    >>> ks
    array([1, 2, 3, 4])
    >>> values
    array([1.        , 1.        , 0.83333333, 0.625     ])
    """
    k_max = check_k(k_max, "k_max")
    if k_max is None:
        raise ValueError("k_max must be a positive integer; got None.")
    n_jobs = conventions.pop("n_jobs", None)
    for name in sorted(_unhonoured_conventions()):
        if conventions.get(name) is not None:
            metrics = [entry.name for entry in METRICS.values() if name in entry.conventions]
            raise ValueError(
                f"metric_at_k_curve cannot honour {name}={conventions[name]!r}: it applies "
                f"only to {', '.join(metrics)}, which have no curve over k."
            )
    conventions = resolve(conventions.pop("convention", None), conventions)
    values = _metric_curves(
        [metric],
        y_true,
        y_score,
        k_max=k_max,
        groups=groups,
        exclude=exclude,
        sample_weight=sample_weight,
        per_query=per_query,
        conventions=conventions,
        n_jobs=n_jobs,
    )[metric]
    return np.arange(1, k_max + 1), values
