"""The parameters of the design functions (power, topic-set size, minimum detectable
difference, within-system variance), declared once as the comparison's are.

Each is a `sklearn_rank.conventions.Parameter`: its check, its default and its docstring
text (``{alpha}``... placeholders, `_fill_design`). Checks that read other arguments (a
design's own required parameter) stay with the functions.
"""

from ..conventions._declarations import Parameter, _Choice, _Integer, _Number
from ..conventions._docs import _filled, _texts

DESIGNS = ("paired_t", "anova", "ci")
VARIANCE_METHODS = ("two_way", "one_way")

DELTA = Parameter(
    "delta",
    _Number(-float("inf"), wording="a finite number"),
    None,
    "The true mean difference to detect, in metric units (0.05 for 0.05 nDCG@10); its\n"
    "sign matters for a one-sided ``alternative``. For an effect size d_z (a difference\n"
    "in standard deviations), pass it as ``delta`` with ``sd=1``.",
    type_text="float",
)
SD = Parameter(
    "sd",
    _Number(0.0, inclusive=True, wording="a finite number at least 0"),
    None,
    "Standard deviation of the per-query differences between the two systems (sigma_d).\n"
    "From pilot runs: ``sqrt(2 * within_system_variance(per_query))``.",
    type_text="float",
)
N_QUERIES = Parameter(
    "n_queries",
    _Integer(2, wording="an integer of at least 2 (a t-test of one pair has n - 1 df)"),
    None,
    "Number of queries (paired observations); at least 2.",
    type_text="int",
)
ALPHA = Parameter(
    "alpha",
    _Number(0.0, high=1.0, wording="in (0, 1)"),
    0.05,
    "Level of the test, in (0, 1).",
    type_text="float",
)
POWER = Parameter(
    "power",
    _Number(0.0, high=1.0, wording="in (0, 1)"),
    0.8,
    "The target power (1 - beta), in (0, 1).",
    type_text="float",
)
POWER_ALTERNATIVE = Parameter(
    "alternative",
    _Choice(("two-sided", "greater", "less")),
    "two-sided",
    "The alternative of the paired t-test, as in `compare` and scipy:\n"
    '``"greater"``, the run\'s mean is above the baseline\'s (statsmodels\' "larger"),\n'
    '``"less"`` below (statsmodels\' "smaller"), ``"two-sided"`` either.',
)
DESIGN = Parameter(
    "design",
    _Choice(DESIGNS),
    "paired_t",
    '``"paired_t"``: the paired t-test of two systems reaches ``power`` for a true\n'
    'difference ``delta``; ``"anova"``: the one-way ANOVA F test of ``n_systems``\n'
    "systems reaches ``power`` when two system means differ by ``delta`` (the least\n"
    "favourable configuration: the others in the middle), ``sd`` the within-system\n"
    'standard deviation; ``"ci"``: the expected width of the ``1 - alpha`` interval of\n'
    "the mean difference is at most ``max_width`` (``delta`` and ``power`` unused).",
)
N_SYSTEMS = Parameter(
    "n_systems",
    _Integer(2, optional=True, wording="None or an integer of at least 2"),
    None,
    'Number of systems of ``design="anova"`` (required there, unused otherwise).',
)
MAX_WIDTH = Parameter(
    "max_width",
    _Number(0.0, optional=True, wording="None or a finite number greater than 0"),
    None,
    'Largest expected width of the interval of ``design="ci"`` (required there, unused\n'
    "otherwise).",
)
VARIANCE_METHOD = Parameter(
    "method",
    _Choice(VARIANCE_METHODS),
    "two_way",
    '``"two_way"``: residual variance of the two-way ANOVA without replication (query\n'
    "and system effects), V_E2; ``2 * V_E2`` is the mean over system pairs of the\n"
    "variance of their per-query differences, the sigma_d**2 of the paired t design.\n"
    '``"one_way"``: within-system variance ignoring queries (system effects only),\n'
    "V_E1, the sigma**2 of unpaired designs.",
)

DESIGN_PARAMETERS = {
    p.name: p
    for p in (
        DELTA,
        SD,
        N_QUERIES,
        ALPHA,
        POWER,
        POWER_ALTERNATIVE,
        DESIGN,
        N_SYSTEMS,
        MAX_WIDTH,
        VARIANCE_METHOD,
    )
}

# Required arguments: their docstring line has no default.
REQUIRED = ("delta", "sd", "n_queries")


def _numpydoc(parameter):
    if parameter.name not in REQUIRED:
        return parameter.numpydoc()
    kind = parameter.type_text or parameter.check.describe()
    return f"{parameter.name} : {kind}\n" + "\n".join(
        "    " + line if line else "" for line in parameter.doc.splitlines()
    )


def _fill_design(function):
    """Fill the ``{delta}``... placeholders of a design function's docstring."""
    own = {name: _numpydoc(parameter) for name, parameter in DESIGN_PARAMETERS.items()}
    function.__doc__ = _filled(function.__doc__, {**_texts(), **own})
    return function
