"""The readers' two paths: pyarrow's CSV reader and the line-by-line reader.

The pyarrow path (`sklearn_rank.inputs._fast_files`) reads a file only when it can prove
the line-by-line reader would return the same values; otherwise it declines and the file is
read line by line. Tests here run through every path available (the ``file_parser``
fixture: line by line always, pyarrow when it imports), compare values with what the file
says (strings, float64 bits), errors with their exact text, and check which files the
pyarrow path reads itself and which it declines. tests/properties/test_fuzz.py compares both
paths on random and mutated files.
"""

import gzip
import io
import math
import os
import re
import struct
import subprocess
import sys

import numpy as np
import pytest
from conftest import FILE_PARSERS

import sklearn_rank as sr
from sklearn_rank.inputs import _fast_files, _fast_ids, _files, _items, _join
from sklearn_rank.inputs._fast_files import _ASCII_SPACES, _OTHER_SPACES, _PY_WHITESPACE
from sklearn_rank.inputs._fast_ids import (
    _PART_ROWS,
    _block_length,
    _has_repeats,
    _hashes,
    _ItemIds,
)
from sklearn_rank.inputs._files import (
    _parse_table,
    _parse_trec_qrels,
    _parse_trec_run,
    read_table,
)
from sklearn_rank.inputs._tables import ItemJudgments, ItemRanking, _stored_items
from sklearn_rank.utils._ids import _str_array

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _as_str(columns):
    """The columns of a TREC reader as `ItemRanking` and `ItemJudgments` give them: ids it
    kept as ASCII bytes (numpy's S) made str."""
    return [
        column.astype(str) if column is not None and column.dtype.kind == "S" else column
        for column in columns
    ]


def _columns(result):
    """Each column as (dtype, values): ids as their str (Python strings, or numpy's
    fixed-width ones; ASCII bytes made str, as `items` gives them), numbers as their exact
    bytes."""
    out = []
    for column in _as_str(result):
        if column is None:
            out.append(None)
        elif column.dtype == object:
            assert all(type(value) is str for value in column)
            out.append(("object", column.tolist()))
        elif column.dtype.kind == "U":
            out.append((column.dtype.str, column.tolist()))
        else:
            out.append((column.dtype.str, column.tobytes()))
    return out


def _item_dtype(items):
    """Items as the readers return them: fixed-width str when that takes no more memory
    than Python strings (4 bytes per character of the longest id against 57 bytes and a
    byte per character for each) and no id ends with NUL."""
    longest = max(map(len, items))
    fixed = 4 * longest * len(items) <= 57 * len(items) + sum(map(len, items))
    return f"<U{longest}" if fixed and not any(i.endswith("\x00") for i in items) else "object"


def _expected(queries, items, values, dtype):
    values = np.array(values, dtype=dtype)
    return [
        ("object", queries),
        (_item_dtype(items), items),
        (values.dtype.str, values.tobytes()),
    ]


def _read(kind, path):
    if kind == "run":
        return _parse_trec_run(path)
    if kind == "qrels":
        return _parse_trec_qrels(path)
    return tuple(read_table(path, query="query", item="item", score="score"))[:3]


# --------------------------------------------------------------------------------------
# The pieces: Python's whitespace, the item hashes, the repeated pairs
# --------------------------------------------------------------------------------------


def test_whitespace_sets_are_pythons():
    """What str.split() and str.strip() treat as whitespace, in this Python."""
    spaces = [chr(c) for c in range(sys.maxunicode + 1) if chr(c).isspace()]
    assert _PY_WHITESPACE == "".join(spaces)
    ascii_spaces = {c.encode() for c in spaces if c.isascii()} - {b" ", b"\n", b"\r"}
    assert ascii_spaces == set(_ASCII_SPACES)
    for c in [c for c in spaces if not c.isascii()] + ["\ufeff"]:
        assert _OTHER_SPACES.fullmatch(c.encode()), repr(c)
    # A non-ASCII character that is not whitespace is no reason to decline.
    assert not _OTHER_SPACES.search("é中\u00a1\u2030\u3001\ufefe".encode())


_LENGTH = 0x9E3779B97F4A7C15
_WORD = 0xFF51AFD7ED558CCD


def _slow_hash(data):
    value = len(data) * _LENGTH % 2**64
    for at in range(0, len(data), 8):
        value ^= int.from_bytes(data[at : at + 8], "little")
        value = value * _WORD % 2**64
        value ^= value >> 31
    return value


def test_item_hashes_equal_a_slow_reference():
    rng = np.random.default_rng(0)
    alphabet = [b"a", b"b", b"\x00", b"\xff", b"\xc3\xa9", b"1"]
    strings = [b""]
    for _ in range(3000):
        strings.append(b"".join(rng.choice(alphabet, rng.integers(0, 30))))
    strings += [b"x" * n for n in range(1, 20)] + [b"a\x00", b"a", b"a\x00\x00"]
    offsets = np.concatenate([[0], np.cumsum([len(s) for s in strings])]).astype(np.int32)
    data = np.frombuffer(b"".join(strings), dtype=np.uint8)
    got = _hashes(offsets, data)
    assert got.dtype == np.uint64
    assert got.tolist() == [_slow_hash(s) for s in strings]
    # Equal strings, equal hashes; these distinct strings, distinct hashes.
    assert len(set(got.tolist())) == len(set(strings))
    # A slice of a larger buffer (an arrow chunk starts at any offset).
    assert _hashes(offsets[5:20], data).tolist() == got[5:19].tolist()


