"""Beyond-accuracy metrics: time and memory on the W4 shape, against NDCG@10 and RecTools.

Data (fixed seed): 50,000 users x top-100 item ids over 20,000 items (the W4 shape of
run.py), about 20 relevant test items per user (sparse truth), 100,000 training rows of
long-tailed popularity, and 64 item features (dense; binary for the Hamming distance that
RecTools uses).

Printed, in one run:
- sklearn_rank: ``ndcg@10`` alone; coverage, entropy, gini, novelty, popularity and aplt at
  k = 10 in one call (target: within 2x of ``ndcg@10`` alone); ``diversity@10`` over 64
  dense features, cosine (target: within 5x); the tracemalloc peak of each call against the
  bytes of its inputs (target: within 2x). Each time is the least of ``--repeat`` runs,
  both sides alternating, so that a machine that slows for a while slows both.
- RecTools (if a Python with ``rectools`` is given by ``--rectools-python``: RecTools pins
  numpy < 2, so it lives in its own environment): every metric both have -- NDCG@10,
  CatalogCoverage, MeanInvUserFreq (novelty), AvgRecPopularity (popularity),
  IntraListDiversity over the Hamming distance -- on the same data (written to a temporary
  .npz), timed in its process; ours under ``convention="rectools"``, the values compared.
  Both sides time their calls the same way: round after round, each metric once per round
  (a metric timed several times in a row would find its data in the processor's cache).

Run: python benchmarks/beyond.py [--repeat 3] [--users 50000]
     [--rectools-python /path/to/venv/bin/python]
"""

import argparse
import json
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

import numpy as np
import scipy.sparse

import sklearn_rank as sr

SEED = 4
CORPUS = ["coverage@10", "entropy@10", "gini@10", "novelty@10", "popularity@10", "aplt@10"]


