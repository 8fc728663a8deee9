"""The one registry of metrics: evaluate, the public functions, tests and docs read it."""

from ..conventions._measures import MEASURE_PARAMETERS
from . import _cascade, _clicks, _propensity_scored, _reductions, _trec, _trec_sets
from ._metric import _ROUNDING, _bounds, _Guarded, _Metric, _within_bounds  # noqa: F401
from ._statistics import TOP_GRADE

_THRESHOLD = ("relevance_threshold",)
_SIGNED = "[0, inf); (-inf, inf) with negative relevance"
_COUNT = "[0, inf)"


# The measures' own parameters (``p`` of RBP...), declared with the conventions.
_PERSISTENCE, _GAINS, _RECALL, _X, _MAX_GRADE = (
    MEASURE_PARAMETERS[name] for name in ("p", "gains", "recall", "x", "max_grade")
)
# The click-log estimators' parameters, in every one of them.
_CLICKS = tuple(
    MEASURE_PARAMETERS[name] for name in ("eta", "max_weight", "normalize", "eps_plus", "eps_minus")
)
_IPS_RANGE = "[0, inf); (-inf, inf) with eps_minus > 0"
_PROPENSITY_SCORED = tuple(MEASURE_PARAMETERS[name] for name in ("ps_normalize", "ideal_mean"))
_PS_RANGE = "[0, inf); its mean in [0, 1]"
_COEFFICIENTS, _BETA, _LEVELS, _LEVEL_GAINS = (
    MEASURE_PARAMETERS[name] for name in ("coefficients", "beta", "levels", "level_gains")
)
_SET = {"takes_k": False, "ranks_without_k": False, "order_free": True, "family": "trec"}

