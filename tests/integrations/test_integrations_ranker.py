"""`QueryGroupRanker` with CatBoost and with early stopping on a validation split by query.

- CatBoost: ``group_id`` is found and derived like ``group``/``qid``; the model equals
  CatBoostRanker fitted on the rows sorted by query; the grouped searches run it.
- Early stopping without leakage: inside a grouped search, every fit's training queries,
  validation queries and the fold's test queries are disjoint (a recording ranker sees
  what it is given), and the refit sees every query.
- Stopping and selecting agree: the best iteration is the first best value of the
  stopping metric (sklearn_rank's, with its direction, even where XGBoost would guess the
  other one from the name); CatBoost's NDCG:top=k on the validation split equals
  ``evaluate(..., convention="catboost")`` on the staged predictions, to 1e-9.
"""

import numpy as np
import pytest
from sklearn.model_selection import GroupKFold, GroupShuffleSplit

import sklearn_rank as sr
from sklearn_rank.datasets import make_ranking

lightgbm = pytest.importorskip("lightgbm")


def data(seed=0, n_queries=40):
    X, y, groups = make_ranking(n_queries=n_queries, random_state=seed)
    return X, y, np.asarray(groups)


def shuffled(seed=0, n_queries=40):
    X, y, groups = data(seed, n_queries)
    order = np.random.default_rng(seed + 1).permutation(y.size)
    return X[order], y[order], groups[order]


def catboost_ranker(**params):
    catboost = pytest.importorskip("catboost")
    base = dict(
        iterations=30,
        depth=3,
        thread_count=1,
        random_seed=0,
        verbose=0,
        allow_writing_files=False,
    )
    return catboost.CatBoostRanker(**{**base, **params})


# --------------------------------------------------------------------------------------------
# CatBoost
# --------------------------------------------------------------------------------------------


def test_catboost_group_id_is_derived_like_group_and_qid():
    X, y, groups = shuffled()
    ranker = sr.QueryGroupRanker(catboost_ranker()).fit(X, y, groups=groups)
    assert ranker.group_param_ == "group_id"
    # The same model as CatBoostRanker on the rows sorted by query (first appearance).
    ids = list(sr.query_ids(groups))
    codes = np.array([ids.index(g) for g in groups])  # first-appearance numbering
    order = np.argsort(codes, kind="stable")
    direct = catboost_ranker().fit(X[order], y[order], group_id=codes[order])
    np.testing.assert_array_equal(ranker.predict(X), direct.predict(X))
    with pytest.raises(ValueError, match="do not pass group or qid \\(or group_id\\)"):
        ranker.fit(X, y, groups=groups, group_id=groups)


def test_catboost_in_a_grouped_search():
    X, y, groups = shuffled(2)
    search = sr.GroupedGridSearchCV(
        sr.QueryGroupRanker(catboost_ranker(iterations=10)),
        {"estimator__depth": [1, 3]},
        scoring="ndcg@5",
        cv=3,
    ).fit(X, y, groups=groups)
    assert search.best_params_["estimator__depth"] in (1, 3)
    scores = search.cv_results_["mean_test_score"]
    assert np.all((scores > 0) & (scores <= 1)) and scores[0] != scores[1]


# --------------------------------------------------------------------------------------------
# No leakage
# --------------------------------------------------------------------------------------------


class RecordingRanker(lightgbm.LGBMRanker):
    """LGBMRanker that records the query ids (column 0 of X) of its training and eval rows,
    and the eval rows' weights."""

    fits = []

    def fit(self, X, y, group=None, eval_X=None, eval_y=None, eval_group=None, **params):
        valid = eval_X[0] if eval_X is not None else np.zeros((0, X.shape[1]))
        weights = params.get("eval_sample_weight")
        RecordingRanker.fits.append(
            (set(X[:, 0]), set(valid[:, 0]), valid, None if weights is None else weights[0])
        )
        return super().fit(
            X, y, group=group, eval_X=eval_X, eval_y=eval_y, eval_group=eval_group, **params
        )


def test_grouped_search_with_early_stopping_never_shows_test_or_validation_queries():
    X, y, groups = data(3, n_queries=45)
    X = np.column_stack([groups.astype(float), X])  # each row carries its query id
    queries = set(groups.astype(float))
    cv = GroupKFold(n_splits=3)
    test_folds = [set(groups[test].astype(float)) for _, test in cv.split(X, y, groups)]
    RecordingRanker.fits = []
    ranker = sr.QueryGroupRanker(
        RecordingRanker(n_estimators=40, min_child_samples=3, n_jobs=1, verbose=-1),
        validation_fraction=0.25,
        eval_metric=sr.lightgbm_metric("ndcg@5"),
        early_stopping_rounds=3,
        random_state=0,
    )
    search = sr.GroupedGridSearchCV(
        ranker, {"estimator__num_leaves": [3, 7]}, scoring="ndcg@5", cv=cv
    ).fit(X, y, groups=groups)
    fits = RecordingRanker.fits
    assert len(fits) == 2 * 3 + 1  # every candidate on every fold, and the refit
    for number, (train, valid, _rows, _weights) in enumerate(fits):
        assert train and valid and not train & valid
        seen = train | valid
        if number < len(fits) - 1:
            # Exactly one test fold is the complement: the one of this fit.
            test = [fold for fold in test_folds if not fold & seen]
            assert len(test) == 1 and seen | test[0] == queries
            # About a quarter of the fold's queries held out, whole.
            assert abs(len(valid) - 0.25 * len(seen)) <= 1
        else:
            assert seen == queries
    assert search.best_estimator_.best_iteration_ >= 1


