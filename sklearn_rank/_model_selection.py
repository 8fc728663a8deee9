"""Grouped cross-validation and searches: query ids reach the splitter, scorers and model.

scikit-learn passes ``groups`` to scorers and estimators only when metadata routing is
enabled, which it is not by default. These helpers take the query ids as an argument,
enable routing for their own call only (`sklearn.config_context`), split with a
group-aware splitter (GroupKFold by default), and check every fold: a query split between
train and test is an error, whatever splitter was given.
"""

from contextlib import contextmanager

import numpy as np
import sklearn
from sklearn import model_selection
from sklearn.model_selection import GroupKFold

from ._inputs import _factorize
from ._scorer import _resolve_scoring


def _routing():
    """Metadata routing on for one call only; the global configuration is untouched."""
    return sklearn.config_context(enable_metadata_routing=True)


def _checked_splits(cv, X, y, groups):
    """Materialise the folds of ``cv`` and refuse any that splits a query."""
    codes, ids = _factorize(groups, groups.shape[0])  # also refuses NaN, unhashable ids
    if cv is None:
        cv = GroupKFold(n_splits=5)
    elif isinstance(cv, bool):
        raise ValueError(f"cv must be None, an int, a splitter or a list of folds; got {cv!r}.")
    elif isinstance(cv, int):
        cv = GroupKFold(n_splits=cv)
    if hasattr(cv, "split"):
        folds = list(cv.split(X, y, groups))
    else:
        folds = list(cv)
    if not folds:
        raise ValueError(f"cv={cv!r} produced no folds.")
    for number, (train, test) in enumerate(folds):
        shared = np.intersect1d(codes[np.asarray(train)], codes[np.asarray(test)])
        if shared.size:
            raise ValueError(
                f"cv={cv!r} put rows of query {ids[shared[0]]!r} in both the training and "
                f"the test set of fold {number}: it ignores groups. Use a group-aware "
                "splitter such as GroupKFold, GroupShuffleSplit, StratifiedGroupKFold or "
                "LeaveOneGroupOut (or an int for GroupKFold)."
            )
    return folds


def _check_groups(groups, X):
    groups = np.asarray(groups)
    n_rows = len(X)
    if groups.ndim != 1 or groups.shape[0] != n_rows:
        raise ValueError(
            f"groups must hold one query id per row of X ({n_rows} rows); got shape "
            f"{groups.shape}."
        )
    return groups


def grouped_cross_validate(estimator, X, y, *, groups, scoring, cv=None, n_jobs=None,
                           params=None, return_train_score=False, return_estimator=False,
                           error_score=np.nan, verbose=0):
    """Cross-validate a model by ranking metrics computed per query, never splitting a query.

    Like `sklearn.model_selection.cross_validate`, with the query id of every row given
    as ``groups``: the splitter, the scorers and estimators that request ``groups`` (such
    as `QueryGroupRanker`) all receive them, with metadata routing enabled for this call
    only.

    Parameters
    ----------
    estimator : estimator object
        The model to fit and score; its ``predict`` gives the ranking scores.
    X : array-like of shape (n_rows, n_features)
        Features, one row per (query, item) pair, in any order.
    y : array-like of shape (n_rows,)
        Relevance of each row.
    groups : array-like of shape (n_rows,)
        Query id of each row.
    scoring : str, callable, list or dict
        sklearn_rank scorer names (``"ndcg@10"``, see `get_scorer_names`), scorers from
        `make_ranking_scorer`, scikit-learn scorer names, or a list or dict of them.
    cv : int, cross-validation generator or iterable, default=None
        None means ``GroupKFold(5)``, an int ``GroupKFold(cv)``. Any splitter or list of
        (train, test) folds is accepted, but a fold that puts rows of one query on both
        sides raises a ValueError.
    n_jobs : int, default=None
        Parallel jobs, as in scikit-learn.
    params : dict, default=None
        Other metadata for the estimator and scorers (routed; e.g. ``sample_weight``).
    return_train_score, return_estimator, error_score, verbose
        As in `sklearn.model_selection.cross_validate`.

    Returns
    -------
    scores : dict
        As returned by `sklearn.model_selection.cross_validate`: ``test_score`` (or
        ``test_<name>`` per scorer), ``fit_time``, ``score_time``...

    See Also
    --------
    GroupedGridSearchCV, make_ranking_scorer

    References
    ----------
    .. [1] scikit-learn user guide, "Cross-validation iterators for grouped data" and
       "Metadata Routing".

    Examples
    --------
    >>> from sklearn.linear_model import Ridge
    >>> from sklearn_rank import grouped_cross_validate
    >>> from sklearn_rank.datasets import make_ranking
    >>> X, y, groups = make_ranking(n_queries=30, random_state=0)
    >>> result = grouped_cross_validate(Ridge(), X, y, groups=groups,
    ...                                 scoring=["ndcg@10", "map"], cv=3)
    >>> sorted(key for key in result if key.startswith("test_"))
    ['test_map', 'test_ndcg@10']
    >>> len(result["test_ndcg@10"])
    3
    """
    groups = _check_groups(groups, X)
    folds = _checked_splits(cv, X, y, groups)
    with _routing():
        return model_selection.cross_validate(
            estimator, X, y, scoring=_resolve_scoring(scoring), cv=folds, n_jobs=n_jobs,
            params={**(params or {}), "groups": groups},
            return_train_score=return_train_score, return_estimator=return_estimator,
            error_score=error_score, verbose=verbose,
        )


