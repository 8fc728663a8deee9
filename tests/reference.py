"""A slow, deliberately obvious reference implementation of the ranking metrics.

Written independently of ``sklearn_rank`` (it must never import it) from the definitions in
METRICS.md, for use as an oracle in the property-based tests. Everything is plain Python loops;
ties are handled by brute force: the metric of every ordering of the tied items is computed and
the results are averaged, each ordering counting once.

Public functions
----------------
reference_per_query(metric, rel, score, extra=(), *, k=None, ties="average", gain="linear",
                    ap_denominator="relevant", relevance_threshold=None, short_lists="k",
                    log_base=2) -> float | None
    The metric for ONE query. ``rel[i]`` and ``score[i]`` are the relevance and the score of
    candidate i (input order); ``extra`` holds the relevances of judged items that were never
    scored (they count in R and in the ideal DCG, never in positions). Returns None exactly when
    the query "has no relevant item" (the caller then applies its no_relevant convention).

reference_mean(values, weights=None, no_relevant=0.0) -> float
    Weighted mean of per-query values, where None is replaced by ``no_relevant`` (a number),
    left out ("skip"), or raises ValueError ("error").
"""

import itertools
import math
from collections import Counter
from fractions import Fraction

from scipy.stats import kendalltau

# Shared by tests/metrics/test_worked_examples.py and tests/cli/test_cli.py, which live in
# different folders and so cannot import each other.
# Hivemall's "Ranking Measures" page: the twelve binary values, verbatim.
HIVEMALL_BINARY = {
    "recall@4": 0.6666666666666666,
    "recall@2": 0.3333333333333333,
    "precision@4": 0.5,
    "precision@2": 0.5,
    "map@4": 0.5555555555555555,
    "map@2": 0.3333333333333333,
    "auc@4": 0.75,
    "auc@2": 1.0,
    "mrr@4": 1.0,
    "mrr@2": 1.0,
    "ndcg@4": 0.7039180890341349,
    "ndcg@2": 0.6131471927654585,
}

METRICS = (
    "precision",
    "recall",
    "f1",
    "hit_rate",
    "mrr",
    "map",
    "cg",
    "dcg",
    "ndcg",
    "auc",
    "arp",
    "kendall_tau",
)

# Brute force over orderings of tied items: refuse inputs that would take too long.
MAX_ORDERINGS = 5040


# --------------------------------------------------------------------------------------------
# helpers


def _is_relevant(r, relevance_threshold):
    """b = 1 if the item is relevant: rel >= t, or rel > 0 when there is no threshold."""
    if relevance_threshold is None:
        return r > 0
    return r >= relevance_threshold


def _gain(r, gain):
    if gain == "linear":
        return float(r)
    if gain == "exponential":
        return 2.0 ** float(r) - 1.0
    raise ValueError(f"unknown gain {gain!r}")


def _dcg(rels_in_rank_order, cutoff, gain, log_base):
    """Sum over positions i = 1..cutoff of gain(rel_i) / log_base(i + 1)."""
    terms = []
    for i, r in enumerate(rels_in_rank_order, start=1):
        if i > cutoff:
            break
        terms.append(_gain(r, gain) / math.log(i + 1, log_base))
    return math.fsum(terms)


def _has_no_relevant_item(metric, rel, extra, relevance_threshold):
    if metric == "ndcg":
        return not any(r > 0 for r in list(rel) + list(extra))
    if metric in ("cg", "dcg", "kendall_tau"):  # negative relevance is a value too
        return not any(r != 0 for r in list(rel) + list(extra))
    if metric == "arp":
        return not any(_is_relevant(r, relevance_threshold) for r in rel)
    # precision, recall, f1, hit_rate, mrr, map, auc
    return not any(_is_relevant(r, relevance_threshold) for r in list(rel) + list(extra))


# --------------------------------------------------------------------------------------------
# the metric for one strict ordering


