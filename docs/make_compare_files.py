"""Write the TREC files of docs/compare.md's command-line example into docs/data/: the
judgments and the three runs of the page's Python example, as qrels and run files.

Run: python docs/make_compare_files.py
"""

from pathlib import Path

import numpy as np

from sklearn_rank.datasets import make_ranking

DATA = Path(__file__).resolve().parent / "data"


def main():
    _X, qrels, qid = make_ranking(n_queries=50, random_state=0)
    rng = np.random.default_rng(0)  # the same draws as the page's Python example
    runs = {
        name: qrels + rng.normal(scale=scale, size=qrels.size)
        for name, scale in (("bm25", 3.0), ("dense", 2.0), ("hybrid", 1.0))
    }
    doc = np.zeros(qid.size, dtype=np.int64)
    for query in np.unique(qid):  # documents numbered within their query
        rows = np.flatnonzero(qid == query)
        doc[rows] = np.arange(rows.size)
    DATA.mkdir(exist_ok=True)
    lines = [f"q{q} 0 d{d} {int(r)}" for q, d, r in zip(qid, doc, qrels)]
    (DATA / "qrels.txt").write_text("\n".join(lines) + "\n")
    for name, scores in runs.items():
        lines = [f"q{q} Q0 d{d} 0 {s!r} {name}" for q, d, s in zip(qid, doc, scores.tolist())]
        (DATA / f"{name}.run").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
