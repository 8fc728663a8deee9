"""Peak memory of evaluating top-N recommendations against sparse truth, beyond the inputs.

Workload W4 of the benchmark issue: 50,000 users x 20,000 items, about 20 relevant items per
user as a sparse matrix, top-100 recommended item ids per user. Prints the inputs' size, the
peak of the memory allocated during `evaluate` (tracemalloc sees numpy's allocations), their
ratio, and the time. Run: python benchmarks/memory_topn.py
"""

import time
import tracemalloc

import numpy as np
import scipy.sparse

import sklearn_rank as sr

N_USERS, N_ITEMS, RELEVANT, TOP = 50_000, 20_000, 20, 100
METRICS = ["ndcg@10", "precision@10", "recall@10", "map", "mrr"]


def workload(seed=0):
    rng = np.random.default_rng(seed)
    rows = np.repeat(np.arange(N_USERS), RELEVANT)
    cols = rng.integers(0, N_ITEMS, rows.size)
    truth = scipy.sparse.csr_matrix((np.ones(rows.size), (rows, cols)), shape=(N_USERS, N_ITEMS))
    truth.sum_duplicates()
    truth.data[:] = 1.0
    # Top-100 distinct items per user: a random permutation prefix, vectorised.
    top = np.argsort(rng.random((N_USERS, 400)), axis=1)[:, :TOP] * (N_ITEMS // 400)
    top += rng.integers(0, N_ITEMS // 400, (N_USERS, 1))
    return truth, top


def main():
    truth, top = workload()
    input_bytes = truth.data.nbytes + truth.indices.nbytes + truth.indptr.nbytes + top.nbytes
    run = sr.ItemRanking.from_topn(top)
    for name in METRICS:  # warm up imports and caches outside the measurement
        sr.evaluate(truth[:10], sr.ItemRanking.from_topn(top[:10]), [name])
    tracemalloc.start()
    start = time.perf_counter()
    values = sr.evaluate(truth, run, METRICS)
    seconds = time.perf_counter() - start
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    print(
        f"inputs: sparse truth {truth.nnz:,} entries + top-{TOP} ids of {N_USERS:,} users "
        f"= {input_bytes / 2**20:.1f} MiB"
    )
    print(
        f"evaluate({', '.join(METRICS)}): {seconds:.2f} s, peak allocated during the call "
        f"{peak / 2**20:.1f} MiB = {peak / input_bytes:.2f} x the inputs"
    )
    print({name: round(value, 5) for name, value in values.items()})


if __name__ == "__main__":
    main()
