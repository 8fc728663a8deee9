"""The ``sklearn-rank`` command: inputs, options, output formats, errors and exit statuses."""

import csv
import gzip
import inspect
import io
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from reference import HIVEMALL_BINARY

import sklearn_rank as sr
from sklearn_rank.cli._example import print_example_table
from sklearn_rank.cli._main import DEFAULT_METRICS, _build_parser, _convention_options, main
from sklearn_rank.conventions._sampling import EVALUATE_SAMPLING
from sklearn_rank.inputs import _files

ROOT = Path(__file__).resolve().parents[2]

# Hivemall's "Ranking Measures" page: three users, truth {1, 2, 4}, scores 1:10, 3:8, 2:6, 6:2.
DUMMY_TRUTH = "userid,itemid\n" + "".join(f"{u},{i}\n" for u in (1, 2, 3) for i in (1, 2, 4))
DUMMY_REC = "userid,itemid,score\n" + "".join(
    f"{u},{i},{s}\n" for u in (1, 2, 3) for i, s in ((1, 10.0), (3, 8.0), (2, 6.0), (6, 2.0))
)
HIVEMALL = HIVEMALL_BINARY  # the spec's table, written once in tests/reference.py
TABLE_ARGS = ["--query-column", "userid", "--item-column", "itemid"]


@pytest.fixture
def hivemall(tmp_path):
    truth = tmp_path / "dummy_truth.csv"
    rec = tmp_path / "dummy_rec.csv"
    truth.write_text(DUMMY_TRUTH)
    rec.write_text(DUMMY_REC)
    return truth, rec


def _hivemall_args(truth, rec, *extra):
    return [
        "evaluate",
        "--truth",
        str(truth),
        "--predictions",
        str(rec),
        *TABLE_ARGS,
        "--score-column",
        "score",
        *extra,
    ]


def _run_json(capsys, args):
    assert main(args) == 0, capsys.readouterr().err
    captured = capsys.readouterr()
    return json.loads(captured.out)


def _table(out):
    lines = out.splitlines()
    assert lines[0].split() == ["metric", "value"]
    return {name: float(value) for name, value in (line.split() for line in lines[1:])}


# --------------------------------------------------------------------------------------
# Hivemall's worked example from CSV tables, and --example
# --------------------------------------------------------------------------------------


def test_hivemall_tables_give_the_spec_values(hivemall, capsys):
    args = _hivemall_args(
        *hivemall, "--ap-denominator", "relevant", "--format", "json", "-m", *HIVEMALL
    )
    got = _run_json(capsys, args)
    assert list(got) == list(HIVEMALL)
    for name, value in HIVEMALL.items():
        assert got[name] == pytest.approx(value, abs=1e-12), name


def test_hivemall_comma_separated_metrics_and_table_output(hivemall, capsys):
    args = _hivemall_args(*hivemall, "-m", "recall@4,precision@4", "-m", "map@4")
    assert main(args) == 0
    captured = capsys.readouterr()
    assert captured.err == ""
    values = _table(captured.out)
    assert list(values) == ["recall@4", "precision@4", "map@4"]
    # Four decimals, as trec_eval prints them.
    assert values["recall@4"] == round(HIVEMALL["recall@4"], 4)
    assert values["map@4"] == round(HIVEMALL["map@4"], 4)
    # Aligned: every value ends in the same column.
    lines = captured.out.splitlines()
    assert len({len(line) for line in lines}) == 1


def test_graded_table_with_relevance_column(tmp_path, capsys):
    # The spec's graded example: item: (score, rel) 1: (10, 5), 3: (8, 2), 2: (6, 4),
    # 6: (2, 1), 4: (1, 3).
    graded = {1: (10, 5), 3: (8, 2), 2: (6, 4), 6: (2, 1), 4: (1, 3)}
    (tmp_path / "truth.tsv").write_text(
        "user\titem\trel\n" + "".join(f"u\t{i}\t{r}\n" for i, (_, r) in graded.items())
    )
    (tmp_path / "rec.tsv").write_text(
        "user\titem\tscore\n" + "".join(f"u\t{i}\t{s}\n" for i, (s, _) in graded.items())
    )
    got = _run_json(
        capsys,
        [
            "evaluate",
            "--truth",
            str(tmp_path / "truth.tsv"),
            "--predictions",
            str(tmp_path / "rec.tsv"),
            "--query-column",
            "user",
            "--item-column",
            "item",
            "--relevance-column",
            "rel",
            "--score-column",
            "score",
            "--gain",
            "exponential",
            "-m",
            "ndcg@2",
            "ndcg@3",
            "--format",
            "json",
        ],
    )
    assert got["ndcg@2"] == pytest.approx(0.8128912838590544, abs=1e-12)
    assert got["ndcg@3"] == pytest.approx(0.9187707805346093, abs=1e-12)


