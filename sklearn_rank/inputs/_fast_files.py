"""The file readers' fast path: pyarrow's CSV reader, when pyarrow is installed.

The readers of `_files.py` read line by line in Python. When pyarrow imports, a file of
about `_MIN_BYTES` or more (4 times more when pyarrow is not imported yet) is first
streamed through pyarrow's CSV reader, with one delimiter, no quoting and every field as
text, in blocks of `_BLOCK` bytes that are checked on the way and converted one by one
(the file is never held whole in memory). The fast
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
subset of float()'s, read to the same value (checked in tests/test_fast_files.py). Its
string to int64 conversion also reads hexadecimal "0x..", which the fast path refuses.

pyarrow is imported here only, inside functions; any failure to import it (such as a build
for another numpy) leaves the line-by-line reader alone.
"""

import csv
import functools
import gzip
import os
import re
import sys
import warnings
import zlib
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from ..utils._threads import _read_ahead
from ._text_files import _is_gzip

# Below this size (of the file, or 1/16 of it gzip-compressed) the line-by-line reader is
# fast enough; 4 times this size when pyarrow is not imported yet, which takes some 0.15 s,
# what the line-by-line reader takes for 3 or 4 MB.
_MIN_BYTES = 1 << 20
# Bytes per block read and converted at once.
_BLOCK = 1 << 20

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
        if not data.isascii() and self._pattern.search(self._last[-2:] + data):
            self.declined = True
            return b""
        self.has_hash = self.has_hash or b"#" in data
        self.has_space = (
            self.has_space
            or not data.isascii()
            or any(space in data for space in (b" ", *_ASCII_SPACES))
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


def _batches(pa, stream, delimiter, n_columns, skip_rows=0, work=None):
    """Record batches of every field as text (null for an empty one), each with
    ``work(batch)`` (None without ``work``), computed on the thread that parses, ahead of
    the caller (`_read_ahead`). It stops at a block that pyarrow or the checks refuse
    (another number of fields on a line, text that is not UTF-8...), with
    ``stream.declined`` set."""
    names = [str(i) for i in range(n_columns)]
    try:
        reader = pa.csv.open_csv(
            stream,
            read_options=pa.csv.ReadOptions(
                column_names=names, skip_rows=skip_rows, block_size=_BLOCK
            ),
            parse_options=pa.csv.ParseOptions(
                delimiter=delimiter,
                quote_char=False,
                double_quote=False,
                escape_char=False,
                newlines_in_values=False,
                ignore_empty_lines=True,
            ),
            convert_options=pa.csv.ConvertOptions(
                column_types=dict.fromkeys(names, pa.string()),
                null_values=[""],
                strings_can_be_null=True,
                quoted_strings_can_be_null=True,
                check_utf8=True,
            ),
        )
        for batch, done in _read_ahead(reader, work):
            if stream.declined:
                return
            yield batch, done
    except pa.ArrowException:
        stream.declined = True


def _floats(pa, texts):
    try:
        values = pa.compute.cast(texts, pa.float64()).to_numpy()
    except pa.ArrowException:
        return None
    return values if np.isfinite(values).all() else None  # (read-only: to be concatenated)


def _text_bytes(texts):
    """The bytes of the strings of an arrow string array, end to end."""
    offsets = np.frombuffer(texts.buffers()[1], dtype=np.int32)
    first, last = offsets[texts.offset], offsets[texts.offset + len(texts)]
    data = texts.buffers()[2]
    return b"" if data is None else bytes(memoryview(data)[first:last])


def _lengths(texts):
    """The length in bytes of each string of an arrow string array."""
    offsets = np.frombuffer(texts.buffers()[1], dtype=np.int32)
    return np.diff(offsets[texts.offset : texts.offset + len(texts) + 1])


def _longest(texts):
    return int(_lengths(texts).max(initial=0))


def _shortest(texts):
    lengths = _lengths(texts)
    return int(lengths.min()) if lengths.size else 1


def _ints(pa, texts):
    for chunk in getattr(texts, "chunks", [texts]):
        text = _text_bytes(chunk)  # a copy of the chunk's bytes: made once, searched twice
        if b"x" in text or b"X" in text:
            return None  # "0x1f", which pyarrow reads and int() and atoi() do not
    try:
        return pa.compute.cast(texts, pa.int64()).to_numpy()
    except pa.ArrowException:  # not an integer, or not one of 64 bits
        return None


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
# Ids and repeated (query, item) pairs: a 64-bit hash of each item, sorted with its
# query's number
# --------------------------------------------------------------------------------------

_LENGTH_MIX = np.uint64(0x9E3779B97F4A7C15)
_WORD_MIX = np.uint64(0xFF51AFD7ED558CCD)
_QUERY_MIX = np.uint64(0xC4CEB9FE1A85EC53)
_SHIFT = np.uint64(31)
# _LOW_BYTES[n]: a mask of the n low bytes of a 64-bit word.
_LOW_BYTES = np.array([(1 << (8 * n)) - 1 for n in range(9)], dtype=np.uint64)


def _hashes(offsets, data):
    """A 64-bit hash of each string ``data[offsets[i]:offsets[i + 1]]``, equal for equal
    strings (of bytes), whatever the other strings.

    The bytes of each string are read 8 at a time, as little-endian words at any offset of
    a padded copy of the data, the bytes past its end masked out.
    """
    first, last = int(offsets[0]), int(offsets[-1])
    padded = np.zeros(last - first + 8, dtype=np.uint8)
    padded[: last - first] = data[first:last]
    words = np.ndarray((last - first + 1,), dtype="<u8", buffer=padded, strides=(1,))
    starts = (offsets[:-1] - first).astype(np.intp)
    lengths = np.diff(offsets).astype(np.intp)
    hashes = lengths.astype(np.uint64) * _LENGTH_MIX
    for at in range(0, int(lengths.max(initial=0)), 8):
        # Only strings longer than ``at`` take a step.
        rows = None if lengths.min() > at else np.flatnonzero(lengths > at)
        part = hashes if rows is None else hashes[rows]
        left = lengths - at if rows is None else lengths[rows] - at
        word = words[(starts if rows is None else starts[rows]) + at]
        word &= _LOW_BYTES[np.minimum(left, 8)]
        part ^= word
        part *= _WORD_MIX
        part ^= part >> _SHIFT
        if rows is not None:
            hashes[rows] = part
    return hashes


def _arrow_hashes(array):
    """`_hashes` of the strings of an arrow string array."""
    offsets = np.frombuffer(array.buffers()[1], dtype=np.int32)
    data = array.buffers()[2]
    return _hashes(
        offsets[array.offset : array.offset + len(array) + 1],
        np.zeros(0, np.uint8) if data is None else np.frombuffer(data, dtype=np.uint8),
    )


def _has_repeats(query_codes, item_hashes):
    """Whether some (query, item) pair may appear twice: True for every repeated pair, and
    for the rare pairs whose hashes collide (the caller then reads the file line by line).

    Each key is the query's number in its high bits and the item's hash below, so that
    only items of one query can collide. Queries usually come in blocks of lines, and then
    the keys are sorted blocks of random keys, which a stable sort (timsort) sorts fast.
    """
    keys = item_hashes.copy()
    query_bits = int(query_codes.max(initial=0)).bit_length()
    if query_bits <= 32:
        keys >>= np.uint64(query_bits)
        keys |= query_codes.astype(np.uint64) << np.uint64(64 - query_bits)
    else:  # over 4 billion queries
        keys ^= query_codes.astype(np.uint64) * _QUERY_MIX
    in_blocks = bool(np.all(query_codes[1:] >= query_codes[:-1]))
    keys.sort(kind="stable" if in_blocks else None)
    return bool(np.any(keys[1:] == keys[:-1]))


class _Ids:
    """Query and item ids gathered block by block, as object arrays of str.

    Each distinct query id becomes one str (a file has far fewer queries than lines);
    queries are numbered in order of first appearance. Items are hashed in a second thread
    meanwhile: numpy releases the GIL, which making Python strings holds. Use it in a
    ``with`` block, which stops that thread.
    """

    def __init__(self):
        self._numbers = {}
        self._codes, self._items, self._hashes = [], [], []
        try:
            self._pool = ThreadPoolExecutor(max_workers=1)
        except RuntimeError:  # pragma: no cover - no threads (an interpreter shutting down)
            self._pool = None

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        if self._pool is not None:
            self._pool.shutdown(cancel_futures=True)

    def add(self, encoded, items):
        """``encoded``: the block's query ids, dictionary-encoded (on the parsing thread);
        ``items``: its item ids, an arrow string array."""
        numbers = self._numbers
        names = encoded.dictionary.to_pylist()
        local = np.fromiter(
            (numbers.setdefault(name, len(numbers)) for name in names), np.int64, len(names)
        )
        self._codes.append(local[encoded.indices.to_numpy()])
        if self._pool is None:  # pragma: no cover
            self._hashes.append(_arrow_hashes(items))
        else:
            self._hashes.append(self._pool.submit(_arrow_hashes, items))
        self._items.append(items.to_numpy(zero_copy_only=False))

    def result(self):
        """``(query ids, item ids)``, or None when a (query, item) pair may repeat."""
        codes = np.concatenate(self._codes)
        hashes = [part if self._pool is None else part.result() for part in self._hashes]
        if _has_repeats(codes, np.concatenate(hashes)):
            return None
        names = np.empty(len(self._numbers), dtype=object)
        names[:] = list(self._numbers)
        return names[codes], np.concatenate(self._items)


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
    with _Ids() as ids:
        got, values = _trec_columns(pa, stream, n_columns, columns, integer, ids)
    if got is None:
        return None
    _report(progress, every, stream.lines())
    return got[0], got[1], np.concatenate(values)


def _trec_columns(pa, stream, n_columns, columns, integer, ids):
    """``((query ids, docnos), values)`` of the stream, or ``(None, None)``."""
    values = []
    query_column, item_column, value_column = columns

    def convert(batch):  # on the parsing thread: None declines
        if any(column.null_count for column in batch.columns):
            return None  # an empty field: runs of spaces, or a space starting a line
        queries = batch.column(query_column)
        # (A batch is parsed from bytes that were read, so checked, before it.)
        if stream.has_hash and pa.compute.any(pa.compute.starts_with(queries, "#")).as_py():
            return None  # comment lines
        texts = batch.column(value_column)
        numbers = _ints(pa, texts) if integer else _floats(pa, texts)
        return None if numbers is None else (numbers, pa.compute.dictionary_encode(queries))

    for batch, converted in _batches(pa, stream, " ", n_columns, work=convert):
        if not batch.num_rows:
            continue
        if converted is None:
            return None, None
        values.append(converted[0])
        ids.add(converted[1], batch.column(item_column))
    if stream.declined or not values:
        return None, None  # (no data lines: an error, from the line-by-line reader)
    return ids.result(), values


# --------------------------------------------------------------------------------------
# CSV/TSV tables
# --------------------------------------------------------------------------------------


@_or_decline
def _fast_table(source, roles, header_fields, *, progress, every):
    """``{role: column}`` of a table (ids as object arrays of str, numbers as float64), or
    None (read it line by line).

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
    with _Ids() as ids:
        got, numbers = _table_columns(pa, stream, delimiter, len(header), indices, ids)
    if got is None:
        return None
    _report(progress, every, stream.lines(), header_lines=1)
    result = {role: np.concatenate(values) for role, values in numbers.items()}
    result["query"], result["item"] = got
    return result


def _table_columns(pa, stream, delimiter, n_columns, indices, ids):
    """``((query ids, item ids), {role: number blocks})`` of the stream, or
    ``(None, None)``."""
    limit = csv.field_size_limit()  # the csv module refuses a field over it
    numbers = {role: [] for role in indices if role not in ("query", "item")}
    n_rows = 0

    def convert(batch):  # on the parsing thread: None declines
        if any(_longest(column) > limit for column in batch.columns):
            return None  # (characters in the csv module, bytes here: as many or more)
        picked = {}
        for role, index in indices.items():
            column = batch.column(index)
            if column.null_count:  # empty fields: the ids are refused, the numbers too
                return None
            # Values are stripped as str.strip() strips them (when there is whitespace).
            if stream.has_space:
                column = pa.compute.utf8_trim(column, characters=_PY_WHITESPACE)
                if _shortest(column) == 0:
                    return None
            picked[role] = column
        converted = {role: _floats(pa, picked[role]) for role in numbers}
        if any(values is None for values in converted.values()):
            return None
        return converted, pa.compute.dictionary_encode(picked["query"]), picked["item"]

    for batch, converted in _batches(pa, stream, delimiter, n_columns, 1, convert):
        n_rows += batch.num_rows
        if not batch.num_rows:
            continue
        if converted is None:
            return None, None
        for role, values in converted[0].items():
            numbers[role].append(values)
        ids.add(converted[1], converted[2])
    if stream.declined or not n_rows:
        return None, None
    return ids.result(), numbers
