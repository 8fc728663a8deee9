"""The parameters of the beyond-accuracy measures (coverage, entropy, Gini, novelty,
popularity, long tail), declared once, as the measure parameters are (`_measures`).

Each choice where the recommender frameworks define a measure differently (BEYOND.md,
section 12) is one parameter: the default is the specification's recommendation, and the
other values reproduce a framework. They are given in a metric's name
(``entropy(base=2.718281828459045)@10``, ``novelty(cold_items='zero')@10``).
"""

from ._declarations import Parameter, _Choice, _Flag, _Number


def _long_tail(name, value):
    """ "cumulative", or ("fraction", t) / ("max_count", t): RecBole's two rules."""
    if value == "cumulative":
        return value
    if (
        isinstance(value, (tuple, list))
        and len(value) == 2
        and value[0] in ("fraction", "max_count")
    ):
        limit = _Number(0.0)(f"{name}[1]", value[1])
        if value[0] == "fraction" and limit > 1:
            raise ValueError(
                f"{name}: a fraction of the trained items is at most 1; got {limit!r}."
            )
        return (value[0], limit)
    raise ValueError(
        f"{name} must be 'cumulative', ('fraction', t) or ('max_count', t); got {value!r}."
    )


_long_tail.describe = lambda: '"cumulative" or tuple'


def _share(name, value):
    value = _Number(0.0)(name, value)
    if value > 1:
        raise ValueError(f"{name} must be in (0, 1]; got {value!r}.")
    return value


_share.describe = lambda: "float"


def _base(name, value):
    value = _Number(0.0)(name, value)
    if value == 1:
        raise ValueError(f"{name} must be a logarithm base other than 1; got {value!r}.")
    return value


_base.describe = lambda: "float"

_COVERAGE_NORMALIZE = Parameter(
    "normalize",
    _Flag(),
    True,
    "True: the distinct recommended items over the catalog size (a ratio, RecBole's\n"
    "``ItemCoverage``, RecTools' ``CatalogCoverage(normalize=True)``). False: their count\n"
    "(RecTools' default, Elliot's ``ItemCoverage``).",
)
_COVERAGE_DENOMINATOR = Parameter(
    "denominator",
    _Choice(("catalog", "train")),
    "catalog",
    '"catalog": the ratio is over the catalog size. "train": over the number of items with\n'
    "a training interaction, recommended cold items still counted above it, so the value\n"
    "can exceed 1 (Microsoft Recommenders' ``catalog_coverage``).",
)
_AVERAGE = Parameter(
    "average",
    _Choice(("users", "slots")),
    "users",
    '"users": the mean of each user\'s mean (per-user values, RecTools). "slots": one mean\n'
    "over every recommended position of every user, a corpus-level value (Microsoft\n"
    "Recommenders' ``novelty``).",
)
_BASE = Parameter(
    "base",
    _base,
    2.0,
    "Base of the logarithm: 2 (bits; Microsoft Recommenders, Elliot, RecTools) or\n"
    "e = 2.718281828459045 (RecBole's entropy).",
    type_text="float",
)
_ENTROPY_NORMALIZE = Parameter(
    "normalize",
    _Choice(("log_n", "distinct"), optional=True),
    None,
    'None: the entropy. "log_n": divided by the entropy of the uniform distribution over\n'
    'the catalog (an evenness in [0, 1]). "distinct": divided by the number of distinct\n'
    "recommended items (RecBole's ``ShannonEntropy``).",
)
_WEIGHTING = Parameter(
    "weighting",
    _Choice(("slots", "users")),
    "slots",
    '"slots": p(i) = r(i) / R, every recommended position weighs the same (Microsoft\n'
    'Recommenders, RecBole). "users": every list weighs the same, its items share 1 / l_u,\n'
    "and the sum is divided by the number of users (Elliot's ``SEntropy``).",
)
_GINI_COUNTS = Parameter(
    "counts",
    _Choice(("slots", "lists")),
    "slots",
    '"slots": an item\'s exposure is the number of positions holding it (RecBole).\n'
    '"lists": the number of lists holding it (LensKit\'s ``ListGini``).',
)
_GINI_ITEMS = Parameter(
    "items",
    _Choice(("catalog", "train")),
    "catalog",
    '"catalog": n = the catalog, never-recommended items count as zeros (RecBole,\n'
    'LensKit). "train": n = the items with a training interaction (Elliot).',
)
_CORRECTED = Parameter(
    "corrected",
    _Flag(),
    False,
    "True: scaled by n / (n - 1), so that all exposure on one item gives 1 (Elliot).",
)
_COMPLEMENT = Parameter(
    "complement",
    _Flag(),
    False,
    "True: report 1 - G, a diversity, 1 for equal exposure (Elliot's ``Gini``).",
)
_NOVELTY_POPULARITY = Parameter(
    "popularity",
    _Choice(("users", "interactions")),
    "users",
    '"users": p(i) = m(i) / N_U, the share of training users with item i (RecTools).\n'
    '"interactions": p(i) = c(i) / N, the share of training rows (Microsoft Recommenders).',
)
_COLD_ITEMS = Parameter(
    "cold_items",
    _Choice(("one_user", "zero", "max", "raise")),
    "one_user",
    'A recommended item without training interaction: "one_user" counts it as held by\n'
    'one user (RecTools), "zero" gives it no novelty (Microsoft Recommenders), "max" the\n'
    'novelty of the least popular trained item (Elliot\'s EFD), "raise" refuses it.',
)
_ARP_POPULARITY = Parameter(
    "popularity",
    _Choice(("interactions", "users")),
    "interactions",
    '"interactions": c(i), training rows of item i (RecTools, RecBole). "users": m(i),\n'
    "distinct training users (Elliot's ``ARP``).",
)
_ARP_NORMALIZE = Parameter(
    "normalize",
    _Flag(),
    False,
    "True: divided by the number of training rows (or users) (RecTools' ``normalize``).",
)
_ARP_COLD_ITEMS = Parameter(
    "cold_items",
    _Choice(("zero", "raise")),
    "zero",
    'A recommended item without training interaction: "zero" popularity (RecTools,\n'
    'RecBole) or "raise" (Elliot raises a KeyError).',
)
_LONG_TAIL = Parameter(
    "long_tail",
    _long_tail,
    "cumulative",
    '"cumulative": the short head is the most popular trained items (by training users)\n'
    "whose counts first reach ``head_share`` of the (user, item) pairs, the long tail\n"
    'every other trained item (Elliot). ("fraction", t): the long tail is the t least\n'
    'popular share of the trained items by training rows, ties by catalog order; ("max_count",\n'
    "t): the trained items with at most t training rows (RecBole's two rules).",
)
_HEAD_SHARE = Parameter(
    "head_share",
    _share,
    0.8,
    "The share of training (user, item) pairs the short head reaches (Elliot's 0.8).",
)
_TAIL_TIES = Parameter(
    "tail_ties",
    _Choice(("head", "order")),
    "head",
    '"head": items as popular as the one crossing ``head_share`` join the short head, so\n'
    'the split does not depend on any order. "order": by catalog order, as Elliot\'s Python\n'
    "set order does for small integer ids (not always: documented, not reproduced).",
)
_COLD_IN_TAIL = Parameter(
    "cold_items_in_tail",
    _Flag(),
    False,
    "True: items without training interaction belong to the long tail (no framework does).",
)
_TAIL_COUNT = Parameter(
    "tail_count",
    _Choice(("positions", "distinct")),
    "positions",
    '"positions": the share of positions holding a long-tail item (RecBole\'s\n'
    '``TailPercentage``). "distinct": distinct long-tail items over the positions\n'
    "(Elliot's ``APLT``).",
)

