"""What ``scoring=`` names: sklearn_rank's scorer names resolved into scorers, and
scikit-learn's own names (which score a fold's rows at once) told apart from them."""

import warnings

import sklearn.metrics

from ..metrics._names import _parse_requests
from ..metrics._registry import METRICS
from ._scorer import get_scorer, get_scorer_names


def _is_ranking_name(name):
    """Our names, except scikit-learn's own scorer names ('precision', 'recall', 'f1')."""
    base = name[len("neg_") :] if name.startswith("neg_") else name
    if "@" not in base and name in sklearn.metrics.get_scorer_names():
        return False
    try:
        _parse_requests(base)
    except ValueError as exc:  # a known name written wrongly gets our message
        known_base = base.split("@")[0].split("(")[0].strip() in METRICS
        return known_base or not str(exc).startswith("Unknown metric name")
    return True


def _ranking_twin(name):
    """The ranking scorer name to use for one of scikit-learn's scorer names that score a
    fold's rows at once (``"f1"``, ``"precision_macro"``, ``"average_precision"``), or
    None for any other name."""
    if name in ("average_precision", "roc_auc"):
        return {"average_precision": "map", "roc_auc": "auc"}[name]
    for base in ("precision", "recall", "f1"):
        if name == base or name in (f"{base}_{how}" for how in _AVERAGES):
            return f"{base}@10"
    return None


_AVERAGES = ("macro", "micro", "samples", "weighted")


def _warn_rows_at_once(scoring, stacklevel):
    """Warn for each of scikit-learn's scorer names in ``scoring`` that a ranking metric
    of sklearn_rank shadows: in a grouped search they silently scored the fold's rows as
    one set of predictions, never each query."""
    if isinstance(scoring, str):
        names = [scoring]
    elif isinstance(scoring, dict):
        names = list(scoring.values())
    elif isinstance(scoring, (list, tuple, set)):
        names = list(scoring)
    else:
        names = []
    for name in names:
        twin = _ranking_twin(name) if isinstance(name, str) else None
        if twin is None:
            continue
        warnings.warn(
            f"scoring={name!r} is scikit-learn's scorer of all the rows of a fold at once, "
            "as one set of predictions, not a ranking metric computed per query. Use "
            f"{twin!r} for the ranking metric of each query"
            f"{' (any cut-off @K)' if '@' in twin else ''}, or pass "
            f"sklearn.metrics.get_scorer({name!r}) to keep scikit-learn's. The name "
            f"{name!r} in the grouped searches and grouped_cross_validate is deprecated in "
            "0.2 and will raise a ValueError in 0.4.",
            FutureWarning,
            stacklevel=stacklevel + 1,
        )


def _resolve_scoring(scoring, stacklevel=None):
    """Turn sklearn_rank scorer names (in a str, list or dict) into RankingScorers.

    Other strings (scikit-learn's own scorer names) and callables are left as they are.
    ``stacklevel``: warn, at that level above this function, about scikit-learn's names
    that score a fold's rows at once where a ranking metric of the same name exists.
    """
    if stacklevel is not None:
        _warn_rows_at_once(scoring, stacklevel + 1)

    def one(value):
        if isinstance(value, str) and _is_ranking_name(value):
            return get_scorer(value)
        if isinstance(value, str) and value not in sklearn.metrics.get_scorer_names():
            # scikit-learn's own message would list only its names, never ours.
            raise ValueError(
                f"Unknown scoring name {value!r}: neither a sklearn_rank scorer "
                f"({', '.join(get_scorer_names())}; K a positive integer) nor a "
                "scikit-learn scorer (sklearn.metrics.get_scorer_names())."
            )
        return value

    if isinstance(scoring, dict):
        return {key: one(value) for key, value in scoring.items()}
    if isinstance(scoring, (list, tuple, set)):
        return {name: one(name) for name in scoring}
    return one(scoring)