def test_validation_split_is_by_query_seeded_and_weighted():
    X, y, groups = data(4)
    X = np.column_stack([groups.astype(float), X])
    weight = np.random.default_rng(5).uniform(0.5, 2.0, groups.size)  # per row
    estimator = RecordingRanker(n_estimators=5, min_child_samples=3, n_jobs=1, verbose=-1)
    RecordingRanker.fits = []
    for _ in range(2):
        sr.QueryGroupRanker(estimator, validation_fraction=0.3, random_state=7).fit(
            X, y, groups=groups, sample_weight=weight
        )
    (train, valid, rows, weights), again = RecordingRanker.fits
    assert (train, valid) == again[:2]  # seeded: the same split
    codes = {float(query): number for number, query in enumerate(sr.query_ids(groups))}
    splitter = GroupShuffleSplit(n_splits=1, test_size=0.3, random_state=7)
    _, expected = next(splitter.split(X, groups=[codes[g] for g in X[:, 0]]))
    assert valid == set(groups[expected].astype(float))
    # The validation rows come sorted by query, with their own weights.
    assert np.all(np.diff([codes[g] for g in rows[:, 0]]) >= 0)
    in_valid = np.isin(groups.astype(float), list(valid))
    np.testing.assert_array_equal(np.sort(weights), np.sort(weight[in_valid]))


# --------------------------------------------------------------------------------------------
# The best iteration is the stopping metric's best, in the registry's direction
# --------------------------------------------------------------------------------------------


def _first_best(values, higher=True):
    values = np.asarray(values)
    return int(np.argmax(values if higher else -values)) + 1


def test_lightgbm_stops_at_the_adapter_best_and_predicts_with_it():
    X, y, groups = shuffled(6)
    ranker = sr.QueryGroupRanker(
        lightgbm.LGBMRanker(n_estimators=100, min_child_samples=3, n_jobs=1, verbose=-1),
        validation_fraction=0.3,
        eval_metric=sr.lightgbm_metric(["ndcg@3", "map"]),
        early_stopping_rounds=4,
        random_state=1,
    ).fit(X, y, groups=groups)
    log = ranker.estimator_.evals_result_["valid_0"]
    assert set(log) == {"ndcg@3", "map"}  # metric="None": no built-in metric beside them
    assert ranker.best_iteration_ == _first_best(log["ndcg@3"]) < 100
    assert len(log["ndcg@3"]) == ranker.best_iteration_ + 4
    np.testing.assert_array_equal(
        ranker.predict(X), ranker.estimator_.predict(X, num_iteration=ranker.best_iteration_)
    )


@pytest.mark.parametrize("name, higher", [("mrr", True), ("arp", False)])
def test_xgboost_stops_in_the_registry_direction(name, higher):
    """XGBoost would minimise "mrr" (its name starts with none of auc, map, ndcg, pre)."""
    xgboost = pytest.importorskip("xgboost")
    X, y, groups = shuffled(7, n_queries=60)
    ranker = sr.QueryGroupRanker(
        xgboost.XGBRanker(n_estimators=60, max_depth=2, learning_rate=0.3, n_jobs=1),
        validation_fraction=0.3,
        eval_metric=sr.xgboost_metric(name),
        early_stopping_rounds=4,
        random_state=0,
    ).fit(X, y, groups=groups)
    log = ranker.estimator_.evals_result()["validation_0"]
    assert list(log) == [name]  # disable_default_eval_metric: no other metric
    values = log[name]
    assert ranker.best_iteration_ == _first_best(values, higher)
    assert ranker.best_iteration_ != _first_best(values, not higher)
    assert len(values) == ranker.best_iteration_ + 4


