"""Every convention parameter, declared once.

A `Parameter` holds a convention's name, its allowed values (as a check), its default, its
documentation, its command-line help and how other tools spell it. Everything else is
generated from these declarations: the checks every entry point runs (`validate`), the
parameter sections of the docstrings (`_docs._fill_doc`), the command line's options, the
scorer's accepted keys and the table of docs/metrics.md. A test compares every public
signature with them.

The presets (``convention="trec_eval"``...) are data over the same names.
"""

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from numbers import Integral, Real

import numpy as np

from ..utils._validation import _is_bool, _python_value


def _is_real(value):
    """A real number that is not a bool (True is an int in Python, never a convention)."""
    return isinstance(value, Real) and not _is_bool(value)


def _finite(value):
    try:
        return math.isfinite(float(value))
    except (OverflowError, ValueError, TypeError):  # a Fraction or int beyond float64
        return False


@dataclass(frozen=True)
class _Choice:
    """One of a few strings; None too when ``optional``."""

    choices: tuple
    optional: bool = False

    def __call__(self, name, value):
        if value is None and self.optional:
            return None
        if not isinstance(value, str) or value not in self.choices:
            allowed = ", ".join(repr(c) for c in self.choices)
            prefix = "None or one of " if self.optional else "one of "
            raise ValueError(f"{name} must be {prefix}{allowed}; got {_python_value(value)!r}.")
        return value

    def describe(self):
        return (
            "{"
            + ", ".join(f'"{c}"' for c in self.choices)
            + "}"
            + (" or None" if self.optional else "")
        )


@dataclass(frozen=True)
class _Number:
    """A finite real number above ``low`` (or at least ``low`` when ``inclusive``); None
    allowed when ``optional``. Fractions and other `numbers.Real` are accepted."""

    low: float
    inclusive: bool = False
    optional: bool = False
    words: tuple = ()  # strings accepted besides numbers
    wording: str = ""  # what the value must be, in messages; generated when empty
    high: float = math.inf  # an upper bound, never reached; only with a wording

    def __call__(self, name, value):
        if value is None and self.optional:
            return None
        if isinstance(value, str) and self.words:
            if value in self.words:
                return value
            # The words are not the only choice: a misspelt word still says "a number".
            raise ValueError(f"{name} must be {self.text()}; got {value!r}.")
        bound = (
            (value >= self.low if self.inclusive else value > self.low) and value < self.high
            if (_is_real(value) and _finite(value))
            else False
        )
        if not bound:
            raise ValueError(f"{name} must be {self.text()}; got {_python_value(value)!r}.")
        return float(value)

    def text(self):
        if self.wording:
            return self.wording
        number = "a finite number"
        if self.low != -math.inf:
            number += f" {'at least' if self.inclusive else 'greater than'} {self.low:g}"
        options = [number] + [repr(w) for w in self.words] + (["None"] if self.optional else [])
        return options[0] if len(options) == 1 else (", ".join(options[:-1]) + " or " + options[-1])

    def describe(self):
        kinds = ["float"] + [f'"{w}"' for w in self.words] + (["None"] if self.optional else [])
        return " or ".join(kinds)


@dataclass(frozen=True)
class _Flag:
    """True or False (numpy booleans too); never a number or a string."""

    boolean = True

    def __call__(self, name, value):
        if not _is_bool(value):
            raise ValueError(f"{name} must be True or False; got {value!r}.")
        return bool(value)

    def describe(self):
        return "bool"


@dataclass(frozen=True)
class _Integer:
    """An integer of at least ``low`` (numpy integers too, never a bool or a float), as a
    Python int; None allowed when ``optional``."""

    low: int | None = None
    optional: bool = False
    wording: str = ""  # what the value must be, in messages; generated when empty

    def __call__(self, name, value):
        if value is None and self.optional:
            return None
        if (
            _is_bool(value)
            or not isinstance(value, Integral)
            or (self.low is not None and value < self.low)
        ):
            raise ValueError(f"{name} must be {self.text()}; got {_python_value(value)!r}.")
        return int(value)

    def text(self):
        if self.wording:
            return self.wording
        number = "an integer" if self.low is None else f"an integer of at least {self.low}"
        return ("None or " if self.optional else "") + number

    def describe(self):
        return "int" + (" or None" if self.optional else "")


