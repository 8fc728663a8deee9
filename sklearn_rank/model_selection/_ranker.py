"""`QueryGroupRanker`: fit learning-to-rank estimators from per-row query ids.

LightGBM's ``LGBMRanker`` wants ``group`` (the sizes of contiguous runs of rows, one per
query), XGBoost's ``XGBRanker`` wants ``qid`` (a per-row query index, sorted ascending) and
CatBoost's ``CatBoostRanker`` wants ``group_id`` (a per-row id, a query's rows together):
all assume the rows of each query are contiguous. Inside scikit-learn model selection the
only query information is ``groups`` (one id per row, rows in any order, and only the rows
of the current training fold). The wrapper sorts the rows by query, derives ``group``,
``qid`` or ``group_id`` and fits a clone of the wrapped estimator, optionally with a
validation split of the fold's queries for early stopping (`_early_stopping`).
"""

import inspect
from copy import deepcopy

import numpy as np
import scipy.sparse as sp
import sklearn
from sklearn.base import BaseEstimator, MetaEstimatorMixin, clone
from sklearn.utils import _safe_indexing  # documented in scikit-learn's API reference
from sklearn.utils.metadata_routing import MetadataRouter, MethodMapping, process_routing
from sklearn.utils.validation import check_is_fitted

from ..utils._ids import _factorize, _id_array
from ..utils._validation import _num_rows
from ._early_stopping import (
    _check_early_stopping,
    _fit_with_validation,
    _refuse_eval_sets,
    _validation_rows,
)

_GROUP_PARAMS = ("auto", "group", "qid", "group_id", None)
_QUERY_KEYS = ("group", "qid", "group_id")


def _fit_parameters(estimator):
    """Names of the explicit parameters of ``estimator.fit`` (``**kwargs`` excluded)."""
    try:
        params = inspect.signature(estimator.fit).parameters.values()
    except (TypeError, ValueError, AttributeError):
        return set()
    return {p.name for p in params if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)}


def _fit_takes(estimator, name):
    """Whether ``estimator.fit`` accepts ``name`` (explicitly or through ``**kwargs``)."""
    try:
        params = inspect.signature(estimator.fit).parameters.values()
    except (TypeError, ValueError, AttributeError):
        return True  # cannot tell: let fit decide
    return any(p.name == name or p.kind == p.VAR_KEYWORD for p in params)


def _is_per_row(value, n_rows):
    """Whether a fit parameter holds one value per row (and so must follow the rows).

    Arrays (numpy, pandas, sparse: anything with a ``shape``) and lists qualify when their
    first dimension is ``n_rows``; strings, tuples, dicts and scalars never do.
    """
    if isinstance(value, list):
        return len(value) == n_rows
    shape = getattr(value, "shape", None)
    if shape is None or isinstance(value, (str, bytes)):
        return False
    try:
        return len(shape) >= 1 and shape[0] == n_rows
    except TypeError:
        return False


def _sorted_rows(X, y, params, codes, rows):
    """X, y and the per-row ``params`` of ``rows`` (None: every row) sorted stably by query,
    with the queries' codes renumbered 0, 1... in that order.

    ``rows`` are ascending and hold whole queries, so their queries appear in code order.
    Rows already grouped keep their order exactly (no copy at all when ``rows`` is None).
    """
    n_rows = codes.size
    part = codes if rows is None else np.unique(codes[rows], return_inverse=True)[1].ravel()
    order = np.argsort(part, kind="stable")
    if rows is not None or np.any(order != np.arange(n_rows)):
        take = order if rows is None else rows[order]
        X = _safe_indexing(X, take)
        if y is not None:
            y = _safe_indexing(y, take)
        params = {
            key: _safe_indexing(value, take) if _is_per_row(value, n_rows) else value
            for key, value in params.items()
        }
    return X, y, dict(params), part[order]


def _query_structure(group_param, codes):
    """The fit parameter that tells the estimator the queries of sorted rows."""
    if group_param == "group":
        return {"group": np.bincount(codes)}
    if group_param in ("qid", "group_id"):
        return {group_param: codes}
    return {}


def _num_features(X):
    """Columns of a 2-D array-like, sparse matrix or DataFrame."""
    shape = getattr(X, "shape", None)
    if shape is not None and len(shape) == 2:
        return int(shape[1])
    return len(X[0])


