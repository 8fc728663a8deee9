"""Sampled-negative evaluation in `evaluate`: each user's positives ranked among sampled
negatives, the metric of the whole catalogue estimated from there.

The kernel ranks each user's sampled list once, as for any metric; what a correction reads
of it is, per positive, how many sampled negatives score above it and how many tie with
it, its place among its user's positives and the user's list sizes. Every supported
metric is a sum over positives of a function of the positive's exact rank (spec A.3), so a
positive's estimate is a correction vector (`_sampled_corrections`) read at its sampled
rank, the mean over the tied positions when it ties with sampled negatives. The positives
of every block of queries are joined before any correction is computed, so the EM's rank
distribution is a statistic over the whole input and ``n_jobs`` changes no value.

Several positives per user: positive i (in score order) with ``g`` catalogue negatives
above it has exact rank ``i + g``; the sampled negatives above it follow the one-positive
model with the user's ``n - L`` negatives, so the one-positive corrections apply to each
positive with the metric's value at rank ``i + g`` as target (the EM fits one rank
distribution over all positives of the same catalogue and sample sizes: an approximation
where a user's positives are not independent).
"""

import dataclasses
import warnings

import numpy as np

from ..conventions._sampling import EVALUATE_SAMPLING
from ..utils._warnings import _outside_stacklevel
from ._sampled_corrections import _bias_variance_solver, _em_prior, _sampled_rank_matrix

#: evaluate's parameters for sampled input (their docstring text).
_SAMPLED_INPUT = tuple(EVALUATE_SAMPLING.values())

#: Metrics with a corrected estimate: sums over positives of a function of the exact rank.
_CORRECTED = ("hit_rate", "recall", "precision", "ndcg", "mrr", "map", "auc")


@dataclasses.dataclass(frozen=True)
class _Sampling:
    """How the input was sampled and which estimate to report (checked already).

    catalog_size : int or (n_queries,) int array, each user's catalogue (positives and
        every negative that could have been drawn).
    correction : None, "rank_estimate", "bv", "posterior_mean" or "em".
    """

    catalog_size: object
    correction: str | None
    gamma: float
    replacement: bool
    rank_estimate_rounding: str


def _sampling_of(catalog_size, correction, gamma, replacement, rank_estimate_rounding):
    """The checked `_Sampling` of `evaluate`'s keywords, or None (the input is not sampled)."""
    given = dict(
        catalog_size=catalog_size,
        correction=correction,
        gamma=gamma,
        replacement=replacement,
        rank_estimate_rounding=rank_estimate_rounding,
    )
    checked = {name: EVALUATE_SAMPLING[name].validate(value) for name, value in given.items()}
    if checked["catalog_size"] is None:
        if checked["correction"] is not None:
            raise ValueError(
                f"correction={correction!r} needs catalog_size: the number of items each "
                "user's negatives were sampled from."
            )
        return None
    return _Sampling(**checked)


def _check_sampled_requests(requests, conventions, sampling):
    """Refuse, before any work, what a correction cannot estimate."""
    if sampling.correction is None:
        return
    for request in requests:
        name = request.metric.name
        if name not in _CORRECTED:
            raise ValueError(
                f"correction={sampling.correction!r} has no estimate of {request.label!r}: "
                f"only of {', '.join(_CORRECTED)} (sums over positives of a function of their "
                "rank). Pass correction=None for the sampled metric itself."
            )
        denominator = request.overrides.get("ap_denominator", conventions["ap_denominator"])
        if name == "map" and denominator != "relevant":
            raise ValueError(
                f"correction={sampling.correction!r} estimates map with "
                f"ap_denominator='relevant' only; got {denominator!r}."
            )


def _warn_plain(labels):
    """Say that sampled metrics reported as they are (no correction) are not the
    catalogue's."""
    warnings.warn(
        f"{', '.join(labels)} computed on the sampled lists, not on the catalogue: sampled "
        "metrics are not the full-catalogue metrics (they grow towards AUC as fewer negatives "
        "are sampled, and may order models otherwise). Pass correction='bv' (or "
        "'rank_estimate', 'posterior_mean', 'em') for an estimate of the catalogue's; see "
        "docs/sampled.md.",
        UserWarning,
        stacklevel=_outside_stacklevel(),
    )


