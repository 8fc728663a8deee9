"""The file readers' fast path: pyarrow's CSV reader, when pyarrow is installed.

The readers of `_files.py` read line by line in Python. When pyarrow imports, a file of
about `_MIN_BYTES` or more (4 times more when pyarrow is not imported yet) is first read
by pyarrow's CSV reader, with one delimiter, no quoting and every field as bytes (a run's
scores as float64), its blocks of `_BLOCK` bytes checked as they are read and parsed on
pyarrow's threads; each block's fields are then checked and converted on threads of
their own (`_fast_ids`: item ids as numpy's fixed-width str where that is smaller than
Python strings). The file's bytes are never held whole, its fields are. The fast
path returns the columns only when it can prove they are what the line-by-line reader
returns: the same strings and the same float64 bits. Otherwise it returns None, and the
caller reads the file again line by line, which gives the values or the exact
``<path>:<line>:`` error. It declines on lines whose fields are not separated by single
spaces (tabs, runs of spaces, leading or trailing spaces, other whitespace), lines with
another number of fields, comment lines, quotes, a byte-order mark inside the file,
numbers that C or Python could read differently, a pair listed twice, text that is not
UTF-8 and damaged gzip files, among others.

pyarrow's string to float64 conversion is correctly rounded, as Python's float() is; the
forms it accepts (digits, a sign, a decimal point, an exponent, "nan" and "inf") are a
subset of float()'s, read to the same value (checked in tests/inputs/test_fast_files.py). Its
string to int64 conversion also reads hexadecimal "0x..", which the fast path refuses.

pyarrow is imported here only, inside functions; any failure to import it (such as a build
for another numpy) leaves the line-by-line reader alone.
"""

import codecs
import csv
import functools
import gzip
import os
import re
import sys
import warnings
import zlib

import numpy as np

from ..utils._ids import _with_known_codes
from ..utils._threads import _block_runner, _check_n_jobs
from ._fast_ids import (
    _has_repeats,
    _ItemIds,
    _longest,
    _numbers,
    _query_codes,
    _shortest,
    _text_bytes,
)
from ._text_files import _is_gzip

# Below this size (of the file, or 1/16 of it gzip-compressed) the line-by-line reader is
# fast enough; 4 times this size when pyarrow is not imported yet, which takes some 0.15 s,
# what the line-by-line reader takes for 3 or 4 MB.
_MIN_BYTES = 1 << 20
# Bytes per block read and converted at once.
_BLOCK = 1 << 21

# Switched off by the tests that compare both paths.
_ENABLED = True

_BOM = b"\xef\xbb\xbf"
# Whitespace that str.split() splits on, besides the space and line ends; in UTF-8, the
# non-ASCII whitespace and the byte-order mark (which starts a line specially).
_ASCII_SPACES = (b"\t", b"\x0b", b"\x0c", b"\x1c", b"\x1d", b"\x1e", b"\x1f")
_OTHER_SPACES = re.compile(
    rb"\xc2[\x85\xa0]|\xe1\x9a\x80|\xe2\x80[\x80-\x8a\xa8\xa9\xaf]|\xe2\x81\x9f|\xe3\x80\x80|"
    + re.escape(_BOM)
)
_ONLY_BOM = re.compile(re.escape(_BOM))
_TEXT = re.compile(rb"[^\r\n]")
_LINE_END = re.compile(rb"[\r\n]")
# What str.strip() removes: every character str.isspace() accepts.
_PY_WHITESPACE = "".join(chr(c) for c in range(0x3001) if chr(c).isspace())
_READ_ERRORS = (OSError, EOFError, zlib.error)


@functools.cache
def _import_pyarrow():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            import pyarrow
            import pyarrow.compute
            import pyarrow.csv
        except Exception:  # noqa: BLE001 - whatever the failure, pyarrow is absent
            return None
    return pyarrow


def _pyarrow():
    return _import_pyarrow() if _ENABLED else None


def _or_decline(function):
    """Any failure of the fast path (a pyarrow that imports but does not work with this
    numpy, say) declines: the line-by-line reader then gives the values or the error."""

    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        try:
            return function(*args, **kwargs)
        except Exception:  # noqa: BLE001 - read line by line instead
            return None

    return wrapper


