"""From aligned per-query values to a `Comparison`: pairs, tests, intervals, corrections.

`_comparison` is shared by `compare` (runs on judgments) and `compare_search` (candidates
of a search). It works on one (n_queries, n_runs) array per metric. Each comparison
(pair x metric) is a column of differences; columns are tested together, several at once:
one set of sign vectors serves every column of the randomization test, one set of
bootstrap resamples every interval with the same queries. A query with NaN (left out by
``no_relevant="skip"``) is left out of the pairs it is NaN in (pairwise), of the run's
mean, and of every pair of its metric for the randomised Tukey HSD (listwise).
"""

import numpy as np

from ..metrics._aggregate import _GEOMETRIC_FLOOR, _aggregate
from ._intervals import _bootstrap_intervals, _t_intervals
from ._resampling import _bootstrap_p, _randomization
from ._result import Comparison
from ._signed_rank import _wilcoxon
from ._stats import _adjust_p, _corrected_t, _effect_size_dz, _paired_t, _win_tie_loss
from ._tukey import _tukey_hsd_randomised

RUN_COLUMNS = ("run", "metric", "mean", "ci_low", "ci_high", "n_queries", "n_missing")
PAIR_COLUMNS = (
    "run",
    "baseline",
    "metric",
    "diff",
    "diff_ci_low",
    "diff_ci_high",
    "effect_size",
    "pvalue",
    "pvalue_adjusted",
    "wins",
    "ties",
    "losses",
    "significant",
)


def _seeds(random_state):
    """Two seeds from ``random_state``: one for the test's draws, one for the intervals'.

    The two streams are independent, so the intervals do not change with the test, and
    each draws in blocks whose size never changes the values.
    """
    rng = np.random.default_rng(random_state)
    test_seed, interval_seed = rng.integers(0, 2**63 - 1, size=2)
    return int(test_seed), int(interval_seed)


def _pairs(run_names, baseline):
    """(run, baseline) column indices: each run against the baseline, or every pair
    (each later run against each earlier one)."""
    if baseline is not None:
        base = run_names.index(baseline)
        return [(j, base) for j in range(len(run_names)) if j != base]
    return [(j, i) for i in range(len(run_names)) for j in range(i + 1, len(run_names))]


def _mask_groups(values):
    """Group the columns of ``values`` by which rows are not NaN.

    Returns a list of (row mask, column indices), in order of first column.
    """
    present = ~np.isnan(values)
    if present.all():
        return [(np.ones(values.shape[0], dtype=bool), np.arange(values.shape[1]))]
    packed = np.packbits(present, axis=0).T
    _unique, first, inverse = np.unique(packed, axis=0, return_index=True, return_inverse=True)
    inverse = inverse.ravel()
    return [
        (present[:, first[label]], np.flatnonzero(inverse == label))
        for label in np.argsort(first, kind="stable")
    ]


def _intervals(columns, test, confidence, n_resamples, interval_seed):
    """Interval of the mean of each column over its non-NaN rows."""
    low = np.full(columns.shape[1], np.nan)
    high = np.full(columns.shape[1], np.nan)
    for group, (rows, chosen) in enumerate(_mask_groups(columns)):
        data = columns[np.ix_(rows, chosen)]
        if data.shape[0] < 2:
            continue
        if test == "t":
            low[chosen], high[chosen] = _t_intervals(data, confidence)
        else:
            rng = np.random.default_rng([interval_seed, group])
            low[chosen], high[chosen] = _bootstrap_intervals(data, n_resamples, rng, confidence)
    return low, high


