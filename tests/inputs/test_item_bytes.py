"""Docnos a reader keeps as ASCII bytes: `items` gives str, the join reads the bytes only
where they stand for the same ids as str would, the command line's trec_eval paths keep
them bytes, a caller's own bytes ids are compared as before, and objects pickled before
keep loading."""

import io
import pickle
import sys

import numpy as np
import pytest
from _random_trec import random_trec

import sklearn_rank as sr
from sklearn_rank.cli._main import main
from sklearn_rank.inputs import _fast_files, _tables
from sklearn_rank.inputs._tables import ItemJudgments, ItemRanking, _stored_items


def test_a_callers_bytes_ids_are_compared_as_before():
    """Bytes ids given by the caller are never decoded: non-ASCII bytes join (the exact
    join, few rows), and bytes ids never equal str ids."""
    run = ItemRanking(["q"] * 3, np.array([b"\xe9t\xe9", b"b", b"c"]), [3.0, 2.0, 1.0])
    truth = ItemJudgments(["q", "q"], np.array([b"\xe9t\xe9", b"c"]), [1, 1])
    assert sr.evaluate(truth, run, ["map"]) == {"map": pytest.approx((1 + 2 / 3) / 2)}
    assert run.items.dtype.kind == "S"  # (as given)
    as_str = ItemJudgments(["q", "q"], ["a", "c"], [1, 1])
    as_bytes = ItemRanking(["q"] * 3, np.array([b"a", b"b", b"c"]), [3.0, 2.0, 1.0])
    assert sr.evaluate(as_str, as_bytes, ["map"]) == {"map": 0.0}
    # Ties broken by docno, trec_eval's way: bytes compared as bytes (strcmp), not decoded.
    tied = ItemRanking(["q"] * 3, np.array([b"\xe9t\xe9", b"b", b"c"]), [1.0, 2.0, 1.0])
    got = sr.evaluate(truth, tied, ["map"], convention="trec_eval")
    assert got == {"map": pytest.approx((1 / 2 + 2 / 3) / 2)}  # b, then \xe9t\xe9 > c


def test_objects_pickled_before_ids_could_stay_bytes_still_load():
    """An object pickled by an earlier version holds ``items`` in its dict."""
    ranking = ItemRanking(["1", "1"], ["a", "b"], [1.0, 2.0])
    judgments = ItemJudgments(["1"], ["a"], [1])
    for table in (ranking, judgments):
        state = dict(vars(table))
        state["items"] = state.pop("_items")
        del state["_ascii_items"]
        old = table.__class__.__new__(table.__class__)
        old.__dict__.update(state)  # the layout of an earlier version
        loaded = pickle.loads(pickle.dumps(old))
        assert loaded.items.tolist() == table.items.tolist() and len(loaded) == len(table)
    loaded = pickle.loads(pickle.dumps((judgments, ranking)))
    assert sr.evaluate(*loaded, ["map"]) == sr.evaluate(judgments, ranking, ["map"])


def _files(tmp_path, negative=False):
    qrels, run = random_trec(3, 60)
    if negative:  # some judged documents of negative grade (trec_eval: pooled, not judged)
        qrels = "".join(
            line.replace(" 3\n", " -1\n") if n % 3 == 0 else line
            for n, line in enumerate(qrels.splitlines(keepends=True))
        )
    paths = tmp_path / "qrels.txt", tmp_path / "run.txt"
    for path, text in zip(paths, (qrels, run)):
        path.write_text(text)
    return [str(path) for path in paths]


@pytest.fixture
def decoded(monkeypatch):
    """(class, number of ids) of each item array made str from bytes during the test."""
    made = []
    get = _tables._ItemsAttribute.__get__

    def counted(self, table, owner=None):
        if table is not None and table._ascii_items:
            made.append((type(table).__name__, table._items.size))
        return get(self, table, owner)

    monkeypatch.setattr(_tables._ItemsAttribute, "__get__", counted)
    return made


def _evaluate(args, monkeypatch):
    out = io.StringIO()
    monkeypatch.setattr(sys, "stdout", out)
    monkeypatch.setattr(sys, "stderr", io.StringIO())
    status = main(["evaluate", *args])
    return status, out.getvalue()


@pytest.mark.parametrize(
    "options",
    [
        [],
        ["-q", "-m", "all_trec"],
        ["-q", "-J", "-m", "relstring.20", "-m", "map"],
        ["-M", "10", "-q"],
        ["-c", "-q", "-m", "P.5", "-m", "bpref"],
    ],
    ids=["default", "all_trec", "judged_relstring", "max_docs", "complete"],
)
@pytest.mark.parametrize("negative", [False, True], ids=["grades", "negative_grades"])
def test_trec_eval_paths_keep_docnos_bytes(
    tmp_path, monkeypatch, decoded, file_parser, options, negative
):
    """The command's output read by each reader path (pyarrow's keeps docnos bytes) is the
    output read line by line (docnos str), and no array of every docno of the run or the
    qrels is made str."""
    qrels, run = _files(tmp_path, negative)
    with monkeypatch.context() as line_by_line:
        line_by_line.setattr(_fast_files, "_ENABLED", False)
        expected = _evaluate([*options, qrels, run], line_by_line)
    kind = "S" if file_parser.name == "pyarrow" else "U"
    assert _stored_items(sr.read_trec_run(run)).dtype.kind == kind
    decoded.clear()
    assert _evaluate([*options, qrels, run], monkeypatch) == expected
    # (infAP with documents of negative grade reads every judgment's docno as str.)
    allowed = [("ItemJudgments", len(sr.read_trec_qrels(qrels)))] if negative else []
    assert [made for made in decoded if made not in allowed] == []


@pytest.mark.filterwarnings("ignore:.*have no relevant item:UserWarning")
def test_str_judgments_beside_a_read_run_join_as_bytes(tmp_path, monkeypatch, decoded, file_parser):
    """A small qrels read line by line (str) beside a run read fast (bytes), or judgments
    made of str by the caller: the str side is made bytes (all ASCII), the run stays
    bytes; a non-ASCII str id makes both sides str. Values equal those of str ids (with
    the line-by-line reader alone, every side is str)."""
    qrels_path, run_path = _files(tmp_path)
    with monkeypatch.context() as line_by_line:
        line_by_line.setattr(_fast_files, "_ENABLED", False)
        qrels, str_run = sr.read_trec_qrels(qrels_path), sr.read_trec_run(run_path)
    run = sr.read_trec_run(run_path)  # (the fixture's path)
    kind = "S" if file_parser.name == "pyarrow" else "U"
    assert (_stored_items(run).dtype.kind, _stored_items(qrels).dtype.kind) == (kind, "U")
    names = ["map", "ndcg@10", "P_5"]
    decoded.clear()
    got = sr.evaluate(qrels, run, names, per_query=True)
    assert decoded == [] and _stored_items(run).dtype.kind == kind
    want = sr.evaluate(qrels, str_run, names, per_query=True)
    for name in names:
        np.testing.assert_array_equal(got[name], want[name])
    other = ItemJudgments(
        np.append(qrels.queries, qrels.queries[0]),
        np.append(qrels.items, "é"),
        np.append(qrels.relevance, 1),
    )
    got = sr.evaluate(other, run, names, per_query=True)  # the run made str
    assert decoded == ([("ItemRanking", len(run))] if kind == "S" else [])
    want = sr.evaluate(other, str_run, names, per_query=True)
    for name in names:
        np.testing.assert_array_equal(got[name], want[name])