def test_predictions_without_score_column_use_row_order(tmp_path, capsys):
    (tmp_path / "truth.csv").write_text("query,item\nu,b\n")
    (tmp_path / "rec.csv").write_text("query,item,score\nu,a,1\nu,b,9\n")
    base = [
        "evaluate",
        "--truth",
        str(tmp_path / "truth.csv"),
        "--predictions",
        str(tmp_path / "rec.csv"),
        "-m",
        "mrr",
        "--format",
        "json",
    ]
    assert main(base) == 0  # default columns query / item; rows in rank order
    captured = capsys.readouterr()
    assert json.loads(captured.out) == {"mrr": 0.5}
    assert captured.err == (
        f"sklearn-rank: warning: {tmp_path / 'rec.csv'} has a column "
        "'score' but no --score-column was given: the rows of each query "
        "are taken in rank order, first row best\n"
    )
    assert main(base + ["--score-column", "score"]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out) == {"mrr": 1.0}
    assert captured.err == ""
    (tmp_path / "rec.csv").write_text("query,item\nu,a\nu,b\n")  # top-N lists: no warning
    assert main(base) == 0
    assert capsys.readouterr().err == ""


def test_example_prints_the_main_table(capsys):
    print_example_table()
    expected = capsys.readouterr().out
    assert main(["evaluate", "--example"]) == 0
    captured = capsys.readouterr()
    assert captured.out == expected
    assert captured.err == ""
    assert "Hivemall's worked example" in captured.out


def test_example_with_metrics(capsys):
    got = _run_json(
        capsys, ["evaluate", "--example", "-m", "recall@4", "auc@2", "--format", "json"]
    )
    assert got == pytest.approx({"recall@4": HIVEMALL["recall@4"], "auc@2": 1.0}, abs=1e-12)


def test_example_per_query(tmp_path, capsys):
    out = tmp_path / "pq.csv"
    assert main(["evaluate", "--example", "-m", "map@4", "--per-query", str(out)]) == 0
    rows = list(csv.reader(out.open()))
    assert rows[0] == ["query", "map@4"]
    assert [r[0] for r in rows[1:]] == ["0", "1", "2"]
    assert all(float(r[1]) == pytest.approx(HIVEMALL["map@4"], abs=1e-12) for r in rows[1:])


def test_default_metrics(hivemall, capsys):
    got = _run_json(capsys, _hivemall_args(*hivemall, "--format", "json"))
    assert list(got) == list(DEFAULT_METRICS)


# --------------------------------------------------------------------------------------
# TREC files against the library called directly
# --------------------------------------------------------------------------------------


@pytest.fixture
def trec(tmp_path):
    rng = np.random.default_rng(7)
    run_rows, judged = [], []
    for q in range(25):
        n = int(rng.integers(0, 40))
        for d in rng.choice(200, size=n, replace=False):
            run_rows.append((f"{q:03d}", f"D{d}", float(rng.integers(0, 6)) / 2))
    for q in range(1, 27):  # query 000 has no judgment; 025 and 026 have no run
        for d in rng.choice(200, size=30, replace=False):
            judged.append((f"{q:03d}", f"D{d}", int(rng.integers(0, 4))))
    run = tmp_path / "run.txt"
    run.write_text(
        "".join(f"{q} Q0 {d} {i + 1} {s} myrun\n" for i, (q, d, s) in enumerate(run_rows))
    )
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join(f"{q} 0 {d} {r}\n" for q, d, r in judged))
    truth = sr.ItemJudgments(*(np.array(c) for c in zip(*judged)))
    ranking = sr.ItemRanking(
        np.array([r[0] for r in run_rows]),
        np.array([r[1] for r in run_rows]),
        [r[2] for r in run_rows],
    )
    return qrels, run, truth, ranking


NAMES = [
    "ndcg@10",
    "ndcg",
    "map",
    "map@5",
    "mrr",
    "precision@10",
    "recall@10",
    "hit_rate@3",
    "f1@5",
    "auc",
    "cg@3",
    "dcg@5",
    "arp",
    "kendall_tau",
]


