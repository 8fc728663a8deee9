"""Validate, normalise once, rank once, reduce each metric, aggregate: every call goes here."""

from collections.abc import Mapping

import numpy as np

from ..conventions import _fill_doc, check_k, resolve
from ..inputs._normalise import _normalise
from ..utils._validation import _check_per_query
from ._aggregate import _aggregate, _query_weights
from ._kernel import _rank
from ._names import _parse_requests, _Request
from ._registry import METRICS


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

    requests : list of `_Request` (or (label, registry entry, k) tuples).
    conventions : as `sklearn_rank.conventions.resolve` returns them (validated).
    """
    requests = [r if isinstance(r, _Request) else _Request(*r) for r in requests]
    per_query = _check_per_query(per_query)
    gain = conventions["gain"]
    threshold = conventions["relevance_threshold"]
    queries, ids = _normalise(
        y_true,
        y_score,
        groups,
        exclude,
        tie_break=conventions["tie_break"],
        query_set=conventions["query_set"],
        score_dtype=conventions["score_dtype"],
        judged_only=conventions["judged_only"],
    )
    _codes, judged = queries.judged()
    lowest = float(judged.min()) if judged.size else 0.0
    if gain == "exponential" and judged.size and judged.max() > _LARGEST_EXPONENT:
        raise ValueError(
            f"gain='exponential' needs relevance <= {_LARGEST_EXPONENT} (2**rel overflows "
            f"float64 beyond); got {float(judged.max())!r}."
        )
    if lowest < 0:
        for request in requests:
            label, metric = request.label, request.metric
            takes_gain = "gain" in metric.conventions
            request_gain = request.overrides.get("gain", gain)
            if not (metric.negative_relevance and (request_gain == "linear" or not takes_gain)):
                raise ValueError(
                    f"y_true must be non-negative for {label!r}; got {lowest!r}. Negative "
                    "relevance is accepted only by cg and dcg with gain='linear' and by "
                    "kendall_tau."
                )
    weights = _query_weights(sample_weight, queries, ids)

    cut_offs = [r.k for r in requests]
    prefix = None if None in cut_offs else max(cut_offs)
    first_relevant = all(r.metric.first_relevant_only for r in requests)
    if len({r.overrides.get("relevance_threshold", threshold) for r in requests}) > 1:
        first_relevant = False  # the kernel's shortcut reads one threshold
    judged = any(r.metric.needs_judged for r in requests)
    ranking = _rank(
        queries,
        prefix,
        conventions["ties"],
        first_relevant,
        requests[0].overrides.get("relevance_threshold", threshold),
        judged=judged,
        order_free=all(r.metric.order_free for r in requests),
    )

    results = {}
    for request in requests:
        metric = request.metric
        chosen = dict(conventions, **request.overrides)
        chosen["gain"] = _GAIN_FUNCTIONS[chosen["gain"]]
        arguments = {name: chosen[name] for name in metric.conventions}
        for parameter in metric.parameters:
            arguments[parameter.name] = request.params.get(parameter.name, parameter.default)
        # Overflow to inf or NaN is reported by _aggregate with the query it happened in.
        with np.errstate(over="ignore", invalid="ignore"):
            values, has_relevant = metric.reduce(ranking, request.k, **arguments)
        rule = _no_relevant_rule(conventions, metric)
        results[request.label] = _aggregate(
            values, has_relevant, rule, weights, per_query, request.label, metric.aggregate
        )
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
    """One metric by registry name, as the public metric functions call it.

    ``conventions`` also holds the metric's own parameters (``p`` of RBP...), checked here.
    """
    metric = METRICS[name]
    k = check_k(k) if metric.takes_k else None
    params = {}
    for parameter in metric.parameters:
        value = conventions.pop(parameter.name, parameter.default)
        params[parameter.name] = parameter.check(parameter.name, value)
    return _compute(
        [_Request(name, metric, k, params)],
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
    iprec_rounding=None,
    judged_only=None,
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
    {iprec_rounding}
    {judged_only}
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
    requests = [request for name in names for request in _parse_requests(name)]
    unique = {}
    for request in requests:  # a name given twice is computed once
        unique.setdefault(request.label, request)
    requests = list(unique.values())
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
            "iprec_rounding": iprec_rounding,
            "judged_only": judged_only,
        },
    )
    default_k = conventions["default_k"]
    if default_k is not None:
        requests = [
            _Request(
                r.label,
                r.metric,
                default_k if r.k is None and r.metric.takes_k else r.k,
                r.params,
                r.overrides,
            )
            for r in requests
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
