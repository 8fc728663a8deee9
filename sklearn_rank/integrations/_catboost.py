"""CatBoost: its built-in metric that equals a sklearn_rank metric, where one does.

CatBoost's Python custom eval metric cannot compute a per-query metric: CatBoost calls its
``evaluate(approxes, target, weight)`` with the predictions, labels and weights of a range
of objects and nothing else (``_MetricEval`` in ``catboost/python-package/catboost/
_catboost.pyx``); the C++ side (``TCustomMetric`` in ``catboost/libs/metrics/metric.cpp``)
drops the query information it holds and declares the metric per-object
(``EErrorType::PerObjectError``). So no group id ever reaches a Python metric. What can be
had is CatBoost's own ranking metric, which ``convention="catboost"`` reproduces: stopping on
``NDCG:top=10`` and selecting on ``ndcg@10`` under that convention is one number.
"""

from ..conventions import _fill_doc
from ..conventions._declarations import resolve
from ..metrics._plan import _Plan
from ..metrics._signatures import _with_conventions
from ._base import _plan

# What CatBoost's NDCG and MAP do, by the conventions that describe them (the "catboost"
# preset; docs/reproducing_other_tools.md).
_CATBOOST_RULES = {
    "ndcg": ("ties", "tie_break", "log_base", "score_dtype"),
    "map": ("ties", "tie_break", "score_dtype", "relevance_threshold", "ap_denominator"),
}
_GAIN_TYPES = {"linear": "Base", "exponential": "Exp"}


def _describe(label, metric, k, resolved):
    """CatBoost's description of one request, or a ValueError naming what differs."""
    if metric.name not in _CATBOOST_RULES:
        raise ValueError(
            f"catboost_metric: {label!r} has no CatBoost equivalent checked here; "
            "catboost_metric translates ndcg and map (NDCG and MAP of CatBoost)."
        )
    gain = resolved["gain"]
    catboost = resolve("catboost", {"gain": gain})
    differ = [
        f"{name}={resolved[name]!r} (CatBoost: {catboost[name]!r})"
        for name in _CATBOOST_RULES[metric.name]
        if resolved[name] != catboost[name]
        # Without a cut-off min(k, R) is R: both denominators are CatBoost's.
        and not (name == "ap_denominator" and k is None and resolved[name] == "relevant")
    ]
    ours = _Plan((), resolved).no_relevant_rule(metric)
    theirs = _Plan((), catboost).no_relevant_rule(metric)
    if ours != theirs:
        differ.append(f"no_relevant={ours!r} (CatBoost: {theirs!r})")
    if differ:
        raise ValueError(
            f"catboost_metric: CatBoost's {metric.name.upper()} is not {label!r} under these "
            f"conventions: {', '.join(differ)}. Pass convention='catboost' (and score with the "
            "same conventions)."
        )
    options = [] if k is None else [f"top={k}"]
    if metric.name == "ndcg":
        options.append(f"type={_GAIN_TYPES[gain]}")
    return ":".join([metric.name.upper(), ";".join(options)]) if options else "MAP"


@_with_conventions(n_jobs=False)
@_fill_doc
def catboost_metric(
    metrics,
    *,
    convention=None,
    **conventions,
):
    """CatBoost's built-in metric that equals a sklearn_rank metric, for early stopping.

    CatBoost's API has no per-query custom metric: a Python eval metric receives the
    predictions, labels and weights of a range of objects (``evaluate(approxes, target,
    weight)``) and never the group ids, so a ranking metric cannot be computed inside it.
    This function returns instead the description of CatBoost's own metric that gives the
    same number, ``"NDCG:top=10;type=Base"`` for ``"ndcg@10"`` and ``"MAP:top=10"`` for
    ``"map@10"``, after checking that the conventions are CatBoost's: pass
    ``convention="catboost"`` (``gain="exponential"`` gives ``type=Exp``). Stopping on it
    and selecting with the same name and conventions
    (``make_ranking_scorer("ndcg@10", convention="catboost")``) is then one number.
    Other conventions raise a ValueError that names the differences.

    Parameters
    ----------
    metrics : str or list of str
        ``"ndcg"``, ``"ndcg@K"``, ``"map"`` or ``"map@K"``, or a list of them.
    {conventions}

    Returns
    -------
    description : str or list of str
        CatBoost's metric description (a list for a list of names), for
        ``CatBoostRanker(eval_metric=...)`` or ``custom_metric=[...]``.

    See Also
    --------
    lightgbm_metric : A custom eval metric for LightGBM.
    xgboost_metric : A custom eval metric for XGBoost.

    References
    ----------
    .. [1] CatBoost, "User-defined metrics" and ``catboost/libs/metrics/dcg.cpp``.

    Examples
    --------
    >>> from sklearn_rank import catboost_metric
    >>> catboost_metric("ndcg@10", convention="catboost")
    'NDCG:top=10;type=Base'
    >>> catboost_metric(["ndcg", "map@5"], convention="catboost", gain="exponential")
    ['NDCG:type=Exp', 'MAP:top=5']
    """
    plan = _plan(metrics, convention, conventions)
    described = [_describe(r.label, r.metric, r.k, plan.conventions) for r in plan.requests]
    return described[0] if isinstance(metrics, str) else described
