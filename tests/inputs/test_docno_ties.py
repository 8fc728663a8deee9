"""trec_eval's tie break (document ids compared as strings, descending) on a run written
as runs are (grouped by query, ranked), where only the tied rows are put in order, gives
the values of the same rows in any other order, where every row is: to the bit, for every
metric of the registry, under both trec_eval presets."""

import numpy as np
import pytest

import sklearn_rank as sr
from sklearn_rank.inputs import _items
from sklearn_rank.inputs._items import _docno_order
from sklearn_rank.metrics._registry import METRICS

# Every registry metric that reads the run and the judgments alone (the click-log and
# propensity-scored ones need per-row propensities: tests/metrics/test_clicks.py).
_OWN = [m for m in METRICS.values() if m.side_inputs is None]
NAMES = [m.name for m in _OWN] + [f"{m.name}@5" for m in _OWN if m.takes_k]


def _run_and_truth(seed, string_ids):
    rng = np.random.default_rng(seed)
    queries, items, scores = [], [], []
    for query in range(12):
        n = int(rng.integers(1, 40))
        docs = rng.choice(500, n, replace=False)
        # Few distinct scores: many ties; 1 + 1e-9 ties 1 in float32 (trec_eval9) only.
        values = rng.choice([0.5, 1.0, 1.0 + 1e-9, 2.0, 3.25], n)
        queries += [f"q{query:02d}"] * n
        items += [f"d{d}" if string_ids else int(d) for d in docs]
        scores += values.tolist()
    queries, items, scores = np.array(queries), np.array(items), np.array(scores)
    judged = rng.random(queries.size) < 0.6
    judged[np.unique(queries, return_index=True)[1]] = True  # every query judged: codes ascend
    relevance = rng.choice([0.0, 0.5, 1.0, 1.3, 2.0], judged.sum())
    truth = sr.ItemJudgments(queries[judged], items[judged], relevance)
    return truth, queries, items, scores


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("string_ids", [True, False])
@pytest.mark.parametrize("convention", ["trec_eval", "trec_eval9"])
def test_ranked_run_ties_ordered_in_place_as_any_order_whole(
    seed, string_ids, convention, monkeypatch
):
    truth, queries, items, scores = _run_and_truth(seed, string_ids)
    ordered = []  # the number of ids each call put in string order
    text_ranks = _items._text_ranks
    monkeypatch.setattr(
        _items, "_text_ranks", lambda ids: ordered.append(ids.size) or text_ranks(ids)
    )
    rng = np.random.default_rng(seed + 100)
    by_rank = np.lexsort((rng.random(scores.size), -scores, queries))  # ties shuffled
    shuffled = rng.permutation(scores.size)
    results = [
        sr.evaluate(
            truth,
            sr.ItemRanking(queries[rows], items[rows], scores[rows]),
            NAMES,
            per_query=True,
            convention=convention,
        )
        for rows in (by_rank, shuffled)
    ]
    for name in NAMES:
        np.testing.assert_array_equal(results[0][name], results[1][name], err_msg=name)
    # The ranked run's ties only (fewer rows than the run), once per call of evaluate.
    assert 0 < ordered[0] < scores.size


def test_tied_rows_put_in_descending_string_order_in_place():
    codes = np.array([0, 0, 0, 0, 1, 1, 1, 2])
    score = np.array([3.0, 2.0, 2.0, 2.0, 5.0, 5.0, 1.0, 1.0])
    items = np.array([7, 10, 9, 100, 1, 2, 3, 4])
    positions, rows = _docno_order(codes, score, items, None)
    # Strings "9" > "100" > "10"; "2" > "1"; untied rows stay where they are.
    order = np.arange(8)
    order[positions] = rows
    assert order.tolist() == [0, 2, 3, 1, 5, 4, 6, 7]
    assert positions.tolist() == [1, 2, 3, 4, 5]  # only the tied rows move
    assert _docno_order(codes, np.arange(8.0)[::-1], items, None) is None
