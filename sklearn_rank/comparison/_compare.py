"""`compare`: paired per-query comparison of runs on the same judgments."""

from numbers import Integral

import numpy as np

from ..conventions import _fill_doc
from ..metrics._plan import _Plan
from ..metrics._signatures import _with_conventions
from ..utils._threads import _check_n_jobs
from ._align import _check_runs, _per_query_matrices
from ._core import _check_random_state, _comparison
from ._stats import (
    _check_alternative,
    _check_confidence,
    _check_correction,
    _check_n_resamples,
    _check_test,
)


def _check_baseline(baseline, names):
    if baseline is None:
        return None
    if not isinstance(baseline, str) or baseline not in names:
        raise ValueError(
            f"baseline must be None or the name of a run ({', '.join(map(repr, names))}); "
            f"got {baseline!r}."
        )
    return baseline


def _check_decimals(decimals):
    if decimals is None:
        return None
    if isinstance(decimals, (bool, np.bool_)) or not isinstance(decimals, Integral):
        raise ValueError(f"decimals must be None or an integer; got {decimals!r}.")
    return int(decimals)


def _check_common(test, alternative, correction, confidence, n_resamples, random_state):
    """Validate the parameters `compare` and `compare_search` share, in their order."""
    test = _check_test(test)
    return (
        test,
        _check_alternative(alternative, test),
        _check_correction(correction),
        _check_confidence(confidence),
        _check_n_resamples(n_resamples),
        _check_random_state(random_state),
    )


