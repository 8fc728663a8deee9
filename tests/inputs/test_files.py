"""File readers: TREC runs and qrels, CSV/TSV tables; every error names the file and line."""

import gc
import gzip
import re

import numpy as np
import pytest

import sklearn_rank as sr
from sklearn_rank.inputs import _files
from sklearn_rank.inputs._files import (
    _parse_table,
    _parse_trec_qrels,
    _parse_trec_run,
    read_table,
    read_trec_qrels,
    read_trec_run,
)

RUN = "q1 Q0 d1 1 2.5 tag\nq1 Q0 d2 2 1.5 tag\nq2 Q0 d1 1 -3e2 tag\n"
QRELS = "q1 0 d1 1\nq1 0 d3 2\nq2 0 d1 -1\nq2 0 d9 0\n"


@pytest.fixture(autouse=True)
def _each_reader_path(file_parser):
    """Every test here runs through both reader paths (line by line; pyarrow's when it
    imports), which must give the same values and the same errors."""
    return file_parser


def _write(path, text, *, encoding="utf-8", compress=False):
    data = text.encode(encoding) if isinstance(text, str) else text
    if compress:
        data = gzip.compress(data)
    path.write_bytes(data)
    return path


def _run_columns(path):
    """(queries, items, scores) of a run as `read_trec_run` gives them."""
    run = read_trec_run(path)
    return run.queries, run.items, run.scores


def _message(path, line):
    """The start every reader error must have: ``<path>:<line>: ``."""
    return "^" + re.escape(f"{path}:{line}: ")


# --------------------------------------------------------------------------------------
# TREC runs and qrels
# --------------------------------------------------------------------------------------


def test_trec_run_columns(tmp_path):
    queries, docs, scores = _run_columns(_write(tmp_path / "run.txt", RUN))
    assert queries.tolist() == ["q1", "q1", "q2"]
    assert docs.tolist() == ["d1", "d2", "d1"]
    assert scores.dtype == np.float64
    assert scores.tolist() == [2.5, 1.5, -300.0]


def test_trec_run_ids_stay_strings(tmp_path):
    queries, docs, _ = _run_columns(_write(tmp_path / "run.txt", "07 Q0 001 1 1 t\n"))
    assert queries.tolist() == ["07"] and docs.tolist() == ["001"]


def test_trec_run_ignores_rank_field(tmp_path):
    # The rank field contradicts the scores; trec_eval ranks by score, and so do we.
    path = _write(tmp_path / "run.txt", "q Q0 a 1 0.1 t\nq Q0 b 2 0.9 t\nq Q0 c 2 0.5 t\n")
    qrels = _write(tmp_path / "qrels.txt", "q 0 b 1\n")
    assert sr.evaluate(read_trec_qrels(qrels), read_trec_run(path), ["mrr"]) == {"mrr": 1.0}


def test_trec_qrels_columns_keep_negative_relevance(tmp_path):
    queries, docs, rel = _parse_trec_qrels(_write(tmp_path / "qrels", QRELS))
    assert queries.tolist() == ["q1", "q1", "q2", "q2"]
    assert docs.astype(str).tolist() == ["d1", "d3", "d1", "d9"]  # (str, or ASCII bytes)
    assert rel.dtype == np.int64
    assert rel.tolist() == [1, 2, -1, 0]


def test_trec_whitespace_blank_and_comment_lines(tmp_path):
    text = "# a comment\n\n  q1\tQ0  d1 1  2.5 tag  \n   \n#q9 Q0 d9 1 1 tag\nq1 Q0 d2 2 1.5 tag"
    queries, docs, scores = _run_columns(_write(tmp_path / "run.txt", text))
    assert docs.tolist() == ["d1", "d2"]
    assert scores.tolist() == [2.5, 1.5]


