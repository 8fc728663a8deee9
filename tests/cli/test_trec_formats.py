"""trec_eval's other relevance formats in evaluate's trec_eval form, byte for byte against
output recorded from the trec_eval 10.0 binary (tests/data/trec_eval10/formats/README.md):
the quicktest lines of its Makefile that use -R prefs, -R qrels_prefs and -R qrels_jg, and
seeded random files."""

import gzip
import io
import sys
from pathlib import Path

import pytest
from _random_prefs import RECORDINGS, random_prefs
from _trec_form import run_evaluate as _run

DATA = Path(__file__).resolve().parents[1] / "data" / "trec_eval10" / "formats"


def _recorded(name):
    data = (DATA / name).read_bytes()
    return (gzip.decompress(data) if name.endswith(".gz") else data).decode()


# trec_eval's Makefile, quicktest: every line that reads another relevance format.
QUICKTEST = [
    ("-m all_prefs -q -R prefs prefs.test prefs.results.test.gz", "out.test.prefs"),
    ("-m all_prefs -q -R prefs prefs.comment.test prefs.results.test.gz", "out.test.prefs"),
    ("-m all_prefs -q -R qrels_prefs qrels.test.gz results.test.gz", "out.test.qrels_prefs"),
    ("-m qrels_jg -q -R qrels_jg qrels.123.gz results.test.gz", "out.test.qrels_jg"),
    ("-m qrels_jg -q -R qrels_jg qrels.comments.123.gz results.test.gz", "out.test.qrels_jg"),
]


@pytest.mark.parametrize("command, recorded", QUICKTEST)
def test_quicktest_lines_print_trec_eval_bytes(command, recorded, monkeypatch):
    *options, judged, run = command.split()
    status, out, err = _run([*options, str(DATA / judged), str(DATA / run)], monkeypatch)
    assert status == 0
    assert out == _recorded(recorded)
    assert err == "sklearn-rank: trec_eval 10.0 rules (--convention trec_eval)\n"


@pytest.mark.parametrize("seed, n_topics, options, judged, recorded", RECORDINGS)
def test_random_files_print_trec_eval_bytes(
    seed, n_topics, options, judged, recorded, tmp_path, monkeypatch
):
    prefs, qrels, qrels_jg, run = random_prefs(seed, n_topics)
    text = {"prefs": prefs, "qrels": qrels, "qrels_jg": qrels_jg}[judged]
    (tmp_path / "judged").write_text(text)
    (tmp_path / "run").write_text(run)
    args = ["--quiet", *options, str(tmp_path / "judged"), str(tmp_path / "run")]
    status, out, err = _run(args, monkeypatch)
    assert (status, err) == (0, "")
    assert out == _recorded(recorded)


def test_summary_of_preferences_without_q_is_the_all_lines(monkeypatch):
    args = ["--quiet", "-m", "all_prefs", "-R", "prefs"]
    status, out, _ = _run(
        [*args, str(DATA / "prefs.test"), str(DATA / "prefs.results.test.gz")], monkeypatch
    )
    assert status == 0
    want = [line for line in _recorded("out.test.prefs").splitlines(True) if "\tall\t" in line]
    assert out.splitlines(True) == want


def test_prefs_nickname_and_single_measures_in_trec_eval_order(monkeypatch):
    files = [str(DATA / "prefs.test"), str(DATA / "prefs.results.test.gz")]
    lines = _recorded("out.test.prefs").splitlines(True)
    status, out, _ = _run(["--quiet", "-R", "prefs", "-m", "prefs", *files], monkeypatch)
    official = ("runid", "num_q", "prefs_num_prefs_poss", "prefs_num_prefs_ful")
    official += ("prefs_num_prefs_ful_ret", "prefs_simp", "prefs_pair", "prefs_avgjg")
    wanted = [ln for ln in lines if "\tall\t" in ln and ln.split()[0] in official]
    assert (status, out.splitlines(True)) == (0, wanted)
    # Asked in another order, printed in trec_eval's; no runid/num_q lines unless asked.
    args = ["--quiet", "-R", "prefs", "-m", "prefs_pair_imp", "-m", "prefs_simp", *files]
    status, out, _ = _run(args, monkeypatch)
    wanted = [
        ln for ln in lines if "\tall\t" in ln and ln.split()[0] in ("prefs_simp", "prefs_pair_imp")
    ]
    assert (status, out.splitlines(True)) == (0, wanted)


