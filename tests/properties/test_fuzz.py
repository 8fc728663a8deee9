"""Fuzz: random malformed inputs to `evaluate`, the file readers and the command line.

Every outcome must be either a clean error (a ValueError or TypeError raised by
sklearn_rank, whose message says what was wrong; for files, ``<path>:<line>: ...``; for
the command line, exit status 2 and an error line, never a traceback) or a finite value
in the metric's range. When the input is valid, the value equals the slow reference of
tests/reference.py, and a file read equals an obvious line-by-line parser written here.
Hypothesis runs a fixed set of about 200 examples per test (derandomized, so that a run
is repeatable); the same tests passed 2,000 to 15,000 random examples each when written.
"""

import gzip
import io
import math
import os
import re
import tempfile
import warnings
import zlib
from contextlib import contextmanager, redirect_stderr, redirect_stdout

import numpy as np
import pytest
from conftest import FILE_PARSERS
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from reference import reference_mean, reference_per_query

import sklearn_rank as sr
from sklearn_rank.cli._main import main
from sklearn_rank.inputs import _fast_files
from sklearn_rank.inputs._files import read_table
from sklearn_rank.metrics._names import _parse_requests
from sklearn_rank.metrics._registry import METRICS

pytestmark = pytest.mark.slow

FUZZ = settings(
    max_examples=200,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

# An error is clean when it is ours and says what is wrong; these are the words of errors
# that escaped from numpy or Python internals instead.
INTERNAL = re.compile(
    r"broadcast|could not convert|unhashable|not supported between|"
    r"object of type|invalid literal|out of bounds|too many values|"
    r"index \d+ is out|unpack|has no attribute"
)


def _clean_error(error):
    message = str(error)
    assert isinstance(error, (ValueError, TypeError)), repr(error)
    assert not INTERNAL.search(message), message
    assert message and "Traceback" not in message, message


# --------------------------------------------------------------------------------------
# evaluate: a valid case, then at most one malformation
# --------------------------------------------------------------------------------------

BAD_VALUES = [np.nan, np.inf, -np.inf, "x", None, 1j]
MAYBE_VALUES = [-1.0, True, 1e308, 2**70, np.float32(2.5)]
MUTATIONS = [
    "none",
    "none",
    "none",
    "bad_true",
    "bad_score",
    "maybe_true",
    "maybe_score",
    "drop_score",
    "groups_short",
    "groups_missing_id",
    "groups_absent",
    "ragged",
    "empty",
    "name",
    "k",
    "dtype",
    "weights",
    "weights_bad",
    "transpose",
]


@st.composite
def cases(draw):
    n_queries = draw(st.integers(1, 4))
    sizes = [draw(st.integers(1, 5)) for _ in range(n_queries)]
    form = draw(st.sampled_from(["long", "dense", "lists"]))
    if form == "dense":
        sizes = [max(sizes)] * n_queries
    rel = [[draw(st.integers(0, 3)) for _ in range(s)] for s in sizes]
    score = [[float(draw(st.integers(0, 4))) for _ in range(s)] for s in sizes]
    # The first metrics, whose slow reference is reference_per_query; trec_eval's measures,
    # ERR and RBP meet theirs (reference_trec) in test_trec_reference.py.
    metric = draw(st.sampled_from(sorted(n for n, m in METRICS.items() if m.family == "core")))
    k = draw(st.one_of(st.none(), st.integers(1, 7))) if METRICS[metric].takes_k else None
    return {
        "form": form,
        "rel": rel,
        "score": score,
        "metric": metric,
        "k": k,
        "mutation": draw(st.sampled_from(MUTATIONS)),
        "bad": draw(st.sampled_from(BAD_VALUES)),
        "maybe": draw(st.sampled_from(MAYBE_VALUES)),
        "where": draw(st.integers(0, 10**6)),
        "name": draw(
            st.one_of(
                st.text(max_size=8),
                st.sampled_from(
                    [
                        "ndcg@0",
                        "ndcg@-1",
                        "@3",
                        "map@1.0",
                        "arp@2",
                        "neg_ndcg",
                        "NDCG",
                        "ndcg@",
                        "ndcg@3@4",
                        "ndcg@ 3",
                        "map@" + "9" * 30,
                        "precision@",
                        " ndcg@2 ",
                    ]
                ),
            )
        ),
        "raw_k": draw(st.one_of(st.integers(-3, 12), st.integers(2**62 - 1, 2**64))),
        "dtype": draw(
            st.sampled_from(["bool", "int8", "uint8", "int64", "float16", "float32", "object", "U"])
        ),
        "dtype_of": draw(st.sampled_from(["y_true", "y_score"])),
        "weights": draw(
            st.lists(st.one_of(st.floats(-1, 5), st.sampled_from([0.0, np.nan])), max_size=6)
        ),
        "groups_kind": draw(st.sampled_from(["int", "str", "float", "mixed"])),
    }


def _ids(case):
    n = len(case["rel"])
    return {
        "int": list(range(n)),
        "str": [f"q{q}" for q in range(n)],
        "float": [q + 0.5 for q in range(n)],
        "mixed": [q if q % 2 else str(q) for q in range(n)],
    }[case["groups_kind"]]


def _build(case):
    """(y_true, y_score, groups, the query order of per-query values) of the valid case."""
    rel, score, ids = case["rel"], case["score"], _ids(case)
    if case["form"] == "dense":
        return [list(r) for r in rel], [list(s) for s in score], None, list(range(len(rel)))
    if case["form"] == "lists":
        truth = [{item: float(r) for item, r in enumerate(rs) if r > 0} for rs in rel]
        run = [dict(enumerate(ss)) for ss in score]
        return truth, run, None, list(range(len(rel)))
    rows = [(q, i) for q, size in enumerate(rel) for i in range(len(size))]
    # Interleave the rows of the queries (a fixed shuffle of this case's rows).
    order = sorted(range(len(rows)), key=lambda row: (row * 7919) % (len(rows) + 1))
    rows = [rows[row] for row in order]
    first_seen = list(dict.fromkeys(q for q, _ in rows))
    return (
        [rel[q][i] for q, i in rows],
        [score[q][i] for q, i in rows],
        [ids[q] for q, _ in rows],
        first_seen,
    )


def _put(values, form, where, value):
    """Set one entry of y_true or y_score (a list, list of lists or list of dicts)."""
    row = values[where % len(values)] if form != "long" else None
    if form == "long":
        values[where % len(values)] = value
    elif form == "dense":
        row[where % len(row)] = value
    elif row:
        row[next(iter(row))] = value
    else:
        row[99] = value


def _mutate(case, y_true, y_score, groups):
    """Apply the case's malformation; return the inputs, the metric name and a verdict:
    "valid" (compare with the reference), "invalid" (must raise) or "either"."""
    kind, form = case["mutation"], case["form"]
    k = case["k"]
    name = case["metric"] if k is None else f"{case['metric']}@{k}"
    weights, verdict = None, "valid"
    if kind == "bad_true":
        _put(y_true, form, case["where"], case["bad"])
        verdict = "invalid"
    elif kind == "bad_score":
        _put(y_score, form, case["where"], case["bad"])
        verdict = "invalid"
    elif kind in ("maybe_true", "maybe_score"):
        _put(y_true if kind == "maybe_true" else y_score, form, case["where"], case["maybe"])
        verdict = "either"
    elif kind == "drop_score" and form != "lists":
        (y_score[case["where"] % len(y_score)] if form == "dense" else y_score).pop()
        verdict = "invalid"
    elif kind == "groups_short":
        groups = (groups or list(range(len(y_true))))[:-1] if form == "long" else [0, 0]
        verdict = "invalid"
    elif kind == "groups_missing_id" and form == "long":
        groups[case["where"] % len(groups)] = None if case["where"] % 2 else np.nan
        verdict = "invalid"
    elif kind == "groups_absent" and form == "long":
        groups, verdict = None, "invalid"
    elif kind == "ragged" and form == "dense" and len(y_score) > 1:
        y_score[0] = y_score[0] + [1.0]
        verdict = "invalid"
    elif kind == "empty":
        y_true, y_score = [], []
        groups = [] if form == "long" else None
        verdict = "invalid"
    elif kind == "name":
        name, verdict = case["name"], "either"
    elif kind == "k" and METRICS[case["metric"]].takes_k:
        name, verdict = f"{case['metric']}@{case['raw_k']}", "either"
    elif kind == "dtype" and form != "lists":
        target = "y_true" if case["dtype_of"] == "y_true" else "y_score"
        array = np.asarray(y_true if target == "y_true" else y_score, dtype=float)
        converted = array.astype(case["dtype"])
        if target == "y_true":
            y_true = converted
        else:
            y_score = converted
        verdict = "invalid" if case["dtype"] == "U" else "valid"
    elif kind == "weights":
        weights, verdict = [1.0 + q for q in range(len(case["rel"]))], "valid"
    elif kind == "weights_bad":
        weights, verdict = case["weights"], "either"
    elif kind == "transpose" and form == "dense":
        y_true, y_score = np.asarray(y_true).T, np.asarray(y_score).T
        verdict = "either"  # another valid matrix, or a shape mismatch
    return y_true, y_score, groups, name, weights, verdict


def _in_range(metric, value, negative_relevance):
    low, high = {"[0, 1]": (0, 1), "(0, 1]": (0, 1), "[-1, 1]": (-1, 1)}.get(
        METRICS[metric].value_range, (0 if not negative_relevance else -math.inf, math.inf)
    )
    return low <= value <= high


def _reference(case, name, weights, order, converted=None):
    """The slow reference of the valid case (the per-query values averaged)."""
    metric, k = name.split("@")[0].strip(), None
    if "@" in name:
        k = int(name.split("@")[1])
    rel, score = case["rel"], case["score"]
    if converted is not None:  # dtype conversions change values (bool: 0/1)
        rel, score = converted
    values = [reference_per_query(metric, rel[q], score[q], k=k) for q in order]
    # Weights are per query in the order of per-query values, as `order` is. Ranked lists
    # (item ids) skip queries without a relevant item by default, as recommenders do.
    no_relevant = "skip" if case["form"] == "lists" else METRICS[metric].no_relevant_default
    return reference_mean(values, weights, no_relevant)


def _converted(case):
    """The case's relevance and scores after its dtype conversion, as floats per query."""
    if case["mutation"] != "dtype" or case["form"] == "lists":
        return None
    rel, score = case["rel"], case["score"]
    target = rel if case["dtype_of"] == "y_true" else score
    changed = [
        np.asarray(row, dtype=float).astype(case["dtype"]).astype(float).tolist() for row in target
    ]
    return (changed, score) if case["dtype_of"] == "y_true" else (rel, changed)


@FUZZ
@given(cases())
def test_evaluate_gives_clean_errors_or_the_reference_value(case):
    y_true, y_score, groups, order = _build(case)
    y_true, y_score, groups, name, weights, verdict = _mutate(case, y_true, y_score, groups)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # a warning is no way to report bad input
            # but it says that the default for item ids left queries out of the mean
            warnings.filterwarnings("ignore", "Some of the|.* have no relevant item", UserWarning)
            result = sr.evaluate(y_true, y_score, [name], groups=groups, sample_weight=weights)
    except Exception as error:  # noqa: BLE001 - the assertion below is the point
        _clean_error(error)
        if verdict == "valid":
            # The one valid input that must raise: every query skipped (ARP with no
            # relevant item anywhere), whose reference mean is NaN.
            expected = _reference(case, name, weights, order, _converted(case))
            assert math.isnan(expected) and "skipped" in str(error), (case, error)
        return
    assert verdict != "invalid", (case, result)
    assert list(result) == [name]
    value = result[name]
    assert isinstance(value, float) and math.isfinite(value), (case, value)
    metric = _parse_requests(name)[0].metric.name  # "NDCG" is ir_measures' spelling of ndcg
    negative = case["mutation"] == "maybe_true" and case["maybe"] == -1.0
    assert _in_range(metric, value, negative), (case, value)
    if verdict == "valid":
        expected = _reference(case, name, weights, order, _converted(case))
        assert value == pytest.approx(expected, rel=1e-9, abs=1e-12), case


@FUZZ
@given(st.data())
def test_evaluate_with_arbitrary_arguments_never_fails_uncleanly(data):
    """Whatever the types: arrays of any dtype and shape, ragged lists, scalars, None."""
    element = st.one_of(
        st.floats(allow_nan=True, allow_infinity=True),
        st.integers(-3, 3),
        st.booleans(),
        st.none(),
        st.text(max_size=2),
    )
    shaped = st.one_of(
        st.lists(element, max_size=5),
        st.lists(st.lists(element, max_size=4), max_size=3),
        st.builds(np.zeros, st.tuples(st.integers(0, 3), st.integers(0, 3))),
        st.builds(np.ones, st.integers(0, 4)),
        element,
        st.lists(st.sets(st.integers(0, 4), max_size=3), max_size=3),
        st.lists(st.dictionaries(st.integers(0, 4), element, max_size=3), max_size=3),
    )
    y_true, y_score = data.draw(shaped), data.draw(shaped)
    groups = data.draw(st.one_of(st.none(), st.lists(element, max_size=6), element))
    metrics = data.draw(
        st.one_of(
            st.text(max_size=6),
            st.lists(
                st.sampled_from(
                    ["ndcg@2", "map", "mrr", "auc", "arp", "kendall_tau", "precision@1"]
                ),
                max_size=3,
            ),
            st.integers(),
            st.none(),
        )
    )
    weights = data.draw(st.one_of(st.none(), st.lists(element, max_size=4)))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            result = sr.evaluate(y_true, y_score, metrics, groups=groups, sample_weight=weights)
    except Exception as error:  # noqa: BLE001
        _clean_error(error)
        return
    for name, value in result.items():
        metric = _parse_requests(name)[0].metric.name
        assert math.isfinite(value) and _in_range(metric, value, True), (name, value)


# --------------------------------------------------------------------------------------
# File readers: random text and bytes, against an obvious parser
# --------------------------------------------------------------------------------------

TOKENS = [
    "q1",
    "q2",
    "Q0",
    "0",
    "1",
    "2",
    "-1",
    "d1",
    "d2",
    "d3",
    "2.5",
    "-3e2",
    "nan",
    "inf",
    "1_0",
    "0x1",
    "\u0663",
    "#c",
    "caf\u00e9",
    "x",
    "",
    "1.5",
    "+1",
    "t",
]


@st.composite
def trec_lines(draw, n_fields):
    """Lines mostly of ``n_fields`` fields, some cut, padded, commented or blank."""
    lines = []
    for _ in range(draw(st.integers(0, 6))):
        count = draw(st.sampled_from([n_fields] * 4 + [0, 1, n_fields - 1, n_fields + 1]))
        fields = [draw(st.sampled_from(TOKENS)) for _ in range(count)]
        if n_fields == 6 and count == 6 and draw(st.booleans()):
            fields = [
                draw(st.sampled_from(["q1", "q2"])),
                "Q0",
                draw(st.sampled_from(["d1", "d2", "d3"])),
                "1",
                draw(st.sampled_from(["1", "2.5", "-3e2", "0"])),
                "t",
            ]
        if n_fields == 4 and count == 4 and draw(st.booleans()):
            fields = [
                draw(st.sampled_from(["q1", "q2"])),
                "0",
                draw(st.sampled_from(["d1", "d2", "d3"])),
                draw(st.sampled_from(["0", "1", "2"])),
            ]
        separator = draw(st.sampled_from([" ", "\t", "  "]))
        prefix = draw(st.sampled_from(["", "", "", " ", "\ufeff"]))
        lines.append(prefix + separator.join(fields))
    return lines


@st.composite
def table_lines(draw):
    header = "query,item,score"
    rows = []
    for _ in range(draw(st.integers(0, 6))):
        count = draw(st.sampled_from([3, 3, 3, 3, 2, 4, 1]))
        if count == 3 and draw(st.booleans()):
            fields = [
                draw(st.sampled_from(["q1", "q2"])),
                draw(st.sampled_from(["d1", "d2", "d3"])),
                draw(st.sampled_from(["1", "2.5", "-3e2", "0", " 4 "])),
            ]
        else:
            fields = [draw(st.sampled_from(TOKENS + ['"a,b"', '"q'])) for _ in range(count)]
        rows.append(draw(st.sampled_from(["", "", "\ufeff"])) + ",".join(fields))
    return [header] + rows


@st.composite
def files(draw, lines):
    """(bytes, how they were made): lines joined by random endings, maybe compressed,
    maybe damaged, or plain random bytes."""
    if draw(st.integers(0, 9)) == 0:
        return draw(st.binary(max_size=60)), "binary"
    text_lines = draw(lines)
    ending = draw(st.sampled_from(["\n", "\r\n", "\r"]))
    text = ending.join(text_lines) + draw(st.sampled_from([ending, ""]))
    data = (b"\xef\xbb\xbf" if draw(st.booleans()) else b"") + text.encode()
    if draw(st.integers(0, 5)) == 0:
        data += "caf\u00e9".encode("latin-1") + b"\n"
    if draw(st.integers(0, 3)) == 0:
        data = gzip.compress(data)
        if draw(st.booleans()):
            data = data[: draw(st.integers(0, len(data) - 1))]
            return data, "damaged gzip"
    return data, "text"


def _text_of(data):
    """The text the readers see, or None when it is not (complete) UTF-8."""
    if data[:2] == b"\x1f\x8b":
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError, zlib.error):
            return None
    if data and len(data) < 3 and data == b"\xef\xbb\xbf"[: len(data)]:
        return ""  # Python's utf-8-sig decoder drops a file that is a cut byte-order mark
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    return text[1:] if text.startswith("\ufeff") else text


