"""Validate, normalise once, rank once, reduce each metric, aggregate: every call goes here."""

import functools
from typing import NamedTuple

import numpy as np

from ..conventions._declarations import check_k, resolve
from ..conventions._docs import _with_declarations
from ..inputs._prepared import _prepare_input, _prepare_lists_input, _with_side
from ..utils._threads import _block_runner, _check_n_jobs
from ..utils._validation import _check_per_query
from . import _sampled
from ._aggregate import _aggregate
from ._beyond_registry import READS_HISTORY, READS_RELEVANT
from ._blocks import _split_queries
from ._input_checks import (
    _check_relevance,
    _check_side_inputs,
    _default_decides,
    _no_relevant_rule,
    _warn_short_lists,
    _warn_skipped,
)
from ._kernel import _rank
from ._lists import _compute_lists, _list_cut
from ._names import _Request, _requests
from ._registry import METRICS
from ._signatures import _with_conventions
from ._statistics import _with_statistics_of


def _linear(rel):
    return rel


def _exponential(rel):
    return np.exp2(rel) - 1.0


_GAIN_FUNCTIONS = {"linear": _linear, "exponential": _exponential}


def _prepare(
    requests,
    y_true,
    y_score,
    groups,
    exclude,
    sample_weight,
    conventions,
    n_threads=1,
    side_inputs=None,
    side=None,
):
    """Normalise the input once and check it for the requested metrics.

    requests : list of `_Request` (or (label, registry entry, k) tuples).
    side_inputs : dict of ``train``, ``item_features``, ``catalog``, read when a
        beyond-accuracy measure is requested.
    side : dict of the click-log estimators' per-entry arrays (``propensity``,
        ``position``), or None.
    Returns a `_Prepared`: the `_Queries`, the query ids (None for matrices and lists),
    the per-query weights, whether the input names its items, and the side inputs.
    """
    requests = [r if isinstance(r, _Request) else _Request(*r) for r in requests]
    on_lists = [r for r in requests if r.metric.level != "query"]
    arguments = dict(
        tie_break=conventions["tie_break"],
        query_set=conventions["query_set"],
        score_dtype=conventions["score_dtype"],
        judged_only=conventions["judged_only"],
        n_threads=n_threads,
        side=side,
    )
    prepared, read = None, (y_true, y_score)  # read: what the side inputs are made of
    cut = _list_cut(on_lists, conventions.get("convention")) if on_lists else None
    if on_lists and len(on_lists) == len(requests):
        # No request reads the relevance of a ranked item: the run is not joined with the
        # judgments, unless the input needs the normaliser's checks (then None).
        lazily = _prepare_lists_input(
            y_true, y_score, groups, exclude, sample_weight, head=cut, **arguments
        )
        if lazily is not None:
            prepared, *read = lazily
    if prepared is None:
        prepared = _prepare_input(y_true, y_score, groups, exclude, sample_weight, **arguments)
        _check_relevance(requests, prepared.queries, conventions, n_threads)
        _check_side_inputs(requests, prepared.queries)
    if exclude is not None and prepared.recommender_form:
        _warn_short_lists(requests, prepared.queries, prepared.ids)
    if on_lists:
        prepared = _with_side(
            prepared,
            *read,
            exclude=exclude,
            side_inputs=side_inputs,
            k=cut,
            relevant=any(r.metric.name in READS_RELEVANT for r in on_lists),
            history=any(r.metric.name in READS_HISTORY for r in on_lists),
        )
    elif side_inputs and any(v is not None for v in side_inputs.values()):
        named = ", ".join(f"{key}=" for key, v in side_inputs.items() if v is not None)
        raise ValueError(
            f"{named} is read by the beyond-accuracy metrics only (coverage, novelty...); "
            "none of them is requested."
        )
    return prepared


