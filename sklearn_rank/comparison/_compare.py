"""`compare`: paired per-query comparison of runs on the same judgments."""

import dataclasses

import numpy as np

from ..metrics._lists import _greater_is_better
from ..metrics._plan import _Plan
from ..metrics._signatures import _with_conventions
from ..utils._threads import _check_n_jobs
from ._align import _check_runs, _per_query_matrices
from ._core import _comparison
from ._corpus import _corpus_rows, _split_corpus, _with_corpus
from ._intervals import _check_interval_resamples
from ._parameters import (
    DECIMALS,
    MISSING_QUERIES,
    REPLICATES,
    SAMPLE_WEIGHT,
    STANDARDIZE,
    _checked_shared,
    _fill_declared,
)
from ._replicates import _replicate_matrices, _split_replicates
from ._standardize import _rows_of


def _check_baseline(baseline, names):
    if baseline is None:
        return None
    if not isinstance(baseline, str) or baseline not in names:
        raise ValueError(
            f"baseline must be None or the name of a run ({', '.join(map(repr, names))}); "
            f"got {baseline!r}."
        )
    return baseline


def _standardized(standardizer, values, query_ids):
    """Each metric's (n_queries, n_runs) values standardized by ``standardizer``: by the
    metric's own reference when it was fitted on a dict, else one metric only."""
    if (_rows_of(standardizer.query_ids_, query_ids) < 0).all():
        # Every value would be NaN: fitted on other queries, or without query ids.
        shown = ", ".join(repr(q) for q in query_ids[:3].tolist())
        raise ValueError(
            f"standardize knows none of the {query_ids.size} queries ({shown}"
            f"{', ...' if query_ids.size > 3 else ''}) compared: fit it on the reference "
            "runs' values of these queries, with query_ids=result.query_ids."
        )
    if standardizer.metrics_ is None:
        if len(values) != 1:
            raise ValueError(
                "standardize was fitted on one array, which standardizes one metric; "
                f"compare was given {len(values)}: fit it on a dict metric -> values."
            )
        ((label, matrix),) = values.items()
        return {label: standardizer.transform(matrix, query_ids=query_ids)}
    return standardizer.transform(values, query_ids=query_ids)


@_with_conventions()
@_fill_declared
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
    sample_weight=None,
    standardize=None,
    replicates=None,
    train=None,
    item_features=None,
    catalog=None,
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
        Metric names such as ``"ndcg@10"``, ``"map"``; see `get_metric_names`. A
        corpus-level measure (``"coverage@10"``, ``"gini@10"``: one value for all users)
        has no per-query value: it is compared by resampling users, a permutation test
        that swaps two runs' lists user by user and paired bootstrap draws of the users
        for the interval of the difference, whatever ``test`` says; its ``per_query``
        column is NaN and the table's notes say so.
    {groups}
    baseline : str, default=None
        The name of the run each other run is compared with; None compares every pair
        (each later run with each earlier one).
    {test}
    {alternative}
    {correction}
    {confidence}
    {n_resamples}
    {missing}
    {random_state}
    {decimals}
    {sample_weight}
    {standardize}
    {replicates}
    {train}
    {item_features}
    {catalog}
    {conventions}

    Returns
    -------
    result : Comparison
        ``result.runs`` and ``result.pairs`` (dicts of column -> array, as
        ``cv_results_``), ``result.per_query[metric]`` of shape (n_queries, n_runs), and
        `Comparison.to_markdown`, `Comparison.to_latex`, `Comparison.to_frame`. With
        ``replicates="mean"``, a run is a system: ``per_query`` holds its means over its
        replicates, ``runs["n_replicates"]`` their number and ``runs["n_missing"]`` the
        queries some replicate lacked.

    Raises
    ------
    ValueError
        For fewer than two runs, a baseline that is not a run, a run with NaN scores, an
        unknown test or correction, ``n_resamples < 1``, ``confidence`` outside (0, 1),
        fewer than 2 queries, a query some run lacks with ``missing="raise"``, or a
        ``sample_weight``.

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
    test, alternative, correction, confidence, n_resamples, random_state = _checked_shared(
        test, alternative, correction, confidence, n_resamples, random_state
    )
    if test != "t":  # bootstrap intervals keep n_resamples means each
        _check_interval_resamples(n_resamples)
    missing = MISSING_QUERIES.validate(missing)
    decimals = DECIMALS.validate(decimals)
    SAMPLE_WEIGHT.validate(sample_weight)
    standardize = STANDARDIZE.validate(standardize)
    replicates = REPLICATES.validate(replicates)
    if test == "corrected_t":
        raise ValueError(
            "test='corrected_t' compares fold scores of a cross-validation: use "
            "compare_search(search, test='corrected_t'); compare takes 't', 'wilcoxon', "
            "'randomization', 'bootstrap' or 'tukey_hsd'."
        )
    runs = _check_runs(runs)
    baseline = _check_baseline(baseline, list(runs))
    names, n_replicates = list(runs), None
    if replicates == "mean":
        runs, n_replicates = _split_replicates(runs)
    n_threads = _check_n_jobs(conventions.pop("n_jobs", None))
    given = {name: value for name, value in conventions.items() if value is not None}
    whole = _Plan.from_names(metrics, conventions)
    plan, corpus = _split_corpus(whole)
    side_inputs = {"train": train, "item_features": item_features, "catalog": catalog}
    if corpus:
        _check_corpus_use(corpus, test, replicates, standardize)
    result = None
    if plan.requests:
        result = _per_user_comparison(
            y_true,
            runs,
            plan,
            names,
            n_replicates,
            side_inputs,
            given,
            standardize,
            groups=groups,
            missing=missing,
            n_threads=n_threads,
            baseline=baseline,
            test=test,
            correction=correction,
            confidence=confidence,
            n_resamples=n_resamples,
            random_state=random_state,
            decimals=decimals,
            alternative=alternative,
        )
    if corpus:
        corpus_plan = dataclasses.replace(whole, requests=tuple(corpus))
        prepared = [
            corpus_plan.prepare(
                y_true, y_score, groups=groups, n_threads=n_threads, side_inputs=side_inputs
            )
            for y_score in runs.values()
        ]
        user_ids, *rows = _corpus_rows(
            prepared,
            corpus,
            names,
            baseline=baseline,
            confidence=confidence,
            n_resamples=n_resamples,
            random_state=random_state,
            alternative=alternative,
            convention=whole.conventions.get("convention"),
        )
        result = _with_corpus(
            result,
            rows,
            corpus,
            correction=correction,
            confidence=confidence,
            n_resamples=n_resamples,
            user_ids=user_ids,
        )
        result.baseline, result.alternative = baseline, alternative
        convention = whole.conventions.get("convention")
        result.lower_is_better = tuple(
            r.label for r in whole.requests if not _greater_is_better(r, convention)
        )
        result.conventions = {r.label: given for r in whole.requests}
        result.per_query = {r.label: result.per_query[r.label] for r in whole.requests}
    return result


