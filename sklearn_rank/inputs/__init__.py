"""Input forms, normalised once: matrices, long format with query ids, sparse truth,
`ItemRanking` / `ItemJudgments` (arrays, DataFrames, top-N ids), ranked lists and TREC or
CSV/TSV files all become one `_Queries` (`_normalise._normalise`), which the metrics' kernel
ranks. Imports `sklearn_rank.utils` and `sklearn_rank.conventions` only.
"""

from ._files import read_table, read_trec_qrels, read_trec_run
from ._normalise import query_ids
from ._preferences import (
    GroupedJudgments,
    read_trec_prefs,
    read_trec_qrels_jg,
    read_trec_qrels_prefs,
)
from ._sampling import sample_negatives
from ._tables import ItemJudgments, ItemRanking

__all__ = [
    "GroupedJudgments",
    "ItemJudgments",
    "ItemRanking",
    "query_ids",
    "read_table",
    "read_trec_prefs",
    "read_trec_qrels",
    "read_trec_qrels_jg",
    "read_trec_qrels_prefs",
    "read_trec_run",
    "sample_negatives",
]