@pytest.mark.parametrize("variant", ["crlf", "bom", "gzip", "gzip_no_suffix", "all"])
def test_trec_encodings(tmp_path, variant):
    text = RUN
    if variant in ("crlf", "all"):
        text = text.replace("\n", "\r\n")
    if variant in ("bom", "all"):
        text = "\ufeff" + text
    compress = variant in ("gzip", "gzip_no_suffix", "all")
    name = "run.txt.gz" if variant in ("gzip", "all") else "run.txt"
    queries, docs, scores = _run_columns(_write(tmp_path / name, text, compress=compress))
    assert queries.tolist() == ["q1", "q1", "q2"]
    assert docs.tolist() == ["d1", "d2", "d1"]
    assert scores.tolist() == [2.5, 1.5, -300.0]


def test_trec_qrels_bom_crlf_gzip(tmp_path):
    path = _write(tmp_path / "qrels.gz", "\ufeff" + QRELS.replace("\n", "\r\n"), compress=True)
    assert _parse_trec_qrels(path)[2].tolist() == [1, 2, -1, 0]


@pytest.mark.parametrize(
    "parse, text, line, message",
    [
        (_parse_trec_run, "", 1, "empty file; expected lines 'qid Q0 docno rank score tag'"),
        (_parse_trec_run, "# only\n\n# comments\n", 3, "no data lines"),
        (_parse_trec_qrels, "", 1, "empty file; expected lines 'qid iter docno rel'"),
        (
            _parse_trec_run,
            RUN + "q2 Q0 d2 2 1.0\n",
            4,
            "expected 6 fields 'qid Q0 docno rank score tag', got 5",
        ),
        (_parse_trec_run, "# x\n" + QRELS, 2, "got 4 (is this a TREC qrels file?)"),
        (
            _parse_trec_qrels,
            RUN,
            1,
            "expected 4 fields 'qid iter docno rel', got 6 (is this a TREC run?)",
        ),
        (
            _parse_trec_run,
            "q Q0 a 1 1.0 t\nq Q0 b 2 high t\n",
            2,
            "score (field 5) must be a finite number; got 'high'",
        ),
        (
            _parse_trec_run,
            "q Q0 a 1 1.0 t\n\nq Q0 b 2 nan t\n",
            3,
            "score (field 5) must be a finite number; got 'nan'",
        ),
        (_parse_trec_run, "q Q0 a 1 -inf t\n", 1, "must be a finite number; got '-inf'"),
        (_parse_trec_run, "q Q0 a 1 1e999 t\n", 1, "must be a finite number; got '1e999'"),
        (
            _parse_trec_qrels,
            "q 0 a 1\nq 0 b 1.5\n",
            2,
            "relevance (field 4) must be an integer; got '1.5'",
        ),
        (_parse_trec_qrels, "q 0 a yes\n", 1, "must be an integer; got 'yes'"),
        (
            _parse_trec_run,
            "q Q0 a 1 1 t\nq Q0 b 2 1 t\nq Q0 a 3 1 t\n",
            3,
            "document 'a' appears twice for query 'q' (first at line 1)",
        ),
        (
            _parse_trec_qrels,
            "q 0 a 1\nr 0 a 1\n\nq 0 a 0\n",
            4,
            "document 'a' appears twice for query 'q' (first at line 1)",
        ),
    ],
)
def test_trec_errors_name_path_and_line(tmp_path, parse, text, line, message):
    path = _write(tmp_path / "input.txt", text)
    with pytest.raises(ValueError, match=_message(path, line)) as info:
        parse(path)
    assert message in str(info.value)


def test_trec_not_utf8_names_the_line(tmp_path):
    path = _write(tmp_path / "run.txt", b"q Q0 a 1 1 t\nq Q0 \xff 2 1 t\n")
    with pytest.raises(ValueError, match=_message(path, 2) + "not UTF-8 text"):
        _parse_trec_run(path)


