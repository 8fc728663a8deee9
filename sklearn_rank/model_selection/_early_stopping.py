"""Early stopping inside a training fold: a validation split by query, given to LightGBM,
XGBoost or CatBoost the way each takes it.

`QueryGroupRanker` carves the validation queries out of the rows it is fitted on (a
training fold, inside model selection), so that nothing of a test fold is ever seen while
training or stopping. The libraries are imported here only when such an estimator is fitted.
"""

import inspect
from numbers import Integral, Real

import numpy as np
from sklearn.model_selection import GroupShuffleSplit

_LIBRARIES = ("lightgbm", "xgboost", "catboost")
# Fit parameters that the validation split sets: the user cannot also give them.
_EVAL_KEYS = {
    "lightgbm": ("eval_set", "eval_X", "eval_y", "eval_group", "eval_metric"),
    "xgboost": ("eval_set", "eval_qid", "eval_group"),
    "catboost": ("eval_set", "early_stopping_rounds"),
}


# Fit parameters that carry an eval set: rows fixed outside any fold, with no query
# structure QueryGroupRanker could give them.
_EVAL_SET_KEYS = ("eval_set", "eval_X", "eval_y", "eval_group", "eval_qid")


def _refuse_eval_sets(fit_params):
    """Refuse an eval set passed to ``QueryGroupRanker.fit`` without a validation split
    (with one, `_fit_with_validation` refuses it): the library would fail on its missing
    query structure ("eval_group cannot be None") or, given one, stop on the same rows in
    every fold, rows that are in some test fold too."""
    given = [key for key in _EVAL_SET_KEYS if key in fit_params]
    if given:
        raise ValueError(
            f"QueryGroupRanker.fit got {given[0]}=...: an eval set given to fit is the same "
            "in every fold of a search, rows of some test fold included, and has no query "
            "structure. Set validation_fraction (e.g. 0.2) instead: fit then holds out that "
            "share of the queries of the rows it is given as the eval set (with eval_metric "
            "and early_stopping_rounds)."
        )


def _library(estimator):
    """ "lightgbm", "xgboost" or "catboost" when the estimator (or a class it derives
    from) comes from that library, else None."""
    for cls in type(estimator).__mro__:
        root = (cls.__module__ or "").split(".")[0]
        if root in _LIBRARIES:
            return root
    return None


def _check_early_stopping(ranker):
    """Validate validation_fraction, eval_metric, early_stopping_rounds and the estimator's
    library; return the library (None without a validation split)."""
    fraction, rounds, metric = (
        ranker.validation_fraction,
        ranker.early_stopping_rounds,
        ranker.eval_metric,
    )
    if fraction is not None and not (
        isinstance(fraction, Real) and not isinstance(fraction, bool) and 0 < fraction < 1
    ):
        raise ValueError(
            "QueryGroupRanker: validation_fraction must be None or a number strictly between "
            f"0 and 1 (the share of each training fold's queries held out); got "
            f"validation_fraction={fraction!r}."
        )
    if rounds is not None and not (
        isinstance(rounds, Integral) and not isinstance(rounds, bool) and rounds > 0
    ):
        raise ValueError(
            "QueryGroupRanker: early_stopping_rounds must be None or a positive integer; got "
            f"early_stopping_rounds={rounds!r}."
        )
    if fraction is None:
        for name, value in (("early_stopping_rounds", rounds), ("eval_metric", metric)):
            if value is not None:
                raise ValueError(
                    f"QueryGroupRanker: {name}={value!r} needs a validation split: set "
                    "validation_fraction (e.g. 0.2) too."
                )
        return None
    library = _library(ranker.estimator)
    if library is None:
        raise ValueError(
            f"QueryGroupRanker: validation_fraction={fraction!r} needs a LightGBM, XGBoost or "
            f"CatBoost estimator (they take an eval set); got "
            f"{type(ranker.estimator).__name__}."
        )
    made_for = getattr(metric, "library", None)
    if made_for is not None and made_for != library:
        raise ValueError(
            f"QueryGroupRanker: eval_metric={metric!r} is made for {made_for}, but the "
            f"estimator is {type(ranker.estimator).__name__} ({library}); use "
            f"sklearn_rank.{library}_metric(...)."
        )
    if library == "catboost" and metric is not None and not isinstance(metric, str):
        raise ValueError(
            f"QueryGroupRanker: CatBoost takes its eval metric as a description string; got "
            f"eval_metric={metric!r}. Use sklearn_rank.catboost_metric(...), e.g. "
            "catboost_metric('ndcg@10', convention='catboost')."
        )
    return library