def _positives_of(ranking, offset=0):
    """Per positive of one block's ranking: (query, sampled negatives above, sampled
    negatives tied, place among its query's positives, 1-based), and per query the
    number of positives. ``offset``: the number of the block's first query, in messages."""
    if ranking.rel.size and not np.all(ranking.rel == 1):
        raise ValueError(
            "Corrected sampled metrics need binary relevance (1 for a positive, 0 for a "
            f"sampled negative); got {float(ranking.rel[ranking.rel != 1][0])!r}."
        )
    in_group = ranking.relevant_in_group(None)
    if (in_group > 1).any():
        raise ValueError(
            "Corrected sampled metrics need each user's positives to have distinct scores "
            "(ties between a positive and sampled negatives are averaged); some positives of "
            'a user tie with each other. Pass ties="stable" to break such ties by input order.'
        )
    earlier = ranking.before(in_group).astype(np.int64)
    start = np.asarray(ranking.start, dtype=np.int64)
    size = np.asarray(ranking.size, dtype=np.int64)
    query = np.asarray(ranking.query, dtype=np.int64)
    n_positives = np.bincount(query, minlength=ranking.n_queries)
    unscored = ranking.relevant_count(None) != n_positives
    if unscored.any():
        raise ValueError(
            "Corrected sampled metrics need every positive scored: query number "
            f"{offset + int(np.flatnonzero(unscored)[0])} has a judged positive that is not "
            "among its scored items (or was excluded). Score every positive of the sampled "
            "lists."
        )
    return query, start - earlier, size - 1, earlier + 1, n_positives


@dataclasses.dataclass
class _Positives:
    """Every positive of the input (see `_positives_of`), and what the corrections of
    the requests share: per (catalogue negatives, sampled negatives) the matrix of the
    sampled rank and its solver, built once for every metric."""

    query: np.ndarray
    above: np.ndarray
    tied: np.ndarray
    place: np.ndarray
    n_positives: np.ndarray
    solvers: dict = dataclasses.field(default_factory=dict)


def _joined_positives(rankings):
    """`_positives_of` over every block, query numbers counted over the whole input."""
    parts, offset = [], 0
    for ranking in rankings:
        query, above, tied, place, n_positives = _positives_of(ranking, offset)
        parts.append((query + offset, above, tied, place, n_positives))
        offset += ranking.n_queries
    return _Positives(*(np.concatenate(columns) for columns in zip(*parts)))


def _catalog_sizes(catalog_size, n_queries):
    sizes = np.asarray(catalog_size, dtype=np.int64)
    if sizes.ndim == 0:
        return np.full(n_queries, int(sizes))
    if sizes.shape != (n_queries,):
        raise ValueError(
            f"catalog_size must be one number or one per query ({n_queries}); got "
            f"shape {sizes.shape}."
        )
    return sizes


def _target(request, log_base):
    """The metric's share of one positive at exact rank ``rank`` (float array), the
    ``place``-th of its user's ``n_positives``, in a catalogue of ``n`` items."""
    name, k = request.metric.name, request.k

    def inside(rank):
        return np.ones_like(rank) if k is None else (rank <= k).astype(np.float64)

    def discount(rank):
        return 1.0 / (np.log(rank + 1.0) / np.log(log_base))

    if name == "hit_rate":
        return lambda rank, place, n_positives, n: inside(rank) * (place == 1)
    if name == "recall":
        return lambda rank, place, n_positives, n: inside(rank) / n_positives
    if name == "precision":
        return lambda rank, place, n_positives, n: inside(rank) / (n if k is None else k)
    if name == "mrr":
        return lambda rank, place, n_positives, n: inside(rank) * (place == 1) / rank
    if name == "map":
        return lambda rank, place, n_positives, n: inside(rank) * place / rank / n_positives
    if name == "auc":
        return lambda rank, place, n_positives, n: (
            (n - n_positives - (rank - place)) / (n - n_positives) / n_positives
        )

    def ndcg(rank, place, n_positives, n):
        ideal_positions = np.arange(1, int(n_positives.max(initial=1)) + 1, dtype=np.float64)
        ideal = np.concatenate([[0.0], np.cumsum(discount(ideal_positions))])
        seen = n_positives if k is None else np.minimum(n_positives, k)
        return inside(rank) * discount(rank) / ideal[seen]

    return ndcg


def _corrected_values(request, conventions, sampling, positives, n_cand):
    """Per query: the corrected estimate of the catalogue's metric, and whether the query
    has a positive."""
    query, above, tied, place = positives.query, positives.above, positives.tied, positives.place
    n_positives = positives.n_positives
    n_queries = n_cand.size
    catalog = _catalog_sizes(sampling.catalog_size, n_queries)
    sampled = n_cand - n_positives  # negatives drawn per query
    negatives = catalog - n_positives  # negatives of the catalogue per query
    _check_sizes(sampled, negatives, n_positives, sampling)
    target = _target(request, request.overrides.get("log_base", conventions["log_base"]))
    users = (place, n_positives[query], catalog[query])
    if sampling.correction == "rank_estimate":
        share = _rank_estimate(
            target, above, tied, users, negatives[query], sampled[query], sampling
        )
    else:
        share = _by_matrix(
            target,
            above,
            tied,
            users,
            negatives[query],
            sampled[query],
            sampling,
            positives.solvers,
        )
    values = np.bincount(query, weights=share, minlength=n_queries)
    return values, n_positives > 0