class _CheckedStream:
    """The decompressed bytes of a source, as pyarrow reads them, checked on the way.

    Reading ends early (and ``declined`` is set) at a byte of ``forbidden``, at a match of
    ``pattern`` in non-ASCII text, or at a damaged gzip stream. A leading byte-order mark
    is dropped; with ``count_lines``, lines are counted as Python's universal newlines
    count them.
    """

    closed = False

    def __init__(self, source, forbidden, pattern, count_lines):
        self._forbidden, self._pattern, self._count_lines = forbidden, pattern, count_lines
        self.declined = False
        self.has_hash = False  # a '#' in the bytes read so far: comment lines, maybe
        self.has_space = False  # whitespace (but line ends) in the bytes read so far
        self._empty_field = False  # two spaces in a row, or a space starting or ending a line
        self.ascii = True  # every byte read so far is ASCII
        # UTF-8 checked from the first byte that is not ASCII on: fields a reader does
        # not hold are not checked by pyarrow.
        self._utf8 = codecs.getincrementaldecoder("utf-8")()
        self.n_lines = 0
        self._last = b""  # the last bytes read: a character or a \r\n cut between blocks
        source.seek(0)
        self._stream = gzip.GzipFile(fileobj=source, mode="rb") if _is_gzip(source) else source
        self.first = self._checked(self._read_full(max(_BLOCK, len(_BOM))), start=True)
        self._pending, self._position = self.first, 0

    def _read_full(self, size):
        parts, left = [], size
        try:
            while left > 0:
                part = self._stream.read(left)
                if not part:
                    break
                parts.append(part)
                left -= len(part)
        except _READ_ERRORS:
            self.declined = True
            return b""
        return b"".join(parts)

    def _checked(self, data, start=False):
        if start and data.startswith(_BOM):
            data = data[len(_BOM) :]
        if self.declined or any(byte in data for byte in self._forbidden):
            self.declined = True
            return b""
        ascii = data.isascii()
        if not ascii and self._pattern.search(self._last[-2:] + data):
            self.declined = True
            return b""
        if not (ascii and self.ascii):
            try:
                self._utf8.decode(data, final=not data)
            except UnicodeDecodeError:
                self.declined = True
                return b""
        self.ascii = self.ascii and ascii
        self.has_hash = self.has_hash or b"#" in data
        if not self._empty_field and (b" " in data or self._last.endswith(b" ")):
            # (A block's first byte is checked with the byte before it.)
            self._empty_field = _has_empty_field((b"\n" if start else self._last[-1:]) + data)
        self.has_space = (
            self.has_space or not ascii or any(space in data for space in (b" ", *_ASCII_SPACES))
        )
        if self._count_lines:
            count = data.count(b"\n")
            if b"\r" in data:
                count += data.count(b"\r") - data.count(b"\r\n")
            # A \r\n cut between two blocks ends one line.
            count -= self._last.endswith(b"\r") and data.startswith(b"\n")
            self.n_lines += count
        self._last = (self._last + data[-3:])[-3:]
        return data

    @property
    def may_have_empty_field(self):
        """Whether a line read so far may have an empty field between spaces (or at its
        start or end), where pyarrow reads an empty string."""
        return self._empty_field or self._last.endswith(b" ")

    def lines(self):
        """The number of lines, once everything was read."""
        return self.n_lines + (self._last != b"" and not self._last.endswith((b"\n", b"\r")))

    def read(self, size=-1):
        size = _BLOCK if size is None or size < 0 else size
        if self._pending:  # the first block, read to look at the first line
            data = self._pending[:size]
            self._pending = self._pending[size:]
        else:
            data = self._checked(self._read_full(size))
        self._position += len(data)
        return data

    def tell(self):
        return self._position

    def readable(self):
        return True

    def seekable(self):
        return False

    def close(self):
        pass


def _has_empty_field(data):
    """Whether a space-separated line of ``data`` has an empty field: two spaces in a row,
    or a space at a line's start or end. (Compared byte by byte in numpy: searching the
    bytes for those pairs takes ~10x longer, a space being in every few bytes.)"""
    codes = np.frombuffer(data, dtype=np.uint8)
    space = codes == 32
    line_end = (codes == 10) | (codes == 13)
    return bool(
        np.any(space[1:] & (space[:-1] | line_end[:-1])) or np.any(line_end[1:] & space[:-1])
    )


