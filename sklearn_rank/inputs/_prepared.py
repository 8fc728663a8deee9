"""The prepared input: an input normalised once, with what the metrics read beside it.

Every call site (`evaluate`, a scorer, a comparison, a training-time adapter) prepares its
input here once: `_prepare_input` normalises any form into a `_Queries` and checks the
weights; `_with_scores` is the one checked way to give prepared queries new scores (a
scorer's candidate, another run of a comparison, a boosting round); `_queries_of_sizes`
builds the queries of consecutive rows from their group sizes (the training-time adapters'
eval sets). Nothing outside `inputs` builds a `_Queries`.
"""

import dataclasses
from typing import NamedTuple

import numpy as np

from ..conventions._side_inputs import SIDE_INPUTS
from ..utils._sparse import _issparse
from ..utils._validation import _as_float_array, _as_score_array, _check_finite, _python_value
from ._lists_only import _query_counts
from ._normalise import _is_list_form, _normalise
from ._queries import _Queries, _scores_as
from ._side import _side_inputs
from ._tables import ItemJudgments, ItemRanking


class _Prepared(NamedTuple):
    """An input normalised once.

    queries : the `_Queries` every metric reads.
    ids : (n_queries,) query ids, or None for matrices and ranked lists (rows, positions).
    weights : (n_queries,) per-query weights, or None.
    recommender_form : whether the input is a recommender's form (`_is_recommender_form`),
        whose users without a relevant test item are left out of the mean by default.
    side : `_side._Side` (each query's recommended items, the catalog, the training
        interactions, the item features) when a beyond-accuracy measure reads them, else
        None (`_with_side`).
    """

    queries: _Queries
    ids: np.ndarray | None
    weights: np.ndarray | None
    recommender_form: bool
    side: object = None


def _has_item_ids(y_true, y_score):
    """Whether the input names its items (`ItemRanking`, `ItemJudgments`, ranked lists):
    a recommender's or a search engine's output, never scikit-learn's arrays."""
    return (
        isinstance(y_score, ItemRanking)
        or isinstance(y_true, ItemJudgments)
        or (_is_list_form(y_true))
    )


def _is_recommender_form(y_true, y_score):
    """Whether the input is a form recommenders use: items with ids, or a sparse truth
    matrix (users x items, with dense scores or top-N ids). The same evaluation in any of
    these forms takes the same no_relevant default (docs/inputs.md); scikit-learn's dense
    arrays and the long format keep scikit-learn's."""
    return _has_item_ids(y_true, y_score) or _issparse(y_true)


def _scores_swappable(y_true, y_score):
    """Whether runs on ``y_true`` differ only by their scores (matrices, long format), so
    that one prepared input takes each run's scores by `_with_scores`."""
    if _has_item_ids(y_true, y_score):
        return False
    return not _issparse(y_score)


def _prepare_input(
    y_true,
    y_score,
    groups=None,
    exclude=None,
    sample_weight=None,
    *,
    tie_break="input",
    query_set="all",
    score_dtype="float64",
    judged_only=False,
    n_threads=1,
    side=None,
):
    """Normalise the input once (`_normalise`) and weigh its queries: a `_Prepared`.

    side : name -> array-like shaped like ``y_true`` (`conventions._side_inputs`), or None.
    """
    queries, ids = _normalise(
        y_true,
        y_score,
        groups,
        exclude,
        tie_break=tie_break,
        query_set=query_set,
        score_dtype=score_dtype,
        judged_only=judged_only,
        n_threads=n_threads,
    )
    queries = _with_side_inputs(queries, side, y_true, y_score)
    weights = _query_weights(sample_weight, queries, ids)
    return _Prepared(queries, ids, weights, _is_recommender_form(y_true, y_score))


def _prepare_lists_input(
    y_true,
    y_score,
    groups=None,
    exclude=None,
    sample_weight=None,
    *,
    tie_break="input",
    query_set="all",
    score_dtype="float64",
    judged_only=False,
    n_threads=1,
    side=None,
    head=None,
):
    """`_prepare_input` for a call whose measures read the recommended lists alone (no
    relevance of a ranked item): the queries numbered and counted as the normaliser
    numbers them, without joining the run with its judgments (`_lists_only`). Its
    ``queries`` is then a `_lists_only._QueryCounts`, not a `_Queries`. ``head``: the
    largest cut-off the measures read (None: whole lists), of the lists `_with_side` reads.

    Returns (the `_Prepared`, y_true, y_score), the last two what `_with_side` reads (ranked
    lists flattened once), or None when the input must be prepared whole
    (`_prepare_input`): a form or a convention not covered, per-entry side arrays, or an
    input the normaliser might refuse or warn about, which it then does exactly as for any
    other call.
    """
    if any(values is not None for values in (side or {}).values()):
        return None
    found = _query_counts(
        y_true,
        y_score,
        groups=groups,
        exclude=exclude,
        query_set=query_set,
        judged_only=judged_only,
        tie_break=tie_break,
        score_dtype=score_dtype,
        n_threads=n_threads,
        head=head,
    )
    if found is None:
        return None
    queries, ids, read_true, read_score = found
    weights = _query_weights(sample_weight, queries, ids)
    prepared = _Prepared(queries, ids, weights, _is_recommender_form(y_true, y_score))
    return prepared, read_true, read_score


