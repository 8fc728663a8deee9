"""Readers for run and judgment files: TREC runs and qrels, CSV/TSV tables.

Every reader accepts plain or gzip-compressed files (recognised by their content, so a
``.gz`` name is not required), an optional UTF-8 byte-order mark (also at the start of a
line inside the file, where joining files with ``cat`` leaves one) and any line ending.
A pipe, ``/dev/stdin`` or a shell process substitution (``<(zcat run.gz)``) can be read
only once: it is copied once into a temporary file (in memory while small), so that it
gives the same values and the same errors as a file.
Numbers must be written as C reads them (ASCII digits, no ``_``), as trec_eval reads them.
Bad input raises a `ValueError` whose message starts with ``<path>:<line>:`` and says what
was expected. Ids (query, item) are kept as the strings found in the file, so ``"07"`` and
``"7"`` are different ids, as in trec_eval.

Parsing returns plain arrays; only the public readers build the library's
`ItemRanking` / `ItemJudgments` from them.
"""

import csv
import functools
import gc
import gzip
import io
import itertools
import os
import shutil
import tempfile
import zlib
from array import array
from contextlib import contextmanager
from operator import itemgetter
from typing import NamedTuple

import numpy as np

from ._tables import ItemJudgments, ItemRanking

TREC_RUN_FORMAT = "qid Q0 docno rank score tag"
TREC_QRELS_FORMAT = "qid iter docno rel"

# How often (in lines) the progress callback is called.
_PROGRESS_EVERY = 1 << 17

# A pipe's copy stays in memory up to this size, then goes to a temporary file.
_PIPE_IN_MEMORY = 1 << 24

# Read after a table's last line: the csv module ends a quoted field that is still open at
# the end of the file without a word, so this line tells whether one was open (it then
# ends up inside that field). Private-use characters, in no real table.
_END_OF_TABLE = "\ue000\uf8ffend of the table\uf8ff\ue000"


class Table(NamedTuple):
    """Columns read by `read_table`: 1-D arrays, or None for a column not asked for."""

    queries: np.ndarray
    items: np.ndarray
    scores: np.ndarray | None
    relevance: np.ndarray | None


# --------------------------------------------------------------------------------------
# Public readers
# --------------------------------------------------------------------------------------


def read_trec_run(path):
    """Read a TREC run file into an `ItemRanking`.

    Each line is ``qid Q0 docno rank score tag``: six fields separated by whitespace. The
    score (fifth field) orders each query's documents, higher first; the rank field, like
    ``Q0`` and the run tag, is ignored, as trec_eval ignores it. Fields after the run tag
    are ignored too, as trec_eval ignores them.

    Parameters
    ----------
    path : str or path-like
        The run file, plain or gzip-compressed; a pipe or ``/dev/stdin`` too. Blank lines
        and lines starting with ``#`` are skipped; a UTF-8 byte-order mark and Windows line
        endings are accepted.

    Returns
    -------
    run : ItemRanking
        Query ids and document ids (strings, as in the file) and scores (float64).

    Raises
    ------
    ValueError
        With a message ``<path>:<line>: ...`` for an empty file, a line with fewer than
        six fields, a score that is not a finite number (ASCII digits, no ``_``), text
        that is not UTF-8, a damaged gzip file, or a document listed twice for the same
        query.
    TypeError
        If ``path`` is not a file name (an int would be read as a file descriptor).
    OSError
        If the file cannot be opened (missing, a directory, no permission).

    See Also
    --------
    read_trec_qrels : the judgments that go with a run.

    Examples
    --------
    >>> import os, tempfile
    >>> from sklearn_rank import evaluate
    >>> from sklearn_rank import read_trec_qrels, read_trec_run
    >>> folder = tempfile.mkdtemp()
    >>> run_path = os.path.join(folder, "run.txt")
    >>> with open(run_path, "w") as f:
    ...     _ = f.write("q1 Q0 d1 1 2.5 demo\\n"
    ...                 "q1 Q0 d2 2 1.5 demo\\n"
    ...                 "q1 Q0 d3 3 0.5 demo\\n")
    >>> qrels_path = os.path.join(folder, "qrels.txt")
    >>> with open(qrels_path, "w") as f:
    ...     _ = f.write("q1 0 d2 1\\nq1 0 d3 0\\n")
    >>> evaluate(read_trec_qrels(qrels_path), read_trec_run(run_path), ["mrr", "map"])
    {'mrr': 0.5, 'map': 0.5}
    """
    return ItemRanking(*_parse_trec_run(path))