def _stream(source, forbidden, pattern, count_lines):
    """A `_CheckedStream` of ``source`` with pyarrow, or None: a small file, no pyarrow."""
    if not _ENABLED:
        return None, None
    source.seek(0, os.SEEK_END)
    size = source.tell()
    source.seek(0)
    least = _MIN_BYTES * (1 if "pyarrow.csv" in sys.modules else 4)
    if size < least // (16 if _is_gzip(source) else 1):
        return None, None
    pa = _pyarrow()
    if pa is None:
        return None, None
    stream = _CheckedStream(source, forbidden, pattern, count_lines)
    return (None, None) if stream.declined else (pa, stream)


def _read_fields(
    pa, stream, delimiter, n_columns, skip_rows=0, floats=(), keep=None, only_columns=None
):
    """The record batches of every field as bytes (null for an empty one), the columns
    numbered in ``floats`` as float64, one batch per block of `_BLOCK` bytes; None when
    pyarrow or the checks refuse a block (another number of fields on a line, text that
    is not UTF-8, a number pyarrow does not read...).

    Fields are read as bytes, which pyarrow parses without a UTF-8 check; text that is not
    all ASCII is then checked as UTF-8, every field of it, as the line-by-line reader
    decodes whole lines. Numbers are read as `_floats` reads them (pyarrow's CSV reader
    and its cast from strings share one parser), in the parsing threads.

    The whole file is parsed at once, on pyarrow's threads, and its fields are held until
    the caller is done; with ``only_columns`` (column numbers, for space-separated files)
    only those are held, named by their numbers as text, and a file in which some field
    may be empty is declined (a field not held is not checked otherwise). With
    ``keep(batch)`` (the batch's checked columns the caller
    uses, or None to decline), the file is streamed instead, parsed on one thread, and
    only what ``keep`` returns is held: for tables with columns nobody asked for.
    """
    names = [str(i) for i in range(n_columns)]
    held = range(n_columns) if only_columns is None else only_columns
    types = {name: pa.float64() if i in floats else pa.binary() for i, name in enumerate(names)}
    as_text = pa.schema(
        [(names[i], pa.string() if i not in floats else pa.float64()) for i in held]
    )
    options = {
        "read_options": pa.csv.ReadOptions(
            column_names=names, skip_rows=skip_rows, block_size=_BLOCK
        ),
        "parse_options": pa.csv.ParseOptions(
            delimiter=delimiter,
            quote_char=False,
            double_quote=False,
            escape_char=False,
            newlines_in_values=False,
            ignore_empty_lines=True,
        ),
        "convert_options": pa.csv.ConvertOptions(
            column_types=types,
            null_values=[""],
            strings_can_be_null=True,
            quoted_strings_can_be_null=True,
            include_columns=None if only_columns is None else [names[i] for i in held],
        ),
    }
    try:
        if keep is None:
            table = pa.csv.read_csv(stream, **options)
            if stream.declined or (only_columns is not None and stream.may_have_empty_field):
                return None
            if not stream.ascii:
                table = table.cast(as_text)
            return [batch for batch in table.to_batches() if batch.num_rows]
        kept = []
        for batch in pa.csv.open_csv(stream, **options):
            # (A batch is parsed from bytes that were read, so checked, before it.)
            if stream.declined:
                return None
            if not batch.num_rows:
                continue
            if not stream.ascii:
                batch = pa.Table.from_batches([batch]).cast(as_text).to_batches()[0]
            part = keep(batch)
            if part is None:
                return None
            kept.append(part)
        return None if stream.declined else kept
    except pa.ArrowException:
        return None


def _every_core():
    """The threads a reader uses: ``n_jobs=-1``, every core this process may use, fewer
    inside ``threadpoolctl.threadpool_limits`` or a joblib worker (pyarrow parses on its
    own pool of threads)."""
    return _check_n_jobs(-1)


def _each_batch(function, batches, n_threads):
    """``[function(batch) for batch in batches]``, on ``n_threads`` threads; None when
    ``function`` declined one."""
    with _block_runner(len(batches), n_threads) as run:
        done = run(function, batches)
    return None if any(result is None for result in done) else done


def _ids_once_each(encoded_queries, items, n_threads):
    """``(query ids, item ids)`` of every row, from the batches' dictionary-encoded query
    ids and the `_ItemIds` of their items; None when a (query, item) pair may repeat
    (the line-by-line reader then says which)."""
    codes, names = _query_codes(encoded_queries)
    if _has_repeats(codes, items.hashes, n_threads):
        return None
    return _with_known_codes(names[codes], codes, names), items.ids()