@_with_conventions()
@_fill_doc
def compare(
    y_true,
    runs,
    metrics,
    *,
    groups=None,
    baseline=None,
    test="randomization",
    alternative="two-sided",
    correction="holm",
    confidence=0.95,
    n_resamples=10_000,
    missing="zero",
    random_state=None,
    decimals=None,
    **conventions,
):
    """Compare runs query by query: paired tests, intervals and effect sizes.

    Every run is evaluated on the same judgments, its per-query values are aligned with
    the other runs' by query id, and each run is compared with the baseline (or every
    pair of runs) on each metric: the mean difference with its confidence interval, the
    paired effect size d_z, wins, ties and losses, and a paired test whose p-values are
    corrected for the number of comparisons of the call (every pair x metric). See the
    user guide, "Comparing runs", for which test answers what.

    Parameters
    ----------
    {y_true}
    runs : dict of str -> y_score
        The runs to compare, by name: each a ``y_score`` in any form `evaluate` takes
        (matrices, 1-D scores with ``groups``, `ItemRanking`, ranked lists), all in the
        same form. At least two.
    metrics : str or list of str
        Metric names such as ``"ndcg@10"``, ``"map"``; see `get_metric_names`.
    {groups}
    baseline : str, default=None
        The name of the run each other run is compared with; None compares every pair
        (each later run with each earlier one).
    test : {"randomization", "t", "wilcoxon", "bootstrap", "tukey_hsd"}, \
default="randomization"
        The paired test, against ``alternative``:

        - ``"randomization"``: sign-flip (Fisher) test of the mean difference: the share
          of the 2**n assignments of each query's two values to the two runs whose mean
          difference is at least the observed one in absolute value (one-sided: at least
          it, or at most it, with its sign); enumerated exactly
          when 2**n <= ``n_resamples``, else estimated from ``n_resamples`` random
          assignments as (1 + count) / (1 + n_resamples). One set of assignments serves
          every pair and metric.
        - ``"t"``: paired Student t-test, equal to ``scipy.stats.ttest_rel``.
        - ``"wilcoxon"``: signed-rank test, equal to ``scipy.stats.wilcoxon`` with its
          defaults (zero differences dropped, exact or normal approximation by n).
        - ``"bootstrap"``: shifted studentized paired bootstrap of the mean difference.
        - ``"tukey_hsd"``: randomised Tukey HSD over all runs at once (each query's
          values permuted across runs), which controls the family-wise error over all
          pairs of a metric itself: ``correction`` is not applied. Two-sided only.
    alternative : {"two-sided", "greater", "less"}, default="two-sided"
        The alternative hypothesis, in scipy's meaning for the per-query differences
        ``run - baseline`` of each pair (every-pair comparisons: later run - earlier
        run): ``"greater"``, the run's metric values are greater than the baseline's
        (its mean difference is above 0; for the signed-rank test, its differences tend
        to be positive); ``"less"``, lower; ``"two-sided"``, either. It is passed to
        the test as scipy's ``alternative`` (``ttest_rel``, ``wilcoxon``,
        ``permutation_test``) and applies to the bootstrap test likewise. "Greater" is
        about values, not quality: for a lower-is-better metric such as ``"arp"``, a
        greater value is worse. ``test="tukey_hsd"`` has no one-sided form and refuses
        anything but ``"two-sided"``. The intervals stay two-sided.
    correction : {"holm", "bonferroni", "fdr_bh"} or None, default="holm"
        Multiple-testing correction over all comparisons of the call (every pair x
        metric): Holm's step-down and Bonferroni control the family-wise error,
        ``"fdr_bh"`` (Benjamini-Hochberg) the false discovery rate. The results of
        ``statsmodels.stats.multitest.multipletests`` with the same method.
    confidence : float, default=0.95
        Level of the intervals of each run's mean and each mean difference, in (0, 1):
        BCa bootstrap intervals from ``n_resamples`` resamples of the queries (the
        percentile interval where BCa is undefined), t intervals with ``test="t"``.
        ``1 - confidence`` is the level at which ``significant`` is decided.
    n_resamples : int, default=10_000
        Random sign vectors, bootstrap resamples or permutations; at least 1.
    missing : {"zero", "drop", "raise"}, default="zero"
        A query that a run lacks (absent from its values, or with nothing ranked for it,
        while another run has it): ``"zero"`` scores it 0 for that run (as ``trec_eval
        -c``), ``"drop"`` leaves it out of every run, ``"raise"`` raises a ValueError.
        ``runs["n_missing"]`` counts them for each run.
    random_state : int, numpy.random.Generator or None, default=None
        Seed of the random draws (two independent streams: the test's and the
        intervals'). Results do not depend on how draws are blocked in memory.
    decimals : int, default=None
        Round each per-query difference to this many decimals before the test, the
        effect size and the wins/ties/losses read it (the mean difference and the
        intervals keep every digit). Differences of decimal scores are not exactly equal
        in binary (0.7 - 0.5 != 0.3 - 0.1), so rank-based tests and ties see distinct
        values where a person sees equal ones; ``decimals=12`` makes them equal. None
        (default) tests the differences as computed, as scipy does.
    {conventions}

    Returns
    -------
    result : Comparison
        ``result.runs`` and ``result.pairs`` (dicts of column -> array, as
        ``cv_results_``), ``result.per_query[metric]`` of shape (n_queries, n_runs), and
        `Comparison.to_markdown`, `Comparison.to_latex`, `Comparison.to_frame`.

    Raises
    ------
    ValueError
        For fewer than two runs, a baseline that is not a run, a run with NaN scores, an
        unknown test or correction, ``n_resamples < 1``, ``confidence`` outside (0, 1),
        fewer than 2 queries, or a query some run lacks with ``missing="raise"``.

    See Also
    --------
    compare_search : The same comparison for the candidates of a grouped search.
    evaluate : Per-query values with their ids (``per_query="table"``).
    PerQueryDifferenceDisplay.from_comparison : Plot a run's per-query differences.

    References
    ----------
    .. [1] M. D. Smucker, J. Allan and B. Carterette, "A comparison of statistical
       significance tests for information retrieval evaluation", CIKM 2007.
    .. [2] B. Carterette, "Multiple testing in statistical analysis of systems-based
       information retrieval experiments", ACM TOIS 30(1), 2012.
    .. [3] T. Sakai, "Statistical reform in information retrieval?", SIGIR Forum 48(1),
       2014.
    .. [4] S. Holm, "A simple sequentially rejective multiple test procedure",
       Scandinavian Journal of Statistics 6(2), 1979.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_rank import compare
    >>> rng = np.random.default_rng(0)
    >>> y_true = rng.integers(0, 3, size=(40, 20))
    >>> runs = {"noisy": y_true + rng.normal(0, 2, y_true.shape),
    ...         "better": y_true + rng.normal(0, 1, y_true.shape)}
    >>> result = compare(y_true, runs, ["ndcg@5", "map"], baseline="noisy", random_state=0)
    >>> result.pairs["metric"].tolist(), result.pairs["significant"].tolist()
    (['ndcg@5', 'map'], [True, True])
    >>> result.per_query["map"].shape
    (40, 2)
    """
    test, alternative, correction, confidence, n_resamples, random_state = _check_common(
        test, alternative, correction, confidence, n_resamples, random_state
    )
    if test == "corrected_t":
        raise ValueError(
            "test='corrected_t' compares fold scores of a cross-validation: use "
            "compare_search(search, test='corrected_t'); compare takes 't', 'wilcoxon', "
            "'randomization', 'bootstrap' or 'tukey_hsd'."
        )
    runs = _check_runs(runs)
    baseline = _check_baseline(baseline, list(runs))
    n_threads = _check_n_jobs(conventions.pop("n_jobs", None))
    plan = _Plan.from_names(metrics, conventions)
    query_ids, values, n_missing = _per_query_matrices(
        y_true, runs, plan, groups, missing, n_threads
    )
    if query_ids.size < 2:
        raise ValueError(
            f"compare needs at least 2 queries to test; got {query_ids.size}"
            + (" after missing='drop'." if missing == "drop" else ".")
        )
    lower = tuple(r.label for r in plan.requests if not r.metric.greater_is_better)
    return _comparison(
        values,
        list(runs),
        query_ids,
        n_missing,
        baseline=baseline,
        test=test,
        correction=correction,
        confidence=confidence,
        n_resamples=n_resamples,
        random_state=random_state,
        lower_is_better=lower,
        decimals=_check_decimals(decimals),
        alternative=alternative,
        aggregates={r.label: r.metric.aggregate for r in plan.requests},
    )