def read_trec_qrels(path):
    """Read a TREC qrels file into an `ItemJudgments`.

    Each line is ``qid iter docno rel``: four fields separated by whitespace, ``rel`` an
    integer. The ``iter`` field is ignored. Relevance 0 marks a judged non-relevant
    document; negative values are kept as they are (the metrics decide what they mean).

    Parameters
    ----------
    path : str or path-like
        The qrels file, plain or gzip-compressed; a pipe or ``/dev/stdin`` too. Blank
        lines and lines starting with ``#`` are skipped; a UTF-8 byte-order mark and
        Windows line endings are accepted.

    Returns
    -------
    qrels : ItemJudgments
        Query ids and document ids (strings, as in the file) and relevance (int64).

    Raises
    ------
    ValueError
        With a message ``<path>:<line>: ...`` for an empty file, a line that does not have
        four fields, a relevance that is not a 64-bit integer (ASCII digits, no ``_``),
        text that is not UTF-8, a damaged gzip file, or a document judged twice for the
        same query.
    TypeError
        If ``path`` is not a file name (an int would be read as a file descriptor).
    OSError
        If the file cannot be opened (missing, a directory, no permission).

    See Also
    --------
    read_trec_run : the run to evaluate against these judgments.

    Examples
    --------
    >>> import os, tempfile
    >>> from sklearn_rank import evaluate
    >>> from sklearn_rank import read_trec_qrels, read_trec_run
    >>> folder = tempfile.mkdtemp()
    >>> qrels_path = os.path.join(folder, "qrels.txt")
    >>> with open(qrels_path, "w") as f:
    ...     _ = f.write("# topic 1\\n"
    ...                 "1 0 a 2\\n"
    ...                 "1 0 b 0\\n"
    ...                 "1 0 c 1\\n")
    >>> run_path = os.path.join(folder, "run.txt")
    >>> with open(run_path, "w") as f:
    ...     _ = f.write("1 Q0 a 1 0.9 demo\\n1 Q0 b 2 0.8 demo\\n")
    >>> qrels = read_trec_qrels(qrels_path)
    >>> evaluate(qrels, read_trec_run(run_path), ["recall@2", "precision@2"])
    {'recall@2': 0.5, 'precision@2': 0.5}
    """
    return ItemJudgments(*_parse_trec_qrels(path))


def read_table(path, *, query, item, score=None, relevance=None):
    """Read the columns of a CSV or TSV table that has a header row.

    The delimiter is a comma for ``.csv`` files and a tab for ``.tsv`` files (a ``.gz``
    suffix is looked through); for any other name, or when the header line does not
    contain that delimiter, it is taken from the header line: tab, comma or semicolon,
    the first one present. Fields may be quoted as in the `csv` module; surrounding
    whitespace is removed. Blank lines are skipped. A quoted field may run over several
    lines only in a column not read: an id or a number holding a line break, like a quote
    never closed, is an error (a missing closing quote would otherwise swallow the lines
    that follow).

    Parameters
    ----------
    path : str or path-like
        The table, plain or gzip-compressed (a pipe or ``/dev/stdin`` too), with a header
        row of column names. A UTF-8 byte-order mark and Windows line endings are accepted.
    query, item : str
        Names of the query id and item id columns. Ids are kept as strings.
    score : str, default=None
        Name of a score column (finite numbers) to read, if any.
    relevance : str, default=None
        Name of a relevance column (finite numbers) to read, if any.

    Returns
    -------
    table : Table
        A named tuple ``(queries, items, scores, relevance)`` of 1-D arrays, one entry per
        data row in file order; ``scores`` and ``relevance`` are None when not asked for.

    Raises
    ------
    ValueError
        With a message ``<path>:<line>: ...`` for an empty file or a header with no data
        rows, a column name missing from the header (the message lists the columns
        found), a row with the wrong number of fields, a quote never closed, a line break
        in an id or a number, an empty id, a value that is not a finite number, or an item
        listed twice for the same query. The line is the one where the row starts.

    Examples
    --------
    >>> import os, tempfile
    >>> from sklearn_rank.inputs import read_table
    >>> path = os.path.join(tempfile.mkdtemp(), "dummy_rec.csv")
    >>> with open(path, "w") as f:
    ...     _ = f.write("userid,itemid,score\\n1,1,10.0\\n1,3,8.0\\n2,2,6.0\\n")
    >>> table = read_table(path, query="userid", item="itemid", score="score")
    >>> table.queries.tolist(), table.items.tolist(), table.scores.tolist()
    (['1', '1', '2'], ['1', '3', '2'], [10.0, 8.0, 6.0])
    >>> table.relevance is None
    True
    """
    return _parse_table(path, query=query, item=item, score=score, relevance=relevance)


