"""Write the zscores files of the -Z recordings (README.md) and, given the trec_eval binary,
record its output on them.

Run from the repository root: ``python tests/data/trec_eval10/make_zscores.py
[/path/to/trec_eval]``. ``zscores.txt`` is made from the per-query values trec_eval printed
in official_q.out and missing_topic_c.out, ``zscores_random6_400.txt.gz`` from those of
random6_400_q_c.out.gz: means and stddevs near the values, with the cases -Z tells apart.
The tests never run the binary.
"""

import gzip
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))

from _random_trec import random_trec  # noqa: E402

# (options, qrels file or None for the random ones, zscores file, output)
RECORDINGS = [
    (["-q"], "qrels.txt", "zscores.txt", "zscores_q.out"),
    (["-q", "-c"], "qrels_missing.txt", "zscores.txt", "zscores_c_q.out"),
    (["-q", "-c", "-J"], "qrels_missing.txt", "zscores.txt", "zscores_c_J_q.out"),
    (
        ["-q", "-m", "P.5,10", "-m", "ndcg_cut.10", "-m", "num_q", "-m", "gm_map"]
        + ["-m", "recip_rank"],
        "qrels.txt",
        "zscores.txt",
        "zscores_measures_q.out",
    ),
    (["-q", "-c"], None, "zscores_random6_400.txt.gz", "zscores_random6_400_q_c.out.gz"),
]


def _read(name):
    data = (HERE / name).read_bytes()
    return (gzip.decompress(data) if name.endswith(".gz") else data).decode()


def per_query(name):
    values = {}
    for line in _read(name).splitlines():
        measure, qid, value = line.split("\t")
        measure = measure.strip()
        if qid != "all" and measure != "runid":
            values.setdefault(qid, {})[measure] = float(value)
    return values


def hand_file():
    values = per_query("official_q.out")
    values["q4"] = per_query("missing_topic_c.out")["q4"]
    lines = []
    for qid in ("q1", "q3", "q4"):  # q2 has no line: every value of it is -1000000
        for i, (measure, value) in enumerate(sorted(values[qid].items())):
            mean, sd = round(value - 0.05 * (i % 3 - 1), 4), round(0.1 + 0.01 * i, 4)
            if qid == "q1" and measure == "map":
                continue  # a measure the file lacks for one query: -1000000
            if qid == "q3" and measure == "num_rel":
                mean, sd = value, 0.0  # stddev 0 and the value itself: 0
            if qid == "q3" and measure == "P_5":
                mean, sd = value + 0.1, 0.0  # stddev 0 and another value: -1000000
            if qid == "q4" and measure == "recip_rank":
                mean, sd = 0.30000000000000004, 0.1  # full precision is read as given
            lines.append(f"{qid} {measure} {mean!r} {sd!r}")
        # A last measure in each query's lines and a last query: trec_eval's lookups read
        # one entry past what they search (convert_zscores.c), which these keep inside.
        lines.append(f"{qid} zzz 0 1")
    lines.append("q1 ndcg 0.5 0.1")  # a measure not requested, out of order
    lines.append("zzzz map 0.5 0.1")
    return "\n".join(lines) + "\n"


def random_file():
    """Means and stddevs printed %.4f, as trec_eval's make_zscore_file.py prints them."""
    rng = np.random.default_rng(0)
    lines = []
    for qid, measures in sorted(per_query("random6_400_q_c.out.gz").items()):
        if rng.random() < 0.03:
            continue  # a topic without lines
        for measure, value in sorted(measures.items()):
            draw = rng.random()
            if draw < 0.02:
                continue  # a measure missing for the topic
            if draw < 0.06:
                mean, sd = value, 0.0
            else:
                mean, sd = value + rng.normal(0, 0.1), rng.uniform(0.01, 0.3)
            lines.append(f"{qid} {measure} {mean:.4f} {sd:.4f}")
        lines.append(f"{qid} zzz 0 1")
    lines.append("zzzz map 0.5 0.1")
    return "\n".join(lines) + "\n"


def main(binary=None):
    (HERE / "zscores.txt").write_text(hand_file())
    (HERE / "zscores_random6_400.txt.gz").write_bytes(
        gzip.compress(random_file().encode(), mtime=0)
    )
    if binary is None:
        return
    with tempfile.TemporaryDirectory() as folder:
        qrels, run = random_trec(6, 400, missing_topics=True)
        (Path(folder) / "qrels").write_text(qrels)
        (Path(folder) / "run").write_text(run)
        (Path(folder) / "zscores").write_text(_read("zscores_random6_400.txt.gz"))
        for options, qrels_name, zscores, name in RECORDINGS:
            files = (
                [HERE / zscores, HERE / qrels_name, HERE / "run.txt"]
                if qrels_name
                else [Path(folder) / "zscores", Path(folder) / "qrels", Path(folder) / "run"]
            )
            command = [binary, *options, "-Z", *map(str, files)]
            out = subprocess.run(command, capture_output=True, check=True).stdout
            if name.endswith(".gz"):
                out = gzip.compress(out, mtime=0)
            (HERE / name).write_bytes(out)


if __name__ == "__main__":
    main(*sys.argv[1:2])
