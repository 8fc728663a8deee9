"""Concurrency: the same values in worker processes (n_jobs=2) and from many threads.

Every metric call builds its own state, so results must be bit-for-bit those of a plain
single-threaded call: in scikit-learn's parallel cross-validation and searches, and from
threads that call metrics, scorers, readers and the grouped helpers at the same time on
different inputs. The grouped helpers enable metadata routing for their own call only;
scikit-learn's configuration is per thread, so another thread never sees it.
"""

import gc
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
import scipy.sparse
import sklearn
from sklearn.model_selection import GridSearchCV, GroupKFold, cross_val_score
from sklearn.tree import DecisionTreeRegressor

import sklearn_rank as sr
from sklearn_rank.datasets import make_ranking
from sklearn_rank.inputs._files import read_table

NAMES = [
    "ndcg@5",
    "ndcg",
    "map",
    "mrr@3",
    "precision@2",
    "recall@4",
    "f1@3",
    "hit_rate@1",
    "cg@3",
    "dcg@4",
    "auc",
    "auc@3",
    "arp",
    "kendall_tau",
]
THREADS = 8


@pytest.fixture(scope="module")
def data():
    X, y, groups = make_ranking(n_queries=60, min_query_size=2, max_query_size=12, random_state=3)
    return X, y, np.array([f"q{g:02d}" for g in groups])


def _model():
    # A tree: no BLAS, whose thread count differs in worker processes, so that fitted
    # models are identical everywhere and the comparison can be exact.
    return DecisionTreeRegressor(max_depth=4, random_state=0)


# --------------------------------------------------------------------------------------
# n_jobs=2: worker processes give the values of n_jobs=1
# --------------------------------------------------------------------------------------


def test_cross_val_score_n_jobs_equals_serial(data):
    X, y, groups = data
    scorer = sr.get_scorer("ndcg@5")
    with sklearn.config_context(enable_metadata_routing=True):
        serial = cross_val_score(
            _model(), X, y, scoring=scorer, cv=GroupKFold(4), params={"groups": groups}, n_jobs=1
        )
        parallel = cross_val_score(
            _model(), X, y, scoring=scorer, cv=GroupKFold(4), params={"groups": groups}, n_jobs=2
        )
    np.testing.assert_array_equal(parallel, serial)
    # And both equal the metric computed here, fold by fold.
    for fold, (train, test) in enumerate(GroupKFold(4).split(X, y, groups)):
        scores = _model().fit(X[train], y[train]).predict(X[test])
        assert serial[fold] == sr.ndcg_score(y[test], scores, k=5, groups=groups[test])


def test_grouped_cross_validate_n_jobs_equals_serial(data):
    X, y, groups = data
    scoring = [
        name if name != "arp" else "neg_arp"
        for name in NAMES
        if name not in ("cg@3", "precision@2", "recall@4", "f1@3", "hit_rate@1")
    ]
    results = [
        sr.grouped_cross_validate(
            _model(), X, y, groups=groups, scoring=scoring, cv=4, n_jobs=n_jobs, error_score="raise"
        )
        for n_jobs in (1, 2)
    ]
    for name in scoring:
        np.testing.assert_array_equal(results[1][f"test_{name}"], results[0][f"test_{name}"])
        assert np.isfinite(results[0][f"test_{name}"]).all()


@pytest.mark.parametrize("search_class", [sr.GroupedGridSearchCV, sr.GroupedRandomizedSearchCV])
def test_grouped_search_n_jobs_equals_serial(data, search_class):
    X, y, groups = data
    grid = {"max_depth": [2, 4, 6]}
    extra = {"n_iter": 3, "random_state": 0} if search_class is sr.GroupedRandomizedSearchCV else {}
    searches = [
        search_class(
            _model(),
            grid,
            scoring=["ndcg@5", "map"],
            refit="ndcg@5",
            cv=3,
            n_jobs=n_jobs,
            error_score="raise",
            **extra,
        ).fit(X, y, groups=groups)
        for n_jobs in (1, 2)
    ]
    serial, parallel = searches
    for key, values in serial.cv_results_.items():
        if key.startswith(("split", "mean_test", "rank_test")):
            np.testing.assert_array_equal(parallel.cv_results_[key], values, err_msg=key)
    assert parallel.best_params_ == serial.best_params_
    assert parallel.score(X, y, groups=groups) == serial.score(X, y, groups=groups)


