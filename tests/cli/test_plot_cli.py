"""sklearn-rank evaluate --plot: the metrics at every cut-off, drawn from the library's values."""

import sys

import numpy as np
import pytest

import sklearn_rank as sr
from sklearn_rank.cli import main
from sklearn_rank.cli._example import HIVEMALL_RANKINGS, HIVEMALL_TRUTH
from sklearn_rank.metrics import _curves

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
import matplotlib.figure  # noqa: E402 (its Figure is patched below; run alone, not yet loaded)

INSTALL = 'pip install "sklearn-rank[plot]"'


def test_command_line_plot_draws_the_curves(tmp_path, monkeypatch, capsys):
    drawn = []
    monkeypatch.setattr(
        matplotlib.figure.Figure, "savefig", lambda self, path: drawn.append((self, path))
    )
    path = str(tmp_path / "curves.png")
    status = main(
        ["evaluate", "--example", "-m", "ndcg@3", "map", "recall@4", "arp", "--plot", path]
    )
    assert status == 0
    assert "leaves out arp" in capsys.readouterr().err
    figure, saved = drawn[0]
    assert saved == path
    ax = figure.axes[0]
    for line, metric in zip(ax.get_lines(), ["ndcg", "map", "recall"]):
        names = [f"{metric}@{k}" for k in range(1, 5)]  # up to the largest cut-off, 4
        expected = sr.evaluate(HIVEMALL_TRUTH, HIVEMALL_RANKINGS, names)
        np.testing.assert_allclose(line.get_ydata(), [expected[n] for n in names], atol=1e-12)
    assert ax.get_ylabel() == "metric@k"
    assert ax.get_xlabel() == "cut-off k\n(ties=average, ap_denominator=relevant, gain=linear)"


def test_command_line_plot_writes_a_png(tmp_path):
    path = tmp_path / "curves.png"
    assert (
        main(["evaluate", "--example", "-m", "mrr", "--plot", str(path), "--ties", "stable"]) == 0
    )
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_command_line_plot_errors(tmp_path, monkeypatch, capsys):
    path = str(tmp_path / "curves.png")
    assert main(["evaluate", "--example", "-m", "arp", "--plot", path]) == 2
    assert "none of arp has such a curve" in capsys.readouterr().err
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    assert main(["evaluate", "--example", "-m", "mrr", "--plot", path]) == 2
    assert INSTALL in capsys.readouterr().err


def test_command_line_plot_with_jobs_draws_the_same_curves(tmp_path, monkeypatch):
    drawn, threads = [], []
    monkeypatch.setattr(matplotlib.figure.Figure, "savefig", lambda self, path: drawn.append(self))
    split = _curves._split_queries
    monkeypatch.setattr(
        _curves, "_split_queries", lambda queries, n: threads.append(n) or split(queries, n)
    )
    path = str(tmp_path / "curves.png")
    for jobs in ([], ["--jobs", "2"]):
        arguments = ["evaluate", "--example", "-m", "ndcg@5", "auc@5", "--plot", path]
        assert main(arguments + ["--ties", "stable"] + jobs) == 0
    assert threads == [1, 2]  # --jobs reaches the curves
    one, two = ([line.get_ydata() for line in figure.axes[0].get_lines()] for figure in drawn)
    for line_one, line_two in zip(one, two, strict=True):
        np.testing.assert_array_equal(line_two, line_one)


def test_command_line_plot_legend_gives_the_values_of_the_table(tmp_path, monkeypatch, capsys):
    # ndcg@3 beside map@4: the legend once gave every metric at the largest cut-off, 4.
    drawn = []
    monkeypatch.setattr(
        matplotlib.figure.Figure, "savefig", lambda self, path: drawn.append((self, path))
    )
    path = str(tmp_path / "curves.png")
    assert main(["evaluate", "--example", "-m", "ndcg@3", "map@4", "mrr", "--plot", path]) == 0
    table = capsys.readouterr().out
    legend = [text.get_text() for text in drawn[0][0].axes[0].get_legend().get_texts()]
    expected = sr.evaluate(HIVEMALL_TRUTH, HIVEMALL_RANKINGS, ["ndcg@3", "map@4", "mrr@4"])
    assert legend == [
        f"ndcg@3 = {expected['ndcg@3']:.4f}",
        f"map@4 = {expected['map@4']:.4f}",
        f"mrr@4 = {expected['mrr@4']:.4f}",
    ]
    assert f"{expected['ndcg@3']:.4f}" in table