def _feature_names(X):
    """A DataFrame's column names when they are all strings (scikit-learn's rule), else
    None."""
    columns = getattr(X, "columns", None)
    if columns is None:
        return None
    names = np.asarray(list(columns), dtype=object)
    if names.size and all(isinstance(name, str) for name in names):
        return names
    return None


class QueryGroupRanker(MetaEstimatorMixin, BaseEstimator):
    """Fit a ranker that needs query groups from per-row query ids, rows in any order.

    Learning-to-rank estimators need to know which rows belong to which query, in a form
    that assumes the rows of each query are contiguous: LightGBM's ``LGBMRanker.fit``
    takes ``group`` (the sizes of the runs of rows, one per query, in row order),
    XGBoost's ``XGBRanker.fit`` takes ``qid`` (a query index per row, sorted ascending) and
    CatBoost's ``CatBoostRanker.fit`` takes ``group_id`` (a query id per row, a query's
    rows together).
    Inside scikit-learn model selection the only query information is ``groups`` (one query
    id per row, as for :class:`~sklearn.model_selection.GroupKFold`), the rows of a
    training fold need not be contiguous, and ``group``/``qid`` computed for the full data
    would be wrong for a fold. This wrapper takes ``groups`` in ``fit``, sorts the rows
    stably by query, reorders ``X``, ``y`` and every per-row fit parameter (e.g.
    ``sample_weight``), derives ``group``, ``qid`` or ``group_id``, and fits a clone of
    ``estimator``.

    Early stopping without leakage: with ``validation_fraction``, ``fit`` holds out that
    share of its queries (whole queries, drawn by a
    :class:`~sklearn.model_selection.GroupShuffleSplit` seeded by ``random_state``), trains
    on the others and gives the held-out queries to the wrapped LightGBM, XGBoost or
    CatBoost ranker as its eval set, with ``eval_metric`` and ``early_stopping_rounds``.
    Inside a search the split is made from the training fold only, so nothing of a test
    fold is seen while training or stopping.

    Queries are numbered in order of first appearance, so rows that are already grouped
    keep their order exactly, and unsorted rows give the same fitted model as the same
    rows sorted by query (queries in first-appearance order, rows of a query in input
    order). ``predict`` needs no groups and no sorting: it is the wrapped estimator's.

    ``groups`` reaches ``fit`` inside :class:`~sklearn.model_selection.GridSearchCV`,
    :func:`~sklearn.model_selection.cross_validate` etc. only through scikit-learn
    metadata routing: enable it with ``sklearn.set_config(enable_metadata_routing=True)``
    (or ``sklearn.config_context``) and pass ``groups=query_ids`` to the search's ``fit``.
    This estimator requests ``groups`` for ``fit`` by default, so no ``set_fit_request``
    call is needed; the splitter receives the same ids. With routing disabled,
    scikit-learn gives ``groups`` to the splitter only and ``fit`` raises a ``ValueError``
    saying so (or use the sklearn_rank model-selection helpers, which pass the groups).
    Other fit parameters are routed to the wrapped estimator as usual when routing is
    enabled (e.g. ``LGBMRanker().set_fit_request(sample_weight=True)``), and passed
    through unchanged when it is disabled.

    There is no ``score`` method: pass ``scoring`` to the search (for example one of
    sklearn_rank's ranking scorers).

    Parameters
    ----------
    estimator : estimator object
        The ranker or regressor to fit, e.g. ``lightgbm.LGBMRanker()``,
        ``xgboost.XGBRanker()``, ``catboost.CatBoostRanker()``, or a pointwise regressor
        such as :class:`~sklearn.linear_model.Ridge`. It is cloned in ``fit``; its
        parameters are reachable as ``estimator__<name>`` (e.g. ``estimator__num_leaves``).

    group_param : {"auto", "group", "qid", "group_id"} or None, default="auto"
        How the query structure is passed to ``estimator.fit``:

        - ``"group"``: ``group=sizes``, an int array of shape (n_queries,) with the
          number of rows of each query, in the order of the sorted rows (LightGBM);
        - ``"qid"``: ``qid=index``, an int array of shape (n_samples,) with each sorted
          row's query index, ascending from 0 (XGBoost);
        - ``"group_id"``: ``group_id=index``, the same array (CatBoost);
        - ``None``: nothing (pointwise estimators); rows are still sorted by query;
        - ``"auto"``: ``"qid"`` if ``estimator.fit`` has an explicit ``qid`` parameter
          (``XGBRanker``, which also accepts ``group``), else ``"group"`` if it has a
          ``group`` parameter (``LGBMRanker``), else ``"group_id"`` if it has a
          ``group_id`` parameter (``CatBoostRanker``), else ``None``.

    validation_fraction : float or None, default=None
        Share of the queries of the rows given to ``fit`` held out as the eval set of a
        LightGBM, XGBoost or CatBoost estimator (strictly between 0 and 1; at least one
        query on each side). None: no eval set. The estimator is fitted on the other
        queries only.

    eval_metric : object, default=None
        The eval metric on the held-out queries, in the wrapped library's form:
        ``sklearn_rank.lightgbm_metric(...)`` or a LightGBM metric name for
        ``LGBMRanker`` (with a callable, the ranker's built-in metric is switched off:
        ``metric="None"``); ``sklearn_rank.xgboost_metric(...)`` or an XGBoost metric name
        for ``XGBRanker`` (with a callable, ``disable_default_eval_metric=True``); a CatBoost
        description such as ``sklearn_rank.catboost_metric("ndcg@10",
        convention="catboost")`` for ``CatBoostRanker``. None: the library's default.
        Needs ``validation_fraction``.

    early_stopping_rounds : int or None, default=None
        Stop when the eval metric has not improved for this many rounds, in its direction:
        LightGBM ``callbacks=[early_stopping(rounds, first_metric_only=True)]``, XGBoost
        ``EarlyStopping(rounds, metric_name=..., maximize=...)`` with the direction of an
        sklearn_rank metric (``early_stopping_rounds`` for a metric name), CatBoost
        ``early_stopping_rounds``. Each library then predicts with the best iteration.
        Needs ``validation_fraction``.

    random_state : int, RandomState instance or None, default=None
        Seeds the validation split (an int gives the same split at every fit of the same
        rows).

    Attributes
    ----------
    estimator_ : estimator object
        The fitted clone of ``estimator``, fitted on the rows sorted by query.

    group_param_ : {"group", "qid", "group_id"} or None
        The way the query structure was passed (``group_param`` with ``"auto"`` resolved).

    best_iteration_ : int or None
        With early stopping: the number of boosting rounds of the model kept (LightGBM's
        ``best_iteration_``, XGBoost's ``best_iteration + 1``, CatBoost's
        ``get_best_iteration() + 1``). None without a validation split or when the
        library reports none.

    n_queries_ : int
        Number of distinct query ids seen in ``fit``.

    query_ids_ : ndarray of shape (``n_queries_``,)
        The query ids seen in ``fit``, in order of first appearance. sklearn_rank's
        scorers compare them with the queries they score: other rows of a query the model
        was fitted on mean that the cross-validation split that query between training and
        test (``KFold`` instead of ``GroupKFold``), and they warn.

    n_features_in_ : int
        Number of features seen during ``fit``.

    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Names of features seen during ``fit``. Defined only when ``X`` has feature names
        that are all strings (e.g. a pandas DataFrame).

    See Also
    --------
    sklearn.model_selection.GroupKFold : Cross-validation that keeps each query in one fold.
    sklearn_rank.ndcg_score : Score the predictions per query (long format with ``groups``).

    References
    ----------
    .. [1] LightGBM, ``lightgbm.LGBMRanker.fit``, parameter ``group``.
    .. [2] XGBoost, "Learning to Rank", ``xgboost.XGBRanker.fit``, parameter ``qid``.
    .. [3] CatBoost, ``catboost.CatBoostRanker.fit``, parameter ``group_id``.
    .. [4] scikit-learn User Guide, "Metadata Routing".

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn import config_context
    >>> from sklearn.linear_model import Ridge
    >>> from sklearn.model_selection import GridSearchCV, GroupKFold
    >>> from sklearn_rank import QueryGroupRanker
    >>> X = np.arange(12.0).reshape(-1, 1)
    >>> y = np.array([0, 1, 0, 1, 1, 2, 1, 2, 2, 3, 2, 3])
    >>> groups = ["q1", "q2", "q1", "q2", "q3", "q4", "q3", "q4", "q5", "q6", "q5", "q6"]
    >>> ranker = QueryGroupRanker(Ridge(alpha=1.0)).fit(X, y, groups=groups)
    >>> ranker.n_queries_, ranker.group_param_
    (6, None)
    >>> ranker.predict([[0.0], [11.0]]).round(2)
    array([0.16, 2.84])

    In model selection, metadata routing sends each fold's query ids to ``fit``:

    >>> search = GridSearchCV(
    ...     QueryGroupRanker(Ridge()),
    ...     {"estimator__alpha": [0.1, 1000.0]},
    ...     cv=GroupKFold(n_splits=3),
    ...     scoring="neg_mean_squared_error",
    ... )
    >>> with config_context(enable_metadata_routing=True):
    ...     search = search.fit(X, y, groups=groups)
    >>> search.best_params_
    {'estimator__alpha': 0.1}

    Early stopping on NDCG@10, computed as sklearn_rank computes it, on 20% of the queries
    of each training fold (see docs/integrations.md):

    >>> from lightgbm import LGBMRanker
    >>> from sklearn_rank import lightgbm_metric
    >>> from sklearn_rank.datasets import make_ranking
    >>> X, y, groups = make_ranking(n_queries=30, random_state=0)
    >>> ranker = QueryGroupRanker(
    ...     LGBMRanker(n_estimators=200, min_child_samples=5, verbose=-1),
    ...     validation_fraction=0.2,
    ...     eval_metric=lightgbm_metric("ndcg@10"),
    ...     early_stopping_rounds=5,
    ...     random_state=0,
    ... ).fit(X, y, groups=groups)
    >>> ranker.best_iteration_ < 200
    True
    """

    # `groups` is requested by default: routed to `fit` without a `set_fit_request` call.
    __metadata_request__fit = {"groups": True}

    def __init__(
        self,
        estimator,
        *,
        group_param="auto",
        validation_fraction=None,
        eval_metric=None,
        early_stopping_rounds=None,
        random_state=None,
    ):
        self.estimator = estimator
        self.group_param = group_param
        self.validation_fraction = validation_fraction
        self.eval_metric = eval_metric
        self.early_stopping_rounds = early_stopping_rounds
        self.random_state = random_state

    def _resolve_group_param(self):
        if self.group_param is not None and not (
            isinstance(self.group_param, str) and self.group_param in _GROUP_PARAMS
        ):
            raise ValueError(
                "QueryGroupRanker: group_param must be 'auto', 'group', 'qid', 'group_id' or "
                f"None; got group_param={self.group_param!r}."
            )
        if self.group_param != "auto":
            if self.group_param is not None and not _fit_takes(self.estimator, self.group_param):
                raise ValueError(
                    f"QueryGroupRanker: group_param={self.group_param!r} but "
                    f"{type(self.estimator).__name__}.fit has no parameter "
                    f"{self.group_param!r}; use group_param='auto' or None."
                )
            return self.group_param
        accepted = _fit_parameters(self.estimator)
        if "qid" in accepted:
            return "qid"
        if "group" in accepted:
            return "group"
        if "group_id" in accepted:
            return "group_id"
        return None

    def fit(self, X, y, groups=None, **fit_params):
        """Sort the rows by query and fit a clone of the estimator with the query structure.

        With ``validation_fraction``, the held-out queries are its eval set.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training data (numpy array, pandas DataFrame, scipy sparse matrix, ...), rows
            of the queries in any order.

        y : array-like of shape (n_samples,)
            Relevance labels (e.g. graded 0-3 for LambdaRank objectives).

        groups : array-like of shape (n_samples,)
            Query id of each row: any hashable ids (ints, strings), not NaN; the rows of a
            query need not be contiguous. Required: pass ``fit(X, y, groups=query_ids)``,
            or enable metadata routing inside model selection (see the class docstring).

        **fit_params : dict
            Passed to ``estimator.fit``. Array-likes with one value per row (numpy or
            pandas arrays, sparse matrices or lists of length n_samples, e.g.
            ``sample_weight``) are reordered with the rows; anything else is passed
            as is. With metadata routing enabled, only parameters requested by the
            wrapped estimator are accepted. ``group``, ``qid`` and ``group_id`` are
            refused: they are computed from ``groups``. With ``validation_fraction``, the
            per-row parameters of the held-out rows are left out (and ``sample_weight``'s
            become the eval set's weights for LightGBM and CatBoost). The eval set
            parameters (``eval_set``, ``eval_X``...) are refused, with or without
            ``validation_fraction``: the held-out queries are the eval set.

        Returns
        -------
        self : object
            The fitted ranker.
        """
        group_param = self._resolve_group_param()
        if groups is None:
            raise ValueError(
                "QueryGroupRanker.fit requires the query id of each row: call "
                "fit(X, y, groups=query_ids). Inside scikit-learn model selection "
                "(GridSearchCV, cross_validate, ...) enable metadata routing with "
                "sklearn.set_config(enable_metadata_routing=True) and pass groups=query_ids "
                "to the search's fit (with routing disabled, scikit-learn gives groups to "
                "the cv splitter only), or use the sklearn_rank model-selection helpers."
            )
        clash = [key for key in _QUERY_KEYS if key in fit_params]
        if clash:
            raise ValueError(
                f"QueryGroupRanker.fit got {clash[0]}=...; do not pass group or qid (or group_id): "
                "they are computed from groups (one query id per row)."
            )

        if sp.issparse(X) and X.format not in ("csr", "csc"):
            X = X.tocsr()
        n_rows = _num_rows(X)
        # np.asarray would turn [1, "1"] into ["1", "1"]: two queries into one.
        ids = _id_array(list(groups)) if isinstance(groups, (list, tuple)) else np.asarray(groups)
        if ids.ndim != 1 or ids.shape[0] != n_rows:
            got = f"{ids.shape[0]} entries" if ids.ndim == 1 else f"shape {ids.shape}"
            raise ValueError(
                f"groups must be 1-D with one query id per row of X: X has {n_rows} rows "
                f"but groups has {got}."
            )
        if y is not None and _num_rows(y) != n_rows:
            raise ValueError(
                f"y must have one label per row of X: X has {n_rows} rows but y has {_num_rows(y)}."
            )
        codes, query_ids = _factorize(ids, n_rows)
        library = _check_early_stopping(self)
        if library is None:
            _refuse_eval_sets(fit_params)

        if sklearn.get_config().get("enable_metadata_routing", False):
            estimator_params = dict(process_routing(self, "fit", **fit_params).estimator.fit)
        else:
            estimator_params = dict(fit_params)

        self.estimator_ = clone(self.estimator)
        if library is None:
            X, y, estimator_params, codes = _sorted_rows(X, y, estimator_params, codes, None)
            estimator_params.update(_query_structure(group_param, codes))
            self.estimator_.fit(X, y, **estimator_params)
            self.best_iteration_ = None
        else:
            train_rows, valid_rows = _validation_rows(
                codes, self.validation_fraction, self.random_state
            )
            weight = estimator_params.get("sample_weight")
            weight = weight if _is_per_row(weight, n_rows) else None
            X_valid, y_valid, valid_params, valid_codes = _sorted_rows(
                X, y, {"sample_weight": weight}, codes, valid_rows
            )
            X, y, estimator_params, codes = _sorted_rows(X, y, estimator_params, codes, train_rows)
            estimator_params.update(_query_structure(group_param, codes))
            self.best_iteration_ = _fit_with_validation(
                self.estimator_,
                library,
                (X, y),
                (X_valid, y_valid, valid_codes, valid_params["sample_weight"]),
                estimator_params,
                self.eval_metric,
                self.early_stopping_rounds,
                group_param,
            )

        self.group_param_ = group_param
        self.n_queries_ = len(query_ids)
        self.query_ids_ = query_ids
        self._query_rows = np.bincount(codes, minlength=len(query_ids))
        self.n_features_in_ = getattr(self.estimator_, "n_features_in_", None)
        if self.n_features_in_ is None:
            self.n_features_in_ = _num_features(X)
        names = _feature_names(X)
        if names is not None:
            self.feature_names_in_ = names
        elif hasattr(self, "feature_names_in_"):
            del self.feature_names_in_
        return self

    def predict(self, X):
        """Predict scores with the fitted estimator (rows in any order, no groups needed).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Rows to score.

        Returns
        -------
        y_score : ndarray of shape (n_samples,)
            ``estimator_.predict(X)``: higher means ranked higher within its query.
        """
        check_is_fitted(self)
        return self.estimator_.predict(X)

    def get_metadata_routing(self):
        """Get the metadata routing of this object.

        ``groups`` is consumed by ``fit`` itself (requested by default); other ``fit``
        metadata is routed to ``estimator.fit`` as ``estimator`` requests it.

        Returns
        -------
        routing : MetadataRouter
            A :class:`~sklearn.utils.metadata_routing.MetadataRouter` encapsulating
            routing information.
        """
        return (
            MetadataRouter(owner=self)
            .add_self_request(self)
            .add(
                estimator=self.estimator,
                method_mapping=MethodMapping().add(caller="fit", callee="fit"),
            )
        )

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        if hasattr(self.estimator, "__sklearn_tags__"):
            try:
                inner = self.estimator.__sklearn_tags__()
            except AttributeError:
                return tags
            tags.input_tags = deepcopy(inner.input_tags)
        return tags
