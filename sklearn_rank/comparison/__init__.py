"""Paired per-query comparison of ranking systems: `compare` (runs on judgments),
`compare_search` (candidates of a grouped search) and their result, `Comparison`: tests,
intervals, effect sizes and multiple-testing corrections (docs/compare.md).

The statistics are in ``_stats`` (closed forms, scipy calls, checks), ``_signed_rank``
(Wilcoxon), ``_resampling`` (randomization, bootstrap) and ``_tukey`` (randomised Tukey
HSD); ``_align`` pairs per-query values by query id, ``_core`` turns them into a
`Comparison`. ``_power`` plans comparisons (power, topic-set size, minimum detectable
difference), its parameters declared in ``_design_parameters``; ``_standardize`` puts
per-query values on each query's scale (`ScoreStandardizer`, trec_eval's zscores file).
"""

from ._compare import compare
from ._per_query import compare_per_query
from ._power import (
    minimum_detectable_difference,
    paired_t_power,
    topic_set_size,
    within_system_variance,
)
from ._rbo import rank_biased_overlap, rank_biased_overlap_runs
from ._result import Comparison
from ._search import compare_search
from ._standardize import ScoreStandardizer

__all__ = [
    "Comparison",
    "ScoreStandardizer",
    "compare",
    "compare_per_query",
    "compare_search",
    "minimum_detectable_difference",
    "paired_t_power",
    "rank_biased_overlap",
    "rank_biased_overlap_runs",
    "topic_set_size",
    "within_system_variance",
]