def _validation_rows(codes, fraction, random_state):
    """Training and validation rows (each ascending), whole queries on each side."""
    n_queries = int(codes.max()) + 1 if codes.size else 0
    if n_queries < 2:
        raise ValueError(
            f"QueryGroupRanker: validation_fraction needs at least 2 queries to split; got "
            f"{n_queries}."
        )
    splitter = GroupShuffleSplit(n_splits=1, test_size=fraction, random_state=random_state)
    train, valid = next(splitter.split(np.zeros((codes.size, 1)), groups=codes))
    if train.size == 0 or valid.size == 0:
        raise ValueError(
            f"QueryGroupRanker: validation_fraction={fraction!r} leaves no query on one side "
            f"of the split of {n_queries} queries."
        )
    return np.sort(train), np.sort(valid)


def _takes(function, name):
    try:
        return name in inspect.signature(function).parameters
    except (TypeError, ValueError):
        return False


def _fit_with_validation(
    estimator, library, train, valid, params, eval_metric, rounds, group_param
):
    """Fit ``estimator`` (a clone) on ``train`` with ``valid`` as its eval set.

    ``train`` and ``valid``: (X, y, query codes 0.. sorted, per-row sample weight or None).
    ``params``: the fit parameters for the training rows, query structure included.
    Returns the best iteration as a number of rounds (None when the library has none).
    """
    params = dict(params)
    clash = [key for key in _EVAL_KEYS[library] if key in params]
    if clash:
        raise ValueError(
            f"QueryGroupRanker.fit got {clash[0]}=... with validation_fraction set: the "
            "validation split is the eval set; pass eval_metric and early_stopping_rounds "
            "to QueryGroupRanker instead."
        )
    X_valid, y_valid, codes_valid, weight_valid = valid
    if library == "lightgbm":
        import lightgbm

        if _takes(estimator.fit, "eval_X"):  # eval_set is deprecated from LightGBM 4.6
            params.update(eval_X=(X_valid,), eval_y=(y_valid,))
        else:
            params["eval_set"] = [(X_valid, y_valid)]
        params["eval_group"] = [np.bincount(codes_valid)]
        if weight_valid is not None:
            params["eval_sample_weight"] = [weight_valid]
        if eval_metric is not None:
            params["eval_metric"] = eval_metric
            if callable(eval_metric):  # the only metric computed, and so the one watched
                estimator.set_params(metric="None")
        if rounds is not None:
            stop = lightgbm.early_stopping(rounds, first_metric_only=True, verbose=False)
            params["callbacks"] = list(params.get("callbacks") or []) + [stop]
        estimator.fit(train[0], train[1], **params)
        best = getattr(estimator, "best_iteration_", None)
        return int(best) if best else None
    if library == "xgboost":
        import xgboost

        updates = {}
        if eval_metric is not None:
            updates["eval_metric"] = eval_metric
            if callable(eval_metric):
                updates["disable_default_eval_metric"] = True
        if rounds is not None:
            if callable(eval_metric):
                # XGBoost guesses the direction from the name; the registry knows it.
                better = getattr(eval_metric, "greater_is_better", None)
                stop = xgboost.callback.EarlyStopping(
                    rounds=rounds,
                    metric_name=getattr(eval_metric, "__name__", None),
                    maximize=None if better is None else bool(better[0]),
                )
                updates["callbacks"] = list(estimator.get_params().get("callbacks") or []) + [stop]
            else:
                updates["early_stopping_rounds"] = rounds
        estimator.set_params(**updates)
        key = "qid" if group_param == "qid" else "group"
        valid_query = codes_valid if key == "qid" else np.bincount(codes_valid)
        params["eval_set"] = [(X_valid, y_valid)]
        params[f"eval_{key}"] = [valid_query]
        params.setdefault("verbose", False)
        estimator.fit(train[0], train[1], **params)
        best = getattr(estimator, "best_iteration", None)
        return None if best is None else int(best) + 1
    # CatBoost: the eval set is a Pool, which carries the group ids.
    import catboost

    cat_features = params.get("cat_features", estimator.get_params().get("cat_features"))
    params["eval_set"] = catboost.Pool(
        X_valid, y_valid, group_id=codes_valid, weight=weight_valid, cat_features=cat_features
    )
    if eval_metric is not None:
        estimator.set_params(eval_metric=eval_metric)
    if rounds is not None:
        params["early_stopping_rounds"] = rounds
    estimator.fit(train[0], train[1], **params)
    best = estimator.get_best_iteration()
    return None if best is None else int(best) + 1
