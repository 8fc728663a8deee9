"""Validate, normalise once, rank once, reduce each metric, aggregate: every call goes here."""

from collections.abc import Mapping

import numpy as np

from ..conventions import _fill_doc, check_k, resolve
from ..inputs._normalise import _normalise
from ..utils._validation import _check_per_query
from ._aggregate import _aggregate, _query_weights
from ._kernel import _rank
from ._registry import METRICS, _parse_name


def _linear(rel):
    return rel


def _exponential(rel):
    return np.exp2(rel) - 1.0


_GAIN_FUNCTIONS = {"linear": _linear, "exponential": _exponential}
_LARGEST_EXPONENT = 1023  # 2.0 ** 1024 is inf in float64


def _no_relevant_rule(conventions, metric):
    """The no_relevant value of one metric: the value given, the preset's value for this
    metric, or the metric's own default."""
    if conventions["no_relevant"] is not None:
        return conventions["no_relevant"]
    return conventions["metric_no_relevant"].get(metric.name, metric.no_relevant_default)


def _compute(
    requests,
    y_true,
    y_score,
    *,
    groups=None,
    exclude=None,
    sample_weight=None,
    per_query=False,
    conventions,
):
    """Compute several metrics on one input with one sort.

    requests : list of (label, registry entry, k).
    conventions : as `sklearn_rank.conventions.resolve` returns them (validated).
    """
    per_query = _check_per_query(per_query)
    queries, ids = _normalise(
        y_true,
        y_score,
        groups,
        exclude,
        tie_break=conventions["tie_break"],
        query_set=conventions["query_set"],
        score_dtype=conventions["score_dtype"],
    )
    weights = _query_weights(sample_weight, queries, ids)
    return _compute_queries(requests, queries, weights, per_query, conventions)


def _compute_queries(requests, queries, weights, per_query, conventions):
    """`_compute` on input normalised already: a `_Queries` and per-query weights (or
    None). Training-time adapters keep one `_Queries` per eval set and change its scores."""
    gain = conventions["gain"]
    threshold = conventions["relevance_threshold"]
    _codes, judged = queries.judged()
    lowest = float(judged.min()) if judged.size else 0.0
    if gain == "exponential" and judged.size and judged.max() > _LARGEST_EXPONENT:
        raise ValueError(
            f"gain='exponential' needs relevance <= {_LARGEST_EXPONENT} (2**rel overflows "
            f"float64 beyond); got {float(judged.max())!r}."
        )
    if lowest < 0:
        for label, metric, _k in requests:
            takes_gain = "gain" in metric.conventions
            if not (metric.negative_relevance and (gain == "linear" or not takes_gain)):
                raise ValueError(
                    f"y_true must be non-negative for {label!r}; got {lowest!r}. Negative "
                    "relevance is accepted only by cg and dcg with gain='linear' and by "
                    "kendall_tau."
                )

    cut_offs = [k for _label, metric, k in requests]
    prefix = None if None in cut_offs else max(cut_offs)
    first_relevant = all(metric.first_relevant_only for _label, metric, _k in requests)
    ranking = _rank(queries, prefix, conventions["ties"], first_relevant, threshold)
    parameters = dict(conventions, gain=_GAIN_FUNCTIONS[gain])

    results = {}
    for label, metric, k in requests:
        # Overflow to inf or NaN is reported by _aggregate with the query it happened in.
        with np.errstate(over="ignore", invalid="ignore"):
            values, has_relevant = metric.reduce(
                ranking, k, **{name: parameters[name] for name in metric.conventions}
            )
        rule = _no_relevant_rule(conventions, metric)
        results[label] = _aggregate(values, has_relevant, rule, weights, per_query, label)
    return results


def _score(
    name,
    y_true,
    y_score,
    *,
    k=None,
    groups=None,
    exclude=None,
    sample_weight=None,
    per_query=False,
    **conventions,
):
    """One metric by registry name, as the public metric functions call it."""
    metric = METRICS[name]
    k = check_k(k) if metric.takes_k else None
    return _compute(
        [(name, metric, k)],
        y_true,
        y_score,
        groups=groups,
        exclude=exclude,
        sample_weight=sample_weight,
        per_query=per_query,
        conventions=resolve(None, conventions),
    )[name]


@_fill_doc
def evaluate(
    y_true,
    y_score,
    metrics,
    *,
    groups=None,
    exclude=None,
    sample_weight=None,
    convention=None,
    ties=None,
    gain=None,
    ap_denominator=None,
    no_relevant=None,
    relevance_threshold=None,
    short_lists=None,
    log_base=2,
    tie_break=None,
    query_set=None,
    score_dtype=None,
    per_query=False,
):
    """Compute several ranking metrics at once, sharing one sort of the input.

    Parameters
    ----------
    {y_true}
    {y_score}
    metrics : str or list of str
        Metric names such as ``"ndcg@10"``, ``"map"``, ``"precision@5"``; see
        `get_metric_names`. ``@K`` sets the cut-off k.
    {groups}
    {exclude}
    {sample_weight}
    {convention}
    {ties}
    {gain}
    {ap_denominator}
    {no_relevant_evaluate}
    {relevance_threshold}
    {short_lists}
    {log_base}
    {tie_break}
    {query_set}
    {score_dtype}
    {per_query}

    Returns
    -------
    results : dict
        Metric name -> mean over queries (float), or -> ndarray of shape (n_queries,)
        with ``per_query=True``. Conventions that do not apply to a metric are ignored
        for it.

    References
    ----------
    .. [1] F. McSherry and M. Najork, "Computing Information Retrieval Performance
       Measures Efficiently in the Presence of Tied Scores", ECIR 2008.

    Examples
    --------
    >>> from sklearn_rank import evaluate
    >>> y_true = [[3, 2, 0, 1], [0, 0, 1, 1]]
    >>> y_score = [[0.9, 0.8, 0.1, 0.4], [0.2, 0.1, 0.7, 0.3]]
    >>> results = evaluate(y_true, y_score, ["ndcg@2", "precision@2", "mrr"])
    >>> {name: round(value, 4) for name, value in results.items()}
    {'ndcg@2': 1.0, 'precision@2': 1.0, 'mrr': 1.0}
    >>> evaluate(y_true, y_score, ["precision@1"], per_query=True)["precision@1"]
    array([1., 1.])
    """
    if isinstance(metrics, (bytes, Mapping)) or not (
        isinstance(metrics, str) or hasattr(metrics, "__iter__")
    ):
        raise ValueError(
            "metrics must be a metric name or a list of names such as ['ndcg@10', 'map']; "
            f"got {metrics!r}."
        )
    names = [metrics] if isinstance(metrics, str) else list(metrics)
    if not names:
        raise ValueError("metrics must name at least one metric; got an empty list.")
    requests = []
    for name in names:
        metric, k = _parse_name(name)
        requests.append((name, metric, k))
    conventions = resolve(
        convention,
        {
            "ties": ties,
            "gain": gain,
            "ap_denominator": ap_denominator,
            "no_relevant": no_relevant,
            "relevance_threshold": relevance_threshold,
            "short_lists": short_lists,
            "log_base": log_base,
            "tie_break": tie_break,
            "query_set": query_set,
            "score_dtype": score_dtype,
        },
    )
    default_k = conventions["default_k"]
    if default_k is not None:
        requests = [
            (label, metric, default_k if k is None and metric.takes_k else k)
            for label, metric, k in requests
        ]
    return _compute(
        requests,
        y_true,
        y_score,
        groups=groups,
        exclude=exclude,
        sample_weight=sample_weight,
        per_query=per_query,
        conventions=conventions,
    )