# --------------------------------------------------------------------------------------
# The one place that builds the library's input objects.
# --------------------------------------------------------------------------------------


# --------------------------------------------------------------------------------------
# Parsing
# --------------------------------------------------------------------------------------


def _name(path):
    return os.fspath(path)


def _check_path(path):
    """Refuse what open() would misread: an int is a file descriptor, not a file name."""
    if not isinstance(path, (str, bytes, os.PathLike)):
        raise TypeError(f"path must be a file name (str or path-like); got {path!r}.")


def _error(path, line, message):
    return ValueError(f"{_name(path)}:{line}: {message}")


@contextmanager
def _source(path):
    """The file's bytes as a seekable binary file, read from the path once.

    Every reader looks at the first bytes (is it gzip?), and may read the file again to
    locate an error; a pipe allows neither, so it is copied first.
    """
    _check_path(path)
    with open(path, "rb") as raw:
        if raw.seekable():
            yield raw
            return
        with tempfile.SpooledTemporaryFile(max_size=_PIPE_IN_MEMORY) as copy:
            shutil.copyfileobj(raw, copy, 1 << 20)
            copy.seek(0)
            yield copy


def _is_gzip(source):
    start = source.tell()
    magic = source.read(2)
    source.seek(start)
    return magic == b"\x1f\x8b"


def _decompressed(source):
    """The bytes of ``source`` from its start, decompressed when it is gzip."""
    source.seek(0)
    return gzip.GzipFile(fileobj=source, mode="rb") if _is_gzip(source) else source


def _text(source, newline=None):
    """UTF-8 text of a plain or gzip-compressed source (an optional BOM is dropped).

    Keep the returned object while reading: when it is freed, it closes ``source``.
    """
    return io.TextIOWrapper(_decompressed(source), encoding="utf-8-sig", newline=newline)


def _without_gc(function):
    """Pause the cyclic garbage collector while ``function`` runs.

    Parsing builds millions of small tuples and lists that the collector would otherwise
    scan again and again (it roughly halves the time of a large file).
    """

    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        enabled = gc.isenabled()
        gc.disable()
        try:
            return function(*args, **kwargs)
        finally:
            if enabled:
                gc.enable()

    return wrapper


@contextmanager
def _reading(path, source, position):
    """Turn decoding and decompression failures into ``<path>:<line>:`` ValueErrors.

    position : callable returning the number of the line being read when it failed
    (decompression errors). Text is decoded in blocks, so a decoding error is located by
    reading ``source`` again line by line.
    """
    try:
        yield
    except UnicodeDecodeError:
        line, message = _locate_decoding_error(source)
        raise _error(path, line, message) from None
    except (EOFError, zlib.error, gzip.BadGzipFile) as exc:
        raise _error(path, position(), f"damaged gzip file ({exc})") from None
    except csv.Error as exc:  # e.g. a field over the csv module's size limit
        raise _error(path, position(), f"not a valid CSV/TSV line ({exc})") from None


def _locate_decoding_error(source):
    """(line number, message) of the first line that is not UTF-8.

    Lines end at a line feed, a carriage return or both, as when the text is parsed, so
    that the number agrees with the other errors' line numbers. A gzip stream damaged
    before that line (a truncated file cuts its last line, often inside a character) is
    reported as damaged at the line being read.
    """
    lineno = 0
    try:
        for chunk in _decompressed(source):  # binary chunks end at line feeds only
            for data in chunk.splitlines(keepends=True):
                lineno += 1
                if lineno == 1 and data.startswith((b"\xff\xfe", b"\xfe\xff")):
                    return 1, (
                        "not UTF-8 text (it starts with a UTF-16 byte-order mark: save it as UTF-8)"
                    )
                try:
                    data.decode("utf-8-sig" if lineno == 1 else "utf-8")
                except UnicodeDecodeError as exc:
                    return lineno, (
                        f"not UTF-8 text ({exc.reason} at byte {exc.start + 1} of the line)"
                    )
    except (EOFError, zlib.error, gzip.BadGzipFile) as exc:
        return lineno + 1, f"damaged gzip file ({exc})"
    return max(lineno, 1), "not UTF-8 text"  # pragma: no cover - decoding failed before


