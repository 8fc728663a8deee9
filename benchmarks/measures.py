"""Cost of trec_eval's measures, ERR and RBP against NDCG@10 and MAP, measured in one run.

On the W1 (dense 10,000 x 1,000) and W3 (long format, 1,000,000 rows) workloads of
benchmarks/run.py: each measure alone as a ratio to NDCG@10 alone (target: at most 2x), and
trec_eval's whole default output (``official``: 28 values per query) in one `evaluate`
call as a ratio to MAP alone (target: at most 3x). Times are the minimum of ``--repeat``
runs; ratios are taken within the same run, so a shared or loaded machine moves both sides.

    python benchmarks/measures.py                 # W1 and W3, 3 repeats
    python benchmarks/measures.py --quick         # workloads 10x smaller
"""

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from run import make_w1, make_w3  # noqa: E402

MEASURES = [
    "num_ret",
    "num_rel",
    "num_rel_ret",
    "num_nonrel_judged_ret",
    "rprec",
    "rprec_mult(x=2)",
    "gm_map",
    "iprec(recall=0.5)",
    "iprec_avg",
    "bpref",
    "infap",
    "judged@10",
    "unjudged@10",
    "err@20",
    "rbp",
    "rbp_residual",
]


def _seconds(call, repeat):
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        call()
        best = min(best, time.perf_counter() - start)
    return best


def bench(workload, repeat):
    rows = []
    base = _seconds(lambda: workload.ours(["ndcg@10"]), repeat)
    map_alone = _seconds(lambda: workload.ours(["map"]), repeat)
    rows.append(("ndcg@10 (reference)", base, 1.0, ""))
    for name in MEASURES:
        seconds = _seconds(lambda name=name: workload.ours([name]), repeat)
        ratio = seconds / base
        rows.append((name, seconds, ratio, "PASS" if ratio <= 2 else "FAIL"))
    official = _seconds(lambda: workload.ours(["official"]), repeat)
    rows.append(("map (reference)", map_alone, 1.0, ""))
    ratio = official / map_alone
    rows.append(("official, one call", official, ratio, "PASS" if ratio <= 3 else "FAIL"))
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="workloads 10x smaller")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    scale = 10 if args.quick else 1
    for make in (make_w1, make_w3):
        workload = make(scale)
        workload.ours(["ndcg@10"])  # warm up imports
        print(f"\n{workload.name}: {workload.title}")
        print(f"{'measure':<24} {'seconds':>9} {'ratio':>7}  target")
        for name, seconds, ratio, status in bench(workload, args.repeat):
            print(f"{name:<24} {seconds:9.3f} {ratio:7.2f}  {status}")


if __name__ == "__main__":
    main()
