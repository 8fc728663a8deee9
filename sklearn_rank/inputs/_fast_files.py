"""The file readers' fast path: pyarrow's CSV reader, when pyarrow is installed.

The readers of `_files.py` read line by line in Python. When pyarrow imports, a file of at
least `_MIN_BYTES` is first read whole by pyarrow's CSV reader, with one delimiter, no
quoting and every column as text, and then checked. The fast path returns the columns only
when it can prove they are what the line-by-line reader returns: the same strings and the
same float64 bits. Otherwise it returns None, and the caller reads the file again line by
line, which gives the values or the exact ``<path>:<line>:`` error. It declines on lines
whose fields are not separated by single spaces (tabs, runs of spaces, leading or trailing
spaces, other whitespace), lines with another number of fields, comment lines, quotes, a
byte-order mark inside the file, numbers that C or Python could read differently, a pair
listed twice, text that is not UTF-8 and damaged gzip files, among others.

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
import warnings
import zlib
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from ._text_files import _is_gzip

# Below this size the line-by-line reader is fast enough, and importing pyarrow would cost
# more than it saves.
_MIN_BYTES = 1 << 20

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
_TEXT = re.compile(rb"[^\r\n]")
_LINE_END = re.compile(rb"[\r\n]")
# What str.strip() removes: every character str.isspace() accepts.
_PY_WHITESPACE = "".join(chr(c) for c in range(0x3001) if chr(c).isspace())


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


def _contents(source):
    """The decompressed bytes of ``source`` without a leading byte-order mark; None when
    they are fewer than `_MIN_BYTES`, when the gzip stream is damaged, or when the fast path
    is off. ``source`` is left at its start."""
    if not _ENABLED:
        return None
    source.seek(0, os.SEEK_END)
    size = source.tell()
    source.seek(0)
    if size < _MIN_BYTES // 16:  # gzip compresses text some 5 to 10 times
        return None
    try:
        if _is_gzip(source):
            with gzip.GzipFile(fileobj=source, mode="rb") as stream:
                data = stream.read()
        else:
            data = source.read()
    except (OSError, EOFError, zlib.error):
        return None
    finally:
        source.seek(0)
    if len(data) < _MIN_BYTES:
        return None
    return data[len(_BOM) :] if data.startswith(_BOM) else data


def _line_count(data):
    """Lines as Python's universal newlines count them (\\n, \\r\\n or \\r)."""
    count = data.count(b"\n")
    if b"\r" in data:
        count += data.count(b"\r") - data.count(b"\r\n")
    return count + (not data.endswith((b"\n", b"\r")))


def _report(progress, every, data):
    """The calls of the line-by-line reader's progress callback, after the fact."""
    if progress is None:
        return
    n_lines = _line_count(data)
    for lines in range(every, n_lines + 1, every):
        progress(lines)
    progress(n_lines, done=True)


def _read_csv(pa, data, delimiter, n_columns, text_columns, skip_rows=0):
    """Every field as text (None for an empty one); None when pyarrow refuses the file
    (another number of fields on some line, text that is not UTF-8...)."""
    names = [str(i) for i in range(n_columns)]
    types = {
        name: pa.string() if i in text_columns else pa.binary() for i, name in enumerate(names)
    }
    try:
        return pa.csv.read_csv(
            pa.BufferReader(data),
            read_options=pa.csv.ReadOptions(column_names=names, skip_rows=skip_rows),
            parse_options=pa.csv.ParseOptions(
                delimiter=delimiter,
                quote_char=False,
                double_quote=False,
                escape_char=False,
                newlines_in_values=False,
                ignore_empty_lines=True,
            ),
            convert_options=pa.csv.ConvertOptions(
                column_types=types,
                null_values=[""],
                strings_can_be_null=True,
                quoted_strings_can_be_null=True,
                check_utf8=True,
            ),
        )
    except pa.ArrowException:
        return None


def _floats(pa, texts):
    try:
        values = pa.compute.cast(texts, pa.float64()).to_numpy()
    except pa.ArrowException:
        return None
    return np.array(values) if np.isfinite(values).all() else None


def _ints(pa, texts):
    if pa.compute.any(pa.compute.match_substring(texts, "x", ignore_case=True)).as_py():
        return None  # hexadecimal, which int() and atoi() do not read
    try:
        return np.array(pa.compute.cast(texts, pa.int64()).to_numpy())
    except pa.ArrowException:  # not an integer, or not one of 64 bits
        return None


# --------------------------------------------------------------------------------------
# Repeated (query, item) pairs: a 64-bit hash of each item, sorted with its query's number
# --------------------------------------------------------------------------------------

_LENGTH_MIX = np.uint64(0x9E3779B97F4A7C15)
_WORD_MIX = np.uint64(0xFF51AFD7ED558CCD)
_QUERY_MIX = np.uint64(0xC4CEB9FE1A85EC53)
_SHIFT = np.uint64(31)
# _LOW_BYTES[n]: a mask of the n low bytes of a 64-bit word.
_LOW_BYTES = np.array([(1 << (8 * n)) - 1 for n in range(9)], dtype=np.uint64)