def _pair_statistics(d, test, n_resamples, test_seed, decimals=None, alternative="two-sided"):
    """p-value (against ``alternative``), effect size and wins/ties/losses of each column
    of differences, rounded to ``decimals`` first when given (equal decimal scores differ in
    binary)."""
    if decimals is not None:
        d = np.round(d, decimals)
    n_columns = d.shape[1]
    p_value = np.full(n_columns, np.nan)
    effect = np.full(n_columns, np.nan)
    wins, ties, losses = _win_tie_loss(d)
    for group, (rows, chosen) in enumerate(_mask_groups(d)):
        data = d[np.ix_(rows, chosen)]
        if data.shape[0] < 2:
            continue
        effect[chosen] = _effect_size_dz(data)
        if test == "t":
            p_value[chosen] = _paired_t(data, alternative=alternative)[1]
        elif test == "wilcoxon":
            p_value[chosen] = _wilcoxon(data, alternative=alternative)[1]
        elif test == "bootstrap":
            rng = np.random.default_rng([test_seed, group])
            p_value[chosen] = _bootstrap_p(data, n_resamples, rng, alternative=alternative)
    exact = None
    if test == "randomization":
        # A NaN difference set to 0 flips to 0: each column's count is the count over
        # its own queries, so one set of sign vectors serves every column.
        tested = np.count_nonzero(~np.isnan(d), axis=0) >= 2
        p, exact = _randomization(
            np.nan_to_num(d, nan=0.0), n_resamples, test_seed, alternative=alternative
        )
        p_value[tested] = p[tested]
    return p_value, effect, wins, ties, losses, exact


def _tukey(values, pairs, n_resamples, test_seed, metric_index):
    """Randomised Tukey HSD p of each pair on the queries complete for every run."""
    complete = values[~np.isnan(values).any(axis=1)]
    if complete.shape[0] < 2:
        return np.full(len(pairs), np.nan)
    rng = np.random.default_rng([test_seed, metric_index])
    p = _tukey_hsd_randomised(complete, n_resamples, rng)
    return np.array([p[run, base] for run, base in pairs])