@dataclass(frozen=True)
class Parameter:
    """A convention parameter.

    name : its Python name, as in every signature.
    check : ``check(name, value)`` returns the value normalised or raises a ValueError
        that names the parameter and the value.
    default : the library's default.
    doc : its description in every docstring (plain text, one paragraph per line break).
    cli : help of its command-line option ``--name-with-dashes``; None: no option.
    elsewhere : how other tools spell it, for the docs.
    """

    name: str
    check: Callable
    default: object
    doc: str
    cli: str | None = None
    elsewhere: str = ""
    type_text: str | None = field(default=None, compare=False)

    def validate(self, value):
        return self.check(self.name, value)

    @property
    def flag(self):
        return "--" + self.name.replace("_", "-")

    @property
    def choices(self):
        return getattr(self.check, "choices", None)

    def numpydoc(self, default=None):
        """The ``name : type, default=...`` line and the indented description."""
        kind = self.type_text or self.check.describe()
        shown = self.default if default is None else default
        shown = f'"{shown}"' if isinstance(shown, str) else repr(shown)
        return f"{self.name} : {kind}, default={shown}\n" + "\n".join(
            "    " + line if line else "" for line in self.doc.splitlines()
        )


_TIES = Parameter(
    "ties",
    _Choice(("average", "stable")),
    "average",
    '"average": the exact expected value over all orderings of items with equal scores\n'
    '(McSherry & Najork, 2008), as scikit-learn does for DCG/NDCG. "stable": ties broken by\n'
    "input order (column order, row order, or list order).",
    cli="average (expected value over orderings of tied scores, the default) or stable "
    "(ties keep the input order)",
    elsewhere='scikit-learn `ignore_ties=True` is `ties="stable"`; ranx, LightGBM, '
    "XGBoost: stable; trec_eval: stable by docno descending",
)
_GAIN = Parameter(
    "gain",
    _Choice(("linear", "exponential")),
    "linear",
    "Gain of relevance ``rel``: ``rel`` (scikit-learn, trec_eval) or ``2**rel - 1``\n"
    "(Burges et al.; LightGBM, XGBoost, Hivemall).",
    cli="linear (default) or exponential (2^rel - 1): CG, DCG, NDCG",
    elsewhere="ranx `ndcg` / `ndcg_burges`; XGBoost `ndcg_exp_gain`; ir_measures "
    "`nDCG(dcg='exp-log2')`",
)
_AP_DENOMINATOR = Parameter(
    "ap_denominator",
    _Choice(("relevant", "min_k", "hits")),
    "relevant",
    "What the sum of precisions at relevant positions is divided by: the number of relevant\n"
    "items R (trec_eval, Hivemall), min(k, R) (LightGBM, XGBoost, Spark's MAP@k), or the\n"
    "number of relevant items in the top k (torchmetrics).",
    cli="relevant (R, default), min_k (min(k, R)) or hits (relevant items in the top k): MAP",
    elsewhere="trec_eval `map_cut_k`: relevant; LightGBM/XGBoost `map@k`: min_k",
)
_NO_RELEVANT = Parameter(
    "no_relevant",
    _Number(-math.inf, words=("skip", "error")),
    0.0,
    "Value of a query with no relevant item (for NDCG: no positive gain; for CG, DCG and\n"
    'Kendall tau: no non-zero relevance). "skip" leaves such queries out of the mean (NaN in\n'
    'per-query output); "error" raises. By default "skip" for a recommender\'s input\n'
    "forms (item ids, ranked lists, a sparse truth matrix), each metric's own value\n"
    "(0, scikit-learn's; ARP: skip) for dense arrays and long format, with a warning either\n"
    "way when a query has no relevant item; a ``convention`` sets its tool's rule.",
    cli="value of a query with no relevant item: a number, skip (left out of the mean) or "
    "error (default: skip, with a warning, as for every recommender's input form; with "
    "--convention, the tool's rule)",
    elsewhere="LightGBM/XGBoost `ndcg@k`: 1; XGBoost `ndcg@k-`: 0; torchmetrics "
    "`empty_target_action`",
)
_RELEVANCE_THRESHOLD = Parameter(
    "relevance_threshold",
    _Number(0.0, optional=True, wording="None or a positive finite number"),
    None,
    "An item is relevant when ``rel >= relevance_threshold``; None means ``rel > 0``.",
    cli="relevant means rel >= this number (default: rel > 0)",
    elsewhere="trec_eval `-l`; ir_measures `rel=`",
)
_SHORT_LISTS = Parameter(
    "short_lists",
    _Choice(("k", "length")),
    "k",
    'Denominator of Precision@k for a query with fewer than k candidates: "k" (trec_eval,\n'
    'Spark: as if the list were padded with non-relevant items) or "length" (Hivemall).',
    cli="k (default) or length: Precision@k of a query with fewer than k candidates divides "
    "by k or by the list length",
)
_LOG_BASE = Parameter(
    "log_base",
    _Number(1.0),
    2,
    "Base of the logarithm in the discount (as scikit-learn's ``dcg_score``).",
    cli="base of the logarithm in DCG (default 2)",
    elsewhere="scikit-learn `dcg_score(log_base=)`",
)
_IDEAL_DCG = Parameter(
    "ideal_dcg",
    _Choice(("achievable", "k")),
    "achievable",
    'The ideal DCG that NDCG@k divides by: "achievable", that of the query\'s judged items\n'
    'sorted by relevance (scikit-learn, trec_eval); "k", that of k items of gain 1, as if\n'
    "every query had k relevant items (RecTools' ``NDCG`` without\n"
    '``divide_by_achievable``). Without a cut-off: "achievable".',
    cli="achievable (default) or k: NDCG@k's ideal DCG is that of k items of gain 1 (RecTools)",
    elsewhere="RecTools `NDCG(divide_by_achievable=True)` is `achievable`, its default `k`",
)
_TIE_BREAK = Parameter(
    "tie_break",
    _Choice(("input", "item_descending", "relevance_ascending")),
    "input",
    'With ``ties="stable"``: the order that breaks ties. "item_descending" orders tied\n'
    "items by item id descending, ids compared as strings (trec_eval's docno rule); for\n"
    "matrices the id is the column number. Long format has no item ids.\n"
    '"relevance_ascending" orders tied items by relevance ascending, then input order: the\n'
    "relevant ones last, the worst case (CatBoost's rule).",
    cli="with --ties stable: input (default), item_descending (trec_eval: tied items by "
    "item id descending, compared as strings) or relevance_ascending (CatBoost: tied items "
    "by relevance ascending, the worst case)",
    elsewhere="trec_eval: item_descending; CatBoost: relevance_ascending",
)
_QUERY_SET = Parameter(
    "query_set",
    _Choice(("all", "judged", "both")),
    "all",
    "Which queries count, for items with ids: all queries of the judgments and the run;\n"
    '"judged" leaves out queries without judgments (trec_eval -c); "both" also leaves out\n'
    "judged queries absent from the run (trec_eval).",
    cli="which queries count: all (default: every query of the judgments and the run), "
    "judged (only queries with judgments, trec_eval -c) or both (only queries in both, "
    "trec_eval)",
)
_SCORE_DTYPE = Parameter(
    "score_dtype",
    _Choice(("float64", "float32")),
    "float64",
    '"float32" rounds scores to 32-bit floats first, so that scores equal in float32 tie\n'
    "(trec_eval 9.x, XGBoost).",
    cli="float64 (default) or float32: round scores to 32-bit floats first, so that scores "
    "equal in float32 tie (trec_eval, XGBoost)",
)

