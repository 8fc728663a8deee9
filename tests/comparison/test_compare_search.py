"""Out-of-fold per-query values of grouped searches and cross-validation, and
`compare_search`, against evaluate on the out-of-fold predictions, the corrected t-test's
formula and the plot of a real comparison."""

import numpy as np
import pytest
import scipy.stats
import sklearn
from numpy.testing import assert_allclose, assert_array_equal
from scipy.stats import loguniform
from sklearn.base import BaseEstimator, RegressorMixin, clone
from sklearn.feature_selection import SelectKBest, f_regression
from sklearn.frozen import FrozenEstimator
from sklearn.linear_model import Lasso, Ridge
from sklearn.model_selection import GroupKFold, GroupShuffleSplit
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import StandardScaler

from sklearn_rank import (
    GroupedGridSearchCV,
    GroupedRandomizedSearchCV,
    compare_search,
    evaluate,
    grouped_cross_validate,
    make_ranking_scorer,
    query_ids,
)
from sklearn_rank.datasets import make_ranking

X, Y, GROUPS = make_ranking(n_queries=48, random_state=0)
ALPHAS = [0.1, 30.0, 3000.0, 1e5]


def _out_of_fold(model, folds, metrics):
    """evaluate on the out-of-fold predictions; a query in several test folds: the mean."""
    ids = query_ids(GROUPS)
    sums = {metric: np.zeros(ids.size) for metric in metrics}
    counts = np.zeros(ids.size)
    position = {query: i for i, query in enumerate(ids.tolist())}
    for train, test in folds:
        fitted = model.fit(X[train], Y[train])
        table = evaluate(
            Y[test], fitted.predict(X[test]), metrics, groups=GROUPS[test], per_query="table"
        )
        rows = [position[query] for query in table["query"].tolist()]
        counts[rows] += 1
        for metric in metrics:
            sums[metric][rows] += table[metric]
    with np.errstate(invalid="ignore"):  # a query never in a test fold: NaN
        return {metric: sums[metric] / counts for metric in metrics}


@pytest.mark.slow
@pytest.mark.parametrize("n_jobs", [1, 2])
def test_grid_search_keeps_each_candidates_out_of_fold_values(n_jobs):
    search = GroupedGridSearchCV(
        Ridge(),
        {"alpha": ALPHAS},
        scoring=["ndcg@5", "map"],
        refit="ndcg@5",
        cv=4,
        n_jobs=n_jobs,
        return_train_score=True,
    )
    search.fit(X, Y, groups=GROUPS)
    table = search.per_query_results_
    assert list(table) == ["query", "ndcg@5", "map"]
    assert_array_equal(table["query"], query_ids(GROUPS))
    folds = list(GroupKFold(4).split(X, Y, GROUPS))
    for column, alpha in enumerate(ALPHAS):
        expected = _out_of_fold(Ridge(alpha=alpha), folds, ["ndcg@5", "map"])
        for metric in ("ndcg@5", "map"):
            # Training scores (return_train_score) are not recorded: one test fold per query.
            assert_array_equal(table[metric][:, column], expected[metric])
    assert search.split_n_queries_["test"].tolist() == [12] * 4
    assert search.split_n_queries_["train"].tolist() == [36] * 4
    # The split scores are the means of each fold's recorded values.
    for k, (_train, test) in enumerate(folds):
        rows = np.isin(table["query"], GROUPS[test])
        assert_allclose(
            table["ndcg@5"][rows].mean(axis=0),
            search.cv_results_[f"split{k}_test_ndcg@5"],
            rtol=1e-12,
        )