def _with_side(
    prepared,
    y_true,
    y_score,
    *,
    exclude=None,
    side_inputs=None,
    k=None,
    relevant=True,
    history=True,
):
    """``prepared`` with the side inputs of the beyond-accuracy measures (`_side`).

    side_inputs : dict of ``train``, ``item_features``, ``catalog`` (None values: absent).
    k : the largest cut-off they read (None: whole lists).
    relevant : whether a measure reads each user's relevant test items (else not made).
    history : whether a measure reads each user's training items (else not made).
    """
    side = _side_inputs(
        y_true,
        y_score,
        ids=prepared.ids,
        n_queries=prepared.queries.n_queries,
        exclude=exclude,
        k=k,
        relevant=relevant,
        history=history,
        **(side_inputs or {}),
    )
    return prepared._replace(side=side)


def _with_side_inputs(queries, side, y_true, y_score):
    """``queries`` carrying the side inputs given (checked by their declarations), each
    aligned with the entries: matrices and long format only, whose entries are the cells
    (row-major) and the rows of ``y_true``."""
    given = {name: values for name, values in (side or {}).items() if values is not None}
    if not given:
        return queries
    checked = {}
    for name, values in given.items():
        array = SIDE_INPUTS[name].validate(values)
        if _has_item_ids(y_true, y_score) or queries.rel is None:
            raise ValueError(
                f"{name} needs y_true as a dense matrix (n_queries, n_items) or long format "
                "(1-D with groups): its values are aligned with y_true's cells or rows."
            )
        expected = np.shape(y_true)
        if queries.width is not None and array.shape == (queries.width,):
            array = np.broadcast_to(array, (queries.n_queries, queries.width))  # per item
        elif array.shape != expected:
            raise ValueError(f"{name} must have y_true's shape {expected}; got {array.shape}.")
        checked[name] = np.ascontiguousarray(array).ravel()
    return dataclasses.replace(queries, side=checked)


def _with_scores(queries, y_score, shape, *, score_dtype, what="y_score", shape_error=None):
    """``queries`` with new scores, checked as the normaliser checks them.

    y_score : array-like of ``shape`` (the scores' shape as first given: (n_rows,) for long
        format, (n_queries, n_items) for matrices), finite numbers.
    shape_error : function of the shape found -> the message of a wrong shape (the call
        site's words); None: a message naming ``what``.
    """
    score = _as_score_array(what, y_score)
    if score.shape != tuple(shape):
        raise ValueError(
            shape_error(score.shape)
            if shape_error is not None
            else f"{what} must have shape {tuple(shape)}; got {score.shape}."
        )
    _check_finite(what, score)
    return queries.with_scores(_scores_as(np.ascontiguousarray(score).ravel(), score_dtype))


def _queries_of_sizes(rel, sizes, *, relevance_ties=False):
    """The queries of consecutive rows, ``sizes[i]`` rows for query i, each row judged
    ``rel``; no scores yet (zeros): `_with_scores` gives them.

    rel : (n_rows,) float64 relevance. sizes : (n_queries,) positive int64 row counts.
    """
    return _Queries(
        n_queries=sizes.size,
        score=np.zeros(rel.size),
        rel=rel,
        codes=np.repeat(np.arange(sizes.size, dtype=np.int64), sizes),
        n_cand=sizes,
        n_rows=rel.size,
        relevance_ties=relevance_ties,
    )


def _query_weights(sample_weight, queries, ids=None):
    """Per-query weights from ``sample_weight`` (per query, or per row in long format).

    ``ids``: the query ids, to name a query in errors (None: its position).
    """
    if sample_weight is None:
        return None
    weights = _as_float_array("sample_weight", sample_weight)
    if weights.ndim != 1:
        raise ValueError(f"sample_weight must be 1-D; got shape {weights.shape}.")
    _check_finite("sample_weight", weights)
    if (weights < 0).any():
        raise ValueError(
            f"sample_weight must be non-negative; got {float(weights[weights < 0][0])!r}."
        )
    n_queries, n_rows = queries.n_queries, queries.n_rows
    if weights.size == n_queries:
        per_query = weights
    elif n_rows is not None and weights.size == n_rows:
        codes = queries.codes
        low = np.full(n_queries, np.inf)
        high = np.full(n_queries, -np.inf)
        np.minimum.at(low, codes, weights)
        np.maximum.at(high, codes, weights)
        if (low != high).any():
            query = int(np.flatnonzero(low != high)[0])
            name = (
                f"query number {query}" if ids is None else f"query {_python_value(ids[query])!r}"
            )
            raise ValueError(
                "sample_weight given per row must be constant within each query "
                f"(it weights whole queries); {name} has weights from "
                f"{float(low[query])!r} to {float(high[query])!r}."
            )
        per_query = low
    else:
        lengths = f"{n_queries} (one per query)"
        if n_rows is not None:
            lengths += f" or {n_rows} (one per row)"
        raise ValueError(f"sample_weight must have length {lengths}; got {weights.size}.")
    if not per_query.any():
        raise ValueError("sample_weight must not be all zero.")
    return per_query