_IPREC_ROUNDING = Parameter(
    "iprec_rounding",
    _Choice(("nearest", "plus_0.9")),
    "nearest",
    "How interpolated precision at recall level p (``iprec``, ``iprec_avg``) turns p R into\n"
    'the number of relevant items to reach: "nearest" rounds half away from zero\n'
    '(trec_eval 10.0, ``lround``); "plus_0.9" truncates p R + 0.9 (trec_eval 9.x,\n'
    "pytrec_eval, ir_measures).",
    cli="nearest (default, trec_eval 10.0) or plus_0.9 (trec_eval 9.x): the rank cut of "
    "a recall level in iprec and iprec_avg",
    elsewhere="trec_eval 10.0: nearest; trec_eval 9.x, pytrec_eval: plus_0.9",
)
_JUDGED_ONLY = Parameter(
    "judged_only",
    _Flag(),
    False,
    "Remove the unjudged items (absent from the truth) from every ranking before any\n"
    "measure: condensed lists (Sakai, SIGIR 2007). Judgments, R and the ideal DCG stay.\n"
    "Judged means present in the truth, relevance 0 included: an `ItemJudgments` row, a\n"
    "key of a dict of the ranked-list form, every cell of a dense matrix and every row of\n"
    "long format, a stored entry of sparse truth (whose explicit zeros are dropped).",
    cli="true or false (default): remove unjudged items from every ranking first "
    "(condensed lists; trec_eval -J)",
    elsewhere="trec_eval `-J`; ir_measures `judged_only=True`; pytrec_eval `judged_docs_only_flag`",
)