class _Table(NamedTuple):
    """Per-query values of several metrics with what names and weighs each query.

    ids : (n_queries,) query ids; row (list) numbers for matrices and ranked lists.
    values : label -> (n_queries,) values, ``no_relevant`` applied (NaN: left out).
    weights : (n_queries,) per-query weights, or None.
    n_candidates : (n_queries,) items ranked per query (0: the run has nothing for it).
    aggregates : label -> how its mean is taken ("mean", "sum", "geometric": the
        registry's ``aggregate``).
    summation : how the means add the values up (the conventions' ``summation``), so that
        they equal those `evaluate` gives without the table.
    """

    ids: np.ndarray
    values: dict
    weights: np.ndarray | None
    n_candidates: np.ndarray
    aggregates: dict
    summation: str = "accurate"


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
    table=False,
    n_jobs=None,
    sampling=None,
    side_inputs=None,
    side=None,
):
    """Compute several metrics on one input with one sort.

    requests : list of `_Request` (or (label, registry entry, k) tuples).
    conventions : as `conventions._declarations.resolve` returns them (validated).
    table : return a `_Table` (per-query values with their ids) instead of a dict.
    n_jobs : threads, as scikit-learn's ``n_jobs`` (checked here).
    sampling : a `_sampled._Sampling` when the input holds sampled negatives, else None.
    side_inputs : ``train``, ``item_features``, ``catalog`` (`_prepare`).
    side : ``propensity``, ``position`` (`_prepare`).
    """
    requests = [r if isinstance(r, _Request) else _Request(*r) for r in requests]
    per_query = _check_per_query(per_query)
    if sampling is not None:
        _sampled._check_sampled_requests(requests, conventions, sampling)
    n_threads = _check_n_jobs(n_jobs)
    queries, ids, weights, recommender_form, lists_side = _prepare(
        requests,
        y_true,
        y_score,
        groups,
        exclude,
        sample_weight,
        conventions,
        n_threads,
        side_inputs,
        side,
    )
    return _compute_queries(
        requests,
        queries,
        weights,
        per_query,
        conventions,
        recommender_form,
        True,
        ids=ids,
        table=table,
        n_threads=n_threads,
        sampling=sampling,
        side=lists_side,
    )


def _compute_queries(
    requests,
    queries,
    weights,
    per_query,
    conventions,
    recommender_form=False,
    checked=False,
    *,
    ids=None,
    table=False,
    n_threads=1,
    sampling=None,
    side=None,
):
    """`_compute` on input normalised already: a `_Queries` and per-query weights (or
    None). Training-time adapters keep one `_Queries` per eval set and change its scores;
    ``checked``: the relevance was checked for these requests already (`_prepare`);
    ``table``: per-query values with their query ids (``ids``), as a `_Table`;
    ``n_threads``: blocks of queries are ranked and reduced on that many threads;
    ``sampling``: the input holds sampled negatives (`_sampled._Sampling`);
    ``side``: the side inputs of the beyond-accuracy requests (`_Prepared.side`)."""
    requests = [r if isinstance(r, _Request) else _Request(*r) for r in requests]
    order = [r.label for r in requests]
    on_lists = [r for r in requests if r.metric.level != "query"]
    if on_lists:
        lists = _compute_lists(
            on_lists, side, weights, per_query or table, n_threads, conventions.get("convention")
        )
        requests = [r for r in requests if r.metric.level == "query"]
        if not requests:
            return _results_of(lists, order, table, ids, queries, weights, conventions)
        ranked = _compute_queries(
            requests,
            queries,
            weights,
            per_query,
            conventions,
            recommender_form,
            checked,
            ids=ids,
            table=table,
            n_threads=n_threads,
            sampling=sampling,
        )
        if table:
            ranked.values.update(lists)
            ranked.aggregates.update({r.label: "mean" for r in on_lists})
            ranked.values.update({label: ranked.values.pop(label) for label in order})
            return ranked
        return {label: {**ranked, **lists}[label] for label in order}
    if not checked:
        _check_relevance(requests, queries, conventions)
        _check_side_inputs(requests, queries)
    # Statistics over the whole input (ERR's top grade) before it is cut into blocks.
    requests = _with_statistics_of(requests, queries, n_threads)
    threshold = conventions["relevance_threshold"]

    cut_offs = [r.k for r in requests]
    corrected = sampling is not None and sampling.correction is not None  # reads every positive
    prefix = None if None in cut_offs or corrected else max(cut_offs)
    first_relevant = not corrected and all(r.metric.first_relevant_only for r in requests)
    if len({r.overrides.get("relevance_threshold", threshold) for r in requests}) > 1:
        first_relevant = False  # the kernel's shortcut reads one threshold

    def rank(make_block):
        ranking = _rank(
            make_block(),
            prefix,
            conventions["ties"],
            first_relevant,
            requests[0].overrides.get("relevance_threshold", threshold),
            judged=any(r.metric.needs_judged for r in requests),
            order_free=all(r.metric.order_free for r in requests),
        )
        # Arrays kept between requests are freed after their last reader.
        ranking.expect((r.metric.name, r.k) for r in requests)
        return ranking

    blocks = _split_queries(queries, n_threads)
    with _block_runner(len(blocks), n_threads) as run:
        rankings = run(rank, blocks)
        del blocks
        results, skipped = {}, []
        positives = _sampled._joined_positives(rankings) if corrected else None  # all blocks
        for request in requests:
            label, metric = request.label, request.metric
            if corrected:
                values, has_relevant = _sampled._corrected_values(
                    request, conventions, sampling, positives, queries.n_cand
                )
            else:
                reduce = functools.partial(_reduce, request, conventions)
                values, has_relevant = _joined(run(reduce, rankings))
            rule = _no_relevant_rule(conventions, metric, recommender_form)
            if _default_decides(conventions) and not has_relevant.all():
                skipped.append((label, int((~has_relevant).sum()), rule))
            results[label] = _aggregate(
                values,
                has_relevant,
                rule,
                weights,
                per_query or table,
                label,
                metric.aggregate,
                conventions.get("summation", "accurate"),
            )
            del values, has_relevant  # a mean needs them no longer: free them before the next
    if skipped:
        _warn_skipped(skipped, queries.n_queries)
    if sampling is not None and not corrected:
        _sampled._warn_plain([r.label for r in requests])
    if table:
        ids = np.arange(queries.n_queries) if ids is None else ids
        aggregates = {r.label: r.metric.aggregate for r in requests}
        summation = conventions.get("summation", "accurate")
        return _Table(ids, results, weights, queries.n_cand, aggregates, summation)
    return results


