"""trec_eval's measures against trec_eval itself, through pytrec_eval-terrier (9.x rules).

1,000 random runs (250 per seed) with tied scores (also scores equal only in float32),
graded qrels, judged non-relevant and unjudged retrieved documents, qrels topics missing
from the run and run topics missing from the qrels, relevance levels 1 and 2. Every
measure, per query, under ``convention="trec_eval9"`` equals pytrec_eval's value to 1e-9
(trec_eval prints 4 decimals), and so do the means of trec_eval's ``all`` line (sums for
the counts, the geometric mean for gm_map); one case in seven with ``judged_only=True``
against pytrec_eval's ``judged_docs_only_flag`` (trec_eval -J).
"""

import math

import numpy as np
import pytest

import sklearn_rank as sr

pytrec_eval = pytest.importorskip("pytrec_eval")

pytestmark = pytest.mark.slow

CUTS = (1, 3, 5, 10, 20)
LEVELS = tuple(f"{level / 10:.2f}" for level in range(11))
MULTIPLES = (0.2, 0.5, 1.0, 1.5, 2.0)

# pytrec_eval measure -> our name (all spelled as trec_eval's -m would be).
REQUEST = {
    "num_ret",
    "num_rel",
    "num_rel_ret",
    "num_nonrel_judged_ret",
    "map",
    "gm_map",
    "Rprec",
    "bpref",
    "recip_rank",
    "iprec_at_recall",
    "11pt_avg",
    "infAP",
    "ndcg",
    "set_P",
    "set_recall",
    "set_F",
    f"P.{','.join(map(str, CUTS))}",
    f"recall.{','.join(map(str, CUTS))}",
    f"map_cut.{','.join(map(str, CUTS))}",
    f"ndcg_cut.{','.join(map(str, CUTS))}",
    f"success.{','.join(map(str, CUTS))}",
    f"Rprec_mult.{','.join(map(str, MULTIPLES))}",
}
OURS = (
    sorted(
        [
            "num_ret",
            "num_rel",
            "num_rel_ret",
            "num_nonrel_judged_ret",
            "map",
            "gm_map",
            "Rprec",
            "bpref",
            "recip_rank",
            "iprec_at_recall",
            "11pt_avg",
            "infAP",
            "ndcg",
            "set_P",
            "set_recall",
            "set_F",
        ]
    )
    + [
        f"{base}.{','.join(map(str, CUTS))}"
        for base in ("P", "recall", "map_cut", "ndcg_cut", "success")
    ]
    + [f"Rprec_mult.{','.join(map(str, MULTIPLES))}"]
)
SUMS = {"num_ret", "num_rel", "num_rel_ret", "num_nonrel_judged_ret"}


def _scores(rng, size):
    """Few distinct values; some nudged below float32 resolution (ties only in float32)."""
    scores = (
        rng.choice([-1.0, 0.25, 0.5, 1.0, 3.0], size)
        if rng.random() < 0.7
        else (rng.integers(0, 40, size) / 7.0)
    )
    nudge = rng.random(size)
    scores = np.where(nudge < 0.15, scores * (1 + 1e-9) + 1e-12 * (scores != 0), scores)
    return np.where(nudge > 0.9, scores + 1e-5, scores)


def _case(rng):
    """(qrels, run) as pytrec_eval takes them, with every situation trec_eval tells apart."""
    n_queries = int(rng.integers(1, 7))
    qids = [str(q) for q in rng.choice(30, n_queries, replace=False)]
    qrels, run = {}, {}
    for number, q in enumerate(qids):
        pool = [f"d{d}" for d in rng.choice(60, int(rng.integers(1, 25)), replace=False)]
        judged = [d for d in pool if rng.random() < 0.6] or [pool[0]]
        grades = rng.integers(0, 4, len(judged)) * (rng.random(len(judged)) < 0.5)
        if rng.random() < 0.1:
            grades[:] = 0  # judged, nothing relevant
        if number == 0 or rng.random() < 0.85:
            qrels[q] = dict(zip(judged, map(int, grades)))
        if number > 0 and rng.random() < 0.1:
            continue  # a judged topic missing from the run
        n_run = int(rng.integers(1, len(pool) + 1))
        retrieved = [pool[i] for i in rng.choice(len(pool), n_run, replace=False)]
        run[q] = dict(zip(retrieved, map(float, _scores(rng, n_run))))
    if not set(qrels) & set(run):  # trec_eval needs one topic in both
        run[next(iter(qrels))] = {"d0": 1.0}
    return qrels, run