def test_catboost_stops_on_the_number_sklearn_rank_selects_on(tmp_path):
    X, y, groups = shuffled(8, n_queries=50)
    metric = sr.catboost_metric("ndcg@5", convention="catboost")
    ranker = sr.QueryGroupRanker(
        catboost_ranker(iterations=60, use_best_model=False, train_dir=str(tmp_path)),
        validation_fraction=0.3,
        eval_metric=metric,
        early_stopping_rounds=5,
        random_state=2,
    ).fit(X, y, groups=groups)
    # The validation split, as documented: GroupShuffleSplit on the queries.
    ids = list(sr.query_ids(groups))
    codes = np.array([ids.index(g) for g in groups])
    splitter = GroupShuffleSplit(n_splits=1, test_size=0.3, random_state=2)
    _, valid = next(splitter.split(X, groups=codes))
    valid = valid[np.argsort(codes[valid], kind="stable")]
    logged = ranker.estimator_.get_evals_result()["validation"][metric]
    names = [f"{m}@{k}" for m in ("ndcg", "map") for k in (1, 3, 5, 10)]
    rounds = [
        sr.evaluate(y[valid], p, names, groups=codes[valid], convention="catboost")
        for p in ranker.estimator_.staged_predict(X[valid])
    ]
    ours = {name: [values[name] for values in rounds] for name in names}
    np.testing.assert_allclose(logged, ours["ndcg@5"], rtol=0, atol=1e-9)
    assert ranker.best_iteration_ == _first_best(ours["ndcg@5"]) < 60
    # Every round, several cut-offs, NDCG and MAP: CatBoost's eval_metrics on the split.
    catboost = pytest.importorskip("catboost")
    pool = catboost.Pool(X[valid], y[valid], group_id=codes[valid])
    descriptions = sr.catboost_metric(names, convention="catboost")
    theirs = ranker.estimator_.eval_metrics(pool, descriptions, tmp_dir=str(tmp_path))
    for name, description in zip(names, descriptions):
        assert len(theirs[description]) == len(rounds)
        np.testing.assert_allclose(theirs[description], ours[name], rtol=0, atol=1e-9)


# --------------------------------------------------------------------------------------------
# Validation
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "params, message",
    [
        ({"validation_fraction": 1.5}, "validation_fraction must be None or a number.*1.5"),
        ({"validation_fraction": 0}, "validation_fraction=0\\."),
        ({"validation_fraction": "0.2"}, "validation_fraction='0.2'"),
        ({"validation_fraction": True}, "validation_fraction=True"),
        (
            {"validation_fraction": 0.2, "early_stopping_rounds": 0},
            "early_stopping_rounds must be None or a positive integer.*=0\\.",
        ),
        (
            {"validation_fraction": 0.2, "early_stopping_rounds": 2.5},
            "early_stopping_rounds=2.5",
        ),
        ({"early_stopping_rounds": 5}, "early_stopping_rounds=5 needs a validation split"),
        ({"eval_metric": "ndcg"}, "eval_metric='ndcg' needs a validation split"),
    ],
)
def test_parameters_are_validated_with_their_values(params, message):
    X, y, groups = data()
    ranker = sr.QueryGroupRanker(lightgbm.LGBMRanker(verbose=-1), **params)
    with pytest.raises(ValueError, match=message):
        ranker.fit(X, y, groups=groups)


@pytest.mark.parametrize("key", ["eval_set", "eval_X"])
def test_an_eval_set_without_a_validation_split_is_refused(key):
    # LightGBM's own "eval_group cannot be None" was all a user saw.
    X, y, groups = data()
    value = [(X, y)] if key == "eval_set" else (X,)
    with pytest.raises(ValueError, match=rf"got {key}=\.\.\.: .* Set validation_fraction"):
        sr.QueryGroupRanker(lightgbm.LGBMRanker(verbose=-1, n_estimators=2)).fit(
            X, y, groups=groups, **{key: value}
        )


def test_what_cannot_take_a_validation_split_is_refused():
    from sklearn.linear_model import Ridge

    X, y, groups = data()
    with pytest.raises(ValueError, match="needs a LightGBM, XGBoost or CatBoost.*got Ridge"):
        sr.QueryGroupRanker(Ridge(), validation_fraction=0.2).fit(X, y, groups=groups)
    metric = sr.xgboost_metric("ndcg@5")
    with pytest.raises(ValueError, match="made for xgboost.*LGBMRanker \\(lightgbm\\)"):
        sr.QueryGroupRanker(
            lightgbm.LGBMRanker(verbose=-1), validation_fraction=0.2, eval_metric=metric
        ).fit(X, y, groups=groups)
    with pytest.raises(ValueError, match="CatBoost takes its eval metric as a description"):
        sr.QueryGroupRanker(
            catboost_ranker(), validation_fraction=0.2, eval_metric=lambda a, b: 0.0
        ).fit(X, y, groups=groups)
    with pytest.raises(ValueError, match="got eval_set=... with validation_fraction set"):
        sr.QueryGroupRanker(lightgbm.LGBMRanker(verbose=-1), validation_fraction=0.2).fit(
            X, y, groups=groups, eval_set=[(X, y)]
        )
    with pytest.raises(ValueError, match="at least 2 queries to split; got 1"):
        sr.QueryGroupRanker(lightgbm.LGBMRanker(verbose=-1), validation_fraction=0.2).fit(
            X[:5], y[:5], groups=["q"] * 5
        )