def test_query_group_ranker_search_n_jobs_equals_serial(data):
    X, y, groups = data
    searches = [
        sr.GroupedGridSearchCV(
            sr.QueryGroupRanker(_model()),
            {"estimator__max_depth": [2, 5]},
            scoring="mrr",
            cv=3,
            n_jobs=n_jobs,
            error_score="raise",
        ).fit(X, y, groups=groups)
        for n_jobs in (1, 2)
    ]
    np.testing.assert_array_equal(
        searches[1].cv_results_["mean_test_score"], searches[0].cv_results_["mean_test_score"]
    )


# --------------------------------------------------------------------------------------
# Threads: many calls at once, each equal to its single-threaded value
# --------------------------------------------------------------------------------------


def _inputs(seed):
    """One input of a form chosen by ``seed``: every form the metrics take."""
    rng = np.random.default_rng(seed)
    n_queries, width = int(rng.integers(1, 30)), int(rng.integers(1, 15))
    rel = rng.integers(0, 4, size=(n_queries, width))
    score = rng.integers(0, 6, size=(n_queries, width)) / 2.0  # many ties
    form = seed % 5
    if form == 0:
        return (rel, score), {}
    if form == 1:
        groups = np.repeat([f"u{q}" for q in range(n_queries)], width)
        order = rng.permutation(groups.size)
        return (rel.ravel()[order], score.ravel()[order]), {"groups": groups[order]}
    if form == 2:
        return (scipy.sparse.csr_matrix(rel), score), {}
    if form == 3:
        truth = [{item: float(r) for item, r in enumerate(row) if r} for row in rel]
        return (truth, [list(rng.permutation(width)) for _ in range(n_queries)]), {}
    queries = np.repeat(np.arange(n_queries), width)
    items = np.tile(np.arange(width), n_queries)
    kept = rng.random(queries.size) < 0.7
    return (
        sr.ItemJudgments(queries, items, rel.ravel()),
        sr.ItemRanking(queries[kept], items[kept], score.ravel()[kept]),
    ), {}


def _call(seed):
    """evaluate, per query and as means, under conventions chosen by ``seed``."""
    (y_true, y_score), extra = _inputs(seed)
    conventions = [
        {},
        {"ties": "stable"},
        {"gain": "exponential", "no_relevant": "skip"},
        {"convention": "trec_eval"} if seed % 5 == 4 else {"ap_denominator": "min_k"},
    ]
    chosen = conventions[seed % len(conventions)]
    names = NAMES if chosen.get("no_relevant") != "skip" else [n for n in NAMES if n != "arp"]
    means = sr.evaluate(y_true, y_score, names, **extra, **chosen)
    per_query = sr.evaluate(y_true, y_score, names, per_query=True, **extra, **chosen)
    return means, per_query


def _same(a, b):
    means_a, per_query_a = a
    means_b, per_query_b = b
    assert list(means_a) == list(means_b)
    for name in means_a:
        assert means_a[name] == means_b[name], name
        # NaN marks a skipped query (no_relevant="skip"): equal where both have it.
        np.testing.assert_array_equal(per_query_a[name], per_query_b[name], err_msg=name)


@pytest.mark.slow
def test_evaluate_from_many_threads_equals_single_threaded():
    seeds = list(range(120))
    expected = {seed: _call(seed) for seed in seeds}
    with ThreadPoolExecutor(max_workers=THREADS) as pool:
        got = list(pool.map(_call, seeds * 2))  # each input twice, at the same time
    for seed, result in zip(seeds * 2, got):
        _same(result, expected[seed])


def test_metric_functions_and_inputs_untouched_under_threads():
    functions = [
        (sr.ndcg_score, {"k": 3}),
        (sr.mean_average_precision_score, {}),
        (sr.ranking_auc_score, {}),
        (sr.kendall_tau_score, {}),
        (sr.precision_at_k_score, {"k": 2}),
        (sr.average_relative_position, {}),
    ]
    cases = []
    for seed in range(60):
        (y_true, y_score), extra = _inputs(seed * 5 + 1)  # long format: arrays to watch
        function, params = functions[seed % len(functions)]
        cases.append((function, y_true, y_score, {**extra, **params}))
    copies = [(t.copy(), s.copy(), e["groups"].copy()) for _f, t, s, e in cases]
    expected = [function(t, s, **params) for function, t, s, params in cases]
    with ThreadPoolExecutor(max_workers=THREADS) as pool:
        got = list(pool.map(lambda case: case[0](case[1], case[2], **case[3]), cases * 2))
    assert got == expected * 2
    for (_f, t, s, e), (t0, s0, g0) in zip(cases, copies):
        np.testing.assert_array_equal(t, t0)
        np.testing.assert_array_equal(s, s0)
        np.testing.assert_array_equal(e["groups"], g0)