METRICS = {
    m.name: m
    for m in (
        _Metric(
            "precision",
            "precision_at_k_score",
            _reductions.precision,
            "hits in the top k / k",
            conventions=_THRESHOLD + ("short_lists",),
            ranks_without_k=False,
        ),
        _Metric(
            "recall",
            "recall_at_k_score",
            _reductions.recall,
            "hits in the top k / number of relevant items",
            conventions=_THRESHOLD,
            ranks_without_k=False,
        ),
        _Metric(
            "f1",
            "f1_at_k_score",
            _reductions.f1,
            "per-query harmonic mean of Precision@k and Recall@k",
            conventions=_THRESHOLD + ("short_lists",),
            ranks_without_k=False,
        ),
        _Metric(
            "hit_rate",
            "hit_rate_score",
            _reductions.hit_rate,
            "1 if a relevant item is in the top k (1-call@k)",
            conventions=_THRESHOLD,
            ranks_without_k=False,
            first_relevant_only=True,
        ),
        _Metric(
            "mrr",
            "mean_reciprocal_rank_score",
            _reductions.reciprocal_rank,
            "1 / rank of the first relevant item (0 if none in the top k)",
            conventions=_THRESHOLD,
            first_relevant_only=True,
        ),
        _Metric(
            "map",
            "mean_average_precision_score",
            _reductions.average_precision,
            "mean of Precision@rank over relevant items ranked in the top k, / denominator",
            conventions=_THRESHOLD + ("ap_denominator",),
        ),
        _Metric(
            "cg",
            "cg_score",
            _reductions.cumulative_gain,
            "sum of gains in the top k",
            conventions=("gain",),
            value_range=_SIGNED,
            negative_relevance=True,
            ranks_without_k=False,
        ),
        _Metric(
            "dcg",
            "dcg_score",
            _reductions.discounted_cumulative_gain,
            "sum of gain / log2(position + 1) over the top k",
            conventions=("gain", "log_base"),
            value_range=_SIGNED,
            negative_relevance=True,
        ),
        _Metric(
            "ndcg",
            "ndcg_score",
            _reductions.normalized_dcg,
            "DCG@k / DCG@k of the ideal ordering of all judged items",
            conventions=("gain", "ideal_dcg"),
        ),
        _Metric(
            "auc",
            "ranking_auc_score",
            _reductions.ranking_auc,
            "share of (relevant, non-relevant) pairs ranked in the right order; "
            "with @k only pairs inside the top k (Hivemall)",
            conventions=_THRESHOLD,
        ),
        _Metric(
            "arp",
            "average_relative_position",
            _reductions.average_relative_position,
            "Hivemall's average relative position: mean position of the relevant items / number "
            "of candidates (not the recommender papers' average recommendation popularity)",
            takes_k=False,
            conventions=_THRESHOLD,
            greater_is_better=False,
            value_range="(0, 1]",
            no_relevant_default="skip",
        ),
        _Metric(
            "kendall_tau",
            "kendall_tau_score",
            _reductions.kendall_tau,
            "Kendall tau-b between the ranking and the relevance",
            takes_k=False,
            value_range="[-1, 1]",
            negative_relevance=True,
        ),
        # --- trec_eval's measures, ERR, RBP, judged positions --------------------------
        _Metric(
            "num_ret",
            "num_retrieved",
            _trec.num_retrieved,
            "number of candidates (retrieved items); summed over queries",
            takes_k=False,
            value_range=_COUNT,
            ranks_without_k=False,
            aggregate="sum",
            scores_without_relevant=True,
            order_free=True,
            family="trec",
        ),
        _Metric(
            "num_rel",
            "num_relevant",
            _trec.num_relevant,
            "number of relevant judged items R, ranked or not; summed over queries",
            takes_k=False,
            conventions=_THRESHOLD,
            value_range=_COUNT,
            ranks_without_k=False,
            aggregate="sum",
            scores_without_relevant=True,
            order_free=True,
            family="trec",
        ),
        _Metric(
            "num_rel_ret",
            "num_relevant_retrieved",
            _trec.num_relevant_retrieved,
            "number of relevant candidates; summed over queries",
            takes_k=False,
            conventions=_THRESHOLD,
            value_range=_COUNT,
            ranks_without_k=False,
            aggregate="sum",
            scores_without_relevant=True,
            order_free=True,
            family="trec",
        ),
        _Metric(
            "num_nonrel_judged_ret",
            "num_nonrelevant_judged_retrieved",
            _trec.num_nonrelevant_judged_retrieved,
            "number of judged non-relevant candidates; summed over queries",
            takes_k=False,
            conventions=_THRESHOLD,
            value_range=_COUNT,
            ranks_without_k=False,
            aggregate="sum",
            needs_judged=True,
            scores_without_relevant=True,
            order_free=True,
            family="trec",
        ),
        _Metric(
            "rprec",
            "r_precision_score",
            _trec.r_precision,
            "precision at rank R, the number of relevant items (R-precision)",
            takes_k=False,
            conventions=_THRESHOLD,
            family="trec",
        ),
        _Metric(
            "rprec_mult",
            "r_precision_mult_score",
            _trec.r_precision_mult,
            "precision at rank (long)(x R + 0.9): R-precision at a multiple x of R",
            takes_k=False,
            conventions=_THRESHOLD,
            parameters=(_X,),
            family="trec",
        ),
        _Metric(
            "gm_map",
            "geometric_mean_average_precision_score",
            _reductions.average_precision,
            "average precision, combined over queries by the geometric mean of max(AP, 1e-5)",
            conventions=_THRESHOLD + ("ap_denominator",),
            aggregate="geometric",
            family="trec",
        ),
        _Metric(
            "iprec",
            "interpolated_precision_score",
            _trec.interpolated_precision,
            "interpolated precision at a recall level: the best precision at or after reaching it",
            takes_k=False,
            conventions=_THRESHOLD + ("iprec_rounding",),
            parameters=(_RECALL,),
            family="trec",
        ),
        _Metric(
            "iprec_avg",
            "eleven_point_average_precision_score",
            _trec.eleven_point_average,
            "mean interpolated precision at recall 0, 0.1, ..., 1 (11-point average)",
            takes_k=False,
            conventions=_THRESHOLD + ("iprec_rounding",),
            parameters=(_LEVELS,),
            family="trec",
        ),
        _Metric(
            "bpref",
            "bpref_score",
            _trec.bpref,
            "share of judged non-relevant items ranked below each relevant item (of the "
            "first R), unjudged items left out",
            takes_k=False,
            conventions=_THRESHOLD,
            needs_judged=True,
            family="trec",
        ),
        _Metric(
            "infap",
            "inferred_average_precision_score",
            _trec.inferred_average_precision,
            "inferred AP: precision at each relevant item estimated from the judged items above it",
            takes_k=False,
            conventions=_THRESHOLD,
            needs_judged=True,
            family="trec",
        ),
        _Metric(
            "judged",
            "judged_at_k_score",
            _trec.judged_at_k,
            "share of the top min(k, N) candidates that are judged",
            ranks_without_k=False,
            needs_judged=True,
            scores_without_relevant=True,
            family="trec",
        ),
        _Metric(
            "unjudged",
            "unjudged_at_k",
            _trec.unjudged_at_k,
            "unjudged candidates in the top min(k, N), / k (trec_eval's unj)",
            greater_is_better=False,
            ranks_without_k=False,
            needs_judged=True,
            scores_without_relevant=True,
            family="trec",
        ),
        _Metric(
            "err",
            "err_score",
            _cascade.expected_reciprocal_rank,
            "expected reciprocal rank: sum of 1 / rank times the probability that the "
            "user stops there",
            parameters=(_MAX_GRADE,),
            family="trec",
            statistics=(TOP_GRADE,),
        ),
        _Metric(
            "rbp",
            "rbp_score",
            _cascade.rank_biased_precision,
            "rank-biased precision: (1 - p) sum of rel_i p**(i - 1) over the top k",
            conventions=_THRESHOLD,
            parameters=(_PERSISTENCE, _GAINS),
            family="trec",
        ),
        _Metric(
            "rbp_residual",
            "rbp_residual",
            _cascade.rank_biased_residual,
            "RBP's residual: the weight of unjudged positions and of those below the top k",
            parameters=(_PERSISTENCE,),
            greater_is_better=False,
            needs_judged=True,
            scores_without_relevant=True,
            family="trec",
        ),
        # --- click-log estimators (docs/clicks.md) -------------------------------------
        _Metric(
            "ips_dcg",
            "ips_dcg_score",
            _clicks.ips_dcg,
            "IPS estimate of DCG@k from logged clicks: sum over clicked items of "
            "1 / log2(position + 1) / propensity",
            value_range=_IPS_RANGE,
            no_relevant_default="skip",
            parameters=_CLICKS,
            family="clicks",
            side_inputs=_clicks._check_request,
        ),
        _Metric(
            "ips_precision",
            "ips_precision_score",
            _clicks.ips_precision,
            "IPS estimate of Precision@k from logged clicks: sum over clicked items in the "
            "top k of 1 / propensity, / k",
            value_range=_IPS_RANGE,
            ranks_without_k=False,
            no_relevant_default="skip",
            parameters=_CLICKS,
            family="clicks",
            side_inputs=_clicks._check_request,
        ),
        _Metric(
            "ips_hits",
            "ips_hits_score",
            _clicks.ips_hits,
            "IPS estimate of the number of relevant items in the top k from logged clicks: "
            "sum over clicked items in the top k of 1 / propensity",
            value_range=_IPS_RANGE,
            ranks_without_k=False,
            no_relevant_default="skip",
            parameters=_CLICKS,
            family="clicks",
            side_inputs=_clicks._check_request,
        ),
        _Metric(
            "ips_rank_sum",
            "ips_rank_sum",
            _clicks.ips_rank_sum,
            "IPS estimate of the sum of the relevant items' positions from logged clicks: "
            "sum over clicked items of position / propensity",
            takes_k=False,
            greater_is_better=False,
            value_range=_IPS_RANGE,
            no_relevant_default="skip",
            parameters=_CLICKS,
            family="clicks",
            side_inputs=_clicks._check_request,
        ),
        # --- propensity-scored metrics of extreme multi-label ranking ------------------
        _Metric(
            "psp",
            "psp_score",
            _propensity_scored.psp,
            "propensity-scored precision: sum of y / p over the top k, / k; over the "
            "propensity-ideal ranking's (pyxclib's ratio of means)",
            value_range=_PS_RANGE,
            ranks_without_k=False,
            needs_k=True,
            parameters=_PROPENSITY_SCORED,
            family="propensity",
            statistics=(_propensity_scored.IDEAL_SUMS,),
            side_inputs=_propensity_scored._check_request,
        ),
        _Metric(
            "psndcg",
            "psndcg_score",
            _propensity_scored.psndcg,
            "propensity-scored nDCG: sum of y / (p log2(rank + 1)) over the top k, / the "
            "binary ideal DCG; over the propensity-ideal ranking's (pyxclib's ratio of means)",
            value_range=_PS_RANGE,
            ranks_without_k=False,
            needs_k=True,
            parameters=_PROPENSITY_SCORED,
            family="propensity",
            statistics=(_propensity_scored.IDEAL_SUMS,),
            side_inputs=_propensity_scored._check_request,
        ),
        # --- trec_eval's set measures and experimental ones (all_trec) -------------------
        _Metric(
            "set_relative_precision",
            "set_relative_precision_score",
            _trec_sets.set_relative_precision,
            "relevant candidates / min(N, R): set precision relative to the best possible",
            conventions=_THRESHOLD,
            **_SET,
        ),
        _Metric(
            "set_map",
            "set_average_precision_score",
            _trec_sets.set_average_precision,
            "relevant candidates squared / (N R): unranked average precision",
            conventions=_THRESHOLD,
            **_SET,
        ),
        _Metric(
            "set_f",
            "set_f_score",
            _trec_sets.set_f,
            "(beta + 1) P R / (beta P + R) of the candidate set (trec_eval's set_F.beta)",
            conventions=_THRESHOLD,
            parameters=(_BETA,),
            **_SET,
        ),
        _Metric(
            "utility",
            "utility_score",
            _trec_sets.utility,
            "p1 relevant retrieved + p2 non-relevant retrieved + p3 relevant missed + p4 (h - N "
            "- R), a set utility",
            conventions=_THRESHOLD,
            parameters=(_COEFFICIENTS,),
            value_range="(-inf, inf)",
            scores_without_relevant=True,
            **_SET,
        ),
        _Metric(
            "relative_precision",
            "relative_precision_at_k_score",
            _trec_sets.relative_precision,
            "hits in the top k / min(k, R): precision up to R, recall after it",
            conventions=_THRESHOLD,
            ranks_without_k=False,
            family="trec",
        ),
        _Metric(
            "gm_bpref",
            "geometric_mean_bpref_score",
            _trec.bpref,
            "bpref, combined over queries by the geometric mean of max(bpref, 1e-5)",
            takes_k=False,
            conventions=_THRESHOLD,
            needs_judged=True,
            aggregate="geometric",
            family="trec",
        ),
        _Metric(
            "bin_g",
            "binary_g_score",
            _trec_sets.binary_g,
            "(1/R) sum over relevant candidates of 1 / log2(2 + non-relevant items above it)",
            takes_k=False,
            conventions=_THRESHOLD,
            family="trec",
        ),
        _Metric(
            "rndcg",
            "r_ndcg_score",
            _trec_sets.r_ndcg,
            "mean nDCG at the ideal ranking's grade boundaries (and at N beyond the last)",
            takes_k=False,
            conventions=_THRESHOLD,
            parameters=(_LEVEL_GAINS,),
            family="trec",
        ),
        _Metric(
            "ndcg_gains",
            "ndcg_with_gains_score",
            _trec_sets.ndcg_with_gains,
            "trec_eval's ndcg with a gain per grade: DCG / DCG of all judged items by gain",
            takes_k=False,
            parameters=(_LEVEL_GAINS,),
            family="trec",
        ),
        _Metric(
            "g",
            "g_score",
            _trec_sets.g_measure,
            "sum of gain / log2(2 + ideal cost - gain gathered so far), / the ideal total gain",
            takes_k=False,
            parameters=(_LEVEL_GAINS,),
            family="trec",
        ),
        _Metric(
            "ndcg_rel",
            "ndcg_rel_score",
            _trec_sets.ndcg_rel,
            "mean over the positive items of nDCG at their rank (at N for those not retrieved)",
            takes_k=False,
            parameters=(_LEVEL_GAINS,),
            family="trec",
        ),
        _Metric(
            "yaap",
            "yaap_score",
            _trec_sets.yaap,
            "log((1 + S) / (1 + R - S)), S = R AP: Robertson's smoothed average precision",
            takes_k=False,
            conventions=_THRESHOLD,
            value_range="(-inf, inf)",
            family="trec",
        ),
        _Metric(
            "trec_rbp_residual",
            "trec_rbp_residual",
            _trec_sets.trec_rbp_residual,
            "trec_eval's RBP residual: p**N + (1 - p) sum of p**(i - 1) over unjudged ranks "
            "i, 0 where every candidate is judged",
            takes_k=False,
            parameters=(_PERSISTENCE,),
            greater_is_better=False,
            needs_judged=True,
            scores_without_relevant=True,
            family="trec",
        ),
    )
}

