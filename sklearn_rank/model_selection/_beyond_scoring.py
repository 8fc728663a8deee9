"""Beyond-accuracy metrics (coverage, novelty, popularity...) in scorers and grouped
model selection.

A beyond-accuracy scorer reads which items each query (user) was recommended, so it needs
each row's item id: the metadata ``item_ids``, requested by these scorers and sliced with
each fold by scikit-learn as ``groups`` is. The measures that read popularity need the
training interactions, and in a cross-validation those of the *training fold*, never the
test fold's: `grouped_cross_validate` and the grouped searches hand each scorer every
split's training rows (`_FoldTraining`); a scorer finds its split by the query ids of the
rows it scores, and reads as interactions the training rows of relevance > 0. The catalog
is every item id of the whole data. A scorer made with ``train=`` (and ``catalog=``) uses
those fixed inputs instead, outside the grouped helpers; without a catalog from either, it
is the distinct item ids of the rows scored.
"""

import contextlib
import copy

import numpy as np

from ..conventions._declarations import resolve
from ..inputs import ItemJudgments, ItemRanking
from ..metrics._beyond_registry import BEYOND_METRICS
from ..metrics._plan import _Plan
from ..metrics._registry import METRICS
from ..utils._ids import _factorize
from ._per_query import _query_set_key

# What a beyond-accuracy scorer may be given once, outside the grouped helpers.
_SIDE_INPUTS = ("train", "item_features", "catalog")


def _entry(name):
    """The registry entry of a metric name: a ranking metric or a beyond-accuracy one."""
    return METRICS[name] if name in METRICS else BEYOND_METRICS[name]


def _scorer_conventions(conventions):
    """A scorer's conventions resolved, its framework preset (beyond-accuracy) first."""
    explicit = {key: value for key, value in conventions.items() if key != "convention"}
    return resolve(conventions.get("convention"), explicit)


def _is_beyond(entry):
    """Whether a registry entry reads recommended items (a beyond-accuracy measure)."""
    return getattr(entry, "level", "query") != "query"


class _FoldTraining:
    """Every split's training rows, for the scorers of one grouped call.

    groups, item_ids, y : (n_rows,) the whole data's query ids, item ids and relevance.
    train_rows : test-set key (`_per_query._query_set_key`) -> the split's training rows.
    """

    def __init__(self, groups, item_ids, y, folds, test_keys):
        self.groups = np.asarray(groups)
        self.item_ids = np.asarray(item_ids)
        self.y = np.asarray(y)
        if self.item_ids.shape != self.groups.shape:
            raise ValueError(
                f"item_ids must hold one item id per row ({self.groups.shape[0]}); got shape "
                f"{self.item_ids.shape}."
            )
        self.train_rows = {key: np.asarray(train) for key, (train, _test) in zip(test_keys, folds)}
        self.catalog = np.unique(self.item_ids)

    def side_inputs(self, groups):
        """``train`` and ``catalog`` for the test set whose rows have query ids ``groups``."""
        groups = np.asarray(groups)
        key = _query_set_key(_factorize(groups, groups.shape[0])[1], groups.shape[0])
        rows = self.train_rows.get(key)
        if rows is None:
            # Not a test set of the splits (the refit's score on new rows, a training
            # score): no training fold to read.
            return {"catalog": self.catalog}
        if rows.dtype == bool:
            rows = np.flatnonzero(rows)
        rows = rows[self.y[rows] > 0]
        return {"train": (self.groups[rows], self.item_ids[rows]), "catalog": self.catalog}


@contextlib.contextmanager
def _with_fold_training(scoring, groups, item_ids, y, folds, test_keys):
    """Copies of the beyond-accuracy scorers of ``scoring`` that know every split's
    training rows; ``scoring`` as it is when none reads items or no ``item_ids`` given."""
    if item_ids is None or not _reads_items(scoring):
        yield scoring
        return
    training = _FoldTraining(groups, item_ids, y, folds, test_keys)

    def knowing(scorer):
        if not hasattr(scorer, "_training"):
            return scorer
        scorer = copy.copy(scorer)
        scorer._training = training
        return scorer

    if isinstance(scoring, dict):
        yield {key: knowing(scorer) for key, scorer in scoring.items()}
    else:
        yield knowing(scoring)


def _reads_items(scoring):
    scorers = scoring.values() if isinstance(scoring, dict) else [scoring]
    found = []
    for scorer in scorers:
        found += list(getattr(scorer, "scorers", {"": scorer}).values())
    return any(getattr(s, "reads_items", False) for s in found)


def _beyond_scores(members, conventions, y_true, y_pred, groups, item_ids, training, fixed):
    """label -> greater-is-better score of beyond-accuracy scorers on one fold's rows.

    members : list of (label, RankingScorer) sharing ``conventions``.
    training : `_FoldTraining` or None; fixed : the scorers' own ``train``/``catalog``.
    """
    from ..metrics._names import _Request

    if item_ids is None:
        raise ValueError(
            f"{', '.join(label for label, _ in members)}: a beyond-accuracy scorer reads which "
            "items each query was recommended: pass each row's item id as item_ids "
            "(grouped_cross_validate(..., params={'item_ids': ids}), search.fit(X, y, "
            "groups=query_ids, item_ids=ids)), routed to the scorer as groups is."
        )
    item_ids = np.asarray(item_ids)
    side = dict(fixed or {})
    if training is not None and "train" not in side:
        side = {**training.side_inputs(groups), **side}
    if side.get("catalog") is None and side.get("item_features") is None:
        side["catalog"] = np.unique(item_ids)  # no other: the items of the rows scored
    plan = _Plan(
        tuple(
            _Request(label, _entry(scorer.metric), scorer.k, scorer.params, scorer.overrides)
            for label, scorer in members
        ),
        conventions,
    )
    truth = ItemJudgments(groups, item_ids, y_true)
    ranking = ItemRanking(groups, item_ids, y_pred)
    side_inputs = {key: side.get(key) for key in ("train", "item_features", "catalog")}
    try:
        computed = plan.evaluate(truth, ranking, side_inputs=side_inputs)
    except ValueError as error:
        if side.get("train") is not None or "pass train=" not in str(error):
            raise
        raise ValueError(
            f"{error} A scorer reads the training fold's interactions in "
            "grouped_cross_validate and the grouped searches given item_ids; elsewhere "
            "make it with make_ranking_scorer(name, train=...)."
        ) from None
    return {label: scorer.sign * computed[label] for label, scorer in members}