#: Conventions whose default a label or a repr leaves out unless given: the base of the
#: logarithm, and a rule only one preset changes (RecTools' ideal DCG), would otherwise
#: fill every one.
QUIET_DEFAULTS = {"log_base": 2, "ideal_dcg": "achievable"}

#: Every convention, in the order of signatures and of the command line's options.
CONVENTIONS = {
    p.name: p
    for p in (
        _TIES,
        _GAIN,
        _AP_DENOMINATOR,
        _NO_RELEVANT,
        _RELEVANCE_THRESHOLD,
        _SHORT_LISTS,
        _LOG_BASE,
        _TIE_BREAK,
        _QUERY_SET,
        _SCORE_DTYPE,
        _IPREC_ROUNDING,
        _JUDGED_ONLY,
        _IDEAL_DCG,
    )
}

# What each tool does, as read from its source and checked by running it
# (docs/reproducing_other_tools.md); tests/conventions/test_peers.py compares against the tools.
# Three entries are not parameters: "metric_no_relevant" gives some metrics their own
# no_relevant value (an explicit no_relevant still wins), "default_k" a cut-off for names
# given without one, "summation" how the per-query values are added up ("accurate", as if
# in twice the precision, or "sequential": plain doubles in query order, as trec_eval adds
# them for its all line, whose %6.4f then rounds the same way on a boundary).
PRESETS = {
    "sklearn": {"ties": "average", "gain": "linear"},
    # trec_eval 10.0 (the current release) reads scores as float64 and rounds a recall
    # level's rank cut to nearest; 9.x (inside pytrec_eval and ir_measures) reads float32
    # scores and truncates p R + 0.9. Both break score ties by docno descending.
    "trec_eval": {
        "ties": "stable",
        "tie_break": "item_descending",
        "score_dtype": "float64",
        "iprec_rounding": "nearest",
        "query_set": "both",
        "gain": "linear",
        "ap_denominator": "relevant",
        "short_lists": "k",
        "summation": "sequential",
    },
    "trec_eval9": {
        "ties": "stable",
        "tie_break": "item_descending",
        "score_dtype": "float32",
        "iprec_rounding": "plus_0.9",
        "query_set": "both",
        "gain": "linear",
        "ap_denominator": "relevant",
        "short_lists": "k",
        "summation": "sequential",
    },
    # Hivemall's AUC is 0.5 for a query without a relevant item.
    "hivemall": {
        "ties": "stable",
        "gain": "exponential",
        "ap_denominator": "hits",
        "short_lists": "length",
        "metric_no_relevant": {"auc": 0.5},
    },
    # Their ndcg@k and map@k score a query with no relevant item 1; other metrics 0.
    "lightgbm": {
        "ties": "stable",
        "gain": "exponential",
        "ap_denominator": "min_k",
        "metric_no_relevant": {"ndcg": 1.0, "map": 1.0},
    },
    # XGBoost's metrics without @k stop at 32 (LambdaRankParam's default top-k).
    "xgboost": {
        "ties": "stable",
        "gain": "exponential",
        "ap_denominator": "min_k",
        "short_lists": "length",
        "score_dtype": "float32",
        "metric_no_relevant": {"ndcg": 1.0, "map": 1.0},
        "default_k": 32,
    },
    # CatBoost's NDCG and MAP (catboost/libs/metrics/dcg.cpp, doc_comparator.h): ties in
    # the prediction put the lower target first; NDCG's gain is the label (type=Base) and a
    # query without gain scores 1; MAP counts labels above its border 0.5 (labels are
    # float32: the threshold is the smallest float32 above 0.5) and divides by min(k, R).
    "catboost": {
        "ties": "stable",
        "tie_break": "relevance_ascending",
        "gain": "linear",
        "ap_denominator": "min_k",
        "relevance_threshold": float(np.nextafter(np.float32(0.5), np.float32(1.0))),
        "metric_no_relevant": {"ndcg": 1.0},
    },
    # Spark's RankingMetrics / RankingEvaluator: labels are a set (binary: every label is
    # relevant), the predicted array is the ranking (ties in its order), ndcgAt gains
    # 2**rel - 1 (graded with relevance values, since Spark 3.4), precisionAt divides by
    # k even for shorter lists, meanAveragePrecisionAt by min(k, number of labels), and a
    # query with an empty label set scores 0 in every metric.
    "spark": {
        "ties": "stable",
        "gain": "exponential",
        "ap_denominator": "min_k",
        "short_lists": "k",
    },
    # Recommender frameworks (docs/beyond_accuracy.md; BEYOND.md): they read ranked top-k
    # lists (stable: the list order) and leave out users without a test item. Their
    # beyond-accuracy definitions are the presets of `_beyond.BEYOND_PRESETS`.
    "recommenders": {"ties": "stable", "no_relevant": "skip"},
    "rectools": {"ties": "stable", "no_relevant": "skip", "ideal_dcg": "k"},
    "recbole": {"ties": "stable", "no_relevant": "skip"},
    "elliot": {"ties": "stable", "no_relevant": "skip"},
    "lenskit": {"ties": "stable", "no_relevant": "skip"},
}

