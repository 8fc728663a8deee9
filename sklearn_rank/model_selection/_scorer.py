"""Scorers: ranking metrics computed per query, wherever scikit-learn takes ``scoring=``."""

import copy
import warnings

import numpy as np
from sklearn.base import is_classifier
from sklearn.utils.metadata_routing import MetadataRequest

from ..conventions._declarations import QUIET_DEFAULTS, check_k, resolve
from ..conventions._side_inputs import SIDE_INPUTS
from ..metrics._beyond_registry import BEYOND_METRICS
from ..metrics._lists import _greater_is_better
from ..metrics._names import _parse_request, _Request
from ..metrics._plan import _Plan
from ..metrics._registry import METRICS
from ..metrics._signatures import _applicable
from ..utils._ids import _concat_ids, _factorize
from ._beyond_scoring import (
    _SIDE_INPUTS,
    _beyond_scores,
    _entry,
    _is_beyond,
    _scorer_conventions,
)
from ._per_query import _query_set_key, _recorded
from ._prepared import _compute_fold
from ._ranker import QueryGroupRanker

# A scorer takes its metric function's conventions (generated from the declarations) but
# these two: it sees rows without item ids, where they do not apply.
_NEED_ITEM_IDS = ("tie_break", "query_set")

_HOW_TO_PASS_GROUPS = (
    "A ranking scorer needs the query id of every row, as groups. Use sklearn_rank's "
    "grouped_cross_validate, GroupedGridSearchCV or GroupedRandomizedSearchCV with "
    "groups=query_ids; or enable scikit-learn's metadata routing "
    "(sklearn.set_config(enable_metadata_routing=True)) and pass groups=query_ids to fit "
    "(or params={'groups': query_ids} to cross_validate); or call "
    "scorer(estimator, X, y, groups=query_ids) directly."
)


def _ranking_scores(estimator, X):
    """Scores to rank by: a classifier's decision_function or probability of the last
    class (its hard labels would tie almost everything), a regressor's predict."""
    if is_classifier(estimator):
        if hasattr(estimator, "decision_function"):
            scores = np.asarray(estimator.decision_function(X))
            return scores if scores.ndim == 1 else scores[:, -1]
        if hasattr(estimator, "predict_proba"):
            return np.asarray(estimator.predict_proba(X))[:, -1]
    return estimator.predict(X)


def _shape(values):
    """Shape of an array-like without the error numpy raises for ragged nested lists."""
    try:
        return np.shape(values)
    except ValueError:  # ragged: not an array of ids
        return (len(values), "ragged")


def _n_rows(y_true, what):
    shape = _shape(y_true)
    if len(shape) != 1:
        raise ValueError(
            f"{what} must be 1-D with the relevance of every row of X; got shape {shape}."
        )
    return shape[0]


def _checked_predictions(name, estimator, y_pred, n_rows):
    """The estimator's scores, refused with the estimator named when they cannot rank.

    Without this check a NaN prediction would be reported as a NaN in ``y_score``, a
    parameter the user never passed.
    """
    scores = np.asarray(y_pred)
    if scores.shape != (n_rows,):
        raise ValueError(
            f"Scorer {name!r}: {type(estimator).__name__} returned scores of shape "
            f"{scores.shape} for {n_rows} rows; a ranking scorer needs one score per row "
            "(1-D), and X and y must have the same rows."
        )
    if scores.dtype == object:
        try:
            scores = scores.astype(np.float64)
        except (TypeError, ValueError):
            pass
    if scores.dtype.kind not in "biuf":
        raise ValueError(
            f"Scorer {name!r}: {type(estimator).__name__} returned scores of dtype "
            f"{scores.dtype}; ranking needs real numbers."
        )
    finite = np.isfinite(scores)
    if not finite.all():
        row = int(np.flatnonzero(~finite)[0])
        raise ValueError(
            f"Scorer {name!r}: {type(estimator).__name__} predicted {float(scores[row])!r} "
            f"for row {row} of X ({int((~finite).sum())} of {n_rows} scores are not finite); "
            "ranking needs finite scores."
        )
    return scores


def _fitted_queries(estimator):
    """The `QueryGroupRanker` that ``estimator`` is, or ends with (a Pipeline), once
    fitted; else None."""
    steps = getattr(estimator, "steps", None)
    final = steps[-1][1] if isinstance(steps, list) and steps else estimator
    if isinstance(final, QueryGroupRanker) and hasattr(final, "_query_rows"):
        return final
    return None


