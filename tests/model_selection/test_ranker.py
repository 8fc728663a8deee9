"""Tests of `QueryGroupRanker` (sklearn_rank/_ranker.py)."""

import itertools
import pickle

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn import config_context
from sklearn.base import BaseEstimator, clone
from sklearn.exceptions import NotFittedError, UnsetMetadataPassedError
from sklearn.linear_model import Ridge
from sklearn.model_selection import GridSearchCV, GroupKFold, cross_validate

from sklearn_rank.model_selection import QueryGroupRanker

# ---------------------------------------------------------------------------------------
# data and an independent reference for "the rows sorted by query"


def make_data(seed=0, n_queries=40, n_features=5):
    """Grouped rows: 40 queries of 3-20 rows, graded labels 0-3 from a noisy linear model."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(3, 21, size=n_queries)
    qid = np.repeat(np.arange(n_queries), sizes)
    X = rng.normal(size=(qid.size, n_features))
    latent = X @ rng.normal(size=n_features) + 0.5 * rng.normal(size=qid.size)
    y = np.digitize(latent, np.quantile(latent, [0.4, 0.7, 0.9]))
    return X, y, qid


def shuffled(seed=1):
    X, y, qid = make_data()
    perm = np.random.default_rng(seed).permutation(qid.size)
    return X[perm], y[perm], qid[perm]


def reference_sort(groups):
    """Row order, group sizes and qid of the rows sorted by query, written independently
    with Python dicts and a stable sort: queries in order of first appearance."""
    groups = list(groups)
    first = {}
    for g in groups:
        first.setdefault(g, len(first))
    order = sorted(range(len(groups)), key=lambda i: first[groups[i]])
    codes = [first[groups[i]] for i in order]
    sizes = [len(list(run)) for _, run in itertools.groupby(codes)]
    return np.array(order), np.array(sizes), np.array(codes)


X_TEST = np.random.default_rng(99).normal(size=(50, 5))


def lgbm_ranker(**params):
    lightgbm = pytest.importorskip("lightgbm")
    base = dict(
        n_estimators=15,
        num_leaves=7,
        min_child_samples=3,
        learning_rate=0.2,
        n_jobs=1,
        random_state=0,
        verbose=-1,
    )
    return lightgbm.LGBMRanker(**{**base, **params})


def xgb_ranker():
    xgboost = pytest.importorskip("xgboost")
    return xgboost.XGBRanker(
        n_estimators=10,
        max_depth=3,
        learning_rate=0.3,
        tree_method="hist",
        n_jobs=1,
        random_state=0,
    )


# ---------------------------------------------------------------------------------------
# fake estimators that record what they are given


class RecordGroup(BaseEstimator):
    """A LightGBM-like fit signature."""

    def fit(self, X, y, sample_weight=None, group=None, eval_at=(1, 2, 3)):
        self.X_, self.y_, self.sample_weight_, self.group_, self.eval_at_ = (
            X,
            y,
            sample_weight,
            group,
            eval_at,
        )
        return self

    def predict(self, X):
        return np.asarray(X.toarray() if sp.issparse(X) else X, dtype=float)[:, 0]


class RecordQid(BaseEstimator):
    """An XGBoost-like fit signature (takes group and qid)."""

    def fit(self, X, y, *, group=None, qid=None, sample_weight=None):
        self.X_, self.y_, self.group_, self.qid_, self.sample_weight_ = (
            X,
            y,
            group,
            qid,
            sample_weight,
        )
        return self

    def predict(self, X):
        return np.asarray(X, dtype=float)[:, 0]


class RecordKwargs(BaseEstimator):
    """No explicit group/qid parameter: "auto" passes nothing."""

    def fit(self, X, y, **kwargs):
        self.X_, self.kwargs_ = X, kwargs
        return self

    def predict(self, X):
        return np.asarray(X, dtype=float)[:, 0]


class CheckRuns(BaseEstimator):
    """Column 0 of X is the row's true query number. fit checks that the `group` runs it
    receives are exactly the queries of its rows: each run one query, no query twice."""

    def __init__(self, alpha=1.0):
        self.alpha = alpha

    def fit(self, X, y, group=None):
        ids = X[:, 0]
        bounds = np.cumsum(group)[:-1]
        runs = np.split(ids, bounds)
        assert group.sum() == len(ids)
        assert all(np.all(run == run[0]) for run in runs), "a group run mixes queries"
        assert len({run[0] for run in runs}) == len(runs), "a query is split in two runs"
        self.query_numbers_ = set(ids.astype(int).tolist())
        return self

    def predict(self, X):
        return np.zeros(len(X))


# ---------------------------------------------------------------------------------------
# 1. same model as the estimator fitted directly on the rows sorted by query


def test_lgbm_ranker_matches_direct_fit_on_sorted_rows():
    X, y, qid = shuffled()
    order, sizes, _ = reference_sort(qid)
    assert np.count_nonzero(np.diff(qid)) + 1 > 40  # the rows really are interleaved
    direct = lgbm_ranker().fit(X[order], y[order], group=sizes)
    wrapped = QueryGroupRanker(lgbm_ranker()).fit(X, y, groups=qid)
    assert wrapped.group_param_ == "group"
    assert wrapped.n_queries_ == 40 and wrapped.n_features_in_ == 5
    np.testing.assert_array_equal(wrapped.predict(X_TEST), direct.predict(X_TEST))
    # the comparison can fail: the unsorted rows fitted with the same group sizes (rows
    # assigned to the wrong queries) give another model.
    wrong = lgbm_ranker().fit(X, y, group=sizes)
    assert not np.allclose(wrong.predict(X_TEST), direct.predict(X_TEST))


def test_xgb_ranker_matches_direct_fit_with_qid():
    X, y, qid = shuffled()
    order, _, codes = reference_sort(qid)
    direct = xgb_ranker().fit(X[order], y[order], qid=codes)
    wrapped = QueryGroupRanker(xgb_ranker()).fit(X, y, groups=qid)
    assert wrapped.group_param_ == "qid"
    np.testing.assert_array_equal(wrapped.predict(X_TEST), direct.predict(X_TEST))
    assert np.ptp(direct.predict(X_TEST)) > 0


def test_xgb_ranker_forced_group_sizes_matches_direct_fit():
    X, y, qid = shuffled()
    order, sizes, _ = reference_sort(qid)
    direct = xgb_ranker().fit(X[order], y[order], group=sizes)
    wrapped = QueryGroupRanker(xgb_ranker(), group_param="group").fit(X, y, groups=qid)
    np.testing.assert_array_equal(wrapped.predict(X_TEST), direct.predict(X_TEST))


def test_ridge_matches_direct_fit_and_gets_no_group():
    X, y, qid = shuffled()
    order, _, _ = reference_sort(qid)
    direct = Ridge(alpha=0.5).fit(X[order], y[order])
    wrapped = QueryGroupRanker(Ridge(alpha=0.5)).fit(X, y, groups=qid)
    assert wrapped.group_param_ is None
    np.testing.assert_allclose(wrapped.predict(X_TEST), direct.predict(X_TEST), rtol=0, atol=1e-12)


# ---------------------------------------------------------------------------------------
# 2. grouped input vs the same rows in another order


def test_grouped_input_keeps_its_row_order():
    X, y, qid = make_data()
    est = QueryGroupRanker(RecordGroup()).fit(X, y, groups=qid)
    np.testing.assert_array_equal(est.estimator_.X_, X)
    np.testing.assert_array_equal(est.estimator_.y_, y)
    np.testing.assert_array_equal(est.estimator_.group_, np.bincount(qid))


def test_grouped_and_interleaved_rows_give_identical_lgbm_model():
    # `grouped` is the interleaved data sorted by query; the interleaving keeps the order
    # of first appearance of the queries and the order of the rows of each query.
    X, y, qid = shuffled()
    order, _, _ = reference_sort(qid)
    grouped = QueryGroupRanker(lgbm_ranker()).fit(X[order], y[order], groups=qid[order])
    interleaved = QueryGroupRanker(lgbm_ranker()).fit(X, y, groups=qid)
    np.testing.assert_array_equal(grouped.predict(X_TEST), interleaved.predict(X_TEST))


def test_grouped_and_shuffled_rows_give_same_pointwise_model():
    X, y, qid = make_data()
    perm = np.random.default_rng(5).permutation(len(y))
    a = QueryGroupRanker(Ridge()).fit(X, y, groups=qid)
    b = QueryGroupRanker(Ridge()).fit(X[perm], y[perm], groups=qid[perm])
    np.testing.assert_allclose(a.predict(X_TEST), b.predict(X_TEST), rtol=0, atol=1e-12)


# ---------------------------------------------------------------------------------------
# 3. what is passed as group / qid


STR_IDS = np.array(["b", "a", "b", "c", "a", "b"])
X6 = np.arange(6.0).reshape(-1, 1) * [1.0, 10.0]
Y6 = np.array([0, 1, 2, 3, 0, 1])
ORDER6 = [0, 2, 5, 1, 4, 3]  # b (first seen), then a, then c; rows of a query in input order


@pytest.mark.parametrize(
    "groups",
    [
        STR_IDS,
        list(STR_IDS),
        STR_IDS.astype(object),
        np.array([7, 3, 7, -1, 3, 7]),
        [2.5, 0.5, 2.5, 9.0, 0.5, 2.5],
    ],
)
def test_group_sizes_passed_for_interleaved_ids(groups):
    est = QueryGroupRanker(RecordGroup()).fit(X6, Y6, groups=groups)
    rec = est.estimator_
    np.testing.assert_array_equal(rec.X_, X6[ORDER6])
    np.testing.assert_array_equal(rec.y_, Y6[ORDER6])
    np.testing.assert_array_equal(rec.group_, [3, 2, 1])
    assert est.group_param_ == "group" and est.n_queries_ == 3


def test_qid_passed_for_interleaved_string_ids():
    est = QueryGroupRanker(RecordQid()).fit(X6, Y6, groups=STR_IDS)
    rec = est.estimator_
    assert est.group_param_ == "qid"  # preferred over `group` when fit takes both
    np.testing.assert_array_equal(rec.X_, X6[ORDER6])
    np.testing.assert_array_equal(rec.y_, Y6[ORDER6])
    np.testing.assert_array_equal(rec.qid_, [0, 0, 0, 1, 1, 2])
    assert rec.group_ is None
    assert np.issubdtype(rec.qid_.dtype, np.integer)


def test_group_param_forced_and_auto_without_explicit_parameter():
    auto = QueryGroupRanker(RecordKwargs()).fit(X6, Y6, groups=STR_IDS)
    assert auto.group_param_ is None and auto.estimator_.kwargs_ == {}
    np.testing.assert_array_equal(auto.estimator_.X_, X6[ORDER6])  # still sorted
    forced = QueryGroupRanker(RecordKwargs(), group_param="group").fit(X6, Y6, groups=STR_IDS)
    np.testing.assert_array_equal(forced.estimator_.kwargs_["group"], [3, 2, 1])
    forced = QueryGroupRanker(RecordKwargs(), group_param="qid").fit(X6, Y6, groups=STR_IDS)
    np.testing.assert_array_equal(forced.estimator_.kwargs_["qid"], [0, 0, 0, 1, 1, 2])
    none = QueryGroupRanker(RecordQid(), group_param=None).fit(X6, Y6, groups=STR_IDS)
    assert none.estimator_.qid_ is None and none.estimator_.group_ is None


@pytest.mark.parametrize("fmt", ["csr", "csc", "coo"])
def test_sparse_X_is_reordered(fmt):
    X = sp.random(6, 4, density=0.5, format=fmt, random_state=0) + sp.eye(6, 4)
    est = QueryGroupRanker(RecordGroup()).fit(X.asformat(fmt), Y6, groups=STR_IDS)
    assert sp.issparse(est.estimator_.X_)
    np.testing.assert_array_equal(est.estimator_.X_.toarray(), X.toarray()[ORDER6])
    assert est.n_features_in_ == 4


def test_list_X_is_reordered():
    est = QueryGroupRanker(RecordGroup()).fit(X6.tolist(), Y6.tolist(), groups=STR_IDS)
    np.testing.assert_array_equal(np.asarray(est.estimator_.X_), X6[ORDER6])
    np.testing.assert_array_equal(np.asarray(est.estimator_.y_), Y6[ORDER6])


def test_dataframe_X_is_reordered_and_feature_names_kept():
    pd = pytest.importorskip("pandas")
    X = pd.DataFrame(X6, columns=["a b", "c"], index=[10, 11, 12, 13, 14, 15])
    y = pd.Series(Y6, index=X.index)
    est = QueryGroupRanker(RecordGroup()).fit(X, y, groups=STR_IDS)
    assert isinstance(est.estimator_.X_, pd.DataFrame)
    np.testing.assert_array_equal(est.estimator_.X_.to_numpy(), X6[ORDER6])
    np.testing.assert_array_equal(est.estimator_.y_.to_numpy(), Y6[ORDER6])
    assert est.feature_names_in_.tolist() == ["a b", "c"]
    est.fit(X6, Y6, groups=STR_IDS)
    assert not hasattr(est, "feature_names_in_")


# ---------------------------------------------------------------------------------------
# 4. per-row fit parameters follow the rows


def test_sample_weight_reordered_other_params_passed_as_is():
    w = np.arange(6.0) + 1
    eval_at = (1, 2, 3, 4, 5, 6)  # a tuple of length n_rows is not per-row data
    est = QueryGroupRanker(RecordGroup()).fit(
        X6, Y6, groups=STR_IDS, sample_weight=w, eval_at=eval_at
    )
    np.testing.assert_array_equal(est.estimator_.sample_weight_, w[ORDER6])
    assert est.estimator_.eval_at_ == eval_at
    est = QueryGroupRanker(RecordQid()).fit(X6, Y6, groups=STR_IDS, sample_weight=list(w))
    np.testing.assert_array_equal(est.estimator_.sample_weight_, w[ORDER6])


def test_sample_weight_gives_same_lgbm_model_as_direct_fit():
    X, y, qid = shuffled()
    w = np.random.default_rng(3).uniform(0.5, 2.0, size=len(y))
    order, sizes, _ = reference_sort(qid)
    direct = lgbm_ranker().fit(X[order], y[order], group=sizes, sample_weight=w[order])
    wrapped = QueryGroupRanker(lgbm_ranker()).fit(X, y, groups=qid, sample_weight=w)
    np.testing.assert_array_equal(wrapped.predict(X_TEST), direct.predict(X_TEST))


def test_sample_weight_routed_when_requested():
    w = np.arange(6.0) + 1
    with config_context(enable_metadata_routing=True):
        est = QueryGroupRanker(RecordGroup().set_fit_request(sample_weight=True))
        est.fit(X6, Y6, groups=STR_IDS, sample_weight=w)
        np.testing.assert_array_equal(est.estimator_.sample_weight_, w[ORDER6])
        with pytest.raises(UnsetMetadataPassedError, match="sample_weight"):
            QueryGroupRanker(RecordGroup()).fit(X6, Y6, groups=STR_IDS, sample_weight=w)


# ---------------------------------------------------------------------------------------
# 5. errors


def test_groups_none_error_says_how_to_pass_them():
    with pytest.raises(ValueError, match=r"fit\(X, y, groups=query_ids\)") as info:
        QueryGroupRanker(Ridge()).fit(X6, Y6)
    assert "enable_metadata_routing=True" in str(info.value)


def test_groups_wrong_length():
    with pytest.raises(ValueError, match="X has 6 rows but groups has 5 entries"):
        QueryGroupRanker(Ridge()).fit(X6, Y6, groups=STR_IDS[:5])
    with pytest.raises(ValueError, match=r"X has 6 rows but groups has shape \(6, 1\)"):
        QueryGroupRanker(Ridge()).fit(X6, Y6, groups=STR_IDS.reshape(-1, 1))
    with pytest.raises(ValueError, match="X has 6 rows but y has 4"):
        QueryGroupRanker(Ridge()).fit(X6, Y6[:4], groups=STR_IDS)


@pytest.mark.parametrize(
    "groups",
    [[1.0, np.nan, 1.0, 2.0, 2.0, 1.0], np.array(["a", None, "a", "b", "b", "a"], dtype=object)],
)
def test_missing_query_ids_refused(groups):
    with pytest.raises(ValueError, match="NaN"):
        QueryGroupRanker(Ridge()).fit(X6, Y6, groups=groups)


@pytest.mark.parametrize("bad", ["groups", "Group", 1, True])
def test_bad_group_param(bad):
    with pytest.raises(ValueError, match=rf"group_param={bad!r}"):
        QueryGroupRanker(Ridge(), group_param=bad).fit(X6, Y6, groups=STR_IDS)
    # validated before anything else: even without groups
    with pytest.raises(ValueError, match="group_param"):
        QueryGroupRanker(Ridge(), group_param=bad).fit(X6, Y6)


@pytest.mark.parametrize("key", ["group", "qid"])
def test_explicit_group_or_qid_refused(key):
    with pytest.raises(ValueError, match="computed from groups"):
        QueryGroupRanker(RecordQid()).fit(X6, Y6, groups=STR_IDS, **{key: [3, 2, 1]})


def test_predict_before_fit():
    with pytest.raises(NotFittedError):
        QueryGroupRanker(Ridge()).predict(X6)


# ---------------------------------------------------------------------------------------
# 6. clone, pickle, params, tags


def test_clone_pickle_and_params():
    X, y, qid = shuffled()
    est = QueryGroupRanker(Ridge(alpha=2.0), group_param=None)
    assert est.get_params()["estimator__alpha"] == 2.0
    assert est.set_params(estimator__alpha=3.0) is est
    assert est.estimator.alpha == 3.0
    cloned = clone(est)
    assert cloned.estimator is not est.estimator
    assert cloned.get_params()["estimator__alpha"] == 3.0
    assert cloned.group_param is None
    est.fit(X, y, groups=qid)
    assert not hasattr(clone(est), "estimator_")
    restored = pickle.loads(pickle.dumps(est))
    np.testing.assert_array_equal(restored.predict(X_TEST), est.predict(X_TEST))
    assert est.estimator.alpha == est.estimator_.alpha == 3.0
    assert not hasattr(est.estimator, "coef_")  # the wrapped estimator is left unfitted


def test_pickle_lgbm():
    X, y, qid = shuffled()
    est = QueryGroupRanker(lgbm_ranker()).fit(X, y, groups=qid)
    restored = pickle.loads(pickle.dumps(est))
    np.testing.assert_array_equal(restored.predict(X_TEST), est.predict(X_TEST))


def test_tags_follow_the_wrapped_estimator():
    from sklearn.utils import get_tags

    assert get_tags(QueryGroupRanker(Ridge())).input_tags.sparse is True
    assert get_tags(QueryGroupRanker(Ridge())).input_tags.allow_nan is False
    assert get_tags(QueryGroupRanker(RecordGroup())).target_tags.required is True
    lgbm = QueryGroupRanker(lgbm_ranker())
    assert get_tags(lgbm).input_tags.allow_nan is True


# ---------------------------------------------------------------------------------------
# 7. model selection with metadata routing


def test_grid_search_ridge_with_routing():
    X, y, qid = shuffled()
    search = GridSearchCV(
        QueryGroupRanker(Ridge()),
        {"estimator__alpha": [0.01, 1e4]},
        cv=GroupKFold(3),
        scoring="neg_mean_squared_error",
        n_jobs=2,
        error_score="raise",
    )
    with config_context(enable_metadata_routing=True):
        search.fit(X, y, groups=qid)
    assert search.best_params_ == {"estimator__alpha": 0.01}
    assert search.best_estimator_.n_queries_ == 40
    assert np.all(np.isfinite(search.cv_results_["mean_test_score"]))


def test_grid_search_lgbm_with_routing_matches_manual_folds():
    X, y, qid = shuffled()
    search = GridSearchCV(
        QueryGroupRanker(lgbm_ranker()),
        {"estimator__num_leaves": [3, 7]},
        cv=GroupKFold(3),
        scoring="neg_mean_squared_error",
        n_jobs=2,
        error_score="raise",
    )
    with config_context(enable_metadata_routing=True):
        search.fit(X, y, groups=qid)
    assert search.best_params_["estimator__num_leaves"] in (3, 7)
    assert (
        search.best_estimator_.estimator_.num_leaves == search.best_params_["estimator__num_leaves"]
    )
    # the first split's score equals a hand-made fit on that fold's rows sorted by query
    train, test = next(GroupKFold(3).split(X, y, qid))
    order, sizes, _ = reference_sort(qid[train])
    direct = lgbm_ranker(num_leaves=3).fit(X[train][order], y[train][order], group=sizes)
    expected = -np.mean((direct.predict(X[test]) - y[test]) ** 2)
    assert search.cv_results_["split0_test_score"][0] == pytest.approx(expected, rel=1e-12)


def _fold_check_scorer(estimator, X, y):
    """Column 0 of X is the query number: the fit's queries must be disjoint from the
    test fold's, and together they must be all 40 queries."""
    fitted = estimator.estimator_.query_numbers_
    tested = set(X[:, 0].astype(int).tolist())
    assert not fitted & tested, "the fit saw queries of the test fold"
    assert fitted | tested == set(range(40))
    return 0.0


