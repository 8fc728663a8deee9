"""Registry entries of the beyond-accuracy measures (`_beyond`): what was recommended.

They read each user's recommended items with the catalog and the training data, not the
relevance of a ranking, so they are kept apart from `_registry.METRICS` (whose every entry
has a public function over one query's ranking) and are found by name through the same
parser (`_names`). ``level="list"``: one value per user; ``level="corpus"``: one value
from the counts of every user's list (`_beyond`'s partial counts, added over blocks).
"""

from ..conventions._beyond import BEYOND_PARAMETERS
from . import _beyond, _beyond_similarity
from ._registry import _Metric


def _entry(name, reduce, summary, level, value_range, greater=True, corpus_value=None):
    return _Metric(
        name,
        "evaluate",
        reduce,
        summary,
        greater_is_better=greater,
        value_range=value_range,
        no_relevant_default="skip",
        parameters=BEYOND_PARAMETERS[name],
        scores_without_relevant=True,
        family="beyond",
        level=level,
        corpus_value=corpus_value,
    )


#: The measures that read each user's relevant test items (beside the recommended lists):
#: only for them are those items gathered.
READS_RELEVANT = frozenset({"efd", "epc", "pop_reo", "serendipity", "rank_serendipity"})

#: The measures that read each user's training items (the groups open to a user in PopRSP
#: and PopREO, the profile of serendipity): only for them are those items gathered.
READS_HISTORY = frozenset({"pop_rsp", "pop_reo", "serendipity"})

#: Beyond-accuracy measures by name (every one takes a cut-off ``@k``).
BEYOND_METRICS = {
    m.name: m
    for m in (
        _entry(
            "coverage",
            _beyond.coverage_counts,
            "catalog coverage: distinct items in the top-k lists / catalog size",
            "corpus",
            "[0, 1]; [0, inf) with normalize=False (a count) or denominator='train'",
            corpus_value=_beyond.coverage_value,
        ),
        _entry(
            "entropy",
            _beyond.entropy_counts,
            "Shannon entropy of the share of top-k positions each item holds",
            "corpus",
            "[0, inf)",
            corpus_value=_beyond.entropy_value,
        ),
        _entry(
            "gini",
            _beyond.gini_counts,
            "Gini index of the items' exposure in the top-k lists (0: equal exposure)",
            "corpus",
            "[0, 1]",
            greater=False,
            corpus_value=_beyond.gini_value,
        ),
        _entry(
            "novelty",
            _beyond.novelty,
            "mean self-information -log2(m(i) / N_U) of the top-k items, per user",
            "list",
            "[0, inf)",
            corpus_value=_beyond.novelty_slots_value,  # with average="slots"
        ),
        _entry(
            "popularity",
            _beyond.average_popularity,
            "average recommendation popularity (ARP): mean training count of the top-k items",
            "list",
            "[0, inf)",
            greater=False,
        ),
        _entry(
            "aplt",
            _beyond.long_tail_share,
            "average percentage of long tail: share of the top k held by long-tail items",
            "list",
            "[0, 1]",
        ),
        _entry(
            "aclt",
            _beyond.long_tail_count,
            "average coverage of long tail: distinct long-tail items in the top k",
            "list",
            "[0, inf)",
        ),
        _entry(
            "efd",
            _beyond.expected_free_discovery,
            "expected free discovery (Elliot): discounted novelty of the relevant top-k items",
            "list",
            "[0, inf)",
        ),
        _entry(
            "epc",
            _beyond.expected_popularity_complement,
            "expected popularity complement (Elliot): discounted 1 - m(i) / N_U of relevant items",
            "list",
            "[0, 1]",
        ),
        _entry(
            "mean_pop_rank",
            _beyond.mean_popularity_rank,
            "mean popularity quantile of the top-k items (LensKit's MeanPopRank)",
            "list",
            "[0, 1]",
            greater=False,
        ),
        _entry(
            "pop_rsp",
            _beyond.pop_rsp_counts,
            "popularity-based ranking-based statistical parity (Elliot's PopRSP): 0 is parity",
            "corpus",
            "[0, 1]",
            greater=False,
            corpus_value=_beyond.group_disparity_value,
        ),
        _entry(
            "pop_reo",
            _beyond.pop_reo_counts,
            "popularity-based ranking-based equal opportunity (Elliot's PopREO): 0 is parity",
            "corpus",
            "[0, 1]",
            greater=False,
            corpus_value=_beyond.group_disparity_value,
        ),
        _entry(
            "diversity",
            _beyond_similarity.intra_list_diversity,
            "intra-list diversity: 1 - mean cosine similarity of the top-k items' features",
            "list",
            "[0, inf)",
        ),
        _entry(
            "serendipity",
            _beyond_similarity.serendipity,
            "serendipity: relevance x dissimilarity to the user's training items, per user",
            "list",
            "[0, inf)",
        ),
        _entry(
            "rank_serendipity",
            _beyond_similarity.rank_serendipity,
            "RecTools' serendipity: relevant items ranked above their popularity rank",
            "list",
            "[0, 1]",
        ),
    )
}