def _strict_value(
    metric, ranked, extra, k, gain, ap_denominator, relevance_threshold, short_lists, log_base
):
    """The metric for one query whose candidates, best first, have relevances ``ranked``.

    Positions are 1-based. Rational metrics are returned as Fractions (exact), the others as
    floats.
    """
    n = len(ranked)
    K = n if k is None else min(k, n)
    b = [1 if _is_relevant(r, relevance_threshold) else 0 for r in ranked]
    R = sum(b) + sum(1 for r in extra if _is_relevant(r, relevance_threshold))
    h = sum(b[i - 1] for i in range(1, K + 1))

    if k is not None and short_lists == "k":
        D = k
    else:
        D = K

    if metric == "precision":
        if D == 0:
            return Fraction(0)
        return Fraction(h, D)

    if metric == "recall":
        return Fraction(h, R)

    if metric == "f1":
        if D + R == 0:
            return Fraction(0)
        return Fraction(2 * h, D + R)

    if metric == "hit_rate":
        return Fraction(1) if h > 0 else Fraction(0)

    if metric == "mrr":
        for i in range(1, K + 1):
            if b[i - 1] == 1:
                return Fraction(1, i)
        return Fraction(0)

    if metric == "map":
        total = Fraction(0)
        hits_so_far = 0
        for i in range(1, K + 1):
            if b[i - 1] == 1:
                hits_so_far += 1
                total += Fraction(hits_so_far, i)
        if ap_denominator == "relevant":
            denominator = R
        elif ap_denominator == "min_k":
            denominator = R if k is None else min(k, R)
        elif ap_denominator == "hits":
            denominator = h
        else:
            raise ValueError(f"unknown ap_denominator {ap_denominator!r}")
        if denominator == 0:
            return Fraction(0)
        return total / denominator

    if metric == "cg":
        return math.fsum(_gain(ranked[i - 1], gain) for i in range(1, K + 1))

    if metric == "dcg":
        return _dcg(ranked, K, gain, log_base)

    if metric == "ndcg":
        dcg = _dcg(ranked, K, gain, 2)
        ideal_list = sorted(list(ranked) + list(extra), reverse=True)
        ideal_cutoff = len(ideal_list) if k is None else k
        idcg = _dcg(ideal_list, ideal_cutoff, gain, 2)
        return dcg / idcg

    if metric == "auc":
        positives = [i for i in range(1, K + 1) if b[i - 1] == 1]
        negatives = [i for i in range(1, K + 1) if b[i - 1] == 0]
        if len(positives) * len(negatives) == 0:
            return Fraction(1, 2)
        good = 0
        for p in positives:
            for q in negatives:
                if p < q:
                    good += 1
        return Fraction(good, len(positives) * len(negatives))

    if metric == "arp":
        relevant_positions = [i for i in range(1, n + 1) if b[i - 1] == 1]
        return sum(Fraction(i, n) for i in relevant_positions) / len(relevant_positions)

    if metric == "kendall_tau":
        if n < 2 or len(set(ranked)) == 1:
            return 0.0
        x = [-i for i in range(1, n + 1)]
        y = [float(r) for r in ranked]
        tau = kendalltau(x, y, variant="b").statistic
        return float(tau)

    raise ValueError(f"unknown metric {metric!r}")


# --------------------------------------------------------------------------------------------
# orderings


def _stable_order(score):
    """Indices sorted by score descending, equal scores kept in input order."""
    return sorted(range(len(score)), key=lambda i: -score[i])


def _tie_groups(score):
    """Groups of indices with equal scores, best score first, each group in input order."""
    groups = []
    for i in _stable_order(score):
        if groups and score[groups[-1][0]] == score[i]:
            groups[-1].append(i)
        else:
            groups.append([i])
    return groups


def _all_orderings(score):
    """Every ordering of the candidates compatible with the scores (ties in any order)."""
    groups = _tie_groups(score)
    count = 1
    for g in groups:
        count *= math.factorial(len(g))
    if count > MAX_ORDERINGS:
        raise ValueError(f"{count} orderings of tied items: too many for the brute force")
    for parts in itertools.product(*(itertools.permutations(g) for g in groups)):
        yield [i for part in parts for i in part]


# --------------------------------------------------------------------------------------------
# public


