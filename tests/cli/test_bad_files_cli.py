"""Bad run, qrels and table files: through the readers and the ``sklearn-rank`` command.

One row per case. A file the readers cannot use raises a ValueError whose message starts
with ``<path>:<line>:`` and says what was expected; the command line exits with status 2
and writes that message as one line on stderr, never a traceback. Files that are odd but
well defined (no final newline, old Mac line endings, a byte-order mark inside the file,
a ``.gz`` name on plain text) give the values of the same data written cleanly.

The cases of tests/inputs/test_files.py and tests/cli/test_cli.py are not repeated here.
"""

import gzip
import re
import subprocess
import sys
from pathlib import Path

import pytest
from test_cli import _error as _cli_error

import sklearn_rank as sr
from sklearn_rank.cli._main import main
from sklearn_rank.inputs._files import read_table

RUN = b"q1 Q0 a 1 2.5 t\nq1 Q0 b 2 1.5 t\nq2 Q0 a 1 0.5 t\n"
QRELS = b"q1 0 a 0\nq1 0 b 2\nq2 0 a 1\n"
TABLE = b"query,item,score\nq1,a,2.5\nq1,b,1.5\nq2,a,0.5\n"
TRUTH_TABLE = b"query,item,rel\nq1,a,0\nq1,b,2\nq2,a,1\n"
BOM = b"\xef\xbb\xbf"


@pytest.fixture(autouse=True)
def _each_reader_path(file_parser):
    """Every case runs through both reader paths (line by line; pyarrow's when it imports),
    which must give the same values and the same errors."""
    return file_parser


def _read(kind, path):
    """The columns a reader gives, as plain lists."""
    if kind == "run":
        run = sr.read_trec_run(path)
        return run.queries.tolist(), run.items.tolist(), run.scores.tolist()
    if kind == "qrels":
        qrels = sr.read_trec_qrels(path)
        return qrels.queries.tolist(), qrels.items.tolist(), qrels.relevance.tolist()
    table = read_table(path, query="query", item="item", score="score")
    return table.queries.tolist(), table.items.tolist(), table.scores.tolist()


CLEAN = {
    "run": (["q1", "q1", "q2"], ["a", "b", "a"], [2.5, 1.5, 0.5]),
    "qrels": (["q1", "q1", "q2"], ["a", "b", "a"], [0.0, 2.0, 1.0]),
    "table": (["q1", "q1", "q2"], ["a", "b", "a"], [2.5, 1.5, 0.5]),
}
TEXT = {"run": RUN, "qrels": QRELS, "table": TABLE}


def _write(folder, name, data):
    path = folder / name
    path.write_bytes(data)
    return path


# --------------------------------------------------------------------------------------
# Odd but well-defined files: the values of the clean file
# --------------------------------------------------------------------------------------

VARIANTS = [
    ("no_final_newline", lambda data: data[:-1]),
    ("old_mac_line_endings", lambda data: data.replace(b"\n", b"\r")),
    ("mixed_line_endings", lambda data: data.replace(b"\n", b"\r\n", 1)),
    ("bom_and_crlf", lambda data: BOM + data.replace(b"\n", b"\r\n")),
    # `cat a.txt b.txt` keeps b's byte-order mark at the start of a line in the middle.
    (
        "bom_inside_concatenated_file",
        lambda data: BOM + data.split(b"\n", 1)[0] + b"\n" + BOM + data.split(b"\n", 1)[1],
    ),
    ("gzip_without_gz_name", gzip.compress),
    ("gzip_members_concatenated", lambda data: gzip.compress(data[:10]) + gzip.compress(data[10:])),
    ("gzip_bom_crlf", lambda data: gzip.compress(BOM + data.replace(b"\n", b"\r\n"))),
    ("blank_lines_at_end", lambda data: data + b"\n\n  \n"),
]


