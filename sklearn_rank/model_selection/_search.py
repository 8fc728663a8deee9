"""Grouped cross-validation and searches: query ids reach the splitter, scorers and model.

scikit-learn passes ``groups`` to scorers and estimators only when metadata routing is
enabled, which it is not by default. These helpers take the query ids as an argument,
enable routing for their own call only (`sklearn.config_context`), split with a
group-aware splitter (GroupKFold by default), and check every fold: a query split between
train and test is an error, whatever splitter was given.
"""

import numpy as np
import sklearn
from sklearn import model_selection
from sklearn.metrics import check_scoring
from sklearn.utils.metadata_routing import MetadataRouter, MethodMapping

from ..utils._ids import _factorize
from ._beyond_scoring import _with_fold_training
from ._folds import _check_groups, _check_row_weights, _checked_splits
from ._multimetric import MultimetricRankingScorer, _requests
from ._per_query import (
    _out_of_fold,
    _query_weights,
    _recorded_labels,
    _recording,
    _stored_scores,
    _test_keys,
)
from ._ranker import QueryGroupRanker, _fit_parameters
from ._scorer import RankingScorer, _resolve_scoring


def _routing():
    """Metadata routing on for one call only; the global configuration is untouched."""
    return sklearn.config_context(enable_metadata_routing=True)


def _refuse_bare_ranker(estimator, where):
    """A ranker whose fit needs the query structure (LightGBM's ``group``, XGBoost's
    ``qid``) cannot get it per fold from a search: say so before the first fit, and name
    the wrapper that derives it from each fold's ``groups``."""
    steps = getattr(estimator, "steps", None)  # a Pipeline: its final step fits on the rows
    final = steps[-1][1] if isinstance(steps, list) and steps else estimator
    if isinstance(final, QueryGroupRanker) or not hasattr(final, "fit"):
        return
    needed = [key for key in ("qid", "group") if key in _fit_parameters(final)]
    if needed:
        name = type(final).__name__
        raise ValueError(
            f"{where}: {name}.fit needs the query structure ({' or '.join(needed)}), which "
            "a search cannot pass per fold: the rows of a training fold are not the "
            f"contiguous queries that {needed[0]} describes. Wrap the ranker: "
            f"QueryGroupRanker({name}(...)) derives {needed[0]} from each fold's groups (its "
            "parameters are then estimator__<name> in param_grid)."
        )


def _one_prediction(scoring, error_score):
    """Several ranking scorers as one `MultimetricRankingScorer`: one prediction and one
    ranking per fold instead of one per scorer, each value unchanged.

    Only a dict made of sklearn_rank scorers that request the same metadata is combined;
    with scikit-learn's scorers among them (``["f1", "ndcg@10"]``), scikit-learn calls
    each scorer, as before.
    """
    if not isinstance(scoring, dict) or len(scoring) < 2:
        return scoring
    scorers = list(scoring.values())
    if not all(isinstance(scorer, RankingScorer) for scorer in scorers):
        return scoring
    if len({_requests(scorer) for scorer in scorers}) > 1:
        return scoring
    return MultimetricRankingScorer(scoring, error_score=error_score)


def _consumes_groups(router, method):
    """Whether anything under ``router`` takes ``groups`` in ``method``.

    scikit-learn refuses metadata that nothing consumes; with only scikit-learn scorers
    (``scoring="r2"``) and a plain estimator, the query ids serve the splitter alone.
    """
    return "groups" in router.consumes(method, ["groups"])


