"""Corpus-level measures in a comparison: tested by resampling users.

Coverage, entropy, Gini, PopRSP and PopREO have one value for all users at once, no
per-user value to pair. Two systems are compared on the same users: a paired bootstrap
draws users with replacement and computes both systems' values on each draw (percentile
intervals of each value and of the difference), and a permutation test swaps the two
systems' lists user by user (each user's pair of lists exchanged with probability 1/2),
the null hypothesis being that the systems are exchangeable. Each draw's value is the
measure's own (`metrics._corpus_resampling`); draws are made one at a time, so memory
does not grow with ``n_resamples``.
"""

import numpy as np

from ..metrics._corpus_resampling import _CorpusDraws, _gather
from ..metrics._lists import _corpus_requests
from ..utils._ids import _concat_ids, _factorize
from ._core import _pairs, _seeds


def _split_corpus(plan):
    """(the plan without its corpus-level requests, the corpus-level requests)."""
    import dataclasses

    corpus = _corpus_requests(plan.requests, plan.conventions.get("convention"))
    labels = {r.label for r in corpus}
    rest = tuple(r for r in plan.requests if r.label not in labels)
    return dataclasses.replace(plan, requests=rest), corpus


def _aligned_sides(prepared):
    """Each run's `_Side` over the same users in the same order: the union of the runs'
    query ids in order of first appearance (a user a run lacks has an empty list there),
    or the rows of matrices. Returns (user ids or None, sides, users each run lacked)."""
    ids = [p.ids for p in prepared]
    sides = [p.side for p in prepared]
    if all(i is None for i in ids):
        sizes = {s.lists.n_queries for s in sides}
        if len(sizes) != 1:
            raise ValueError(f"the runs have different numbers of queries: {sorted(sizes)}.")
        return None, sides, np.zeros(len(sides), dtype=np.int64)
    parts = [np.asarray(run_ids) for run_ids in ids]
    codes, union = _factorize(_concat_ids(parts), None, "query ids")
    ends = np.cumsum([part.size for part in parts])
    aligned, lacked = [], []
    for run_codes, side in zip(np.split(codes, ends[:-1]), sides):
        n = side.lists.n_queries
        positions = np.full(union.size, n, dtype=np.int64)  # n: the run lacks the user
        positions[run_codes] = np.arange(run_codes.size)
        lacked.append(int(np.count_nonzero(positions == n)))
        aligned.append(
            side._replace(
                lists=_with_empty(side.lists, positions),
                relevant=_with_empty(side.relevant, positions),
                history=_with_empty(side.history, positions),
            )
        )
    return union, aligned, np.asarray(lacked, dtype=np.int64)


def _with_empty(lists, positions):
    """``lists`` taken at ``positions``, position n (one past the last) an empty list."""
    if lists is None:
        return None
    from ..inputs._side import _Lists

    offsets = np.concatenate([lists.offsets, lists.offsets[-1:]])
    return _gather(_Lists(offsets, lists.items, lists.values), positions)


def _percentile(values, confidence):
    tail = (1 - confidence) / 2 * 100
    with np.errstate(invalid="ignore"):
        return np.nanpercentile(values, [tail, 100 - tail], axis=0)


def _permutation_pvalue(observed, resampled, alternative):
    """(1 + draws at least as extreme) / (1 + draws), NaN draws left out."""
    resampled = resampled[~np.isnan(resampled)]
    if np.isnan(observed) or resampled.size == 0:
        return np.nan
    if alternative == "greater":
        extreme = resampled >= observed
    elif alternative == "less":
        extreme = resampled <= observed
    else:
        extreme = np.abs(resampled) >= abs(observed)
    return (1 + np.count_nonzero(extreme)) / (1 + resampled.size)


