"""Validate, normalise once, rank once, reduce each metric, aggregate: every call goes here."""

from collections.abc import Mapping

import numpy as np

from ._aggregate import _aggregate, _query_weights
from ._docs import _fill_doc
from ._inputs import _normalise
from ._kernel import _rank
from ._registry import METRICS, _parse_name
from ._validation import (
    AP_DENOMINATORS,
    GAINS,
    SCORE_DTYPES,
    SHORT_LISTS,
    TIE_BREAKS,
    TIES,
    QUERY_SETS,
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
_LARGEST_EXPONENT = 1023  # 2.0 ** 1024 is inf in float64

_DEFAULTS = {"ties": "average", "gain": "linear", "ap_denominator": "relevant",
             "no_relevant": None, "short_lists": "k", "tie_break": "input",
             "query_set": "all", "score_dtype": "float64", "default_k": None}

# What each tool does, as read from its source and checked by running it
# (docs/reproducing_other_tools.md); tests/test_peers.py compares against the tools.
PRESETS = {
    # no_relevant is set only where a tool differs from the defaults (0.0; ARP skips).
    "sklearn": {"ties": "average", "gain": "linear"},
    "trec_eval": {"ties": "stable", "tie_break": "item_descending", "score_dtype": "float32",
                  "query_set": "both", "gain": "linear",
                  "ap_denominator": "relevant", "short_lists": "k"},
    # Hivemall's AUC is 0.5 for a query without a relevant item.
    "hivemall": {"ties": "stable", "gain": "exponential", "ap_denominator": "hits",
                 "short_lists": "length", "no_relevant": {"auc": 0.5}},
    # Their ndcg@k and map@k score a query with no relevant item 1; other metrics 0.
    "lightgbm": {"ties": "stable", "gain": "exponential", "ap_denominator": "min_k",
                 "no_relevant": {"ndcg": 1.0, "map": 1.0}},
    # XGBoost's metrics without @k stop at 32 (LambdaRankParam's default top-k).
    "xgboost": {"ties": "stable", "gain": "exponential", "ap_denominator": "min_k",
                "short_lists": "length", "score_dtype": "float32",
                "no_relevant": {"ndcg": 1.0, "map": 1.0}, "default_k": 32},
}


def _no_relevant_rule(no_relevant, metric):
    """The no_relevant value for one metric: a preset's per-metric value, the value given,
    or the metric's own default."""
    rule = no_relevant.get(metric.name) if isinstance(no_relevant, dict) else no_relevant
    return metric.no_relevant_default if rule is None else rule


def _resolve_conventions(convention, explicit):
    """Library defaults, then the preset's values, then the parameters given (not None)."""
    if convention is not None and (not isinstance(convention, str) or convention not in PRESETS):
        raise ValueError(
            f"convention must be one of {', '.join(repr(c) for c in PRESETS)} or None; "
            f"got {convention!r}."
        )
    given = {name: value for name, value in explicit.items() if value is not None}
    return {**_DEFAULTS, **PRESETS.get(convention, {}), **given}


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
             relevance_threshold=None, short_lists="k", log_base=2, exclude=None,
             tie_break="input", query_set="all", score_dtype="float64"):
    """Compute several metrics on one input with one sort.

    requests : list of (label, registry entry, k).
    no_relevant : as the public parameter, or None for each metric's own default.
    """
    _check_choice("tie_break", tie_break, TIE_BREAKS)
    _check_choice("query_set", query_set, QUERY_SETS)
    _check_choice("score_dtype", score_dtype, SCORE_DTYPES)
    conventions = _check_conventions(
        ties=ties, gain=gain, ap_denominator=ap_denominator,
        relevance_threshold=relevance_threshold, short_lists=short_lists, log_base=log_base,
    )
    if no_relevant is not None and not isinstance(no_relevant, dict):  # dict: a preset's
        no_relevant = _check_no_relevant(no_relevant)
    per_query = _check_per_query(per_query)

    queries, ids = _normalise(y_true, y_score, groups, exclude, tie_break=tie_break,
                            query_set=query_set, score_dtype=score_dtype)
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
    weights = _query_weights(sample_weight, queries, ids)

    cut_offs = [k for _label, metric, k in requests]
    prefix = None if None in cut_offs else max(cut_offs)
    first_relevant = all(metric.first_relevant_only for _label, metric, _k in requests)
    ranking = _rank(queries, prefix, ties, first_relevant,
                    conventions["relevance_threshold"])

    results = {}
    for label, metric, k in requests:
        # Overflow to inf or NaN is reported by _aggregate with the query it happened in.
        with np.errstate(over="ignore", invalid="ignore"):
            values, has_relevant = metric.reduce(
                ranking, k, **{name: conventions[name] for name in metric.conventions}
            )
        rule = _no_relevant_rule(no_relevant, metric)
        results[label] = _aggregate(values, has_relevant, rule, weights, per_query, label)
    return results


