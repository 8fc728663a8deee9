"""`compare_search`: the candidates of a grouped search, compared query by query."""

import warnings
from numbers import Integral

import numpy as np

from ..metrics._registry import METRICS
from ..utils._validation import _is_bool
from ._core import _comparison
from ._parameters import DECIMALS, _checked_shared, _fill_declared, _weights_refused


def _checked_search(search):
    if not hasattr(search, "per_query_results_") or not hasattr(search, "cv_results_"):
        raise ValueError(
            "search must be a fitted GroupedGridSearchCV or GroupedRandomizedSearchCV, which "
            "keep each candidate's out-of-fold per-query values (per_query_results_); got "
            f"{type(search).__name__}"
            + ("" if hasattr(search, "cv_results_") else " that is not fitted")
            + "."
        )
    labels = [key for key in search.per_query_results_ if key != "query"]
    if not labels:
        raise ValueError(
            "search recorded no per-query values: its scoring has no ranking scorer "
            "(sklearn_rank names such as 'ndcg@10', or make_ranking_scorer)."
        )
    return labels


def _checked_metrics(metrics, metric, labels, search):
    """The scorers to compare: ``metrics``, or its deprecated alias ``metric``; None every
    ranking scorer of the search, the one ``refit`` names first (so that ``baseline="best"``
    is the search's ``best_index_``)."""
    if not (isinstance(metric, str) and metric == "deprecated"):
        if metrics is not None:
            raise ValueError(
                "metric is a deprecated alias of metrics: pass metrics only; got both "
                f"metrics={metrics!r} and metric={metric!r}."
            )
        warnings.warn(
            "compare_search(metric=) is deprecated in version 0.2 and will be removed in 0.4; "
            "use metrics= (the spelling of compare).",
            FutureWarning,
            stacklevel=3,
        )
        metrics = metric
    if metrics is None:
        refit = search.refit if isinstance(search.refit, str) and search.refit in labels else None
        return labels if refit is None else [refit, *(label for label in labels if label != refit)]
    metrics = [metrics] if isinstance(metrics, str) else list(metrics)
    for name in metrics:
        if name not in labels and f"mean_test_{name}" in getattr(search, "cv_results_", {}):
            raise ValueError(
                f"{name!r} has no per-query values to pair: a corpus-level measure (one value "
                "for all users of a fold, such as coverage or Gini) or scikit-learn's own "
                "scorer. Compare its fold scores in cv_results_, or the refitted candidates' "
                f"lists with compare(); the per-query scorers are {', '.join(labels)}."
            )
        if name not in labels:
            raise ValueError(
                f"metrics must be one of the search's ranking scorers ({', '.join(labels)}) "
                f"or a list of them; got {name!r}."
            )
    if not metrics:
        raise ValueError("metrics must name at least one scorer; got an empty list.")
    return metrics


def _check_unweighted(search, metrics):
    """Refuse per-query values that the search's scorers weighted unequally: compared as
    they are, each candidate's mean would not be the weighted one the search reported.
    (Equal weights change no value and are accepted; a search fitted before weights were
    recorded has no ``per_query_weights_`` and is taken as it is.)"""
    recorded = getattr(search, "per_query_weights_", None) or {}
    for label in metrics:
        weights = recorded.get(label)
        if weights is None:
            continue
        kept = weights[~np.isnan(weights)]
        if kept.size and np.any(kept != kept[0]):
            raise _weights_refused(
                f"compare_search (the search's scorer {label!r} weighted its queries with "
                f"sample_weight from {kept.min():g} to {kept.max():g}: per_query_weights_)",
                "Compare the candidates' split scores, which the weights weighed, with "
                "test='corrected_t'; or run the search with scorers that do not request "
                "sample_weight to compare their per-query values unweighted.",
            )


def _cv_key(search, label):
    """The key of ``label``'s columns in ``cv_results_`` (``score`` for one scorer)."""
    return label if f"rank_test_{label}" in search.cv_results_ else "score"


def _scorer_of(search, label):
    """The scorer a search recorded ``label`` with (a dict's entry, or its one scorer)."""
    if isinstance(search.scorer_, dict):
        return search.scorer_.get(label)
    return search.scorer_


def _aggregates(search, metrics):
    """Scorer label -> how `evaluate` combines its metric's per-query values (the
    registry's ``aggregate``; "mean" for a scorer that is not a ranking scorer)."""
    entries = {
        label: METRICS.get(getattr(_scorer_of(search, label), "metric", None)) for label in metrics
    }
    return {label: "mean" if e is None else e.aggregate for label, e in entries.items()}


def _scorer_conventions(search, metrics):
    """Scorer label -> the convention keywords its ranking scorer was made with."""
    return {
        label: dict(getattr(_scorer_of(search, label), "conventions", None) or {})
        for label in metrics
    }