@pytest.mark.parametrize(
    "options, conventions",
    [
        ([], {}),
        (["--convention", "trec_eval"], {"convention": "trec_eval"}),
        (
            ["--convention", "lightgbm", "--gain", "linear"],
            {"convention": "lightgbm", "gain": "linear"},
        ),
        (
            [
                "--ties",
                "stable",
                "--tie-break",
                "item_descending",
                "--score-dtype",
                "float32",
                "--query-set",
                "judged",
            ],
            {
                "ties": "stable",
                "tie_break": "item_descending",
                "score_dtype": "float32",
                "query_set": "judged",
            },
        ),
        (["--query-set", "both"], {"query_set": "both"}),
        (
            [
                "--ap-denominator",
                "min_k",
                "--no-relevant",
                "1",
                "--short-lists",
                "length",
                "--relevance-threshold",
                "2",
                "--log-base",
                "10",
            ],
            {
                "ap_denominator": "min_k",
                "no_relevant": 1.0,
                "short_lists": "length",
                "relevance_threshold": 2.0,
                "log_base": 10.0,
            },
        ),
        (
            ["--no-relevant", "skip", "--gain", "exponential"],
            {"no_relevant": "skip", "gain": "exponential"},
        ),
    ],
)
def test_trec_files_match_evaluate(trec, capsys, options, conventions):
    qrels, run, truth, ranking = trec
    got = _run_json(
        capsys,
        [
            "evaluate",
            "--qrels",
            str(qrels),
            "--run",
            str(run),
            "-m",
            *NAMES,
            "--format",
            "json",
            *options,
        ],
    )
    expected = sr.evaluate(truth, ranking, NAMES, **conventions)
    assert got == pytest.approx(expected, rel=1e-15, abs=0)


@pytest.mark.parametrize(
    "options, conventions",
    [
        ([], {}),
        (["--convention", "trec_eval"], {"convention": "trec_eval"}),  # queries in both only
        (["--query-set", "judged"], {"query_set": "judged"}),
        (["--no-relevant", "skip"], {"no_relevant": "skip"}),
    ],
)
def test_per_query_csv(trec, tmp_path, capsys, options, conventions):
    qrels, run, truth, ranking = trec
    out = tmp_path / "per_query.csv"
    names = ["ndcg@10", "map", "arp"]
    assert (
        main(
            [
                "evaluate",
                "--qrels",
                str(qrels),
                "--run",
                str(run),
                "-m",
                *names,
                "--per-query",
                str(out),
                *options,
            ]
        )
        == 0
    )
    summary = _table(capsys.readouterr().out)
    expected = sr.evaluate(truth, ranking, names, per_query=True, **conventions)
    assert b"\r" not in out.read_bytes()  # Unix line endings
    rows = list(csv.reader(out.open(newline="")))
    assert rows[0] == ["query", *names]
    ids = [row[0] for row in rows[1:]]
    assert (
        ids
        == sr.query_ids(
            truth,
            ranking,
            **{
                name: value
                for name, value in conventions.items()
                if name in ("convention", "query_set")
            },
        ).tolist()
    )
    assert len(ids) == len(expected["map"])
    if options:
        assert ("000" in ids) == (options[0] == "--no-relevant")  # 000 has no judgment
        assert ("026" in ids) == (options[0] != "--convention")  # 026 has no run
    for column, name in enumerate(names, 1):
        values = np.array([float(row[column]) for row in rows[1:]])
        np.testing.assert_array_equal(values, expected[name])
        assert summary[name] == pytest.approx(np.nanmean(values), abs=5e-5)  # 4 decimals


@pytest.mark.parametrize("options", [[], ["--no-relevant", "skip"], ["--no-relevant", "0"]])
def test_per_query_keeps_the_summary(trec, tmp_path, capsys, options):
    # With --per-query the means come from the per-query values of the same computation:
    # they must be evaluate's, sums and geometric means included.
    qrels, run, truth, ranking = trec
    names = ["gm_map", "num_rel_ret", "map", "ndcg@10"]
    args = ["evaluate", "--qrels", str(qrels), "--run", str(run), "-m", *names]
    args += ["--precision", "17", *options]
    assert main(args) == 0
    without = _table(capsys.readouterr().out)
    assert main([*args, "--per-query", str(tmp_path / "q.csv")]) == 0
    with_values = _table(capsys.readouterr().out)
    conventions = {} if not options else {"no_relevant": _number_or(options[1])}
    expected = sr.evaluate(truth, ranking, names, **conventions)
    assert with_values == without
    assert with_values == pytest.approx(expected, rel=1e-12, abs=0)  # 17 decimals shown