def _warn_split_queries(name, estimator, groups):
    """Warn when the rows scored include other rows of queries the model was fitted on.

    That is what a splitter that ignores groups does (``cv=5`` in scikit-learn's
    GridSearchCV is a KFold): part of a query trains the model, the rest tests it, and the
    scores are optimistic. Scoring exactly the training rows (``return_train_score``) is
    fine: the same queries with as many rows each. A warning, not an error, because two
    separate data sets may reuse query ids (queries numbered from 0 in both).
    """
    ranker = _fitted_queries(estimator)
    if ranker is None:
        return False
    codes, ids = _factorize(groups, None)
    trained = ranker.query_ids_
    all_codes, all_ids = _factorize(_concat_ids([trained, ids]), None)
    trained_code, scored_code = all_codes[: trained.size], all_codes[trained.size :]
    trained_rows = np.zeros(len(all_ids), dtype=np.int64)
    trained_rows[trained_code] = ranker._query_rows
    shared = trained_rows[scored_code] > 0
    if not shared.any():
        return False
    scored_rows = np.bincount(codes, minlength=len(ids))
    if len(ids) == trained.size and np.array_equal(trained_rows[scored_code], scored_rows):
        return False  # the training rows themselves
    warnings.warn(
        f"Scorer {name!r} scores rows of queries that {type(ranker.estimator).__name__} was "
        "fitted on, through other rows of the same queries: the cross-validation splitter "
        "put parts of a query in both the training and the test set, so the scores are "
        "optimistic. Use a group-aware splitter (cv=GroupKFold(5)), or sklearn_rank's "
        "GroupedGridSearchCV / grouped_cross_validate, which refuse such folds. (Ignore "
        "this if the scored rows are other queries that reuse the training query ids.)",
        UserWarning,
        stacklevel=3,
    )
    return True


def _checked_call(name, y_true, groups):
    """The number of rows scored, once ``y`` and the query ids are checked."""
    if groups is None:
        raise ValueError(f"Scorer {name!r} was called without query ids. " + _HOW_TO_PASS_GROUPS)
    n_rows = _n_rows(y_true, f"Scorer {name!r}: y")
    shape = _shape(groups)
    if len(shape) != 1 or shape[0] != n_rows:
        got = f"{shape[0]} query ids" if len(shape) == 1 else f"groups of shape {shape}"
        raise ValueError(
            f"Scorer {name!r} got {got} (groups) for {n_rows} rows; pass one query id per row of X."
        )
    return n_rows


def _signed_scores(
    members, conventions, estimator, y_true, y_pred, groups, sample_weight, recordings, side=None
):
    """The scores of ranking scorers that share ``conventions``, from one ranking.

    members : list of (label, RankingScorer); the labels key the result.
    conventions : as `resolve` returns them, for every member.
    recordings : None, or label -> the recording a grouped search set on that scorer
        (`_recording`): the scores then carry their per-query values.
    side : the side inputs routed to the scorer (name -> array or None), or None.
    Returns label -> score, greater-is-better (negated for lower-is-better metrics).
    """
    plan = _Plan(
        tuple(
            _Request(label, _entry(scorer.metric), scorer.k, scorer.params, scorer.overrides)
            for label, scorer in members
        ),
        conventions,
    )
    computed = _compute_fold(
        plan, y_true, y_pred, groups, sample_weight, table=recordings is not None, side=side
    )
    if recordings is None:
        return {label: scorer.sign * computed[label] for label, scorer in members}
    means = _Plan.means(computed)
    key = _query_set_key(computed.ids, len(y_pred))  # which rows: a test set or not
    scores = {}
    for label, scorer in members:
        # Per-query values signed as the score is, so that they average to it.
        values = scorer.sign * computed.values[label]
        score = scorer.sign * means[label]
        scores[label] = _recorded(
            recordings[label], estimator, key, computed.ids, values, score, computed.weights
        )
    return scores