CONVENTION = Parameter(
    "convention",
    _Choice(tuple(PRESETS)),
    None,
    "Set the convention parameters to reproduce that tool (see\n"
    "docs/reproducing_other_tools.md); the parameters given explicitly still win. None\n"
    "uses the defaults.",
    cli="reproduce a tool: " + ", ".join(PRESETS) + " (sets the options below; options "
    "given explicitly still win)",
    type_text="{" + ", ".join(f'"{name}"' for name in PRESETS) + "} or None",
)


def resolve(convention=None, explicit=None):
    """The conventions in force: the defaults, then the preset's, then those given.

    Parameters given as None are not given. Every value is validated; the result holds
    every declared convention plus ``metric_no_relevant`` (a dict), ``default_k``,
    ``summation`` and ``convention`` (the preset in force, or None). ``no_relevant`` stays
    None unless given: each metric then uses its own default.
    """
    if convention is not None:
        CONVENTION.validate(convention)
    explicit = explicit or {}
    unknown = set(explicit) - set(CONVENTIONS)
    if unknown:
        raise TypeError(f"unknown convention parameter {sorted(unknown)[0]!r}.")
    resolved = {name: p.default for name, p in CONVENTIONS.items()}
    resolved["no_relevant"] = None
    resolved.update(
        metric_no_relevant={}, default_k=None, summation="accurate", convention=convention
    )
    resolved.update(PRESETS.get(convention, {}))
    for name, value in explicit.items():
        if value is not None:
            resolved[name] = CONVENTIONS[name].validate(value)
    for name, parameter in CONVENTIONS.items():
        if resolved[name] is not None:
            resolved[name] = parameter.validate(resolved[name])
    return resolved


def _markdown_table():
    """The conventions table of docs/metrics.md, generated from the declarations."""
    rows = [
        "| parameter | values | default | meaning | command line | in other tools |",
        "|---|---|---|---|---|---|",
    ]
    for parameter in (CONVENTION, *CONVENTIONS.values()):
        kind = parameter.type_text or parameter.check.describe()
        meaning = " ".join(parameter.doc.split())
        flag = f"`{parameter.flag}`" if parameter.cli else ""
        rows.append(
            f"| `{parameter.name}` | {kind} | `{parameter.default!r}` | {meaning} | {flag} | "
            f"{parameter.elsewhere} |"
        )
    return "\n".join(rows) + "\n"


def check_k(k, name="k"):
    """A cut-off as a Python int, or None; 0, negatives, floats and bools are refused."""
    if k is None:
        return None
    if _is_bool(k) or not isinstance(k, Integral) or not 0 < k <= 2**62:
        # positions are int64
        raise ValueError(f"{name} must be a positive integer (up to 2**62) or None; got {k!r}.")
    return int(k)