def _floats(pa, texts):
    try:
        return _finite(_numbers(pa.compute.cast(texts, pa.float64()), np.float64))
    except pa.ArrowException:
        return None


def _finite(values):
    return values if np.isfinite(values).all() else None  # (read-only: to be concatenated)


def _ints(pa, texts):
    for chunk in getattr(texts, "chunks", [texts]):
        text = _text_bytes(chunk)  # a copy of the chunk's bytes: made once, searched twice
        if b"x" in text or b"X" in text:
            return None  # "0x1f", which pyarrow reads and int() and atoi() do not
    try:
        return _numbers(pa.compute.cast(texts, pa.int64()), np.int64)
    except pa.ArrowException:  # not an integer, or not one of 64 bits
        return None


def _release_unused(pa):
    """Give back to the system the memory of the file's fields, freed once converted:
    pyarrow's allocator keeps it otherwise (about as much as the fields of a large run),
    where the steps after reading (the join of a run with its judgments) would need it."""
    release = getattr(pa.default_memory_pool(), "release_unused", None)
    if release is not None:
        release()


def _report(progress, every, n_lines, header_lines=0):
    """The calls of the line-by-line reader's progress callback, after the fact: every
    ``every`` lines (after the header), and at the end."""
    if progress is None:
        return
    for lines in range(every, n_lines + 1, every):
        if lines > header_lines:
            progress(lines)
    progress(n_lines, done=True)


# --------------------------------------------------------------------------------------
# TREC runs and qrels
# --------------------------------------------------------------------------------------


@_or_decline
def _fast_trec(source, n_fields, columns, *, more_fields, integer, progress, every):
    """``(queries, docnos, values)`` of a TREC file, or None (read it line by line).

    ``columns``: the query, docno and value fields; ``integer``: values are int64 (qrels),
    else finite float64 (runs); ``more_fields``: lines may have more fields (runs).
    """
    pa, stream = _stream(source, _ASCII_SPACES, _OTHER_SPACES, progress is not None)
    if stream is None:
        return None
    first = stream.first
    text = _TEXT.search(first)
    end = _LINE_END.search(first, text.start()) if text else None
    if end is None:
        return None  # no line, or a first line longer than a block
    n_columns = first[text.start() : end.start()].count(b" ") + 1
    if n_columns < n_fields or (n_columns > n_fields and not more_fields):
        return None
    got = _trec_columns(pa, stream, n_columns, columns, integer)
    _release_unused(pa)
    if got is None:
        return None
    _report(progress, every, stream.lines())
    return got


def _trec_columns(pa, stream, n_columns, columns, integer):
    """``(query ids, docnos, values)`` of the stream, or None."""
    query_column, item_column, value_column = columns
    floats = () if integer else (value_column,)
    batches = _read_fields(pa, stream, " ", n_columns, floats=floats, only_columns=columns)
    query_column, item_column, value_column = (str(column) for column in columns)
    if not batches:
        return None  # declined, or no data lines (an error, from the line-by-line reader)
    string = pa.string()  # (bytes that are all ASCII are valid UTF-8)
    items = _ItemIds(
        [batch.column(item_column).view(string) for batch in batches], stream.ascii, as_bytes=True
    )
    starts = np.cumsum([0] + [batch.num_rows for batch in batches])
    values = np.empty(int(starts[-1]), dtype=np.int64 if integer else np.float64)

    def convert(index):  # on a thread: None declines
        batch = batches[index]
        if any(column.null_count for column in batch.columns):
            return None  # an empty field: runs of spaces, or a space starting a line
        queries = batch.column(query_column).view(string)
        if stream.has_hash and pa.compute.any(pa.compute.starts_with(queries, "#")).as_py():
            return None  # comment lines
        if integer:
            numbers = _ints(pa, batch.column(value_column).view(string))
        else:
            numbers = _finite(_numbers(batch.column(value_column), np.float64))
        if numbers is None:
            return None
        values[starts[index] : starts[index + 1]] = numbers
        items.add(index)
        # The batch's fields are converted: its memory may go (with the fixed-width ids,
        # which are built from the bytes, nothing of it is read again).
        batches[index] = None
        _release_unused(pa)  # (the next batches' ids are built while these go back)
        return pa.compute.dictionary_encode(queries)

    n_threads = _every_core()
    encoded = _each_batch(convert, range(len(batches)), n_threads)
    if encoded is None:
        return None
    _release_unused(pa)  # before the check of repeated pairs allocates its keys
    ids = _ids_once_each(encoded, items, n_threads)
    if ids is None:
        return None
    return *ids, values


