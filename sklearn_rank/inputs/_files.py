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
import itertools
import os
from array import array
from operator import itemgetter
from typing import NamedTuple

import numpy as np

from ..utils._ids import _str_array
from ._fast_files import _fast_table, _fast_trec
from ._tables import ItemJudgments, ItemRanking
from ._text_files import (
    _check_path,
    _check_unique,
    _error,
    _name,
    _object_array,
    _reading,
    _source,
    _text_lines,
    _to_floats,
    _to_ints,
    _without_gc,
)

TREC_RUN_FORMAT = "qid Q0 docno rank score tag"
TREC_QRELS_FORMAT = "qid iter docno rel"

# How often (in lines) the progress callback is called.
_PROGRESS_EVERY = 1 << 17

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

    Notes
    -----
    When pyarrow is installed, a file of a few MB or more is read with its CSV reader, several
    times faster; a file it cannot prove it reads exactly as the line-by-line reader is read
    line by line. The values and the errors are the same either way. That reader keeps
    docnos that are all ASCII as their bytes, a quarter of the memory of numpy's str, until
    ``items`` is first read (then they are str, made once); `evaluate` and the command line
    join and order them as bytes, with the same results.

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
    return ItemRanking._from_file(*_parse_trec_run(path))


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

    Notes
    -----
    When pyarrow is installed, a file of a few MB or more is read with its CSV reader, several
    times faster; a file it cannot prove it reads exactly as the line-by-line reader is read
    line by line. The values and the errors are the same either way. That reader keeps
    docnos that are all ASCII as their bytes, a quarter of the memory of numpy's str, until
    ``items`` is first read (then they are str, made once); `evaluate` and the command line
    join and order them as bytes, with the same results.

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
    return ItemJudgments._from_file(*_parse_trec_qrels(path))


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

    Notes
    -----
    When pyarrow is installed, a file of a few MB or more is read with its CSV reader, several
    times faster; a file it cannot prove it reads exactly as the line-by-line reader is read
    line by line. The values and the errors are the same either way.

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
# Parsing (opening, decoding and number checks: `_text_files.py`)
# --------------------------------------------------------------------------------------


def _parse_trec(path, source, n_fields, layout, columns, progress=None, more_fields=False):
    """Whitespace-separated lines of ``n_fields`` fields (or more, ignored, when
    ``more_fields``), read line by line from ``source``.

    Returns the requested columns (tuples of strings, in file order) and the line number
    of every data row. ``progress`` as in `_parse_table`.
    """
    rows = []
    lines = array("q")
    add_row, add_line = rows.append, lines.append
    pick = itemgetter(*columns)
    lineno = 0
    with _reading(path, source, lambda: lineno + 1), _text_lines(source) as handle:
        for lineno, text in enumerate(handle, 1):
            if progress is not None and not lineno % _PROGRESS_EVERY:
                progress(lineno)
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


def _read_trec(path, n_fields, layout, columns, progress, *, more_fields, integer):
    """``(queries, docnos, values)`` arrays of a TREC file: by the fast path when it can
    prove its values right, else line by line."""
    with _source(path) as source:
        fast = _fast_trec(
            source,
            n_fields,
            columns,
            more_fields=more_fields,
            integer=integer,
            progress=progress,
            every=_PROGRESS_EVERY,
        )
        if fast is not None:
            return fast
        (queries, docnos, texts), lines = _parse_trec(
            path, source, n_fields, layout, columns, progress, more_fields
        )
    if integer:
        values = _to_ints(path, texts, lines, "relevance (field 4)")
    else:
        values = _to_floats(path, texts, lines, "score (field 5)")
    _check_unique(path, queries, docnos, lines, "document")
    return _object_array(queries), _str_array(docnos), values


@_without_gc
def _parse_trec_run(path, progress=None):
    """``(queries, docnos, scores)`` arrays of a TREC run file."""
    # trec_eval ignores every field after the run tag.
    return _read_trec(
        path, 6, TREC_RUN_FORMAT, (0, 2, 4), progress, more_fields=True, integer=False
    )


@_without_gc
def _parse_trec_qrels(path, progress=None):
    """``(queries, docnos, relevance)`` arrays of a TREC qrels file."""
    return _read_trec(
        path, 4, TREC_QRELS_FORMAT, (0, 2, 3), progress, more_fields=False, integer=True
    )


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
    header, delimiter = _header_fields(path, header_line)
    return header, delimiter, lineno


def _header_fields(path, header_line):
    """``(column names, delimiter)`` of a header line."""
    delimiter = _delimiter(path, header_line)
    fields = next(
        csv.reader([header_line.rstrip("\r\n")], delimiter=delimiter, skipinitialspace=True)
    )
    return [name.strip() for name in fields], delimiter


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

    def header_fields(line):
        header, delimiter = _header_fields(path, line)
        if columns_found is not None:
            columns_found[:] = header
        return header, delimiter

    with _source(path) as source:
        fast = _fast_table(
            source,
            {role: column for role, column in wanted if column is not None},
            header_fields,
            progress=progress,
            every=_PROGRESS_EVERY,
        )
        if fast is not None:
            return Table(fast["query"], fast["item"], fast.get("score"), fast.get("relevance"))
        return _table_line_by_line(path, source, wanted, progress, columns_found)


def _table_line_by_line(path, source, wanted, progress, columns_found):
    """`_parse_table` line by line, with the csv module."""
    lineno = 0
    with _reading(path, source, lambda: lineno + 1), _text_lines(source, newline="") as handle:
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
                    if progress is not None and not lineno % _PROGRESS_EVERY:
                        progress(lineno)
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
        _str_array(picked["item"]),
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