class _RoutedScorer:
    """Metadata requests of a ranking scorer: ``groups`` by default, ``sample_weight`` when
    asked, as scikit-learn's own scorers request theirs; the side inputs (``propensity``,
    ``position``) by default where a metric reads them (the click-log estimators)."""

    def _new_request(self, side=False, reads_items=False):
        self._request = MetadataRequest(owner=type(self).__name__)
        self._request.score.add_request(param="groups", alias=True)
        self._request.score.add_request(param="sample_weight", alias=None)
        if side:
            for name in SIDE_INPUTS:
                self._request.score.add_request(param=name, alias=True)
        if reads_items:  # beyond-accuracy metrics read each row's item
            self._request.score.add_request(param="item_ids", alias=True)

    def get_metadata_routing(self):
        """Metadata this scorer requests: ``groups`` by default.

        Returns
        -------
        request : sklearn.utils.metadata_routing.MetadataRequest
        """
        return copy.deepcopy(self._request)

    def set_score_request(self, **requests):
        """Request metadata for ``__call__``, as scikit-learn scorers do.

        Parameters
        ----------
        **requests : dict
            ``sample_weight=True`` to use routed sample weights; ``groups`` is requested
            already (set an alias string to read query ids from another name), and so are
            ``propensity`` and ``position`` by the click-log estimators' scorers.

        Returns
        -------
        self : object
            This scorer.
        """
        for param, alias in requests.items():
            if param not in ("groups", "sample_weight", "item_ids", *SIDE_INPUTS):
                raise ValueError(
                    f"{type(self).__name__} takes metadata 'groups', 'sample_weight', "
                    f"'item_ids', 'propensity' and 'position'; got {param!r}."
                )
            self._request.score.add_request(param=param, alias=alias)
        return self


class RankingScorer(_RoutedScorer):
    """A scorer that computes a ranking metric per query and averages over queries.

    Create it with `make_ranking_scorer` or `get_scorer`. It is called as
    ``scorer(estimator, X, y, groups=query_ids)``: it scores the rows of ``X`` (with
    ``predict``; a classifier with ``decision_function`` or the probability of its last
    class, as its hard labels would tie), ranks the rows of each query, computes the metric
    per query and returns the (weighted) mean, negated for lower-is-better metrics (``neg_arp``).

    Query ids reach it through scikit-learn's metadata routing under the name ``groups``,
    which it requests by default: the same ``groups`` that a `GroupKFold` splitter uses.
    Called without them it raises a ValueError that says how to pass them, never a silent
    number. A ``sample_weight`` is used when requested (``set_score_request``); per row,
    it must be constant within each query, where it weights that query. Scores the
    estimator returns that cannot rank (NaN, infinite, not one per row) raise a
    ValueError naming the estimator and the first bad row.

    Given a fitted `QueryGroupRanker` (or a Pipeline ending with one), it warns, the first
    time, when the rows it scores include queries the model was fitted on through other
    rows: the cross-validation split those queries between training and test (``KFold``,
    the meaning of ``cv=5`` in scikit-learn), which makes the scores optimistic.

    Parameters
    ----------
    name : str
        The scorer's name, such as ``"ndcg@10"`` or ``"neg_arp"``.
    metric : str
        Registry name of the metric (``"ndcg"``).
    k : int or None
        The cut-off.
    conventions : dict
        Convention parameters passed on to the metric.
    sign : {1, -1}
        1 for greater-is-better metrics, -1 for ``arp``.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.linear_model import LinearRegression
    >>> from sklearn_rank import get_scorer
    >>> X = np.array([[0.0], [1.0], [2.0], [0.0], [3.0]])
    >>> y = np.array([0, 1, 2, 1, 0])
    >>> groups = np.array([1, 1, 1, 2, 2])
    >>> model = LinearRegression().fit(X[:3], y[:3])
    >>> scorer = get_scorer("mrr")
    >>> scorer(model, X, y, groups=groups)  # query 2 ranks its relevant row last
    0.75
    """

    def __init__(
        self, name, metric, k, conventions, sign, params=None, overrides=None, side_inputs=None
    ):
        self.name = name
        self.metric = metric
        self.k = k
        self.conventions = dict(conventions)
        self.sign = sign
        self.params = dict(params or {})  # the measure's own (RBP's p...)
        self.overrides = dict(overrides or {})  # conventions its name set (P(rel=2)@5)
        self.side_inputs = dict(side_inputs or {})  # a beyond-accuracy scorer's train, catalog
        self._new_request(side=self._reads_side_inputs, reads_items=self.reads_items)
        self._warned_split = False  # warn about split queries once per scorer
        self._record = None  # set while a grouped search records per-query values
        self._training = None  # set while a grouped call hands over its training folds

    @property
    def reads_items(self):
        """Whether the metric reads each row's item (beyond-accuracy: ``item_ids``)."""
        return _is_beyond(_entry(self.metric))

    def __call__(
        self,
        estimator,
        X,
        y_true,
        *,
        groups=None,
        sample_weight=None,
        item_ids=None,
        propensity=None,
        position=None,
    ):
        n_rows = _checked_call(self.name, y_true, groups)
        if not getattr(self, "_warned_split", False):
            self._warned_split = _warn_split_queries(self.name, estimator, groups)
        y_pred = _checked_predictions(self.name, estimator, _ranking_scores(estimator, X), n_rows)
        recording = getattr(self, "_record", None)
        if self.reads_items:
            return _beyond_scores(
                [(self.name, self)],
                _scorer_conventions(self.conventions),
                y_true,
                y_pred,
                groups,
                item_ids,
                getattr(self, "_training", None),
                self.side_inputs,
                estimator,
                None if recording is None else {self.name: recording},
            )[self.name]
        return _signed_scores(
            [(self.name, self)],
            resolve(None, self.conventions),
            estimator,
            y_true,
            y_pred,
            groups,
            sample_weight,
            None if recording is None else {self.name: recording},
            side={"propensity": propensity, "position": position},
        )[self.name]

    @property
    def _reads_side_inputs(self):
        """Whether the metric reads per-row propensities or positions (click logs)."""
        return getattr(_entry(self.metric), "side_inputs", None) is not None

    def __repr__(self):
        params = "".join(
            f", {key}={value!r}"
            for key, value in self.conventions.items()
            if value is not None and not (key in QUIET_DEFAULTS and QUIET_DEFAULTS[key] == value)
        )
        return f"make_ranking_scorer({self.name!r}{params})"