def test_repeated_splitter_averages_a_query_over_its_test_folds():
    splitter = GroupShuffleSplit(n_splits=5, test_size=0.3, random_state=0)
    folds = list(splitter.split(X, Y, GROUPS))
    result = grouped_cross_validate(
        Ridge(alpha=3.0), X, Y, groups=GROUPS, scoring=["mrr"], cv=folds, return_per_query=True
    )
    expected = _out_of_fold(Ridge(alpha=3.0), folds, ["mrr"])["mrr"]
    # Queries never in a test fold have no value.
    assert_array_equal(np.isnan(result["per_query"]["mrr"]), np.isnan(expected))
    assert np.isnan(expected).any() and not np.isnan(expected).all()
    assert_allclose(result["per_query"]["mrr"], expected, rtol=1e-15)
    assert "per_query" not in grouped_cross_validate(
        Ridge(), X, Y, groups=GROUPS, scoring="mrr", cv=3
    )


@pytest.mark.slow
def test_randomized_search_and_pipeline_candidates_are_matched_across_processes():
    search = GroupedRandomizedSearchCV(
        Ridge(),
        {"alpha": loguniform(1e-2, 1e5)},
        n_iter=3,
        scoring="ndcg@5",
        cv=3,
        n_jobs=2,
        random_state=0,
    )
    search.fit(X, Y, groups=GROUPS)
    folds = list(GroupKFold(3).split(X, Y, GROUPS))
    for column, params in enumerate(search.cv_results_["params"]):
        expected = _out_of_fold(Ridge(**params), folds, ["ndcg@5"])["ndcg@5"]
        assert_array_equal(search.per_query_results_["ndcg@5"][:, column], expected)
    pipeline = Pipeline([("scale", StandardScaler()), ("model", Ridge())])
    grid = {"model": [Ridge(alpha=1.0), Lasso(alpha=0.05)]}
    search = GroupedGridSearchCV(pipeline, grid, scoring="map", cv=3, n_jobs=2)
    search.fit(X, Y, groups=GROUPS)
    values = search.per_query_results_["map"]
    assert not np.isnan(values).any()
    assert not np.array_equal(values[:, 0], values[:, 1])
    result = compare_search(search, test="t")
    assert result.run_names == ["model=Ridge", "model=Lasso"]


class _Direction:
    """A parameter value compared by identity, whose repr shows its address: scikit-learn's
    clone (a deep copy) gives the fitted model a copy with another repr."""

    def __init__(self, weights):
        self.weights = np.asarray(weights, dtype=np.float64)


class _Projection(RegressorMixin, BaseEstimator):
    """Scores rows by a fixed direction; fitting learns nothing."""

    def __init__(self, direction=None):
        self.direction = direction

    def fit(self, X, y):
        self.n_features_in_ = X.shape[1]
        return self

    def predict(self, X):
        return X @ self.direction.weights


def _every_query(scores, metric):
    """evaluate over every row at once: the out-of-fold values of a model that does not
    depend on its training rows (each query is in one test fold)."""
    return evaluate(Y, scores, [metric], groups=GROUPS, per_query=True)[metric]


def test_a_model_scored_on_several_folds_is_recorded_on_each():
    # FrozenEstimator's clone is the model itself: every fold scores the same object, its
    # training rows too. Recording the first call on each model kept one fold of 4.
    model = Ridge(alpha=1.0).fit(X[::3], Y[::3])
    result = grouped_cross_validate(
        FrozenEstimator(model),
        X,
        Y,
        groups=GROUPS,
        scoring=["ndcg@5", "map"],
        cv=4,
        return_train_score=True,
        return_per_query=True,
    )
    for metric in ("ndcg@5", "map"):
        assert_array_equal(result["per_query"][metric], _every_query(model.predict(X), metric))