@pytest.mark.parametrize("kind", ["run", "qrels", "table"])
@pytest.mark.parametrize("variant", [row[1] for row in VARIANTS], ids=[r[0] for r in VARIANTS])
def test_odd_files_read_like_the_clean_file(tmp_path, kind, variant):
    path = _write(tmp_path, "input.csv" if kind == "table" else "input.txt", variant(TEXT[kind]))
    assert _read(kind, path) == CLEAN[kind]


@pytest.mark.parametrize("kind", ["run", "qrels", "table"])
def test_plain_text_named_gz_is_read_as_text(tmp_path, kind):
    # Compression is recognised by content, not by name.
    path = _write(tmp_path, "input.csv.gz" if kind == "table" else "input.gz", TEXT[kind])
    assert _read(kind, path) == CLEAN[kind]


@pytest.mark.parametrize(
    "kind, line, values",
    [
        ("run", b"q Q0 a 1 -0 t\nq Q0 b 1 5e-324 t\nq Q0 c 1 +.5e1 t\n", [-0.0, 5e-324, 5.0]),
        ("qrels", b"q 0 a +1\nq 0 b -2\nq 0 c 0\n", [1.0, -2.0, 0.0]),
        ("table", b"query,item,score\nq,a,-0\nq,b,5e-324\nq,c,+.5e1\n", [-0.0, 5e-324, 5.0]),
    ],
    ids=["run", "qrels", "table"],
)
def test_unusual_but_valid_numbers(tmp_path, kind, line, values):
    path = _write(tmp_path, "input.csv" if kind == "table" else "input.txt", line)
    assert _read(kind, path)[2] == values


# --------------------------------------------------------------------------------------
# Bad files: ValueError "<path>:<line>: ..."
# --------------------------------------------------------------------------------------

