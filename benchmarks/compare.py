"""`compare` against ranx's `compare` in the same run, and the randomised Tukey HSD.

Workload C1 (the issue's targets): 10,000 queries of 50 candidates with graded relevance,
a baseline and 5 runs, NDCG@10, MAP and precision@10, randomization test with 10,000
resamples: sklearn_rank's ``compare(..., baseline=...)`` (15 tests) should take under 5 s
with a peak of under 300 MB of new memory (tracemalloc), and be faster than ranx with the
same resamples. ranx's ``compare`` has no baseline: it tests every ordered pair (30 tests
per metric, each unordered pair twice), so three ranx figures are printed:

- ranx's own ``evaluate`` and ``fisher_randomization_test`` on the 15 (pair, metric)
  columns that sklearn_rank tests: the same work (the target's comparison);
- ``ranx.compare(stat_test="student")`` against sklearn_rank's ``test="t"``;
- with ``--full-ranx``, ``ranx.compare`` on the 6 runs as users call it (Fisher, 10,000
  permutations, 90 tests: about 6 minutes at full size here) against sklearn_rank's
  ``compare`` with ``baseline=None`` (every pair, 45 tests).

Workload C2: the randomised Tukey HSD over 10 runs x 10,000 queries, 1,000 permutations
(target: under 10 s for the whole ``compare`` call).

    python benchmarks/compare.py            # about 2 minutes, most of it in ranx
    python benchmarks/compare.py --quick    # 10x fewer queries: a smoke run
    python benchmarks/compare.py --no-ranx  # sklearn_rank only

Times are the best of ``--repeat`` runs (default 3): the machine may be shared.
"""

import argparse
import platform
import sys
import time
import tracemalloc

import numpy as np

import sklearn_rank as sr

METRICS = ["ndcg@10", "map", "precision@10"]
N_RESAMPLES = 10_000


def _workload(n_queries, n_candidates, n_runs, seed=0):
    rng = np.random.default_rng(seed)
    y_true = rng.integers(0, 3, size=(n_queries, n_candidates)) * (
        rng.random((n_queries, n_candidates)) < 0.3
    )
    y_true[:, 0] = np.maximum(y_true[:, 0], 1)  # every query has a relevant item
    noises = np.linspace(1.6, 1.2, n_runs)
    runs = {
        f"run{i}": y_true + rng.normal(0, noise, y_true.shape) for i, noise in enumerate(noises)
    }
    return y_true, runs


def _best(call, repeat):
    times, result = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        result = call()
        times.append(time.perf_counter() - start)
    return min(times), result


def _peak_mb(call):
    tracemalloc.start()
    try:
        call()
        return tracemalloc.get_traced_memory()[1] / 2**20
    finally:
        tracemalloc.stop()


def _ranx_objects(ranx, y_true, runs):
    queries = [f"q{q}" for q in range(y_true.shape[0])]
    docs = [f"d{d}" for d in range(y_true.shape[1])]
    rows, cols = np.nonzero(y_true)
    qrels = {}
    for q, d in zip(rows.tolist(), cols.tolist()):
        qrels.setdefault(queries[q], {})[docs[d]] = int(y_true[q, d])
    ranx_runs = []
    for name, scores in runs.items():
        run = {q: dict(zip(docs, row)) for q, row in zip(queries, scores.tolist())}
        ranx_runs.append(ranx.Run(run, name=name))
    return ranx.Qrels(qrels), ranx_runs


