"""One prediction per fold for several ranking metrics (`make_ranking_scorers`).

Before, a grouped search or `grouped_cross_validate` scored by a list of sklearn_rank
metrics called each metric's scorer, and each predicted the fold's rows again: 3 metrics x
3 folds made 9 ``predict`` calls (scikit-learn caches ``predict`` only for its own scorers).
That path stays reachable: the grouped helpers with the combining step switched off
(`_separate_scorers`), and scikit-learn's own search with a dict of `get_scorer` scorers.
Each test counts ``predict`` calls on both paths and compares their results to the bit.
"""

import re
import warnings

import numpy as np
import pytest
import sklearn
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.model_selection import GridSearchCV, GroupKFold, KFold, cross_validate
from sklearn.tree import DecisionTreeRegressor

import sklearn_rank as sr
from sklearn_rank.datasets import make_ranking
from sklearn_rank.model_selection import _search

NAMES = ["ndcg@10", "map", "mrr"]
GRID = {"max_depth": [2, 4, 6]}


@pytest.fixture(scope="module")
def data():
    X, y, groups = make_ranking(n_queries=45, min_query_size=3, max_query_size=20, random_state=1)
    return X, y, np.array([f"q{g:02d}" for g in groups])


class _CountingTree(RegressorMixin, BaseEstimator):
    """A tree that appends a line to ``log`` at every predict: a count across processes.

    A tree uses no BLAS, so worker processes fit the same model as the main one and the
    comparisons can be exact.
    """

    def __init__(self, max_depth=3, log=None, broken=False):
        self.max_depth = max_depth
        self.log = log
        self.broken = broken

    def fit(self, X, y):
        self.model_ = DecisionTreeRegressor(max_depth=self.max_depth, random_state=0).fit(X, y)
        return self

    def predict(self, X):
        with open(self.log, "a") as log:
            log.write("predict\n")
        scores = self.model_.predict(X)
        return np.full_like(scores, np.nan) if self.broken else scores


def _calls(log):
    """The predict calls logged since the last call, and a fresh log."""
    try:
        with open(log) as file:
            count = file.read().count("predict")
    except FileNotFoundError:
        count = 0
    open(log, "w").close()
    return count


@pytest.fixture
def separate_scorers(monkeypatch):
    """The grouped helpers as they were: a dict of scorers, each predicting on its own."""

    def switch_off():
        monkeypatch.setattr(_search, "_one_prediction", lambda scoring, error_score: scoring)

    return switch_off


def _assert_same_results(new, old):
    """Every entry but the timings equal to the bit (NaN where the other has NaN)."""
    assert list(new) == list(old)
    for key in old:
        if "time" in key:
            continue
        if key == "params":
            assert new[key] == old[key]
            continue
        got, expected = np.asarray(new[key]), np.asarray(old[key])
        if expected.dtype.kind == "f":
            np.testing.assert_array_equal(got, expected, err_msg=key)
            assert got.dtype == expected.dtype, key
        else:
            assert got.tolist() == expected.tolist(), key


@pytest.mark.parametrize("n_jobs", [1, 2])
def test_grouped_cross_validate_predicts_once_per_fold(data, tmp_path, n_jobs, separate_scorers):
    X, y, groups = data
    log = tmp_path / "log"
    model = _CountingTree(log=str(log))

    def run(return_train_score):
        return sr.grouped_cross_validate(
            model,
            X,
            y,
            groups=groups,
            scoring=NAMES,
            cv=3,
            n_jobs=n_jobs,
            return_train_score=return_train_score,
            return_per_query=True,
            error_score="raise",
        )

    new = run(False)
    assert _calls(log) == 3  # 3 folds
    new_train = run(True)
    assert _calls(log) == 6  # and the training rows of each
    separate_scorers()
    old = run(False)
    assert _calls(log) == 9  # 3 metrics x 3 folds
    old_train = run(True)
    assert _calls(log) == 18
    for got, expected in ((new, old), (new_train, old_train)):
        per_query, expected_per_query = got.pop("per_query"), expected.pop("per_query")
        _assert_same_results(got, expected)
        assert list(per_query) == ["query", *NAMES]
        for key in NAMES:
            np.testing.assert_array_equal(per_query[key], expected_per_query[key])
            assert not np.isnan(per_query[key]).any()
    # And each value is the metric computed here on the fold's predictions.
    for fold, (train, test) in enumerate(GroupKFold(3).split(X, y, groups)):
        fitted = _CountingTree(log=str(log)).fit(X[train], y[train])
        expected = sr.evaluate(y[test], fitted.predict(X[test]), NAMES, groups=groups[test])
        for name in NAMES:
            assert new[f"test_{name}"][fold] == expected[name]


