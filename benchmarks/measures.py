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


def _seconds(call):
    start = time.perf_counter()
    call()
    return time.perf_counter() - start


def _ratio(call, reference, repeat):
    """Minimum time of ``call`` and of ``reference``, timed alternately, and their ratio:
    a machine that slows down for a while slows both."""
    mine, theirs = float("inf"), float("inf")
    for _ in range(repeat):
        theirs = min(theirs, _seconds(reference))
        mine = min(mine, _seconds(call))
    return mine, mine / theirs


def bench(workload, repeat):
    rows = []
    ndcg = lambda: workload.ours(["ndcg@10"])  # noqa: E731
    for name in MEASURES:
        seconds, ratio = _ratio(lambda name=name: workload.ours([name]), ndcg, repeat)
        rows.append((name, seconds, ratio, "PASS" if ratio <= 2 else "FAIL"))
    seconds, ratio = _ratio(lambda: workload.ours(["map"]), ndcg, repeat)
    rows.append(("(map, for scale)", seconds, ratio, ""))
    official, ratio = _ratio(
        lambda: workload.ours(["official"]), lambda: workload.ours(["map"]), repeat
    )
    rows.append(("official / map", official, ratio, "PASS" if ratio <= 3 else "FAIL"))
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="workloads 10x smaller")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args(argv)
    scale = 10 if args.quick else 1
    for make in (make_w1, make_w3):
        workload = make(scale)
        workload.ours(["ndcg@10"])  # warm up imports
        print(f"\n{workload.name}: {workload.title}")
        print(f"{'measure':<24} {'seconds':>9} {'ratio':>7}  target (ratio to ndcg@10 alone)")
        for name, seconds, ratio, status in bench(workload, args.repeat):
            print(f"{name:<24} {seconds:9.3f} {ratio:7.2f}  {status}")


if __name__ == "__main__":
    main()
