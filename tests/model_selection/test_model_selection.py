"""Scorers, grouped cross-validation and searches: exact per-fold values, whole queries."""

import warnings

import numpy as np
import pytest
import sklearn
import sklearn.metrics
from sklearn.base import BaseEstimator, RegressorMixin, clone
from sklearn.experimental import enable_halving_search_cv  # noqa: F401
from sklearn.linear_model import Ridge
from sklearn.model_selection import (
    GridSearchCV,
    GroupKFold,
    GroupShuffleSplit,
    HalvingGridSearchCV,
    KFold,
    RandomizedSearchCV,
    cross_val_score,
    cross_validate,
    validation_curve,
)
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

import sklearn_rank as sr
from sklearn_rank.datasets import make_ranking
from sklearn_rank.metrics._beyond_registry import BEYOND_METRICS
from sklearn_rank.metrics._registry import METRICS

NAMES = ["ndcg@10", "map", "mrr@5", "precision@3", "neg_arp", "auc", "kendall_tau"]


@pytest.fixture(scope="module")
def data():
    X, y, groups = make_ranking(n_queries=40, min_query_size=3, max_query_size=15, random_state=0)
    # String query ids, rows interleaved (make_ranking shuffles them).
    return X, y, np.array([f"q{g:03d}" for g in groups])


def _by_hand(estimator, params, X, y, groups, train, test, names):
    model = clone(estimator).set_params(**params).fit(X[train], y[train])
    metric_names = [n[len("neg_") :] if n.startswith("neg_") else n for n in names]
    values = sr.evaluate(y[test], model.predict(X[test]), metric_names, groups=groups[test])
    return {
        n: (-values[m] if n.startswith("neg_") else values[m]) for n, m in zip(names, metric_names)
    }


@pytest.mark.parametrize("routing", ["ours", "sklearn"])
def test_search_scores_equal_per_query_means_by_hand(data, routing):
    X, y, groups = data
    grid = {"alpha": [0.01, 10.0, 1000.0]}
    cv = GroupKFold(n_splits=4)
    if routing == "ours":
        search = sr.GroupedGridSearchCV(Ridge(), grid, scoring=NAMES, refit="ndcg@10", cv=cv)
        search.fit(X, y, groups=groups)
    else:
        scoring = {name: sr.get_scorer(name) for name in NAMES}
        search = GridSearchCV(Ridge(), grid, scoring=scoring, refit="ndcg@10", cv=cv)
        with sklearn.config_context(enable_metadata_routing=True):
            search.fit(X, y, groups=groups)
    folds = list(cv.split(X, y, groups))
    for candidate, params in enumerate(search.cv_results_["params"]):
        for fold, (train, test) in enumerate(folds):
            expected = _by_hand(Ridge(), params, X, y, groups, train, test, NAMES)
            for name in NAMES:
                got = search.cv_results_[f"split{fold}_test_{name}"][candidate]
                assert got == pytest.approx(expected[name], abs=1e-12), (name, fold)


def test_grouped_cross_validate_equals_by_hand(data):
    X, y, groups = data
    result = sr.grouped_cross_validate(Ridge(), X, y, groups=groups, scoring="ndcg@5", cv=3)
    for fold, (train, test) in enumerate(GroupKFold(3).split(X, y, groups)):
        expected = _by_hand(Ridge(), {}, X, y, groups, train, test, ["ndcg@5"])["ndcg@5"]
        assert result["test_score"][fold] == pytest.approx(expected, abs=1e-12)


class _GroupSpy(RegressorMixin, BaseEstimator):
    """Records the query ids it is fitted on; routing delivers them to fit."""

    __metadata_request__fit = {"groups": True}

    def fit(self, X, y, groups=None):
        self.train_groups_ = set(np.asarray(groups).tolist())
        self.model_ = Ridge().fit(X, y)
        return self

    def predict(self, X):
        return self.model_.predict(X)