BAD_FILES = [
    # (id, reader, bytes, line, message)
    (
        "run_last_line_cut",
        "run",
        RUN[:-8],
        3,
        "expected 6 fields 'qid Q0 docno rank score tag', got 3",
    ),
    (
        "qrels_last_line_cut",
        "qrels",
        QRELS[:-3],
        3,
        "expected 4 fields 'qid iter docno rel', got 3",
    ),
    ("table_last_line_cut", "table", TABLE[:-6], 4, "expected 3 fields like the header, got 2"),
    (
        "run_five_fields",
        "run",
        b"q Q0 a 1 1.0\n",
        1,
        "expected 6 fields 'qid Q0 docno rank score tag', got 5",
    ),
    (
        "qrels_five_fields",
        "qrels",
        b"q 0 a 1 x\n",
        1,
        "expected 4 fields 'qid iter docno rel', got 5",
    ),
    ("qrels_as_run", "run", QRELS, 1, "got 4 (is this a TREC qrels file?)"),
    ("run_only_whitespace", "run", b"  \n\t\n", 2, "no data lines (only blank or comment"),
    ("qrels_only_comments", "qrels", b"# q 0 a 1\n", 1, "no data lines"),
    (
        "table_header_only_no_newline",
        "table",
        b"query,item,score",
        1,
        "no data rows after the header",
    ),
    (
        "table_unclosed_quote",
        "table",
        b'query,item,score\nq,"a,1\nq,b,2\n',
        2,
        "a quote opened in this row is never closed",
    ),
    (
        "run_score_nan",
        "run",
        b"q Q0 a 1 NaN t\n",
        1,
        "score (field 5) must be a finite number; got 'NaN'",
    ),
    (
        "run_score_infinity_word",
        "run",
        b"q Q0 a 1 Infinity t\n",
        1,
        "must be a finite number; got 'Infinity'",
    ),
    (
        "run_score_minus_inf",
        "run",
        b"q Q0 a 1 2 t\nq Q0 b 2 -inf t\n",
        2,
        "must be a finite number; got '-inf'",
    ),
    ("run_score_hex", "run", b"q Q0 a 1 0x10 t\n", 1, "must be a finite number; got '0x10'"),
    (
        "run_score_comma_decimal",
        "run",
        b"q Q0 a 1 1,5 t\n",
        1,
        "must be a finite number; got '1,5'",
    ),
    # Python's float() reads these; C's atof (trec_eval) would not: refused.
    (
        "run_score_digit_separator",
        "run",
        b"q Q0 a 1 1_000 t\n",
        1,
        "score (field 5) must be a finite number written with ASCII digits and no '_'; got '1_000'",
    ),
    (
        "run_score_arabic_digit",
        "run",
        "q Q0 a 1 \u0663 t\n".encode(),
        1,
        "written with ASCII digits and no '_'; got '\u0663'",
    ),
    (
        "qrels_rel_digit_separator",
        "qrels",
        b"q 0 a 1_0\n",
        1,
        "relevance (field 4) must be an integer written with ASCII digits and no '_'; got '1_0'",
    ),
    (
        "qrels_rel_fullwidth_digit",
        "qrels",
        "q 0 a \uff11\n".encode(),
        1,
        "must be an integer written with ASCII digits",
    ),
    (
        "qrels_rel_nan",
        "qrels",
        b"q 0 a nan\n",
        1,
        "relevance (field 4) must be an integer; got 'nan'",
    ),
    ("qrels_rel_float", "qrels", b"q 0 a 1.0\n", 1, "must be an integer; got '1.0'"),
    (
        "qrels_rel_over_int64",
        "qrels",
        b"q 0 a 1\nq 0 b 9223372036854775808\n",
        2,
        "relevance (field 4) must be an integer between -2**63 and 2**63 - 1; "
        "got '9223372036854775808'",
    ),
    (
        "table_score_nan",
        "table",
        b"query,item,score\nq,a,1\nq,b,nan\n",
        3,
        "score (column 'score') must be a finite number; got 'nan'",
    ),
    (
        "table_score_minus_inf",
        "table",
        b"query,item,score\nq,a,-inf\n",
        2,
        "must be a finite number; got '-inf'",
    ),
    (
        "table_score_digit_separator",
        "table",
        b"query,item,score\nq,a,1_5\n",
        2,
        "score (column 'score') must be a finite number written with ASCII digits",
    ),
    (
        "table_header_all_blank_names",
        "table",
        b",,\nq,a,1\n",
        1,
        "no column 'query' (the query column) in the header; columns found (comma-separated): "
        "'', '', ''",
    ),
    (
        "run_latin1",
        "run",
        "q Q0 caf\xe9 1 1 t\n".encode("latin-1"),
        1,
        "not UTF-8 text (invalid continuation byte at byte 9 of the line)",
    ),
    (
        "qrels_latin1",
        "qrels",
        b"q 0 a 1\n" + "q 0 caf\xe9 1\n".encode("latin-1"),
        2,
        "not UTF-8 text",
    ),
    (
        "table_latin1",
        "table",
        b"query,item,score\n" + "q,caf\xe9,1\n".encode("latin-1"),
        2,
        "not UTF-8 text",
    ),
    (
        "run_utf16",
        "run",
        RUN.decode().encode("utf-16"),
        1,
        "not UTF-8 text (it starts with a UTF-16 byte-order mark: save it as UTF-8)",
    ),
    (
        "table_utf16",
        "table",
        TABLE.decode().encode("utf-16"),
        1,
        "it starts with a UTF-16 byte-order mark",
    ),
    # Bytes 0x0a and 0x0d end lines 1 and 2 (any line ending counts, as when parsing).
    (
        "random_binary",
        "run",
        bytes(range(256)) * 2,
        3,
        "not UTF-8 text (invalid start byte at byte 115 of the line)",
    ),
    (
        "old_mac_endings_latin1_line_3",
        "qrels",
        b"q 0 a 1\rq 0 b 1\r" + "q 0 caf\xe9 1\r".encode("latin-1"),
        3,
        "not UTF-8 text",
    ),
    (
        "gzip_magic_only",
        "run",
        b"\x1f\x8b",
        1,
        "damaged gzip file (Compressed file ended before the end-of-stream marker",
    ),
    ("qrels_gzip_cut", "qrels", gzip.compress(QRELS * 200)[:-20], None, "damaged gzip file"),
    ("table_gzip_cut", "table", gzip.compress(TABLE * 50)[:-20], None, "damaged gzip file"),
    (
        "gzip_trailing_garbage",
        "qrels",
        gzip.compress(QRELS) + b"garbage",
        4,
        "damaged gzip file (Not a gzipped file",
    ),
    ("gzip_of_gzip", "run", gzip.compress(gzip.compress(RUN)), 1, "not UTF-8 text"),
    (
        "gzip_of_nothing",
        "qrels",
        gzip.compress(b""),
        1,
        "empty file; expected lines 'qid iter docno rel'",
    ),
]