def make_ranking_scorer(metric, **params):
    """Make a scorer that computes a ranking metric per query group.

    Parameters
    ----------
    metric : str or callable
        A metric name as in `evaluate` (``"ndcg@10"``, ``"map"``, ``"precision@5"``,
        ``"neg_arp"``), or one of sklearn_rank's metric functions (`ndcg_score`...), in
        which case the cut-off is given as ``k``.
    **params : dict
        Convention parameters of the metric: ``ties``, ``gain``, ``ap_denominator``,
        ``relevance_threshold``, ``short_lists``, ``log_base``, ``no_relevant`` (each
        only where the metric takes it), ``score_dtype``, ``k`` with a metric function,
        and ``convention`` (a tool's preset, as in `evaluate`; explicit parameters win).
        A beyond-accuracy metric (``"coverage@10"``, ``"novelty@10"``...) reads each row's
        item id as the metadata ``item_ids`` (requested by its scorer) and may be given
        ``train``, ``item_features`` and ``catalog`` as in `evaluate`: fixed inputs for a
        scorer used outside `grouped_cross_validate` and the grouped searches, which give
        each split its training fold's interactions and the whole data's items (without
        them, the catalog is the distinct item ids of the rows scored).

    Returns
    -------
    scorer : RankingScorer
        Usable wherever scikit-learn takes ``scoring=``. Greater is better: lower-is-better
        metrics (ARP) are negated, as scikit-learn's ``neg_*`` scorers.

    See Also
    --------
    get_scorer, get_scorer_names, grouped_cross_validate, GroupedGridSearchCV

    References
    ----------
    .. [1] scikit-learn user guide, "Metadata Routing" and "Defining your scoring
       strategy from metric functions".

    Examples
    --------
    >>> from sklearn_rank import make_ranking_scorer, ndcg_score
    >>> make_ranking_scorer("ndcg@10", gain="exponential")
    make_ranking_scorer('ndcg@10', ties='average', gain='exponential', no_relevant=0.0)
    >>> make_ranking_scorer(ndcg_score, k=5, no_relevant="skip")
    make_ranking_scorer('ndcg@5', ties='average', gain='linear', no_relevant='skip')
    """
    name, entry, k, sign, request = _resolve_metric(metric, params)
    side_inputs = {key: params.pop(key) for key in _SIDE_INPUTS if key in params}
    if side_inputs and not _is_beyond(entry):
        raise ValueError(
            f"make_ranking_scorer: {', '.join(f'{key}=' for key in side_inputs)} is read by "
            f"the beyond-accuracy metrics only (coverage, novelty...), not {entry.name!r}."
        )
    allowed = {c for c in _applicable(entry) if c not in _NEED_ITEM_IDS} | {"convention"}
    unknown = set(params) - allowed - {"k"}
    if unknown:
        raise ValueError(
            f"make_ranking_scorer: metric {entry.name!r} takes no parameter "
            f"{sorted(unknown)[0]!r}; it takes {', '.join(sorted(allowed))}."
        )
    explicit = {key: value for key, value in params.items() if key not in ("k", "convention")}
    # Validated now, at construction, rather than at the first fold.
    resolved = resolve(params.get("convention"), explicit)
    keys = ("ties",) + entry.conventions + ("score_dtype",)
    conventions = {key: resolved[key] for key in keys}
    if conventions["score_dtype"] == "float64":
        del conventions["score_dtype"]  # the default; kept out of the repr
    conventions["no_relevant"] = _Plan((), resolved).no_relevant_rule(entry)
    if _is_beyond(entry) and params.get("convention") is not None:
        conventions["convention"] = params["convention"]  # a framework's definitions
    return RankingScorer(
        name, entry.name, k, conventions, sign, request.params, request.overrides, side_inputs
    )