def _spy_scorer(records):
    scorer = sr.get_scorer("ndcg@5")

    def score(estimator, X, y, groups=None):
        test = set(np.asarray(groups).tolist())
        records.append((estimator.train_groups_, test))
        return scorer(estimator, X, y, groups=groups)

    score.get_metadata_routing = scorer.get_metadata_routing
    return score


@pytest.mark.parametrize("cv", [None, 3, GroupKFold(4), GroupShuffleSplit(3, random_state=0)])
def test_helpers_never_split_a_query(data, cv):
    X, y, groups = data
    records = []
    sr.grouped_cross_validate(
        _GroupSpy(), X, y, groups=groups, scoring=_spy_scorer(records), cv=cv, error_score="raise"
    )
    search = sr.GroupedGridSearchCV(
        _GroupSpy(), {}, scoring=_spy_scorer(records), cv=cv, error_score="raise", refit=False
    )
    search.fit(X, y, groups=groups)
    assert len(records) >= 4
    for train, test in records:
        assert train and test and not (train & test)


@pytest.mark.filterwarnings("ignore:The groups parameter is ignored by KFold")
@pytest.mark.parametrize("search_class", [sr.GroupedGridSearchCV, sr.GroupedRandomizedSearchCV])
def test_splitter_that_ignores_groups_is_refused(data, search_class):
    X, y, groups = data
    grid = {"alpha": [1.0]}
    extra = {"n_iter": 1} if search_class is sr.GroupedRandomizedSearchCV else {}
    search = search_class(Ridge(), grid, scoring="ndcg@5", cv=KFold(3), **extra)
    with pytest.raises(ValueError, match="ignores groups. Use a group-aware splitter"):
        search.fit(X, y, groups=groups)
    with pytest.raises(ValueError, match="ignores groups"):
        sr.grouped_cross_validate(Ridge(), X, y, groups=groups, scoring="map", cv=KFold(3))
    # The parameters are restored after fit, failed or not.
    assert isinstance(search.cv, KFold) and search.scoring == "ndcg@5"


def test_scorer_without_query_ids_says_how_to_pass_them(data):
    X, y, groups = data
    scorer = sr.get_scorer("ndcg@10")
    model = Ridge().fit(X, y)
    with pytest.raises(ValueError, match="called without query ids.*enable_metadata_routing"):
        scorer(model, X, y)
    with pytest.raises(ValueError, match="got 3 query ids \\(groups\\) for"):
        scorer(model, X, y, groups=groups[:3])
    # scikit-learn without routing never passes groups to the scorer: the error surfaces.
    with pytest.raises(ValueError, match="called without query ids"):
        GridSearchCV(
            Ridge(), {"alpha": [1.0]}, scoring=scorer, cv=GroupKFold(3), error_score="raise"
        ).fit(X, y, groups=groups)


def test_wrong_length_groups_in_helpers(data):
    X, y, groups = data
    with pytest.raises(ValueError, match="groups must hold one query id per row of X"):
        sr.grouped_cross_validate(Ridge(), X, y, groups=groups[:-1], scoring="map")
    with pytest.raises(ValueError, match="groups must hold one query id per row of X"):
        sr.GroupedGridSearchCV(Ridge(), {}, scoring="map").fit(X, y, groups=groups[1:])


def test_scorer_values_and_signs(data):
    X, y, groups = data
    model = Ridge().fit(X, y)
    predictions = model.predict(X)
    for name in NAMES:
        metric = name[len("neg_") :] if name.startswith("neg_") else name
        expected = sr.evaluate(y, predictions, [metric], groups=groups)[metric]
        sign = -1 if name.startswith("neg_") else 1
        assert sr.get_scorer(name)(model, X, y, groups=groups) == pytest.approx(
            sign * expected, abs=1e-12
        )