# --------------------------------------------------------------------------------------
# CSV/TSV tables
# --------------------------------------------------------------------------------------


@_or_decline
def _fast_table(source, roles, header_fields, *, progress, every):
    """``{role: column}`` of a table (query ids as objects, item ids as `_str_array` makes
    them, numbers as float64), or None (read it line by line).

    ``roles``: ``{role: column name}`` with ``query`` and ``item``;
    ``header_fields(line)``: ``(column names, delimiter)`` of a header line, as the
    line-by-line reader reads it.
    """
    # No quotes: fields are split at every delimiter. NUL: Python 3.10's csv refuses it.
    pa, stream = _stream(source, (b'"', b"\x00"), _ONLY_BOM, progress is not None)
    if stream is None:
        return None
    end = _LINE_END.search(stream.first)
    if end is None:
        return None
    try:
        header_line = stream.first[: end.start()].decode("utf-8")
    except UnicodeDecodeError:
        return None
    if not header_line.strip():
        return None  # blank lines before the header
    header, delimiter = header_fields(header_line)
    if len(header) < 2 or any(header.count(name) != 1 for name in roles.values()):
        return None
    indices = {role: header.index(name) for role, name in roles.items()}
    got = _table_columns(pa, stream, delimiter, len(header), indices)
    _release_unused(pa)
    if got is None:
        return None
    _report(progress, every, stream.lines(), header_lines=1)
    return got


def _table_columns(pa, stream, delimiter, n_columns, indices):
    """``{role: column}`` of the stream, or None."""
    limit = csv.field_size_limit()  # the csv module refuses a field over it

    def fits(batch):
        # (Characters in the csv module, bytes here: as many or more.)
        return all(_longest(column) <= limit for column in batch.columns)

    used = sorted(set(indices.values()))
    streamed = len(used) < n_columns
    if streamed:
        # Other columns are checked block by block and dropped: never held whole.
        def keep(batch):
            return batch.select(used) if fits(batch) else None

        batches = _read_fields(pa, stream, delimiter, n_columns, skip_rows=1, keep=keep)
        indices = {role: used.index(index) for role, index in indices.items()}
    else:
        batches = _read_fields(pa, stream, delimiter, n_columns, skip_rows=1)
    if not batches:
        return None
    number_roles = [role for role in indices if role not in ("query", "item")]
    string = pa.string()

    def convert(batch):  # on a thread: None declines
        if not streamed and not fits(batch):  # (a streamed batch was checked whole)
            return None
        picked = {}
        for role, index in indices.items():
            column = batch.column(index).view(string)
            if column.null_count:  # empty fields: the ids are refused, the numbers too
                return None
            # Values are stripped as str.strip() strips them (when there is whitespace).
            if stream.has_space:
                column = pa.compute.utf8_trim(column, characters=_PY_WHITESPACE)
                if _shortest(column) == 0:
                    return None
            picked[role] = column
        numbers = {role: _floats(pa, picked[role]) for role in number_roles}
        if any(values is None for values in numbers.values()):
            return None
        return numbers, pa.compute.dictionary_encode(picked["query"]), picked["item"]

    n_threads = _every_core()
    converted = _each_batch(convert, batches, n_threads)
    del batches  # (the fields still needed are held by what was converted)
    if converted is None:
        return None
    items = _ItemIds([item for _numbers, _query, item in converted], stream.ascii)
    numbers = [numbers for numbers, _query, _item in converted]
    queries = [query for _numbers, query, _item in converted]
    del converted  # each batch's item ids go once `items.add` has built them
    with _block_runner(len(items), n_threads) as run:
        run(items.add, range(len(items)))
    _release_unused(pa)  # before the check of repeated pairs allocates its keys
    ids = _ids_once_each(queries, items, n_threads)
    if ids is None:
        return None
    result = {role: np.concatenate([part[role] for part in numbers]) for role in number_roles}
    result["query"], result["item"] = ids
    return result
