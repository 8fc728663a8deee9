"""The parameters of `compare` and `compare_search`, declared once, as the conventions are.

Each is a `sklearn_rank.conventions.Parameter`: its check (run up front by both functions),
its default, its docstring text (``{test}``... placeholders, `_fill_declared`) and the help
of its ``sklearn-rank compare`` option. Checks that read other arguments (a baseline among
the runs, ``alternative`` with ``test="tukey_hsd"``) stay with the functions.
"""

from numbers import Integral

import numpy as np

from ..conventions._declarations import Parameter, _Choice, _Integer, _Number
from ..conventions._docs import _with_declarations
from ..utils._validation import _is_bool, _shown

TESTS = ("randomization", "t", "wilcoxon", "bootstrap", "tukey_hsd", "corrected_t")
CORRECTIONS = ("holm", "bonferroni", "fdr_bh")
ALTERNATIVES = ("two-sided", "greater", "less")
BOOTSTRAP_METHODS = ("percentile", "basic", "BCa")
MISSING = ("zero", "drop", "raise")


class _Seed:
    """None, a non-negative int or a numpy Generator: what numpy seeds reproducibly from."""

    def __call__(self, name, value):
        if value is None or isinstance(value, np.random.Generator):
            return value
        if isinstance(value, Integral) and not _is_bool(value) and value >= 0:
            return int(value)
        raise ValueError(
            f"{name} must be None, a non-negative int or a numpy.random.Generator; got {value!r}."
        )

    def describe(self):
        return "int, numpy.random.Generator or None"


# Why a comparison takes no query weights, in the messages of compare and compare_search.
_WHY_UNWEIGHTED = (
    "its paired tests, intervals and effect sizes treat every query as one equally likely "
    "draw, and their weighted forms are not standard (a weighted mean difference tested on "
    "an effective sample size has no known level), so weights would change what the "
    "p-values mean."
)


def _weights_refused(what, instead):
    """The ValueError of a comparison given query weights: ``what`` names them, ``instead``
    says how to compare unweighted."""
    return ValueError(f"sample_weight cannot be used by {what}: {_WHY_UNWEIGHTED} {instead}")


class _Unweighted:
    """None only: a comparison takes no query weights (`_WHY_UNWEIGHTED`)."""

    def __call__(self, name, value):
        if value is None:
            return None
        raise _weights_refused(
            f"compare (got {_shown(value)})",
            "Compare the runs unweighted (leave sample_weight out) and report the weighted "
            "means with evaluate(y_true, y_score, metrics, sample_weight=...). Integer "
            "frequency weights are repeated queries: to test with them, repeat each query "
            "of y_true and of every run that many times, each copy a query of its own.",
        )

    def describe(self):
        return "None"


class _FittedStandardizer:
    """None or a fitted `ScoreStandardizer`."""

    def __call__(self, name, value):
        from ._standardize import ScoreStandardizer

        if value is None:
            return None
        if not isinstance(value, ScoreStandardizer) or not hasattr(value, "query_ids_"):
            raise ValueError(
                f"{name} must be None or a fitted ScoreStandardizer (fit it on reference "
                f"runs' per-query values first); got {_shown(value)}."
            )
        return value

    def describe(self):
        return "ScoreStandardizer or None"