def test_candidates_whose_parameters_have_the_same_repr_keep_their_own_values():
    # Reprs of long pipelines are cut in the middle, where these two differ.
    def pipeline(k):
        steps = [(f"center_{i}", StandardScaler(with_std=False)) for i in range(20)]
        steps.insert(10, ("select", SelectKBest(f_regression, k=k)))
        return Pipeline([*steps, ("ridge", Ridge())])

    grid = {"model": [pipeline(2), pipeline(8)]}
    assert repr(grid["model"][0]) == repr(grid["model"][1])
    search = GroupedGridSearchCV(Pipeline([("model", Ridge())]), grid, scoring="ndcg@5", cv=4)
    search.fit(X, Y, groups=GROUPS)
    folds = list(GroupKFold(4).split(X, Y, GROUPS))
    for column, model in enumerate(grid["model"]):
        expected = _out_of_fold(clone(model), folds, ["ndcg@5"])["ndcg@5"]
        assert_array_equal(search.per_query_results_["ndcg@5"][:, column], expected)


def test_candidates_whose_repr_changes_when_copied_are_found():
    rng = np.random.default_rng(0)
    directions = [_Direction(rng.normal(size=X.shape[1])) for _ in range(3)]
    search = GroupedGridSearchCV(
        _Projection(), {"direction": directions}, scoring="mrr", cv=3, return_train_score=True
    )
    search.fit(X, Y, groups=GROUPS)
    for column, direction in enumerate(directions):
        expected = _every_query(X @ direction.weights, "mrr")
        assert_array_equal(search.per_query_results_["mrr"][:, column], expected)


def test_two_folds_whose_training_set_is_the_other_test_set():
    # With two folds, fold 0's training rows are fold 1's test rows: the training scores
    # (return_train_score) score a test set's rows, with the other fold's model.
    search = GroupedGridSearchCV(
        Ridge(), {"alpha": ALPHAS}, scoring="ndcg@5", cv=2, return_train_score=True
    )
    search.fit(X, Y, groups=GROUPS)
    folds = list(GroupKFold(2).split(X, Y, GROUPS))
    for column, alpha in enumerate(ALPHAS):
        expected = _out_of_fold(Ridge(alpha=alpha), folds, ["ndcg@5"])["ndcg@5"]
        assert_array_equal(search.per_query_results_["ndcg@5"][:, column], expected)


def _search(scoring=("ndcg@5", "map"), cv=4):
    search = GroupedGridSearchCV(
        Ridge(), {"alpha": ALPHAS}, scoring=list(scoring), refit=scoring[0], cv=cv
    )
    return search.fit(X, Y, groups=GROUPS)


def test_compare_search_pairs_the_candidates_out_of_fold_values():
    search = _search()
    result = compare_search(search, test="t", correction=None)
    assert result.run_names == ["alpha=0.1", "alpha=30.0", "alpha=3000.0", "alpha=100000.0"]
    assert result.baseline == result.run_names[search.best_index_]
    assert result.metrics == ["ndcg@5", "map"]  # every scorer by default
    for metric in result.metrics:
        assert_array_equal(result.per_query[metric], search.per_query_results_[metric])
    assert_array_equal(result.query_ids, search.per_query_results_["query"])
    best = search.best_index_
    for row in range(len(result.pairs["run"])):
        column = result.run_names.index(result.pairs["run"][row])
        values = search.per_query_results_[result.pairs["metric"][row]]
        expected = scipy.stats.ttest_rel(values[:, column], values[:, best]).pvalue
        assert_allclose(result.pairs["p_value"][row], expected, rtol=1e-13)
    top = compare_search(search, ["map", "ndcg@5"], candidates=2, baseline=None, test="t")
    ranked = np.argsort(search.cv_results_["rank_test_map"], kind="stable")[:2]
    assert top.run_names == [result.run_names[i] for i in sorted(ranked)]
    assert top.metrics == ["map", "ndcg@5"]
    chosen = compare_search(search, candidates=[3, 0], baseline=3, test="t")
    assert chosen.run_names == ["alpha=100000.0", "alpha=0.1"]
    assert chosen.baseline == "alpha=100000.0"
    assert compare_search(search, baseline="alpha=30.0", test="t").baseline == "alpha=30.0"