def _plain(strings):
    """Whether every string is ASCII without '_'.

    float() and int() accept digit separators ("1_000") and non-ASCII digits (Arabic-Indic,
    full-width) that C's atof/atoi (trec_eval) do not: a score read here as 1000 would be 1
    for trec_eval, a silent disagreement. Such numbers are refused.
    """
    text = "".join(strings)
    return text.isascii() and "_" not in text


def _float_problem(text, what):
    """Why ``text`` is not a finite number written plainly, or None when it is one."""
    if not text.isascii() or "_" in text:
        return f"{what} must be a finite number written with ASCII digits and no '_'; got {text!r}"
    try:
        value = float(text)
    except ValueError:
        if not text.strip():
            return f"{what} is empty; expected a number"
        return f"{what} must be a finite number; got {text!r}"
    return None if np.isfinite(value) else f"{what} must be a finite number; got {text!r}"


def _int_problem(text, what):
    """Why ``text`` is not a 64-bit integer written plainly, or None when it is one."""
    if not text.isascii() or "_" in text:
        return f"{what} must be an integer written with ASCII digits and no '_'; got {text!r}"
    try:
        value = int(text)
    except ValueError:
        return f"{what} must be an integer; got {text!r}"
    if not -(2**63) <= value < 2**63:
        return f"{what} must be an integer between -2**63 and 2**63 - 1; got {text!r}"
    return None


def _first_problem(path, strings, lines, problem, what):
    """The error of the first bad string, in file order (the slow path, on failure only)."""
    for row, text in enumerate(strings):
        message = problem(text, what)
        if message is not None:
            return _error(path, lines[row], message)
    raise AssertionError("unreachable")  # pragma: no cover


def _to_floats(path, strings, lines, what):
    """Finite float64 values of ``strings``; errors name the line of the first bad one."""
    if _plain(strings):
        try:
            values = np.array(strings, dtype=np.float64)
        except ValueError:
            values = None
        if values is not None and np.isfinite(values).all():
            return values
    raise _first_problem(path, strings, lines, _float_problem, what)


def _to_ints(path, strings, lines, what):
    """int64 values of ``strings``; errors name the line of the first bad one."""
    if _plain(strings):
        try:
            return np.array([int(text) for text in strings], dtype=np.int64)
        except (ValueError, OverflowError):
            pass
    raise _first_problem(path, strings, lines, _int_problem, what)


def _check_unique(path, queries, items, lines, noun):
    """Reject an item listed twice for one query, naming both lines."""
    if len(set(zip(queries, items))) == len(queries):
        return
    first = {}
    for row, key in enumerate(zip(queries, items)):
        seen = first.setdefault(key, row)
        if seen != row:
            raise _error(
                path,
                lines[row],
                f"{noun} {key[1]!r} appears twice for query {key[0]!r} "
                f"(first at line {lines[seen]})",
            )


def _object_array(values):
    out = np.empty(len(values), dtype=object)
    out[:] = values
    return out


def _parse_trec(path, n_fields, layout, columns, progress=None, more_fields=False):
    """Whitespace-separated lines of ``n_fields`` fields (or more, ignored, when
    ``more_fields``).

    Returns the requested columns (tuples of strings, in file order) and the line number
    of every data row. ``progress`` as in `_parse_table`.
    """
    rows = []
    lines = array("q")
    add_row, add_line = rows.append, lines.append
    pick = itemgetter(*columns)
    lineno = 0
    with _source(path) as source, _reading(path, source, lambda: lineno + 1):
        handle = _text(source)
        for lineno, text in enumerate(handle, 1):
            fields = text.split()
            if not fields or fields[0][0] == "#":
                continue
            if fields[0][0] == "\ufeff":
                # A byte-order mark inside the file (files joined with cat) would otherwise
                # become part of a query id, silently a different query.
                fields = (text.replace("\ufeff", " ", 1)).split()
                if not fields or fields[0][0] == "#":
                    continue
            if len(fields) != n_fields and not (more_fields and len(fields) > n_fields):
                raise _error(path, lineno, _field_count_message(fields, n_fields, layout))
            add_row(pick(fields))
            add_line(lineno)
            if progress is not None and not lineno % _PROGRESS_EVERY:
                progress(lineno)
        if progress is not None:
            progress(lineno, done=True)
        if not rows:
            what = "empty file" if lineno == 0 else "no data lines (only blank or comment lines)"
            raise _error(path, max(lineno, 1), f"{what}; expected lines '{layout}'")
        picked = list(zip(*rows))
    return picked, lines


