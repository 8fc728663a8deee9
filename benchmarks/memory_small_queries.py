"""Peak memory of evaluating millions of one-item queries, against the inputs' size.

The per-query bookkeeping (query boundaries, counts, per-query values) is the part of the
memory that grows with the number of queries, not with the number of rows; two million
one-item queries make it as large as it can be relative to the input. Measured as
benchmarks/run.py measures memory: the tracemalloc peak of one `evaluate` call (tracemalloc
sees numpy's allocations) divided by the bytes of the input arrays.

Forms: a dense 2,000,000 x 1 matrix (y_true int64, y_score float64) and long format (the
same values as 1-D arrays with distinct int64 query ids, one row per query, in random
order). Values as in benchmarks/run.py: relevance 0-4, non-zero with probability 0.05
(``--relevant`` changes it), scores uniform(0, 1) + 0.1 * relevance. Metrics: each of the
five of benchmarks/run.py alone, all five in one call, ``auc`` alone, and every metric of
the registry in one call (cut-off 10 where a metric takes one).

    python benchmarks/memory_small_queries.py                  # 2,000,000 queries
    python benchmarks/memory_small_queries.py --relevant 0.5   # half the items relevant
"""

import argparse
import gc
import time
import tracemalloc

import numpy as np

import sklearn_rank as sr

METRICS = ["ndcg@10", "precision@10", "recall@10", "map", "mrr"]
EVERY = [name.replace("@K", "@10") for name in sr.get_metric_names()]
CALLS = {**{name: [name] for name in METRICS}, "all five": METRICS, "auc": ["auc"]}
CALLS[f"all {len(EVERY)}"] = EVERY
MIB = 2**20


def workloads(n_queries, relevant, seed=0):
    rng = np.random.default_rng(seed)
    nonzero = rng.random(n_queries) < relevant
    rel = np.where(nonzero, rng.integers(1, 5, n_queries), 0)
    score = rng.random(n_queries) + 0.1 * rel
    ids = rng.permutation(np.arange(n_queries, dtype=np.int64) * 7 + 3)
    return {
        "dense": ((rel.reshape(-1, 1), score.reshape(-1, 1)), {}),
        "long, int ids": ((rel, score), {"groups": ids}),
    }


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


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=2_000_000)
    parser.add_argument("--relevant", type=float, default=0.05, help="share of relevant items")
    args = parser.parse_args(argv)
    worst = {}
    for form, (arrays, kwargs) in workloads(args.queries, args.relevant).items():
        input_bytes = sum(a.nbytes for a in arrays) + sum(a.nbytes for a in kwargs.values())
        print(f"{form}: {args.queries:,} one-item queries, inputs {input_bytes / MIB:.1f} MiB")
        sr.evaluate(*(a[:10] for a in arrays), ["ndcg"], **{k: v[:10] for k, v in kwargs.items()})
        for label, names in CALLS.items():
            _, peak, seconds = traced(
                lambda names=names, arrays=arrays, kwargs=kwargs: sr.evaluate(
                    *arrays, names, **kwargs
                )
            )
            ratio = peak / input_bytes
            if label != f"all {len(EVERY)}":
                worst[(form, label)] = ratio
            print(
                f"  {label:<13} peak {peak / MIB:7.1f} MiB = {ratio:5.2f}x the inputs"
                f"  ({seconds:.2f} s under tracemalloc)"
            )
    (form, label), ratio = max(worst.items(), key=lambda item: item[1])
    print(f"worst of the five, all five and auc: {ratio:.2f}x the inputs ({form}, {label})")


if __name__ == "__main__":
    main()