def _starts(path, line):
    if line is None:
        return "^" + re.escape(f"{path}:") + r"\d+: "
    return "^" + re.escape(f"{path}:{line}: ")


@pytest.mark.parametrize(
    "kind, data, line, message", [row[1:] for row in BAD_FILES], ids=[row[0] for row in BAD_FILES]
)
def test_bad_files_name_the_path_and_line(tmp_path, kind, data, line, message):
    path = _write(tmp_path, "input.csv" if kind == "table" else "input.txt", data)
    with pytest.raises(ValueError, match=_starts(path, line)) as info:
        _read(kind, path)
    assert message in str(info.value)
    assert "\n" not in str(info.value)


@pytest.mark.parametrize("kind", ["run", "qrels", "table"])
@pytest.mark.parametrize(
    "path, error, message",
    [
        (None, TypeError, "path must be a file name (str or path-like); got None"),
        # An int would be taken by open() as a file descriptor, and closed after reading.
        (0, TypeError, "path must be a file name (str or path-like); got 0"),
        (["run.txt"], TypeError, "path must be a file name (str or path-like); got ['run.txt']"),
    ],
    ids=["none", "int_file_descriptor", "list"],
)
def test_paths_that_are_not_file_names(kind, path, error, message):
    with pytest.raises(error, match=re.escape(message)):
        _read(kind, path)


@pytest.mark.parametrize("kind", ["run", "qrels", "table"])
def test_missing_file_and_directory_are_oserrors_naming_the_path(tmp_path, kind):
    with pytest.raises(FileNotFoundError, match=re.escape(str(tmp_path / "absent"))):
        _read(kind, tmp_path / "absent")
    with pytest.raises(IsADirectoryError, match=re.escape(str(tmp_path))):
        _read(kind, tmp_path)


# --------------------------------------------------------------------------------------
# The command line: exit status 2, one line "sklearn-rank: error: <path>:<line>: ..."
# --------------------------------------------------------------------------------------


def _gzip_cut_in_a_bad_character(data):
    """``data`` gzip-compressed (stored), cut two bytes after its byte \\xe9 (not UTF-8)."""
    compressed = gzip.compress(data, compresslevel=0)
    kept = data.index(b"\xe9") + 3
    return compressed[: len(compressed) - 8 - (len(data) - kept)]


def _files(folder, kind, data):
    """Arguments for one evaluation whose ``kind`` file holds ``data``, the other clean."""
    inputs = {
        "qrels": ("--qrels", "qrels.txt", QRELS),
        "run": ("--run", "run.txt", RUN),
        "table": ("--predictions", "rec.csv", TABLE),
        "truth": ("--truth", "truth.csv", TRUTH_TABLE),
    }
    truth = "truth" if kind == "truth" else "qrels"
    run = "table" if kind == "table" else "run"
    args, target = ["evaluate"], None
    for role in (truth, run):
        flag, name, clean = inputs[role]
        path = _write(folder, name, data if role == kind else clean)
        target = path if role == kind else target
        args += [flag, str(path)]
    if kind == "table":
        args += ["--score-column", "score"]
    if kind == "truth":
        args += ["--relevance-column", "rel"]
    return args + ["-m", "map", "ndcg@2"], target