class _GroupedSearch:
    """fit/score with query ids: routing enabled for the call, folds checked per query."""

    @contextmanager
    def _ranking_parameters(self, folds=None):
        """Resolve sklearn_rank scorer names (and set checked folds) for one call.

        scikit-learn reads ``scoring`` and ``cv`` from the parameters; both are restored
        afterwards so that get_params, clone and repr are unchanged by the call.
        """
        cv, scoring = self.cv, self.scoring
        try:
            self.scoring = _resolve_scoring(scoring)
            if folds is not None:
                self.cv = folds
            yield
        finally:
            self.cv, self.scoring = cv, scoring

    def fit(self, X, y=None, *, groups, **params):
        """Run the search over folds that keep every query whole.

        Parameters
        ----------
        X : array-like of shape (n_rows, n_features)
        y : array-like of shape (n_rows,)
        groups : array-like of shape (n_rows,)
            Query id of every row: used by the splitter, the scorers and estimators that
            request them (`QueryGroupRanker`), including the refit on all rows.
        **params : dict
            Other metadata, routed as scikit-learn does.

        Returns
        -------
        self : object
        """
        groups = _check_groups(groups, X)
        folds = _checked_splits(self.cv, X, y, groups)
        with self._ranking_parameters(folds), _routing():
            super().fit(X, y, groups=groups, **params)
        return self

    def score(self, X, y=None, *, groups, **params):
        """Score the refitted best estimator on new rows by its scorer, per query.

        Parameters
        ----------
        X : array-like of shape (n_rows, n_features)
        y : array-like of shape (n_rows,)
        groups : array-like of shape (n_rows,)
            Query id of every row.

        Returns
        -------
        score : float
        """
        groups = _check_groups(groups, X)
        _factorize(groups, len(groups))  # refuses NaN and unhashable ids
        with self._ranking_parameters(), _routing():
            return super().score(X, y, groups=groups, **params)

    def get_metadata_routing(self):
        """The search's metadata routing, with sklearn_rank scorer names resolved.

        Returns
        -------
        routing : sklearn.utils.metadata_routing.MetadataRouter
        """
        with self._ranking_parameters():
            return super().get_metadata_routing()


class GroupedGridSearchCV(_GroupedSearch, model_selection.GridSearchCV):
    """`sklearn.model_selection.GridSearchCV` over query groups.

    The same parameters and attributes as scikit-learn's, with three differences:
    ``fit(X, y, groups=query_ids)`` and ``score(X, y, groups=query_ids)`` take the query
    ids and route them (metadata routing is enabled for that call only, the global
    configuration is untouched); ``cv=None`` means ``GroupKFold(5)`` and an int means
    GroupKFold; and every fold is checked: a query split between train and test raises
    a ValueError. ``scoring`` accepts sklearn_rank scorer names (``"ndcg@10"``) alone, in
    a list, or in a dict with ``refit`` naming one of them.

    Parameters
    ----------
    estimator, param_grid, scoring, n_jobs, refit, cv, verbose, pre_dispatch, \
error_score, return_train_score
        As in `sklearn.model_selection.GridSearchCV`.

    See Also
    --------
    GroupedRandomizedSearchCV, grouped_cross_validate, QueryGroupRanker

    References
    ----------
    .. [1] scikit-learn user guide, "Tuning the hyper-parameters of an estimator".

    Examples
    --------
    >>> from sklearn.linear_model import Ridge
    >>> from sklearn_rank import GroupedGridSearchCV
    >>> from sklearn_rank.datasets import make_ranking
    >>> X, y, groups = make_ranking(n_queries=30, random_state=0)
    >>> search = GroupedGridSearchCV(Ridge(), {"alpha": [0.1, 100.0]},
    ...                              scoring="ndcg@10", cv=3)
    >>> search.fit(X, y, groups=groups).best_params_
    {'alpha': 0.1}
    """


class GroupedRandomizedSearchCV(_GroupedSearch, model_selection.RandomizedSearchCV):
    """`sklearn.model_selection.RandomizedSearchCV` over query groups.

    As `GroupedGridSearchCV`, with scikit-learn's RandomizedSearchCV parameters.

    Parameters
    ----------
    estimator, param_distributions, n_iter, scoring, n_jobs, refit, cv, verbose, \
pre_dispatch, random_state, error_score, return_train_score
        As in `sklearn.model_selection.RandomizedSearchCV`.

    See Also
    --------
    GroupedGridSearchCV

    References
    ----------
    .. [1] J. Bergstra and Y. Bengio, "Random Search for Hyper-Parameter Optimization",
       JMLR 13, 2012.

    Examples
    --------
    >>> from scipy.stats import loguniform
    >>> from sklearn.linear_model import Ridge
    >>> from sklearn_rank import GroupedRandomizedSearchCV
    >>> from sklearn_rank.datasets import make_ranking
    >>> X, y, groups = make_ranking(n_queries=30, random_state=0)
    >>> search = GroupedRandomizedSearchCV(Ridge(), {"alpha": loguniform(1e-2, 1e2)},
    ...                                    n_iter=3, scoring="map@10", cv=3, random_state=0)
    >>> len(search.fit(X, y, groups=groups).cv_results_["params"])
    3
    """
