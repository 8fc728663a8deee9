"""``sklearn-rank compare`` end to end: TREC files in, the library's comparison out."""

import csv
import io
import json

import numpy as np
import pytest
from numpy.testing import assert_allclose

from sklearn_rank import compare, read_trec_qrels, read_trec_run
from sklearn_rank.cli import main


@pytest.fixture
def files(tmp_path):
    """A qrels file and three runs; dense.run lacks the last query."""
    rng = np.random.default_rng(1)
    n_queries, n_docs = 25, 30
    relevance = rng.integers(0, 3, size=(n_queries, n_docs)) * (
        rng.random((n_queries, n_docs)) < 0.3
    )
    relevance[:, 0] = 1
    with open(tmp_path / "qrels.txt", "w") as handle:
        for q in range(n_queries):
            for d in range(n_docs):
                handle.write(f"q{q} 0 d{d} {relevance[q, d]}\n")
    paths = []
    for name, noise in (("bm25.run", 2.0), ("dense.run", 1.0), ("hybrid.run", 0.7)):
        path = tmp_path / name
        with open(path, "w") as handle:
            for q in range(n_queries - (name == "dense.run")):
                scores = relevance[q] + rng.normal(0, noise, n_docs)
                for rank, d in enumerate(np.argsort(-scores)[:15]):
                    handle.write(f"q{q} Q0 d{d} {rank + 1} {scores[d]:.6f} {name}\n")
        paths.append(str(path))
    return str(tmp_path / "qrels.txt"), paths


def _library(qrels, paths, **kwargs):
    runs = {path.rsplit("/", 1)[1]: read_trec_run(path) for path in paths}
    return compare(read_trec_qrels(qrels), runs, ["ndcg@10", "map"], random_state=0, **kwargs)


def test_json_holds_every_column_of_the_library_result(files, capsys):
    qrels, paths = files
    args = [
        "compare",
        qrels,
        *paths,
        "-m",
        "ndcg@10",
        "map",
        "--baseline",
        "bm25.run",
        "--format",
        "json",
    ]
    assert main(args) == 0
    document = json.loads(capsys.readouterr().out)
    expected = _library(qrels, paths, baseline="bm25.run")
    assert document["test"] == "randomization" and document["correction"] == "holm"
    assert document["baseline"] == "bm25.run" and document["n_queries"] == 25
    for table in ("runs", "pairs"):
        for column, values in getattr(expected, table).items():
            if values.dtype.kind == "f":
                assert_allclose(np.array(document[table][column], dtype=float), values, rtol=1e-15)
            else:
                assert document[table][column] == values.tolist()
    # dense.run lacks one query, scored 0 (as trec_eval -c).
    assert document["runs"]["n_missing"] == [0, 1, 0, 0, 1, 0]


