"""Opening input files once (pipes too), decoding them, and checking their values.

The helpers of the file readers (`_files.py`): a path is opened once, as a seekable binary
source (a pipe is copied first), read as plain or gzip-compressed UTF-8 text, and every
failure becomes a ValueError ``<path>:<line>: ...``. Columns of strings become numbers
here, refusing what C's atof/atoi (trec_eval) would read differently.
"""

import csv
import functools
import gc
import gzip
import io
import os
import shutil
import stat
import sys
import tempfile
import zlib
from contextlib import contextmanager

import numpy as np

# A pipe's copy stays in memory up to this size, then goes to a temporary file.
_PIPE_IN_MEMORY = 1 << 24


def _name(path):
    return os.fspath(path)


def _check_path(path):
    """Refuse what open() would misread: an int is a file descriptor, not a file name."""
    if not isinstance(path, (str, bytes, os.PathLike)):
        raise TypeError(f"path must be a file name (str or path-like); got {path!r}.")


def _error(path, line, message):
    return ValueError(f"{_name(path)}:{line}: {message}")


class _ReadOnce(str):
    """A command line's input copied once so that it can be read again: standard input
    (``-``, trec_eval's name for it) or a pipe. The string is its name in messages;
    ``copy`` holds the bytes (a seekable binary file)."""

    copy = None


def _read_once(path, stdin=None):
    """``path`` itself when it is a regular file, else a `_ReadOnce` copy of it: ``-``
    stands for standard input (``stdin``: a binary or text stream, default
    ``sys.stdin``), anything else unseekable (a pipe, ``<(zcat run.gz)``) is copied."""
    if path != "-":
        try:
            if stat.S_ISREG(os.stat(path).st_mode):
                return path
        except (OSError, TypeError, ValueError):
            return path  # let the reader report it
    copy = tempfile.SpooledTemporaryFile(max_size=_PIPE_IN_MEMORY)
    if path == "-":
        stream = sys.stdin if stdin is None else stdin
        stream = getattr(stream, "buffer", stream)
        for block in iter(lambda: stream.read(1 << 20), type(stream.read(0))()):
            copy.write(block.encode("utf-8") if isinstance(block, str) else block)
    else:
        with open(path, "rb") as raw:
            shutil.copyfileobj(raw, copy, 1 << 20)
    named = _ReadOnce(path)
    named.copy = copy
    return named


@contextmanager
def _source(path):
    """The file's bytes as a seekable binary file, read from the path once.

    Every reader looks at the first bytes (is it gzip?), and may read the file again to
    locate an error; a pipe allows neither, so it is copied first (a `_ReadOnce` input
    was copied already: it is read from the start again).
    """
    if isinstance(path, _ReadOnce):
        path.copy.seek(0)
        yield path.copy
        return
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


@contextmanager
def _text_lines(source, newline=None):
    """`_text` of ``source``, let go of at the end without closing ``source``: its owner
    closes it, after it may have read it again (to locate an error, or line by line after
    the fast path declined)."""
    handle = _text(source, newline)
    try:
        yield handle
    finally:
        if not handle.closed:
            handle.detach()


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