def test_grid_search_routes_each_folds_training_groups_to_fit():
    X, y, qid = shuffled()
    X = np.column_stack([qid, X])
    ids = np.array([f"query-{q:02d}" for q in qid])  # string ids, the query's number
    search = GridSearchCV(
        QueryGroupRanker(CheckRuns()),
        {"estimator__alpha": [1.0, 2.0]},
        cv=GroupKFold(3),
        scoring=_fold_check_scorer,
        n_jobs=2,
        error_score="raise",
    )
    with config_context(enable_metadata_routing=True):
        search.fit(X, y, groups=ids)  # the assertions run in the workers
    assert len(search.cv_results_["split2_test_score"]) == 2
    assert search.best_estimator_.estimator_.query_numbers_ == set(range(40))
    assert search.best_estimator_.n_queries_ == 40


def test_cross_validate_with_routing():
    X, y, qid = shuffled()
    with config_context(enable_metadata_routing=True):
        res = cross_validate(
            QueryGroupRanker(Ridge()),
            X,
            y,
            cv=GroupKFold(3),
            scoring="neg_mean_squared_error",
            params={"groups": qid},
            error_score="raise",
        )
    assert res["test_score"].shape == (3,)


# ---------------------------------------------------------------------------------------
# 8. without routing, scikit-learn keeps groups for the splitter


def test_grid_search_without_routing_raises_the_clear_error():
    X, y, qid = shuffled()
    search = GridSearchCV(
        QueryGroupRanker(Ridge()),
        {"estimator__alpha": [1.0]},
        cv=GroupKFold(3),
        scoring="neg_mean_squared_error",
        error_score="raise",
    )
    with config_context(enable_metadata_routing=False):
        with pytest.raises(ValueError, match=r"groups=query_ids\).*enable_metadata_routing"):
            search.fit(X, y, groups=qid)