def reference_per_query(
    metric,
    rel,
    score,
    extra=(),
    *,
    k=None,
    ties="average",
    gain="linear",
    ap_denominator="relevant",
    relevance_threshold=None,
    short_lists="k",
    log_base=2,
):
    """The metric for one query (see the module docstring); None if no relevant item."""
    if metric not in METRICS:
        raise ValueError(f"unknown metric {metric!r}")
    if ties not in ("average", "stable"):
        raise ValueError(f"unknown ties {ties!r}")
    if short_lists not in ("k", "length"):
        raise ValueError(f"unknown short_lists {short_lists!r}")
    rel = list(rel)
    score = list(score)
    extra = list(extra)
    if len(rel) != len(score):
        raise ValueError("rel and score must have the same length")
    if k is not None and k < 1:
        raise ValueError("k must be a positive integer or None")

    if _has_no_relevant_item(metric, rel, extra, relevance_threshold):
        return None

    params = dict(
        k=k,
        gain=gain,
        ap_denominator=ap_denominator,
        relevance_threshold=relevance_threshold,
        short_lists=short_lists,
        log_base=log_base,
    )

    if ties == "stable":
        ranked = tuple(rel[i] for i in _stable_order(score))
        return float(_strict_value(metric, ranked, extra, **params))

    # ties == "average": every ordering of the tied items counts once. The metric only depends
    # on the sequence of relevances in rank order, so count how often each sequence occurs.
    sequences = Counter()
    total = 0
    for order in _all_orderings(score):
        sequences[tuple(rel[i] for i in order)] += 1
        total += 1
    values = []
    for ranked, count in sequences.items():
        value = _strict_value(metric, ranked, extra, **params)
        values.append(value * count)
    if all(isinstance(v, Fraction) for v in values):
        return float(sum(values, Fraction(0)) / total)
    return math.fsum(float(v) for v in values) / total


def reference_mean(values, weights=None, no_relevant=0.0):
    """Weighted mean of per-query values; None = query with no relevant item.

    no_relevant: a number (the value used for None), "skip" (None left out of the weighted
    mean) or "error" (ValueError if any value is None). Returns NaN if nothing is left.
    """
    values = list(values)
    if weights is None:
        weights = [1.0] * len(values)
    weights = [float(w) for w in weights]
    if len(weights) != len(values):
        raise ValueError("one weight per value")
    kept_values = []
    kept_weights = []
    for v, w in zip(values, weights):
        if v is None:
            if no_relevant == "skip":
                continue
            if no_relevant == "error":
                raise ValueError("a query has no relevant item")
            v = float(no_relevant)
        kept_values.append(float(v))
        kept_weights.append(w)
    total_weight = math.fsum(kept_weights)
    if not kept_values or total_weight == 0:
        return float("nan")
    return math.fsum(v * w for v, w in zip(kept_values, kept_weights)) / total_weight


# --------------------------------------------------------------------------------------------
# trec_eval's measures, ERR and RBP, where judged non-relevant and unjudged items differ
# (shared/spec/MEASURES_TREC.md sections 2 and 4), by the same brute force over orderings.

TREC_MEASURES = (
    "num_ret",
    "num_rel",
    "num_rel_ret",
    "num_nonrel_judged_ret",
    "rprec",
    "rprec_mult",
    "iprec",
    "iprec_avg",
    "bpref",
    "infap",
    "judged",
    "unjudged",
    "err",
    "rbp",
    "rbp_residual",
    "gm_map",
)


