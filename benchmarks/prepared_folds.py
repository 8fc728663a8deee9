"""A grouped search normalises each test fold once, not once per candidate.

`GroupedGridSearchCV` of 6 candidates x 5 folds (Ridge, cheap to fit, so that scoring
shows) scored by NDCG@10 and MAP, on 5,000 queries (137,178 rows), with integer and with
string query ids. Both paths run in the same process: the scorers keeping each fold's
normalised queries (`sklearn_rank.model_selection._prepared`), and the same search with
that cache switched off (every call normalises its fold, as before). The two searches'
``cv_results_`` test scores and ``per_query_results_`` are checked equal to the bit.
Each path runs ``--repeat`` times, alternating; the best time is kept. ``score`` is the
scoring time scikit-learn measured (``mean_score_time`` times the folds, summed). On a
shared machine the searches' times vary by tens of percent from run to run, so one scorer
call on a test fold of about 27,000 rows is also timed alone (``call``: the best of 30,
after a first call that keeps the fold): the difference is the normalisation saved.

    python benchmarks/prepared_folds.py               # about a minute on 2 cores
"""

import argparse
import time

import numpy as np
from sklearn.linear_model import Ridge

import sklearn_rank as sr
from sklearn_rank.datasets import make_ranking
from sklearn_rank.model_selection import _prepared


def _search(X, y, groups):
    search = sr.GroupedGridSearchCV(
        Ridge(),
        {"alpha": [0.01, 0.1, 1.0, 10.0, 100.0, 1000.0]},
        scoring=["ndcg@10", "map"],
        refit="ndcg@10",
        cv=5,
    )
    start = time.perf_counter()
    search.fit(X, y, groups=groups)
    seconds = time.perf_counter() - start
    scoring = float(np.sum(search.cv_results_["mean_score_time"]) * 5)
    return seconds, scoring, search


def _call(X, y, groups, cache):
    """The best time of one scorer call on a test fold, the fold kept or not."""
    _prepared._CACHE_SIZE = cache
    _prepared._FOLDS.clear()
    test = np.isin(groups, np.unique(groups)[::5])
    model = Ridge().fit(X[~test], y[~test])
    scorer = sr.make_ranking_scorers(["ndcg@10", "map"])
    scorer(model, X[test], y[test], groups=groups[test])
    times = []
    for _ in range(30):
        truth, ids = y[test], groups[test]  # new arrays each time, as in a search
        start = time.perf_counter()
        scorer(model, X[test], truth, groups=ids)
        times.append(time.perf_counter() - start)
    _prepared._CACHE_SIZE = _SIZE
    return min(times)


_SIZE = _prepared._CACHE_SIZE


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    X, y, numbers = make_ranking(n_queries=5000, random_state=0)
    kinds = {
        "int64 ids": numbers,
        "str ids": np.array([f"query-{i:06d}" for i in numbers], dtype=object),
    }
    size = _prepared._CACHE_SIZE
    for kind, groups in kinds.items():
        best = {}
        for _ in range(args.repeat):
            results = {}
            for label, cache in (("each call", 0), ("once per fold", size)):
                _prepared._CACHE_SIZE = cache
                _prepared._FOLDS.clear()
                seconds, scoring, search = _search(X, y, groups)
                results[label] = search
                old = best.get(label, (np.inf, np.inf))
                best[label] = (min(old[0], seconds), min(old[1], scoring))
            before, after = results.values()
            for key, values in before.cv_results_.items():
                if "_test_" in key:
                    np.testing.assert_array_equal(after.cv_results_[key], values, err_msg=key)
            for key, values in before.per_query_results_.items():
                np.testing.assert_array_equal(after.per_query_results_[key], values)
        _prepared._CACHE_SIZE = size
        best["each call"] += (_call(X, y, groups, 0),)
        best["once per fold"] += (_call(X, y, groups, size),)
        print(
            f"{kind}: "
            + "; ".join(
                f"{label} {seconds:.2f} s (score {scoring:.2f} s, call {call * 1e3:.1f} ms)"
                for label, (seconds, scoring, call) in best.items()
            )
        )


if __name__ == "__main__":
    main()
