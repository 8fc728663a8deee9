"""Click-log (counterfactual) estimators: the inverse-propensity-scored (IPS) value of a new
ranking from logged clicks (docs/clicks.md).

``y_true`` holds the clicks of the log, ``y_score`` the new ranking's scores, and a side
input (`conventions._side_inputs`) the examination propensity theta of every logged row,
or its logged position (theta = (1 / position) ** eta, the position-based model). For an
additive metric ``sum_d lambda(rank(d)) rel(d)`` the IPS estimate is
``sum over clicked d of lambda(rank(d)) / theta(d)`` (Joachims, Swaminathan & Schnabel,
WSDM 2017), unbiased when clicks fall exactly on examined relevant items and every relevant
item had theta > 0. The kernel keeps the clicked items (relevance = click), so each
estimate is a reduction over their tie groups: a group's mean weighted click times the sum
of lambda over its positions is the exact expectation over orderings of tied scores.
"""

import numpy as np

from ._kernel import _discount_sums
from ._reductions import _discounts, _ratio


def _weights(side, entry, eta, max_weight):
    """The inverse propensities of ``entry``, clipped at ``max_weight``."""
    if eta is None:
        weight = 1.0 / side["propensity"][entry]
    else:
        weight = side["position"][entry] ** eta
    if max_weight is not None:
        weight = np.minimum(weight, max_weight)
    return weight


def _clicked_weight(r, eta, max_weight):
    """Per query: the weighted clicks of all its candidates, the top k or not (the kernel
    keeps only those a cut-off can see): its estimated number of relevant items."""
    queries = r.queries
    clicked = queries.rel != 0
    if queries.excluded is not None:
        clicked &= ~queries.excluded
    entry = np.flatnonzero(clicked)
    query = queries.codes[entry] if queries.codes is not None else entry // queries.width
    weighted = queries.rel[entry] * _weights(queries.side, entry, eta, max_weight)
    return np.bincount(query, weights=weighted, minlength=r.n_queries)


def _estimate(r, k, lam, all_positions, eta, max_weight, normalize, eps_plus, eps_minus):
    """The IPS estimate per query: ``lam(r, k)`` is each group's sum of lambda over its
    positions, ``all_positions(r, k)`` the sum of lambda over every position of a query."""
    weighted = r.rel * _weights(r.queries.side, r.entry, eta, max_weight)
    value = r.per_query(r.group_sum(weighted) / r.size * lam(r, k))
    if normalize == "per_query":
        clicked = _clicked_weight(r, eta, max_weight)
        return _ratio(value, clicked), clicked > 0
    if eps_plus != 1.0 or eps_minus != 0.0:
        # sum over displayed d of lambda (c / theta - eps_minus) / (eps_plus - eps_minus):
        # every candidate is displayed (checked), so the eps_minus term is a closed form.
        value = (value - eps_minus * all_positions(r, k)) / (eps_plus - eps_minus)
    # Unbiased, a query without a click included (its estimate is 0): every query counts.
    return value, np.ones(r.n_queries, dtype=bool)


def _shown(r, k):
    n = r.n_cand.astype(np.float64)
    return n if k is None else np.minimum(n, k)


def _dcg_lambda(r, k):
    return _discounts(r, r.start, r.taken(k))


def _dcg_all(r, k):
    return _discount_sums(r)[_shown(r, k).astype(np.int64)]


def _hits_lambda(r, k):
    return r.taken(k).astype(np.float64)


def _precision_lambda(r, k):
    return _hits_lambda(r, k) / (r.n_cand[r.query] if k is None else k)


def _precision_all(r, k):
    return _shown(r, k) / (r.n_cand if k is None else k)


def _rank_lambda(r, k):
    # Sum of the 1-based positions start + 1 ... start + size.
    size = r.size.astype(np.float64)
    return size * r.start + size * (size + 1.0) / 2.0


def _rank_all(r, k):
    n = r.n_cand.astype(np.float64)
    return n * (n + 1.0) / 2.0


def ips_dcg(r, k, **params):
    return _estimate(r, k, _dcg_lambda, _dcg_all, **params)


def ips_precision(r, k, **params):
    return _estimate(r, k, _precision_lambda, _precision_all, **params)


def ips_hits(r, k, **params):
    return _estimate(r, k, _hits_lambda, _shown, **params)


def ips_rank_sum(r, k, **params):
    return _estimate(r, None, _rank_lambda, _rank_all, **params)


def _check_request(request, queries):
    """Refuse, before anything is computed, a click-log request its side inputs cannot
    serve: the one its model needs is missing, a click was never displayed, or click noise
    is corrected where a candidate was never displayed."""
    params = request.params
    eta = params.get("eta")
    side = queries.side or {}
    needed = "propensity" if eta is None else "position"
    if needed not in side:
        how = (
            "propensity= (the examination probability of every row), or eta= with position="
            if eta is None
            else "position= (the logged position of every row) with eta="
        )
        raise ValueError(f"{request.label!r} needs {how}.")
    eps_plus, eps_minus = params.get("eps_plus", 1.0), params.get("eps_minus", 0.0)
    if eps_minus >= eps_plus:
        raise ValueError(
            f"eps_minus must be less than eps_plus (clicks must say something about "
            f"relevance); got eps_minus={eps_minus!r}, eps_plus={eps_plus!r} in "
            f"{request.label!r}."
        )
    noisy = eps_plus != 1.0 or eps_minus != 0.0
    if noisy and params.get("normalize", "none") != "none":
        raise ValueError(
            f"{request.label!r}: the de-noised estimator (eps_plus, eps_minus) has no "
            "self-normalised form; use normalize='none'."
        )
    if eta is None:
        propensity = side["propensity"]
        clicked = queries.rel != 0
        if (propensity[clicked] == 0).any():
            row = int(np.flatnonzero(clicked & (propensity == 0))[0])
            raise ValueError(
                f"{request.label!r}: entry {row} is clicked with propensity 0 (never "
                "displayed); a click needs a positive examination probability."
            )
        candidate = np.ones(propensity.size, dtype=bool)
        if queries.excluded is not None:  # excluded cells are no candidates
            candidate = ~queries.excluded
        if noisy and (propensity[candidate] == 0).any():
            raise ValueError(
                f"{request.label!r}: the de-noised estimator sums over every displayed "
                "candidate; give only displayed candidates (propensity > 0)."
            )