CLI_CASES = [
    # (id, which file, bytes, line, message): cases tests/cli/test_cli.py does not run.
    ("qrels_last_line_cut", "qrels", QRELS[:-3], 3, "expected 4 fields"),
    ("run_five_fields", "run", RUN + b"q2 Q0 b 2 1\n", 4, "expected 6 fields"),
    ("run_score_nan", "run", b"q1 Q0 a 1 nan t\n", 1, "must be a finite number; got 'nan'"),
    ("run_score_digit_separator", "run", b"q1 Q0 a 1 1_0 t\n", 1, "no '_'; got '1_0'"),
    (
        "qrels_rel_over_int64",
        "qrels",
        b"q1 0 a 99999999999999999999\n",
        1,
        "must be an integer between -2**63 and 2**63 - 1",
    ),
    (
        "table_score_minus_inf",
        "table",
        b"query,item,score\nq1,a,-inf\n",
        2,
        "score (column 'score') must be a finite number; got '-inf'",
    ),
    ("table_last_line_cut", "table", TABLE[:-6], 4, "expected 3 fields like the header"),
    (
        "truth_relevance_nan",
        "truth",
        b"query,item,rel\nq1,a,nan\n",
        2,
        "relevance (column 'rel') must be a finite number; got 'nan'",
    ),
    ("truth_utf16", "truth", TRUTH_TABLE.decode().encode("utf-16"), 1, "UTF-16"),
    ("qrels_latin1", "qrels", "q1 0 caf\xe9 1\n".encode("latin-1"), 1, "not UTF-8 text"),
    ("qrels_gzip_cut", "qrels", gzip.compress(QRELS * 200)[:-20], None, "damaged gzip file"),
    ("table_gzip_cut", "table", gzip.compress(TABLE * 50)[:-20], None, "damaged gzip file"),
    ("run_gzip_magic_only", "run", b"\x1f\x8b", 1, "damaged gzip file"),
    *(
        (
            f"{kind}_gzip_cut_in_a_bad_character",
            kind,
            _gzip_cut_in_a_bad_character(clean + line),
            clean.count(b"\n") + 1,
            "damaged gzip file",
        )
        for kind, clean, line in (
            ("qrels", QRELS, b"q3 0 caf\xe9 1\n"),
            ("run", RUN, b"q3 Q0 caf\xe9 1 1 t\n"),
            ("table", TABLE, b"q3,caf\xe9 2,1\n"),
        )
    ),
    (
        "table_quote_never_closed",
        "table",
        b'query,item,score\nq1,a,1\nq1,"b,2\nq2,c,3\nq3,d,4\n',
        3,
        "a quote opened in this row is never closed",
    ),
    ("run_random_binary", "run", bytes(range(256)), 3, "not UTF-8 text"),
]


@pytest.mark.parametrize(
    "kind, data, line, message", [row[1:] for row in CLI_CASES], ids=[row[0] for row in CLI_CASES]
)
def test_command_line_bad_files(tmp_path, capsys, kind, data, line, message):
    args, path = _files(tmp_path, kind, data)
    err = _cli_error(capsys, args)
    where = re.escape(f"sklearn-rank: error: {path}:") + (r"\d+" if line is None else str(line))
    assert re.match(where + ": ", err), err
    assert message in err


