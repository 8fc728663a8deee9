"""Time and memory at the extremes (issue 28, items 4 and 6), as ratios measured in one run.

Item 6: `evaluate` with every registry metric (cut-off 10 where a metric takes one) on
10^6 long-format rows (10,000 queries of about 100 rows, relevance 0-4 with 10% non-zero,
scores rounded to 2 decimals so that queries hold small tie groups; ``ties="average"``):
the tracemalloc peak of the call against the input's bytes (target: at most 3x), and each
metric alone against ``map`` alone on the same rows (target: none above 3x). Every timing
is the least of ``--repeat`` alternating runs, so a machine that slows for a while slows
both sides of a ratio.

Item 4: infAP and interpolated precision on one query of n equal scores (dense: every
candidate judged, 30% relevant; mixed: half the candidates unjudged, 40% of the judged
relevant): time and tracemalloc peak per n, or the refusal's message where the exact
average is refused (docs/metrics.md, "Ties").

    python benchmarks/extremes.py                 # 10^6 rows, 3 repetitions
    python benchmarks/extremes.py --rows 100000 --repeat 1 --no-ties
    python benchmarks/extremes.py --no-ties --per-query 1000   # longer queries
"""

import argparse
import gc
import time
import tracemalloc

import numpy as np

import sklearn_rank as sr

EVERY = [name.replace("@K", "@10") for name in sr.get_metric_names()]
MIB = 2**20


def long_rows(n_rows, per_query=100, seed=0):
    rng = np.random.default_rng(seed)
    query = np.sort(rng.integers(0, max(1, n_rows // per_query), n_rows)).astype(np.int64)
    rel = np.where(rng.random(n_rows) < 0.1, rng.integers(1, 5, n_rows), 0).astype(np.int64)
    score = np.round(rng.random(n_rows) + 0.1 * rel, 2)
    return rel, score, query


def traced(function):
    gc.collect()
    tracemalloc.start()
    tracemalloc.reset_peak()
    start = time.perf_counter()
    try:
        value = function()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return value, peak, time.perf_counter() - start


def timed(function):
    gc.collect()
    start = time.perf_counter()
    function()
    return time.perf_counter() - start


def item6(n_rows, repeat, per_query):
    rel, score, query = long_rows(n_rows, per_query)
    input_bytes = rel.nbytes + score.nbytes + query.nbytes
    print(
        f"item 6: {n_rows:,} long-format rows, about {per_query} a query, {len(EVERY)} "
        f"metrics, inputs {input_bytes / MIB:.1f} MiB"
    )

    def call(names):
        return lambda: sr.evaluate(rel, score, names, groups=query)

    call(EVERY)()  # imports and first-call costs
    _, peak, seconds = traced(call(EVERY))
    every_time = min(timed(call(EVERY)) for _ in range(repeat))
    print(
        f"  all {len(EVERY)} in one call: {every_time:.2f} s; peak {peak / MIB:.1f} MiB = "
        f"{peak / input_bytes:.2f}x the inputs (target 3x): "
        f"{'PASS' if peak <= 3 * input_bytes else 'FAIL'}"
    )
    ratios = {}
    for name in EVERY:
        best_map = best = float("inf")
        for _ in range(repeat):
            best_map = min(best_map, timed(call(["map"])))
            best = min(best, timed(call([name])))
        ratios[name] = (best, best / best_map, best_map)
    for name, (best, ratio, best_map) in sorted(ratios.items(), key=lambda x: -x[1][1])[:8]:
        print(f"  {name:<22} {best:6.2f} s  = {ratio:5.2f}x map ({best_map:.2f} s)")
    worst = max(ratios, key=lambda name: ratios[name][1])
    print(
        f"  slowest against map: {worst} {ratios[worst][1]:.2f}x (target 3x): "
        f"{'PASS' if ratios[worst][1] <= 3 else 'FAIL'}"
    )


def one_tie_group(n, kind, rng):
    if kind == "dense":
        return ((rng.random((1, n)) < 0.3).astype(float), np.zeros((1, n))), {}
    items = np.arange(n)
    judged = items[rng.random(n) < 0.5]
    labels = (rng.random(judged.size) < 0.4).astype(np.int64)
    truth = sr.ItemJudgments(np.zeros(judged.size, dtype=np.int64), judged, labels)
    run = sr.ItemRanking(np.zeros(n, dtype=np.int64), items, np.zeros(n))
    return (truth, run), {}


def item4(sizes):
    print("item 4: one query of n equal scores, ties='average'")
    rng = np.random.default_rng(0)
    sr.evaluate([[1, 0, 1]], [[0, 0, 0]], ["infap", "iprec_avg"])
    for name in ["infap", "iprec_avg"]:
        for kind in ["dense", "mixed"]:
            for n in sizes:
                (y_true, y_score), _ = one_tie_group(n, kind, rng)
                try:
                    value, peak, seconds = traced(
                        lambda y_true=y_true, y_score=y_score, name=name: sr.evaluate(
                            y_true, y_score, [name]
                        )[name]
                    )
                    print(
                        f"  {name:<9} {kind:<5} n={n:<7,} {value:.6f}  {seconds:7.2f} s  "
                        f"peak {peak / MIB:7.1f} MiB"
                    )
                except ValueError as error:
                    print(f"  {name:<9} {kind:<5} n={n:<7,} refused: {str(error)[:90]}...")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--per-query", type=int, default=100, help="item 6's rows a query")
    parser.add_argument("--no-ties", action="store_true", help="skip item 4")
    parser.add_argument("--no-rows", action="store_true", help="skip item 6")
    parser.add_argument(
        "--sizes", default="100,200,1000,1600,6400,50000,100000", help="item 4's tie groups"
    )
    args = parser.parse_args(argv)
    if not args.no_ties:
        item4([int(x) for x in args.sizes.split(",")])
    if not args.no_rows:
        item6(args.rows, args.repeat, args.per_query)


if __name__ == "__main__":
    main()