def _check_corpus_use(corpus, test, replicates, standardize):
    labels = ", ".join(r.label for r in corpus)
    refusals = (
        (test == "tukey_hsd", "test='tukey_hsd' permutes each query's values"),
        (replicates is not None, "replicates= averages each query's values over seeds"),
        (standardize is not None, "standardize= standardizes each query's values"),
    )
    for refused, reason in refusals:
        if refused:
            raise ValueError(
                f"{labels}: corpus-level (one value for all users, none per user), compared "
                f"by resampling users; {reason}, which they do not have."
            )


def _per_user_comparison(
    y_true,
    runs,
    plan,
    names,
    n_replicates,
    side_inputs,
    given,
    standardize,
    *,
    groups,
    missing,
    n_threads,
    **options,
):
    """The `Comparison` of the metrics with a value per query (user); ``options`` are
    `_comparison`'s."""
    if n_replicates is None:
        query_ids, values, n_missing = _per_query_matrices(
            y_true, runs, plan, groups, missing, n_threads, side_inputs
        )
    else:
        query_ids, values, n_missing = _replicate_matrices(
            y_true, runs, n_replicates, plan, groups, missing, n_threads, side_inputs
        )
    if query_ids.size < 2:
        raise ValueError(
            f"compare needs at least 2 queries to test; got {query_ids.size}"
            + (" after missing='drop'." if missing == "drop" else ".")
        )
    convention = plan.conventions.get("convention")
    lower = tuple(r.label for r in plan.requests if not _greater_is_better(r, convention))
    aggregates = {r.label: r.metric.aggregate for r in plan.requests}
    notes = ()
    if standardize is not None:
        values = _standardized(standardize, values, query_ids)
        aggregates = dict.fromkeys(aggregates, "mean")  # a z or Phi is averaged, never summed
        notes = (f"Values standardized per query ({standardize.method}).",)
    result = _comparison(
        values,
        names,
        query_ids,
        n_missing,
        lower_is_better=lower,
        aggregates=aggregates,
        **options,
        conventions={r.label: given for r in plan.requests},
        summation=plan.conventions.get("summation", "accurate"),
    )
    result.notes += notes
    if n_replicates is not None:
        result.runs["n_replicates"] = np.tile(n_replicates, len(plan.requests))
    return result