@pytest.mark.slow
@pytest.mark.parametrize("n_jobs", [1, 2])
@pytest.mark.parametrize("search_class", [sr.GroupedGridSearchCV, sr.GroupedRandomizedSearchCV])
def test_grouped_search_predicts_once_per_fold_with_the_same_results(
    data, tmp_path, n_jobs, search_class, separate_scorers
):
    X, y, groups = data
    log = tmp_path / "log"
    extra = {"n_iter": 3, "random_state": 0} if search_class is sr.GroupedRandomizedSearchCV else {}

    def run():
        search = search_class(
            _CountingTree(log=str(log)),
            GRID,
            scoring=NAMES,
            refit="map",
            cv=3,
            n_jobs=n_jobs,
            return_train_score=True,
            error_score="raise",
            **extra,
        )
        return search.fit(X, y, groups=groups)

    new = run()
    # 3 candidates x 3 folds x (test + training rows); the refit predicts nothing.
    assert _calls(log) == 18
    separate_scorers()
    old = run()
    assert _calls(log) == 3 * 3 * 3 * 2  # each of the 3 metrics predicted again
    _assert_same_results(new.cv_results_, old.cv_results_)
    assert new.best_params_ == old.best_params_ and new.best_index_ == old.best_index_
    assert new.best_score_ == old.best_score_
    assert list(new.per_query_results_) == ["query", *NAMES]
    for key, values in old.per_query_results_.items():
        np.testing.assert_array_equal(new.per_query_results_[key], values, err_msg=key)
    assert not np.isnan(new.per_query_results_["mrr"]).any()
    np.testing.assert_array_equal(new.split_n_queries_["test"], old.split_n_queries_["test"])
    # scorer_ stays the dict of scorers; score() computes the refit metric alone.
    assert list(new.scorer_) == NAMES and isinstance(new.scorer_["map"], sr.RankingScorer)
    assert new.score(X, y, groups=groups) == old.score(X, y, groups=groups)
    assert _calls(log) == 2
    # compare_search reads the same per-query values and split scores.
    for test in ("t", "corrected_t", "randomization"):
        got = sr.compare_search(new, ["map", "ndcg@10"], test=test, random_state=0)
        expected = sr.compare_search(old, ["map", "ndcg@10"], test=test, random_state=0)
        assert got.run_names == expected.run_names and got.baseline == expected.baseline
        for table in ("runs", "pairs"):
            for key, column in getattr(expected, table).items():
                column = np.asarray(column)
                if column.dtype.kind == "f":
                    np.testing.assert_array_equal(np.asarray(getattr(got, table)[key]), column)
                else:
                    assert list(getattr(got, table)[key]) == list(column), (table, key)


def test_scikit_learn_search_with_the_combined_scorer_equals_separate_scorers(data, tmp_path):
    X, y, groups = data
    log = tmp_path / "log"
    names = ["ndcg@5", "map@10", "neg_arp", "auc"]

    def run(scoring):
        search = GridSearchCV(
            _CountingTree(log=str(log)),
            GRID,
            scoring=scoring,
            refit="ndcg@5",
            cv=GroupKFold(3),
            return_train_score=True,
        )
        with sklearn.config_context(enable_metadata_routing=True):
            return search.fit(X, y, groups=groups)

    new = run(sr.make_ranking_scorers(names))
    assert _calls(log) == 3 * 3 * 2
    old = run({name: sr.get_scorer(name) for name in names})
    assert _calls(log) == 3 * 3 * 2 * 4
    _assert_same_results(new.cv_results_, old.cv_results_)
    assert new.best_params_ == old.best_params_
    assert (new.cv_results_["mean_test_neg_arp"] < 0).all()  # lower-is-better, negated
    grouped = sr.GroupedGridSearchCV(
        _CountingTree(log=str(log)), GRID, scoring=names, refit="ndcg@5", cv=3
    ).fit(X, y, groups=groups)
    for key in grouped.cv_results_:
        if key.startswith(("split", "mean_test", "rank_test")):
            np.testing.assert_array_equal(grouped.cv_results_[key], new.cv_results_[key])


