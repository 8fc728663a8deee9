"""The trec_eval form's reading path: the run tag read from the run's end is the one a
reading of every line finds (the gzip file of the same text is read line by line)."""

import gzip

import pytest

from sklearn_rank.cli import _trec

LINES = [
    "301 Q0 d1 1 2.5 first\n",
    "301 Q0 d2 2 1.5 second\n",
]
ENDINGS = [
    "",
    "\n",
    "\n\n   \n",
    "# a comment\n",
    "  # an indented comment\r\n\r\n",
    "301 Q0 d3 3 0.5\n",  # no tag: ""
    "\x0c302 Q0 d4 1 0.1 form-feed\r",
    "303 Q0 é€😀 1 0.1 ünïcode\n# ✓\n",
    "304 Q0 d5 1 0.1 tag extra fields\r\n",
    "305\x1cQ0 d6 1 0.1 separator\n",
]


@pytest.mark.parametrize("ending", ENDINGS)
@pytest.mark.parametrize("tail", [3, 7, 1 << 16])
@pytest.mark.parametrize("newline", ["\n", "\r", "\r\n"])
def test_run_tag_from_the_end_is_that_of_every_line(tmp_path, monkeypatch, ending, tail, newline):
    monkeypatch.setattr(_trec, "_TAIL", tail)
    text = "".join(line.replace("\n", newline) for line in LINES) + ending
    plain, packed = tmp_path / "run.txt", tmp_path / "run.txt.gz"
    plain.write_bytes(b"\xef\xbb\xbf" + text.encode())
    packed.write_bytes(gzip.compress(text.encode()))
    expected = _trec._run_tag(str(packed))  # gzip: every line is read
    assert _trec._run_tag(str(plain)) == expected
    fields = [
        line.split()
        for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
        if line.strip() and not line.lstrip().startswith("#")
    ]
    assert expected == (fields[-1][5] if len(fields[-1]) > 5 else "")


@pytest.mark.parametrize("text", ["", "\n\n", "# only a comment\n", "\xef\xbb\xbf"])
def test_run_without_a_data_line_has_no_tag(tmp_path, text):
    path = tmp_path / "run.txt"
    path.write_text(text, encoding="latin-1")
    assert _trec._run_tag(str(path)) == ""
