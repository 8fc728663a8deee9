"""Paired per-query comparison of ranking systems: `compare` (runs on judgments),
`compare_search` (candidates of a grouped search) and their result, `Comparison`: tests,
intervals, effect sizes and multiple-testing corrections (docs/compare.md).

The statistics are in ``_stats`` (closed forms, scipy calls, checks), ``_signed_rank``
(Wilcoxon), ``_resampling`` (randomization, bootstrap) and ``_tukey`` (randomised Tukey
HSD); ``_align`` pairs per-query values by query id, ``_core`` turns them into a
`Comparison`.
"""

from ._compare import compare
from ._per_query import compare_per_query
from ._rbo import rank_biased_overlap, rank_biased_overlap_runs
from ._result import Comparison
from ._search import compare_search

__all__ = [
    "Comparison",
    "compare",
    "compare_per_query",
    "compare_search",
    "rank_biased_overlap",
    "rank_biased_overlap_runs",
]