def _hashes(offsets, data):
    """A 64-bit hash of each string ``data[offsets[i]:offsets[i + 1]]``, equal for equal
    strings (of bytes).

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
        # Only strings longer than ``at`` take a step: a string's hash must not depend on
        # the other strings (of another chunk, say).
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


def _arrow_hashes(column):
    """`_hashes` of every string of a chunked arrow string column."""
    parts = []
    for chunk in column.chunks:
        offsets = np.frombuffer(chunk.buffers()[1], dtype=np.int32)
        data = chunk.buffers()[2]
        parts.append(
            _hashes(
                offsets[chunk.offset : chunk.offset + len(chunk) + 1],
                np.zeros(0, np.uint8) if data is None else np.frombuffer(data, dtype=np.uint8),
            )
        )
    return np.concatenate(parts) if len(parts) != 1 else parts[0]


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


def _ids_and_check(pa, queries, items):
    """(query ids, item ids) as object arrays of str, or None when a pair may repeat.

    Query ids are made once per distinct query (a file has far fewer queries than lines).
    The check runs in a second thread meanwhile: numpy releases the GIL, which making
    Python strings holds.
    """
    encoded = pa.compute.dictionary_encode(queries)  # one dictionary for every chunk
    codes = np.concatenate([chunk.indices.to_numpy() for chunk in encoded.chunks])

    def check():
        return _has_repeats(codes, _arrow_hashes(items))

    try:
        pool = ThreadPoolExecutor(max_workers=1)
    except RuntimeError:  # pragma: no cover - no threads (an interpreter shutting down)
        pool = None
    try:
        repeats = None if pool is None else pool.submit(check)
        item_ids = items.to_numpy()
        names = encoded.chunks[0].dictionary.to_numpy(zero_copy_only=False)
        query_ids = names[codes]
        repeated = check() if repeats is None else repeats.result()
    finally:
        if pool is not None:
            pool.shutdown()
    return None if repeated else (query_ids, item_ids)


# --------------------------------------------------------------------------------------
# TREC runs and qrels
# --------------------------------------------------------------------------------------


def _fast_trec(source, n_fields, columns, *, more_fields, integer, progress, every):
    """``(queries, docnos, values)`` of a TREC file, or None (read it line by line).

    ``columns``: the query, docno and value fields; ``integer``: values are int64 (qrels),
    else finite float64 (runs); ``more_fields``: lines may have more fields (runs).
    """
    data = _contents(source)
    if data is None or any(space in data for space in _ASCII_SPACES):
        return None
    pa = _pyarrow()
    if pa is None:
        return None
    is_ascii = data.isascii()
    if not is_ascii and _OTHER_SPACES.search(data):
        return None
    text = _TEXT.search(data)
    if text is None:
        return None
    end = _LINE_END.search(data, text.start())
    n_columns = data[text.start() : end.start() if end else len(data)].count(b" ") + 1
    if n_columns < n_fields or (n_columns > n_fields and not more_fields):
        return None
    # A column read as binary is not checked as UTF-8: only ASCII files may have them.
    text_columns = set(columns) if is_ascii else set(range(n_columns))
    table = _read_csv(pa, data, " ", n_columns, text_columns)
    if table is None or table.num_rows == 0 or any(c.null_count for c in table.columns):
        return None  # a null is an empty field: runs of spaces, or one starting a line
    query_column, docno_column, value_column = (table.column(c) for c in columns)
    if b"#" in data and pa.compute.any(pa.compute.starts_with(query_column, "#")).as_py():
        return None  # comment lines
    values = _ints(pa, value_column) if integer else _floats(pa, value_column)
    if values is None:
        return None
    ids = _ids_and_check(pa, query_column, docno_column)
    if ids is None:
        return None
    _report(progress, every, data)
    return ids[0], ids[1], values


# --------------------------------------------------------------------------------------
# CSV/TSV tables
# --------------------------------------------------------------------------------------


def _fast_table(source, roles, header_fields, *, progress, every):
    """``{role: column}`` of a table (ids as object arrays of str, numbers as float64), or
    None (read it line by line).

    ``roles``: ``{role: column name}`` with ``query`` and ``item``;
    ``header_fields(line)``: ``(column names, delimiter)`` of a header line, as the
    line-by-line reader reads it.
    """
    data = _contents(source)
    # No quotes: fields are split at every delimiter. NUL: Python 3.10's csv refuses it.
    if data is None or b'"' in data or b"\x00" in data or _BOM in data:
        return None
    pa = _pyarrow()
    if pa is None:
        return None
    end = _LINE_END.search(data)
    if end is None:
        return None
    try:
        header_line = data[: end.start()].decode("utf-8")
    except UnicodeDecodeError:
        return None
    if not header_line.strip():
        return None  # blank lines before the header
    header, delimiter = header_fields(header_line)
    if len(header) < 2 or any(header.count(name) != 1 for name in roles.values()):
        return None
    indices = {role: header.index(name) for role, name in roles.items()}
    is_ascii = data.isascii()
    text_columns = set(indices.values()) if is_ascii else set(range(len(header)))
    table = _read_csv(pa, data, delimiter, len(header), text_columns, skip_rows=1)
    if table is None or table.num_rows == 0:
        return None
    # The csv module refuses a field over its size limit (in characters, at most bytes).
    limit = csv.field_size_limit()
    if len(data) > limit and any(
        (pa.compute.max(pa.compute.binary_length(c)).as_py() or 0) > limit for c in table.columns
    ):
        return None
    picked = {}
    for role, index in indices.items():
        column = table.column(index)
        if column.null_count:  # empty fields: the ids are refused, the numbers too
            return None
        if not is_ascii or any(space in data for space in (b" ",) + _ASCII_SPACES):
            column = pa.compute.utf8_trim(column, characters=_PY_WHITESPACE)
        if pa.compute.any(pa.compute.equal(pa.compute.binary_length(column), 0)).as_py():
            return None
        picked[role] = column
    for role in ("score", "relevance"):
        if role in picked:
            picked[role] = _floats(pa, picked[role])
            if picked[role] is None:
                return None
    ids = _ids_and_check(pa, picked["query"], picked["item"])
    if ids is None:
        return None
    picked["query"], picked["item"] = ids
    _report(progress, every, data)
    return picked
