"""Validate, normalise once, rank once, reduce each metric, aggregate: every call goes here."""

import numpy as np

from ._aggregate import _aggregate, _query_weights
from ._docs import _fill_doc
from ._inputs import _normalise
from ._kernel import _rank
from ._registry import METRICS, _parse_name
from ._validation import (
    AP_DENOMINATORS,
    GAINS,
    SHORT_LISTS,
    TIES,
    _check_choice,
    _check_k,
    _check_log_base,
    _check_no_relevant,
    _check_per_query,
    _check_threshold,
)


def _linear(rel):
    return rel


def _exponential(rel):
    return np.exp2(rel) - 1.0


_GAIN_FUNCTIONS = {"linear": _linear, "exponential": _exponential}


def _check_conventions(*, ties, gain, ap_denominator, relevance_threshold, short_lists,
                       log_base):
    """Validate the convention parameters; gain comes back as its function."""
    _check_choice("ties", ties, TIES)
    return {
        "gain": _GAIN_FUNCTIONS[_check_choice("gain", gain, GAINS)],
        "ap_denominator": _check_choice("ap_denominator", ap_denominator, AP_DENOMINATORS),
        "relevance_threshold": _check_threshold(relevance_threshold),
        "short_lists": _check_choice("short_lists", short_lists, SHORT_LISTS),
        "log_base": _check_log_base(log_base),
    }


def _compute(requests, y_true, y_score, *, groups, sample_weight, per_query, ties,
             no_relevant, gain="linear", ap_denominator="relevant",
             relevance_threshold=None, short_lists="k", log_base=2):
    """Compute several metrics on one input with one sort.

    requests : list of (label, registry entry, k).
    no_relevant : as the public parameter, or None for each metric's own default.
    """
    conventions = _check_conventions(
        ties=ties, gain=gain, ap_denominator=ap_denominator,
        relevance_threshold=relevance_threshold, short_lists=short_lists, log_base=log_base,
    )
    if no_relevant is not None:
        no_relevant = _check_no_relevant(no_relevant)
    per_query = _check_per_query(per_query)

    queries, _ = _normalise(y_true, y_score, groups)
    lowest = float(queries.min_relevance())
    if lowest < 0:
        for label, metric, _k in requests:
            if not (metric.negative_relevance and (gain == "linear" or metric.name == "kendall_tau")):
                raise ValueError(
                    f"y_true must be non-negative for {label!r}; got {lowest!r}. Negative "
                    "relevance is accepted only by cg and dcg with gain='linear' and by "
                    "kendall_tau."
                )
    weights = _query_weights(sample_weight, queries)

    cut_offs = [k for _label, metric, k in requests]
    prefix = None if None in cut_offs else max(cut_offs)
    ranking = _rank(queries, prefix, ties)

    results = {}
    for label, metric, k in requests:
        values, has_relevant = metric.reduce(
            ranking, k, **{name: conventions[name] for name in metric.conventions}
        )
        rule = metric.no_relevant_default if no_relevant is None else no_relevant
        results[label] = _aggregate(values, has_relevant, rule, weights, per_query, label)
    return results


def _score(name, y_true, y_score, *, k=None, **params):
    """One metric by registry name, as the public metric functions call it."""
    metric = METRICS[name]
    k = _check_k(k) if metric.takes_k else None
    return _compute([(name, metric, k)], y_true, y_score, **params)[name]


@_fill_doc
def evaluate(y_true, y_score, metrics, *, groups=None, sample_weight=None, ties="average",
             gain="linear", ap_denominator="relevant", no_relevant=None,
             relevance_threshold=None, short_lists="k", log_base=2, per_query=False):
    """Compute several ranking metrics at once, sharing one sort of the input.

    Parameters
    ----------
    {y_true}
    {y_score}
    metrics : str or list of str
        Metric names such as ``"ndcg@10"``, ``"map"``, ``"precision@5"``; see
        `get_metric_names`. ``@K`` sets the cut-off k.
    {groups}
    {sample_weight}
    {ties}
    {gain}
    {ap_denominator}
    no_relevant : float, "skip", "error" or None, default=None
        Value of a query with no relevant item. None uses each metric's own default (0.0,
        and "skip" for ``arp``). "skip" leaves such queries out of that metric's mean.
    {relevance_threshold}
    {short_lists}
    {log_base}
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
    names = [metrics] if isinstance(metrics, str) else list(metrics)
    if not names:
        raise ValueError("metrics must name at least one metric; got an empty list.")
    requests = []
    for name in names:
        metric, k = _parse_name(name)
        requests.append((name, metric, k))
    return _compute(
        requests, y_true, y_score, groups=groups, sample_weight=sample_weight,
        per_query=per_query, ties=ties, no_relevant=no_relevant, gain=gain,
        ap_denominator=ap_denominator, relevance_threshold=relevance_threshold,
        short_lists=short_lists, log_base=log_base,
    )