def _library(qrels, run, level, judged_only=False):
    def rows(nested, dtype):
        q, d, v = zip(*[(q, d, v) for q, docs in nested.items() for d, v in docs.items()])
        return np.array(q, dtype=object), np.array(d, dtype=object), np.array(v, dtype=dtype)

    truth, ranking = sr.ItemJudgments(*rows(qrels, np.int64)), sr.ItemRanking(*rows(run, float))
    threshold = None if level == 1 else level
    common = dict(convention="trec_eval9", relevance_threshold=threshold, judged_only=judged_only)
    per_query = sr.evaluate(truth, ranking, OURS, per_query=True, **common)
    means = sr.evaluate(truth, ranking, OURS, **common)
    ids = list(sr.query_ids(truth, ranking, convention="trec_eval9"))
    return ids, per_query, means


def _compare(qrels, run, level, context, judged_only=False):
    evaluator = pytrec_eval.RelevanceEvaluator(
        qrels, REQUEST, relevance_level=level, judged_docs_only_flag=judged_only
    )
    expected = evaluator.evaluate(run)
    ids, per_query, means = _library(qrels, run, level, judged_only)
    assert sorted(ids) == sorted(expected), context
    for name, values in per_query.items():
        for row, q in enumerate(ids):
            want = expected[q][name]
            got = values[row]
            if name == "gm_map":  # pytrec_eval gives each topic's log(max(AP, 1e-5))
                got = math.log(max(got, 1e-5))
            if math.isnan(want):  # -J left no document: trec_eval's 0/0 (docs/metrics.md)
                assert judged_only and got == 0.0, (name, q, context)
                continue
            assert got == pytest.approx(want, abs=1e-9), (name, q, context)
        column = [expected[q][name] for q in ids]
        if any(math.isnan(v) for v in column):
            continue
        if name in SUMS:
            want = math.fsum(column)
        elif name == "gm_map":
            want = math.exp(math.fsum(column) / len(column))
        else:
            want = math.fsum(column) / len(column)
        assert means[name] == pytest.approx(want, abs=1e-9, rel=1e-12), (name, context)


@pytest.mark.parametrize("seed", range(4))
def test_every_measure_equals_pytrec_eval_on_random_runs(seed):
    rng = np.random.default_rng(7000 + seed)
    for case in range(250):
        qrels, run = _case(rng)
        level = 2 if case % 5 == 4 else 1
        judged_only = case % 7 == 6  # trec_eval -J: condensed lists
        _compare(qrels, run, level, (seed, case, qrels, run), judged_only)


# trec_eval's set measures and experimental ones (all_trec's rest), with trec_eval's names.
MORE = ["set_relative_P", "set_map", "utility", "relative_P.1,3,5,10", "binG", "G"]
MORE += ["ndcg_rel", "Rndcg", "gm_bpref", "set_F.0.5"]


@pytest.mark.parametrize("seed", range(2))
def test_set_and_experimental_measures_equal_pytrec_eval_on_random_runs(seed):
    # set_relative_P, set_map, utility, relative_P, binG, G, ndcg_rel, Rndcg, gm_bpref and
    # set_F.x, per query, under trec_eval9 (float32 scores, as pytrec_eval reads them)
    rng = np.random.default_rng(9000 + seed)
    for case in range(150):
        qrels, run = _case(rng)
        level = 2 if case % 5 == 4 else 1
        evaluator = pytrec_eval.RelevanceEvaluator(
            qrels,
            {m.split(".")[0] for m in MORE} | {"relative_P.1,3,5,10", "set_F.0.5"},
            relevance_level=level,
        )
        expected = evaluator.evaluate(run)

        def rows(nested, dtype):
            q, d, v = zip(*[(q, d, v) for q, docs in nested.items() for d, v in docs.items()])
            return np.array(q, dtype=object), np.array(d, dtype=object), np.array(v, dtype=dtype)

        truth, ranking = sr.ItemJudgments(*rows(qrels, np.int64)), sr.ItemRanking(*rows(run, float))
        threshold = None if level == 1 else level
        got = sr.evaluate(
            truth,
            ranking,
            MORE,
            convention="trec_eval9",
            relevance_threshold=threshold,
            per_query=True,
        )
        ids = list(sr.query_ids(truth, ranking, convention="trec_eval9"))
        assert sorted(ids) == sorted(expected)
        for name, values in got.items():
            for row, q in enumerate(ids):
                value = values[row]
                if name == "gm_bpref":  # pytrec_eval gives each topic's log(max(bpref, 1e-5))
                    value = math.log(max(value, 1e-5))
                want = expected[q][{"set_F_0.5": "set_F"}.get(name, name)]  # its key
                assert value == pytest.approx(want, abs=1e-9), (name, q, seed, case)
