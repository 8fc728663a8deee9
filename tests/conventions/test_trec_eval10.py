"""trec_eval 10.0's own output (recorded from its binary: tests/data/trec_eval10/README.md)
against ``convention="trec_eval"``: the rules that separate 10.0 from 9.x (scores read as
double, the lround rank cut of interpolated precision), -J (condensed lists), -l 2, and
every all_trec measure implemented here, per query and on the ``all`` line."""

import math
from pathlib import Path

import pytest
from _random_trec import random_trec

import sklearn_rank as sr

DATA = Path(__file__).resolve().parents[1] / "data" / "trec_eval10"
SUMS = {"num_ret", "num_rel", "num_rel_ret", "num_nonrel_judged_ret"}


def _output(name):
    """{(measure, query): value} of a trec_eval output file."""
    values = {}
    for line in (DATA / name).read_text().splitlines():
        measure, query, value = line.split()
        if measure not in ("runid", "relstring"):
            values[measure, query] = float(value)
    return values


def _library(names, **conventions):
    truth = sr.read_trec_qrels(DATA / "qrels.txt")
    run = sr.read_trec_run(DATA / "run.txt")
    per_query = sr.evaluate(
        truth, run, names, convention="trec_eval", per_query=True, **conventions
    )
    means = sr.evaluate(truth, run, names, convention="trec_eval", **conventions)
    ids = [str(q) for q in sr.query_ids(truth, run, convention="trec_eval")]
    return ids, per_query, means


def _check(expected, names, skip=(), **conventions):
    ids, per_query, means = _library(names, **conventions)
    checked = 0
    for name, values in per_query.items():
        for q, value in zip(ids, values):
            if name in ("gm_map", "gm_bpref"):
                continue  # trec_eval prints these on the all line only
            want = expected[name, q]
            if math.isnan(want):
                assert name in skip, (name, q)
                continue
            assert round(value, 4) == pytest.approx(want, abs=1e-12), (name, q, value)
            checked += 1
        want = expected[name, "all"]
        if not math.isnan(want):
            assert round(means[name], 4) == pytest.approx(want, abs=1e-12), name
    return checked


def test_official_measures_equal_trec_eval_10():
    expected = _output("official_q.out")
    assert _check(expected, ["official"]) == 3 * 27  # all but gm_map, 3 topics
    # The two rules that separate the versions change these very values:
    nine = sr.evaluate(
        sr.read_trec_qrels(DATA / "qrels.txt"),
        sr.read_trec_run(DATA / "run.txt"),
        ["recip_rank", "iprec_at_recall_0.30"],
        convention="trec_eval9",
        per_query=True,
    )
    assert expected["recip_rank", "q1"] == 1.0 and nine["recip_rank"][0] == 0.5  # float32 tie
    assert expected["iprec_at_recall_0.30", "q1"] == 1.0  # lround(0.3 * 4) = 1
    assert nine["iprec_at_recall_0.30"][0] == 0.5  # (long)(0.3 * 4 + 0.9) = 2


def test_relevance_level_2_equals_trec_eval_l2():
    _check(_output("official_l2_q.out"), ["official"], relevance_threshold=2)


def test_judged_only_equals_trec_eval_J():
    # q3 retrieves no judged document: trec_eval's interpolated precision divides 0 by 0
    # there (NaN, which also poisons its all line); the library gives 0 (the command line
    # prints trec_eval's nan).
    skip = {f"iprec_at_recall_{p / 10:.2f}" for p in range(11)}
    _check(_output("official_J_q.out"), ["official"], skip=skip, judged_only=True)


def test_every_all_trec_measure_implemented_equals_trec_eval():
    expected = _output("all_trec_q.out")
    names = sorted({measure for measure, _q in expected})
    ours = [r.label for r in sr.metrics._names._parse_requests("all_trec")]
    assert set(ours) <= set(names)
    _check(expected, ["all_trec"])  # rbp there is rbp(p=0.9, gains="query_max")
    missing = set(names) - set(ours) - {"num_q"}
    assert missing == set()


def test_means_add_up_as_trec_eval_on_rounding_boundaries(tmp_path):
    # trec_eval adds each topic's value to a double in its topic order, then divides:
    # with these 400 topics its P_10 is 0.05675000000000002 (prints 0.0568), where the
    # correctly rounded mean is the double just below 0.05675 (prints 0.0567).
    # convention="trec_eval" adds as trec_eval does.
    qrels, run = random_trec(6, 400, missing_topics=False)
    (tmp_path / "qrels").write_text(qrels)
    (tmp_path / "run").write_text(run)
    truth, ranking = sr.read_trec_qrels(tmp_path / "qrels"), sr.read_trec_run(tmp_path / "run")
    expected = {}
    for line in (DATA / "random6_400_complete.out").read_text().splitlines():
        measure, _all, value = line.split("\t")
        expected[measure.strip()] = value
    names = [r.label for r in sr.metrics._names._parse_requests("all_trec")]
    names = [name for name in names if name != "rbp"]  # rbp: uninitialised reads there
    means = sr.evaluate(truth, ranking, names, convention="trec_eval")
    for name, mean in means.items():
        printed = str(int(mean)) if name in SUMS else f"{mean:6.4f}"
        assert printed == expected[name], name
    assert expected["P_10"] == "0.0568"
    per_query = sr.evaluate(truth, ranking, ["P_10"], convention="trec_eval", per_query=True)
    assert f"{math.fsum(per_query['P_10']) / 400:6.4f}" == "0.0567"


@pytest.mark.parametrize(
    "name, message",
    [
        ("Rprec_mult_-1", "x must be a positive number; got -1.0"),
        ("Rprec_mult.0", "x must be a positive number; got 0"),
        ("iprec_at_recall_1.5", "recall must be a recall level between 0 and 1; got 1.5"),
        ("P_10\n", "contains a line break"),
        ("ideal_dcg", "trec_eval's 'ideal_dcg' is not implemented here"),
    ],
)
def test_trec_eval_names_out_of_range_or_not_implemented_are_refused(name, message):
    # Rprec_mult_-1 used to give 0 for every query, 'P_10\n' a label with a line break.
    with pytest.raises(ValueError, match=message):
        sr.evaluate([[1, 0, 1]], [[3, 2, 1]], [name])