def test_judgment_group_measures_with_parameters(monkeypatch):
    files = [str(DATA / "qrels.123.gz"), str(DATA / "results.test.gz")]
    args = ["--quiet", "-q", "-R", "qrels_jg", "-m", "P_avgjg.10,5", "-m", "map_avgjg", *files]
    status, out, _ = _run(args, monkeypatch)
    keep = ("map_avgjg", "P_avgjg_5", "P_avgjg_10")
    wanted = [ln for ln in _recorded("out.test.qrels_jg").splitlines(True) if ln.split()[0] in keep]
    assert (status, out.splitlines(True)) == (0, wanted)


def test_missing_topic_stops_as_trec_eval_10(tmp_path, monkeypatch):
    (tmp_path / "prefs").write_text(
        "1 u s d1 1\n1 u s d2 0\n2 u s d1 1\n2 u s d2 0\n3 u s d3 2\n3 u s d1 0\n"
    )
    (tmp_path / "run").write_text("1 Q0 d2 1 2.0 r\n1 Q0 d1 2 1.0 r\n3 Q0 d3 1 1.0 r\n")
    args = ["-q", "-R", "prefs", "-m", "prefs_simp", str(tmp_path / "prefs"), str(tmp_path / "run")]
    status, out, err = _run(args, monkeypatch)
    assert status == 4
    assert out == "prefs_simp            \t1\t0.0000\n"
    assert "judged topic '2' is not in the run" in err
    status, out, _ = _run(["--quiet", "-c", *args], monkeypatch)
    assert status == 0
    # Topic 2 retrieves nothing: its preference is not fulfilled; topic 3's is.
    assert out.splitlines()[-1] == "prefs_simp            \tall\t0.3333"
    # trec_eval 9.x leaves topic 2 out.
    status, out, _ = _run(["--quiet", "--convention", "trec_eval9", *args], monkeypatch)
    assert status == 0
    assert out.splitlines()[-1] == "prefs_simp            \tall\t0.5000"


def test_measure_of_another_format_fails_cleanly(monkeypatch):
    files = [str(DATA / "prefs.test"), str(DATA / "prefs.results.test.gz")]
    status, out, err = _run(["-R", "prefs", "-m", "map", *files], monkeypatch)
    assert (status, out) == (2, "")
    assert "-m map: not a preference measure" in err
    files = [str(DATA / "qrels.123.gz"), str(DATA / "results.test.gz")]
    status, out, err = _run(["-R", "qrels_jg", "-m", "prefs_simp", *files], monkeypatch)
    assert (status, out) == (2, "")
    assert "-m prefs_simp: not a judgment-group measure" in err


def test_measure_of_another_format_without_its_r_says_which(monkeypatch):
    files = [str(DATA / "qrels.test.gz"), str(DATA / "results.test.gz")]
    status, out, err = _run(["-m", "all_prefs", *files], monkeypatch)
    assert (status, out) == (2, "")
    assert "-R prefs (lines 'qid jg jsg docno level') or -R qrels_prefs" in err
    status, out, err = _run(["-m", "P_avgjg.5", *files], monkeypatch)
    assert (status, out) == (2, "")
    assert "judgment-group measures read -R qrels_jg" in err


@pytest.mark.parametrize(
    "rel_format, judged, run",
    [
        ("prefs", "prefs.test", "prefs.results.test.gz"),
        ("qrels_prefs", "qrels.test.gz", "results.test.gz"),
        ("qrels_jg", "qrels.123.gz", "results.test.gz"),
    ],
)
def test_zscores_with_another_format_is_refused_not_ignored(
    rel_format, judged, run, tmp_path, monkeypatch
):
    # trec_eval standardizes these formats' values too (its -Z applies to every measure):
    # printing the raw values without a Z would be a different number under the same name.
    zscores = tmp_path / "zscores"
    zscores.write_text("1.EC.AB prefs_simp 0.5 0.25\n")
    args = ["-R", rel_format, "-Z", str(zscores), str(DATA / judged), str(DATA / run)]
    status, out, err = _run(args, monkeypatch)
    assert (status, out) == (2, "")
    assert f"-Z with -R {rel_format}: not implemented" in err


def test_run_on_standard_input(monkeypatch):
    run = gzip.decompress((DATA / "prefs.results.test.gz").read_bytes()).decode()
    monkeypatch.setattr(sys, "stdin", io.StringIO(run))
    args = ["-m", "all_prefs", "-q", "-R", "prefs", str(DATA / "prefs.test"), "-"]
    status, out, _ = _run(args, monkeypatch)
    assert (status, out) == (0, _recorded("out.test.prefs"))