def _ranked(search, label):
    """Candidate indices, best first, by ``rank_test_<label>``."""
    ranks = np.asarray(search.cv_results_[f"rank_test_{_cv_key(search, label)}"])
    return np.argsort(ranks, kind="stable")


def _checked_candidates(candidates, search, label):
    n_candidates = len(search.cv_results_["params"])
    if candidates is None:
        return list(range(n_candidates))
    if isinstance(candidates, Integral) and not _is_bool(candidates):
        if not 2 <= candidates:
            raise ValueError(
                f"candidates must be None, an int of at least 2 (the best k) or a list of "
                f"candidate indices; got {candidates!r}."
            )
        return sorted(_ranked(search, label)[: int(candidates)].tolist())
    chosen = [int(index) for index in candidates]
    bad = [index for index in chosen if not 0 <= index < n_candidates]
    if bad or len(set(chosen)) != len(chosen) or len(chosen) < 2:
        raise ValueError(
            f"candidates must hold at least two distinct indices in [0, {n_candidates}) "
            f"(rows of cv_results_); got {list(candidates)!r}."
        )
    return chosen


def _shown_values(values):
    """Short texts of one parameter's values: an estimator by its class name when that
    tells the candidates apart, anything else by its repr on one line."""
    texts = []
    for value in values:
        if isinstance(value, np.generic):
            value = value.item()
        texts.append(value if isinstance(value, str) else " ".join(repr(value).split()))
    classes = [type(value).__name__ for value in values]
    estimators = all(hasattr(value, "get_params") for value in values)
    if estimators and len(set(classes)) == len(set(texts)):
        return classes
    return texts


def _candidate_names(params, chosen):
    """Readable, distinct names from the parameters that differ between candidates."""
    keys = list(dict.fromkeys(key for index in chosen for key in params[index]))
    varying = [
        key for key in keys if len({repr(params[index].get(key)) for index in chosen}) > 1
    ] or keys
    prefix = ""
    if varying and all("__" in key for key in varying):
        heads = {key.split("__", 1)[0] for key in varying}
        if len(heads) == 1:
            prefix = heads.pop() + "__"
    parts = [[] for _ in chosen]
    for key in varying:
        present = [i for i, index in enumerate(chosen) if key in params[index]]
        shown = _shown_values([params[chosen[i]][key] for i in present])
        for i, text in zip(present, shown):
            parts[i].append(f"{key[len(prefix) :]}={text}")
    names = [", ".join(part) or f"candidate {index}" for part, index in zip(parts, chosen)]
    counts = {name: names.count(name) for name in names}
    return [name if counts[name] == 1 else f"{name} #{index}" for name, index in zip(names, chosen)]


def _fold_scores(search, metrics, chosen):
    """metric -> (n_splits, n_candidates) test scores of each split."""
    return {
        label: np.column_stack(
            [
                np.asarray(search.cv_results_[f"split{k}_test_{_cv_key(search, label)}"])[chosen]
                for k in range(search.n_splits_)
            ]
        ).T
        for label in metrics
    }