_LARGEST_K = 2**62  # cut-offs are int64 positions


def _markdown_table():
    """The metric table of docs/metrics.md, generated from the registry."""
    rows = [
        "| name | function | per query | range | better | conventions |",
        "|---|---|---|---|---|---|",
    ]
    for metric in METRICS.values():
        names = ([] if metric.needs_k else [metric.name]) + (
            [metric.name + "@K"] if metric.takes_k else []
        )
        name = ", ".join(f"`{n}`" for n in names)
        conventions = ", ".join(f"`{c}`" for c in ("ties",) + metric.conventions + ("no_relevant",))
        rows.append(
            f"| {name} | `{metric.function}` | {metric.summary} | {metric.value_range} | "
            f"{'higher' if metric.greater_is_better else 'lower'} | {conventions} |"
        )
    return "\n".join(rows) + "\n"


def _parameters_table():
    """The measure parameters table of docs/metrics.md, generated from the declarations."""
    rows = [
        "| parameter | values | default | measures | meaning |",
        "|---|---|---|---|---|",
    ]
    for parameter in MEASURE_PARAMETERS.values():
        kind = parameter.type_text or parameter.check.describe()
        users = [m for m in METRICS.values() if parameter in m.parameters]
        measures = ", ".join(f"`{m.name}` (`{m.function}`)" for m in users)
        meaning = " ".join(parameter.doc.split())
        rows.append(
            f"| `{parameter.name}` | {kind} | `{parameter.default!r}` | {measures} | {meaning} |"
        )
    return "\n".join(rows) + "\n"