def _scores_of_every_scorer(data):
    X, y, groups = data
    model = DecisionTreeRegressor(max_depth=3, random_state=0).fit(X[::2], y[::2])
    # The ranking metrics' scorers; the beyond-accuracy ones read item_ids
    # (tests/model_selection/test_beyond_scoring.py).
    ranking = [
        n for n in sr.get_scorer_names() if not sr.get_scorer(n.replace("@K", "@4")).reads_items
    ]
    names = [name.replace("@K", "@4") for name in ranking]
    names += [name.replace("@K", "@9") for name in ranking if "@K" in name]
    return model, X, y, groups, names


class _Rounded(RegressorMixin, BaseEstimator):
    """A fitted model's scores rounded to one decimal: ties within queries."""

    def __init__(self, model=None):
        self.model = model

    def predict(self, X):
        return np.round(self.model.predict(X), 1)


def test_every_metric_equals_its_own_scorer_to_the_bit(data):
    model, X, y, groups, names = _scores_of_every_scorer(data)
    for estimator in (model, _Rounded(model)):
        got = sr.make_ranking_scorers(names)(estimator, X, y, groups=groups)
        assert list(got) == names
        for name in names:
            assert got[name] == sr.get_scorer(name)(estimator, X, y, groups=groups), name


def test_scorers_with_other_conventions_and_weights_equal_their_own(data):
    model, X, y, groups, _ = _scores_of_every_scorer(data)
    y = np.where(groups == groups[0], 0, y)  # a query without relevant rows
    ids = sr.query_ids(groups)
    weight_of = dict(zip(ids.tolist(), np.linspace(0.5, 3.0, ids.size)))
    weights = np.array([weight_of[g] for g in groups])
    scorers = {
        "ndcg exponential": sr.make_ranking_scorer("ndcg@5", gain="exponential"),
        "ndcg": sr.get_scorer("ndcg@5"),
        "ndcg counting empty queries as 1": sr.make_ranking_scorer("ndcg@5", no_relevant=1.0),
        "map, stable ties": sr.make_ranking_scorer("map", ties="stable"),
        "map": sr.get_scorer("map"),
        "P(rel=2)@3": sr.get_scorer("P(rel=2)@3"),
        "precision@3": sr.get_scorer("precision@3"),
        "neg_arp": sr.get_scorer("neg_arp"),
    }
    combined = sr.make_ranking_scorers(scorers)
    # Three rankings (default ties, exponential gain, stable ties), one prediction.
    assert len(combined._groups) == 4  # and no_relevant=1.0 beside the default for ndcg
    for weighted in (None, weights):
        got = combined(model, X, y, groups=groups, sample_weight=weighted)
        for key, scorer in scorers.items():
            assert got[key] == scorer(model, X, y, groups=groups, sample_weight=weighted), key
    assert got["ndcg"] != got["ndcg exponential"] and got["map"] != got["map, stable ties"]
    assert got["ndcg"] != got["ndcg counting empty queries as 1"]
    assert got["P(rel=2)@3"] != got["precision@3"]
    # Conventions given to make_ranking_scorers reach only the metrics that take them.
    exponential = sr.make_ranking_scorers(["ndcg@5", "map"], gain="exponential")
    got = exponential(model, X, y, groups=groups)
    assert got["ndcg@5"] == scorers["ndcg exponential"](model, X, y, groups=groups)
    assert got["map"] == sr.get_scorer("map")(model, X, y, groups=groups)


