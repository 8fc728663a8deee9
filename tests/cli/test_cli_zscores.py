"""``sklearn-rank evaluate -Z zscores_file``: trec_eval's standardized output, byte for byte
against the trec_eval 10.0 binary's (tests/data/trec_eval10, zscores*.out), computed by
`ScoreStandardizer` from the same file."""

import gzip
from pathlib import Path

import numpy as np
import pytest
from _random_trec import random_trec
from _trec_form import run_evaluate as _run

from sklearn_rank import ScoreStandardizer

DATA = Path(__file__).resolve().parents[1] / "data" / "trec_eval10"
ZSCORES = str(DATA / "zscores.txt")


@pytest.mark.parametrize(
    "options, qrels, recorded",
    [
        (["-q"], "qrels.txt", "zscores_q.out"),
        (["-q", "-c"], "qrels_missing.txt", "zscores_c_q.out"),
        (["-q", "-c", "-J"], "qrels_missing.txt", "zscores_c_J_q.out"),
        (
            ["-q", "-m", "P.5,10", "-m", "ndcg_cut.10", "-m", "num_q", "-m", "gm_map"]
            + ["-m", "recip_rank"],
            "qrels.txt",
            "zscores_measures_q.out",
        ),
    ],
)
def test_z_lines_are_trec_eval_bytes(options, qrels, recorded, monkeypatch):
    args = [*options, "-Z", ZSCORES, str(DATA / qrels), str(DATA / "run.txt")]
    status, out, _err = _run(args, monkeypatch)
    assert status == 0
    assert out == (DATA / recorded).read_text()


def test_random_run_of_400_topics_prints_trec_eval_bytes(tmp_path, monkeypatch):
    # Tied scores, missing topics under -c, means and stddevs printed %.4f as trec_eval's
    # make_zscore_file.py prints them, topics and measures without lines, stddevs of 0:
    # every z and every all line (the z values added topic after topic) as the binary's.
    qrels, run = random_trec(6, 400, missing_topics=True)
    (tmp_path / "qrels").write_text(qrels)
    (tmp_path / "run").write_text(run)
    zscores = tmp_path / "zscores"
    zscores.write_bytes(gzip.decompress((DATA / "zscores_random6_400.txt.gz").read_bytes()))
    args = ["-q", "-c", "-Z", str(zscores), str(tmp_path / "qrels"), str(tmp_path / "run")]
    status, out, _err = _run(args, monkeypatch)
    assert status == 0
    expected = gzip.decompress((DATA / "zscores_random6_400_q_c.out.gz").read_bytes()).decode()
    assert out == expected


def test_the_cases_the_file_sets_up_print_what_trec_eval_prints():
    lines = (DATA / "zscores_q.out").read_text().splitlines()
    value = {tuple(line.split("\t")[:2]): line.split("\t")[2] for line in lines}
    assert value["Zmap                   ", "q1"] == "-1000000.0000"  # no q1 map line
    assert all(v == "-1000000.0000" for (m, q), v in value.items() if q == "q2")  # no q2
    assert value["Znum_rel               ", "q3"] == "0.0000"  # stddev 0, the mean itself
    assert value["ZP_5                   ", "q3"] == "-1000000.0000"  # stddev 0, another
    assert value["Zgm_map                ", "all"] == "0.0000"  # never in the file
    assert value[f"{'runid':<22}", "all"] == "demo"  # no Z, not standardized
    # The all line averages the z values, -1000000 included: (z1 + z3 - 1000000) / 3.
    assert value["Zmap                   ", "all"] == "-666666.6667"


def test_per_query_values_are_the_standardizers(monkeypatch):
    standardizer = ScoreStandardizer.from_zscores_file(ZSCORES)
    raw = {}
    for line in (DATA / "official_q.out").read_text().splitlines():
        measure, qid, value = (field.strip() for field in line.split("\t"))
        if measure == "P_10" and qid != "all":
            raw[qid] = float(value)
    ids = sorted(raw)
    z = standardizer.transform({"P_10": np.array([raw[q] for q in ids])}, query_ids=ids)
    printed = {
        qid: value
        for measure, qid, value in (
            line.split("\t") for line in (DATA / "zscores_q.out").read_text().splitlines()
        )
        if measure.strip() == "ZP_10" and qid != "all"
    }
    for qid, standardized in zip(ids, z["P_10"]):
        shown = "-1000000.0000" if np.isnan(standardized) else f"{standardized:6.4f}"
        assert printed[qid] == shown


@pytest.mark.parametrize(
    "text, message",
    [
        ("q1 map 0.5 0.2 5\n", "Malformed line 1"),
        ("", "Cannot read zscores file"),
        ("q1 map 0.5 0.2\n\n", "Malformed line 2"),
    ],
)
def test_a_bad_zscores_file_is_an_error_naming_trec_eval_message(
    text, message, tmp_path, monkeypatch
):
    path = tmp_path / "z.txt"
    path.write_text(text)
    args = ["-Z", str(path), str(DATA / "qrels.txt"), str(DATA / "run.txt")]
    status, out, err = _run(args, monkeypatch)
    assert status == 2 and out == ""
    assert message in err


def test_help_shows_the_option_and_it_takes_a_value(monkeypatch):
    status, out, _err = _run(["--help"], monkeypatch)
    assert status == 0
    assert "-Z FILE, --Zscore FILE" in out[out.index("trec_eval's form") :]
    # The long spelling, before the files, is trec_eval's form as -Z is.
    args = ["--Zscore", ZSCORES, "-q", str(DATA / "qrels.txt"), str(DATA / "run.txt")]
    status, out, _err = _run(args, monkeypatch)
    assert status == 0 and out == (DATA / "zscores_q.out").read_text()


def test_worked_example_of_the_spec(tmp_path):
    # q1 map 0.7 with the line "q1 map 0.5 0.2" prints 1.0000; a query the file lacks is
    # -1000000, and it enters the all line's mean as it is.
    from sklearn_rank.comparison._standardize import _trec_eval_zscores
    from sklearn_rank.metrics._aggregate import _in_order

    path = tmp_path / "z"
    path.write_text("q1 map 0.5 0.2\nq2 map 0.4 0.1\nq2 P_5 0.2 0\nq9 zzz 0 1\n")
    standardizer = ScoreStandardizer.from_zscores_file(path)
    z = _trec_eval_zscores(standardizer, "map", [0.7, 0.6, 0.3], ["q1", "q2", "q3"])
    assert [f"{v:6.4f}" for v in z] == ["1.0000", "2.0000", "-1000000.0000"]
    assert f"{_in_order(z):6.4f}" == "-333332.3333"
    # stddev 0: the mean itself is 0, anything else -1000000; a measure without lines too.
    p5 = _trec_eval_zscores(standardizer, "P_5", [0.2, 0.4, np.nan], ["q2", "q2", "q1"])
    assert p5.tolist() == [0.0, -1000000.0, -1000000.0]
    assert _trec_eval_zscores(standardizer, "ndcg", [0.5], ["q1"]).tolist() == [-1000000.0]