@_fill_declared
def compare_search(
    search,
    metrics=None,
    *,
    baseline="best",
    candidates=None,
    test="randomization",
    alternative="two-sided",
    correction="holm",
    confidence=0.95,
    n_resamples=10_000,
    random_state=None,
    decimals=None,
    metric="deprecated",
):
    """Compare the candidates of a grouped search query by query.

    `GroupedGridSearchCV` and `GroupedRandomizedSearchCV` keep the out-of-fold value of
    every query for each candidate (``per_query_results_``: each query is scored by the
    model that did not see it in training; under repeated splitters, the mean over its
    test folds). Those values are paired by query and compared as `compare` does, with
    candidates named by the parameters in which they differ.

    The per-query tests answer "on this data, which candidate ranks better?": the
    queries are the sample, the trained models are taken as they are. ``test=
    "corrected_t"`` instead compares the candidates' scores on each split with Nadeau
    and Bengio's corrected t-test (as scikit-learn's example "Statistical comparison of
    models using grid search"), which also accounts for the variation from training
    sets; it has few degrees of freedom (the number of splits minus one) and needs a
    repeated splitter to have power.

    Query weights: when the search's ranking scorers were given ``sample_weight``
    (``set_score_request(sample_weight=True)``) and weighted the queries unequally
    (``per_query_weights_``), only ``test="corrected_t"`` compares the candidates, on the
    split scores the weights weighed; the per-query tests raise a ValueError that says
    why, as `compare` does for ``sample_weight``. Equal weights change nothing.

    Parameters
    ----------
    search : GroupedGridSearchCV or GroupedRandomizedSearchCV
        A fitted grouped search with at least one ranking scorer.
    metrics : str or list of str, default=None
        The scorers to compare on (keys of ``per_query_results_``), as `compare`'s
        ``metrics``; None means every ranking scorer of the search, the one ``refit``
        names first.
    baseline : "best", int, str or None, default="best"
        The candidate each other candidate is compared with: ``"best"`` is the best
        ranked on the first metric (``rank_test_<metric>``), an int a row of
        ``cv_results_``, a str a candidate's name; None compares every pair.
    candidates : int, list of int or None, default=None
        The candidates to compare: None every one, an int k the k best ranked on the
        first metric, a list rows of ``cv_results_``.
    {test}

        With ``"corrected_t"`` the test works on the split scores of ``cv_results_``,
        counting training and test sets in queries (``n_train`` and ``n_test`` of the
        first split, from ``split_n_queries_``); the pairs' columns (difference, interval,
        effect size, wins/ties/losses) are then over splits and each candidate's mean is
        its ``mean_test_<metric>``.
    {alternative}
        For candidates: ``"greater"``, each candidate's values are greater than the
        baseline's (every pair: a later row of ``cv_results_`` than an earlier one). With
        ``"corrected_t"``, the one-sided corrected t-test (scikit-learn's example reports
        ``"greater"``'s p for the better model).
    {correction}
    {confidence}
    {n_resamples}
    {random_state}
    {decimals}
    metric : str or list of str
        Deprecated alias of ``metrics`` (which `compare` spells so): deprecated in 0.2,
        removed in 0.4. Passing both raises a ValueError.

    Returns
    -------
    result : Comparison
        Runs are the candidates, in ``cv_results_`` order; ``per_query[metric]`` of
        shape (n_queries, n_candidates) holds their out-of-fold per-query values.

    See Also
    --------
    compare, GroupedGridSearchCV, grouped_cross_validate

    References
    ----------
    .. [1] C. Nadeau and Y. Bengio, "Inference for the generalization error", Machine
       Learning 52, 239-281, 2003.
    .. [2] scikit-learn example, "Statistical comparison of models using grid search".

    Examples
    --------
    >>> from sklearn.linear_model import Ridge
    >>> from sklearn_rank import GroupedGridSearchCV, compare_search
    >>> from sklearn_rank.datasets import make_ranking
    >>> X, y, groups = make_ranking(n_queries=60, random_state=0)
    >>> search = GroupedGridSearchCV(Ridge(), {"alpha": [1.0, 1e4]}, scoring="ndcg@10",
    ...                              cv=3).fit(X, y, groups=groups)
    >>> result = compare_search(search, random_state=0)
    >>> result.run_names, result.baseline
    (['alpha=1.0', 'alpha=10000.0'], 'alpha=1.0')
    >>> result.per_query["ndcg@10"].shape
    (60, 2)
    """
    test, alternative, correction, confidence, n_resamples, random_state = _checked_shared(
        test, alternative, correction, confidence, n_resamples, random_state
    )
    decimals = DECIMALS.validate(decimals)
    labels = _checked_search(search)
    metrics = _checked_metrics(metrics, metric, labels, search)
    if test != "corrected_t":
        _check_unweighted(search, metrics)
    chosen = _checked_candidates(candidates, search, metrics[0])
    params = search.cv_results_["params"]
    names = _candidate_names(params, chosen)
    if baseline is not None:
        if isinstance(baseline, str) and baseline == "best":
            best = int(_ranked(search, metrics[0])[0])
            if best not in chosen:
                raise ValueError(
                    f"baseline='best' is candidate {best}, which candidates leaves out."
                )
            baseline = names[chosen.index(best)]
        elif isinstance(baseline, Integral) and not _is_bool(baseline):
            if int(baseline) not in chosen:
                raise ValueError(
                    f"baseline must be 'best', None, one of the compared candidates' rows "
                    f"({', '.join(map(str, chosen))}) or names; got {baseline!r}."
                )
            baseline = names[chosen.index(int(baseline))]
        elif baseline not in names:
            raise ValueError(
                f"baseline must be 'best', None, a row of cv_results_ or a candidate name "
                f"({', '.join(map(repr, names))}); got {baseline!r}."
            )
    table = search.per_query_results_
    values = {label: np.asarray(table[label])[:, chosen] for label in metrics}
    query_ids = np.asarray(table["query"])
    first = values[metrics[0]]
    n_missing = np.count_nonzero(np.isnan(first) & ~np.isnan(first).all(axis=1)[:, None], axis=0)
    folds = None
    if test == "corrected_t":
        sizes = search.split_n_queries_
        folds = (
            _fold_scores(search, metrics, chosen),
            int(sizes["train"][0]),
            int(sizes["test"][0]),
        )
    return _comparison(
        values,
        names,
        query_ids,
        n_missing,
        baseline=baseline,
        test=test,
        correction=correction,
        confidence=confidence,
        n_resamples=n_resamples,
        random_state=random_state,
        folds=folds,
        decimals=decimals,
        alternative=alternative,
        aggregates=_aggregates(search, metrics),
        conventions=_scorer_conventions(search, metrics),
    )