def _comparison(
    values,
    run_names,
    query_ids,
    n_missing,
    *,
    baseline,
    test,
    correction,
    confidence,
    n_resamples,
    random_state,
    folds=None,
    lower_is_better=(),
    decimals=None,
    alternative="two-sided",
    aggregates=None,
    conventions=None,
    summation="accurate",
):
    """Build the `Comparison` of aligned per-query values.

    values : metric -> (n_queries, n_runs) array, columns in ``run_names`` order.
    n_missing : (n_runs,) queries each run lacked.
    folds : for ``test="corrected_t"``, (fold scores, n_train, n_test) with fold scores a
        dict metric -> (n_splits, n_runs) array.
    aggregates : metric -> how `evaluate` combines its per-query values (the registry's
        ``aggregate``: "mean", "sum" or "geometric"); "mean" for a metric not given. A
        run's summary is that aggregate; a geometric mean is tested on the per-query logs
        (its null, equal geometric means, is equal mean logs), a sum on the per-query
        values (equal sums over the same queries are equal means).
    conventions : metric -> the convention keywords it was computed with (the Displays'
        captions). summation : how `evaluate` adds per-query values up under the call's
        conventions ("sequential" under trec_eval's presets), so that summaries equal it.
    """
    metrics = list(values)
    aggregates = {
        label: "mean" if folds is not None else (aggregates or {}).get(label, "mean")
        for label in metrics
    }
    pairs = _pairs(run_names, baseline)
    test_seed, interval_seed = _seeds(random_state)
    unit = values if folds is None else folds[0]
    unit = {label: _tested(unit[label], aggregates[label]) for label in metrics}
    differences = []
    for label in metrics:
        matrix = unit[label]
        if test == "tukey_hsd":  # listwise: the test uses the queries complete for every run
            matrix = np.where(np.isnan(matrix).any(axis=1, keepdims=True), np.nan, matrix)
        differences.append(np.stack([matrix[:, r] - matrix[:, b] for r, b in pairs], axis=1))
    d = np.concatenate(differences, axis=1)
    means = np.concatenate([unit[label] for label in metrics], axis=1)

    how = np.repeat([aggregates[label] for label in metrics], len(pairs))
    how_runs = np.repeat([aggregates[label] for label in metrics], len(run_names))
    diff, run_mean = _nanmean(d), _nanmean(means)
    if folds is None:  # with folds, the fold scores' means (the search's mean_test_*)
        run_mean = np.concatenate(
            [_nanmean(values[label], aggregates[label], label, summation) for label in metrics]
        )
        diff = _differences(values, metrics, pairs, aggregates, diff, summation)
    exact = None
    if test == "corrected_t":
        scores, n_train, n_test = folds
        n_splits = means.shape[0]
        factor = 1 / n_splits + n_test / n_train
        run_low, run_high = _t_intervals(means, confidence, factor)
        diff_low, diff_high = _t_intervals(d, confidence, factor)
        tested = d if decimals is None else np.round(d, decimals)
        p_value = _corrected_t(tested, n_train, n_test, alternative=alternative)[1]
        effect = _effect_size_dz(tested)
        wins, ties, losses = _win_tie_loss(tested)
    else:
        interval_test = "t" if test == "t" else "bootstrap"
        low, high = _intervals(
            np.concatenate([means, d], axis=1),
            interval_test,
            confidence,
            n_resamples,
            interval_seed,
        )
        run_low, diff_low = low[: means.shape[1]], low[means.shape[1] :]
        run_high, diff_high = high[: means.shape[1]], high[means.shape[1] :]
        # Intervals of the tested means, turned into intervals of each summary: a sum is
        # n times the mean; a geometric mean is exp of the mean log; a difference of
        # geometric means has no interval from the mean log difference (left NaN).
        n_runs_kept = np.count_nonzero(~np.isnan(means), axis=0)
        n_pairs_kept = np.count_nonzero(~np.isnan(d), axis=0)
        summed, summed_pairs = how_runs == "sum", how == "sum"
        run_low[summed], run_high[summed] = (
            run_low[summed] * n_runs_kept[summed],
            run_high[summed] * n_runs_kept[summed],
        )
        diff_low[summed_pairs] *= n_pairs_kept[summed_pairs]
        diff_high[summed_pairs] *= n_pairs_kept[summed_pairs]
        geometric, geometric_pairs = how_runs == "geometric", how == "geometric"
        run_low[geometric], run_high[geometric] = (
            np.exp(run_low[geometric]),
            np.exp(run_high[geometric]),
        )
        diff_low[geometric_pairs] = diff_high[geometric_pairs] = np.nan
        pair_test = "none" if test == "tukey_hsd" else test
        p_value, effect, wins, ties, losses, exact = _pair_statistics(
            d, pair_test, n_resamples, test_seed, decimals, alternative
        )
        if test == "tukey_hsd":
            p_value = np.concatenate(
                [
                    _tukey(unit[label], pairs, n_resamples, test_seed, index)
                    for index, label in enumerate(metrics)
                ]
            )
    if test == "tukey_hsd":
        correction = None  # the max-range statistic controls the family-wise error itself
        p_adjusted = p_value.copy()
    else:
        p_adjusted = _adjust_p(p_value, correction)
    with np.errstate(invalid="ignore"):
        significant = p_adjusted <= 1 - confidence

    n_runs, n_pairs = len(run_names), len(pairs)
    names = np.array(run_names, dtype=object)
    runs = {
        "run": np.tile(names, len(metrics)),
        "metric": np.repeat(np.array(metrics, dtype=object), n_runs),
        "mean": run_mean,
        "ci_low": run_low,
        "ci_high": run_high,
        "n_queries": np.concatenate(
            [np.count_nonzero(~np.isnan(values[label]), axis=0) for label in metrics]
        ).astype(np.int64),
        "n_missing": np.tile(np.asarray(n_missing, dtype=np.int64), len(metrics)),
    }
    pair_runs = names[[r for r, _b in pairs]] if pairs else np.empty(0, dtype=object)
    pair_bases = names[[b for _r, b in pairs]] if pairs else np.empty(0, dtype=object)
    pair_table = {
        "run": np.tile(pair_runs, len(metrics)),
        "baseline": np.tile(pair_bases, len(metrics)),
        "metric": np.repeat(np.array(metrics, dtype=object), n_pairs),
        "diff": diff,
        "diff_ci_low": diff_low,
        "diff_ci_high": diff_high,
        "effect_size": effect,
        "pvalue": p_value,
        "pvalue_adjusted": p_adjusted,
        "wins": wins,
        "ties": ties,
        "losses": losses,
        "significant": significant,
    }
    return Comparison(
        runs=runs,
        pairs=pair_table,
        per_query={label: values[label] for label in metrics},
        run_names=list(run_names),
        query_ids=query_ids,
        baseline=baseline,
        test=test,
        correction=correction,
        confidence=confidence,
        n_resamples=n_resamples,
        notes=_notes(test, n_resamples, exact, folds) + _aggregate_notes(aggregates),
        lower_is_better=lower_is_better,
        alternative=alternative,
        conventions=conventions,
    )