def _field_count_message(fields, n_fields, layout):
    message = f"expected {n_fields} fields '{layout}', got {len(fields)}"
    if n_fields == 4 and len(fields) >= 6:
        message += " (is this a TREC run?)"
    elif n_fields == 6 and len(fields) == 4:
        message += " (is this a TREC qrels file?)"
    return message


@_without_gc
def _parse_trec_run(path, progress=None):
    """``(queries, docnos, scores)`` arrays of a TREC run file."""
    # trec_eval ignores every field after the run tag.
    (queries, docnos, scores), lines = _parse_trec(
        path, 6, TREC_RUN_FORMAT, (0, 2, 4), progress, more_fields=True
    )
    values = _to_floats(path, scores, lines, "score (field 5)")
    _check_unique(path, queries, docnos, lines, "document")
    return _object_array(queries), _object_array(docnos), values


@_without_gc
def _parse_trec_qrels(path, progress=None):
    """``(queries, docnos, relevance)`` arrays of a TREC qrels file."""
    (queries, docnos, rels), lines = _parse_trec(path, 4, TREC_QRELS_FORMAT, (0, 2, 3), progress)
    values = _to_ints(path, rels, lines, "relevance (field 4)")
    _check_unique(path, queries, docnos, lines, "document")
    return _object_array(queries), _object_array(docnos), values


_EXTENSION_DELIMITERS = {".csv": ",", ".tsv": "\t", ".tab": "\t"}
_SNIFFED_DELIMITERS = ("\t", ",", ";")
_DELIMITER_NAMES = {"\t": "tab", ",": "comma", ";": "semicolon"}


def _delimiter(path, header):
    name = _name(path).lower()
    if name.endswith(".gz"):
        name = name[:-3]
    preferred = _EXTENSION_DELIMITERS.get(os.path.splitext(name)[1])
    if preferred is not None and preferred in header:
        return preferred
    for candidate in _SNIFFED_DELIMITERS:
        if candidate in header:
            return candidate
    return preferred or ","


def _read_header(path, handle):
    """``(column names, delimiter, line number)`` of the header: the first non-blank line."""
    lineno = 0
    header_line = ""
    for header_line in handle:
        lineno += 1
        if header_line.strip():
            break
    if not header_line.strip():
        raise _error(
            path,
            max(lineno, 1),
            "empty file; expected a header row of column names, then data rows",
        )
    delimiter = _delimiter(path, header_line)
    fields = next(
        csv.reader([header_line.rstrip("\r\n")], delimiter=delimiter, skipinitialspace=True)
    )
    return [name.strip() for name in fields], delimiter, lineno


