"""Ranking metrics per query group: the kernel, the reductions, the registry, the
aggregator, `evaluate` and one public function per metric.

Data flow: an input form is normalised (`sklearn_rank.inputs`) into one `_Queries`;
`_kernel._rank` ranks every query once into tie groups; each metric of the registry
(`_registry.METRICS`) is a short reduction over those groups (`_reductions`); `_aggregate`
applies ``no_relevant`` and the query weights. Imports `sklearn_rank.inputs`,
`sklearn_rank.conventions` and `sklearn_rank.utils` only.
"""

from ._all_metrics import get_metric_names
from ._binary import (
    average_relative_position,
    f1_at_k_score,
    hit_rate_score,
    mean_average_precision_score,
    mean_reciprocal_rank_score,
    precision_at_k_score,
    ranking_auc_score,
    recall_at_k_score,
)
from ._cascade_functions import err_score, rbp_residual, rbp_score
from ._click_functions import (
    ips_dcg_score,
    ips_hits_score,
    ips_precision_score,
    ips_rank_sum,
    popularity_propensity,
)
from ._curves import metric_at_k_curve
from ._evaluate import evaluate
from ._graded import cg_score, dcg_score, kendall_tau_score, ndcg_score
from ._judged_functions import (
    bpref_score,
    eleven_point_average_precision_score,
    inferred_average_precision_score,
    interpolated_precision_score,
    judged_at_k_score,
    unjudged_at_k,
)
from ._judged_functions import unjudged_at_k_score as unjudged_at_k_score  # deprecated
from ._judgment_groups import evaluate_judgment_groups
from ._preferences import evaluate_preferences
from ._propensity_functions import psndcg_score, psp_score
from ._propensity_scored import jain_propensity
from ._slates import slate_policy_value
from ._trec_functions import (
    geometric_mean_average_precision_score,
    num_nonrelevant_judged_retrieved,
    num_relevant,
    num_relevant_retrieved,
    num_retrieved,
    r_precision_mult_score,
    r_precision_score,
)
from ._trec_gain_functions import (
    binary_g_score,
    g_score,
    geometric_mean_bpref_score,
    ndcg_rel_score,
    ndcg_with_gains_score,
    r_ndcg_score,
    trec_rbp_residual,
    yaap_score,
)
from ._trec_set_functions import (
    relative_precision_at_k_score,
    set_average_precision_score,
    set_f_score,
    set_relative_precision_score,
    utility_score,
)

__all__ = [
    "average_relative_position",
    "binary_g_score",
    "bpref_score",
    "cg_score",
    "dcg_score",
    "eleven_point_average_precision_score",
    "err_score",
    "evaluate",
    "evaluate_judgment_groups",
    "evaluate_preferences",
    "f1_at_k_score",
    "g_score",
    "geometric_mean_average_precision_score",
    "geometric_mean_bpref_score",
    "get_metric_names",
    "hit_rate_score",
    "inferred_average_precision_score",
    "interpolated_precision_score",
    "ips_dcg_score",
    "ips_hits_score",
    "ips_precision_score",
    "ips_rank_sum",
    "jain_propensity",
    "judged_at_k_score",
    "kendall_tau_score",
    "mean_average_precision_score",
    "mean_reciprocal_rank_score",
    "metric_at_k_curve",
    "ndcg_rel_score",
    "ndcg_score",
    "ndcg_with_gains_score",
    "num_nonrelevant_judged_retrieved",
    "num_relevant",
    "num_relevant_retrieved",
    "num_retrieved",
    "popularity_propensity",
    "precision_at_k_score",
    "psndcg_score",
    "psp_score",
    "r_ndcg_score",
    "r_precision_mult_score",
    "r_precision_score",
    "ranking_auc_score",
    "rbp_residual",
    "rbp_score",
    "recall_at_k_score",
    "relative_precision_at_k_score",
    "set_average_precision_score",
    "set_f_score",
    "set_relative_precision_score",
    "slate_policy_value",
    "trec_rbp_residual",
    "unjudged_at_k",
    "utility_score",
    "yaap_score",
]