def test_routed_sample_weight_and_mixed_requests(data, tmp_path):
    X, y, groups = data
    log = tmp_path / "log"
    ids = sr.query_ids(groups)
    weight_of = dict(zip(ids.tolist(), np.linspace(0.5, 3.0, ids.size)))
    weights = np.array([weight_of[g] for g in groups])
    weighted = {name: sr.get_scorer(name).set_score_request(sample_weight=True) for name in NAMES}
    by_weight = sr.grouped_cross_validate(
        _CountingTree(log=str(log)),
        X,
        y,
        groups=groups,
        scoring=weighted,
        cv=3,
        params={"sample_weight": weights},
    )
    assert _calls(log) == 3
    for fold, (train, test) in enumerate(GroupKFold(3).split(X, y, groups)):
        scores = _CountingTree(log=str(log)).fit(X[train], y[train]).predict(X[test])
        expected = sr.evaluate(
            y[test], scores, NAMES, groups=groups[test], sample_weight=weights[test]
        )
        plain = sr.evaluate(y[test], scores, NAMES, groups=groups[test])
        for name in NAMES:
            assert by_weight[f"test_{name}"][fold] == expected[name]
        assert expected["map"] != plain["map"]  # the weights do change the value
    _calls(log)
    # Scorers that request different metadata are scored one by one, as before.
    mixed = {
        "map": weighted["map"],
        "mrr": sr.get_scorer("mrr").set_score_request(sample_weight=False),
    }
    mixed_result = sr.grouped_cross_validate(
        _CountingTree(log=str(log)),
        X,
        y,
        groups=groups,
        scoring=mixed,
        cv=3,
        params={"sample_weight": weights},
    )
    assert _calls(log) == 6
    assert mixed_result["test_map"].tolist() == by_weight["test_map"].tolist()
    with pytest.raises(ValueError, match="request different metadata"):
        sr.make_ranking_scorers(mixed)
    combined = sr.make_ranking_scorers(NAMES).set_score_request(sample_weight=True)
    assert combined.get_metadata_routing().score.requests == {
        "groups": True,
        "sample_weight": True,
    }
    with sklearn.config_context(enable_metadata_routing=True):
        routed = cross_validate(
            _CountingTree(log=str(log)),
            X,
            y,
            scoring=combined,
            cv=GroupKFold(3),
            params={"groups": groups, "sample_weight": weights},
        )
    assert _calls(log) == 3
    for name in NAMES:
        np.testing.assert_array_equal(routed[f"test_{name}"], by_weight[f"test_{name}"])


@pytest.mark.filterwarnings("ignore:The groups parameter is ignored by KFold")
def test_a_split_query_warns_once(data, tmp_path):
    X, y, groups = data
    warning = "put parts of a query in both the training and the test set"

    def count(scoring):
        search = GridSearchCV(
            sr.QueryGroupRanker(DecisionTreeRegressor(random_state=0)),
            {"estimator__max_depth": [2, 3]},
            cv=KFold(3),
            scoring=scoring,
            refit=False,
        )
        with sklearn.config_context(enable_metadata_routing=True):
            with warnings.catch_warnings(record=True) as record:
                warnings.simplefilter("always")
                search.fit(X, y, groups=groups)
        return sum(warning in str(w.message) for w in record)

    assert count(sr.make_ranking_scorers(NAMES)) == 1
    assert count({name: sr.get_scorer(name) for name in NAMES}) == 3  # one per scorer
    # The grouped helpers refuse such folds before any scorer sees them.
    with pytest.raises(ValueError, match="ignores groups"):
        sr.grouped_cross_validate(
            sr.QueryGroupRanker(DecisionTreeRegressor()),
            X,
            y,
            groups=groups,
            scoring=NAMES,
            cv=KFold(3),
        )


