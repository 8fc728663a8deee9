"""Propensity-scored metrics of extreme multi-label ranking: PSP@k and PSnDCG@k (Jain,
Prabhu & Varma, KDD 2016), as pyxclib computes them (docs/clicks.md).

Each relevant label l is weighted by its inverse propensity 1 / p_l (a side input,
`conventions._side_inputs`; `jain_propensity` gives Jain et al.'s model), so that rare
labels, missing more often from the ground truth, count more. Per instance:

- PSP@k = (1/k) sum over the top k of y_l / p_l;
- PSnDCG@k = sum over ranks r <= k of y_(r) / (p_(r) log2(r + 1)) / D(min(k, n)), D(m) the
  binary ideal DCG of m relevant labels and n the instance's number of relevant labels.

pyxclib reports the ratio of the dataset means of the predictions' values and of the
propensity-ideal ranking's (each instance's relevant labels sorted by decreasing 1 / p):
the ideal mean is a statistic over the whole input (`_statistics`), computed once before
the input is cut into blocks. Tied scores are averaged over their orderings (pyxclib
breaks them in an unspecified order).
"""

import numpy as np

from ._counting import _discount
from ._reductions import _discounts, _ratio
from ._statistics import _Statistic


def _relevant_weights(queries):
    """The relevant labels of ``queries``: (query, inverse propensity), every query's
    labels sorted by decreasing inverse propensity, and each label's 1-based rank there."""
    relevant = queries.rel != 0
    if queries.excluded is not None:
        relevant &= ~queries.excluded
    entry = np.flatnonzero(relevant)
    query = queries.codes[entry] if queries.codes is not None else entry // queries.width
    weight = queries.rel[entry] / queries.side["propensity"][entry]
    order = np.lexsort((-weight, query))
    query, weight = query[order], weight[order]
    count = np.bincount(query, minlength=queries.n_queries)
    first = np.concatenate(([0], np.cumsum(count)[:-1]))
    rank = np.arange(query.size) - first[query] + 1
    return query, weight, rank, count


def _ideal_sums(queries, n_threads=1):
    """Sums over the queries of the ideal PSP numerator and the ideal PSnDCG at every cut-off
    k = 0 .. the largest number of relevant labels (beyond it they stay the same), and the
    number of queries: what the ratio of means divides by, summed over parts."""
    query, weight, rank, count = _relevant_weights(queries)
    longest = int(count.max(initial=0))
    # PSP: the k best weights of each query, summed over queries, for every k.
    psp = np.concatenate(([0.0], np.cumsum(np.bincount(rank, weights=weight)[1:])))
    psp = np.pad(psp, (0, longest + 1 - psp.size), mode="edge")
    # PSnDCG@k of the ideal ranking: G(min(k, n)) / D(min(k, n)), G the discounted weights.
    discounted = weight * _discount(rank - 1)
    gains = np.cumsum(discounted)
    ends = np.cumsum(count)
    starts = ends - count
    before = np.concatenate(([0.0], gains))[starts[query]]
    running = gains - before  # G(r) of each label's query at its rank r
    binary = np.concatenate(([1.0], np.cumsum(_discount(np.arange(longest)))))  # D(m)
    at_rank = np.bincount(rank, weights=running / binary[rank], minlength=longest + 1)
    final = np.zeros(queries.n_queries)
    has = count > 0
    final[has] = running[ends[has] - 1] / binary[count[has]]
    finished = np.bincount(count, weights=final, minlength=longest + 1)
    psndcg = at_rank + np.concatenate(([0.0], np.cumsum(finished)[:-1]))
    psndcg[0] = 0.0
    return {"psp": psp, "psndcg": psndcg, "n_queries": queries.n_queries}


def _merge_sums(parts):
    parts = [p for p in parts if p is not None]
    if not parts:
        return None
    longest = max(p["psp"].size for p in parts)
    merged = {"n_queries": sum(p["n_queries"] for p in parts)}
    for key in ("psp", "psndcg"):
        merged[key] = sum(np.pad(p[key], (0, longest - p[key].size), mode="edge") for p in parts)
    return merged


IDEAL_SUMS = _Statistic(
    name="propensity_ideal_sums",
    parameter="ideal_mean",
    of_queries=_ideal_sums,
    merge=_merge_sums,
    value=lambda sums: sums,
    column=None,  # the engines take no side inputs
)


def _ideal_mean(sums, key, k):
    """The mean ideal value at cut-off k from the whole input's sums."""
    values = sums[key]
    total = values[min(k, values.size - 1)]
    if key == "psp":
        total = total / k
    return total / max(sums["n_queries"], 1)


def _normalised(r, k, value, ideal_of_queries, key, ps_normalize, ideal_mean):
    if ps_normalize == "none":
        return value, np.ones(r.n_queries, dtype=bool)
    if ps_normalize == "mean_of_ratios":
        ideal = ideal_of_queries(r.queries, k)
        return _ratio(value, ideal), ideal > 0
    if isinstance(ideal_mean, dict):  # the whole input's sums (`IDEAL_SUMS`)
        ideal_mean = _ideal_mean(ideal_mean, key, k)
    # Every instance counts, with or without a relevant label, as in pyxclib.
    return _ratio(value, np.full(r.n_queries, ideal_mean)), np.ones(r.n_queries, dtype=bool)


