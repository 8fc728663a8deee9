"""Out-of-fold per-query values of grouped searches and cross-validation, and
`compare_search`, against evaluate on the out-of-fold predictions, the corrected t-test's
formula and the plot of a real comparison."""

import numpy as np
import pytest
import scipy.stats
from numpy.testing import assert_allclose, assert_array_equal
from scipy.stats import loguniform
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
    values = search.per_query_results_["ndcg@5"]
    assert_array_equal(result.per_query["ndcg@5"], values)
    assert_array_equal(result.query_ids, search.per_query_results_["query"])
    best = search.best_index_
    for row in range(len(result.pairs["run"])):
        column = result.run_names.index(result.pairs["run"][row])
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
        match=r"metric must be one of the search's ranking scorers "
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
    several = GroupedGridSearchCV(
        Ridge(), {"alpha": ALPHAS}, scoring=["map", "mrr"], refit=False, cv=3
    ).fit(X, Y, groups=GROUPS)
    with pytest.raises(
        ValueError,
        match=r"metric must name one of the search's ranking "
        r"scorers \(map, mrr\)",
    ):
        compare_search(several)


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