@_without_gc
def _parse_table(
    path, *, query, item, score=None, relevance=None, progress=None, columns_found=None
):
    """`read_table`, with an optional progress callback.

    progress : callable ``progress(lines, done=False)`` or None, called every
    ``_PROGRESS_EVERY`` lines with the number of lines read, and once at the end with
    ``done=True``.
    columns_found : list or None; receives the header's column names (the command line
    looks for a score column nobody asked for: a pipe cannot be read twice).
    """
    _check_path(path)
    wanted = [("query", query), ("item", item), ("score", score), ("relevance", relevance)]
    for role, column in wanted:
        if column is not None and not isinstance(column, str):
            raise TypeError(f"{role} must be a column name (str); got {column!r}")
    lineno = 0
    with _source(path) as source, _reading(path, source, lambda: lineno + 1):
        handle = _text(source, newline="")
        header, delimiter, header_at = _read_header(path, handle)
        if columns_found is not None:
            columns_found[:] = header
        lineno = header_at
        indices = {}
        for role, column in wanted:
            if column is None:
                continue
            if column not in header:
                found = ", ".join(repr(name) for name in header)
                raise _error(
                    path,
                    header_at,
                    f"no column {column!r} (the {role} column) in the header; columns found "
                    f"({_DELIMITER_NAMES[delimiter]}-separated): {found}",
                )
            if header.count(column) > 1:
                raise _error(
                    path, header_at, f"column {column!r} appears more than once in the header"
                )
            indices[role] = header.index(column)
        n_fields = len(header)
        roles = list(indices)  # query and item at least, so `pick` returns tuples
        pick = itemgetter(*(indices[role] for role in roles))
        rows = []
        lines = array("q")  # where each row starts
        add_row, add_line = rows.append, lines.append
        n_blank = 0
        reader = csv.reader(
            itertools.chain(handle, (_END_OF_TABLE,)), delimiter=delimiter, skipinitialspace=True
        )
        for fields in reader:
            start, lineno = lineno + 1, header_at + reader.line_num
            if len(fields) != n_fields:
                if not fields or (len(fields) == 1 and not fields[0].strip()):
                    n_blank += 1
                    continue  # a blank line
                if fields == [_END_OF_TABLE]:
                    break
                if _END_OF_TABLE in fields[-1]:
                    raise _error(path, start, _NEVER_CLOSED)
                raise _error(path, start, _table_count_message(fields, n_fields, start, lineno))
            add_row(pick(fields))
            add_line(start)
            if progress is not None and not lineno % _PROGRESS_EVERY:
                progress(lineno)
        else:  # the end line was read as a row, or into a field: a quote is still open
            if fields != [_END_OF_TABLE]:
                raise _error(path, start, _NEVER_CLOSED)
            del rows[-1], lines[-1]  # a one-column table
        lineno -= 1  # the end line
    if progress is not None:
        progress(lineno, done=True)
    if not rows:
        raise _error(path, lineno, "no data rows after the header")
    picked = {role: [value.strip() for value in column] for role, column in zip(roles, zip(*rows))}
    if lineno - header_at != len(rows) + n_blank:  # a quoted field ran over several lines
        _check_single_line(path, picked, lines, indices, header)
    first = next((role for role in roles if indices[role] == 0), None)
    if first is not None and "\ufeff" in "".join(picked[first]):
        # A byte-order mark inside the file (files joined with cat) starts a line, so the
        # first field; left there it would make a different id.
        picked[first] = [value.lstrip("\ufeff").strip() for value in picked[first]]
    del rows
    for role in ("query", "item"):
        values = picked[role]
        if not all(values):
            row = values.index("")
            raise _error(
                path,
                lines[row],
                f"empty {role} id in column {indices[role] + 1} ({header[indices[role]]!r})",
            )
    _check_unique(path, picked["query"], picked["item"], lines, "item")
    numbers = {
        role: _to_floats(path, picked[role], lines, f"{role} (column {header[indices[role]]!r})")
        for role in ("score", "relevance")
        if role in picked
    }
    return Table(
        _object_array(picked["query"]),
        _object_array(picked["item"]),
        numbers.get("score"),
        numbers.get("relevance"),
    )


_NEVER_CLOSED = (
    "a quote opened in this row is never closed (its field would take every line to the "
    "end of the file)"
)


def _table_count_message(fields, n_fields, start, end):
    message = f"expected {n_fields} fields like the header, got {len(fields)}"
    if end > start:
        message += (
            f" (a quoted field runs from line {start} to line {end}: is a closing quote missing?)"
        )
    return message


def _check_single_line(path, picked, lines, indices, header):
    """Refuse ids and numbers holding a line break, in file order.

    Only a quoted field can hold one; in an id or a number it is almost always a quote
    left open, which takes the following lines into one field until the next quote.
    """
    first_bad = {}  # row -> role
    for role, values in picked.items():
        row = next((r for r, v in enumerate(values) if "\n" in v or "\r" in v), None)
        if row is not None:
            first_bad.setdefault(row, role)
    if first_bad:
        row = min(first_bad)
        role = first_bad[row]
        shown = picked[role][row]
        shown = repr(shown if len(shown) <= 40 else shown[:37] + "...")
        raise _error(
            path,
            lines[row],
            f"the {role} field (column {header[indices[role]]!r}) holds a line break: "
            f"{shown}; a quoted field runs over several lines here (is a closing quote "
            "missing?)",
        )