def _weighted_in_group(r):
    """Per group: the mean of y / p over its items."""
    weight = r.rel / r.queries.side["propensity"][r.entry]
    return r.group_sum(weight) / r.size


def _ideal_psp_of(queries, k):
    query, weight, rank, _count = _relevant_weights(queries)
    inside = rank <= k
    return np.bincount(query[inside], weights=weight[inside], minlength=queries.n_queries) / k


def _ideal_psndcg_of(queries, k):
    query, weight, rank, count = _relevant_weights(queries)
    inside = rank <= k
    gain = np.bincount(
        query[inside],
        weights=weight[inside] * _discount(rank[inside] - 1),
        minlength=queries.n_queries,
    )
    return _ratio(gain, _binary_ideal(np.minimum(count, k)))


def _binary_ideal(m):
    """D(m) = sum of 1 / log2(r + 1) over r = 1..m, per query."""
    longest = int(np.max(m, initial=0))
    sums = np.concatenate(([0.0], np.cumsum(_discount(np.arange(longest)))))
    return sums[m]


def _count_relevant(r):
    """Per query: its number of relevant labels, inside the top k or not (no sort)."""
    queries = r.queries
    relevant = queries.rel != 0
    if queries.excluded is not None:
        relevant &= ~queries.excluded
    entry = np.flatnonzero(relevant)
    query = queries.codes[entry] if queries.codes is not None else entry // queries.width
    return np.bincount(query, minlength=queries.n_queries)


def psp(r, k, *, ps_normalize, ideal_mean):
    value = r.per_query(_weighted_in_group(r) * r.taken(k)) / k
    return _normalised(r, k, value, _ideal_psp_of, "psp", ps_normalize, ideal_mean)


def psndcg(r, k, *, ps_normalize, ideal_mean):
    gain = r.per_query(_weighted_in_group(r) * _discounts(r, r.start, r.taken(k)))
    value = _ratio(gain, _binary_ideal(np.minimum(_count_relevant(r), k)))
    return _normalised(r, k, value, _ideal_psndcg_of, "psndcg", ps_normalize, ideal_mean)


def _check_request(request, queries):
    """Refuse a PSP or PSnDCG request without a cut-off or propensities."""
    if request.k is None:
        raise ValueError(f"{request.label!r} needs a cut-off: {request.metric.name}@K.")
    side = queries.side or {}
    if "propensity" not in side:
        raise ValueError(
            f"{request.label!r} needs propensity= (each label's propensity; "
            "jain_propensity(label_counts, n_train) gives Jain et al.'s model)."
        )
    relevant = queries.rel != 0
    if (side["propensity"][relevant] == 0).any():
        raise ValueError(
            f"{request.label!r}: a relevant label has propensity 0; propensities of relevant "
            "labels must be positive."
        )


def jain_propensity(label_counts, n_train, *, a=0.55, b=1.5):
    """Propensities of labels from their training frequencies (Jain, Prabhu & Varma, 2016).

    ``1 / p_l = 1 + C (N_l + B) ** -A`` with ``C = (ln N - 1) (B + 1) ** A``, N the number
    of training instances and N_l those with label l, as pyxclib's
    ``compute_inv_propesity``. A label seen once gets ``1 / p = ln N``.

    Parameters
    ----------
    label_counts : array-like of shape (n_labels,)
        N_l: the number of training instances with each label (column sums of the training
        label matrix), non-negative.
    n_train : int
        N: the number of training instances, at least 3 (``ln N > 1``).
    a, b : float, default=0.55 and 1.5
        The model's A and B: 0.55 and 1.5 by default (pyxclib's), 0.5 and 0.4 for
        Wikipedia-LSHTC, 0.6 and 2.6 for Amazon.

    Returns
    -------
    propensity : ndarray of shape (n_labels,)
        p_l in (0, 1], for ``propensity=`` of `psp_score` and `psndcg_score`.

    References
    ----------
    .. [1] H. Jain, Y. Prabhu and M. Varma, "Extreme Multi-label Loss Functions for
       Recommendation, Tagging, Ranking & Other Missing Label Applications", KDD 2016.

    Examples
    --------
    >>> from sklearn_rank import jain_propensity
    >>> (1 / jain_propensity([400, 20, 1], 1000)).round(6)
    array([1.361628, 2.809041, 6.907755])
    """
    counts = np.asarray(label_counts, dtype=np.float64)
    if counts.ndim != 1 or not np.all(np.isfinite(counts)) or (counts < 0).any():
        raise ValueError(
            "label_counts must be a 1-D array of non-negative counts; got "
            f"{np.asarray(label_counts)!r}."
        )
    if isinstance(n_train, bool) or not isinstance(n_train, (int, np.integer)) or n_train < 3:
        raise ValueError(f"n_train must be an integer of at least 3; got {n_train!r}.")
    for name, value in (("a", a), ("b", b)):
        if isinstance(value, bool) or not np.isfinite(value) or value <= 0:
            raise ValueError(f"{name} must be a positive number; got {value!r}.")
    c = (np.log(n_train) - 1.0) * (b + 1.0) ** a
    return 1.0 / (1.0 + c * (counts + b) ** -a)