def c1(n_queries, repeat, with_ranx, full_ranx=False):
    y_true, runs = _workload(n_queries, 50, 6)
    print(
        f"C1: {n_queries:,} queries x 50 candidates, baseline + 5 runs, {', '.join(METRICS)}, "
        f"randomization, {N_RESAMPLES:,} resamples"
    )

    def ours():
        return sr.compare(
            y_true, runs, METRICS, baseline="run0", n_resamples=N_RESAMPLES, random_state=0
        )

    ours()  # warm up imports
    seconds, result = _best(ours, repeat)
    peak = _peak_mb(ours)
    every, _ = _best(
        lambda: sr.compare(y_true, runs, METRICS, n_resamples=N_RESAMPLES, random_state=0), 1
    )
    t_only, _ = _best(lambda: sr.compare(y_true, runs, METRICS, baseline="run0", test="t"), repeat)
    print(
        f"  sklearn_rank compare, baseline (15 tests + intervals): {seconds:.2f} s, "
        f"peak {peak:.0f} MB   [target < 5 s, < 300 MB: "
        f"{'PASS' if seconds < 5 and peak < 300 else 'FAIL'}]"
    )
    print(f"  sklearn_rank compare, every pair (45 tests + intervals): {every:.2f} s")
    print(f"  sklearn_rank compare, baseline, test='t' (no resampling): {t_only:.2f} s")
    if not with_ranx:
        return
    try:
        import ranx
        from ranx.statistical_tests import fisher_randomization_test
    except ImportError:
        print("  ranx is not installed: skipped")
        return
    start = time.perf_counter()
    qrels, ranx_runs = _ranx_objects(ranx, y_true, runs)
    print(f"  (ranx Qrels/Run built from dicts in {time.perf_counter() - start:.1f} s, not timed)")
    small_q, small_runs = _ranx_objects(ranx, y_true[:50], {k: v[:50] for k, v in runs.items()})
    ranx.compare(small_q, small_runs[:2], METRICS, stat_test="fisher", n_permutations=10)  # jit

    per_query = {
        run.name: ranx.evaluate(qrels, run, METRICS, return_mean=False) for run in ranx_runs
    }
    # The same per-query values (ranx orders queries by id as strings): the same tests.
    order = np.argsort(np.array([f"q{q}" for q in range(n_queries)]), kind="stable")
    for column, name in enumerate(runs):
        for metric in METRICS:
            np.testing.assert_allclose(
                per_query[name][metric], result.per_query[metric][order, column], rtol=1e-9
            )

    def ranx_same_tests():
        values = {
            run.name: ranx.evaluate(qrels, run, METRICS, return_mean=False) for run in ranx_runs
        }
        return [
            fisher_randomization_test(values["run0"][m], values[name][m], N_RESAMPLES, 0.05, 42)
            for name in list(runs)[1:]
            for m in METRICS
        ]

    same, _ = _best(ranx_same_tests, 1)
    print(
        f"  ranx: evaluate + fisher_randomization_test on the same 15 columns: {same:.2f} s "
        f"({same / seconds:.1f}x sklearn_rank)   [faster than ranx: "
        f"{'PASS' if seconds < same else 'FAIL'}]"
    )
    if full_ranx:
        full, _ = _best(
            lambda: ranx.compare(
                qrels, ranx_runs, METRICS, stat_test="fisher", n_permutations=N_RESAMPLES
            ),
            1,
        )
        print(
            f"  ranx.compare, fisher, every ordered pair (90 tests): {full:.2f} s "
            f"({full / every:.1f}x sklearn_rank every pair)"
        )
    student, _ = _best(lambda: ranx.compare(qrels, ranx_runs, METRICS, stat_test="student"), 1)
    print(
        f"  ranx.compare, student (no resampling): {student:.2f} s "
        f"({student / t_only:.1f}x sklearn_rank test='t' with a baseline)"
    )


def c2(n_queries, repeat):
    y_true, runs = _workload(n_queries, 20, 10, seed=1)
    print(f"C2: randomised Tukey HSD, 10 runs x {n_queries:,} queries, 1,000 permutations")

    def tukey():
        return sr.compare(
            y_true, runs, ["ndcg@10"], test="tukey_hsd", n_resamples=1_000, random_state=0
        )

    seconds, _ = _best(tukey, repeat)
    print(
        f"  sklearn_rank compare(test='tukey_hsd'), 45 pairs + intervals: {seconds:.2f} s   "
        f"[target < 10 s: {'PASS' if seconds < 10 else 'FAIL'}]"
    )


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="10x fewer queries")
    parser.add_argument("--repeat", type=int, default=3, help="timed repetitions (best kept)")
    parser.add_argument("--no-ranx", action="store_true", help="leave ranx out")
    parser.add_argument(
        "--full-ranx",
        action="store_true",
        help="also time ranx.compare's Fisher test on every ordered pair (minutes at full size)",
    )
    args = parser.parse_args(argv)
    n_queries = 1_000 if args.quick else 10_000
    print(
        f"Python {platform.python_version()}, numpy {np.__version__}, "
        f"sklearn_rank {sr.__version__}, {platform.processor() or platform.machine()}"
    )
    c1(n_queries, args.repeat, not args.no_ranx, args.full_ranx)
    c2(n_queries, args.repeat)
    return 0


if __name__ == "__main__":
    sys.exit(main())