def test_damaged_gzip(tmp_path):
    data = gzip.compress(RUN.encode() * 50)
    path = _write(tmp_path / "run.txt.gz", data[: len(data) // 2])
    with pytest.raises(ValueError, match=re.escape(f"{path}:") + r"\d+: damaged gzip file"):
        _parse_trec_run(path)


def test_truncated_gzip_with_a_cut_character_is_a_damaged_gzip_file(tmp_path):
    # The last line, cut by the truncation, holds bytes that are not UTF-8: locating the
    # decoding error meets the truncation first, and says so (it used to raise EOFError).
    for parse, text in (
        (_parse_trec_run, RUN + "q2 Q0 caf\xe9 2 1 t\n"),
        (_parse_trec_qrels, QRELS + "q2 0 caf\xe9 1\n"),
        (lambda path: read_table(path, query="query", item="item"), "query,item\nq,caf\xe9 2\n"),
    ):
        raw = text.encode("latin-1")
        data = gzip.compress(raw, compresslevel=0)  # stored: bytes cut are the text's
        kept = raw.index(b"\xe9") + 3  # "caf\xe9 2": not UTF-8, then the cut
        path = _write(tmp_path / "cut.gz", data[: len(data) - 8 - (len(raw) - kept)])
        assert gzip.GzipFile(path).read1() == raw[:kept]
        with pytest.raises(ValueError, match=_message(path, text.count("\n")) + "damaged gzip"):
            parse(path)


def test_trec_run_fields_after_the_run_tag_are_ignored(tmp_path):
    """trec_eval: "Any field following run_id is ignored" (get_trec_results.c)."""
    extra = ["x", "1 2 3", "# not a comment", "\tQ0 d9 7 0.5 other"]
    lines = RUN.splitlines()
    longer = "".join(f"{line} {extra[n % len(extra)]}\n" for n, line in enumerate(lines))
    six = _run_columns(_write(tmp_path / "six.txt", RUN))
    more = _run_columns(_write(tmp_path / "more.txt", longer))
    assert [column.tolist() for column in more] == [column.tolist() for column in six]
    with pytest.raises(ValueError, match=_message(tmp_path / "five.txt", 1) + "expected 6.*got 5"):
        _parse_trec_run(_write(tmp_path / "five.txt", "q Q0 a 1 2.5\n"))


def test_missing_file_is_an_oserror(tmp_path):
    with pytest.raises(FileNotFoundError):
        read_trec_run(tmp_path / "nothere.txt")


def test_public_readers_build_the_library_inputs(tmp_path):
    run = read_trec_run(_write(tmp_path / "run.txt", RUN))
    qrels = read_trec_qrels(_write(tmp_path / "qrels.txt", QRELS))
    assert isinstance(run, sr.ItemRanking) and isinstance(qrels, sr.ItemJudgments)
    assert run.items.tolist() == ["d1", "d2", "d1"]
    assert run.scores.tolist() == [2.5, 1.5, -300.0]
    assert qrels.relevance.tolist() == [1.0, 2.0, -1.0, 0.0]


def test_trec_files_evaluate_like_arrays(tmp_path):
    rng = np.random.default_rng(0)
    queries, docs, scores = [], [], []
    lines = []
    for q in range(20):
        for d in rng.choice(50, size=rng.integers(1, 30), replace=False):
            score = float(rng.integers(0, 5))  # many ties
            queries.append(f"q{q}"), docs.append(f"doc{d}"), scores.append(score)
            lines.append(f"q{q} Q0 doc{d} 0 {score!r} run")
    judged = []
    for q in range(22):  # two queries have judgments but no run
        for d in rng.choice(50, size=10, replace=False):
            judged.append((f"q{q}", f"doc{d}", int(rng.integers(0, 3))))
    _write(tmp_path / "run", "\n".join(lines) + "\n")
    _write(tmp_path / "qrels", "".join(f"{q} 0 {d} {r}\n" for q, d, r in judged))
    names = ["ndcg@5", "map", "mrr", "precision@3", "recall@10", "auc"]
    expected = sr.evaluate(
        sr.ItemJudgments(*map(np.array, zip(*judged))),
        sr.ItemRanking(np.array(queries), np.array(docs), scores),
        names,
    )
    got = sr.evaluate(read_trec_qrels(tmp_path / "qrels"), read_trec_run(tmp_path / "run"), names)
    assert got == expected


def test_progress_callback(tmp_path, monkeypatch):
    monkeypatch.setattr(_files, "_PROGRESS_EVERY", 4)
    path = _write(tmp_path / "run.txt", "".join(f"q Q0 d{i} 1 1 t\n" for i in range(10)))
    calls = []
    _parse_trec_run(path, progress=lambda lines, done=False: calls.append((lines, done)))
    assert calls == [(4, False), (8, False), (10, True)]


def test_garbage_collector_is_restored(tmp_path):
    assert gc.isenabled()
    _parse_trec_run(_write(tmp_path / "run.txt", RUN))
    assert gc.isenabled()
    with pytest.raises(ValueError):
        _parse_trec_run(_write(tmp_path / "bad.txt", "x\n"))
    assert gc.isenabled()


@pytest.mark.slow
def test_large_run(tmp_path):
    n = 200_000
    text = "".join(f"{i // 1000} Q0 d{i} {i % 1000} {i * 0.5} t\n" for i in range(n))
    queries, docs, scores = _run_columns(_write(tmp_path / "run.txt", text, compress=True))
    assert queries.size == n and docs[-1] == f"d{n - 1}" and scores[-1] == (n - 1) * 0.5


# --------------------------------------------------------------------------------------
# Tables
# --------------------------------------------------------------------------------------

TRUTH = "userid,itemid\n1,1\n1,2\n1,4\n2,1\n"
REC = "userid,itemid,score\n1,1,10.0\n1,3,8.0\n2,2,6.0\n"


def test_table_columns(tmp_path):
    table = read_table(
        _write(tmp_path / "rec.csv", REC), query="userid", item="itemid", score="score"
    )
    assert table.queries.tolist() == ["1", "1", "2"]
    assert table.items.tolist() == ["1", "3", "2"]
    assert table.scores.tolist() == [10.0, 8.0, 6.0]
    assert table.relevance is None
    queries, items, scores, relevance = table  # a plain tuple too
    assert relevance is None and scores is table.scores


def test_table_without_value_columns(tmp_path):
    table = read_table(_write(tmp_path / "truth.csv", TRUTH), query="userid", item="itemid")
    assert table.items.tolist() == ["1", "2", "4", "1"]
    assert table.scores is None and table.relevance is None


def test_table_score_and_relevance(tmp_path):
    text = "q\ti\tscore\trel\nu\ta\t0.5\t2\nu\tb\t0.25\t0.5\n"
    table = read_table(
        _write(tmp_path / "t.tsv", text), query="q", item="i", score="score", relevance="rel"
    )
    assert table.scores.tolist() == [0.5, 0.25]
    assert table.relevance.tolist() == [2.0, 0.5]


@pytest.mark.parametrize(
    "name, text",
    [
        ("t.csv", "user,item,score\nu,a,1\n"),
        ("t.tsv", "user\titem\tscore\nu\ta\t1\n"),
        ("t.txt", "user\titem\tscore\nu\ta\t1\n"),
        ("t.txt", "user,item,score\nu,a,1\n"),
        ("t", "user;item;score\nu;a;1\n"),
        ("t.csv", "user\titem\tscore\nu\ta\t1\n"),  # the header overrides a misleading name
        ("t.csv.gz", "user,item,score\nu,a,1\n"),
        ("t.tsv.gz", "user\titem\tscore\nu\ta\t1\n"),
        ("t.csv", ' user , "item" ,score\n u ,"a", 1 \n'),  # spaces and quotes
        ("t.csv", "\ufeffuser,item,score\r\n\r\nu,a,1\r\n\r\n"),  # BOM, CRLF, blank lines
    ],
)
def test_table_delimiters_and_encodings(tmp_path, name, text):
    path = _write(tmp_path / name, text, compress=name.endswith(".gz"))
    table = read_table(path, query="user", item="item", score="score")
    assert table.queries.tolist() == ["u"]
    assert table.items.tolist() == ["a"]
    assert table.scores.tolist() == [1.0]


def test_table_quoted_delimiter_in_id(tmp_path):
    path = _write(tmp_path / "t.csv", 'user,item\n"Smith, J.",a\n')
    assert read_table(path, query="user", item="item").queries.tolist() == ["Smith, J."]


def test_table_gzip_bom_crlf(tmp_path):
    path = _write(tmp_path / "rec.csv.gz", "\ufeff" + REC.replace("\n", "\r\n"), compress=True)
    table = read_table(path, query="userid", item="itemid", score="score")
    assert table.scores.tolist() == [10.0, 8.0, 6.0]


@pytest.mark.parametrize(
    "text, kwargs, line, message",
    [
        ("", {}, 1, "empty file; expected a header row of column names"),
        ("\n\n", {}, 2, "empty file"),
        ("userid,itemid\n", {}, 1, "no data rows after the header"),
        ("userid,itemid\n\n\n", {}, 3, "no data rows after the header"),
        (
            "user,itemid,score\n1,1,1\n",
            {},
            1,
            "no column 'userid' (the query column) in the header; columns found "
            "(comma-separated): 'user', 'itemid', 'score'",
        ),
        (
            REC,
            {"score": "rating"},
            1,
            "no column 'rating' (the score column) in the header; columns found (comma-separated): "
            "'userid', 'itemid', 'score'",
        ),
        (TRUTH, {"relevance": "rel"}, 1, "no column 'rel' (the relevance column)"),
        ("userid,itemid,userid\n1,2,3\n", {}, 1, "column 'userid' appears more than once"),
        (REC + "2,5\n", {"score": "score"}, 5, "expected 3 fields like the header, got 2"),
        (
            "userid,itemid,score\n1,1,1,1\n",
            {"score": "score"},
            2,
            "expected 3 fields like the header, got 4",
        ),
        (
            REC + "3,7,abc\n",
            {"score": "score"},
            5,
            "score (column 'score') must be a finite number; got 'abc'",
        ),
        (REC + "3,7,inf\n", {"score": "score"}, 5, "must be a finite number; got 'inf'"),
        (
            REC + "3,7,\n",
            {"score": "score"},
            5,
            "score (column 'score') is empty; expected a number",
        ),
        (
            "userid,itemid,rel\n1,1,1\n1,2,x\n",
            {"relevance": "rel"},
            3,
            "relevance (column 'rel') must be a finite number; got 'x'",
        ),
        ("userid,itemid\n1,1\n,2\n", {}, 3, "empty query id in column 1 ('userid')"),
        ("userid,itemid\n1, \n", {}, 2, "empty item id in column 2 ('itemid')"),
        (
            "userid,itemid\n1,1\n2,1\n1,1\n",
            {},
            4,
            "item '1' appears twice for query '1' (first at line 2)",
        ),
    ],
)
def test_table_errors_name_path_and_line(tmp_path, text, kwargs, line, message):
    path = _write(tmp_path / "table.csv", text)
    with pytest.raises(ValueError, match=_message(path, line)) as info:
        read_table(path, query="userid", item="itemid", **kwargs)
    assert message in str(info.value)


def test_table_line_numbers_count_quoted_newlines(tmp_path):
    # A quoted field over two lines in a column not read (a note) is fine.
    path = _write(tmp_path / "t.csv", 'user,item,note,score\nu,x,"a\nb",1\nu,y,,oops\n')
    with pytest.raises(ValueError, match=_message(path, 4) + "score .* got 'oops'"):
        read_table(path, query="user", item="item", score="score")


@pytest.mark.parametrize(
    "text, line, message",
    [
        # A quote never closed: the csv module would read every following line into one id.
        ('query,item\n1,a\n1,"b\n2,c\n3,d\n', 3, "a quote opened in this row is never closed"),
        ('query,item,note\n1,a,x\n1,b,"y\n2,c,z\n', 3, "a quote opened in this row is never"),
        ('query,item\n1,a\n1,"b', 3, "a quote opened in this row is never closed"),
        # An opening quote closed by a stray one lines later: an id over three lines.
        (
            'query,item\n1,a\n1,"b\n2,c\n3,"d\n4,e\n',
            3,
            "the item field (column 'item') holds a line break: 'b\\n2,c\\n3,d'",
        ),
        ('query,score,item\n1,"2\n3",a\n', 2, "the score field (column 'score') holds a line"),
        (
            'query,item,note\n1,a,"x\n2,b",y\n',
            2,
            "expected 3 fields like the header, got 4 (a quoted field runs from line 2 to line 3",
        ),
    ],
)
def test_table_quotes_left_open_are_errors(tmp_path, text, line, message):
    path = _write(tmp_path / "t.csv", text)
    score = "score" if "score" in text.split("\n", 1)[0] else None
    with pytest.raises(ValueError, match=_message(path, line)) as info:
        read_table(path, query="query", item="item", score=score)
    assert message in str(info.value)


def test_table_quoted_line_breaks_in_columns_not_read_are_kept(tmp_path):
    path = _write(tmp_path / "t.csv", 'query,item,note\n1,a,"two\nlines"\n1,b,"x"\n2,c,\n')
    table = read_table(path, query="query", item="item")
    assert table.queries.tolist() == ["1", "1", "2"] and table.items.tolist() == ["a", "b", "c"]


def test_table_not_utf8(tmp_path):
    path = _write(tmp_path / "t.csv", b"user,item\nu,a\nu,b\n" + b"\xe9,c\n")
    with pytest.raises(ValueError, match=_message(path, 4) + "not UTF-8 text"):
        read_table(path, query="user", item="item")


def test_table_column_names_must_be_strings(tmp_path):
    path = _write(tmp_path / "t.csv", TRUTH)
    with pytest.raises(TypeError, match="query must be a column name"):
        read_table(path, query=0, item="itemid")


def test_table_progress(tmp_path, monkeypatch):
    monkeypatch.setattr(_files, "_PROGRESS_EVERY", 2)
    path = _write(tmp_path / "t.csv", TRUTH)  # 5 lines
    calls = []
    _parse_table(
        path,
        query="userid",
        item="itemid",
        progress=lambda lines, done=False: calls.append((lines, done)),
    )
    assert calls == [(2, False), (4, False), (5, True)]


def test_tables_evaluate_hivemall_example(tmp_path):
    truth = "userid,itemid\n" + "".join(f"{u},{i}\n" for u in (1, 2, 3) for i in (1, 2, 4))
    rec = "userid,itemid,score\n" + "".join(
        f"{u},{i},{s}\n" for u in (1, 2, 3) for i, s in ((1, 10), (3, 8), (2, 6), (6, 2))
    )
    t = read_table(_write(tmp_path / "truth.csv", truth), query="userid", item="itemid")
    r = read_table(_write(tmp_path / "rec.csv", rec), query="userid", item="itemid", score="score")
    values = sr.evaluate(
        sr.ItemJudgments(t.queries, t.items, t.relevance),
        sr.ItemRanking(r.queries, r.items, r.scores),
        ["recall@4", "map@4", "auc@4", "ndcg@2"],
        ap_denominator="relevant",
    )
    assert values["recall@4"] == pytest.approx(0.6666666666666666, abs=1e-12)
    assert values["map@4"] == pytest.approx(0.5555555555555555, abs=1e-12)
    assert values["auc@4"] == pytest.approx(0.75, abs=1e-12)
    assert values["ndcg@2"] == pytest.approx(0.6131471927654585, abs=1e-12)
