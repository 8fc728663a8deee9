"""One scorer for several ranking metrics: one prediction and one ranking per call.

scikit-learn scores a list of scorers by calling each one, and caches ``predict`` only for
its own scorer class: with three ranking scorers, a fold's model predicts three times and
its rows are ranked three times. scikit-learn also takes a callable that returns a dict
(``refit=`` then names one key); `MultimetricRankingScorer` is that callable, and the
grouped helpers use it for a list of ranking scorers.
"""

import traceback
import warnings
from numbers import Real

import numpy as np

from ..conventions._declarations import resolve
from ..metrics._names import _parse_request
from ..metrics._signatures import _applicable
from ._beyond_scoring import _beyond_scores
from ._scorer import (
    _NEED_ITEM_IDS,
    RankingScorer,
    _checked_call,
    _checked_predictions,
    _is_ranking_name,
    _ranking_scores,
    _RoutedScorer,
    _scorer_conventions,
    _signed_scores,
    _warn_split_queries,
    make_ranking_scorer,
)

# Conventions that `_compute` applies per request rather than to the whole call.
_PER_METRIC = ("no_relevant", "metric_no_relevant")


def _requests(scorer):
    """A scorer's metadata requests, comparable: ((param, alias), ...); ``item_ids``,
    which the beyond-accuracy scorers alone request, left out."""
    requests = scorer.get_metadata_routing().score.requests.items()
    return tuple(sorted((param, alias) for param, alias in requests if param != "item_ids"))


def _shared_conventions(scorers):
    """Group scorers so that one `_compute` per group gives each scorer's own value.

    Scorers whose conventions resolve alike (every metric's default ones do) share a group;
    ``no_relevant``, the one convention each scorer fixes for its own metric, goes through
    the per-metric rule (``metric_no_relevant``), so a metric name appears once per group.
    Returns a list of (conventions, [(key, scorer), ...]).
    """
    groups = []
    for key, scorer in scorers.items():
        own = resolve(None, scorer.conventions)
        shared = {name: value for name, value in own.items() if name not in _PER_METRIC}
        rule = own["no_relevant"]
        for conventions, members in groups:
            same = all(conventions[name] == value for name, value in shared.items())
            rules = conventions["metric_no_relevant"]
            if same and rules.get(scorer.metric, rule) == rule:
                rules[scorer.metric] = rule
                members.append((key, scorer))
                break
        else:
            conventions = dict(shared, no_relevant=None, metric_no_relevant={scorer.metric: rule})
            groups.append((conventions, [(key, scorer)]))
    return groups


def _same_side_inputs(scorers):
    """Whether beyond-accuracy scorers were given the same ``train``, ``item_features``
    and ``catalog`` (the same objects, or none)."""
    first = scorers[0].side_inputs
    return all(
        scorer.side_inputs.keys() == first.keys()
        and all(scorer.side_inputs[key] is first[key] for key in first)
        for scorer in scorers[1:]
    )


def _checked_error_score(error_score):
    if isinstance(error_score, str) and error_score == "raise":
        return error_score
    if isinstance(error_score, Real) and not isinstance(error_score, (bool, np.bool_)):
        return error_score
    raise ValueError(f"error_score must be 'raise' or a number; got {error_score!r}.")