def test_compare_search_corrected_t_uses_split_scores_counted_in_queries():
    search = _search(
        scoring=("ndcg@5",), cv=GroupShuffleSplit(n_splits=6, test_size=0.25, random_state=1)
    )
    result = compare_search(search, test="corrected_t", correction=None, confidence=0.9)
    n_train = search.split_n_queries_["train"][0]
    n_test = search.split_n_queries_["test"][0]
    assert (n_train, n_test) == (36, 12)
    scores = np.column_stack([search.cv_results_[f"split{k}_test_ndcg@5"] for k in range(6)])
    best = search.best_index_
    for row in range(len(result.pairs["run"])):
        column = result.run_names.index(result.pairs["run"][row])
        # scikit-learn's example, "Statistical comparison of models using grid search":
        d = scores[column] - scores[best]
        corrected_sd = np.sqrt((1 / 6 + n_test / n_train) * d.var(ddof=1))
        t = d.mean() / corrected_sd
        assert_allclose(result.pairs["p_value"][row], 2 * scipy.stats.t.sf(abs(t), 5), rtol=1e-12)
        half = scipy.stats.t.ppf(0.95, 5) * corrected_sd
        assert_allclose(
            [result.pairs["diff_ci_low"][row], result.pairs["diff_ci_high"][row]],
            [d.mean() - half, d.mean() + half],
            rtol=1e-12,
        )
        assert (
            result.pairs["wins"][row] + result.pairs["ties"][row] + result.pairs["losses"][row] == 6
        )
    assert_allclose(result.runs["mean"], search.cv_results_["mean_test_ndcg@5"], rtol=1e-14)
    assert "n_train=36 and n_test=12 queries" in result.to_markdown()


def test_compare_search_bad_input():
    with pytest.raises(
        ValueError,
        match=r"search must be a fitted GroupedGridSearchCV or "
        r"GroupedRandomizedSearchCV.*got GroupedGridSearchCV that is not fitted",
    ):
        compare_search(GroupedGridSearchCV(Ridge(), {"alpha": ALPHAS}, scoring="map"))
    search = _search()
    with pytest.raises(
        ValueError,
        match=r"metrics must be one of the search's ranking scorers "
        r"\(ndcg@5, map\) or a list of them; got 'mrr'",
    ):
        compare_search(search, "mrr")
    with pytest.raises(
        ValueError,
        match=r"baseline must be 'best', None, a row of cv_results_ "
        r"or a candidate name .*; got 'alpha=2'",
    ):
        compare_search(search, baseline="alpha=2")
    with pytest.raises(
        ValueError,
        match=r"candidates must hold at least two distinct indices "
        r"in \[0, 4\)",
    ):
        compare_search(search, candidates=[0, 7])
    with pytest.raises(ValueError, match=r"n_resamples must be a positive integer; got 0"):
        compare_search(search, n_resamples=0)
    with pytest.raises(ValueError, match=r"^metrics must name at least one scorer"):
        compare_search(search, [])


def test_per_query_difference_display_from_a_real_comparison():
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from sklearn_rank import PerQueryDifferenceDisplay

    search = _search()
    result = compare_search(search, "map", test="t")
    run = next(name for name in result.run_names if name != result.baseline)
    display = PerQueryDifferenceDisplay.from_comparison(result, run=run, metric="map")
    values = result.per_query["map"]
    column = result.run_names.index(run)
    expected = values[:, column] - values[:, result.run_names.index(result.baseline)]
    assert_array_equal(display.differences, expected)
    assert_array_equal(display.query_ids, result.query_ids)
    assert display.baseline_name == result.baseline and display.name == run
    heights = [bar.get_height() for bar in display.bars_]
    assert_array_equal(heights, np.sort(expected)[::-1])
    plt.close("all")


