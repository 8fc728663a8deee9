"""The parameters of sampled-negative evaluation, declared once: `sample_negatives` draws
the negatives, `evaluate` estimates the catalogue's metric from them (docs/sampled.md).

They are not conventions (they say how the input was made and which estimate to report,
not how a tool computes a measure): `evaluate` and `sample_negatives` take them as
keywords, check them here and read their docstring text from here.
"""

from numbers import Integral, Real

import numpy as np

from ..utils._validation import _is_bool, _python_value
from ._declarations import Parameter, _Choice, _Flag


def _catalog_size(name, value):
    """None, a positive integer, or a 1-D array of positive integers (one per query)."""
    if value is None:
        return None
    if isinstance(value, Integral) and not _is_bool(value):
        if value < 1:
            raise ValueError(f"{name} must be a positive integer; got {value!r}.")
        return int(value)
    if isinstance(value, (str, bytes)) or _is_bool(value) or np.ndim(value) != 1:
        raise ValueError(
            f"{name} must be None, a positive integer or a 1-D array of them (one per "
            f"query); got {_python_value(value)!r}."
        )
    sizes = np.asarray(value)
    if sizes.dtype.kind not in "iu" or (sizes < 1).any():
        raise ValueError(
            f"{name} must hold positive integers (one per query); got dtype {sizes.dtype} "
            f"with values from {_python_value(sizes.min())!r}."
        )
    return sizes.astype(np.int64)


def _gamma(name, value):
    if _is_bool(value) or not isinstance(value, Real) or not 0 <= value <= 1:
        raise ValueError(f"{name} must be a number from 0 to 1; got {_python_value(value)!r}.")
    return float(value)


def _n_negatives(name, value):
    if _is_bool(value) or not isinstance(value, Integral) or value < 1:
        raise ValueError(f"{name} must be a positive integer; got {_python_value(value)!r}.")
    return int(value)


CATALOG_SIZE = Parameter(
    "catalog_size",
    _catalog_size,
    None,
    "Number of items each user's list was sampled from: the user's positives and every\n"
    "negative that could have been drawn (the catalogue minus the items left out, such as\n"
    "the user's training items); one number or one per query (in query order, as\n"
    "``per_query`` gives them). Given, the input is read as each user's positives among\n"
    "sampled negatives: the metrics are estimated for the whole catalogue as ``correction``\n"
    "says, or reported as sampled, with a warning, when ``correction`` is None.",
    type_text="int, array-like of shape (n_queries,) or None",
)
CORRECTION = Parameter(
    "correction",
    _Choice(("rank_estimate", "bv", "posterior_mean", "em"), optional=True),
    None,
    'How the catalogue\'s metric is estimated from the sampled lists. "rank_estimate": the\n'
    "metric at the estimated exact rank ``1 + N x / m`` (N negatives in the catalogue, x of\n"
    'the m sampled above the positive); "bv": the bias/variance correction with weight\n'
    "``gamma`` (Krichene & Rendle, 2020) under a uniform prior over the exact rank;\n"
    '"posterior_mean": the expected metric given the sampled rank (``gamma=1``); "em": the\n'
    "posterior mean under the distribution of exact ranks that the sampled ranks of the\n"
    "whole input make most likely (EM, 100 steps from uniform). None: the sampled metric,\n"
    "with a warning. Corrections take hit_rate, recall, precision, ndcg, mrr, map and auc on\n"
    "binary relevance; see docs/sampled.md for when each is unbiased.",
)
GAMMA = Parameter(
    "gamma",
    _gamma,
    0.1,
    'Weight of the variance against the squared bias in ``correction="bv"``: 0 the\n'
    "least-squares minimal-bias correction, 1 the posterior mean; 0.1 ordered pairs of\n"
    "recommenders best in Krichene & Rendle's experiments (as a secondary account reports).",
    type_text="float",
)
REPLACEMENT = Parameter(
    "replacement",
    _Flag(),
    False,
    "Whether the negatives are (were) drawn with replacement (a negative may be drawn twice)\n"
    "or are distinct; the corrections' model of the sampled rank depends on it.",
)
RANK_ESTIMATE_ROUNDING = Parameter(
    "rank_estimate_rounding",
    _Choice(("floor", "none")),
    "floor",
    'With ``correction="rank_estimate"``: round the estimated rank down ("floor", as a\n'
    'secondary account of Krichene & Rendle writes it; provisional) or not ("none").',
)
N_NEGATIVES = Parameter(
    "n_negatives",
    _n_negatives,
    None,
    "Number of negatives drawn for each user (m).",
    type_text="int",
)

#: The parameters `evaluate` takes for sampled input, in its signature's order.
EVALUATE_SAMPLING = {
    p.name: p for p in (CATALOG_SIZE, CORRECTION, GAMMA, REPLACEMENT, RANK_ESTIMATE_ROUNDING)
}