@pytest.mark.filterwarnings("ignore:One or more of the (test|train) scores are non-finite")
def test_failures_follow_error_score_as_separate_scorers_did(data, tmp_path, separate_scorers):
    X, y, groups = data
    log = tmp_path / "log"
    grid = {"broken": [False, True]}

    def search(error_score):
        return sr.GroupedGridSearchCV(
            _CountingTree(log=str(log)),
            grid,
            scoring=NAMES,
            refit="map",
            cv=3,
            error_score=error_score,
            return_train_score=True,
        )

    with pytest.warns(UserWarning, match="predicted nan for row 0"):
        new = search(np.nan).fit(X, y, groups=groups)
    with pytest.raises(ValueError, match=re.escape("Scorer 'ndcg@10, map, mrr': _CountingTree")):
        search("raise").fit(X, y, groups=groups)
    # Negative relevance: DCG takes it, NDCG refuses it; only NDCG fails.
    negative = np.where(y == 0, -1, y)
    with pytest.warns(UserWarning, match="y_true must be non-negative for 'ndcg@5'"):
        partial = sr.grouped_cross_validate(
            _CountingTree(log=str(log)),
            X,
            negative,
            groups=groups,
            scoring=["ndcg@5", "dcg@5"],
            cv=3,
        )
    separate_scorers()
    with pytest.warns(UserWarning, match="predicted nan for row 0"):
        old = search(np.nan).fit(X, y, groups=groups)
    _assert_same_results(new.cv_results_, old.cv_results_)
    assert np.isnan(new.cv_results_["mean_test_map"][1])
    assert np.isfinite(new.cv_results_["mean_test_map"][0])
    assert new.best_params_ == {"broken": False}
    with pytest.warns(UserWarning, match="y_true must be non-negative for 'ndcg@5'"):
        expected = sr.grouped_cross_validate(
            _CountingTree(log=str(log)),
            X,
            negative,
            groups=groups,
            scoring=["ndcg@5", "dcg@5"],
            cv=3,
        )
    _assert_same_results(partial, expected)
    assert np.isnan(partial["test_ndcg@5"]).all() and np.isfinite(partial["test_dcg@5"]).all()


def test_refit_is_checked_before_any_fit(data, tmp_path):
    X, y, groups = data
    log = tmp_path / "log"
    for refit in (True, "precision@3"):
        search = sr.GroupedGridSearchCV(
            _CountingTree(log=str(log)), GRID, scoring=NAMES, refit=refit, cv=3
        )
        with pytest.raises(
            ValueError, match=r"refit must name one of the scorers \('ndcg@10', 'map', 'mrr'\)"
        ):
            search.fit(X, y, groups=groups)
        assert _calls(log) == 0
    search = sr.GroupedGridSearchCV(
        _CountingTree(log=str(log)), GRID, scoring=NAMES, refit=False, cv=3
    ).fit(X, y, groups=groups)
    assert not hasattr(search, "best_params_") and "mean_test_mrr" in search.cv_results_


@pytest.mark.parametrize(
    "metrics, params, message",
    [
        (
            ["ndcg@10", "map"],
            {"ap_denominator": "min_k", "log_base": 10},
            "takes the parameter 'log_base'",
        ),
        (["ndcg@10", "ndcg@10"], {}, "names 'ndcg@10' twice"),
        ([], {}, "at least one metric"),
        ("ndcg@10", {}, "must be a list of scorer names"),
        (["nope@3"], {}, "Unknown metric name"),
        (["f1"], {}, "needs a cut-off"),
        (["arp"], {}, "'neg_arp'"),
        ({"a": len}, {}, "scorers must map names \\(str\\) to RankingScorers"),
        (["map"], {"error_score": "ignore"}, "error_score must be 'raise' or a number"),
    ],
)
def test_make_ranking_scorers_errors(metrics, params, message):
    with pytest.raises(ValueError, match=message):
        sr.make_ranking_scorers(metrics, **params)


def test_repr_and_pickle(data):
    import pickle

    model, X, y, groups, _ = _scores_of_every_scorer(data)
    scorer = sr.make_ranking_scorers(["ndcg@10", "neg_arp"])
    assert repr(scorer) == "make_ranking_scorers(['ndcg@10', 'neg_arp'])"
    custom = sr.make_ranking_scorers({"n": "ndcg@10"}, error_score="raise")
    assert repr(custom) == (
        "make_ranking_scorers({'n': make_ranking_scorer('ndcg@10', ties='average', "
        "gain='linear', no_relevant=0.0)}, error_score='raise')"
    )
    copy = pickle.loads(pickle.dumps(scorer))
    assert copy(model, X, y, groups=groups) == scorer(model, X, y, groups=groups)