@pytest.mark.parametrize("metric", ["gm_map", "map"])
def test_recorded_split_scores_keep_the_metrics_own_aggregate(metric):
    # A grouped search records per-query values; its split scores must still be the
    # metric's own aggregate (gm_map's geometric mean), as evaluate gives: gm_map's split
    # score was the arithmetic mean of the per-query APs (0.833 vs 0.350).
    search = GroupedGridSearchCV(Ridge(), {"alpha": [1.0]}, scoring=metric, cv=4)
    search.fit(X, Y, groups=GROUPS)
    for k, (train, test) in enumerate(GroupKFold(4).split(X, Y, GROUPS)):
        predicted = Ridge(alpha=1.0).fit(X[train], Y[train]).predict(X[test])
        expected = evaluate(Y[test], predicted, [metric], groups=GROUPS[test])[metric]
        assert_allclose(search.cv_results_[f"split{k}_test_score"][0], expected, rtol=1e-12)


@pytest.mark.parametrize("alternative", ["greater", "less"])
def test_compare_search_one_sided_corrected_t_and_per_query_t(alternative):
    search = _search(
        scoring=("ndcg@5",), cv=GroupShuffleSplit(n_splits=6, test_size=0.25, random_state=1)
    )
    result = compare_search(search, test="corrected_t", correction=None, alternative=alternative)
    scores = np.column_stack([search.cv_results_[f"split{k}_test_ndcg@5"] for k in range(6)])
    values = search.per_query_results_["ndcg@5"]
    per_query = compare_search(search, test="t", correction=None, alternative=alternative)
    best = search.best_index_
    for row in range(len(result.pairs["run"])):
        column = result.run_names.index(result.pairs["run"][row])
        d = scores[column] - scores[best]
        t = d.mean() / np.sqrt((1 / 6 + 12 / 36) * d.var(ddof=1))
        expected = scipy.stats.t.sf(t, 5) if alternative == "greater" else scipy.stats.t.cdf(t, 5)
        assert_allclose(result.pairs["pvalue"][row], expected, rtol=1e-12)
        # Queries never in a test fold have no value: paired over the others.
        x, y = values[:, column], values[:, best]
        kept = ~np.isnan(x) & ~np.isnan(y)
        reference = scipy.stats.ttest_rel(x[kept], y[kept], alternative=alternative)
        assert_allclose(per_query.pairs["pvalue"][row], reference.pvalue, rtol=1e-13)
    with pytest.raises(ValueError, match=r"^alternative must be one of"):
        compare_search(search, alternative="two_sided")


def _weighted_search(weights, cv=4):
    """A search whose two ranking scorers read routed query weights (issue 28, item 11)."""
    with sklearn.config_context(enable_metadata_routing=True):
        scoring = {
            name: make_ranking_scorer(name).set_score_request(sample_weight=True)
            for name in ("ndcg@5", "map")
        }
        model = Ridge().set_fit_request(sample_weight=False)
    search = GroupedGridSearchCV(model, {"alpha": ALPHAS}, scoring=scoring, refit="ndcg@5", cv=cv)
    return search.fit(X, Y, groups=GROUPS, sample_weight=weights)


def _query_weight_rows():
    """A weight per query (1, 2 or 3), repeated on each of its rows, and the weights in
    the order of ``query_ids``."""
    ids = query_ids(GROUPS)
    per_query = 1.0 + np.arange(ids.size) % 3
    position = {query: i for i, query in enumerate(ids.tolist())}
    rows = per_query[[position[query] for query in GROUPS.tolist()]]
    return rows, per_query