@pytest.mark.parametrize("layout", ["blocks", "equal blocks", "shuffled"])
def test_repeated_pairs_are_found(layout):
    rng = np.random.default_rng(1)
    for _ in range(200):
        n = int(rng.integers(1, 40))
        if layout == "equal blocks":  # (sorted as the rows of a matrix)
            length = int(rng.integers(1, 9))
            n_queries = min(n // length + 1, 9)
            queries = np.repeat(np.sort(rng.choice(9, n_queries, replace=False)), length)
            n = queries.size
            assert _block_length(queries) == length
        elif layout == "blocks":
            queries = np.sort(rng.integers(0, 5, n))
        else:
            queries = rng.integers(0, 5, n)
        items = rng.integers(0, 12, n)
        item_hashes = np.array([_slow_hash(b"item%d" % i) for i in items], dtype=np.uint64)
        pairs = list(zip(queries.tolist(), items.tolist()))
        expected = len(set(pairs)) < len(pairs)
        assert _has_repeats(queries.astype(np.int32), item_hashes) == expected, pairs


def test_repeated_pairs_with_many_queries():
    """Over 2**32 query numbers, the keys mix the query into the hash instead."""
    codes = np.array([0, 2**33, 2**33, 5], dtype=np.int64)
    hashes = np.array([7, 7, 8, 7], dtype=np.uint64)
    assert not _has_repeats(codes, hashes)
    assert _has_repeats(codes, np.array([7, 8, 8, 7], dtype=np.uint64))


def test_repeated_pairs_are_found_in_parts_of_whole_queries():
    """With threads, queries in blocks are cut into parts at query boundaries: a pair
    repeated in the query the cut falls into is still found."""
    n_queries = 5000
    per_query = (4 * _PART_ROWS) // n_queries + 1
    codes = np.repeat(np.arange(n_queries), per_query)
    # Random 64-bit hashes, as `_hashes` gives (their low bits make way for the query's).
    rng = np.random.default_rng(0)
    hashes = rng.integers(0, 2**64 - 1, codes.size, dtype=np.uint64, endpoint=True)
    assert not _has_repeats(codes, hashes, n_threads=1)
    assert not _has_repeats(codes, hashes, n_threads=3)
    for row in (codes.size // 3, codes.size // 2, 2 * codes.size // 3, codes.size - 1):
        # The row's item repeats the first item of its query, which may start in the part
        # before a cut made at this row.
        repeated = hashes.copy()
        repeated[row] = repeated[row - row % per_query]
        if row % per_query == 0:
            repeated[row + 1] = repeated[row]
        for n_threads in (1, 2, 3):
            assert _has_repeats(codes, repeated, n_threads=n_threads), (row, n_threads)


class _Strings:
    """What `_ItemIds` reads of an arrow string array: its buffers and offset."""

    def __init__(self, strings, offset=0):
        encoded = [s.encode() for s in strings]
        self._offsets = np.concatenate([[0], np.cumsum([len(b) for b in encoded])])
        self._offsets = self._offsets.astype(np.int32)
        self._data = b"".join(encoded)
        self.offset, self._length = offset, len(strings) - offset

    def buffers(self):
        return [None, self._offsets.tobytes(), self._data]

    def to_numpy(self, zero_copy_only):
        strings = [self._data[a:b].decode() for a, b in zip(self._offsets, self._offsets[1:])]
        out = np.empty(len(self), dtype=object)
        out[:] = strings[self.offset :]
        return out

    def __len__(self):
        return self._length


@pytest.mark.parametrize(
    "strings",
    [
        ["d1", "doc22", "x", "d1"],
        ["a" * 8, "b" * 9, "c" * 16, "d" * 17],  # 1, 2, 3 words
        ["a\x00b", "\x00c", "ab"],  # NULs inside ids are kept
        # Ids of one length in a batch (copied as rows): shorter than a word, a word, more.
        ["abc", "xyz", "abc", "qrs"],
        ["a" * 8, "b" * 8, "c" * 8],
        ["GX003-18-0005075", "GX015-86-0009247", "x" * 10, "y" * 10],
        ["ab", "cd", "e", "fg"],  # (the second batch's lengths differ)
    ],
)
@pytest.mark.parametrize("as_bytes", [False, True], ids=["str", "bytes"])
def test_fixed_width_item_ids_and_their_hashes(strings, as_bytes):
    """Ids built from the bytes, 4 per character (one, ``as_bytes``), equal numpy's own
    fixed-width strings, and their hashes a slow reference over the padded words, across
    batches (the second one a slice of its arrow array)."""
    batches = [_Strings(strings[:2]), _Strings(["skipped"] + strings[2:], offset=1)]
    items = _ItemIds(batches, ascii=True, as_bytes=as_bytes)
    for index in range(len(batches)):
        items.add(index)
    ids = items.ids()
    assert ids.dtype == np.dtype(f"{'S' if as_bytes else '<U'}{max(map(len, strings))}")
    assert ids.astype(str).tolist() == strings
    assert ids.flags.owndata
    n_words = -(-max(map(len, strings)) // 8)
    assert items.hashes.tolist() == [_slow_padded_hash(s.encode(), n_words) for s in strings]
    # Equal ids, equal hashes; these distinct ids, distinct hashes.
    assert len(set(items.hashes.tolist())) == len(set(strings))


def _slow_padded_hash(data, n_words):
    """The hash of fixed-width ids: `_slow_hash` over every word of the padded row."""
    value = len(data) * _LENGTH % 2**64
    padded = data.ljust(8 * n_words, b"\x00")
    for at in range(0, 8 * n_words, 8):
        value ^= int.from_bytes(padded[at : at + 8], "little")
        value = value * _WORD % 2**64
        value ^= value >> 31
    return value


def test_item_ids_that_stay_python_strings():
    """A trailing NUL (numpy's fixed-width str would drop it), one long id among short
    ones, or text that is not all ASCII: Python strings, or `_str_array`'s choice."""
    for strings, ascii, dtype in [
        (["d1", "d2\x00"], True, object),
        (["d1", "d2", "x" * 100], True, object),
        (["é1", "d2"], False, np.dtype("<U2")),
    ]:
        items = _ItemIds([_Strings(strings)], ascii=ascii)
        items.add(0)
        ids = items.ids()
        assert ids.dtype == dtype and ids.tolist() == strings
        assert all(type(v) is str for v in ids.tolist())
        assert items.hashes.tolist() == [_slow_hash(s.encode()) for s in strings]


def test_str_arrays_take_the_smaller_form():
    """Fixed-width str when 4 bytes per character of the longest id, for every id, take
    no more than Python strings (57 bytes and one per character each), else objects."""
    assert _str_array(["d1", "doc22"]).dtype == np.dtype("<U5")
    assert _str_array(["é", "中文"]).dtype == np.dtype("<U2")
    # 4 x 20 x 2 = 160 > 57 x 2 + 21 = 135: objects.
    got = _str_array(["a", "b" * 20])
    assert got.dtype == object and got.tolist() == ["a", "b" * 20]
    # 4 x 19 x 2 = 152 <= 57 x 2 + 38 = 152: fixed width.
    assert _str_array(["a" * 19, "b" * 19]).dtype == np.dtype("<U19")
    got = _str_array(["a", "a\x00"])  # numpy's fixed-width str would drop the NUL
    assert got.dtype == object and got.tolist() == ["a", "a\x00"]
    assert all(type(v) is str for v in _str_array(["a", "b" * 50]))
    assert _str_array([]).size == 0


# --------------------------------------------------------------------------------------
# Files the pyarrow path reads itself: both paths, the values the file says
# --------------------------------------------------------------------------------------

RUN = "q1 Q0 d1 1 2.5 t\nq1 Q0 d2 2 -3e2 t\nq2 Q0 d1 1 0 t\n"
QRELS = "q1 0 d1 1\nq1 0 d2 0\nq2 0 d1 -2\n"
TABLE = "query,item,score\nq1,d1,2.5\nq1,d2,-3e2\nq2,d1,0\n"
RUN_VALUES = (["q1", "q1", "q2"], ["d1", "d2", "d1"], [2.5, -300.0, 0.0])

READ_BY_PYARROW = [
    ("run", RUN, RUN_VALUES, float),
    ("run", RUN.replace("\n", "\r\n"), RUN_VALUES, float),
    ("run", RUN.replace("\n", "\r"), RUN_VALUES, float),
    ("run", RUN.rstrip("\n"), RUN_VALUES, float),
    ("run", "\ufeff" + RUN, RUN_VALUES, float),
    ("run", "\n\n" + RUN.replace("\n", "\n\n"), RUN_VALUES, float),  # blank lines
    ("run", RUN.replace(" t\n", " t extra fields\n"), RUN_VALUES, float),
    # Ids as written: NUL characters, non-ASCII letters, '#' after the first field.
    (
        "run",
        "a\x00 Q0 d 1 1 t\na Q0 d 1 2 t\n\u4e2d Q0 #\u00e9 1 3 t\n",
        (["a\x00", "a", "\u4e2d"], ["d", "d", "#\u00e9"], [1.0, 2.0, 3.0]),
        float,
    ),
    # Item ids as numpy's fixed-width str (short ones, also not ASCII) or as Python
    # strings (a trailing NUL, which numpy's str would drop; one long id among short ones).
    (
        "run",
        "q Q0 \u00e91 1 1 t\nq Q0 d2 1 2 t\n",
        (["q", "q"], ["\u00e91", "d2"], [1.0, 2.0]),
        float,
    ),
    ("run", "q Q0 d\x00 1 1 t\nq Q0 e 1 2 t\n", (["q", "q"], ["d\x00", "e"], [1.0, 2.0]), float),
    (
        "qrels",
        "q 0 d1 1\nq 0 " + "x" * 100 + " 0\n",
        (["q", "q"], ["d1", "x" * 100], [1, 0]),
        np.int64,
    ),
    # Queries in no order; long ids (hashed 8 bytes at a time).
    (
        "run",
        "q2 Q0 "
        + "x" * 17
        + " 1 1 t\nq1 Q0 "
        + "x" * 17
        + " 1 1 t\nq2 Q0 "
        + "x" * 16
        + " 1 1 t\n",
        (["q2", "q1", "q2"], ["x" * 17, "x" * 17, "x" * 16], [1.0, 1.0, 1.0]),
        float,
    ),
    # Numbers: every form C and Python read alike, to the same float64.
    (
        "run",
        "q Q0 a 1 +1 t\nq Q0 b 1 007 t\nq Q0 c 1 1. t\nq Q0 d 1 .5 t\nq Q0 e 1 -0 t\n"
        "q Q0 f 1 1e-320 t\nq Q0 g 1 0.1 t\nq Q0 h 1 123456789012345678901 t\n"
        "q Q0 i 1 1.7976931348623157e308 t\nq Q0 j 1 2.4703282292062328e-324 t\n",
        (
            ["q"] * 10,
            list("abcdefghij"),
            [1.0, 7.0, 1.0, 0.5, -0.0, 1e-320, 0.1, 123456789012345678901.0]
            + [1.7976931348623157e308, 5e-324],
        ),
        float,
    ),
    ("qrels", QRELS, (["q1", "q1", "q2"], ["d1", "d2", "d1"], [1, 0, -2]), np.int64),
    (
        "qrels",
        "q 0 a 007\nq 0 b -0\nq 0 c 9223372036854775807\nq 0 d -9223372036854775808\n",
        (["q"] * 4, list("abcd"), [7, 0, 2**63 - 1, -(2**63)]),
        np.int64,
    ),
    ("table", TABLE, RUN_VALUES, float),
    ("table", TABLE.replace(",", "\t"), RUN_VALUES, float),
    ("table", TABLE.replace(",", ";").replace("\n", "\r\n"), RUN_VALUES, float),
    ("table", TABLE.replace(",", " , ").replace("q2", "\u00a0q2\u3000"), RUN_VALUES, float),
    ("table", "\ufeff" + TABLE + "\n\n", RUN_VALUES, float),
    (
        "table",
        "other,item,query,score,more\n,d1,q1,2.5,x\nz,d2,q1,-3e2,\n\u00e9,d1,q2,0,y\n",
        RUN_VALUES,
        float,
    ),
    (
        "table",
        "other,item,query,score,more\nz,d1,q1,2.5,x\nz,d2,q1,-3e2,\nw,d1,q2,0,y\n",
        RUN_VALUES,
        float,
    ),
]


def _write(tmp_path, kind, text, compress=False):
    name = {"run": "run.txt", "qrels": "qrels.txt", "table": "table.csv"}[kind]
    data = text.encode() if isinstance(text, str) else text
    path = tmp_path / (name + (".gz" if compress else ""))
    path.write_bytes(gzip.compress(data) if compress else data)
    return path


@pytest.mark.parametrize("compress", [False, True], ids=["plain", "gzip"])
@pytest.mark.parametrize("case", range(len(READ_BY_PYARROW)))
def test_files_read_by_pyarrow(tmp_path, file_parser, case, compress):
    kind, text, values, dtype = READ_BY_PYARROW[case]
    path = _write(tmp_path, kind, text, compress)
    got = _read(kind, path)
    assert _columns(got) == _expected(*values, dtype)
    assert all(column.flags.writeable and column.flags.owndata for column in got)
    assert file_parser.fast_reads == (file_parser.name == "pyarrow")


# --------------------------------------------------------------------------------------
# Valid files the pyarrow path declines: the line-by-line reader's values
# --------------------------------------------------------------------------------------

DECLINED_VALID = [
    ("run", RUN.replace(" ", "\t"), RUN_VALUES, float),  # tabs
    ("run", RUN.replace(" Q0 ", "  Q0   "), RUN_VALUES, float),  # runs of spaces
    ("run", " " + RUN.replace("\n", " \n"), RUN_VALUES, float),  # leading, trailing spaces
    ("run", "# a comment\n" + RUN, RUN_VALUES, float),
    ("run", RUN.replace("\n", "\n#x Q0 d 1 1 t\n", 1), RUN_VALUES, float),
    ("run", RUN.replace("q2", "\ufeffq2"), RUN_VALUES, float),  # files joined with cat
    ("run", RUN.replace(" Q0 ", "\u00a0Q0\u2003"), RUN_VALUES, float),  # Unicode spaces
    ("run", RUN.replace(" t\n", " t x\n", 1), RUN_VALUES, float),  # a 7th field on one line
    ("run", RUN.replace(" Q0 ", "\x0bQ0\x1c"), RUN_VALUES, float),
    ("qrels", "q 0 a +5\nq 0 b 1\n", (["q", "q"], ["a", "b"], [5, 1]), np.int64),
    # Where pyarrow's fields would be others: an empty field before the docno, whitespace
    # other than a space inside a field.
    (
        "run",
        "q1 Q0  d1 1 2.5 t\nq2 Q0  d2 2 1.5 t\n",
        (["q1", "q2"], ["d1", "d2"], [2.5, 1.5]),
        float,
    ),
    (
        "run",
        "q1\tx Q0 d1 1 2.5 t\nq2\x0bx Q0 d2 2 1.5 t\n",
        (["q1", "q2"], ["Q0", "Q0"], [1.0, 2.0]),
        float,
    ),
    (
        "run",
        "q1\u00a0x Q0 d1 1 2.5 t\nq2\u2028x Q0 d2 2 1.5 t\n",
        (["q1", "q2"], ["Q0", "Q0"], [1.0, 2.0]),
        float,
    ),
]


def test_a_space_ending_the_last_line_across_blocks_is_an_empty_field(tmp_path, file_parser):
    """The last line's trailing space ends a block and its newline is the whole next one:
    an empty tag, as the line-by-line reader says (5 fields)."""
    from sklearn_rank.inputs._fast_files import _BLOCK

    last = "q9 Q0 dz 1 2.5 "
    lines = [f"q{i % 7} Q0 d{i} 1 {i % 5} t\n" for i in range(_BLOCK // 16)]
    text = "".join(lines)
    text = text[: text.rindex("\n", 0, _BLOCK - len(last) - 40) + 1]
    text += "q8 Q0 dy 1 1 " + "x" * (_BLOCK - len(last) - len(text) - 14) + "\n" + last
    assert len(text) == _BLOCK and text.endswith(" ")
    path = tmp_path / "run.txt"
    path.write_text(text + "\n")
    n_lines = text.count("\n") + 1
    with pytest.raises(ValueError, match=f":{n_lines}: expected 6 fields"):
        _parse_trec_run(path)


def test_text_of_fields_not_kept_is_checked_as_utf8_across_blocks(tmp_path, file_parser):
    """The tag is not kept by the reader, but a file is text: a character cut between two
    blocks of bytes is whole, one cut by the end of the file is not UTF-8."""
    from sklearn_rank.inputs._fast_files import _BLOCK

    lines = [f"q{i % 7} Q0 d{i} 1 {i % 5} t\u00e9\u4e2d\n" for i in range(_BLOCK // 12)]
    text = "".join(lines).encode()
    # The first line's docno lengthened until the first block ends inside a character.
    shift = next(n for n in range(64) if text[_BLOCK - n] & 0xC0 == 0x80)
    lines[0] = lines[0].replace(" d0 ", f" d{'0' * (shift + 1)} ")  # (shift more bytes)
    text = "".join(lines).encode()
    assert text[_BLOCK] & 0xC0 == 0x80 and len(text) > 2 * _BLOCK
    path = tmp_path / "run.txt"
    path.write_bytes(text)
    queries, docs, scores = _parse_trec_run(path)
    assert docs.tolist() == [line.split()[2] for line in lines]
    assert scores.tolist() == [float(i % 5) for i in range(len(lines))]
    assert file_parser.fast_reads == (file_parser.name == "pyarrow")
    path.write_bytes(text + b"q1 Q0 dx 1 1 t\xe4\xb8")  # the last character cut short
    with pytest.raises(ValueError, match=f":{len(lines) + 1}: not UTF-8 text"):
        _parse_trec_run(path)


@pytest.mark.parametrize("case", range(len(DECLINED_VALID)))
def test_valid_files_the_pyarrow_path_declines(tmp_path, file_parser, case):
    kind, text, values, dtype = DECLINED_VALID[case]
    assert _columns(_read(kind, _write(tmp_path, kind, text))) == _expected(*values, dtype)
    assert file_parser.fast_reads == 0


# --------------------------------------------------------------------------------------
# Bad files: the same error, word for word, from both paths
# --------------------------------------------------------------------------------------

BAD = [
    ("run", RUN + "q3 Q0 d1 1 2.5\n", 4, "expected 6 fields 'qid Q0 docno rank score tag', got 5"),
    ("run", RUN + "q1 Q0 d2 1 2.5 t\n", 4, "document 'd2' appears twice for query 'q1' (first"),
    ("run", RUN.replace("2.5", "nan"), 1, "score (field 5) must be a finite number; got 'nan'"),
    ("run", RUN.replace("2.5", "1e400"), 1, "score (field 5) must be a finite number; got"),
    ("run", RUN.replace("2.5", "1_0"), 1, "score (field 5) must be a finite number written"),
    ("run", RUN.replace("2.5", "\u0663"), 1, "score (field 5) must be a finite number written"),
    ("run", RUN.replace("2.5", "0x1p3"), 1, "score (field 5) must be a finite number; got"),
    ("run", "# only a comment\n\n", 2, "no data lines (only blank or comment lines)"),
    ("run", RUN + "q3 Q0 d1 1 1 caf\xe9\n", 4, "not UTF-8 text"),
    # A field missing where two spaces make pyarrow read an empty one, in a field the
    # reader does not keep (Q0, the tag, qrels' iteration).
    ("run", RUN + "q3  d1 1 2.5 t\n", 4, "expected 6 fields 'qid Q0 docno rank score tag', got 5"),
    ("run", RUN + "q3 Q0 d1 1 2.5 \n", 4, "expected 6 fields 'qid Q0 docno rank score tag', got 5"),
    ("qrels", QRELS + "q3  d1 1\n", 4, "expected 4 fields 'qid iter docno rel', got 3"),
    ("qrels", QRELS.replace(" 1\n", " 0x1\n"), 1, "relevance (field 4) must be an integer"),
    (
        "qrels",
        QRELS.replace(" 1\n", " 9223372036854775808\n"),
        1,
        "relevance (field 4) must be an integer between",
    ),
    ("qrels", QRELS.replace(" 1\n", " 1.0\n"), 1, "relevance (field 4) must be an integer"),
    ("qrels", QRELS + "q3 0 d1 1 extra\n", 4, "expected 4 fields 'qid iter docno rel', got 5"),
    ("table", TABLE + "q3,d9\n", 5, "expected 3 fields like the header, got 2"),
    ("table", TABLE + "q1,d1,1\n", 5, "item 'd1' appears twice for query 'q1' (first at line 2)"),
    ("table", TABLE + ",d9,1\n", 5, "empty query id in column 1 ('query')"),
    ("table", TABLE + "q3, \u3000 ,1\n", 5, "empty item id in column 2 ('item')"),
    ("table", TABLE.replace("-3e2", "x"), 3, "score (column 'score') must be a finite number"),
    ("table", TABLE.replace("q1,d2", '"q1,d2'), 3, "a quote opened in this row is never"),
    ("table", "query,item\nq1,d1\n", 1, "no column 'score' (the score column) in the header"),
    # A column nobody asked for is still checked (the fast path drops it block by block).
    (
        "table",
        "query,item,score,note\nq1,d1,1,ok\nq1,d2,2," + "x" * 131073 + "\n",
        3,
        "not a valid CSV/TSV line (field larger than field limit (131072))",
    ),
    (
        "table",
        "query,item,score,note\nq1,d1,1,ok\nq1,d2,2,caf\xe9\n",
        3,
        "not UTF-8 text (invalid continuation byte",
    ),
]


@pytest.mark.parametrize("compress", [False, True], ids=["plain", "gzip"])
@pytest.mark.parametrize("case", range(len(BAD)))
def test_bad_files_give_the_same_error_from_both_paths(tmp_path, file_parser, case, compress):
    kind, text, line, message = BAD[case]
    path = _write(
        tmp_path, kind, text.encode("latin-1" if "caf\xe9" in text else "utf-8"), compress
    )
    with pytest.raises(ValueError, match="^" + re.escape(f"{path}:{line}: {message}")):
        _read(kind, path)
    assert file_parser.fast_reads == 0


def test_damaged_gzip_from_both_paths(tmp_path, file_parser):
    data = gzip.compress(("".join(f"q Q0 d{i} 1 1 t\n" for i in range(20000))).encode())
    path = tmp_path / "run.gz"
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(ValueError, match=r":\d+: damaged gzip file"):
        _parse_trec_run(path)
    assert file_parser.fast_reads == 0


# --------------------------------------------------------------------------------------
# Numbers: each path reads exactly what Python's float() and int() read
# --------------------------------------------------------------------------------------


def _number_strings(rng, n):
    strings = []
    for _ in range(n):
        digits = "".join(rng.choice(list("0123456789"), rng.integers(1, 25)))
        cut = int(rng.integers(0, len(digits) + 1))
        text = rng.choice(["", "-", "+"]) + digits[:cut] + rng.choice([".", ""]) + digits[cut:]
        if rng.random() < 0.5:
            text += rng.choice(["e", "E"]) + rng.choice(["", "-", "+"])
            text += str(rng.integers(0, 330))
        strings.append(text)
    for bits in rng.integers(0, 2**63, n, dtype=np.int64):
        value = struct.unpack("<d", struct.pack("<q", int(bits)))[0]
        if math.isfinite(value):
            strings += [repr(value), f"{value:.17g}", f"{value:.25e}"]
    return strings


def test_scores_are_pythons_floats_bit_for_bit(tmp_path, file_parser):
    strings = [s for s in _number_strings(np.random.default_rng(2), 3000)]
    strings = [s for s in strings if math.isfinite(float(s))]
    path = tmp_path / "run.txt"
    path.write_text("".join(f"q Q0 d{i} 1 {s} t\n" for i, s in enumerate(strings)))
    scores = _parse_trec_run(path)[2]
    assert scores.tobytes() == np.array([float(s) for s in strings]).tobytes()
    assert file_parser.fast_reads == (file_parser.name == "pyarrow")


def test_relevance_is_pythons_int(tmp_path, file_parser):
    rng = np.random.default_rng(3)
    values = [int(v) for v in rng.integers(-(2**63), 2**63 - 1, 2000, dtype=np.int64)]
    # Leading zeros, "-0", the int64 bounds.
    texts = ["-" * (v < 0) + "0" * (i % 4) + str(abs(v)) for i, v in enumerate(values)]
    texts += ["-0", "0", "9223372036854775807", "-9223372036854775808"]
    path = tmp_path / "qrels.txt"
    path.write_text("".join(f"q 0 d{i} {t}\n" for i, t in enumerate(texts)))
    assert _parse_trec_qrels(path)[2].tolist() == [int(t) for t in texts]
    assert file_parser.fast_reads == (file_parser.name == "pyarrow")


def _reader_floats(pa, text):
    """A number as the fast path reads a run's scores: in pyarrow's CSV reader, or None."""
    stream = _fast_files._CheckedStream(
        io.BytesIO(f"q Q0 d 1 {text} t\n".encode()), _ASCII_SPACES, _OTHER_SPACES, False
    )
    batches = _fast_files._read_fields(pa, stream, " ", 6, floats=(4,))
    if not batches or batches[0].column(4).null_count:
        return None
    return _fast_files._finite(batches[0].column(4).to_numpy())


@pytest.mark.slow
def test_number_conversion_accepts_only_what_python_reads_alike(file_parser):
    """Random strings near numbers: a path's conversion either refuses a string or reads
    it as float() does (the pyarrow path then declines, and the line-by-line reader
    gives the error)."""
    rng = np.random.default_rng(4)
    alphabet = list("0123456789+-.eE") + ["inf", "nan", "x", "_", " ", "0x", "p", "d"]
    strings = ["".join(rng.choice(alphabet, rng.integers(1, 7))) for _ in range(4000)]
    strings += _number_strings(rng, 300) + ["1e400", "-1e400", "Infinity", "0x10", "1_0"]

    def python_value(text, integer):
        if not text.isascii() or "_" in text:
            return None
        try:
            value = int(text) if integer else float(text)
        except ValueError:
            return None
        if integer:
            return value if -(2**63) <= value < 2**63 else None
        return value if math.isfinite(value) else None

    if file_parser.name == "pyarrow":
        pa = _fast_files._import_pyarrow()

        def convert(texts, integer):
            column = pa.chunked_array([pa.array(texts, pa.string())])
            got = (_fast_files._ints if integer else _fast_files._floats)(pa, column)
            if not integer and texts[0] and not set(texts[0]) & set(" \n\r"):
                # A run's scores are read by pyarrow's CSV reader itself: alike.
                in_reader = _reader_floats(pa, texts[0])
                assert (got is None) == (in_reader is None), texts
                assert got is None or got.tobytes() == in_reader.tobytes(), texts
            return got

    else:

        def convert(texts, integer):
            lines = list(range(1, len(texts) + 1))
            try:
                if integer:
                    return _files._to_ints("f", texts, lines, "x")
                return _files._to_floats("f", texts, lines, "x")
            except ValueError:
                return None

    for integer in (False, True):
        for text in strings:
            got = convert([text], integer)
            expected = python_value(text, integer)
            if got is not None:
                assert expected is not None, text
                assert got.dtype == (np.int64 if integer else np.float64)
                assert got.tobytes() == np.array([expected], got.dtype).tobytes(), text
            elif file_parser.name == "line by line":
                assert expected is None, text


# --------------------------------------------------------------------------------------
# Large files, pipes, progress, and the library inputs built from them
# --------------------------------------------------------------------------------------


def _large_run(n):
    scores = np.random.default_rng(5).random(n).tolist()
    return "".join(
        f"q{i // 100} Q0 doc{i % 1000}-{i // 1000} {i % 100} {scores[i]!r} run\n" for i in range(n)
    )


def test_large_files_take_the_pyarrow_path_when_it_imports(tmp_path, monkeypatch):
    """No switch set: a file over the size limit (decompressed) goes through pyarrow
    whenever it imports, to the same values as line by line."""
    text = _large_run(30000)
    assert len(text) > _fast_files._MIN_BYTES
    path = _write(tmp_path, "run", text, compress=True)
    read_fast = []
    original = _files._fast_trec

    def spy(*args, **kwargs):
        result = original(*args, **kwargs)
        read_fast.append(result is not None)
        return result

    monkeypatch.setattr(_files, "_fast_trec", spy)
    got = _columns(_parse_trec_run(path))
    monkeypatch.setattr(_fast_files, "_ENABLED", False)
    assert got == _columns(_parse_trec_run(path))
    assert got[0][1][:3] == ["q0", "q0", "q0"] and len(got[0][1]) == 30000
    assert read_fast == ["pyarrow" in FILE_PARSERS, False]


def test_small_files_import_no_pyarrow(tmp_path):
    """Importing pyarrow takes what the line-by-line reader takes for a few MB: a file of
    2 MB is read line by line when pyarrow is not imported yet."""
    text = _large_run(50000)
    assert 2**20 < len(text) < 4 * 2**20
    path = _write(tmp_path, "run", text)
    code = (
        "import sys, sklearn_rank as sr; "
        f"r = sr.read_trec_run({str(path)!r}); "
        "assert len(r) == 50000 and r.queries[0] == 'q0'; "
        "print(sorted(m for m in ('pyarrow', 'pandas') if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_a_pyarrow_that_fails_to_import_leaves_the_line_by_line_reader(tmp_path, monkeypatch):
    """Any exception at import (pyarrow built for another numpy...) means no pyarrow."""
    import builtins

    real_import = builtins.__import__

    def failing_import(name, *args, **kwargs):
        if name.split(".")[0] == "pyarrow":
            raise RuntimeError("pyarrow was built for another numpy")
        return real_import(name, *args, **kwargs)

    path = _write(tmp_path, "run", RUN)
    monkeypatch.setattr(_fast_files, "_MIN_BYTES", 0)
    monkeypatch.setattr(builtins, "__import__", failing_import)
    _fast_files._import_pyarrow.cache_clear()
    try:
        assert _fast_files._pyarrow() is None
        assert _columns(_parse_trec_run(path)) == _expected(*RUN_VALUES, float)
    finally:
        monkeypatch.undo()
        _fast_files._import_pyarrow.cache_clear()
    assert (_fast_files._import_pyarrow() is not None) == ("pyarrow" in FILE_PARSERS)


def test_progress_is_reported_alike(tmp_path, file_parser, monkeypatch):
    monkeypatch.setattr(_files, "_PROGRESS_EVERY", 4)
    path = _write(tmp_path, "run", "".join(f"q Q0 d{i} 1 1 t\n" for i in range(10)))
    calls = []
    _parse_trec_run(path, progress=lambda lines, done=False: calls.append((lines, done)))
    assert calls == [(4, False), (8, False), (10, True)]
    table = _write(tmp_path, "table", "query,item\n" + "".join(f"q,d{i}\n" for i in range(9)))
    calls.clear()
    _parse_table(
        table, query="query", item="item", progress=lambda n, done=False: calls.append((n, done))
    )
    assert calls == [(4, False), (8, False), (10, True)]
    assert file_parser.fast_reads == 2 * (file_parser.name == "pyarrow")


def test_readers_build_the_same_inputs_as_the_checked_constructors(tmp_path, file_parser):
    """The readers skip the constructors' checks (they made the checks themselves): the
    objects are those the constructors build from the same columns."""
    run_path, qrels_path = _write(tmp_path, "run", RUN), _write(tmp_path, "qrels", QRELS)
    table_path = _write(tmp_path, "table", TABLE)
    built = [
        (sr.read_trec_run(run_path), ItemRanking(*_as_str(_parse_trec_run(run_path)))),
        (sr.read_trec_qrels(qrels_path), ItemJudgments(*_as_str(_parse_trec_qrels(qrels_path)))),
    ]
    table = read_table(table_path, query="query", item="item", score="score")
    built.append((ItemRanking._from_file(*table[:3]), ItemRanking(*table[:3])))
    built.append((ItemJudgments._from_file(*table[:2], None), ItemJudgments(table[0], table[1])))
    for fast, checked in built:
        assert type(fast) is type(checked) and repr(fast) == repr(checked)
        assert len(fast) == len(checked)
        for name in ("queries", "items", "scores", "relevance"):
            a, b = getattr(fast, name, None), getattr(checked, name, None)
            assert (a is None) == (b is None)
            if a is not None:
                assert a.dtype == b.dtype and a.tolist() == b.tolist(), name
    assert file_parser.fast_reads == 5 * (file_parser.name == "pyarrow")


# --------------------------------------------------------------------------------------
# Blocks: the pyarrow path reads and checks a file block by block
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("case", range(len(READ_BY_PYARROW)))
def test_small_blocks_read_alike(tmp_path, file_parser, monkeypatch, case):
    """Blocks of 64 bytes: lines across blocks."""
    monkeypatch.setattr(_fast_files, "_BLOCK", 64)
    kind, text, values, dtype = READ_BY_PYARROW[case]
    path = _write(tmp_path, kind, text)
    assert _columns(_read(kind, path)) == _expected(*values, dtype)
    assert file_parser.fast_reads == (file_parser.name == "pyarrow")


def test_many_blocks_of_a_table(tmp_path, file_parser, monkeypatch):
    """Queries and items in many blocks: numbered once, ids as written, numbers stripped."""
    monkeypatch.setattr(_fast_files, "_BLOCK", 100)
    rows = [(f"u{i % 13}", f"item {i}", f" {i / 8} ") for i in range(400)]
    text = "item;query;score\n" + "".join(f"{i};{q};{s}\n" for q, i, s in rows)
    path = _write(tmp_path, "table", text)
    got = read_table(path, query="query", item="item", score="score")
    assert got.queries.tolist() == [q for q, _, _ in rows]
    assert got.items.tolist() == [i for _, i, _ in rows]
    assert got.scores.tolist() == [float(s) for _, _, s in rows]
    assert file_parser.fast_reads == (file_parser.name == "pyarrow")


def _lines(n):
    return "".join(f"q{i // 7} Q0 d{i} {i % 7} {i * 0.25} t\n" for i in range(n))


def _outcome(path):
    try:
        return _columns(_parse_trec_run(path))
    except ValueError as error:
        return str(error)


@pytest.mark.parametrize("where", range(-4, 5))
def test_checks_see_across_block_boundaries(tmp_path, file_parser, monkeypatch, where):
    """A non-ASCII space or a byte-order mark cut by the end of a block, a tab just
    after one: the pyarrow path declines, and the values are the line-by-line reader's."""
    monkeypatch.setattr(_fast_files, "_BLOCK", 256)
    base = _lines(60)
    for inserted in ("\u3000", "\u00a0", "\ufeff", "\t"):
        at = 3 * 256 + where  # in bytes: the text is ASCII up to there
        at = base.index(" ", at)  # replace a space: the fields stay the same for Python
        text = base[:at] + inserted + base[at + 1 :]
        path = _write(tmp_path, "run", text)
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(_fast_files, "_ENABLED", False)
            expected = _outcome(path)
        reads = file_parser.fast_reads
        assert _outcome(path) == expected
        assert file_parser.fast_reads == reads, inserted


@pytest.mark.parametrize("ending", ["\n", "\r\n", "\r"])
def test_line_count_across_blocks(tmp_path, file_parser, monkeypatch, ending):
    """Progress counts lines as the line-by-line reader does, \\r\\n cut between blocks."""
    monkeypatch.setattr(_fast_files, "_BLOCK", 32)
    monkeypatch.setattr(_files, "_PROGRESS_EVERY", 5)
    text = _lines(23).replace("\n", ending) + ending * 2 + "q9 Q0 x 1 1 t"
    calls = []
    path = _write(tmp_path, "run", text)
    _parse_trec_run(path, progress=lambda lines, done=False: calls.append((lines, done)))
    n = 23 + 2 + 1
    assert calls == [(5, False), (10, False), (15, False), (20, False), (25, False), (n, True)]
    assert file_parser.fast_reads == (file_parser.name == "pyarrow")


def test_problems_in_later_blocks(tmp_path, file_parser, monkeypatch):
    """A repeated pair, a comment, a bad number or a short line many blocks in: the same
    error as line by line."""
    monkeypatch.setattr(_fast_files, "_BLOCK", 128)
    base = _lines(200)
    cases = [
        (base + "q0 Q0 d3 1 1 t\n", 201, "document 'd3' appears twice for query 'q0'"),
        (base.replace("q20 Q0 d140", "#q20 Q0 d140"), None, None),  # a comment line
        (base.replace(" 35.0 t", " 1_0 t"), 141, "score (field 5) must be a finite number"),
        (base.replace("q25 Q0 d175 0 43.75 t", "q25 Q0 d175"), 176, "expected 6 fields"),
    ]
    for text, line, message in cases:
        path = _write(tmp_path, "run", text)
        if line is None:
            got = _parse_trec_run(path)
            assert len(got[0]) == 199 and "#q20" not in got[0].tolist()
        else:
            with pytest.raises(ValueError, match=re.escape(f"{path}:{line}: {message}")):
                _parse_trec_run(path)
    assert file_parser.fast_reads == 0


@pytest.mark.parametrize("block", [1, 2, 3, 5, 8, 13])
def test_checked_stream_counts_and_checks_across_blocks(monkeypatch, block):
    """The stream's checks, block by block, see what a look at the whole text sees."""
    import io

    monkeypatch.setattr(_fast_files, "_BLOCK", block)
    texts = ["a\r\nb\r\n\r\nc", "a\rb\n\r\n\n", "\ufeffa b\r", "", "a\u3000b\n", "ab\u00a0\n"]
    texts += ["x\ufeffy\n", "é\tz\n", "\r\n" * 5]
    for text in texts:
        stream = _fast_files._CheckedStream(
            io.BytesIO(text.encode()), _ASCII_SPACES, _OTHER_SPACES, count_lines=True
        )
        read = b""
        while True:
            part = stream.read(block)
            if not part:
                break
            read += part
        body = text.removeprefix("\ufeff")
        spaces = any(c.isspace() and c not in " \r\n" for c in body) or "\ufeff" in body
        assert stream.declined == spaces, text
        if not spaces:
            assert read == body.encode()
            assert stream.lines() == len(io.StringIO(body, newline=None).readlines()), text


def test_a_nul_in_a_table_reads_as_line_by_line(tmp_path, file_parser):
    """Python 3.10's csv module refuses NUL characters, later ones keep them: the pyarrow
    path leaves such tables to it."""
    path = _write(tmp_path, "table", TABLE.replace("q2", "q\x002"))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_fast_files, "_ENABLED", False)
        try:
            expected = _columns(_read("table", path))
        except ValueError as error:
            expected = str(error)
    try:
        got = _columns(_read("table", path))
    except ValueError as error:
        got = str(error)
    assert got == expected
    assert file_parser.fast_reads == 0


@pytest.mark.parametrize("where", ["_read_fields", "_padded_words", "_arrow_hashes"])
def test_a_pyarrow_that_fails_while_reading_leaves_the_line_by_line_reader(
    tmp_path, file_parser, monkeypatch, where
):
    """A failure inside the fast path (while parsing, or in a thread converting a batch:
    fixed-width ids, or hashes of Python strings) reads the file line by line."""

    def failing(*args, **kwargs):
        raise RuntimeError("numpy ABI mismatch")

    monkeypatch.setattr(_fast_files if where == "_read_fields" else _fast_ids, where, failing)
    if where == "_arrow_hashes":  # ids that stay Python strings
        monkeypatch.setattr(_fast_ids, "_fits_fixed_width", lambda *args: False)
    path = _write(tmp_path, "run", RUN)
    assert _columns(_parse_trec_run(path)) == _expected(*RUN_VALUES, float)
    assert _columns(
        read_table(_write(tmp_path, "table", TABLE), query="query", item="item", score="score")[:3]
    ) == _expected(*RUN_VALUES, float)
    assert file_parser.fast_reads == 0


def test_the_fast_path_imports_no_pandas(tmp_path):
    """pyarrow's to_numpy imports pandas (~0.3 s, ~40 MB) to look for its types: the
    readers view the arrays' buffers instead."""
    import subprocess
    import sys

    (tmp_path / "run.txt").write_text("".join(f"q{i % 3} Q0 d{i} 1 {i / 7} t\n" for i in range(99)))
    (tmp_path / "qrels.txt").write_text("".join(f"q{i % 3} 0 d{i} {i % 4}\n" for i in range(99)))
    (tmp_path / "t.csv").write_text(
        "query,item,score\n" + "".join(f"q,d{i},{i}\n" for i in range(99))
    )
    code = (
        "import sys\n"
        "from sklearn_rank.inputs import _fast_files, _files\n"
        "_fast_files._MIN_BYTES = 0\n"
        "read = []\n"
        "for name in ('_fast_trec', '_fast_table'):\n"
        "    f = getattr(_files, name)\n"
        "    setattr(_files, name, lambda *a, f=f, **k: read.append(f(*a, **k)) or read[-1])\n"
        "import sklearn_rank as sr\n"
        "sr.read_trec_run('run.txt'), sr.read_trec_qrels('qrels.txt')\n"
        "sr.read_table('t.csv', query='query', item='item', score='score')\n"
        "print(sum(columns is not None for columns in read), 'pandas' in sys.modules)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=tmp_path
    )
    # Three files read by pyarrow where it imports (not in CI's lowest versions), no pandas.
    assert done.stdout.split() == [str(3 * ("pyarrow" in FILE_PARSERS)), "False"]


# --------------------------------------------------------------------------------------
# Docnos kept as bytes until read
# --------------------------------------------------------------------------------------


def test_docnos_stay_ascii_bytes_until_items_is_read(tmp_path, file_parser):
    """The fast TREC readers keep ASCII docnos as one byte per character (numpy's S, a
    quarter of str's memory); ``items`` makes them str once, equal to the line-by-line
    reader's, and len, repr and evaluate read the bytes without making them str."""
    qrels_text = "q1 0 d1 1\nq1 0 d2 0\nq2 0 d1 2\n"
    run_path, qrels_path = _write(tmp_path, "run", RUN), _write(tmp_path, "qrels", qrels_text)
    run, qrels = sr.read_trec_run(run_path), sr.read_trec_qrels(qrels_path)
    stored = _stored_items(run), _stored_items(qrels)
    kind = "S" if file_parser.name == "pyarrow" else "U"
    assert [ids.dtype.kind for ids in stored] == [kind, kind]
    assert (len(run), repr(run)) == (3, "<ItemRanking: 2 queries, 3 rows with scores, from arrays>")
    assert len(qrels) == 3
    got = sr.evaluate(qrels, run, ["map", "ndcg@2"], convention="trec_eval", per_query=True)
    assert _stored_items(run) is stored[0] and _stored_items(qrels) is stored[1]
    items = run.items
    assert items.dtype == np.dtype("<U2") and items.tolist() == ["d1", "d2", "d1"]
    assert run.items is items and _stored_items(run) is items  # made once, the bytes gone
    assert qrels.items.tolist() == ["d1", "d2", "d1"]
    as_str = [
        ItemJudgments(["q1", "q1", "q2"], ["d1", "d2", "d1"], [1, 0, 2]),
        ItemRanking(["q1", "q1", "q2"], ["d1", "d2", "d1"], [2.5, -300.0, 0.0]),
    ]
    want = sr.evaluate(*as_str, ["map", "ndcg@2"], convention="trec_eval", per_query=True)
    for name in want:
        np.testing.assert_array_equal(got[name], want[name])


@pytest.mark.parametrize("ordered", [True, False], ids=["ranked", "shuffled"])
def test_joins_of_byte_docnos_equal_joins_of_str(tmp_path, file_parser, ordered, monkeypatch):
    """Docnos kept as bytes join as str do: both sides read (the hash join of bytes, with
    tied scores broken by docno as trec_eval does, for a ranked run in place and for a
    shuffled one whole), and either side made of str by the caller (then made bytes)."""
    joins = []

    def hash_join(true_code, true_items, run_code, run_items, n_threads=1):
        joined = _join._hash_join(true_code, true_items, run_code, run_items, n_threads)
        joins.append((true_items.dtype.kind, run_items.dtype.kind, joined is not None))
        return joined

    monkeypatch.setattr(_items, "_hash_join", hash_join)
    rng = np.random.default_rng(7)
    n_queries, per_query = 40, 1000  # 40,000 rows: over the hash join's threshold
    queries = np.repeat([f"t{q}" for q in range(n_queries)], per_query)
    docs = np.array([f"doc-{d:05d}" for d in rng.integers(0, 3000, queries.size)])
    pairs = np.unique(np.char.add(np.char.add(queries, " "), docs), return_index=True)[1]
    queries, docs = queries[np.sort(pairs)], docs[np.sort(pairs)]
    scores = rng.integers(0, 30, queries.size).astype(float)  # many ties
    order = np.lexsort((-scores, queries)) if ordered else rng.permutation(queries.size)
    judged = rng.random(queries.size) < 0.3
    grades = rng.integers(0, 3, queries.size)
    run_text = "".join(
        f"{q} Q0 {d} 1 {s:g} t\n" for q, d, s in zip(queries[order], docs[order], scores[order])
    )
    qrels_text = "".join(
        f"{q} 0 {d} {g}\n" for q, d, g in zip(queries[judged], docs[judged], grades[judged])
    )
    run_path, qrels_path = _write(tmp_path, "run", run_text), _write(tmp_path, "qrels", qrels_text)
    metrics = ["map", "ndcg@10", "P_5", "recip_rank"]
    str_run = ItemRanking(queries[order], docs[order], scores[order])
    str_qrels = ItemJudgments(queries[judged], docs[judged], grades[judged])
    want = sr.evaluate(str_qrels, str_run, metrics, convention="trec_eval", per_query=True)
    for qrels, run in [
        (sr.read_trec_qrels(qrels_path), sr.read_trec_run(run_path)),
        (sr.read_trec_qrels(qrels_path), str_run),
        (str_qrels, sr.read_trec_run(run_path)),
    ]:
        got = sr.evaluate(qrels, run, metrics, convention="trec_eval", per_query=True)
        for name in metrics:
            np.testing.assert_array_equal(got[name], want[name], err_msg=name)
    kind = "S" if file_parser.name == "pyarrow" else "U"
    # (str ids beside a read side's bytes are made bytes: all ASCII)
    assert joins == [("U", "U", True)] + [(kind, kind, True)] * 3