def _corpus_rows(
    prepared,
    requests,
    run_names,
    *,
    baseline,
    confidence,
    n_resamples,
    random_state,
    alternative,
    convention,
):
    """(the users' ids or None, rows of ``runs``, rows of ``pairs``) for the corpus-level
    requests, rows as dicts of lists."""
    user_ids, sides, lacked = _aligned_sides(prepared)
    n_users = sides[0].lists.n_queries
    pairs = _pairs(run_names, baseline)
    test_seed, interval_seed = _seeds(random_state)
    runs = {key: [] for key in ("run", "metric", "mean", "ci_low", "ci_high")}
    runs.update(n_queries=[], n_missing=[])
    table = {key: [] for key in ("run", "baseline", "metric", "diff", "diff_ci_low")}
    table.update(diff_ci_high=[], pvalue=[])
    for request in requests:
        draws = _CorpusDraws(request, sides, convention)
        observed = draws.observed()
        rng = np.random.default_rng(interval_seed)
        boot = draws.bootstrap(rng.integers(0, n_users, n_users) for _ in range(n_resamples))
        for column, name in enumerate(run_names):
            runs["run"].append(name)
            runs["metric"].append(request.label)
            runs["mean"].append(observed[column])
            # A draw of users with repeats holds fewer distinct users: a run's own value
            # is biased in the draws (coverage falls), its interval would mislead.
            runs["ci_low"].append(np.nan)
            runs["ci_high"].append(np.nan)
            runs["n_queries"].append(n_users - int(lacked[column]))
            runs["n_missing"].append(int(lacked[column]))
        for run, base in pairs:
            differences = boot[:, run] - boot[:, base]
            diff_low, diff_high = _percentile(differences, confidence)
            rng = np.random.default_rng(test_seed)
            swaps = (rng.random(n_users) < 0.5 for _ in range(n_resamples))
            swapped = draws.swapped(run, base, swaps)
            diff = observed[run] - observed[base]
            table["run"].append(run_names[run])
            table["baseline"].append(run_names[base])
            table["metric"].append(request.label)
            table["diff"].append(diff)
            table["diff_ci_low"].append(diff_low)
            table["diff_ci_high"].append(diff_high)
            resampled = swapped[:, 0] - swapped[:, 1]
            table["pvalue"].append(_permutation_pvalue(diff, resampled, alternative))
    return user_ids, runs, table


def _note(labels, n_resamples):
    return (
        f"{', '.join(labels)}: corpus-level (one value for all users, none per user), "
        f"compared by resampling users: p-values from {n_resamples:,} permutations swapping "
        "the two runs' lists user by user, (1 + b) / (1 + B); intervals of the differences "
        f"the percentiles of {n_resamples:,} paired bootstrap draws of the users; no interval "
        "of a run's own value (a draw holds fewer distinct users, which biases it), no "
        "effect size, wins, ties or losses."
    )


def _with_corpus(result, rows, corpus, *, correction, confidence, n_resamples, user_ids):
    """``result`` (a `Comparison` of the per-user metrics, or None when every metric is
    corpus-level) with the corpus-level rows added; the p-values of the whole call are
    corrected together, as every pair x metric of a comparison is."""
    from ._result import Comparison, _pair_columns
    from ._stats import _adjust_p

    run_rows, pair_rows = rows
    n_pairs = len(pair_rows["pvalue"])
    # No effect size, wins, ties or losses without per-user values.
    blank = dict.fromkeys(("effect_size", "pvalue_adjusted", "wins", "ties", "losses"))
    pair_rows = {**pair_rows, **{key: [np.nan] * n_pairs for key in blank}}
    pair_rows["significant"] = [False] * n_pairs
    if result is None:
        names = list(dict.fromkeys(run_rows["run"]))
        n_users = int(max(run_rows["n_queries"]) + min(run_rows["n_missing"]))
        result = Comparison(
            runs={key: np.asarray(value) for key, value in run_rows.items()},
            pairs={key: np.asarray(value) for key, value in pair_rows.items()},
            per_query={},
            run_names=names,
            query_ids=np.arange(n_users) if user_ids is None else user_ids,
            baseline=None,
            test="randomization",
            correction=correction,
            confidence=confidence,
            n_resamples=n_resamples,
        )
    else:
        for key, value in run_rows.items():
            result.runs[key] = np.concatenate([result.runs[key], np.asarray(value)])
        pairs = {}
        for key, kept in result.pairs.items():
            added = np.asarray(pair_rows[key], dtype=object if kept.dtype == object else None)
            pairs[key] = np.concatenate([kept, added])
        result.pairs = _pair_columns(pairs)
    adjusted = _adjust_p(np.asarray(result.pairs["pvalue"], dtype=np.float64), correction)
    result.pairs["pvalue_adjusted"] = adjusted
    with np.errstate(invalid="ignore"):
        result.pairs["significant"] = adjusted <= 1 - confidence
    shape = (len(result.query_ids), len(result.run_names))
    for request in corpus:  # no per-user value: a column of NaN keeps the metric's place
        result.per_query[request.label] = np.full(shape, np.nan)
    result.notes += (_note([r.label for r in corpus], n_resamples),)
    result._corpus_labels = tuple(r.label for r in corpus)
    return result