def _number_or(text):
    try:
        return float(text)
    except ValueError:
        return text


def test_qrels_with_predictions_table(trec, tmp_path, capsys):
    qrels, run, truth, ranking = trec
    table = tmp_path / "rec.tsv"
    table.write_text(
        "q\tdoc\ts\n"
        + "".join(
            f"{q}\t{d}\t{float(s)!r}\n"
            for q, d, s in zip(ranking.queries, ranking.items, ranking.scores)
        )
    )
    got = _run_json(
        capsys,
        [
            "evaluate",
            "--qrels",
            str(qrels),
            "--predictions",
            str(table),
            "--query-column",
            "q",
            "--item-column",
            "doc",
            "--score-column",
            "s",
            "--format",
            "json",
        ],
    )
    assert got == sr.evaluate(truth, ranking, list(DEFAULT_METRICS))


@pytest.mark.parametrize("variant", ["gzip", "bom", "crlf"])
def test_gzip_bom_crlf_inputs_work(trec, tmp_path, capsys, variant):
    qrels, run, truth, ranking = trec
    paths = []
    for path in (qrels, run):
        data = path.read_bytes()
        if variant == "gzip":
            data, name = gzip.compress(data), path.name + ".gz"
        elif variant == "bom":
            data, name = b"\xef\xbb\xbf" + data, "bom_" + path.name
        else:
            data, name = data.replace(b"\n", b"\r\n"), "crlf_" + path.name
        paths.append(tmp_path / name)
        paths[-1].write_bytes(data)
    got = _run_json(
        capsys, ["evaluate", "--qrels", str(paths[0]), "--run", str(paths[1]), "--format", "json"]
    )
    assert got == sr.evaluate(truth, ranking, list(DEFAULT_METRICS))


def test_gzip_bom_crlf_tables(hivemall, tmp_path, capsys):
    truth, rec = hivemall
    packed = tmp_path / "rec.csv.gz"
    packed.write_bytes(gzip.compress(b"\xef\xbb\xbf" + rec.read_bytes().replace(b"\n", b"\r\n")))
    got = _run_json(capsys, _hivemall_args(truth, packed, "-m", "ndcg@4", "--format", "json"))
    assert got["ndcg@4"] == pytest.approx(HIVEMALL["ndcg@4"], abs=1e-12)


# --------------------------------------------------------------------------------------
# Errors: one line on stderr, exit status 2, never a traceback
# --------------------------------------------------------------------------------------


def _error(capsys, args):
    """Run the command in-process; it must fail with one line on stderr, nothing else."""
    status = main(args)
    captured = capsys.readouterr()
    assert status == 2, captured
    assert captured.out == ""
    assert "Traceback" not in captured.err
    assert captured.err.count("\n") == 1 and captured.err.endswith("\n")
    return captured.err


GOOD_RUN = "q Q0 a 1 2.0 t\nq Q0 b 2 1.0 t\n"
GOOD_QRELS = "q 0 a 1\n"


@pytest.mark.parametrize(
    "which, text, where, message",
    [
        ("run", "", ":1:", "empty file"),
        ("qrels", "\n# nothing\n", ":2:", "no data lines"),
        (
            "run",
            GOOD_RUN + "q Q0 c 3 0.5\n",
            ":3:",
            "expected 6 fields 'qid Q0 docno rank score tag', got 5",
        ),
        ("qrels", "q 0 a 1\nq 0 b\n", ":2:", "expected 4 fields 'qid iter docno rel', got 3"),
        ("run", "q Q0 a 1 2.0 t\nq Q0 b 2 two t\n", ":2:", "must be a finite number; got 'two'"),
        ("run", "q Q0 a 1 inf t\n", ":1:", "must be a finite number; got 'inf'"),
        ("qrels", "q 0 a 1\nq 0 b 0.5\n", ":2:", "must be an integer; got '0.5'"),
        (
            "run",
            GOOD_RUN + "q Q0 a 3 0.5 t\n",
            ":3:",
            "document 'a' appears twice for query 'q' (first at line 1)",
        ),
        ("run", b"q Q0 a 1 2.0 t\nq Q0 \xff 2 1.0 t\n", ":2:", "not UTF-8 text"),
    ],
)
def test_trec_input_errors(tmp_path, capsys, which, text, where, message):
    files = {"run": tmp_path / "run.txt", "qrels": tmp_path / "qrels.txt"}
    files["run"].write_text(GOOD_RUN)
    files["qrels"].write_text(GOOD_QRELS)
    data = text if isinstance(text, bytes) else text.encode()
    files[which].write_bytes(data)
    err = _error(capsys, ["evaluate", "--qrels", str(files["qrels"]), "--run", str(files["run"])])
    assert err.startswith(f"sklearn-rank: error: {files[which]}{where} ")
    assert message in err
    assert err.count("\n") == 1


