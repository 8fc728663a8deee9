"""Every file format read through real pipes gives the values of the same file on disk.

A pipe, ``/dev/stdin`` or a shell process substitution (``<(zcat qrels.gz)``) can be read
only once and cannot seek. The inputs here are larger than a pipe's buffer (64 KiB) and a
file reader's block, so that bytes consumed by a look at the start of the input would
show up as lost lines: different values, or an error.
"""

import gzip
import json
import os
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

import sklearn_rank as sr
from sklearn_rank.cli._main import main
from sklearn_rank.inputs._files import read_table

N_QUERIES, N_JUDGED, N_RETRIEVED = 300, 20, 50


def _data():
    """Judgments and a run as text, in the four formats the readers take."""
    rng = np.random.default_rng(0)
    qrels, run, truth, predictions = [], [], ["query\titem\trel"], ["query,item,score"]
    for q in range(N_QUERIES):
        docs = rng.choice(1000, N_RETRIEVED + N_JUDGED, replace=False)
        for d in docs[:N_JUDGED]:
            rel = int(rng.integers(0, 3))
            qrels.append(f"q{q} 0 d{d} {rel}")
            truth.append(f"q{q}\td{d}\t{rel}")
        for rank, d in enumerate(docs[N_JUDGED // 2 :][:N_RETRIEVED], 1):
            score = round(float(rng.random()), 6)
            run.append(f"q{q} Q0 d{d} {rank} {score} tag")
            predictions.append(f"q{q},d{d},{score}")
    return {
        "qrels": "\n".join(qrels) + "\n",
        "run": "\n".join(run) + "\n",
        "tsv": "\n".join(truth) + "\n",
        "csv": "\n".join(predictions) + "\n",
    }


DATA = _data()
READ = {
    "qrels": lambda path: sr.read_trec_qrels(path),
    "run": lambda path: sr.read_trec_run(path),
    "tsv": lambda path: read_table(path, query="query", item="item", relevance="rel"),
    "csv": lambda path: read_table(path, query="query", item="item", score="score"),
}
NAMES = {"qrels": "qrels.txt", "run": "run.txt", "tsv": "truth.tsv", "csv": "predictions.csv"}


def _bytes(kind, compressed):
    data = DATA[kind].encode()
    return gzip.compress(data) if compressed else data


def _columns(result):
    """Every column a reader returns, as lists (None for a column it does not have)."""
    return [
        None if getattr(result, name, None) is None else np.asarray(getattr(result, name)).tolist()
        for name in ("queries", "items", "scores", "relevance")
    ]


def _write_all(fd, data):
    try:
        with os.fdopen(fd, "wb") as pipe:
            pipe.write(data)
    except BrokenPipeError:
        pass  # the reader stopped early: the test says so


def _read_through_pipe(kind, data):
    """The reader's result on ``/dev/fd/N``, the read end of an os.pipe fed by a thread."""
    read_end, write_end = os.pipe()
    writer = threading.Thread(target=_write_all, args=(write_end, data))
    writer.start()
    try:
        return READ[kind](f"/dev/fd/{read_end}")
    finally:
        os.close(read_end)  # first: a writer blocked on a full pipe then stops
        writer.join()


def test_inputs_are_larger_than_a_pipe_buffer():
    assert all(len(text) > 2**16 for text in DATA.values())


@pytest.mark.skipif(not os.path.exists("/dev/fd"), reason="no /dev/fd on this system")
@pytest.mark.parametrize("compressed", [False, True], ids=["plain", "gzip"])
@pytest.mark.parametrize("kind", list(DATA))
def test_readers_read_a_pipe_like_the_file(tmp_path, kind, compressed, file_parser):
    data = _bytes(kind, compressed)
    path = tmp_path / (NAMES[kind] + (".gz" if compressed else ""))
    path.write_bytes(data)
    from_file = _columns(READ[kind](path))
    assert len(from_file[0]) == DATA[kind].count("\n") - (kind in ("csv", "tsv"))
    assert _columns(_read_through_pipe(kind, data)) == from_file
    # Both reads went through the path under test.
    assert file_parser.fast_reads == (2 if file_parser.name == "pyarrow" else 0)


@pytest.mark.skipif(not os.path.exists("/dev/fd"), reason="no /dev/fd on this system")
def test_both_reader_paths_read_a_pipe_alike(tmp_path, file_parser):
    """Each path reads pipes to the values the line-by-line reader reads from the file."""
    from sklearn_rank.inputs import _fast_files

    expected = {}
    for kind in DATA:
        path = tmp_path / NAMES[kind]
        path.write_bytes(_bytes(kind, False))
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(_fast_files, "_ENABLED", False)
            expected[kind] = _columns(READ[kind](path))
    for kind in DATA:
        for compressed in (False, True):
            assert _columns(_read_through_pipe(kind, _bytes(kind, compressed))) == expected[kind]


@pytest.mark.skipif(not os.path.exists("/dev/fd"), reason="no /dev/fd on this system")
def test_errors_from_a_pipe_name_the_line_as_from_the_file(tmp_path, file_parser):
    data = (DATA["qrels"] + "q1 0 broken\n").encode()
    path = tmp_path / "qrels.txt"
    path.write_bytes(data)
    line = DATA["qrels"].count("\n") + 1
    for source in (path, None):
        with pytest.raises(ValueError, match=rf":{line}: expected 4 fields"):
            if source is None:
                _read_through_pipe("qrels", data)
            else:
                READ["qrels"](source)


# --------------------------------------------------------------------------------------
# The command line: /dev/stdin fed by the parent process, and bash process substitution
# --------------------------------------------------------------------------------------

FLAGS = {
    "qrels": ["--qrels"],
    "run": ["--run"],
    "tsv": ["--relevance-column", "rel", "--truth"],
    "csv": ["--score-column", "score", "--predictions"],
}
METRICS = ["-m", "ndcg@10", "map", "recall@20", "--format", "json"]


def _command():
    script = Path(sys.executable).with_name("sklearn-rank")
    return [str(script)] if script.exists() else [sys.executable, "-m", "sklearn_rank"]


def _files(folder, truth, run, compressed):
    """The two input files, written to ``folder``; {kind: path}."""
    paths = {}
    for kind in (truth, run):
        path = folder / (NAMES[kind] + (".gz" if compressed else ""))
        path.write_bytes(_bytes(kind, compressed))
        paths[kind] = path
    return paths


def _arguments(paths):
    return [part for kind, path in paths.items() for part in (*FLAGS[kind], str(path))]


def _values_from_files(paths, capsys):
    assert main(["evaluate", *_arguments(paths), *METRICS]) == 0
    values = json.loads(capsys.readouterr().out)
    assert 0 < values["map"] < 1 and 0 < values["ndcg@10"] < 1
    return values


PAIRS = [("qrels", "run"), ("tsv", "csv")]  # every format once as judgments or run


@pytest.mark.slow
@pytest.mark.parametrize("compressed", [False, True], ids=["plain", "gzip"])
def test_command_line_reads_dev_stdin(tmp_path, capsys, compressed):
    """Each input in turn is /dev/stdin, a pipe written by this process."""
    jobs = []
    for truth, run in PAIRS:
        folder = tmp_path / f"{truth}_{run}"
        folder.mkdir()
        paths = _files(folder, truth, run, compressed)
        expected = _values_from_files(paths, capsys)
        for piped in (truth, run):
            arguments = dict(paths)
            arguments[piped] = "/dev/stdin"
            process = subprocess.Popen(
                [*_command(), "evaluate", *_arguments(arguments), *METRICS],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
            )
            jobs.append((piped, process, paths[piped].read_bytes(), expected))
    for piped, process, data, expected in jobs:
        out, err = process.communicate(data, timeout=300)
        assert process.returncode == 0, (piped, err)
        assert json.loads(out) == expected, piped


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_command_line_reads_process_substitutions(tmp_path, capsys):
    """``--qrels <(zcat qrels.gz)`` and the like, both inputs through pipes."""
    jobs = []
    for truth, run in PAIRS:
        folder = tmp_path / f"{truth}_{run}"
        folder.mkdir()
        expected = _values_from_files(_files(folder, truth, run, False), capsys)
        gzipped = _files(folder, truth, run, True)
        # One input decompressed by zcat, the other still compressed (read through cat).
        substituted = {
            truth: f"<(zcat '{gzipped[truth]}')",
            run: f"<(cat '{gzipped[run]}')",
        }
        line = " ".join(
            [
                *(f"'{part}'" for part in _command()),
                "evaluate",
                *(part for kind in (truth, run) for part in (*FLAGS[kind], substituted[kind])),
                *METRICS,
            ]
        )
        process = subprocess.Popen(
            ["bash", "-c", line], stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
        jobs.append((line, process, expected))
    for line, process, expected in jobs:
        out, err = process.communicate(timeout=300)
        assert process.returncode == 0, (line, err)
        assert json.loads(out) == expected, line


@pytest.mark.slow
def test_command_line_warns_of_an_unused_score_column_in_a_pipe(tmp_path):
    """Without --score-column the header is looked at again: from what was read once."""
    qrels = tmp_path / "qrels.txt"
    qrels.write_text(DATA["qrels"])
    process = subprocess.run(
        [*_command(), "evaluate", "--qrels", str(qrels), "--predictions", "/dev/stdin"],
        input=DATA["csv"].encode(),
        capture_output=True,
        timeout=300,
    )
    assert process.returncode == 0, process.stderr
    assert b"has a column 'score' but no --score-column was given" in process.stderr
