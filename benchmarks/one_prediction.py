"""A grouped search scored by several metrics: one prediction per fold against one per metric.

`GroupedGridSearchCV` scored by a list of sklearn_rank metrics now scores with one
`MultimetricRankingScorer` (one ``predict`` and one ranking per fold); before, scikit-learn
called one scorer per metric and each predicted the fold again. Both paths run here, in
the same process, on two models whose ``predict`` is slow:

- ``sleep``: a tree whose ``predict`` also sleeps ``--sleep`` seconds (a stand-in for a
  model served remotely or a large ensemble): the saving is the sleeping, predictable;
- ``knn``: `KNeighborsRegressor` on about 15,000 rows (a real model whose predict
  dominates the search).

The former path is the same search with the combining step switched off (each metric's
`RankingScorer` on its own, as scikit-learn's list scoring calls them). Each search runs
``--repeat`` times, the two paths alternating; the best time is kept. ``predict`` calls
are counted through a file, so that worker processes (``--n-jobs``) count too.

    python benchmarks/one_prediction.py               # about a minute on 2 cores
    python benchmarks/one_prediction.py --n-jobs 2 --repeat 1
"""

import argparse
import os
import platform
import tempfile
import time
from unittest import mock

import numpy as np
import sklearn
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.neighbors import KNeighborsRegressor
from sklearn.tree import DecisionTreeRegressor

import sklearn_rank as sr
from sklearn_rank.datasets import make_ranking
from sklearn_rank.model_selection import _search

METRICS = ["ndcg@10", "map", "mrr", "precision@5"]


class _Counted(RegressorMixin, BaseEstimator):
    """``model`` (a tree or a KNN) whose predict is logged, and sleeps ``sleep`` seconds."""

    def __init__(self, kind="sleep", param=3, sleep=0.0, log=None):
        self.kind = kind
        self.param = param
        self.sleep = sleep
        self.log = log

    def fit(self, X, y):
        if self.kind == "sleep":
            self.model_ = DecisionTreeRegressor(max_depth=self.param, random_state=0)
        else:
            self.model_ = KNeighborsRegressor(n_neighbors=self.param, n_jobs=1)
        self.model_.fit(X, y)
        return self

    def predict(self, X):
        with open(self.log, "a") as log:
            log.write("p\n")
        if self.sleep:
            time.sleep(self.sleep)
        return self.model_.predict(X)


def _count(log):
    with open(log) as file:
        count = file.read().count("p")
    open(log, "w").close()
    return count


def _search_once(kind, params, sleep, X, y, groups, log, n_jobs, separate):
    search = sr.GroupedGridSearchCV(
        _Counted(kind=kind, sleep=sleep, log=log),
        {"param": params},
        scoring=METRICS,
        refit="ndcg@10",
        cv=3,
        n_jobs=n_jobs,
        error_score="raise",
    )
    patch = mock.patch.object(_search, "_one_prediction", lambda scoring, error_score: scoring)
    start = time.perf_counter()
    if separate:
        with patch:
            search.fit(X, y, groups=groups)
    else:
        search.fit(X, y, groups=groups)
    return time.perf_counter() - start, _count(log), search


def _workload(name, kind, params, sleep, X, y, groups, log, args):
    times = {"one scorer per metric (before)": [], "make_ranking_scorers (now)": []}
    counts, searches = {}, {}
    for repetition in range(args.repeat):
        order = list(times) if repetition % 2 == 0 else list(times)[::-1]
        for label in order:
            separate = label.endswith("(before)")
            seconds, calls, search = _search_once(
                kind, params, sleep, X, y, groups, log, args.n_jobs, separate
            )
            times[label].append(seconds)
            counts[label], searches[label] = calls, search
    before, now = (searches[label] for label in times)
    same = all(
        np.array_equal(before.cv_results_[key], now.cv_results_[key])
        for key in before.cv_results_
        if key.startswith(("split", "mean_test", "rank_test"))
    )
    n_candidates = len(params)
    print(
        f"\n{name}: {n_candidates} candidates x 3 folds, {len(METRICS)} metrics "
        f"({', '.join(METRICS)}), n_jobs={args.n_jobs}"
    )
    print(f"  {'scoring':34} {'predict calls':>13} {'best s':>8}")
    for label, values in times.items():
        print(f"  {label:34} {counts[label]:>13} {min(values):>8.2f}")
    ratio = min(times["one scorer per metric (before)"]) / min(times["make_ranking_scorers (now)"])
    print(
        f"  speed-up {ratio:.2f}x; cv_results_ identical: {same}; best_params_ "
        f"{now.best_params_} (before: {before.best_params_})"
    )


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="runs of each path (best kept)")
    parser.add_argument("--n-jobs", type=int, default=1, help="the search's n_jobs")
    parser.add_argument("--sleep", type=float, default=0.05, help="seconds per predict call")
    args = parser.parse_args(argv)
    print(
        f"Python {platform.python_version()}, numpy {np.__version__}, scikit-learn "
        f"{sklearn.__version__}, {os.cpu_count()} CPUs, load average "
        f"{', '.join(f'{value:.2f}' for value in os.getloadavg())}"
    )
    with tempfile.TemporaryDirectory() as directory:
        log = os.path.join(directory, "predict.log")
        open(log, "w").close()
        X, y, groups = make_ranking(n_queries=300, random_state=0)
        _workload(
            f"sleep: tree + {args.sleep} s per predict, {X.shape[0]:,} rows",
            "sleep",
            [2, 4, 6, 8],
            args.sleep,
            X,
            y,
            groups,
            log,
            args,
        )
        X, y, groups = make_ranking(
            n_queries=600, min_query_size=10, max_query_size=40, n_features=20, random_state=0
        )
        _workload(
            f"knn: KNeighborsRegressor, {X.shape[0]:,} rows x {X.shape[1]} features",
            "knn",
            [10, 50],
            0.0,
            X,
            y,
            groups,
            log,
            args,
        )


if __name__ == "__main__":
    main()