_RANK_POPULARITY = Parameter(
    "popularity",
    _Choice(("users", "interactions")),
    "users",
    '"users": items ranked by m(i), their training users (LensKit\'s default). "interactions":\n'
    "by c(i), their training rows.",
)

_SIMILARITY = Parameter(
    "similarity",
    _Choice(("cosine", "cooccurrence", "hamming")),
    "cosine",
    '"cosine": of the ``item_features`` rows, a zero row similar to nothing (Ziegler;\n'
    'Microsoft Recommenders with feature vectors; LensKit\'s ILS). "cooccurrence": from\n'
    "``train``, the users' interaction counts with both items over the square root of the\n"
    "items' counts (Microsoft Recommenders' default). \"hamming\": the number of features in\n"
    "which two items differ, a distance (RecTools).",
)
_SERENDIPITY_SIMILARITY = Parameter(
    "similarity",
    _Choice(("cosine", "cooccurrence")),
    "cosine",
    '"cosine": of the ``item_features`` rows. "cooccurrence": from ``train``, as\n'
    "Microsoft Recommenders' default.",
)
_FORM = Parameter(
    "form",
    _Choice(("diversity", "similarity")),
    "diversity",
    '"diversity": 1 - the mean pairwise similarity. "similarity": the mean pairwise\n'
    'similarity (LensKit\'s ILS). A distance (``similarity="hamming"``) is its mean.',
)


def _single_item(name, value):
    if value is None:
        return None
    return _Number(-1.0, inclusive=True)(name, value)


_single_item.describe = lambda: "float or None"

_SINGLE_ITEM = Parameter(
    "single_item",
    _single_item,
    None,
    "The value of a list of one item, which has no pair: None (NaN, left out of the mean,\n"
    "as Microsoft Recommenders), 0 (RecTools) or 1.0 (LensKit's ILS).",
)
_RELEVANCE = Parameter(
    "relevance",
    _Choice(("truth", "all")),
    "truth",
    '"truth": each item weighted by its relevance in ``y_true`` (0 if absent). "all":\n'
    "every recommended item weighs 1 (Microsoft Recommenders without ``col_relevance``).",
)

