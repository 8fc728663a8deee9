"""The command's trec_eval form run in process, for the tests that compare its output with
trec_eval's byte for byte."""

import io
import sys

from sklearn_rank.cli._main import main


def run_evaluate(args, monkeypatch):
    """``sklearn-rank evaluate ARGS``: (exit status, standard output, standard error)."""
    out, err = io.StringIO(), io.StringIO()
    monkeypatch.setattr(sys, "stdout", out)
    monkeypatch.setattr(sys, "stderr", err)
    status = main(["evaluate", *args])
    return status, out.getvalue(), err.getvalue()