def _trec_strict(measure, ranked, unranked, k, threshold, params):
    """One strict ordering. ``ranked``: labels best first, None = unjudged; ``unranked``:
    labels of judged items never ranked."""

    def relevant(label):
        return label is not None and _is_relevant(label, threshold)

    judged_labels = [x for x in ranked if x is not None] + list(unranked)
    R = sum(1 for x in judged_labels if _is_relevant(x, threshold))
    N = len(ranked)
    depth = N if k is None else min(k, N)
    flags = [relevant(x) for x in ranked]
    if measure == "num_ret":
        return Fraction(N)
    if measure == "num_rel":
        return Fraction(R)
    if measure == "num_rel_ret":
        return Fraction(sum(flags))
    if measure == "num_nonrel_judged_ret":
        return Fraction(sum(1 for x in ranked if x is not None and not relevant(x)))
    if measure in ("rprec", "rprec_mult"):
        cut = R if measure == "rprec" else int(math.floor(params["x"] * R + 0.9))
        if cut == 0:
            return Fraction(0)
        return Fraction(sum(flags[:cut]), cut)
    if measure in ("iprec", "iprec_avg"):
        levels = [params["recall"]] if measure == "iprec" else [i / 10 for i in range(11)]
        total = Fraction(0)
        h = sum(flags)
        precisions = []  # (m, precision at the m-th relevant item)
        for i, flag in enumerate(flags, start=1):
            if flag:
                precisions.append((len(precisions) + 1, Fraction(len(precisions) + 1, i)))
        for level in levels:
            shift = 0.9 if params["rounding"] == "plus_0.9" else 0.5
            cut = int(math.floor(level * R + shift))
            if cut > h or R == 0:
                continue
            total += max([p for m, p in precisions if m >= max(cut, 1)], default=Fraction(0))
        return total / len(levels)
    if measure == "bpref":
        if R == 0:
            return Fraction(0)
        judged_nonrelevant = sum(1 for x in judged_labels if not _is_relevant(x, threshold))
        above, total = 0, Fraction(0)
        for x in ranked:
            if x is None:
                continue
            if relevant(x):
                total += 1 - Fraction(min(above, R), min(judged_nonrelevant, R)) if above else 1
            else:
                above += 1
        return total / R
    if measure == "infap":
        if R == 0:
            return 0.0
        eps, total, rel_above, nonrel_above = 1e-5, 0.0, 0, 0
        for j, x in enumerate(ranked):
            if x is None:
                continue
            if relevant(x):
                judged = rel_above + nonrel_above
                ratio = (rel_above + eps) / (judged + 2 * eps)
                total += (1 + judged * ratio) / (j + 1)
                rel_above += 1
            else:
                nonrel_above += 1
        return total / R
    if measure in ("judged", "unjudged"):
        judged = sum(1 for x in ranked[:depth] if x is not None)
        if measure == "judged":
            return Fraction(judged, depth) if depth else Fraction(0)
        divisor = N if k is None else k
        return Fraction(depth - judged, divisor) if divisor else Fraction(0)
    if measure == "err":
        top = params["max_grade"]
        stay, total = 1.0, 0.0
        for i, x in enumerate(ranked[:depth], start=1):
            rho = (2.0 ** max(x or 0, 0) - 1.0) / 2.0**top
            total += stay * rho / i
            stay *= 1.0 - rho
        return total
    if measure in ("rbp", "rbp_residual"):
        p = params["p"]
        if measure == "rbp":
            return (1 - p) * math.fsum(p**i for i, f in enumerate(flags[:depth]) if f)
        unjudged = math.fsum(p**i for i, x in enumerate(ranked[:depth]) if x is None)
        return (1 - p) * unjudged + p**depth
    if measure == "gm_map":
        hits, total = 0, Fraction(0)
        for i, flag in enumerate(flags[:depth], start=1):
            if flag:
                hits += 1
                total += Fraction(hits, i)
        return total / R if R else Fraction(0)
    raise ValueError(f"unknown measure {measure!r}")


def reference_trec(
    measure, labels, score, unranked=(), *, k=None, ties="average", threshold=None, **params
):
    """``measure`` for ONE query: ``labels[i]`` the relevance of candidate i, or None when
    it is unjudged; ``unranked`` the relevance of judged items that were not ranked.
    Stable ties keep input order; "average" enumerates every ordering of tied scores."""
    if measure not in TREC_MEASURES:
        raise ValueError(f"unknown measure {measure!r}")
    labels, score = list(labels), list(score)
    if ties == "stable":
        ranked = tuple(labels[i] for i in _stable_order(score))
        return float(_trec_strict(measure, ranked, unranked, k, threshold, params))
    values, total = [], 0
    for order in _all_orderings(score):
        ranked = tuple(labels[i] for i in order)
        values.append(_trec_strict(measure, ranked, unranked, k, threshold, params))
        total += 1
    if all(isinstance(v, Fraction) for v in values):
        return float(sum(values, Fraction(0)) / total)
    return math.fsum(float(v) for v in values) / total
