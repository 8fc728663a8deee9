"""``sklearn-rank compare --per-query TABLE``: a table of per-query values gives what the
command gives from the TREC files those values came from."""

import json

import numpy as np
import pytest

from sklearn_rank import compare, read_trec_qrels, read_trec_run
from sklearn_rank.cli import main


@pytest.fixture
def files(tmp_path):
    """A qrels file and three runs; dense.run lacks the last query (q24)."""
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


def _write_table(path, result, lacking, delimiter):
    """The per-query values of ``result`` as a table, without the rows a run lacked."""
    with open(path, "w") as handle:
        handle.write(delimiter.join(["metric", "query", "run", "value"]) + "\n")
        for metric, matrix in result.per_query.items():
            for column, run in enumerate(result.run_names):
                for row, query in enumerate(result.query_ids):
                    if (run, query) in lacking:
                        continue
                    value = repr(float(matrix[row, column]))  # every digit
                    handle.write(delimiter.join([metric, str(query), run, value]) + "\n")


@pytest.mark.parametrize("delimiter, suffix", [("\t", "tsv"), (",", "csv")])
def test_per_query_table_gives_the_command_on_the_files(files, capsys, tmp_path, delimiter, suffix):
    qrels, paths = files
    expected = _library(qrels, paths, baseline="bm25.run")
    table = tmp_path / f"values.{suffix}"
    _write_table(table, expected, {("dense.run", "q24")}, delimiter)
    options = ["--baseline", "bm25.run", "--format", "json"]
    assert main(["compare", qrels, *paths, *options]) == 0
    from_files = json.loads(capsys.readouterr().out)
    assert main(["compare", "--per-query", str(table), *options]) == 0
    from_table = json.loads(capsys.readouterr().out)
    assert from_table == from_files
    assert from_table["runs"]["n_missing"] == [0, 1, 0, 0, 1, 0]
    assert main(["compare", "--per-query", str(table), "-m", "map", *options]) == 0
    assert json.loads(capsys.readouterr().out)["pairs"]["metric"] == ["map", "map"]


def test_per_query_usage_errors(files, capsys, tmp_path):
    qrels, paths = files
    table = tmp_path / "values.csv"
    table.write_text("query,run,value\nq1,a,0.5\n")
    assert main(["compare", "--per-query", str(table)]) == 2
    assert "needs the columns query, run, metric, value" in capsys.readouterr().err
    assert main(["compare", qrels, "--per-query", str(table)]) == 2
    assert "either QRELS and RUNs or --per-query" in capsys.readouterr().err
    assert main(["compare", qrels]) == 2
    assert "at least two runs" in capsys.readouterr().err
    good = tmp_path / "good.csv"
    good.write_text("query,run,metric,value\nq1,a,map,0.5\nq2,a,map,0.1\nq1,b,map,0.7\n")
    assert main(["compare", "--per-query", str(good), "-m", "ndcg"]) == 2
    assert "ndcg not in the table's metric column" in capsys.readouterr().err