@pytest.mark.parametrize(
    "which, text, extra, where, message",
    [
        (
            "rec",
            "userid,itemid,score\n1,1,x\n",
            [],
            ":2:",
            "score (column 'score') must be a finite number; got 'x'",
        ),
        (
            "rec",
            "user,itemid,score\n1,1,1\n",
            [],
            ":1:",
            "no column 'userid' (the query column) in the header; columns found (comma-separated): "
            "'user', 'itemid', 'score'",
        ),
        (
            "rec",
            DUMMY_REC,
            ["--score-column", "rating"],
            ":1:",
            "no column 'rating' (the score column)",
        ),
        (
            "truth",
            DUMMY_TRUTH,
            ["--relevance-column", "rel"],
            ":1:",
            "no column 'rel' (the relevance column)",
        ),
        ("truth", "", [], ":1:", "empty file"),
        ("truth", "userid,itemid\n", [], ":1:", "no data rows after the header"),
        ("truth", DUMMY_TRUTH + "4,5,6\n", [], ":11:", "expected 2 fields like the header, got 3"),
    ],
)
def test_table_input_errors(hivemall, capsys, which, text, extra, where, message):
    truth, rec = hivemall
    path = {"truth": truth, "rec": rec}[which]
    path.write_text(text)
    args = _hivemall_args(truth, rec)
    if extra and extra[0] == "--score-column":
        args = args[:-2]  # replace the fixture's --score-column
    err = _error(capsys, args + extra)
    assert err.startswith(f"sklearn-rank: error: {path}{where} ")
    assert message in err
    assert err.count("\n") == 1


def test_missing_file(tmp_path, capsys):
    (tmp_path / "qrels.txt").write_text(GOOD_QRELS)
    missing = tmp_path / "no_such_run.txt"
    err = _error(
        capsys, ["evaluate", "--qrels", str(tmp_path / "qrels.txt"), "--run", str(missing)]
    )
    assert err == f"sklearn-rank: error: {missing}: No such file or directory\n"


def test_directory_instead_of_file(tmp_path, capsys):
    (tmp_path / "qrels.txt").write_text(GOOD_QRELS)
    err = _error(
        capsys, ["evaluate", "--qrels", str(tmp_path / "qrels.txt"), "--run", str(tmp_path)]
    )
    assert err.startswith(f"sklearn-rank: error: {tmp_path}: ")


def test_damaged_gzip(tmp_path, capsys):
    (tmp_path / "qrels.txt").write_text(GOOD_QRELS)
    data = gzip.compress(GOOD_RUN.encode() * 100)
    (tmp_path / "run.gz").write_bytes(data[:-10])
    err = _error(
        capsys,
        ["evaluate", "--qrels", str(tmp_path / "qrels.txt"), "--run", str(tmp_path / "run.gz")],
    )
    assert err.startswith(f"sklearn-rank: error: {tmp_path / 'run.gz'}:")
    assert "damaged gzip file" in err


@pytest.mark.parametrize(
    "extra, message",
    [
        (["-m", "ndcg@10", "nope"], "Unknown metric name 'nope'"),
        (["-m", "ndcg@0"], "must be a positive integer"),
        (["--convention", "nonesuch"], "convention must be one of"),
        (["--ties", "random"], "ties must be one of"),
        (["--gain", "cubic"], "gain must be one of"),
        (["--relevance-threshold", "-1"], "relevance_threshold must be None or a positive"),
        (["--no-relevant", "nan"], "no_relevant must be a finite number"),
        (["--no-relevant", "error"], "no_relevant"),  # query 'r' has no relevant item
    ],
)
def test_evaluation_errors(tmp_path, capsys, extra, message):
    (tmp_path / "run.txt").write_text(GOOD_RUN + "r Q0 a 1 1.0 t\n")
    (tmp_path / "qrels.txt").write_text(GOOD_QRELS + "r 0 a 0\n")
    err = _error(
        capsys,
        [
            "evaluate",
            "--qrels",
            str(tmp_path / "qrels.txt"),
            "--run",
            str(tmp_path / "run.txt"),
            *extra,
        ],
    )
    assert err.startswith("sklearn-rank: error: ")
    assert message in err
    assert err.count("\n") == 1


