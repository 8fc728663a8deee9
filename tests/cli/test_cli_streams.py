"""The command started with standard output or standard error closed (``>&-``, ``2>&-``):
Python's stream is then None. No traceback: the exit status says what happened."""

import io
import sys
from pathlib import Path

import pytest

from sklearn_rank.cli._main import main

DATA = Path(__file__).resolve().parent / "data" / "trec_eval10"
QRELS, RUN = str(DATA / "qrels.txt"), str(DATA / "run.txt")


@pytest.mark.parametrize(
    "argv",
    [
        ["evaluate", "--example"],
        ["evaluate", "--qrels", QRELS, "--run", RUN, "-m", "map"],
        ["evaluate", QRELS, RUN],
        ["compare", QRELS, RUN, "OTHER", "-m", "map", "--n-resamples", "9"],
        ["--help"],
    ],
    ids=["example", "named form", "trec_eval form", "compare", "help"],
)
def test_closed_stdout_exits_1_with_a_line_on_stderr(argv, tmp_path, monkeypatch):
    (tmp_path / "other").write_text(Path(RUN).read_text().replace(" 1.", " 0."))
    argv = [str(tmp_path / "other") if arg == "OTHER" else arg for arg in argv]
    err = io.StringIO()
    monkeypatch.setattr(sys, "stdout", None)
    monkeypatch.setattr(sys, "stderr", err)
    assert main(argv) == 1
    assert err.getvalue().endswith(
        "sklearn-rank: error: standard output is closed: nothing was printed\n"
    )
    assert sys.stdout is None  # left as it was


@pytest.mark.parametrize(
    "argv",
    [
        ["evaluate", "--qrels", "no such file", "--run", RUN],
        ["evaluate", "no such file", RUN],
        ["compare", "no such file", RUN, RUN],
    ],
    ids=["named form", "trec_eval form", "compare"],
)
def test_closed_stderr_keeps_the_input_error_status(argv, monkeypatch):
    monkeypatch.setattr(sys, "stdout", io.StringIO())
    monkeypatch.setattr(sys, "stderr", None)
    assert main(argv) == 2
    assert sys.stderr is None


def test_closed_stderr_still_prints_the_results(monkeypatch):
    out = io.StringIO()
    monkeypatch.setattr(sys, "stdout", out)
    monkeypatch.setattr(sys, "stderr", None)
    assert main(["evaluate", "-m", "P.5", QRELS, RUN]) == 0
    assert out.getvalue().startswith("P_5")
