"""sklearn_rank: ranking and recommendation metrics, per query group, for scikit-learn.

Every public name is importable from here, loaded on first use (PEP 562), so that
``import sklearn_rank`` and the command line start fast; the namespaces
`sklearn_rank.metrics`, `sklearn_rank.model_selection`, `sklearn_rank.inputs`,
`sklearn_rank.comparison` and `sklearn_rank.datasets` hold the same names by area.
docs/architecture.md maps the folders. No folder is named as a public name: importing a
folder sets the package's attribute of its name to the folder.
"""

import importlib

from ._version import __version__ as __version__

# Public name -> the folder that defines it.
_EXPORTS = {
    "BestWithinBounds": "model_selection",
    "Comparison": "comparison",
    "GroupedGridSearchCV": "model_selection",
    "GroupedJudgments": "inputs",
    "GroupedRandomizedSearchCV": "model_selection",
    "InterpolatedPrecisionRecallDisplay": "plot",
    "ItemJudgments": "inputs",
    "ItemRanking": "inputs",
    "LightGBMMetric": "integrations",
    "LongTailDisplay": "plot",
    "LorenzCurveDisplay": "plot",
    "MetricAtKDisplay": "plot",
    "MultimetricRankingScorer": "model_selection",
    "PerQueryDifferenceDisplay": "plot",
    "QueryGroupRanker": "model_selection",
    "RankingScorer": "model_selection",
    "ScoreStandardizer": "comparison",
    "XGBoostMetric": "integrations",
    "average_relative_position": "metrics",
    "binary_g_score": "metrics",
    "bpref_score": "metrics",
    "catboost_metric": "integrations",
    "cg_score": "metrics",
    "compare": "comparison",
    "compare_per_query": "comparison",
    "compare_search": "comparison",
    "dcg_score": "metrics",
    "eleven_point_average_precision_score": "metrics",
    "err_score": "metrics",
    "evaluate": "metrics",
    "evaluate_dask": "distributed",
    "evaluate_judgment_groups": "metrics",
    "evaluate_preferences": "metrics",
    "evaluate_spark": "distributed",
    "f1_at_k_score": "metrics",
    "g_score": "metrics",
    "geometric_mean_average_precision_score": "metrics",
    "geometric_mean_bpref_score": "metrics",
    "get_metric_names": "metrics",
    "get_scorer": "model_selection",
    "get_scorer_names": "model_selection",
    "grouped_cross_validate": "model_selection",
    "hit_rate_score": "metrics",
    "inferred_average_precision_score": "metrics",
    "interpolated_precision_score": "metrics",
    "ips_dcg_score": "metrics",
    "ips_hits_score": "metrics",
    "ips_precision_score": "metrics",
    "ips_rank_sum": "metrics",
    "jain_propensity": "metrics",
    "judged_at_k_score": "metrics",
    "kendall_tau_score": "metrics",
    "lightgbm_metric": "integrations",
    "make_ranking": "datasets",
    "make_ranking_scorer": "model_selection",
    "make_ranking_scorers": "model_selection",
    "mean_average_precision_score": "metrics",
    "mean_reciprocal_rank_score": "metrics",
    "metric_at_k_curve": "metrics",
    "minimum_detectable_difference": "comparison",
    "ndcg_rel_score": "metrics",
    "ndcg_score": "metrics",
    "ndcg_with_gains_score": "metrics",
    "num_nonrelevant_judged_retrieved": "metrics",
    "num_relevant": "metrics",
    "num_relevant_retrieved": "metrics",
    "num_retrieved": "metrics",
    "paired_t_power": "comparison",
    "popularity_propensity": "metrics",
    "precision_at_k_score": "metrics",
    "psndcg_score": "metrics",
    "psp_score": "metrics",
    "query_ids": "inputs",
    "r_ndcg_score": "metrics",
    "r_precision_mult_score": "metrics",
    "r_precision_score": "metrics",
    "rank_biased_overlap": "comparison",
    "rank_biased_overlap_runs": "comparison",
    "ranking_auc_score": "metrics",
    "rbp_residual": "metrics",
    "rbp_score": "metrics",
    "read_table": "inputs",
    "read_trec_prefs": "inputs",
    "read_trec_qrels": "inputs",
    "read_trec_qrels_jg": "inputs",
    "read_trec_qrels_prefs": "inputs",
    "read_trec_run": "inputs",
    "recall_at_k_score": "metrics",
    "relative_precision_at_k_score": "metrics",
    "sample_negatives": "inputs",
    "set_average_precision_score": "metrics",
    "set_f_score": "metrics",
    "set_relative_precision_score": "metrics",
    "slate_policy_value": "metrics",
    "topic_set_size": "comparison",
    "trec_rbp_residual": "metrics",
    "unjudged_at_k": "metrics",
    "utility_score": "metrics",
    "within_system_variance": "comparison",
    "xgboost_metric": "integrations",
    "yaap_score": "metrics",
}
# Old spellings, deprecated (using them warns): reachable from here, not in __all__.
_DEPRECATED = {"unjudged_at_k_score": "metrics"}
_SUBPACKAGES = (
    "cli",
    "comparison",
    "conventions",
    "datasets",
    "distributed",
    "inputs",
    "integrations",
    "metrics",
    "model_selection",
    "plot",
    "utils",
)

__all__ = sorted(_EXPORTS)


def __getattr__(name):
    if name in _EXPORTS or name in _DEPRECATED:
        folder = _EXPORTS.get(name) or _DEPRECATED[name]
        value = getattr(importlib.import_module(f".{folder}", __name__), name)
    elif name in _SUBPACKAGES:
        value = importlib.import_module(f".{name}", __name__)
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value  # later look-ups skip this function
    return value


def __dir__():
    return sorted(set(globals()) | set(_EXPORTS) | set(_SUBPACKAGES))