def test_one_scorer_shared_by_many_threads(data):
    X, y, groups = data
    model = _model().fit(X, y)
    scorers = [
        sr.get_scorer("ndcg@5"),
        sr.make_ranking_scorer("map@10", ties="stable"),
        sr.get_scorer("neg_arp"),
    ]
    rng = np.random.default_rng(0)
    subsets = [
        np.sort(rng.choice(len(y), size=int(rng.integers(20, len(y))), replace=False))
        for _ in range(40)
    ]
    jobs = [(scorer, rows) for scorer in scorers for rows in subsets]
    expected = [scorer(model, X[rows], y[rows], groups=groups[rows]) for scorer, rows in jobs]
    with ThreadPoolExecutor(max_workers=THREADS) as pool:
        got = list(
            pool.map(lambda job: job[0](model, X[job[1]], y[job[1]], groups=groups[job[1]]), jobs)
        )
    assert got == expected
    assert all(np.isfinite(value) for value in got)


def test_routing_stays_in_the_thread_that_enabled_it(data):
    """While grouped helpers run (routing on for their call), plain scikit-learn in other
    threads still runs without routing: the scorer there must say it got no query ids."""
    X, y, groups = data
    expected = sr.grouped_cross_validate(_model(), X, y, groups=groups, scoring="ndcg@5", cv=3)[
        "test_score"
    ]

    def grouped(_):
        return sr.grouped_cross_validate(_model(), X, y, groups=groups, scoring="ndcg@5", cv=3)[
            "test_score"
        ]

    def plain(_):
        search = GridSearchCV(
            _model(), {}, scoring=sr.get_scorer("ndcg@5"), cv=GroupKFold(3), error_score="raise"
        )
        with pytest.raises(ValueError, match="called without query ids"):
            search.fit(X, y, groups=groups)
        return sklearn.get_config()["enable_metadata_routing"]

    with ThreadPoolExecutor(max_workers=THREADS) as pool:
        grouped_runs = [pool.submit(grouped, i) for i in range(8)]
        plain_runs = [pool.submit(plain, i) for i in range(8)]
        for run in grouped_runs:
            np.testing.assert_array_equal(run.result(), expected)
        assert [run.result() for run in plain_runs] == [False] * 8
    assert sklearn.get_config()["enable_metadata_routing"] is False


def test_query_group_ranker_fits_in_threads(data):
    X, y, groups = data
    rng = np.random.default_rng(1)
    orders = [rng.permutation(len(y)) for _ in range(16)]

    def fit_predict(order):
        ranker = sr.QueryGroupRanker(_model()).fit(X[order], y[order], groups=groups[order])
        return ranker.n_queries_, ranker.predict(X)

    expected = [fit_predict(order) for order in orders]
    with ThreadPoolExecutor(max_workers=THREADS) as pool:
        got = list(pool.map(fit_predict, orders))
    for (n_got, scores_got), (n_expected, scores_expected) in zip(got, expected):
        assert n_got == n_expected == 60
        np.testing.assert_array_equal(scores_got, scores_expected)


def test_file_readers_in_threads(tmp_path):
    """The readers pause the garbage collector while parsing: from many threads at once
    they still read every file exactly and leave it enabled."""
    rng = np.random.default_rng(2)
    files = []
    for number in range(24):
        n = int(rng.integers(1, 400))
        scores = (rng.integers(0, 1000, size=n) / 8.0).tolist()
        run = tmp_path / f"run{number}.txt"
        run.write_text("".join(f"q{i % 7} Q0 d{i} 0 {s!r} t\n" for i, s in enumerate(scores)))
        qrels = tmp_path / f"qrels{number}.txt"
        qrels.write_text("".join(f"q{i % 7} 0 d{i} {i % 3}\n" for i in range(n)))
        table = tmp_path / f"rec{number}.csv"
        table.write_text(
            "query,item,score\n" + "".join(f"q{i % 7},d{i},{s!r}\n" for i, s in enumerate(scores))
        )
        files.append((run, qrels, table, scores, n))

    def read(paths):
        run, qrels, table, _scores, _n = paths
        return (
            sr.read_trec_run(run).scores,
            sr.read_trec_qrels(qrels).relevance,
            read_table(table, query="query", item="item", score="score").scores,
        )

    assert gc.isenabled()
    with ThreadPoolExecutor(max_workers=THREADS) as pool:
        got = list(pool.map(read, files * 3))
    assert gc.isenabled()
    for (run_scores, relevance, table_scores), (_r, _q, _t, scores, n) in zip(got, files * 3):
        np.testing.assert_array_equal(run_scores, scores)
        np.testing.assert_array_equal(table_scores, scores)
        np.testing.assert_array_equal(relevance, np.arange(n) % 3)