def test_markdown_latex_and_csv_are_the_library_tables(files, capsys):
    qrels, paths = files
    expected = _library(qrels, paths, test="t", correction="bonferroni")
    common = ["compare", qrels, *paths, "--test", "t", "--correction", "bonferroni"]
    assert main([*common, "--format", "markdown"]) == 0
    assert capsys.readouterr().out == expected.to_markdown()
    assert main([*common, "--format", "latex", "--alpha", "0.01", "--precision", "3"]) == 0
    assert capsys.readouterr().out == expected.to_latex(alpha=0.01, decimals=3)
    assert main([*common, "--format", "csv"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert [row["run"] for row in rows] == expected.pairs["run"].tolist()
    assert_allclose(
        [float(row["p_adjusted"]) for row in rows], expected.pairs["p_adjusted"], rtol=1e-15
    )
    assert main([*common]) == 0
    out = capsys.readouterr().out
    assert out.startswith(expected._text())
    assert "W/T/L" in out


def test_missing_drop_and_raise(files, capsys):
    qrels, paths = files
    assert main(["compare", qrels, *paths, "--missing", "drop", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["n_queries"] == 24
    assert main(["compare", qrels, *paths, "--missing", "raise"]) == 2
    err = capsys.readouterr().err
    assert "--missing raise: run 'dense.run' has no ranking for 1 of the 25 queries" in err


def test_plot_draws_each_run_against_the_baseline(files, tmp_path, monkeypatch):
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.figure

    qrels, paths = files
    drawn = []
    original = matplotlib.figure.Figure.savefig

    def savefig(self, path, **kwargs):
        drawn.append(self)
        return original(self, path, **kwargs)

    monkeypatch.setattr(matplotlib.figure.Figure, "savefig", savefig)
    target = tmp_path / "diff.png"
    assert main(["compare", qrels, *paths, "--baseline", "dense.run", "--plot", str(target)]) == 0
    assert target.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    axes = drawn[0].axes
    assert len(axes) == 2
    expected = _library(qrels, paths, baseline="dense.run")
    values = expected.per_query["ndcg@10"]
    heights = sorted((bar.get_height() for bar in axes[0].patches), reverse=True)
    assert_allclose(heights, np.sort(values[:, 0] - values[:, 1])[::-1])


def test_usage_errors(files, capsys):
    qrels, paths = files
    assert main(["compare", qrels, paths[0]]) == 2
    assert "sklearn-rank compare: error: give at least two runs to compare" in (
        capsys.readouterr().err
    )
    assert main(["compare", qrels, *paths, "--baseline", "tfidf.run"]) == 2
    err = capsys.readouterr().err
    assert "--baseline must be one of the runs (bm25.run, dense.run, hybrid.run); got " in err
    assert err.startswith("usage: sklearn-rank compare")
    assert main(["compare", qrels, *paths, "--test", "student"]) == 2
    assert "invalid choice: 'student'" in capsys.readouterr().err
    assert main(["compare", qrels, *paths, "--confidence", "1.5"]) == 2
    assert "confidence must be in (0, 1); got 1.5" in capsys.readouterr().err
    assert main(["compare", qrels, *paths, "--n-resamples", "0"]) == 2
    assert "n_resamples must be a positive integer; got 0" in capsys.readouterr().err
    assert main(["compare", qrels, paths[0], paths[0]]) == 2
    assert "each run must be given once" in capsys.readouterr().err


def test_csv_and_json_write_scipys_names_and_the_old_ones_until_0_4(files, capsys):
    qrels, paths = files
    expected = _library(qrels, paths, test="t")
    assert main(["compare", qrels, *paths, "--test", "t", "--format", "csv"]) == 0
    reader = csv.DictReader(io.StringIO(capsys.readouterr().out))
    rows = list(reader)
    assert reader.fieldnames == [*expected.pairs, "p_value", "p_adjusted"]
    for old, new in (("p_value", "pvalue"), ("p_adjusted", "pvalue_adjusted")):
        assert [row[old] for row in rows] == [row[new] for row in rows]
        assert_allclose([float(row[new]) for row in rows], expected.pairs[new], rtol=1e-15)
    assert main(["compare", qrels, *paths, "--test", "t", "--format", "json"]) == 0
    pairs = json.loads(capsys.readouterr().out)["pairs"]
    assert list(pairs) == [*expected.pairs, "p_value", "p_adjusted"]
    assert pairs["p_value"] == pairs["pvalue"] and pairs["p_adjusted"] == pairs["pvalue_adjusted"]


def test_alternative_option_is_the_librarys(files, capsys):
    qrels, paths = files
    common = ["compare", qrels, *paths, "--baseline", "bm25.run", "--test", "t"]
    assert main([*common, "--alternative", "greater", "--format", "json"]) == 0
    document = json.loads(capsys.readouterr().out)
    expected = _library(qrels, paths, baseline="bm25.run", test="t", alternative="greater")
    assert document["alternative"] == "greater"
    assert_allclose(document["pairs"]["pvalue"], expected.pairs["pvalue"], rtol=1e-15)
    two_sided = _library(qrels, paths, baseline="bm25.run", test="t")
    assert not np.allclose(expected.pairs["pvalue"], two_sided.pairs["pvalue"])
    assert main([*common, "--alternative", "less", "--format", "markdown"]) == 0
    assert "one-sided (alternative: each run less than the baseline)" in capsys.readouterr().out
    assert main([*common, "--alternative", "above"]) == 2
    assert "--alternative: invalid choice: 'above'" in capsys.readouterr().err
    assert main(["compare", qrels, *paths, "--test", "tukey_hsd", "--alternative", "less"]) == 2
    assert "--alternative less cannot be used with --test tukey_hsd" in capsys.readouterr().err