def grouped_cross_validate(
    estimator,
    X,
    y,
    *,
    groups,
    scoring,
    cv=None,
    n_jobs=None,
    params=None,
    return_train_score=False,
    return_estimator=False,
    error_score=np.nan,
    verbose=0,
    return_per_query=False,
):
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
        Query id of each row: numbers or strings, not NaN or None; 1 and "1" are
        different queries.
    scoring : str, callable, list or dict
        sklearn_rank scorer names (``"ndcg@10"``, see `get_scorer_names`), scorers from
        `make_ranking_scorer`, scikit-learn scorer names, or a list or dict of them. A list
        or dict of sklearn_rank scorers only is scored by one `MultimetricRankingScorer`:
        one prediction per fold, not one per scorer, with the same values.
    cv : int, cross-validation generator or iterable, default=None
        None means ``GroupKFold(5)``, an int (at least 2) ``GroupKFold(cv)``. Any splitter
        or list of (train, test) folds (row indices or boolean masks) is accepted, but a
        fold that puts rows of one query on both sides, or has an empty side or an index
        outside the rows, raises a ValueError.
    n_jobs : int, default=None
        Parallel jobs, as in scikit-learn.
    params : dict, default=None
        Other metadata for the estimator and scorers (routed; e.g. ``sample_weight``,
        which must have one entry per row: a query's weight repeated on its rows).
    return_train_score, return_estimator, error_score, verbose
        As in `sklearn.model_selection.cross_validate`.
    return_per_query : bool, default=False
        Also return the out-of-fold value of every query for each ranking scorer: each
        query is scored in the test fold that holds it; a query in several test folds
        (repeated splitters) gets the mean of its values.

    Returns
    -------
    scores : dict
        As returned by `sklearn.model_selection.cross_validate`: ``test_score`` (or
        ``test_<name>`` per scorer), ``fit_time``, ``score_time``... With
        ``return_per_query=True`` also ``"per_query"``: a dict with ``"query"`` (the
        query ids, in order of first appearance in ``groups``) and, for each ranking
        scorer (by its key, or its name when ``scoring`` is one scorer), an ndarray of
        shape (n_queries,). Remove it before ``pandas.DataFrame(scores)``: it is not one
        value per split.

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
    groups = _check_groups(
        groups, X, "grouped_cross_validate(estimator, X, y, groups=query_ids, scoring=...)"
    )
    _refuse_bare_ranker(estimator, "grouped_cross_validate")
    folds = _checked_splits(cv, X, y, groups)
    scoring = _one_prediction(_resolve_scoring(scoring, stacklevel=2), error_score)
    params = dict(params or {})
    _check_row_weights(params, groups.shape[0])
    with _routing():
        router = (
            MetadataRouter(owner="grouped_cross_validate")
            .add(
                estimator=estimator, method_mapping=MethodMapping().add(caller="fit", callee="fit")
            )
            .add(
                scorer=check_scoring(estimator, scoring=scoring),
                method_mapping=MethodMapping().add(caller="fit", callee="score"),
            )
        )
        if _consumes_groups(router, "fit"):
            params["groups"] = groups
        test_keys = _test_keys(groups, folds)
        training = _with_fold_training(scoring, groups, params.get("item_ids"), y, folds, test_keys)
        with (
            training as scoring,
            _recording(scoring if return_per_query else None, test_keys) as (recorded, records),
        ):
            result = model_selection.cross_validate(
                estimator,
                X,
                y,
                scoring=recorded if return_per_query else scoring,
                cv=folds,
                n_jobs=n_jobs,
                params=params,
                return_train_score=return_train_score,
                return_estimator=return_estimator,
                error_score=error_score,
                verbose=verbose,
            )
    if return_per_query:
        stored = _stored_scores(_recorded_labels(recorded), result)
        ids = _factorize(groups, groups.shape[0])[1]
        result["per_query"] = _out_of_fold(records, ids, test_keys, stored)
    return result


class _GroupedSearch:
    """fit/score with query ids: routing enabled for the call, folds checked per query.

    The work is done by a scikit-learn search of the parent class, built from this one's
    parameters with sklearn_rank scorer names resolved and the checked folds as ``cv``;
    its fitted attributes are then this search's. Only public scikit-learn API is used,
    and this object's parameters never change.
    """

    def _scoring(self, warn=False):
        """``scoring`` with sklearn_rank names resolved and ranking scorers combined."""
        resolved = _resolve_scoring(self.scoring, stacklevel=3 if warn else None)
        return _one_prediction(resolved, self.error_score)

    def _check_refit(self, scoring):
        """scikit-learn checks ``refit`` against a combined scorer's keys only after
        every fit; a list of scorers had it checked before the first."""
        if not isinstance(scoring, MultimetricRankingScorer) or callable(self.refit):
            return
        if self.refit is not False and not (
            isinstance(self.refit, str) and self.refit in scoring.scorers
        ):
            raise ValueError(
                f"refit must name one of the scorers ({', '.join(map(repr, scoring.scorers))}), "
                "be a callable that picks the best candidate, or be False (no refit: "
                f"best_* attributes are then not set) when scoring has several; got "
                f"{self.refit!r}."
            )

    def _sklearn_search(self, folds=None, scoring=None):
        params = self.get_params(deep=False)
        params["scoring"] = self._scoring() if scoring is None else scoring
        if folds is not None:
            params["cv"] = folds
        return self._search_class(**params)

    def _parameter_names(self):
        """The parameters that the candidates set, in order of first mention."""
        grid = getattr(self, "param_grid", None)
        if grid is None:
            grid = getattr(self, "param_distributions", None)
        grids = grid if isinstance(grid, (list, tuple)) else [grid or {}]
        return tuple(dict.fromkeys(name for one in grids for name in one))

    def fit(self, X, y=None, *, groups=None, **params):
        """Run the search over folds that keep every query whole.

        Parameters
        ----------
        X : array-like of shape (n_rows, n_features)
        y : array-like of shape (n_rows,)
        groups : array-like of shape (n_rows,)
            Query id of every row: used by the splitter, the scorers and estimators that
            request them (`QueryGroupRanker`), including the refit on all rows. Required:
            without it a ValueError says how to pass it.
        **params : dict
            Other metadata, routed as scikit-learn does.

        Returns
        -------
        self : object
        """
        name = type(self).__name__
        groups = _check_groups(groups, X, f"{name}.fit(X, y, groups=query_ids)")
        _refuse_bare_ranker(self.estimator, name)
        _check_row_weights(params, groups.shape[0])
        folds = _checked_splits(self.cv, X, y, groups)
        names = self._parameter_names()
        combined = self._scoring(warn=True)
        self._check_refit(combined)
        test_keys = _test_keys(groups, folds)
        training = _with_fold_training(
            combined, groups, params.get("item_ids"), y, folds, test_keys
        )
        with training as combined, _recording(combined, test_keys, names) as (scoring, records):
            search = self._sklearn_search(folds, scoring)
            with _routing():
                if _consumes_groups(search.get_metadata_routing(), "fit"):
                    params["groups"] = groups
                search.fit(X, y, **params)
        for name, value in vars(search).items():
            if name.endswith("_") and not name.startswith("_"):
                setattr(self, name, value)
        if isinstance(self.scorer_, MultimetricRankingScorer):
            # As for a list of scorers: the dict of scorers, so that score() computes the
            # refit metric alone and scorer_[name] is that metric's scorer.
            self.scorer_ = dict(self.scorer_.scorers)
        self._keep_per_query(records, _recorded_labels(scoring), names, groups, folds, test_keys)
        return self

    def _keep_per_query(self, records, labels, names, groups, folds, test_keys):
        """Set ``per_query_results_``, ``per_query_weights_`` and ``split_n_queries_``
        from the scorers' records: each (candidate, split) cell of ``cv_results_`` takes
        the record of its test set, its score and its parameters."""
        codes, ids = _factorize(groups, groups.shape[0])
        stored = _stored_scores(labels, self.cv_results_, len(folds))
        candidates = self.cv_results_["params"]
        self.per_query_results_ = _out_of_fold(records, ids, test_keys, stored, candidates, names)
        self.per_query_weights_ = _query_weights(records, ids)
        self.split_n_queries_ = {
            side: np.array([np.unique(codes[fold[i]]).size for fold in folds])
            for i, side in enumerate(("train", "test"))
        }

    def score(self, X, y=None, *, groups=None, **params):
        """Score the refitted best estimator on new rows by its scorer, per query.

        Parameters
        ----------
        X : array-like of shape (n_rows, n_features)
        y : array-like of shape (n_rows,)
        groups : array-like of shape (n_rows,)
            Query id of every row. Required, as in ``fit``.

        Returns
        -------
        score : float
        """
        groups = _check_groups(groups, X, f"{type(self).__name__}.score(X, y, groups=query_ids)")
        _factorize(groups, len(groups))  # refuses NaN and unhashable ids
        with _routing():
            if _consumes_groups(self.get_metadata_routing(), "score"):
                params["groups"] = groups
            return super().score(X, y, **params)

    def get_metadata_routing(self):
        """The search's metadata routing, with sklearn_rank scorer names resolved.

        Returns
        -------
        routing : sklearn.utils.metadata_routing.MetadataRouter
        """
        return self._sklearn_search().get_metadata_routing()


class GroupedGridSearchCV(_GroupedSearch, model_selection.GridSearchCV):
    """`sklearn.model_selection.GridSearchCV` over query groups.

    The same parameters and attributes as scikit-learn's, with three differences:
    ``fit(X, y, groups=query_ids)`` and ``score(X, y, groups=query_ids)`` take the query
    ids and route them (metadata routing is enabled for that call only, the global
    configuration is untouched); ``cv=None`` means ``GroupKFold(5)`` and an int means
    GroupKFold; and every fold is checked: a query split between train and test raises
    a ValueError. ``scoring`` accepts sklearn_rank scorer names (``"ndcg@10"``) alone, in
    a list, or in a dict with ``refit`` naming one of them; several sklearn_rank scorers
    are scored by one `MultimetricRankingScorer` (one prediction per fold).

    Parameters
    ----------
    estimator, param_grid, scoring, n_jobs, refit, cv, verbose, pre_dispatch, \
error_score, return_train_score
        As in `sklearn.model_selection.GridSearchCV`.

    Attributes
    ----------
    cv_results_, best_estimator_, best_score_, best_params_, best_index_, scorer_, \
n_splits_, refit_time_, multimetric_
        As in `sklearn.model_selection.GridSearchCV`.
    per_query_results_ : dict
        Each candidate's out-of-fold value of every query, recorded by the ranking scorers
        while the search runs: ``"query"`` -> ndarray of shape (n_queries,), the query ids
        in order of first appearance in ``groups``; for each ranking scorer (by its key in
        ``scoring``, or its name when ``scoring`` is one scorer) an ndarray of shape
        (n_queries, n_candidates), columns in ``cv_results_`` order: the value on the test
        fold that holds the query (the mean over its test folds under a repeated splitter;
        NaN if none, or if the fit failed). `compare_search` compares candidates with it.
    per_query_weights_ : dict
        For each ranking scorer that received ``sample_weight`` (requested with
        ``set_score_request(sample_weight=True)``), by its label in
        ``per_query_results_``: an ndarray of shape (n_queries,), the weight it gave each
        query in the test scores (NaN for a query it never scored). Empty when no ranking
        scorer was weighted. `compare_search` reads it: it never compares weighted scores
        as if they were not.
    split_n_queries_ : dict
        ``"train"`` and ``"test"`` -> ndarray of shape (n_splits,): the queries on each side
        of each split (the corrected t-test of `compare_search` counts them).

    See Also
    --------
    GroupedRandomizedSearchCV, grouped_cross_validate, QueryGroupRanker, compare_search

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

    _search_class = model_selection.GridSearchCV


class GroupedRandomizedSearchCV(_GroupedSearch, model_selection.RandomizedSearchCV):
    """`sklearn.model_selection.RandomizedSearchCV` over query groups.

    As `GroupedGridSearchCV`, with scikit-learn's RandomizedSearchCV parameters.

    Parameters
    ----------
    estimator, param_distributions, n_iter, scoring, n_jobs, refit, cv, verbose, \
pre_dispatch, random_state, error_score, return_train_score
        As in `sklearn.model_selection.RandomizedSearchCV`.

    Attributes
    ----------
    per_query_results_, per_query_weights_, split_n_queries_
        As in `GroupedGridSearchCV`, with the other attributes of scikit-learn's
        RandomizedSearchCV.

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

    _search_class = model_selection.RandomizedSearchCV