def _check_sizes(sampled, negatives, n_positives, sampling):
    users = n_positives > 0
    checks = [
        (
            negatives < 1,
            "has no negative in its catalogue (catalog_size must exceed its number of positives)",
        ),
        (sampled < 1, "has no sampled negative"),
    ]
    if not sampling.replacement:
        checks.append(
            (
                sampled > negatives,
                "has more sampled negatives than its catalogue holds "
                "(without replacement; pass replacement=True if negatives were drawn with it)",
            )
        )
    for bad, what in checks:
        bad = bad & users
        if bad.any():
            first = int(np.flatnonzero(bad)[0])
            raise ValueError(
                f"correction={sampling.correction!r}: query number {first} {what}: "
                f"{int(negatives[first]) + int(n_positives[first])} items in its catalogue, "
                f"{int(n_positives[first])} positives, {int(sampled[first])} sampled negatives."
            )


def _rank_estimate(target, above, tied, users, negatives, sampled, sampling):
    """The metric at the estimated exact rank ``1 + N x / m`` (N negatives in the
    catalogue, x of the m sampled above), rounded down if so chosen; positives tied with
    sampled negatives average over the tied positions."""
    place, n_positives, catalog = users
    count = tied + 1
    each = np.repeat(np.arange(above.size), count)
    offset = np.arange(each.size) - np.repeat(np.cumsum(count) - count, count)
    drawn_above = above[each] + offset
    rank = 1.0 + negatives[each] * drawn_above / sampled[each]
    if sampling.rank_estimate_rounding == "floor":
        rank = np.floor(rank)
    rank = rank + place[each] - 1.0
    values = target(rank, place[each], n_positives[each], catalog[each])
    return np.bincount(each, weights=values, minlength=above.size) / count


def _by_matrix(target, above, tied, users, negatives, sampled, sampling, solvers):
    """Bias/variance corrections (the posterior mean at gamma = 1, with the EM's rank
    distribution as prior for "em"), one vector per (catalogue, sample, place, positives);
    ``solvers`` keeps each list size's solver for the other requests."""
    from threadpoolctl import threadpool_limits  # scikit-learn's own dependency

    # The products are small (m + 1 columns): BLAS threads cost far more than they save,
    # and more so on a loaded machine (ten times, measured).
    with threadpool_limits(limits=1, user_api="blas"):
        return _by_matrix_here(target, above, tied, users, negatives, sampled, sampling, solvers)


def _by_matrix_here(target, above, tied, users, negatives, sampled, sampling, solvers):
    place, n_positives, catalog = users
    share = np.empty(above.size)
    sizes = np.stack([negatives, sampled])
    kinds, kind_of = np.unique(sizes, axis=1, return_inverse=True)
    kind_of = kind_of.ravel()
    for kind in range(kinds.shape[1]):  # a loop over distinct list sizes, not over users
        n_negatives, m = (int(v) for v in kinds[:, kind])
        members = np.flatnonzero(kind_of == kind)
        low, high = above[members], above[members] + tied[members] + 1
        if (n_negatives, m) not in solvers:
            solvers[n_negatives, m] = _solver(n_negatives, m, low, high, sampling)
        columns, column_of = np.unique(
            np.stack([place[members], n_positives[members], catalog[members]]),
            axis=1,
            return_inverse=True,
        )
        column_of = column_of.ravel()
        exact = np.arange(1, n_negatives + 2, dtype=np.float64)[:, None]  # rank among negatives
        place_of, positives_of, catalog_of = (row[None, :] for row in columns)
        targets = target(exact + place_of - 1.0, place_of, positives_of, catalog_of)
        corrections = solvers[n_negatives, m](targets)  # (m + 1, columns)
        summed = np.concatenate([np.zeros((1, corrections.shape[1])), np.cumsum(corrections, 0)])
        share[members] = (summed[high, column_of] - summed[low, column_of]) / (high - low)
    return share


def _solver(n_negatives, m, low, high, sampling):
    """The correction solver of one list size; for "em" its prior is fitted to the
    positives observed with that size (sampled negatives above: low .. high - 1)."""
    matrix = _sampled_rank_matrix(n_negatives, m, sampling.replacement)
    if sampling.correction == "em":
        # An observation tied with sampled negatives: the mean likelihood of its positions.
        seen, counts = np.unique(np.stack([low, high]), axis=1, return_counts=True)
        tied_sums = np.concatenate([np.zeros((matrix.shape[0], 1)), np.cumsum(matrix, 1)], 1)
        likelihood = (tied_sums[:, seen[1]] - tied_sums[:, seen[0]]) / (seen[1] - seen[0])
        prior = _em_prior(matrix, likelihood.T, counts)
    else:
        prior = np.full(matrix.shape[0], 1.0 / matrix.shape[0])
    gamma = 1.0 if sampling.correction in ("posterior_mean", "em") else sampling.gamma
    return _bias_variance_solver(matrix, prior, gamma)