class MultimetricRankingScorer(_RoutedScorer):
    """Several ranking scorers as one: one prediction and one ranking per call, a dict back.

    Create it with `make_ranking_scorers`. Called as ``scorer(estimator, X, y,
    groups=query_ids)``, it scores the rows of ``X`` once (as `RankingScorer` does: the
    estimator's ``predict``, or a classifier's ``decision_function`` or probability of its
    last class), ranks each query once, and returns a dict: each key -> the value its
    `RankingScorer` would return, to the bit (greater-is-better, ``neg_`` metrics negated).
    Scorers with different conventions are ranked once per set of conventions, from the
    same prediction. scikit-learn takes such a callable as ``scoring=`` of `GridSearchCV`,
    `RandomizedSearchCV` and `cross_validate`, with ``refit=`` naming one key;
    `grouped_cross_validate` and the grouped searches use it for a list of sklearn_rank
    scorers.

    Metadata routing is that of `RankingScorer`: ``groups`` is requested by default,
    ``sample_weight`` with ``set_score_request(sample_weight=True)``. Given a fitted
    `QueryGroupRanker` whose training queries it scores through other rows, it warns once,
    as `RankingScorer` does.

    Parameters
    ----------
    scorers : dict of str to RankingScorer
        The keys of the returned dict, and the scorer of each.
    error_score : "raise" or float, default=np.nan
        What a failure gives (an estimator that predicts NaN, relevance a metric refuses):
        with ``"raise"`` the error propagates; with a number, each metric that fails gets
        that value and a ``UserWarning`` carries the error, as scikit-learn does for a
        list of scorers (a failing metric is computed alone, so the others keep their
        values). scikit-learn cannot fill a scorer's dict itself, so give the same value
        as the search's or ``cross_validate``'s ``error_score``.

    Attributes
    ----------
    scorers : dict of str to RankingScorer
        As given.

    See Also
    --------
    make_ranking_scorers, RankingScorer, grouped_cross_validate

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.linear_model import LinearRegression
    >>> from sklearn_rank import MultimetricRankingScorer, get_scorer
    >>> X = np.array([[0.0], [1.0], [2.0], [0.0], [3.0]])
    >>> y = np.array([0, 1, 2, 1, 0])
    >>> groups = np.array([1, 1, 1, 2, 2])
    >>> model = LinearRegression().fit(X[:3], y[:3])
    >>> scorer = MultimetricRankingScorer({"mrr": get_scorer("mrr"), "arp": get_scorer("neg_arp")})
    >>> scorer(model, X, y, groups=groups)
    {'mrr': 0.75, 'arp': -0.75}
    """

    def __init__(self, scorers, error_score=np.nan):
        scorers = dict(scorers)
        if not scorers:
            raise ValueError("scorers must hold at least one scorer; got an empty dict.")
        for key, scorer in scorers.items():
            if not isinstance(key, str) or not isinstance(scorer, RankingScorer):
                raise ValueError(
                    "scorers must map names (str) to RankingScorers (make_ranking_scorer, "
                    f"get_scorer); got {key!r}: {type(scorer).__name__}."
                )
        if len({_requests(scorer) for scorer in scorers.values()}) > 1:
            raise ValueError(
                "The scorers request different metadata (set_score_request); one scorer "
                "gets one set: make them with the same requests, or call set_score_request "
                "on the MultimetricRankingScorer."
            )
        self.scorers = scorers
        self.error_score = _checked_error_score(error_score)
        self._new_request()
        for param, alias in _requests(next(iter(scorers.values()))):
            self._request.score.add_request(param=param, alias=alias)
        if any(scorer.reads_items for scorer in scorers.values()):
            self._request.score.add_request(param="item_ids", alias=True)
        self._groups = _shared_conventions(scorers)
        self._warned_split = False  # warn about split queries once per scorer
        self._record = None  # set while a grouped search records per-query values
        self._training = None  # set while a grouped call hands over its training folds

    @property
    def _name(self):
        return ", ".join(self.scorers)

    def _failed(self, keys):
        """``error_score`` for ``keys``; a warning shows the error being handled."""
        warnings.warn(
            f"Scoring {', '.join(keys)} failed; the score on this train-test split is set to "
            f"error_score={self.error_score!r}. Details:\n{traceback.format_exc()}",
            UserWarning,
            stacklevel=3,
        )
        return dict.fromkeys(keys, self.error_score)

    def __call__(self, estimator, X, y_true, *, groups=None, sample_weight=None, item_ids=None):
        try:
            n_rows = _checked_call(self._name, y_true, groups)
            if not getattr(self, "_warned_split", False):
                self._warned_split = _warn_split_queries(self._name, estimator, groups)
            y_pred = _ranking_scores(estimator, X)
            y_pred = _checked_predictions(self._name, estimator, y_pred, n_rows)
        except Exception:
            if self.error_score == "raise":
                raise
            return self._failed(list(self.scorers))
        record = getattr(self, "_record", None)

        def scores(members, conventions):
            items = [(key, scorer) for key, scorer in members if scorer.reads_items]
            result = {}
            if items and not _same_side_inputs([scorer for _key, scorer in items]):
                for one in items:  # scorers given their own train= or catalog=
                    result.update(scores([one], conventions))
                items = []
            if items:  # beyond-accuracy metrics: each row's item, the training folds
                result = _beyond_scores(
                    items,
                    _scorer_conventions(items[0][1].conventions),
                    y_true,
                    y_pred,
                    groups,
                    item_ids,
                    getattr(self, "_training", None),
                    items[0][1].side_inputs,
                )
                members = [(key, scorer) for key, scorer in members if not scorer.reads_items]
                if not members:
                    return result
            recordings = None
            if record is not None:
                token, _label, names, test_keys = record
                recordings = {key: (token, key, names, test_keys) for key, _ in members}
            result.update(
                _signed_scores(
                    members,
                    conventions,
                    estimator,
                    y_true,
                    y_pred,
                    groups,
                    sample_weight,
                    recordings,
                )
            )
            return result

        result = {}
        for conventions, members in self._groups:
            try:
                result.update(scores(members, conventions))
            except Exception:
                if self.error_score == "raise":
                    raise
                if len(members) == 1:
                    result.update(self._failed([key for key, _ in members]))
                    continue
                # Separate scorers fail one by one: find the metrics that fail alone.
                for key, scorer in members:
                    try:
                        result.update(scores([(key, scorer)], resolve(None, scorer.conventions)))
                    except Exception:
                        result.update(self._failed([key]))
        return {key: result[key] for key in self.scorers}

    def __repr__(self):
        defaults = all(
            key == scorer.name and repr(scorer) == repr(make_ranking_scorer(key))
            for key, scorer in self.scorers.items()
        )
        shown = list(self.scorers) if defaults else self.scorers
        nan = not isinstance(self.error_score, str) and np.isnan(self.error_score)
        error_score = "" if nan else f", error_score={self.error_score!r}"
        return f"make_ranking_scorers({shown!r}{error_score})"