def _results_of(values, order, table, ids, queries, weights, conventions):
    """The beyond-accuracy results alone, as a dict or a `_Table`."""
    values = {label: values[label] for label in order}
    if not table:
        return values
    ids = np.arange(queries.n_queries) if ids is None else ids
    aggregates = dict.fromkeys(values, "mean")
    summation = conventions.get("summation", "accurate")
    return _Table(ids, values, weights, queries.n_cand, aggregates, summation)


def _reduce(request, conventions, ranking):
    """One metric's per-query values (and whether each query has a relevant item)."""
    chosen = dict(conventions, **request.overrides)
    chosen["gain"] = _GAIN_FUNCTIONS[chosen["gain"]]
    arguments = {name: chosen[name] for name in request.metric.conventions}
    for parameter in request.metric.parameters:
        arguments[parameter.name] = request.params.get(parameter.name, parameter.default)
    # Overflow to inf or NaN is reported by _aggregate with the query it happened in.
    # (errstate is per thread: set where the block is computed.)
    with np.errstate(over="ignore", invalid="ignore"):
        return request.metric.reduce(ranking, request.k, **arguments)


def _joined(parts):
    """Per-query values and flags of blocks of queries, in query order."""
    if len(parts) == 1:
        return parts[0]
    values, has_relevant = zip(*parts)
    return np.concatenate(values), np.concatenate(has_relevant)


def _table_means(table):
    """The mean of each metric of a `_Table`, as `_compute` gives it without per_query
    (a sum or a geometric mean for the metrics aggregated so)."""
    return {
        label: _aggregate(
            values,
            ~np.isnan(values),
            "skip",
            table.weights,
            False,
            label,
            table.aggregates[label],
            table.summation,
        )
        for label, values in table.values.items()
    }


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
    convention=None,
    n_jobs=None,
    side=None,
    **conventions,
):
    """One metric by registry name, as the public metric functions call it.

    ``conventions`` also holds the metric's own parameters (``p`` of RBP...), checked here;
    ``side``: the side inputs (name -> array, `conventions._side_inputs`).
    """
    metric = METRICS[name]
    params = {}
    for parameter in metric.parameters:  # the metric's own parameters (p of RBP...)
        value = conventions.pop(parameter.name, parameter.default)
        params[parameter.name] = parameter.check(parameter.name, value)
    resolved = resolve(convention, conventions)
    k = check_k(k) if metric.takes_k else None
    if k is None and metric.takes_k:
        k = resolved["default_k"]  # a preset's cut-off for names without one (XGBoost)
    return _compute(
        [_Request(name, metric, k, params)],
        y_true,
        y_score,
        groups=groups,
        exclude=exclude,
        sample_weight=sample_weight,
        per_query=per_query,
        conventions=resolved,
        n_jobs=n_jobs,
        side=side,
    )[name]


