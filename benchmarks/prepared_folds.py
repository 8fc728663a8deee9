"""A grouped search normalises each test fold once, not once per candidate.

`GroupedGridSearchCV` of 6 candidates x 5 folds (Ridge, cheap to fit, so that scoring
shows) scored by NDCG@10 and MAP, on 5,000 queries (137,178 rows), with integer and with
string query ids. Both paths run in the same process: the scorers keeping each fold's
normalised queries (`sklearn_rank.model_selection._prepared`), and the same search with
that cache switched off (every call normalises its fold, as before). The two searches'
``cv_results_`` test scores and ``per_query_results_`` are checked equal to the bit.
Each path runs ``--repeat`` times, alternating; the best time is kept. ``score`` is the
scoring time scikit-learn measured (``mean_score_time`` times the folds, summed).

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
        print(
            f"{kind}: "
            + "; ".join(
                f"{label} {seconds:.2f} s (score {scoring:.2f} s)"
                for label, (seconds, scoring) in best.items()
            )
        )


if __name__ == "__main__":
    main()
