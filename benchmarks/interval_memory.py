"""Peak memory of the comparison's bootstrap intervals for many columns (issue: 1,000 runs
with every pair asked for 3.7 GiB at 1,000 resamples).

Per-query values of ``--runs`` runs on ``--queries`` queries; every pair of runs gives a
column of differences, each run a column of values: ``_bootstrap_intervals`` computes the
BCa interval of every column from one set of resamples, in chunks of columns whose resample
means fit the block budget. Prints the time, the tracemalloc peak, and the memory that
holding every column's resample means at once would take.

    python benchmarks/interval_memory.py                 # 1,000 runs, 50 queries, B = 1,000
    python benchmarks/interval_memory.py --runs 200      # a quicker run
"""

import argparse
import time
import tracemalloc

import numpy as np

from sklearn_rank.comparison._intervals import _bootstrap_intervals


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1000)
    parser.add_argument("--queries", type=int, default=50)
    parser.add_argument("--resamples", type=int, default=1000)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    values = rng.random((args.queries, args.runs))
    first, second = np.triu_indices(args.runs, k=1)
    columns = np.concatenate([values, values[:, first] - values[:, second]], axis=1)
    n_columns = columns.shape[1]
    at_once = n_columns * args.resamples * 8
    tracemalloc.start()
    start = time.perf_counter()
    low, high = _bootstrap_intervals(columns, args.resamples, np.random.default_rng(1), 0.95)
    seconds = time.perf_counter() - start
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert np.isfinite(low).all() and np.isfinite(high).all() and (low <= high).all()
    print(
        f"{args.runs:,} runs, every pair: {n_columns:,} columns of {args.queries} queries, "
        f"{args.resamples:,} resamples"
    )
    print(
        f"  time {seconds:.1f} s; peak {peak / 2**20:,.1f} MiB above the input "
        f"({columns.nbytes / 2**20:,.1f} MiB)"
    )
    print(f"  every column's resample means at once would take {at_once / 2**30:,.2f} GiB")


if __name__ == "__main__":
    main()
