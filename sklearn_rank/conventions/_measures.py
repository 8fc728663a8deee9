"""Every measure parameter, declared once, as the conventions are.

A measure parameter (RBP's persistence ``p``, ERR's ``max_grade``...) is given in a metric's
name (``rbp(p=0.9)``) or as a keyword of its function. It is not a convention: it changes
what is measured, not how a tool computes the same measure. Each is a `Parameter` (check,
default, documentation); the registry lists which metric takes which, and the metric
functions' docstrings read the text from here (``{p}`` placeholders, `_docs._fill_doc`).
Measure parameters have no command-line option of their own: names carry them.
"""

import numpy as np

from ..utils._validation import _is_bool
from ._declarations import Parameter


def _finite_real(name, value):
    if _is_bool(value) or not isinstance(value, (int, float, np.number)):
        raise ValueError(f"{name} must be a number; got {value!r}.")
    value = float(value)
    if not np.isfinite(value):
        raise ValueError(f"{name} must be a finite number; got {value!r}.")
    return value


def _positive(name, value):
    value = _finite_real(name, value)
    if value <= 0:
        raise ValueError(f"{name} must be a positive number; got {value!r}.")
    return value


def _persistence(name, value):
    value = _finite_real(name, value)
    if not 0 < value < 1:
        raise ValueError(f"{name} must be a number strictly between 0 and 1; got {value!r}.")
    return value


def _recall_level(name, value):
    value = _finite_real(name, value)
    if not 0 <= value <= 1:
        raise ValueError(f"{name} must be a recall level between 0 and 1; got {value!r}.")
    return value


def _top_grade(name, value):
    return None if value is None else _positive(name, value)


def _coefficients(name, value):
    """Four real numbers, as a sequence or as trec_eval writes them ("1,-1,0,0")."""
    given = value
    if isinstance(value, str):
        try:
            value = [float(part) for part in value.split(",")]
        except ValueError:
            raise ValueError(
                f"{name} must be four numbers such as '1,-1,0,0'; got {given!r}."
            ) from None
    if isinstance(value, (str, bytes)) or not hasattr(value, "__len__") or len(value) != 4:
        raise ValueError(f"{name} must be four numbers (p1, p2, p3, p4); got {given!r}.")
    return tuple(_finite_real(name, v) for v in value)


def _recall_levels(name, value):
    """Recall levels in [0, 1], as a sequence or as trec_eval writes them (".25,.5,.75")."""
    given = value
    if isinstance(value, str):
        try:
            value = [float(part) for part in value.split(",")]
        except ValueError:
            raise ValueError(
                f"{name} must be recall levels such as '.25,.5,.75'; got {given!r}."
            ) from None
    if isinstance(value, (bytes, dict)) or not hasattr(value, "__len__") or len(value) == 0:
        raise ValueError(f"{name} must be one or more recall levels in [0, 1]; got {given!r}.")
    return tuple(_recall_level(name, v) for v in value)


def _level_gains(name, value):
    """(grade, gain) pairs, from a mapping or as trec_eval writes them ("1=3,2=9,4=4.5");
    None: the grades themselves."""
    if value is None:
        return None
    given = value
    if isinstance(value, str):
        pairs = []
        for part in value.split(","):
            level, equals, gain = part.partition("=")
            try:
                pairs.append((int(level), float(gain)))
            except ValueError:
                raise ValueError(
                    f"{name} must be grade=gain pairs such as '1=3,2=9'; got {given!r}."
                ) from None
            if not equals:
                raise ValueError(
                    f"{name} must be grade=gain pairs such as '1=3,2=9'; got {given!r}."
                )
        value = dict(pairs)
    if not isinstance(value, dict):
        value = dict(value) if isinstance(value, (list, tuple)) else value
    if not isinstance(value, dict) or not value:
        raise ValueError(f"{name} must map grades to gains, such as {{1: 3, 2: 9}}; got {given!r}.")
    pairs = []
    for level, gain in sorted(value.items()):
        if _is_bool(level) or not isinstance(level, (int, np.integer)) or level < 1:
            raise ValueError(f"{name}: grades must be integers from 1; got {level!r} in {given!r}.")
        gain = _finite_real(name, gain)
        if gain < 0:
            raise ValueError(f"{name}: gains must be non-negative; got {gain!r} in {given!r}.")
        pairs.append((int(level), gain))
    return tuple(pairs)