def test_per_query_file_cannot_be_written(hivemall, tmp_path, capsys):
    target = tmp_path / "no_such_dir" / "pq.csv"
    err = _error(capsys, _hivemall_args(*hivemall, "--per-query", str(target)))
    assert err == f"sklearn-rank: error: {target}: No such file or directory\n"


@pytest.mark.parametrize(
    "args, message",
    [
        ([], "required: COMMAND"),
        (["evaluate"], "the judgments are missing"),
        (["evaluate", "--qrels", "q.txt"], "the run is missing"),
        (["evaluate", "--run", "r.txt"], "the judgments are missing"),
        (
            ["evaluate", "--qrels", "q", "--truth", "t", "--run", "r"],
            "--qrels or --truth, not both",
        ),
        (
            ["evaluate", "--qrels", "q", "--run", "r", "--predictions", "p"],
            "--run or --predictions, not both",
        ),
        (["evaluate", "--example", "--run", "r"], "--example takes no input files"),
        (["evaluate", "--qrels", "q", "--run", "r", "--score-column", "s"], "only apply to tables"),
        (["evaluate", "--example", "--query-column", "u"], "only apply to tables"),
        (
            ["evaluate", "--qrels", "q", "--predictions", "p", "--relevance-column", "rel"],
            "--relevance-column",
        ),
        (["evaluate", "--example", "--format", "xml"], "invalid choice: 'xml'"),
        (["evaluate", "--example", "--relevance-threshold", "high"], "invalid float value"),
        (
            ["evaluate", "--example", "--no-relevant", "maybe"],
            "expected a number, 'skip' or 'error'",
        ),
        (["evaluate", "--example", "-m", ","], "needs at least one metric name"),
        (["frobnicate"], "invalid choice: 'frobnicate'"),
    ],
)
def test_usage_errors(capsys, args, message):
    status = main(args)
    captured = capsys.readouterr()
    assert status == 2
    assert captured.out == ""
    assert "usage: sklearn-rank" in captured.err
    assert message in captured.err
    assert "Traceback" not in captured.err


@pytest.mark.parametrize("args", [["--help"], ["evaluate", "--help"], ["--version"]])
def test_help_and_version(capsys, args):
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "sklearn-rank" in out


def test_help_lists_every_option(capsys):
    main(["evaluate", "--help"])
    out = capsys.readouterr().out
    for option in (
        "--qrels",
        "--run",
        "--truth",
        "--predictions",
        "--example",
        "--query-column",
        "--item-column",
        "--score-column",
        "--relevance-column",
        "--metrics",
        "--convention",
        "--ties",
        "--gain",
        "--ap-denominator",
        "--no-relevant",
        "--relevance-threshold",
        "--short-lists",
        "--format",
        "--per-query",
    ):
        assert option in out


def test_convention_options_are_the_parameters_of_evaluate():
    # Every option maps to a parameter of evaluate, and every convention parameter of
    # evaluate has an option: the command line follows the library's API.
    parameters = set(inspect.signature(sr.evaluate).parameters)
    not_conventions = {
        "y_true",
        "y_score",
        "metrics",
        "groups",
        "exclude",
        "sample_weight",
        "per_query",
        "n_jobs",  # --jobs: how to compute, not a convention
        # sampled-negative evaluation: what the input is, not a convention (no option yet)
        *EVALUATE_SAMPLING,
        # side inputs of the beyond-accuracy metrics: input files, not conventions
        "train",
        "item_features",
        "catalog",
        "propensity",  # side inputs (arrays), not conventions: no option yet
        "position",
    }
    dests = {dest for _flag, dest, _kind, _text in _convention_options()}
    assert dests <= parameters
    assert parameters - not_conventions <= dests
    for flag, dest, _kind, _text in _convention_options():
        assert flag == "--" + dest.replace("_", "-")


def test_documentation_mentions_every_option():
    _parser, evaluate_parser = _build_parser()
    options = {
        flag
        for action in evaluate_parser._actions
        for flag in action.option_strings
        if flag.startswith("--") and flag != "--help"
    }
    assert "--per-query" in options and len(options) > 20
    doc = (ROOT / "docs" / "command_line.md").read_text()
    missing = sorted(option for option in options if f"`{option}" not in doc)
    assert not missing