def _nanmean(values, how="mean", label="", summation="accurate"):
    """The aggregate (`evaluate`'s: "mean", "sum" or "geometric") of each column over its
    non-NaN rows (NaN for none), computed by the library's aggregator, so that a run's
    summary is `evaluate`'s to the bit."""
    means = np.full(values.shape[1], np.nan)
    for column in range(values.shape[1]):
        kept = values[:, column][~np.isnan(values[:, column])]
        if kept.size:
            flags = np.ones(kept.size, dtype=bool)
            means[column] = _aggregate(kept, flags, "skip", None, False, label, how, summation)
    return means


def _tested(matrix, how):
    """The per-query values a test compares for a metric aggregated ``how``: the logs of
    max(value, 1e-5) for a geometric mean (trec_eval's gm_map floor), else the values."""
    if how != "geometric":
        return matrix
    with np.errstate(divide="ignore"):
        return np.log(np.maximum(matrix, _GEOMETRIC_FLOOR))


def _differences(values, metrics, pairs, aggregates, mean_differences, summation="accurate"):
    """Each pair's difference of summaries over the queries both runs have: the mean of
    the per-query differences for a mean (``mean_differences``), their sum for a sum, and
    the difference of the two geometric means."""
    diff = mean_differences.copy()
    for m, label in enumerate(metrics):
        how, matrix = aggregates[label], values[label]
        if how == "mean":
            continue
        for p, (run, base) in enumerate(pairs):
            both = ~np.isnan(matrix[:, run]) & ~np.isnan(matrix[:, base])
            if not both.any():
                continue
            column = m * len(pairs) + p
            if how == "sum":
                paired = (matrix[both, run] - matrix[both, base])[:, None]
                diff[column] = _nanmean(paired, "sum", label, summation)[0]
            else:
                run_value, base_value = _nanmean(
                    matrix[both][:, [run, base]], how, label, summation
                )
                diff[column] = run_value - base_value
    return diff


def _aggregate_notes(aggregates):
    """What the tables say of metrics that `evaluate` does not average."""
    notes = []
    summed = [label for label, how in aggregates.items() if how == "sum"]
    geometric = [label for label, how in aggregates.items() if how == "geometric"]
    if summed:
        notes.append(
            f"{', '.join(summed)}: sums over the queries, as evaluate gives them; "
            "differences and intervals are sums over the queries both runs have; the tests "
            "compare the per-query values."
        )
    if geometric:
        notes.append(
            f"{', '.join(geometric)}: geometric means of max(value, 1e-5), as evaluate "
            "gives them; the tests and effect sizes compare the per-query logs (the ratio of "
            "geometric means); the difference of geometric means has no interval here."
        )
    return tuple(notes)


def _notes(test, n_resamples, exact, folds):
    """How the p-values were obtained, for the tables."""
    if test == "randomization":
        if exact:
            return ("p-values exact: every assignment of signs enumerated.",)
        return (f"p-values from {n_resamples:,} random sign assignments, (1 + b) / (1 + B).",)
    if test == "bootstrap":
        return (f"p-values from {n_resamples:,} bootstrap resamples of the queries.",)
    if test == "tukey_hsd":
        return (f"p-values from {n_resamples:,} permutations of each query's values.",)
    if test == "corrected_t":
        scores, n_train, n_test = folds
        n_splits = next(iter(scores.values())).shape[0]
        return (
            f"Over {n_splits} fold scores; variance corrected with n_train={n_train:,} and "
            f"n_test={n_test:,} queries.",
        )
    return ()