@_with_conventions()
@_with_declarations(_sampled._SAMPLED_INPUT)
def evaluate(
    y_true,
    y_score,
    metrics,
    *,
    groups=None,
    exclude=None,
    sample_weight=None,
    per_query=False,
    train=None,
    item_features=None,
    catalog=None,
    propensity=None,
    position=None,
    catalog_size=None,
    correction=None,
    gamma=0.1,
    replacement=False,
    rank_estimate_rounding="floor",
    **conventions,
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
    {propensity}
    {position}
    {conventions}
    per_query : bool or "table", default=False
        True: one value per query instead of the mean, in row order for 2-D input, list
        order for lists, and for long format the order of ``query_ids(groups)`` (first
        appearance). ``"table"``: the same values with their query ids, as a dict of
        arrays like scikit-learn's ``cv_results_`` (``pandas.DataFrame(results)`` makes a
        table of it): ``"query"`` holds the ids (row or list numbers for matrices and
        lists), then one column per metric. Corpus-level metrics (``coverage``,
        ``entropy``, ``gini``, ``pop_rsp``, ``pop_reo``) have no per-query value and
        refuse it.
    {train}
    {item_features}
    {catalog}
        lists), then one column per metric.
    {catalog_size}
    {correction}
    {gamma}
    {replacement}
    {rank_estimate_rounding}

    Returns
    -------
    results : dict
        Metric name -> mean over queries (float), or -> ndarray of shape (n_queries,)
        with ``per_query=True``; with ``per_query="table"``, ``"query"`` -> ndarray of
        shape (n_queries,) first. Conventions that do not apply to a metric are ignored
        for it. A query left out by ``no_relevant="skip"`` has the value NaN. With
        ``catalog_size`` and a ``correction``: the estimates of the catalogue's metrics.

    References
    ----------
    .. [1] F. McSherry and M. Najork, "Computing Information Retrieval Performance
       Measures Efficiently in the Presence of Tied Scores", ECIR 2008.
    .. [2] W. Krichene and S. Rendle, "On Sampled Metrics for Item Recommendation",
       KDD 2020.

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
    >>> evaluate([1, 0, 0, 1], [0.9, 0.1, 0.8, 0.2], ["mrr"], groups=["b", "b", "a", "a"],
    ...          per_query="table")
    {'query': array(['b', 'a'], dtype='<U1'), 'mrr': array([1. , 0.5])}

    A positive second among 3 sampled negatives of 10 items, corrected (docs/sampled.md):

    >>> round(evaluate([1, 0, 0, 0], [0.5, 0.9, 0.1, 0.2], ["ndcg"], groups=[0] * 4,
    ...                catalog_size=10, correction="bv", replacement=True)["ndcg"], 4)
    0.2521
    """
    table = isinstance(per_query, str) and per_query == "table"
    if isinstance(per_query, str) and not table:
        raise ValueError(f"per_query must be True, False or 'table'; got {per_query!r}.")
    n_jobs = conventions.pop("n_jobs", None)
    sampling = _sampled._sampling_of(
        catalog_size, correction, gamma, replacement, rank_estimate_rounding
    )
    requests, conventions = _requests(metrics, conventions)
    computed = _compute(
        requests,
        y_true,
        y_score,
        groups=groups,
        exclude=exclude,
        sample_weight=sample_weight,
        per_query=False if table else per_query,
        conventions=conventions,
        table=table,
        n_jobs=n_jobs,
        sampling=sampling,
        side_inputs={"train": train, "item_features": item_features, "catalog": catalog},
        side={"propensity": propensity, "position": position},
    )
    if table:
        return {"query": computed.ids, **computed.values}
    return computed