def _rbp_gains(name, value):
    if value not in ("binary", "query_max"):
        raise ValueError(f"{name} must be 'binary' or 'query_max'; got {value!r}.")
    return value


_PERSISTENCE = Parameter(
    "p",
    _persistence,
    0.8,
    "Persistence: the probability that the user reads on from one rank to the next, in\n"
    "(0, 1). ir_measures' default 0.8 (trec_eval's ``rbp``: 0.9).",
    type_text="float",
)
_GAINS = Parameter(
    "gains",
    _rbp_gains,
    "binary",
    '"binary": 1 for a relevant item (``relevance_threshold``), as ir_measures. "query_max":\n'
    "the grade divided by the query's largest grade when that exceeds 1, as trec_eval\n"
    "10.0's ``rbp``.",
    type_text='{"binary", "query_max"}',
)
_RECALL = Parameter(
    "recall",
    _recall_level,
    0.0,
    "The recall level, in [0, 1].",
    type_text="float",
)
_X = Parameter(
    "x",
    _positive,
    1.0,
    "The multiple of R (positive): precision at rank (long)(x R + 0.9).",
    type_text="float",
)
_MAX_GRADE = Parameter(
    "max_grade",
    _top_grade,
    None,
    "Top of the grade scale (4 on a 0-4 scale, gdeval's and ir_measures' value): a grade g\n"
    "satisfies with probability (2**g - 1) / 2**max_grade. None uses the largest grade of\n"
    "the truth. A grade above it is refused.",
    type_text="float or None",
)


def _exponent(name, value):
    return None if value is None else _positive(name, value)


def _weight_cap(name, value):
    return None if value is None else _positive(name, value)


def _click_rate(name, value):
    value = _finite_real(name, value)
    if not 0 <= value <= 1:
        raise ValueError(f"{name} must be a probability in [0, 1]; got {value!r}.")
    return value


def _normalization(name, value):
    if value not in ("none", "per_query"):
        raise ValueError(f"{name} must be 'none' or 'per_query'; got {value!r}.")
    return value


# The click-log (IPS) estimators' parameters (docs/clicks.md).
_ETA = Parameter(
    "eta",
    _exponent,
    None,
    "Position-based model: the examination propensity of the item logged at position\n"
    "``pos`` (1-based, the ``position`` argument) is ``(1 / pos) ** eta``. None: the\n"
    "``propensity`` argument gives every row's propensity.",
    type_text="float or None",
)
_MAX_WEIGHT = Parameter(
    "max_weight",
    _weight_cap,
    None,
    "Clip every inverse-propensity weight at this value (``min(1 / propensity,\n"
    "max_weight)``): less variance, biased downwards. None: no clipping.",
    type_text="float or None",
)
_NORMALIZE = Parameter(
    "normalize",
    _normalization,
    "none",
    '"none": the inverse-propensity sum, unbiased. "per_query": divided by the query\'s\n'
    "estimated number of relevant items (the sum of its clicks' weights), Yang et al.'s\n"
    "self-normalised form: biased (upwards, strongly with few clicks per query). Queries\n"
    "without a click have no value then (``no_relevant``).",
    type_text='{"none", "per_query"}',
)
_EPS_PLUS = Parameter(
    "eps_plus",
    _click_rate,
    1.0,
    "Click noise: the probability that an examined relevant item is clicked. With\n"
    "``eps_plus`` < 1 or ``eps_minus`` > 0 the de-noised estimator sums\n"
    "``(click / propensity - eps_minus) / (eps_plus - eps_minus)`` over every displayed\n"
    "item (every candidate must then have a positive propensity).",
    type_text="float",
)
_EPS_MINUS = Parameter(
    "eps_minus",
    _click_rate,
    0.0,
    "Click noise: the probability that an examined non-relevant item is clicked (less\n"
    "than ``eps_plus``).",
    type_text="float",
)


