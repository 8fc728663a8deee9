"""trec_eval's order of a run's documents as the command line computes it for relstring,
-M and infAP with pooled documents (`cli/_trec_order.py`), against a plain sort."""

import numpy as np
import pytest

import sklearn_rank as sr
from sklearn_rank.cli._trec_order import trec_first_rows


def _reference(queries, docnos, scores, n, keep):
    """Each topic's rows (topics by first appearance in the run) sorted by score, then
    docno as a string, both descending; the first n; Python's sort of every row."""
    topics = list(dict.fromkeys(queries.tolist()))
    rows = []
    for topic in topics:
        mine = [i for i in np.flatnonzero(keep).tolist() if queries[i] == topic]
        # Two stable sorts: docno descending, then score descending.
        mine.sort(key=lambda i: str(docnos[i]), reverse=True)
        mine.sort(key=lambda i: scores[i], reverse=True)
        rows += mine if n is None else mine[:n]
    return rows


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("n", [None, 0, 1, 3, 50])
def test_first_rows_are_those_of_sorting_every_row(seed, n):
    rng = np.random.default_rng(seed)
    n_rows = 600
    queries = rng.choice(["7", "10", "x", "301"], n_rows)
    docnos = np.array([f"d{i}" for i in rng.permutation(5_000)[:n_rows]])
    scores = rng.integers(0, 6, n_rows) / 2  # many ties, broken by docno ("d10" < "d9")
    if seed % 2:  # as runs are written: by topic, then score
        order = np.lexsort((-scores, queries))
        queries, docnos, scores = queries[order], docnos[order], scores[order]
    keep = rng.random(n_rows) < (0.7 if seed >= 4 else 1.0)
    run = sr.ItemRanking(queries, docnos, scores)
    rows, codes, topics = trec_first_rows(run, "float64", n, None if seed < 4 else keep)
    assert rows.tolist() == _reference(queries, docnos, scores, n, keep)
    assert topics[codes].tolist() == queries[rows].tolist()