def _first_line_not_utf8(data):
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    data = data.removeprefix(b"\xef\xbb\xbf")
    for number, line in enumerate(
        io.BytesIO(data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")), 1
    ):
        try:
            line.decode("utf-8")
        except UnicodeDecodeError:
            return number
    raise AssertionError("every line is UTF-8")


def _damaged_gzip(data):
    if data[:2] != b"\x1f\x8b":
        return False
    try:
        gzip.decompress(data)
    except (OSError, EOFError, zlib.error):
        return True
    return False


def _number(text, integer):
    if not text.isascii() or "_" in text:
        return None
    try:
        value = int(text) if integer else float(text)
    except ValueError:
        return None
    if integer:
        return float(value) if -(2**63) <= value < 2**63 else None
    return value if math.isfinite(value) else None


def _first_repeated_pair(rows, lines):
    """Line of the first row whose (query, item) pair came before, or None."""
    seen = set()
    for row, lineno in zip(rows, lines):
        if (row[0], row[1]) in seen:
            return lineno
        seen.add((row[0], row[1]))
    return None


def _oracle_trec(text, n_fields, columns, integer):
    """(rows, None) or (None, line of the first error): the readers' rules, spelled out."""
    rows, lines = [], []
    for lineno, line in enumerate(io.StringIO(text, newline=None), 1):
        fields = (
            line.replace("\ufeff", " ", 1).split()
            if line.lstrip().startswith("\ufeff")
            else line.split()
        )
        if not fields or fields[0].startswith("#"):
            continue
        if len(fields) < n_fields or (len(fields) > n_fields and n_fields != 6):
            return None, lineno  # a run line may have more fields, ignored (trec_eval)
        rows.append([fields[c] for c in columns])
        lines.append(lineno)
    if not rows:
        return None, max(len(list(io.StringIO(text, newline=None))), 1)
    for row, lineno in zip(rows, lines):
        row[2] = _number(row[2], integer)
        if row[2] is None:
            return None, lineno
    repeated = _first_repeated_pair(rows, lines)
    if repeated is not None:
        return None, repeated
    return rows, None


def _csv_records(text, delimiter=",", first_line=1):
    """(fields, first line, last line) of each record of ``text``, and whether a quote is
    still open at the end: the csv module's rules (quotes only at the start of a field,
    after spaces; "" inside quotes; text after a closing quote kept), written out character
    by character."""
    records, fields, field = [], [], []
    state, line, start = "record", first_line, first_line
    i = 0
    while i < len(text):
        c = text[i]
        if c in "\r\n":
            if c == "\r" and text[i + 1 : i + 2] == "\n":
                i += 1
                c = "\r\n"
            if state == "quoted":
                field.append(c)
            else:
                if state != "record":
                    fields.append("".join(field))
                records.append((fields, start, line))
                fields, field, state = [], [], "record"
                start = line + 1
            line += 1
        elif state == "quoted":
            state = "quote in quoted" if c == '"' else "quoted"
            if c != '"':
                field.append(c)
        elif state == "quote in quoted" and c == '"':
            field.append(c)
            state = "quoted"
        elif c == delimiter:
            fields.append("".join(field))
            field, state = [], "field start"
        elif state in ("record", "field start") and c == " ":
            state = "field start"
        elif state in ("record", "field start") and c == '"':
            state = "quoted"
        else:
            field.append(c)
            state = "field"
        i += 1
    if state != "record":
        fields.append("".join(field))
        records.append((fields, start, line))
    return records, state == "quoted"


def _oracle_table(text):
    """(rows, None) or (None, line of the first error, or None when any line will do):
    the table reader's rules for columns query, item and score, in a file named .csv."""
    lines = list(io.StringIO(text, newline=""))
    header_at = next((n for n, line in enumerate(lines, 1) if line.strip()), None)
    if header_at is None:
        return None, None  # empty
    header_line = lines[header_at - 1].rstrip("\r\n")
    delimiter = next((d for d in ",\t;" if d in header_line), ",")
    header = [name.strip() for name in _csv_records(header_line, delimiter)[0][0][0]]
    indices = []
    for name in ("query", "item", "score"):
        if header.count(name) != 1:
            return None, header_at
        indices.append(header.index(name))
    rest = "".join(lines[header_at:])
    records, still_open = _csv_records(rest, delimiter, header_at + 1)
    rows, starts = [], []
    for fields, start, _end in records:
        if not fields or (len(fields) == 1 and not fields[0].strip()):
            continue
        if len(fields) != len(header):
            return None, start
        rows.append([fields[i].strip() for i in indices])
        starts.append(start)
    if still_open:
        return None, records[-1][1]
    if not rows:
        return None, None
    for row, lineno in zip(rows, starts):  # a line break in a field read: a quote left open
        if any("\n" in field or "\r" in field for field in row):
            return None, lineno
    for row in rows:
        for role, index in enumerate(indices):
            if index == 0:  # a BOM can only start a line
                row[role] = row[role].lstrip("\ufeff").strip()
    for column in (0, 1):  # every query id, then every item id
        for row, lineno in zip(rows, starts):
            if not row[column]:
                return None, lineno
    repeated = _first_repeated_pair(rows, starts)
    if repeated is not None:
        return None, repeated
    for row, lineno in zip(rows, starts):
        row[2] = _number(row[2], False)
        if row[2] is None:
            return None, lineno
    return rows, None


READERS = {
    "run": (lambda path: sr.read_trec_run(path), "scores"),
    "qrels": (lambda path: sr.read_trec_qrels(path), "relevance"),
    "table": (lambda path: read_table(path, query="query", item="item", score="score"), "scores"),
}


@contextmanager
def _reader_path(name):
    """Read through one path: line by line, or pyarrow's whatever the file's size."""
    saved = _fast_files._ENABLED, _fast_files._MIN_BYTES
    _fast_files._ENABLED, _fast_files._MIN_BYTES = name == "pyarrow", 0
    try:
        yield
    finally:
        _fast_files._ENABLED, _fast_files._MIN_BYTES = saved


def _outcome(read, path, name):
    """What one reader path makes of a file: its error, or its columns with their dtypes
    and exact bytes (float64 bits, the str of every id)."""
    with _reader_path(name):
        try:
            got = read(path)
        except (ValueError, TypeError) as error:
            return type(error).__name__, str(error)
    columns = []
    for field in ("queries", "items", "scores", "relevance"):
        column = getattr(got, field, None)
        if column is None:
            columns.append(None)
        elif column.dtype == object:
            assert all(type(value) is str for value in column)
            columns.append(("object", tuple(column.tolist())))
        else:
            columns.append((column.dtype.str, column.tobytes()))
    return tuple(columns)


def _check_file(kind, data, how):
    folder = tempfile.mkdtemp(prefix="sklearn_rank_fuzz_")
    path = os.path.join(folder, "input.csv" if kind == "table" else "input.txt")
    with open(path, "wb") as handle:
        handle.write(data)
    read, values = READERS[kind]
    # Both reader paths give the same values, or the same error message.
    outcomes = {name: _outcome(read, path, name) for name in FILE_PARSERS}
    assert len(set(outcomes.values())) == 1, (data, outcomes)
    text = _text_of(data)
    # Random bytes may start like gzip too; a mutated gzip stream may still be whole.
    how = "damaged gzip" if _damaged_gzip(data) else "text"
    if kind == "table":
        expected, error_line = _oracle_table(text) if text else (None, None)
    else:
        n_fields, columns = (6, (0, 2, 4)) if kind == "run" else (4, (0, 2, 3))
        expected, error_line = (
            _oracle_trec(text, n_fields, columns, kind == "qrels")
            if text is not None
            else (None, None)
        )
    try:
        got = read(path)
    except (ValueError, TypeError) as error:
        message = str(error)
        match = re.match(re.escape(path) + r":(\d+): (.+)$", message)
        assert match, message
        assert int(match.group(1)) >= 1 and "\n" not in message and "\r" not in message
        assert expected is None, (message, expected)
        if how == "damaged gzip":
            pass  # the part before the damage may fail to parse first: any line is right
        elif text is None:
            # Text is decoded in blocks: a line with too few fields before an unfinished
            # character at the end of the file is read, and refused, first.
            assert "not UTF-8 text" in message or (
                "fields" in message and int(match.group(1)) < _first_line_not_utf8(data)
            ), message
        elif error_line is not None:
            assert int(match.group(1)) == error_line, (message, error_line, text)
        return
    finally:
        os.remove(path)
        os.rmdir(folder)
    assert how != "damaged gzip" or text is not None
    assert text is not None and expected is not None, (data, got)
    queries = got.queries.tolist()
    items = got.items.tolist()
    numbers = np.asarray(getattr(got, values)).tolist()
    assert [list(row) for row in zip(queries, items, numbers)] == expected


@FUZZ
@given(files(trec_lines(6)))
def test_read_trec_run_fuzz(made):
    _check_file("run", *made)


@FUZZ
@given(files(trec_lines(4)))
def test_read_trec_qrels_fuzz(made):
    _check_file("qrels", *made)


@FUZZ
@given(files(table_lines()))
def test_table_reader_fuzz(made):
    _check_file("table", *made)


# Mutations of valid files: bytes cut, replaced, inserted or removed, in the text and then
# in the gzip stream. Inserted bytes are the ones that break parsers: quotes, separators,
# line endings, bytes that are not UTF-8 or that start a character left unfinished.
INSERTED = [b'"', b'""', b",", b"\t", b" ", b"\n", b"\r", b"\r\n", b"#", b"\xef\xbb\xbf"]
INSERTED += [b"\xff", b"\xc3", b"\xe2\x82", b"\x80", b"\x00"]


def _mutate_bytes(draw, data, inserted):
    for _ in range(draw(st.integers(1, 3))):
        where = draw(st.integers(0, len(data)))
        how = draw(st.sampled_from(["cut", "replace", "insert", "insert", "remove"]))
        if how == "cut":
            data = data[:where]
        elif how == "replace":
            data = data[:where] + bytes([draw(st.integers(0, 255))]) + data[where + 1 :]
        elif how == "insert":
            data = data[:where] + draw(st.sampled_from(inserted)) + data[where:]
        else:
            data = data[:where] + data[where + draw(st.integers(1, 8)) :]
    return data


@st.composite
def mutated_files(draw, lines):
    text = "\n".join(draw(lines)) + "\n"
    data = text.encode()
    if draw(st.booleans()):
        data = _mutate_bytes(draw, data, INSERTED)
    if not draw(st.booleans()):
        return data, "text"
    data = gzip.compress(data)
    if draw(st.integers(0, 3)):
        # Cut near the end most often: a download stopped early, the last line unfinished.
        if draw(st.booleans()):
            data = data[: draw(st.integers(max(len(data) - 12, 0), len(data)))]
        else:
            data = _mutate_bytes(draw, data, [b"\x00", b"\xff", b"\x1f\x8b"])
    return data, "gzip"


MUTATION_FUZZ = settings(FUZZ, max_examples=300)


@MUTATION_FUZZ
@given(mutated_files(trec_lines(6)))
def test_read_trec_run_mutations(made):
    _check_file("run", *made)


@MUTATION_FUZZ
@given(mutated_files(trec_lines(4)))
def test_read_trec_qrels_mutations(made):
    _check_file("qrels", *made)


@MUTATION_FUZZ
@given(mutated_files(table_lines()))
def test_table_reader_mutations(made):
    _check_file("table", *made)


# Files that pyarrow's path reads itself (single spaces or commas, no quotes, no comments),
# as they are and mutated: where it declines, the line-by-line reader gives the values or
# the error; where it reads, both paths must agree (checked by _check_file).
CLEAN_QUERIES = ["q1", "q2", "q3", "caf\u00e9", "a", "a\x00", "\u4e2d"]
CLEAN_ITEMS = ["d1", "d2", "d3", "x" * 8, "x" * 9, "y" * 17, "d1\x00", "\u00e9t\u00e9", "#d"]
CLEAN_NUMBERS = ["1", "2.5", "-3e2", "0", "-0", "+1", "007", "1.", ".5", "1e-320", "0.1"]
CLEAN_NUMBERS += ["123456789012345678901", "9223372036854775807", "-9223372036854775809"]
CLEAN_NUMBERS += ["nan", "inf", "1e400", "0x1f", "1_0", "\u0663", "", "1e", "--1"]


@st.composite
def clean_trec_lines(draw, n_fields):
    lines = []
    extra = ["x"] * (draw(st.integers(0, 3)) == 0)  # trec_eval ignores fields after the 6th
    for line in range(draw(st.integers(1, 8))):
        query = draw(st.sampled_from(CLEAN_QUERIES))
        # Mostly a new item (a repeated pair makes the fast path decline).
        item = draw(st.sampled_from(CLEAN_ITEMS)) + draw(st.sampled_from([str(line)] * 3 + [""]))
        number = draw(st.sampled_from(CLEAN_NUMBERS[:11] if n_fields == 6 else CLEAN_NUMBERS[:7]))
        if draw(st.integers(0, 9)) == 0:
            number = draw(st.sampled_from(CLEAN_NUMBERS))
        if n_fields == 6:
            fields = [query, "Q0", item, "1", number, "t"] + extra
            if draw(st.integers(0, 9)) == 0:
                fields = fields[:6] if extra else fields + extra
        else:
            fields = [query, "0", item, number]
        lines.append(" ".join(fields))
    return lines


@st.composite
def clean_table_lines(draw):
    header = draw(st.sampled_from(["query,item,score", "item,score,query,other"]))
    names = header.split(",")
    rows = []
    for line in range(draw(st.integers(1, 8))):
        value = {
            "query": draw(st.sampled_from(CLEAN_QUERIES + [" q1", "q1 "])),
            "item": draw(st.sampled_from(CLEAN_ITEMS + ["d 1", " d2"]))
            + draw(st.sampled_from([str(line)] * 3 + [""])),
            "score": draw(st.sampled_from(CLEAN_NUMBERS[:11] + [" 4 ", "\u00a05"])),
            "other": draw(st.sampled_from(["", "z", "\u00e9"])),
        }
        if draw(st.integers(0, 9)) == 0:
            value["score"] = draw(st.sampled_from(CLEAN_NUMBERS))
        rows.append(",".join(value[name] for name in names))
    return [header] + rows


@MUTATION_FUZZ
@given(st.one_of(files(clean_trec_lines(6)), mutated_files(clean_trec_lines(6))))
def test_read_trec_run_paths_agree(made):
    _check_file("run", *made)


@MUTATION_FUZZ
@given(st.one_of(files(clean_trec_lines(4)), mutated_files(clean_trec_lines(4))))
def test_read_trec_qrels_paths_agree(made):
    _check_file("qrels", *made)


@MUTATION_FUZZ
@given(st.one_of(files(clean_table_lines()), mutated_files(clean_table_lines())))
def test_table_reader_paths_agree(made):
    _check_file("table", *made)


# --------------------------------------------------------------------------------------
# The command line's own parsing: random options and values
# --------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def cli_files(tmp_path_factory):
    """Good input files; arguments name them by placeholders such as "<qrels>"."""
    folder = tmp_path_factory.mktemp("cli_fuzz")
    files = {
        "<qrels>": "q1 0 a 1\nq1 0 b 0\nq2 0 c 2\n",
        "<run>": "q1 Q0 a 1 0.5 t\nq1 Q0 b 2 0.9 t\nq2 Q0 c 1 0.1 t\n",
        "<table>": "query,item,score\nq1,a,0.5\nq1,b,0.9\nq2,c,0.1\n",
    }
    paths = {"<folder>": str(folder), "<absent>": str(folder / "absent.txt")}
    for placeholder, text in files.items():
        path = folder / placeholder.strip("<>")
        path.write_text(text)
        paths[placeholder] = str(path)
    return paths


OPTIONS = [
    "--qrels",
    "--run",
    "--truth",
    "--predictions",
    "--example",
    "--query-column",
    "--item-column",
    "--score-column",
    "--relevance-column",
    "-m",
    "--metrics",
    "--convention",
    "--ties",
    "--gain",
    "--ap-denominator",
    "--no-relevant",
    "--relevance-threshold",
    "--short-lists",
    "--log-base",
    "--tie-break",
    "--query-set",
    "--score-dtype",
    "--format",
]
VALUES = [
    "<qrels>",
    "<run>",
    "<table>",
    "<folder>",
    "<absent>",
    "ndcg@10",
    "map,mrr",
    "ndcg@0",
    "ndcg@-1",
    "@",
    ",",
    "",
    "nan",
    "inf",
    "-1",
    "0",
    "1e400",
    "skip",
    "error",
    "trec_eval",
    "stable",
    "exponential",
    "min_k",
    "json",
    "table",
    "query",
    "item",
    "score",
    "float32",
    "both",
    "item_descending",
    "x",
    "-",
]


@FUZZ
@given(
    st.lists(
        st.one_of(st.sampled_from(OPTIONS), st.sampled_from(VALUES), st.text(max_size=6)),
        max_size=8,
    ),
    st.booleans(),
)
def test_command_line_arguments_fuzz(cli_files, arguments, with_files):
    arguments = [cli_files.get(argument, argument) for argument in arguments]
    files = ["--qrels", cli_files["<qrels>"], "--run", cli_files["<run>"]] if with_files else []
    argv = ["evaluate"] + files + arguments
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err), warnings.catch_warnings():
        warnings.simplefilter("error")
        status = main(argv)  # must return, never raise
    assert "Traceback" not in err.getvalue()
    if status == 0:
        # Values printed: a table of finite numbers, or JSON, or the help.
        assert out.getvalue()
        assert "nan" not in out.getvalue().split() or "--per-query" in argv
    else:
        assert status == 2, (argv, status, err.getvalue())
        # One line of ours, or argparse's usage then its error (an argument typed with a
        # newline in it may carry that newline into the message).
        message = err.getvalue()
        assert re.search(r"^sklearn-rank( evaluate)?: error: ", message, re.M), message
        if message.startswith("sklearn-rank: error: ") and "\n" not in "".join(arguments):
            assert message.count("\n") == 1, message
        assert out.getvalue() == ""