def _ps_normalization(name, value):
    if value not in ("ratio_of_means", "mean_of_ratios", "none"):
        raise ValueError(
            f"{name} must be 'ratio_of_means', 'mean_of_ratios' or 'none'; got {value!r}."
        )
    return value


def _ideal_mean(name, value):
    return None if value is None else _positive(name, value)


# The propensity-scored metrics' parameters (PSP@k, PSnDCG@k; docs/clicks.md).
_PS_NORMALIZE = Parameter(
    "ps_normalize",
    _ps_normalization,
    "ratio_of_means",
    '"ratio_of_means" (pyxclib): the mean over instances of the value divided by the mean of\n'
    "the propensity-ideal ranking's value (each instance's relevant labels sorted by\n"
    'decreasing inverse propensity). "mean_of_ratios": the mean of each instance\'s ratio\n'
    '(instances without a relevant label get ``no_relevant``). "none": unnormalised.',
    type_text='{"ratio_of_means", "mean_of_ratios", "none"}',
)
_IDEAL_MEAN = Parameter(
    "ideal_mean",
    _ideal_mean,
    None,
    'With ``ps_normalize="ratio_of_means"``: the mean ideal value at this k that the values\n'
    "are divided by. None: the mean over every instance of the input, as pyxclib computes\n"
    "it; give the whole dataset's value to score it in batches.",
    type_text="float or None",
)
_LEVELS = Parameter(
    "levels",
    _recall_levels,
    (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0),
    "The recall levels averaged, each in [0, 1] (a sequence, or a text '.25,.5,.75' as\n"
    "trec_eval's ``11pt_avg..25,.5,.75``); default the 11 points 0, 0.1, ..., 1.",
    type_text="tuple of floats",
)
_LEVEL_GAINS = Parameter(
    "level_gains",
    _level_gains,
    None,
    "Gain of each grade: {grade: gain} (or a text '1=3,2=9,4=4.5', trec_eval's\n"
    "``ndcg.1=3,2=9,4=4.5``); a grade not listed keeps its grade as gain. Grades from 1,\n"
    "gains non-negative.",
    type_text="dict or str",
)
_BETA = Parameter(
    "beta",
    _positive,
    1.0,
    "Weight of recall (positive): (beta + 1) P R / (beta P + R), trec_eval's ``set_F.x``\n"
    "(its x plays the role of beta squared in van Rijsbergen's F; 1: F1).",
    type_text="float",
)
_COEFFICIENTS = Parameter(
    "coefficients",
    _coefficients,
    (1.0, -1.0, 0.0, 0.0),
    "Worth (p1, p2, p3, p4) of a relevant retrieved item, a non-relevant retrieved one, a\n"
    "relevant item not retrieved and a non-relevant one not retrieved (trec_eval's\n"
    "``utility.p1,p2,p3,p4``; the collection size is 0, as without trec_eval's -N).",
    type_text="tuple of 4 floats, or a text '1,-1,0,0'",
)

#: Every measure parameter by name; registry entries take theirs from here.
MEASURE_PARAMETERS = {
    p.name: p
    for p in (
        _PERSISTENCE,
        _GAINS,
        _RECALL,
        _X,
        _MAX_GRADE,
        _COEFFICIENTS,
        _BETA,
        _LEVELS,
        _LEVEL_GAINS,
        _ETA,
        _MAX_WEIGHT,
        _NORMALIZE,
        _EPS_PLUS,
        _EPS_MINUS,
        _PS_NORMALIZE,
        _IDEAL_MEAN,
    )
}
