"""Side inputs: arrays that some metrics read beside ``y_true`` and ``y_score``, one value
per row (long format) or per cell (matrices), declared once.

The click-log estimators (docs/clicks.md) read the examination propensity of each logged
row, or its logged position under the position-based model. A side input is checked here
(its values), shaped like ``y_true`` by `inputs._prepared` (its shape), carried with the
normalised queries, and routed to a scorer like ``groups`` (scikit-learn's metadata).
"""

import numpy as np

from ..utils._validation import _as_float_array, _check_finite
from ._declarations import Parameter


def _propensities(name, value):
    if value is None:
        return None
    array = _as_float_array(name, value).astype(np.float64, copy=False)
    _check_finite(name, array)
    if array.size and (array.min() < 0 or array.max() > 1):
        bad = array[(array < 0) | (array > 1)][0]
        raise ValueError(
            f"{name} must hold examination probabilities in [0, 1] (0: never displayed); "
            f"got {float(bad)!r}."
        )
    return array


def _positions(name, value):
    if value is None:
        return None
    array = _as_float_array(name, value).astype(np.float64, copy=False)
    _check_finite(name, array)
    if array.size and ((array < 1).any() or (array != np.round(array)).any()):
        bad = array[(array < 1) | (array != np.round(array))][0]
        raise ValueError(
            f"{name} must hold logged positions, whole numbers from 1 (the top); got "
            f"{float(bad)!r}."
        )
    return array


PROPENSITY = Parameter(
    "propensity",
    _propensities,
    None,
    "The probability that a relevant item is observed, in [0, 1], shaped like ``y_true``\n"
    "(one per row in long format, one per cell for matrices) or, for matrices, one per\n"
    "column (item). Click-log estimators: the probability that each logged row was\n"
    "examined under the logging ranker (0: never displayed; a click there is refused).\n"
    "PSP@k, PSnDCG@k: each label's propensity (`jain_propensity` gives Jain et al.'s).\n"
    "Routed to a scorer as metadata, as ``groups`` is.",
    type_text="array-like of y_true's shape, or (n_items,)",
)
POSITION = Parameter(
    "position",
    _positions,
    None,
    "Click-log estimators with ``eta``: the 1-based position at which the logging ranker\n"
    "displayed each row, shaped like ``y_true``. Routed to a scorer as metadata.",
    type_text="array-like of y_true's shape",
)

#: Every side input by name.
SIDE_INPUTS = {p.name: p for p in (PROPENSITY, POSITION)}
