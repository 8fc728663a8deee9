"""Cost of a whole metric@k curve against one evaluate call at its largest cut-off.

`metric_at_k_curve(..., k_max=100)` gives every cut-off 1..100 from one ranking; the
target is at most 2x `evaluate(..., ["ndcg@100"])` on W1 (dense 10,000 x 1,000) and W4
(50,000 users, top-100 ids against sparse truth), the workloads of benchmarks/run.py. Each
repetition times the evaluate call and every curve back to back (so that a busy machine
slows both alike); the table reports medians and their ratio, then PASS/FAIL.

    python benchmarks/curves.py               # W1 and W4, 5 repetitions (about 1 minute)
    python benchmarks/curves.py --quick       # 10x fewer queries: a smoke run
    python benchmarks/curves.py --repeat 9 --workloads W4
"""

import argparse
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import numpy as np  # noqa: E402
from run import make_w1, make_w4  # noqa: E402

import sklearn_rank as sr  # noqa: E402

K_MAX = 100
TARGET = 2.0
CURVES = ["ndcg", "precision", "recall", "map", "mrr", "auc"]


def _inputs(workload):
    """(y_true, y_score builder): W4's ItemRanking.from_topn is inside the timed calls,
    as in run.py."""
    if workload.name == "W4":
        truth, top = workload.inputs["truth"], workload.inputs["top_ids"]
        return truth, lambda: sr.ItemRanking.from_topn(top)
    y_true, y_score = workload.inputs["y_true"], workload.inputs["y_score"]
    return y_true, lambda: y_score


def _seconds(call):
    start = time.perf_counter()
    call()
    return time.perf_counter() - start


def run(workload, repeat):
    y_true, scores = _inputs(workload)
    baseline = f"ndcg@{K_MAX}"

    def evaluate_once():
        return sr.evaluate(y_true, scores(), [baseline])[baseline]

    def curve(metric):
        return sr.metric_at_k_curve(y_true, scores(), metric, k_max=K_MAX)[1]

    # Warm up (imports, caches), and check the last point against evaluate once.
    expected = evaluate_once()
    last = curve("ndcg")[-1]
    assert abs(last - expected) <= 1e-12, (last, expected)
    times = {"evaluate": [], **{metric: [] for metric in CURVES}}
    for _ in range(repeat):
        times["evaluate"].append(_seconds(evaluate_once))
        for metric in CURVES:
            times[metric].append(_seconds(lambda metric=metric: curve(metric)))
    return {name: statistics.median(values) for name, values in times.items()}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workloads", default="W1,W4", help="W1, W4 or both (default)")
    parser.add_argument("--repeat", type=int, default=5, help="timed repetitions (median)")
    parser.add_argument("--quick", action="store_true", help="10x fewer queries")
    args = parser.parse_args(argv)
    makers = {"W1": make_w1, "W4": make_w4}
    scale = 10 if args.quick else 1
    print(f"sklearn_rank {sr.__version__}, numpy {np.__version__}, {os.cpu_count()} CPUs")
    print(
        f"| workload | curve k=1..{K_MAX} | seconds | evaluate ndcg@{K_MAX} | ratio | "
        f"target <= {TARGET:g}x |"
    )
    print("|---|---|---|---|---|---|")
    failed = False
    for name in args.workloads.split(","):
        workload = makers[name.strip()](scale)
        medians = run(workload, args.repeat)
        base = medians["evaluate"]
        for metric in CURVES:
            ratio = medians[metric] / base
            verdict = "PASS" if ratio <= TARGET else "FAIL"
            failed |= verdict == "FAIL"
            print(
                f"| {workload.name} | {metric} | {medians[metric]:.3f} | {base:.3f} | "
                f"{ratio:.2f} | {verdict} |"
            )
    if args.quick:
        print("(--quick: the target is stated for the full sizes)")
    return 1 if failed and not args.quick else 0


if __name__ == "__main__":
    sys.exit(main())