@pytest.mark.parametrize("flag", ["--qrels", "--run", "--truth", "--predictions"])
def test_command_line_missing_file_and_directory(tmp_path, capsys, flag):
    clean = {"--qrels": QRELS, "--run": RUN, "--truth": TRUTH_TABLE, "--predictions": TABLE}
    other = {
        "--qrels": "--run",
        "--run": "--qrels",
        "--truth": "--run",
        "--predictions": "--qrels",
    }[flag]
    other_path = _write(tmp_path, "other", clean[other])
    for target, reason in (
        (tmp_path / "absent.txt", "No such file or directory"),
        (tmp_path, "Is a directory"),
    ):
        err = _cli_error(capsys, ["evaluate", flag, str(target), other, str(other_path)])
        assert err == f"sklearn-rank: error: {target}: {reason}\n"


def test_command_line_names_the_judgments_file_for_negative_relevance(tmp_path, capsys):
    # evaluate's message speaks of y_true; on the command line that is the qrels file.
    args, path = _files(tmp_path, "qrels", b"q1 0 a -1\nq1 0 b 2\n")
    err = _cli_error(capsys, args)
    assert err.startswith(
        f"sklearn-rank: error: the judgments ({path}) must be non-negative for 'map'; got -1.0."
    )
    assert "y_true" not in err


@pytest.mark.parametrize("kind", ["qrels", "run", "table", "truth"])
@pytest.mark.parametrize("variant", [row[1] for row in VARIANTS], ids=[r[0] for r in VARIANTS])
def test_command_line_odd_files_give_the_clean_values(tmp_path, capsys, kind, variant):
    (tmp_path / "clean").mkdir()
    source = {"qrels": QRELS, "run": RUN, "table": TABLE, "truth": TRUTH_TABLE}[kind]
    clean_args, _ = _files(tmp_path / "clean", kind, source)
    odd_args, _ = _files(tmp_path, kind, variant(source))
    assert main(clean_args + ["--format", "json"]) == 0
    expected = capsys.readouterr()
    assert main(odd_args + ["--format", "json"]) == 0
    got = capsys.readouterr()
    assert got.out == expected.out and got.err == ""
    # map: q1 ranks its relevant b second (1/2), q2 its only item first (1).
    assert '"map": 0.75' in got.out


# --------------------------------------------------------------------------------------
# As a program: the installed console script, run as subprocesses (at once, to save time)
# --------------------------------------------------------------------------------------

# Each process imports scikit-learn (seconds): a few cases stand for the rest, which run
# through the same main() above.
SUBPROCESS_CASES = ["run_score_nan", "truth_utf16"]


def _console_script():
    script = Path(sys.executable).with_name("sklearn-rank")
    if not script.exists():
        pytest.skip("the sklearn-rank console script is not installed next to python")
    return str(script)


@pytest.mark.slow
def test_console_script_errors_are_one_line_without_traceback(tmp_path):
    script = _console_script()
    cases = {row[0]: row[1:] for row in CLI_CASES}
    jobs = []
    for name in SUBPROCESS_CASES:
        kind, data, line, message = cases[name]
        (tmp_path / name).mkdir()
        args, path = _files(tmp_path / name, kind, data)
        process = subprocess.Popen(
            [script, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        jobs.append((name, process, path, line, message))
    missing = tmp_path / "absent.txt"
    args, _ = _files(tmp_path, "run", RUN)
    args[args.index("--qrels") + 1] = str(missing)
    jobs.append(
        (
            "missing",
            subprocess.Popen(
                [script, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
            ),
            missing,
            None,
            "No such file or directory",
        )
    )
    for name, process, path, line, message in jobs:
        out, err = process.communicate(timeout=300)
        assert process.returncode == 2, (name, err)
        assert out == "", name
        assert "Traceback" not in err, (name, err)
        assert err.count("\n") == 1, (name, err)
        prefix = f"sklearn-rank: error: {path}:"
        assert err.startswith(prefix), (name, err)
        if name != "missing":
            assert re.match(r"\d+: ", err[len(prefix) :]), (name, err)
            if line is not None:
                assert err[len(prefix) :].startswith(f"{line}: "), (name, err)
        assert message in err, (name, err)