def _resolve_metric(metric, params):
    """(scorer name, registry entry, k, sign) from a name or a metric function."""
    if callable(metric):
        entries = [m for m in METRICS.values() if m.function == getattr(metric, "__name__", None)]
        if not entries:
            raise ValueError(
                f"metric must be a metric name or one of sklearn_rank's metric functions; "
                f"got {metric!r}."
            )
        entry = entries[0]
        k = check_k(params.get("k")) if entry.takes_k else None
        if "k" in params and not entry.takes_k:
            raise ValueError(f"make_ranking_scorer: metric {entry.name!r} takes no parameter 'k'.")
        label = entry.name if k is None else f"{entry.name}@{k}"
        request = _Request(label, entry, k)
    else:
        if "k" in params:
            raise ValueError(
                "make_ranking_scorer: give the cut-off in the metric name ('ndcg@10'), "
                f"not as k={params['k']!r}."
            )
        label = metric
        if isinstance(metric, str) and metric.startswith("neg_"):
            label = metric[len("neg_") :]
        request = _parse_request(label)
        entry, k = request.metric, request.k
    if k is None and not entry.ranks_without_k:
        raise ValueError(
            f"A {entry.name!r} scorer needs a cut-off ('{entry.name}@10'): over the whole "
            "list its value does not depend on the order, so it cannot compare models."
        )
    negated = isinstance(metric, str) and metric.startswith("neg_")
    greater = _greater_is_better(request, params.get("convention"))
    if greater and negated:
        what = entry.name if entry.greater_is_better else label
        raise ValueError(f"{metric!r}: {what!r} is greater-is-better already; use {label!r}.")
    if not greater:
        if not negated and isinstance(metric, str):
            raise ValueError(
                f"{metric!r} is lower-is-better; scorers are greater-is-better, so its scorer "
                f"is named 'neg_{metric}' and returns the negated value."
            )
        return f"neg_{label}", entry, k, -1, request
    return label, entry, k, 1, request


def get_scorer(name):
    """The ranking scorer for a metric name, with default conventions.

    Parameters
    ----------
    name : str
        A name from `get_scorer_names`, with ``@K`` a positive integer (``"ndcg@10"``).

    Returns
    -------
    scorer : RankingScorer

    Examples
    --------
    >>> from sklearn_rank import get_scorer
    >>> get_scorer("map@10")
    make_ranking_scorer('map@10', ties='average', ap_denominator='relevant', no_relevant=0.0)
    """
    return make_ranking_scorer(name)


def get_scorer_names():
    """Names of the ranking scorers; ``K`` stands for any positive integer.

    Returns
    -------
    names : list of str

    Examples
    --------
    >>> from sklearn_rank import get_scorer_names
    >>> [name for name in get_scorer_names() if name.startswith(("ndcg@", "neg_a"))]
    ['ndcg@K', 'neg_arp']
    """
    names = []
    for entry in (*METRICS.values(), *BEYOND_METRICS.values()):
        prefix = "" if entry.greater_is_better else "neg_"
        if entry.ranks_without_k:
            names.append(prefix + entry.name)
        if entry.takes_k:
            names.append(prefix + entry.name + "@K")
    return sorted(names)