def test_make_ranking_scorer_from_function_and_conventions(data):
    X, y, groups = data
    model = Ridge().fit(X, y)
    scorer = sr.make_ranking_scorer(sr.ndcg_score, k=5, gain="exponential", ties="stable")
    expected = sr.ndcg_score(
        y, model.predict(X), k=5, groups=groups, gain="exponential", ties="stable"
    )
    assert scorer(model, X, y, groups=groups) == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize(
    "metric, params, message",
    [
        ("ndcg@10", {"ap_denominator": "min_k"}, "takes no parameter 'ap_denominator'"),
        ("ndcg@10", {"k": 5}, "give the cut-off in the metric name"),
        ("ndcg@10", {"gain": "log"}, "gain must be one of"),
        ("arp", {}, "is lower-is-better.*'neg_arp'"),
        ("nope@3", {}, "Unknown metric name"),
        (sr.kendall_tau_score, {"k": 3}, "takes no parameter 'k'"),
        (len, {}, "one of sklearn_rank's metric functions"),
        (
            "map",
            {"no_relevant": "ignore"},
            "no_relevant must be a finite number, .skip. or .error.",
        ),
    ],
)
def test_make_ranking_scorer_errors(metric, params, message):
    with pytest.raises(ValueError, match=message):
        sr.make_ranking_scorer(metric, **params)


def test_scorer_names_are_complete():
    names = sr.get_scorer_names()
    for name in names:
        concrete = name.replace("@K", "@3")
        assert isinstance(sr.get_scorer(concrete), sr.RankingScorer)
    assert "neg_arp" in names and "arp" not in names
    # Over the whole list precision, recall, f1, hit rate and CG ignore the order, and so
    # do trec_eval's counts and Judged@k (which take no cut-off or need one).
    unordered = {"precision", "recall", "f1", "hit_rate", "cg"}
    unordered |= {m.name for m in METRICS.values() if m.family != "core" and not m.ranks_without_k}
    # Beyond-accuracy measures are scorers too (they read item_ids: test_beyond_scoring.py).
    beyond = set(BEYOND_METRICS) | {f"{name}@K" for name in BEYOND_METRICS}
    expected = (set(sr.get_metric_names()) | beyond) - unordered
    assert {n.replace("neg_", "") for n in names} == expected
    for name in unordered:
        with pytest.raises(ValueError, match="needs a cut-off"):
            sr.get_scorer(name)
    with pytest.raises(ValueError, match="greater-is-better already; use 'ndcg'"):
        sr.get_scorer("neg_ndcg")


def test_scikit_learn_scorer_names_stay_scikit_learns(data):
    from sklearn.linear_model import LogisticRegression

    X, y, groups = data
    binary = (y > 1).astype(int)
    result = sr.grouped_cross_validate(
        LogisticRegression(), X, binary, groups=groups, scoring=["f1", "precision@3"], cv=3
    )
    for fold, (train, test) in enumerate(GroupKFold(3).split(X, binary, groups)):
        model = LogisticRegression().fit(X[train], binary[train])
        expected_f1 = sklearn.metrics.f1_score(binary[test], model.predict(X[test]))
        assert result["test_f1"][fold] == pytest.approx(expected_f1, abs=1e-12)
        # A classifier is ranked by its decision function, not by its hard labels.
        expected = sr.precision_at_k_score(
            binary[test], model.decision_function(X[test]), k=3, groups=groups[test]
        )
        assert result["test_precision@3"][fold] == pytest.approx(expected, abs=1e-12)


ROWS_AT_ONCE = {
    **{
        f"{base}{how}": f"{base}@10"
        for base in ("precision", "recall", "f1")
        for how in ("", "_macro", "_micro", "_samples", "_weighted")
    },
    "average_precision": "map",
    "roc_auc": "auc",
}