def make_data(n_users, n_items=20_000, top_n=100, relevant=20, train_rows=100_000, dim=64):
    rng = np.random.default_rng(SEED)
    rows = np.repeat(np.arange(n_users), relevant)
    truth = scipy.sparse.csr_matrix(
        (np.ones(rows.size), (rows, rng.integers(0, n_items, rows.size))), (n_users, n_items)
    )
    truth.sum_duplicates()
    truth.data[:] = 1.0
    # Top-100 distinct items per user, popular items more often: ranks drawn by Gumbel top-k
    # would need a users x items matrix; a permutation prefix of a skewed pool is enough.
    top = np.argsort(rng.random((n_users, 400)), axis=1)[:, :top_n] * (n_items // 400)
    top += np.minimum(rng.zipf(1.6, (n_users, 1)), n_items // 400) - 1
    weight = 1.0 / np.arange(1, n_items + 1) ** 0.9
    train_users = rng.integers(0, n_users, train_rows)
    train_items = rng.choice(n_items, train_rows, p=weight / weight.sum())
    pairs = np.unique(train_users * np.int64(n_items) + train_items)
    train_users, train_items = pairs // n_items, pairs % n_items
    features = rng.random((n_items, dim))
    binary = (features > 0.5).astype(np.float64)
    return truth, top, train_users, train_items, features, binary


def _peak(call):
    tracemalloc.start()
    try:
        call()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def _best(calls, repeat):
    """The least time of each call over ``repeat`` rounds, the calls alternating."""
    best = {name: np.inf for name in calls}
    for _ in range(repeat):
        for name, call in calls.items():
            start = time.perf_counter()
            call()
            best[name] = min(best[name], time.perf_counter() - start)
    return best


RECTOOLS_SCRIPT = r"""
import json, sys, time
import numpy as np, pandas as pd
from rectools import Columns
from rectools.metrics import (NDCG, AvgRecPopularity, CatalogCoverage, IntraListDiversity,
                              MeanInvUserFreq, PairwiseHammingDistanceCalculator)
data = np.load(sys.argv[1])
top, repeat = data["top"], int(sys.argv[2])  # the same top-100 lists; k cuts them
n_users, n = top.shape
reco = pd.DataFrame({Columns.User: np.repeat(np.arange(n_users), n), Columns.Item: top.ravel(),
                     Columns.Rank: np.tile(np.arange(1, n + 1), n_users)})
prev = pd.DataFrame({Columns.User: data["train_users"], Columns.Item: data["train_items"]})
test = pd.DataFrame({Columns.User: data["truth_users"], Columns.Item: data["truth_items"]})
distance = PairwiseHammingDistanceCalculator(pd.DataFrame(data["binary"]))
catalog = np.arange(data["binary"].shape[0])
calls = {
    "ndcg@10": lambda: NDCG(k=10).calc(reco, test),
    "coverage@10": lambda: CatalogCoverage(k=10, normalize=True).calc(reco, catalog),
    "novelty@10": lambda: MeanInvUserFreq(k=10).calc(reco, prev),
    "popularity@10": lambda: AvgRecPopularity(k=10).calc(reco, prev),
    "diversity@10": lambda: IntraListDiversity(k=10, distance_calculator=distance).calc(reco),
}
out = {name: {"seconds": float("inf")} for name in calls}
for _ in range(repeat):  # round after round, as ours are timed (`_best`)
    for name, call in calls.items():
        start = time.perf_counter(); value = call(); seconds = time.perf_counter() - start
        out[name] = {"seconds": min(seconds, out[name]["seconds"]), "value": float(value)}
print(json.dumps(out))
"""


def rectools_side(python, data, repeat):
    truth, top, train_users, train_items, _features, binary = data
    truth = truth.tocoo()
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "data.npz"
        np.savez(
            path,
            top=top,
            train_users=train_users,
            train_items=train_items,
            truth_users=truth.row,
            truth_items=truth.col,
            binary=binary,
        )
        done = subprocess.run(
            [python, "-c", RECTOOLS_SCRIPT, str(path), str(repeat)],
            capture_output=True,
            text=True,
        )
    if done.returncode:
        raise RuntimeError(f"RecTools failed:\n{done.stderr}")
    return json.loads(done.stdout)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, default=50_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--rectools-python", metavar="PYTHON")
    args = parser.parse_args()

    data = make_data(args.users)
    truth, top, train_users, train_items, features, binary = data
    run = sr.ItemRanking.from_topn(top)
    train = (train_users, train_items)
    inputs = truth.data.nbytes + truth.indices.nbytes + truth.indptr.nbytes + top.nbytes
    inputs += train_users.nbytes + train_items.nbytes

    calls = {
        "ndcg@10": lambda: sr.evaluate(truth, run, ["ndcg@10"]),
        "six measures": lambda: sr.evaluate(truth, run, CORPUS, train=train),
        "diversity@10": lambda: sr.evaluate(truth, run, ["diversity@10"], item_features=features),
    }
    for call in calls.values():
        call()  # first-call costs outside the timings
    times = _best(calls, args.repeat)
    peaks = {name: _peak(call) for name, call in calls.items()}
    sizes = {
        "ndcg@10": inputs - train_users.nbytes - train_items.nbytes,
        "six measures": inputs,
        "diversity@10": inputs - train_users.nbytes - train_items.nbytes + features.nbytes,
    }
    targets = {"six measures": 2.0, "diversity@10": 5.0}
    print(f"{args.users:,} users x top-100 over 20,000 items, k = 10; least of {args.repeat}")
    print(f"{'call':14} {'seconds':>8} {'x ndcg@10':>9} {'peak MiB':>9} {'x input':>8}  target")
    for name, seconds in times.items():
        ratio = seconds / times["ndcg@10"]
        memory = peaks[name] / sizes[name]
        target = targets.get(name)
        verdict = ""
        if target is not None:
            ok = ratio <= target and memory <= 2.0
            verdict = f"time <= {target}x, memory <= 2x: {'PASS' if ok else 'FAIL'}"
        print(
            f"{name:14} {seconds:8.3f} {ratio:9.2f} {peaks[name] / 2**20:9.1f} {memory:8.2f}  "
            f"{verdict}"
        )

    if not args.rectools_python:
        print("\nRecTools: not run (give --rectools-python, a Python with rectools installed)")
        return
    theirs = rectools_side(args.rectools_python, data, args.repeat)
    ours_calls = {
        "ndcg@10": lambda: sr.evaluate(truth, run, ["ndcg@10"], convention="rectools"),
        "coverage@10": lambda: sr.evaluate(
            truth, run, ["coverage(normalize=True)@10"], convention="rectools"
        ),
        "novelty@10": lambda: sr.evaluate(
            truth, run, ["novelty@10"], train=train, convention="rectools"
        ),
        "popularity@10": lambda: sr.evaluate(
            truth, run, ["popularity@10"], train=train, convention="rectools"
        ),
        "diversity@10": lambda: sr.evaluate(
            truth, run, ["diversity@10"], item_features=binary, convention="rectools"
        ),
    }
    ours = _best(ours_calls, args.repeat)
    print("\nAgainst RecTools 0.19 (each metric alone; ours under convention='rectools')")
    print(f"{'metric':14} {'ours s':>8} {'RecTools s':>10} {'speed-up':>9}  values")
    for name, call in ours_calls.items():
        value = next(iter(call().values()))
        other = theirs[name]
        same = abs(value - other["value"]) <= 1e-9 * max(1.0, abs(value))
        print(
            f"{name:14} {ours[name]:8.3f} {other['seconds']:10.3f} "
            f"{other['seconds'] / ours[name]:8.1f}x  {value:.10g} vs {other['value']:.10g}"
            f" ({'equal' if same else 'DIFFER'})"
        )


if __name__ == "__main__":
    sys.exit(main())