def test_a_search_scored_with_query_weights_is_never_compared_as_if_unweighted():
    # The case: compare_search paired the unweighted per-query values, so each
    # candidate's mean was not the weighted one the search reported, without a word.
    rows, per_query = _query_weight_rows()
    search = _weighted_search(rows)
    for label in ("ndcg@5", "map"):
        assert_array_equal(search.per_query_weights_[label], per_query)
    for test in ("randomization", "t", "wilcoxon", "bootstrap", "tukey_hsd"):
        with pytest.raises(
            ValueError,
            match=r"^sample_weight cannot be used by compare_search \(the search's scorer "
            r"'ndcg@5' weighted its queries with sample_weight from 1 to 3: "
            r"per_query_weights_\): its paired tests.*test='corrected_t'",
        ):
            compare_search(search, "ndcg@5", test=test, n_resamples=100)
    # The split scores are the weighted ones: the corrected t-test compares them, and each
    # candidate's mean is the search's weighted mean_test_score.
    result = compare_search(search, "ndcg@5", test="corrected_t", correction=None)
    assert_allclose(result.runs["mean"], search.cv_results_["mean_test_ndcg@5"], rtol=1e-14)
    folds = list(GroupKFold(4).split(X, Y, GROUPS))
    for column, alpha in enumerate(ALPHAS):
        for k, (train, test) in enumerate(folds):
            predicted = Ridge(alpha=alpha).fit(X[train], Y[train]).predict(X[test])
            expected = evaluate(
                Y[test], predicted, ["ndcg@5"], groups=GROUPS[test], sample_weight=rows[test]
            )["ndcg@5"]
            stored = search.cv_results_[f"split{k}_test_ndcg@5"][column]
            assert_allclose(stored, expected, rtol=1e-14)


def test_equal_query_weights_change_nothing_and_unweighted_searches_record_none():
    unweighted = _search()
    assert unweighted.per_query_weights_ == {}
    weighted = _weighted_search(np.full(X.shape[0], 2.0))
    assert_array_equal(weighted.per_query_weights_["map"], np.full(query_ids(GROUPS).size, 2.0))
    expected = compare_search(unweighted, ["ndcg@5", "map"], test="t")
    got = compare_search(weighted, ["ndcg@5", "map"], test="t")
    for column in ("diff", "pvalue", "pvalue_adjusted"):
        assert_array_equal(got.pairs[column], expected.pairs[column])
    assert_array_equal(got.runs["mean"], expected.runs["mean"])


def test_compare_search_compares_every_scorer_by_default_the_refit_one_first():
    # Issue 27, item 7: compare_search(metric=) compared only the refit scorer by default.
    search = GroupedGridSearchCV(
        Ridge(), {"alpha": ALPHAS}, scoring=["map", "mrr", "ndcg@5"], refit="ndcg@5", cv=3
    ).fit(X, Y, groups=GROUPS)
    result = compare_search(search, test="t")
    assert result.metrics == ["ndcg@5", "map", "mrr"]
    assert result.baseline == result.run_names[search.best_index_]
    # Each metric's columns before the correction are those it has compared alone.
    for metric in result.metrics:
        alone = compare_search(search, metric, baseline=result.baseline, test="t")
        rows = result.pairs["metric"] == metric
        for column in ("diff", "diff_ci_low", "diff_ci_high", "pvalue", "effect_size"):
            assert_array_equal(result.pairs[column][rows], alone.pairs[column])
    # With refit=False (no refit scorer), every scorer in the order of scoring.
    unrefitted = GroupedGridSearchCV(
        Ridge(), {"alpha": ALPHAS}, scoring=["map", "mrr"], refit=False, cv=3
    ).fit(X, Y, groups=GROUPS)
    assert compare_search(unrefitted, test="t").metrics == ["map", "mrr"]


def test_compare_search_metric_is_a_deprecated_alias_of_metrics():
    search = _search()
    expected = compare_search(search, metrics="map", test="t")
    with pytest.warns(
        FutureWarning,
        match=r"^compare_search\(metric=\) is deprecated in version 0\.2 and will be "
        r"removed in 0\.4; use metrics=",
    ):
        got = compare_search(search, metric="map", test="t")
    assert got.metrics == ["map"]
    assert_array_equal(got.pairs["pvalue"], expected.pairs["pvalue"])
    with pytest.raises(ValueError, match=r"^metric is a deprecated alias of metrics: pass"):
        compare_search(search, "map", metric="map")