def _score(name, y_true, y_score, *, k=None, **params):
    """One metric by registry name, as the public metric functions call it."""
    metric = METRICS[name]
    k = _check_k(k) if metric.takes_k else None
    return _compute([(name, metric, k)], y_true, y_score, **params)[name]


@_fill_doc
def evaluate(y_true, y_score, metrics, *, groups=None, exclude=None, sample_weight=None,
             convention=None, ties=None, gain=None, ap_denominator=None, no_relevant=None,
             relevance_threshold=None, short_lists=None, log_base=2, tie_break=None,
             query_set=None, score_dtype=None, per_query=False):
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
    convention : {"sklearn", "trec_eval", "hivemall", "lightgbm", "xgboost"} or None, \
default=None
        Set the convention parameters to reproduce that tool (see
        docs/reproducing_other_tools.md); the parameters given explicitly still win. None
        uses the defaults below.
    ties : {"average", "stable"}, default="average"
        As in the metric functions.
    gain : {"linear", "exponential"}, default="linear"
        As in the metric functions.
    ap_denominator : {"relevant", "min_k", "hits"}, default="relevant"
        As in `mean_average_precision_score`.
    no_relevant : float, "skip", "error" or None, default=None
        Value of a query with no relevant item. None uses each metric's own default (0.0,
        and "skip" for ``arp``). "skip" leaves such queries out of that metric's mean.
    {relevance_threshold}
    short_lists : {"k", "length"}, default="k"
        As in `precision_at_k_score`.
    {log_base}
    tie_break : {"input", "item_descending"}, default="input"
        With ``ties="stable"``: the order that breaks ties. "item_descending" orders tied
        items by item id descending, ids compared as strings (trec_eval's docno rule); for
        matrices the id is the column number. Long format has no item ids.
    query_set : {"all", "judged", "both"}, default="all"
        Which queries count, for items with ids: all queries of the judgments and the run;
        "judged" leaves out queries without judgments (trec_eval -c); "both" also leaves out
        judged queries absent from the run (trec_eval).
    score_dtype : {"float64", "float32"}, default="float64"
        "float32" rounds scores to 32-bit floats first, so that scores equal in float32 tie
        (trec_eval 9.x, XGBoost).
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
            isinstance(metrics, str) or hasattr(metrics, "__iter__")):
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
    conventions = _resolve_conventions(convention, {
        "ties": ties, "gain": gain, "ap_denominator": ap_denominator,
        "no_relevant": no_relevant, "short_lists": short_lists, "tie_break": tie_break,
        "query_set": query_set, "score_dtype": score_dtype,
    })
    default_k = conventions.pop("default_k")
    if default_k is not None:
        requests = [(label, metric, default_k if k is None and metric.takes_k else k)
                    for label, metric, k in requests]
    return _compute(
        requests, y_true, y_score, groups=groups, exclude=exclude,
        sample_weight=sample_weight, per_query=per_query,
        relevance_threshold=relevance_threshold, log_base=log_base, **conventions,
    )