def make_ranking_scorers(metrics, *, error_score=np.nan, **params):
    """Make one scorer that computes several ranking metrics from one prediction.

    Where scikit-learn scores a list of scorers, each ranking scorer predicts and ranks the
    fold's rows again (scikit-learn caches ``predict`` only for its own scorers): three
    metrics over five folds make fifteen ``predict`` calls. The scorer made here predicts
    once per call, ranks once, and returns a dict of every metric's value, each equal to
    the value of its own scorer (`make_ranking_scorer`) to the bit. Pass it as ``scoring=``
    to scikit-learn's `GridSearchCV`, `RandomizedSearchCV` or `cross_validate`, with
    ``refit=`` naming one of its keys; `grouped_cross_validate` and the grouped searches
    use it on their own for a list of sklearn_rank scorer names.

    Parameters
    ----------
    metrics : list of str or RankingScorer, or dict of str to str or RankingScorer
        Scorer names as in `get_scorer_names` (``"ndcg@10"``, ``"map"``, ``"neg_arp"``)
        or scorers from `make_ranking_scorer`; in a list, a name is its own key (a
        scorer's key is its ``name``); a dict gives the keys.
    error_score : "raise" or float, default=np.nan
        The value of a metric that fails (an estimator that predicts NaN...), with a
        warning; ``"raise"`` lets the error propagate. Give the search's
        ``error_score``: scikit-learn cannot fill in a dict-returning scorer's keys.
    **params : dict
        Convention parameters for the metrics given by name, each applied only to the
        metrics that take it (as in `evaluate`), and ``convention`` (a tool's preset). A
        parameter that no metric of the list takes is a ValueError.

    Returns
    -------
    scorer : MultimetricRankingScorer
        Called as ``scorer(estimator, X, y, groups=query_ids)``, it returns a dict: key ->
        greater-is-better value. It requests ``groups`` through metadata routing.

    See Also
    --------
    make_ranking_scorer, MultimetricRankingScorer, GroupedGridSearchCV

    References
    ----------
    .. [1] scikit-learn user guide, "Using multiple metric evaluation" (a callable that
       returns a dictionary of scores).

    Examples
    --------
    >>> import sklearn
    >>> from sklearn.linear_model import Ridge
    >>> from sklearn.model_selection import GridSearchCV, GroupKFold
    >>> from sklearn_rank import make_ranking_scorers
    >>> from sklearn_rank.datasets import make_ranking
    >>> X, y, groups = make_ranking(n_queries=30, random_state=0)
    >>> scoring = make_ranking_scorers(["ndcg@10", "map", "mrr"])
    >>> scoring
    make_ranking_scorers(['ndcg@10', 'map', 'mrr'])
    >>> search = GridSearchCV(Ridge(), {"alpha": [0.1, 100.0]}, scoring=scoring,
    ...                       refit="ndcg@10", cv=GroupKFold(3))
    >>> with sklearn.config_context(enable_metadata_routing=True):
    ...     search = search.fit(X, y, groups=groups)  # 6 predict calls, not 18
    >>> search.best_params_
    {'alpha': 0.1}
    >>> sorted(key for key in search.cv_results_ if key.startswith("mean_test"))
    ['mean_test_map', 'mean_test_mrr', 'mean_test_ndcg@10']
    """
    if isinstance(metrics, dict):
        items = list(metrics.items())
    elif isinstance(metrics, (list, tuple)):
        items = [(getattr(metric, "name", metric), metric) for metric in metrics]
    else:
        raise ValueError(
            "metrics must be a list of scorer names or RankingScorers, or a dict of them; "
            f"got {type(metrics).__name__}."
        )
    if not items:
        raise ValueError("metrics must name at least one metric; got an empty list.")
    keys = [key for key, _ in items]
    repeated = sorted({key for key in keys if keys.count(key) > 1}, key=keys.index)
    if repeated:
        raise ValueError(f"metrics names {repeated[0]!r} twice; each key must be distinct.")
    named = [metric for _, metric in items if isinstance(metric, str)]
    takes = {name: _takes(name) for name in named}
    unused = sorted(set(params).difference(*takes.values()))
    if unused:
        raise ValueError(
            f"make_ranking_scorers: no metric of {named!r} takes the parameter {unused[0]!r}."
        )
    scorers = {}
    for key, metric in items:
        if isinstance(metric, str):
            own = {name: value for name, value in params.items() if name in takes[metric]}
            metric = make_ranking_scorer(metric, **own)
        scorers[key] = metric
    return MultimetricRankingScorer(scorers, error_score=error_score)


def _takes(name):
    """The parameters a scorer name's metric takes (make_ranking_scorer's error if the
    name is not a scorer's)."""
    if not isinstance(name, str) or not _is_ranking_name(name):
        make_ranking_scorer(name)  # raises the message that says what the names are
    entry = _parse_request(name.removeprefix("neg_")).metric
    return {c for c in _applicable(entry) if c not in _NEED_ITEM_IDS} | {"convention"}