#: The parameters of each beyond-accuracy measure, in signature order.
BEYOND_PARAMETERS = {
    "coverage": (_COVERAGE_NORMALIZE, _COVERAGE_DENOMINATOR),
    "entropy": (_BASE, _ENTROPY_NORMALIZE, _WEIGHTING),
    "gini": (_GINI_COUNTS, _GINI_ITEMS, _CORRECTED, _COMPLEMENT),
    "novelty": (_NOVELTY_POPULARITY, _AVERAGE, _COLD_ITEMS, _BASE),
    "popularity": (_ARP_POPULARITY, _ARP_NORMALIZE, _ARP_COLD_ITEMS),
    "aplt": (_LONG_TAIL, _HEAD_SHARE, _TAIL_TIES, _COLD_IN_TAIL, _TAIL_COUNT),
    "aclt": (_LONG_TAIL, _HEAD_SHARE, _TAIL_TIES, _COLD_IN_TAIL),
    "efd": (),
    "epc": (),
    "mean_pop_rank": (_RANK_POPULARITY,),
    "pop_rsp": (_LONG_TAIL, _HEAD_SHARE, _TAIL_TIES, _COLD_IN_TAIL),
    "pop_reo": (_LONG_TAIL, _HEAD_SHARE, _TAIL_TIES, _COLD_IN_TAIL),
    "diversity": (_SIMILARITY, _FORM, _SINGLE_ITEM),
    "serendipity": (_SERENDIPITY_SIMILARITY, _RELEVANCE),
}


# What each framework's preset sets (BEYOND.md, section 12): metric -> parameters, or the
# reason the preset refuses the metric (the framework has no such measure, or another one
# under the name). Parameters given in a name still win.
_NONE = "{tool} has no {metric} measure"
BEYOND_PRESETS = {
    "recommenders": {
        "coverage": {"denominator": "train"},
        "entropy": {},
        "novelty": {"popularity": "interactions", "average": "slots", "cold_items": "zero"},
        # co-occurrence similarity unless item features are given (`_preset_arguments`)
        "diversity": {"similarity": "cooccurrence"},
        "serendipity": {"similarity": "cooccurrence"},
    },
    "rectools": {
        "coverage": {"normalize": False},
        "novelty": {},
        "popularity": {},
        "diversity": {"similarity": "hamming", "single_item": 0.0},
        "serendipity": "RecTools' Serendipity is another measure (a list position against "
        "the item's popularity rank), not reproduced by serendipity",
    },
    "recbole": {
        "coverage": {},
        "entropy": {"base": 2.718281828459045, "normalize": "distinct"},
        "gini": {},
        "popularity": {},
        "aplt": {"long_tail": ("fraction", 0.1)},
    },
    "elliot": {
        "coverage": {"normalize": False},
        "entropy": {"weighting": "users"},
        "gini": {"items": "train", "corrected": True, "complement": True},
        "popularity": {"popularity": "users", "cold_items": "raise"},
        "aplt": {"tail_ties": "order", "tail_count": "distinct"},
        "aclt": {"tail_ties": "order"},
        "efd": {},
        "epc": {},
        "pop_rsp": {"tail_ties": "order"},
        "pop_reo": {"tail_ties": "order"},
    },
    "lenskit": {
        "coverage": {"normalize": False},
        "gini": {"counts": "lists"},
        "mean_pop_rank": {},
        "diversity": {"form": "similarity", "single_item": 1.0},
    },
}
_TOOLS = {
    "recommenders": "Microsoft Recommenders",
    "rectools": "RecTools",
    "recbole": "RecBole",
    "elliot": "Elliot",
    "lenskit": "LensKit",
}


def _preset_arguments(convention, metric, given, side_inputs_present=()):
    """The parameters of a beyond-accuracy ``metric`` (name) under ``convention``: the
    defaults, the preset's, then those ``given``. Refuses a metric the framework lacks."""
    defaults = {p.name: p.default for p in BEYOND_PARAMETERS[metric]}
    preset = BEYOND_PRESETS.get(convention)
    if preset is None:
        return {**defaults, **given}
    entry = preset.get(metric, _NONE)
    if isinstance(entry, str):
        tool = _TOOLS[convention]
        raise ValueError(
            f"convention={convention!r}: {entry.format(tool=tool, metric=metric)}; compute "
            f"{metric} without the preset, or with its parameters in the name."
        )
    entry = dict(entry)
    if convention == "recommenders" and "features" in side_inputs_present:
        entry.pop("similarity", None)  # Microsoft's feature-vector cosine
    return {**defaults, **entry, **given}