TEST = Parameter(
    "test",
    _Choice(TESTS),
    "randomization",
    "The paired test, against ``alternative``:\n"
    "\n"
    '- ``"randomization"``: sign-flip (Fisher) test of the mean difference: the share\n'
    "  of the 2**n assignments of each query's two values to the two runs whose mean\n"
    "  difference is at least the observed one in absolute value (one-sided: at least\n"
    "  it, or at most it, with its sign); enumerated exactly\n"
    "  when 2**n <= ``n_resamples``, else estimated from ``n_resamples`` random\n"
    "  assignments as (1 + count) / (1 + n_resamples). One set of assignments serves\n"
    "  every pair and metric.\n"
    '- ``"t"``: paired Student t-test, equal to ``scipy.stats.ttest_rel``.\n'
    '- ``"wilcoxon"``: signed-rank test, equal to ``scipy.stats.wilcoxon`` with its\n'
    "  defaults (zero differences dropped, exact or normal approximation by n).\n"
    '- ``"bootstrap"``: shifted studentized paired bootstrap of the mean difference.\n'
    '- ``"tukey_hsd"``: randomised Tukey HSD over all runs at once (each query\'s\n'
    "  values permuted across runs), which controls the family-wise error over all\n"
    "  pairs of a metric itself: ``correction`` is not applied. Two-sided only.\n"
    '- ``"corrected_t"`` (`compare_search` only): Nadeau and Bengio\'s corrected t-test\n'
    "  over the split scores of a cross-validation.",
    cli="paired test (default: randomization)",
)
ALTERNATIVE = Parameter(
    "alternative",
    _Choice(ALTERNATIVES),
    "two-sided",
    "The alternative hypothesis, in scipy's meaning for the per-query differences\n"
    "``run - baseline`` of each pair (every-pair comparisons: later run - earlier\n"
    "run): ``\"greater\"``, the run's metric values are greater than the baseline's\n"
    "(its mean difference is above 0; for the signed-rank test, its differences tend\n"
    'to be positive); ``"less"``, lower; ``"two-sided"``, either. It is passed to\n'
    "the test as scipy's ``alternative`` (``ttest_rel``, ``wilcoxon``,\n"
    '``permutation_test``) and applies to the bootstrap test likewise. "Greater" is\n'
    'about values, not quality: for a lower-is-better metric such as ``"arp"``, a\n'
    'greater value is worse. ``test="tukey_hsd"`` has no one-sided form and refuses\n'
    'anything but ``"two-sided"``. The intervals stay two-sided.',
    cli="alternative hypothesis, as in scipy (default: two-sided): greater, each run's "
    "values are greater than its baseline's (every pair: a later run than an earlier "
    "one); less, lower; tukey_hsd is two-sided only",
)
CORRECTION = Parameter(
    "correction",
    _Choice(CORRECTIONS, optional=True),
    "holm",
    "Multiple-testing correction over all comparisons of the call (every pair x\n"
    "metric): Holm's step-down and Bonferroni control the family-wise error,\n"
    '``"fdr_bh"`` (Benjamini-Hochberg) the false discovery rate. The results of\n'
    "``statsmodels.stats.multitest.multipletests`` with the same method.",
    cli="multiple-testing correction over every pair and metric (default: holm)",
)
CONFIDENCE = Parameter(
    "confidence",
    _Number(0.0, high=1.0, wording="in (0, 1)"),
    0.95,
    "Level of the intervals of each run's mean and each mean difference, in (0, 1):\n"
    "BCa bootstrap intervals from ``n_resamples`` resamples of the queries (the\n"
    'percentile interval where BCa is undefined), t intervals with ``test="t"``.\n'
    "``1 - confidence`` is the level at which ``significant`` is decided.",
    cli="level of the intervals (default: 0.95); 1 - LEVEL is the significance level",
    type_text="float",
)
N_RESAMPLES = Parameter(
    "n_resamples",
    _Integer(1, wording="a positive integer"),
    10_000,
    "Random sign vectors, bootstrap resamples or permutations; at least 1.",
    cli="random sign vectors, bootstrap resamples or permutations (default: 10000)",
)
MISSING_QUERIES = Parameter(
    "missing",
    _Choice(MISSING),
    "zero",
    "A query that a run lacks (absent from its values, or with nothing ranked for it,\n"
    'while another run has it): ``"zero"`` scores it 0 for that run (as ``trec_eval\n'
    '-c``), ``"drop"`` leaves it out of every run, ``"raise"`` raises a ValueError.\n'
    '``runs["n_missing"]`` counts them for each run.',
    cli="a query that a run lacks: scored 0 (default, as trec_eval -c), dropped from "
    "every run, or an error",
)
RANDOM_STATE = Parameter(
    "random_state",
    _Seed(),
    None,
    "Seed of the random draws (two independent streams: the test's and the\n"
    "intervals'). Results do not depend on how draws are blocked in memory.",
    cli="seed of the random draws (default: 0, so that a command gives the same "
    "numbers every time)",
)
DECIMALS = Parameter(
    "decimals",
    _Integer(optional=True, wording="None or an integer"),
    None,
    "Round each per-query difference to this many decimals before the test, the\n"
    "effect size and the wins/ties/losses read it (the mean difference and the\n"
    "intervals keep every digit). Differences of decimal scores are not exactly equal\n"
    "in binary (0.7 - 0.5 != 0.3 - 0.1), so rank-based tests and ties see distinct\n"
    "values where a person sees equal ones; ``decimals=12`` makes them equal. None\n"
    "(default) tests the differences as computed, as scipy does.",
)
SAMPLE_WEIGHT = Parameter(
    "sample_weight",
    _Unweighted(),
    None,
    "Query weights are refused with a ValueError that says why: the paired tests,\n"
    "intervals and effect sizes treat every query as one equally likely draw, and their\n"
    "weighted forms are not standard. Report weighted means with `evaluate`; integer\n"
    "frequency weights are repeated queries (repeat each query, each copy a query of\n"
    "its own).",
)
STANDARDIZE = Parameter(
    "standardize",
    _FittedStandardizer(),
    None,
    "A fitted `ScoreStandardizer`: each run's per-query values are standardized by it\n"
    "(matched by query id, per metric when it was fitted on a dict metric -> values)\n"
    "before anything is computed, so that the means, tests and intervals are of the\n"
    "standardized values, averaged as means. A query its reference lacks is NaN, left\n"
    "out of the pairs it is in. None (default) compares the values as computed.",
)
REPLICATES = Parameter(
    "replicates",
    _Choice(("mean",), optional=True),
    None,
    'None: each run is one ``y_score``. ``"mean"``: each run is a list of ``y_score``\n'
    "(replicates of one system: random seeds, restarts), all in the same form; each\n"
    "replicate is evaluated and ``missing`` applied to it, then the system's per-query\n"
    "values are the means over its replicates, and these are paired and tested. This\n"
    "is the test of the system effect in the mixed model with random topics (the\n"
    "paired t-test's t squared is its F); pairing every (query, replicate) instead\n"
    "would treat replicates as queries and reject a true null far too often.\n"
    '``runs["n_replicates"]`` says how many each system had.',
)
BOOTSTRAP_METHOD = Parameter(
    "method",
    _Choice(BOOTSTRAP_METHODS),
    "BCa",
    "Bootstrap interval method, spelt as scipy documents it.",
)

