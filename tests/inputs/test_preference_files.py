"""The readers of trec_eval's other relevance formats: read_trec_prefs,
read_trec_qrels_prefs, read_trec_qrels_jg (columns, comments, gzip, clean errors)."""

import gzip

import numpy as np
import pytest

import sklearn_rank as sr


def test_prefs_columns_and_comments(tmp_path):
    path = tmp_path / "prefs.txt"
    path.write_text("# comment\n1 u s1 d1 2.5\n\n1 u s2 d2 0\n")
    prefs = sr.read_trec_prefs(path)
    assert prefs.queries.tolist() == ["1", "1"]
    assert prefs.groups.tolist() == ["u", "u"]
    assert prefs.subgroups.tolist() == ["s1", "s2"]
    assert prefs.items.tolist() == ["d1", "d2"]
    np.testing.assert_array_equal(prefs.levels, [2.5, 0.0])


def test_qrels_prefs_groups_by_the_second_field(tmp_path):
    path = tmp_path / "qrels.gz"
    path.write_bytes(gzip.compress(b"1 0 d1 1\n1 7 d2 0\n"))
    prefs = sr.read_trec_qrels_prefs(path)
    assert prefs.groups.tolist() == ["0", "7"]
    assert prefs.subgroups.tolist() == ["0", "0"]


def test_qrels_jg_grades_are_integers_once_per_group(tmp_path):
    path = tmp_path / "qrels_jg.txt"
    path.write_text("1 a d1 2\n1 b d1 -1\n")
    judgments = sr.read_trec_qrels_jg(path)
    np.testing.assert_array_equal(judgments.levels, [2.0, -1.0])
    path.write_text("1 a d1 2\n1 a d1 1\n")
    with pytest.raises(ValueError, match=r"qrels_jg.txt:2: .*'d1' appears twice"):
        sr.read_trec_qrels_jg(path)
    path.write_text("1 a d1 2.5\n")
    with pytest.raises(ValueError, match=r"qrels_jg.txt:1: "):
        sr.read_trec_qrels_jg(path)


def test_wrong_field_count_names_file_line_and_layout(tmp_path):
    path = tmp_path / "prefs.txt"
    path.write_text("1 u s1 d1 2\n1 u d2 0\n")
    with pytest.raises(ValueError, match=r"prefs.txt:2: expected 5 fields 'qid jg jsg docno"):
        sr.read_trec_prefs(path)