@pytest.mark.parametrize("name", sorted(ROWS_AT_ONCE))
def test_scikit_learn_names_of_ranking_metrics_are_deprecated_in_grouped_helpers(data, name):
    from sklearn.linear_model import LogisticRegression

    X, y, groups = data
    binary = (y > 1).astype(int)
    message = (
        rf"scoring='{name}' is scikit-learn's scorer of all the rows of a fold at once.*"
        rf"Use '{ROWS_AT_ONCE[name]}' for the ranking metric of each query.*"
        rf"sklearn.metrics.get_scorer\('{name}'\).*deprecated in 0.2 and will raise a "
        r"ValueError in 0.4"
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # "samples" averages need multilabel y
        with pytest.warns(FutureWarning, match=message) as caught:
            result = sr.grouped_cross_validate(
                LogisticRegression(), X, binary, groups=groups, scoring=[name, "mrr"], cv=3
            )
    assert [w.filename for w in caught if w.category is FutureWarning] == [__file__]
    # Still scikit-learn's scorer until 0.4: the value of its own scorer on each fold.
    expected = cross_validate(
        LogisticRegression(), X, binary, groups=groups, cv=GroupKFold(3), scoring=name
    )
    np.testing.assert_array_equal(result[f"test_{name}"], expected["test_score"])
    search = sr.GroupedGridSearchCV(
        LogisticRegression(), {"C": [1.0]}, scoring={"mine": name}, refit=False, cv=3
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        with pytest.warns(FutureWarning, match=message) as caught:
            search.fit(X, binary, groups=groups)
    assert [w.filename for w in caught if w.category is FutureWarning] == [__file__]


def test_scikit_learn_scorer_objects_and_ranking_names_do_not_warn(data):
    from sklearn.linear_model import LogisticRegression

    X, y, groups = data
    binary = (y > 1).astype(int)
    scoring = {"f1": sklearn.metrics.get_scorer("f1"), "p": "precision@3", "r2": "accuracy"}
    with warnings.catch_warnings():
        warnings.simplefilter("error", FutureWarning)
        sr.grouped_cross_validate(LogisticRegression(), X, binary, groups=groups, scoring=scoring)
        search = sr.GroupedRandomizedSearchCV(
            LogisticRegression(), {"C": [0.5, 1.0]}, n_iter=2, scoring="f1@5", cv=3
        )
        search.fit(X, binary, groups=groups)
        search.get_metadata_routing()


def test_make_scorer_of_a_metric_function_with_groups_requested_equals_our_scorer(data):
    # The recipe of docs/model_selection.md, "A metric function as a scorer".
    X, y, groups = data
    with sklearn.config_context(enable_metadata_routing=True):
        scorer = sklearn.metrics.make_scorer(sr.ndcg_score, k=10).set_score_request(groups=True)
    ours = sr.grouped_cross_validate(Ridge(), X, y, groups=groups, scoring="ndcg@10", cv=3)
    theirs = sr.grouped_cross_validate(Ridge(), X, y, groups=groups, scoring=scorer, cv=3)
    np.testing.assert_array_equal(theirs["test_score"], ours["test_score"])
    with sklearn.config_context(enable_metadata_routing=True):
        plain = cross_validate(
            Ridge(), X, y, scoring=scorer, cv=GroupKFold(3), params={"groups": groups}
        )
    np.testing.assert_array_equal(plain["test_score"], ours["test_score"])
    searches = [
        sr.GroupedGridSearchCV(Ridge(), {"alpha": [0.1, 100.0]}, scoring=scoring, cv=3)
        for scoring in (scorer, "ndcg@10")
    ]
    theirs, ours = (search.fit(X, y, groups=groups) for search in searches)
    for key in ("split0_test_score", "split2_test_score", "mean_test_score"):
        np.testing.assert_array_equal(theirs.cv_results_[key], ours.cv_results_[key])
    assert theirs.score(X, y, groups=groups) == ours.score(X, y, groups=groups)
    # Without the request, scikit-learn refuses the routed query ids (1.7 and later), or
    # does not route them, so every fold fails with the metric's own message (1.6).
    plain_scorer = sklearn.metrics.make_scorer(sr.ndcg_score, k=10)
    with sklearn.config_context(enable_metadata_routing=True), warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # 1.6's "Scoring failed" per fold
        try:
            unrouted = cross_validate(
                Ridge(), X, y, scoring=plain_scorer, cv=GroupKFold(3), params={"groups": groups}
            )
        except sklearn.exceptions.UnsetMetadataPassedError as error:
            assert "groups" in str(error)
        else:
            assert np.isnan(unrouted["test_score"]).all()


def test_sample_weight_per_query_through_the_scorer(data):
    X, y, groups = data
    model = Ridge().fit(X, y)
    ids = sr.query_ids(groups)
    query_weight = dict(zip(ids.tolist(), np.arange(1, ids.size + 1, dtype=float)))
    row_weight = np.array([query_weight[g] for g in groups])
    scorer = sr.get_scorer("ndcg@5")
    expected = sr.ndcg_score(
        y,
        model.predict(X),
        k=5,
        groups=groups,
        sample_weight=np.arange(1, ids.size + 1, dtype=float),
    )
    assert scorer(model, X, y, groups=groups, sample_weight=row_weight) == pytest.approx(
        expected, abs=1e-12
    )
    varying = row_weight.copy()
    varying[np.flatnonzero(groups == groups[0])[0]] += 1
    with pytest.raises(ValueError, match="constant within each query"):
        scorer(model, X, y, groups=groups, sample_weight=varying)


def test_routed_sample_weight_reaches_the_scorer_when_requested(data):
    X, y, groups = data
    # One weight per query (constant over its rows), so the scorer's mean is weighted.
    ids = sr.query_ids(groups)
    weight_of = dict(zip(ids.tolist(), np.linspace(0.5, 5.0, ids.size)))
    weights = np.array([weight_of[g] for g in groups])
    scorer = sr.get_scorer("map").set_score_request(sample_weight=True)
    # scikit-learn's own set_*_request methods need routing enabled while they are called.
    with sklearn.config_context(enable_metadata_routing=True):
        model = Ridge().set_fit_request(sample_weight=False)
    result = sr.grouped_cross_validate(
        model, X, y, groups=groups, scoring=scorer, cv=3, params={"sample_weight": weights}
    )
    for fold, (train, test) in enumerate(GroupKFold(3).split(X, y, groups)):
        predictions = Ridge().fit(X[train], y[train]).predict(X[test])
        expected = sr.mean_average_precision_score(
            y[test], predictions, groups=groups[test], sample_weight=weights[test]
        )
        unweighted = sr.mean_average_precision_score(y[test], predictions, groups=groups[test])
        assert result["test_score"][fold] == pytest.approx(expected, abs=1e-12)
        assert abs(expected - unweighted) > 1e-6  # the weights do change the value


@pytest.mark.slow
def test_other_sklearn_entry_points_with_routing(data):
    X, y, groups = data
    scorer = sr.get_scorer("ndcg@10")
    with sklearn.config_context(enable_metadata_routing=True):
        scores = cross_val_score(
            Ridge(), X, y, scoring=scorer, cv=GroupKFold(3), params={"groups": groups}
        )
        assert scores.shape == (3,) and np.all((scores > 0) & (scores <= 1))
        train, test = validation_curve(
            Ridge(),
            X,
            y,
            param_name="alpha",
            param_range=[0.1, 10.0],
            scoring=scorer,
            cv=GroupKFold(3),
            params={"groups": groups},
        )
        assert test.shape == (2, 3) and np.all(test > 0)
        random = RandomizedSearchCV(
            Ridge(),
            {"alpha": [0.1, 1.0, 10.0]},
            n_iter=2,
            scoring=scorer,
            cv=GroupKFold(3),
            random_state=0,
            n_jobs=2,
        ).fit(X, y, groups=groups)
        assert np.all(random.cv_results_["mean_test_score"] > 0)
        halving = HalvingGridSearchCV(
            Ridge(),
            {"alpha": [0.1, 1.0, 10.0]},
            scoring=scorer,
            cv=GroupKFold(3),
            min_resources=60,
            random_state=0,
        ).fit(X, y, groups=groups)
        assert np.all(np.isfinite(halving.cv_results_["mean_test_score"]))


def test_search_score_and_refit_use_the_scorer(data):
    X, y, groups = data
    search = sr.GroupedGridSearchCV(
        Ridge(),
        {"alpha": [0.1, 10.0]},
        scoring={"ndcg@10": "ndcg@10", "map": "map"},
        refit="ndcg@10",
        cv=3,
        n_jobs=2,
    ).fit(X, y, groups=groups)
    expected = sr.ndcg_score(y, search.predict(X), k=10, groups=groups)
    assert search.score(X, y, groups=groups) == pytest.approx(expected, abs=1e-12)
    assert search.get_params()["scoring"] == {"ndcg@10": "ndcg@10", "map": "map"}
    assert clone(search).get_params()["cv"] == 3
    # The global configuration is left as it was.
    assert sklearn.get_config()["enable_metadata_routing"] is False


def _ranker_case(kind):
    if kind == "ridge":
        return Ridge(), {"estimator__alpha": [0.1, 100.0]}
    if kind == "lightgbm":
        lightgbm = pytest.importorskip("lightgbm")
        model = lightgbm.LGBMRanker(
            n_estimators=15, min_child_samples=5, verbose=-1, random_state=0, n_jobs=1
        )
        return model, {"estimator__num_leaves": [3, 7]}
    xgboost = pytest.importorskip("xgboost")
    model = xgboost.XGBRanker(n_estimators=15, tree_method="hist", random_state=0, n_jobs=1)
    return model, {"estimator__max_depth": [2, 4]}


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["ridge", "lightgbm", "xgboost"])
def test_search_over_rankers_through_query_group_ranker(data, kind):
    X, y, groups = data  # rows in random order, string query ids
    model, grid = _ranker_case(kind)
    names = ["ndcg@10", "map@5", "mrr"]
    cv = GroupKFold(n_splits=3)
    search = sr.GroupedGridSearchCV(
        sr.QueryGroupRanker(model),
        grid,
        scoring=names,
        refit="ndcg@10",
        cv=cv,
        n_jobs=2,
        error_score="raise",
    )
    search.fit(X, y, groups=groups)
    for candidate, params in enumerate(search.cv_results_["params"]):
        for fold, (train, test) in enumerate(cv.split(X, y, groups)):
            fitted = clone(sr.QueryGroupRanker(model)).set_params(**params)
            fitted.fit(X[train], y[train], groups=groups[train])
            expected = sr.evaluate(y[test], fitted.predict(X[test]), names, groups=groups[test])
            for name in names:
                got = search.cv_results_[f"split{fold}_test_{name}"][candidate]
                assert got == pytest.approx(expected[name], abs=1e-12), (kind, name, fold)
    assert search.best_estimator_.n_queries_ == len(np.unique(groups))


# --------------------------------------------------------------------------------------
# Errors that say what to do
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("search_class", [sr.GroupedGridSearchCV, sr.GroupedRandomizedSearchCV])
def test_search_without_groups_says_how_to_pass_them(data, search_class):
    X, y, _groups = data
    search = search_class(Ridge(), {"alpha": [1.0]}, scoring="ndcg@10", cv=3)
    name = search_class.__name__
    with pytest.raises(ValueError, match=rf"\({name}\.fit\(X, y, groups=query_ids\)\)") as error:
        search.fit(X, y)
    assert "_Grouped" not in str(error.value)
    search.fit(X, y, groups=_groups)
    with pytest.raises(ValueError, match=rf"\({name}\.score\(X, y, groups=query_ids\)\)"):
        search.score(X, y)


def _bare_rankers():
    rankers = []
    lightgbm = pytest.importorskip("lightgbm")
    rankers.append((lightgbm.LGBMRanker(n_estimators=5, verbose=-1, n_jobs=1), "group"))
    xgboost = pytest.importorskip("xgboost")
    rankers.append((xgboost.XGBRanker(n_estimators=5, n_jobs=1), "qid"))
    return rankers


@pytest.mark.parametrize("how", ["grid", "randomized", "cross_validate", "pipeline"])
def test_bare_ranker_is_refused_before_any_fit_pointing_to_query_group_ranker(data, how):
    X, y, groups = data
    for ranker, needed in _bare_rankers():
        name = type(ranker).__name__
        if how == "grid":
            call = sr.GroupedGridSearchCV(ranker, {"n_estimators": [5]}, scoring="ndcg@10").fit
        elif how == "randomized":
            call = sr.GroupedRandomizedSearchCV(
                ranker, {"n_estimators": [5]}, n_iter=1, scoring="ndcg@10"
            ).fit
        elif how == "pipeline":
            pipeline = make_pipeline(StandardScaler(), ranker)
            call = sr.GroupedGridSearchCV(pipeline, {}, scoring="ndcg@10").fit
        else:

            def call(X, y, groups, ranker=ranker):
                return sr.grouped_cross_validate(ranker, X, y, groups=groups, scoring="ndcg@10")

        with pytest.raises(ValueError, match=rf"{name}\.fit needs the query structure") as error:
            call(X, y, groups=groups)
        message = str(error.value)
        assert f"QueryGroupRanker({name}(...)) derives {needed}" in message
    # Wrapped, the same ranker runs.
    wrapped = sr.QueryGroupRanker(ranker)
    result = sr.grouped_cross_validate(wrapped, X, y, groups=groups, scoring="ndcg@10", cv=2)
    assert np.isfinite(result["test_score"]).all()


# --------------------------------------------------------------------------------------
# A splitter that splits queries (leakage) is visible in scikit-learn's own tools
# --------------------------------------------------------------------------------------

SPLIT_WARNING = "put parts of a query in both the training and the test set"


@pytest.mark.parametrize("cv", [5, KFold(4, shuffle=True, random_state=0)])
def test_sklearn_grid_search_with_kfold_warns_about_split_queries(data, cv):
    X, y, groups = data
    search = GridSearchCV(
        sr.QueryGroupRanker(Ridge()),
        {"estimator__alpha": [1.0]},
        cv=cv,
        scoring=sr.get_scorer("ndcg@10"),
    )
    with sklearn.config_context(enable_metadata_routing=True):
        with pytest.warns(UserWarning, match=SPLIT_WARNING) as record:
            search.fit(X, y, groups=groups)
    # Once, the first time, not at every fold.
    assert sum(SPLIT_WARNING in str(w.message) for w in record) == 1


def test_sklearn_cross_validate_with_kfold_warns_and_group_kfold_does_not(data):
    X, y, groups = data
    model = make_pipeline(StandardScaler(), sr.QueryGroupRanker(Ridge()))
    scoring = {"ndcg@10": sr.get_scorer("ndcg@10"), "map": sr.get_scorer("map")}
    with sklearn.config_context(enable_metadata_routing=True):
        with pytest.warns(UserWarning, match=SPLIT_WARNING):
            cross_validate(model, X, y, cv=KFold(3), scoring=scoring, params={"groups": groups})
        # Whole queries per fold: no warning, training scores (the training rows
        # themselves) included.
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            result = cross_validate(
                model,
                X,
                y,
                cv=GroupKFold(3),
                scoring=scoring,
                params={"groups": groups},
                return_train_score=True,
            )
    assert np.isfinite(result["test_ndcg@10"]).all() and np.isfinite(result["train_map"]).all()


def test_scorer_warns_only_for_other_rows_of_trained_queries():
    X = np.arange(12.0).reshape(-1, 1)
    y = np.array([0, 1, 0, 1, 1, 2, 1, 2, 2, 3, 2, 3])
    groups = np.repeat(["a", "b", "c"], 4)
    train = np.r_[0:4, 4:6]  # all of query a, half of query b
    ranker = sr.QueryGroupRanker(Ridge()).fit(X[train], y[train], groups=groups[train])
    np.testing.assert_array_equal(ranker.query_ids_, ["a", "b"])
    scorer = sr.get_scorer("ndcg@2")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        scorer(ranker, X[8:], y[8:], groups=groups[8:])  # query c: never trained on
        scorer(ranker, X[train], y[train], groups=groups[train])  # the training rows
    with pytest.warns(
        UserWarning, match=rf"Scorer 'ndcg@2' .*Ridge was fitted on.*{SPLIT_WARNING}"
    ):
        scorer(ranker, X[6:], y[6:], groups=groups[6:])  # rest of b, and c


def _assert_same_results(search, again):
    for key, values in search.cv_results_.items():
        if "_test_" in key:
            np.testing.assert_array_equal(values, again.cv_results_[key], err_msg=key)
    for key, values in search.per_query_results_.items():
        np.testing.assert_array_equal(values, again.per_query_results_[key], err_msg=key)


def test_each_test_fold_is_normalised_once_per_search(data, monkeypatch):
    from sklearn_rank.model_selection import _prepared

    X, y, groups = data
    from sklearn_rank.metrics._plan import _Plan

    calls = []
    prepare = _Plan.prepare
    monkeypatch.setattr(_prepared, "_FOLDS", {})
    monkeypatch.setattr(
        _Plan,
        "prepare",
        lambda plan, y_true, *a, **k: calls.append(y_true.size) or prepare(plan, y_true, *a, **k),
    )
    grid = {"alpha": [0.01, 0.1, 1.0, 10.0, 100.0, 1000.0]}
    search = sr.GroupedGridSearchCV(Ridge(), grid, scoring=["ndcg@10", "map"], refit="ndcg@10")
    search.fit(X, y, groups=groups)
    folds = list(GroupKFold(5).split(X, y, groups))
    assert sorted(calls) == sorted(test.size for _, test in folds)  # 5 folds, not 30 calls
    assert _prepared._FOLDS == {}  # forgotten when the search ends
    # The same values as a search whose every call normalises its fold afresh, or where
    # a fold is larger than the memory the kept folds may take.
    monkeypatch.setattr(_prepared, "_CACHE_BYTES", min(test.size for _, test in folds))
    again = clone(search).fit(X, y, groups=groups)
    assert len(calls) == 5 + 30
    monkeypatch.setattr(_prepared, "_CACHE_SIZE", 0)
    _assert_same_results(search, clone(search).fit(X, y, groups=groups))
    assert len(calls) == 5 + 30
    _assert_same_results(search, again)


def test_a_fold_changed_in_place_is_normalised_again(data, monkeypatch):
    from sklearn_rank.model_selection import _prepared

    X, y, groups = data
    monkeypatch.setattr(_prepared, "_FOLDS", {})
    model = Ridge().fit(X, y)
    scorer = sr.make_ranking_scorers(["ndcg@10", "mrr"]).set_score_request(sample_weight=True)
    rows = slice(0, 200)
    scores = model.predict(X[rows])
    truth, ids, weights = y[rows].copy(), groups[rows].copy(), np.ones(200)

    def check(kept=slice(None)):
        expected = sr.evaluate(truth[kept], scores[kept], ["ndcg@10", "mrr"], groups=ids[kept])
        assert scorer(model, X[rows], truth, groups=ids, sample_weight=weights) == expected

    check()
    check()  # answered from the kept fold
    truth[:50] = truth[50:100]  # other relevance, the same arrays
    check()
    ids[ids == ids[1]] = ids[0]  # two queries made one, the relevance unchanged
    check()
    weights[ids == ids[0]] = 0.0  # that query leaves the mean
    check(ids != ids[0])
