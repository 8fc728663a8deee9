"""How often each catalog item is recommended, and how often it was trained on: the data
of the popularity-bias Displays (`plot._exposure`), read through the plan as the
beyond-accuracy metrics read it (the same lists, the same catalog, the same training
counts), so that a plot and `evaluate`'s ``gini@k`` describe one distribution.
"""

from typing import NamedTuple

import numpy as np

from ._beyond import _Block, _popularity, gini_value
from ._plan import _Plan


class _Exposure(NamedTuple):
    """recommended : (n_items,) int64, top-k slots each catalog item holds over every list.
    trained : (n_items,) float64 training interactions of each item, or None (no train).
    Both in catalog order.
    gini : ``gini@k`` of these lists (its default definition: the catalog's items, the
    never-recommended ones as zeros)."""

    recommended: np.ndarray
    trained: np.ndarray | None
    gini: float


def _exposure(y_true, y_score, k, *, groups=None, exclude=None, train=None, catalog=None):
    """`_Exposure` of one system's top-``k`` lists (every input form `evaluate` takes)."""
    plan = _Plan.from_names([f"coverage@{k}"], {})
    prepared = plan.prepare(
        y_true,
        y_score,
        groups=groups,
        exclude=exclude,
        side_inputs={"train": train, "item_features": None, "catalog": catalog},
    )
    side = prepared.side
    _query, items, _lengths = side.lists.cut(k)
    recommended = np.bincount(items, minlength=side.n_items)
    popularity = _popularity(side.training, side.n_items)
    trained = None if popularity is None else popularity.interactions
    whole = _Block(None, side.n_items, popularity, None)
    with np.errstate(invalid="ignore", divide="ignore"):
        gini = gini_value({"exposure": recommended}, whole)
    return _Exposure(recommended, trained, float(gini))