#: The parameters `compare` and `compare_search` share, in their signatures' order.
SHARED = {p.name: p for p in (TEST, ALTERNATIVE, CORRECTION, CONFIDENCE, N_RESAMPLES)}
#: Every declared parameter of the comparison, by name.
COMPARISON_PARAMETERS = {
    p.name: p
    for p in (
        *SHARED.values(),
        MISSING_QUERIES,
        RANDOM_STATE,
        DECIMALS,
        SAMPLE_WEIGHT,
        REPLICATES,
        BOOTSTRAP_METHOD,
        STANDARDIZE,
    )
}

_fill_declared = _with_declarations(COMPARISON_PARAMETERS.values())


def _checked_shared(test, alternative, correction, confidence, n_resamples, random_state):
    """The parameters `compare` and `compare_search` share, each checked by its declaration,
    in their order, with the one rule across two of them: tukey_hsd is two-sided only."""
    test = TEST.validate(test)
    alternative = ALTERNATIVE.validate(alternative)
    if alternative != "two-sided" and test == "tukey_hsd":
        raise ValueError(
            f"alternative={alternative!r} cannot be used with test='tukey_hsd': the randomised "
            "Tukey HSD tests the range of all runs' means, which has no one-sided form; use "
            "alternative='two-sided', or a paired test such as test='randomization' with a "
            "correction."
        )
    return (
        test,
        alternative,
        CORRECTION.validate(correction),
        CONFIDENCE.validate(confidence),
        N_RESAMPLES.validate(n_resamples),
        RANDOM_STATE.validate(random_state),
    )