# --------------------------------------------------------------------------------------
# Warnings and progress
# --------------------------------------------------------------------------------------


def test_warns_when_no_query_matches(tmp_path, capsys):
    (tmp_path / "run.txt").write_text(GOOD_RUN)
    (tmp_path / "qrels.txt").write_text("Q 0 a 1\n")
    assert (
        main(
            ["evaluate", "--qrels", str(tmp_path / "qrels.txt"), "--run", str(tmp_path / "run.txt")]
        )
        == 0
    )
    err = capsys.readouterr().err
    assert err.startswith("sklearn-rank: warning: no query id of ")


class _Terminal(io.StringIO):
    def isatty(self):
        return True


def test_progress_only_on_a_terminal(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(_files, "_PROGRESS_EVERY", 8)
    (tmp_path / "run.txt").write_text("".join(f"q Q0 d{i} {i} {i} t\n" for i in range(20)))
    (tmp_path / "qrels.txt").write_text(GOOD_QRELS)
    args = ["evaluate", "--qrels", str(tmp_path / "qrels.txt"), "--run", str(tmp_path / "run.txt")]
    assert main(args) == 0
    quiet = capsys.readouterr()
    assert quiet.err == ""
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    assert main(args) == 0
    shown = terminal.getvalue()
    assert "\rreading run.txt: 8 lines" in shown
    assert "\rreading run.txt: 20 lines, done\n" in shown
    assert "qrels.txt" not in shown  # short file: nothing shown
    assert capsys.readouterr().out == quiet.out


# --------------------------------------------------------------------------------------
# As a program
# --------------------------------------------------------------------------------------


def test_module_runs_as_a_program(hivemall):
    truth, rec = hivemall
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "sklearn_rank",
            *_hivemall_args(truth, rec, "--format", "json", "-m", "recall@4", "map@4"),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    got = json.loads(done.stdout)
    assert got["recall@4"] == pytest.approx(HIVEMALL["recall@4"], abs=1e-12)
    assert got["map@4"] == pytest.approx(HIVEMALL["map@4"], abs=1e-12)


def test_program_error_has_no_traceback(tmp_path):
    (tmp_path / "run.txt").write_text("q Q0 a 1 2.0\n")
    (tmp_path / "qrels.txt").write_text(GOOD_QRELS)
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "sklearn_rank",
            "evaluate",
            "--qrels",
            str(tmp_path / "qrels.txt"),
            "--run",
            str(tmp_path / "run.txt"),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr == (
        f"sklearn-rank: error: {tmp_path / 'run.txt'}:1: expected 6 fields "
        "'qid Q0 docno rank score tag', got 5\n"
    )


def test_csv_field_over_the_size_limit_is_a_clean_error(tmp_path, capsys):
    # Found in review: csv.Error escaped as a traceback.
    truth = tmp_path / "truth.csv"
    truth.write_text("query,item\nq1,a\n")
    predictions = tmp_path / "rec.csv"
    predictions.write_text("query,item,score\nq1," + "a" * 200_000 + ",1.0\n")
    status = main(
        [
            "evaluate",
            "--truth",
            str(truth),
            "--predictions",
            str(predictions),
            "--query-column",
            "query",
            "--item-column",
            "item",
            "--score-column",
            "score",
        ]
    )
    err = capsys.readouterr().err
    assert status == 2
    assert f"{predictions}:2: not a valid CSV/TSV line" in err and "Traceback" not in err


# --------------------------------------------------------------------------------------
# Start-up and how values print
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("args", [["--version"], ["--help"]])
def test_version_and_help_import_neither_numpy_nor_scikit_learn(args):
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "sklearn_rank", *args],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("sklearn-rank ") or done.stdout.startswith("usage: sklearn-rank")
    imported = {
        line.split("|")[-1].strip().split(".")[0]
        for line in done.stderr.splitlines()
        if line.startswith("import time:")
    }
    assert "sklearn_rank" in imported
    assert not imported & {"numpy", "scipy", "sklearn"}, sorted(imported)


EXAMPLE_NAMES = ["ndcg@2", "map@4", "mrr", "cg@4"]


def _example_values():
    from sklearn_rank.cli._example import HIVEMALL_RANKINGS, HIVEMALL_TRUTH

    return sr.evaluate(HIVEMALL_TRUTH, HIVEMALL_RANKINGS, EXAMPLE_NAMES)


@pytest.mark.parametrize("precision", [None, 0, 2, 6])
def test_table_prints_four_decimals_as_trec_eval_or_the_precision_asked(capsys, precision):
    extra = [] if precision is None else ["--precision", str(precision)]
    assert main(["evaluate", "--example", "-m", *EXAMPLE_NAMES, *extra]) == 0
    lines = capsys.readouterr().out.splitlines()
    decimals = 4 if precision is None else precision
    expected = {name: f"{value:.{decimals}f}" for name, value in _example_values().items()}
    assert {line.split()[0]: line.split()[1] for line in lines[1:]} == expected
    assert expected["map@4"] == {0: "1", 2: "0.56", 4: "0.5556", 6: "0.555556"}[decimals]
    assert len({len(line) for line in lines}) == 1  # still aligned


def test_json_and_per_query_keep_full_precision_unless_asked(capsys, tmp_path):
    values = _example_values()
    assert _run_json(
        capsys, ["evaluate", "--example", "-m", *EXAMPLE_NAMES, "--format", "json"]
    ) == (values)
    rounded = _run_json(
        capsys,
        ["evaluate", "--example", "-m", *EXAMPLE_NAMES, "--format", "json", "--precision", "3"],
    )
    assert rounded == {name: round(value, 3) for name, value in values.items()}
    for extra, shown in (([], repr), (["--precision", "3"], lambda v: f"{v:.3f}")):
        out = tmp_path / "per_query.csv"
        assert main(["evaluate", "--example", "-m", "map@4", "--per-query", str(out), *extra]) == 0
        rows = list(csv.reader(out.open(newline="")))
        assert [row[1] for row in rows[1:]] == [shown(values["map@4"])] * 3
    capsys.readouterr()


@pytest.mark.parametrize("text", ["-1", "two", "1.5"])
def test_precision_must_be_a_number_of_decimals(capsys, text):
    assert main(["evaluate", "--example", "--precision", text]) == 2
    assert "argument --precision: expected a number of decimals" in capsys.readouterr().err


def test_library_warnings_are_printed_in_the_commands_words(tmp_path, capsys):
    # Query r is in the run only: no test items, left out of the mean by default.
    (tmp_path / "run.txt").write_text(GOOD_RUN + "r Q0 a 1 2.0 t\n")
    (tmp_path / "qrels.txt").write_text(GOOD_QRELS)
    args = ["evaluate", "--qrels", str(tmp_path / "qrels.txt"), "--run", str(tmp_path / "run.txt")]
    assert main([*args, "-m", "mrr"]) == 0
    captured = capsys.readouterr()
    assert _table(captured.out) == {"mrr": 1.0}
    assert captured.err.startswith("sklearn-rank: warning: 1 of 2 queries have no relevant item")
    assert "Pass --no-relevant skip to keep this" in captured.err
    assert "--no-relevant 0 to count them as 0" in captured.err
    assert "no_relevant" not in captured.err and captured.err.count("\n") == 1
    assert main([*args, "-m", "mrr", "--no-relevant", "0"]) == 0
    captured = capsys.readouterr()
    assert _table(captured.out) == {"mrr": 0.5} and captured.err == ""


def test_the_program_gives_arrow_memory_back_a_call_changes_nothing():
    """Run as the program, the command sets pyarrow's allocator to the system's (which
    gives a large file's fields back once converted); called from Python it leaves the
    caller's process as it was."""
    import os
    import subprocess

    env = {k: v for k, v in os.environ.items() if k != "ARROW_DEFAULT_MEMORY_POOL"}
    pools = []
    for call in ("main(['evaluate', '--example', '--quiet'])", "main()"):
        code = (
            "import os, sys\n"
            "from sklearn_rank.cli import main\n"
            "sys.argv = ['sklearn-rank', 'evaluate', '--example', '--quiet']\n"
            f"{call}\n"
            "print(os.environ.get('ARROW_DEFAULT_MEMORY_POOL'))\n"
        )
        done = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env
        )
        pools.append(done.stdout.split()[-1])
    # The program itself (python -m sklearn_rank), its command replaced by a print.
    program = (
        "import os, runpy, sys\n"
        "sys.argv = ['sklearn_rank', 'evaluate', '--example', '--quiet']\n"
        "import sklearn_rank.cli._main as command\n"
        "command._main = lambda argv: print(os.environ.get('ARROW_DEFAULT_MEMORY_POOL')) or 0\n"
        "runpy.run_module('sklearn_rank', run_name='__main__', alter_sys=True)\n"
    )
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, env=env)
    pools.append(done.stdout.split()[-1])
    assert pools == ["None", "None", "system"]
