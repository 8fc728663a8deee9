"""Every Python block of the README and the user guide runs, and prints what it shows.

The convention of every page: a ```python block is a Python session (doctest form, ``>>>``
and ``...`` prompts), each shown output directly under the statement that prints it. The
blocks of one page run top to bottom in one namespace, as a reader typing them into one
session would. Output is compared as text (whitespace-normalised); where the texts differ,
numbers are compared one by one and floats may differ by 1e-12 relative to their size (the
last bits of a sum can change with the numpy version), every other character must match.
"""

import doctest
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = ["README.md", *sorted(f"docs/{p.name}" for p in (ROOT / "docs").glob("*.md"))]

# A fenced block: its info string and its body. Blocks are indented by 0-3 spaces at most in
# these pages (none is inside a list), so the fences start their lines.
_FENCE = re.compile(r"^```(?P<info>[^\n`]*)\n(?P<body>.*?)^```[ \t]*$", re.M | re.S)
_NUMBER = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?|nan|inf")
FLOAT_RTOL = 1e-12


def python_blocks(page):
    """(line number of the first body line, body) of each ```python block of a page."""
    text = (ROOT / page).read_text(encoding="utf-8")
    return [
        (text.count("\n", 0, match.start("body")) + 1, match["body"])
        for match in _FENCE.finditer(text)
        if match["info"].strip() == "python"
    ]


class _Checker(doctest.OutputChecker):
    def check_output(self, want, got, optionflags):
        if super().check_output(want, got, optionflags):
            return True
        return _same_up_to_float_rounding(want, got)


def _same_up_to_float_rounding(want, got):
    want_numbers, got_numbers = _NUMBER.findall(want), _NUMBER.findall(got)
    if len(want_numbers) != len(got_numbers):
        return False
    if " ".join(_NUMBER.split(want)).split() != " ".join(_NUMBER.split(got)).split():
        return False
    for shown, printed in zip(want_numbers, got_numbers):
        if shown == printed:
            continue
        if not any(c in shown + printed for c in ".eE") or "nan" in shown + printed:
            return False  # integers and nan must match exactly
        a, b = float(shown), float(printed)
        if abs(a - b) > FLOAT_RTOL * max(abs(a), abs(b)):
            return False
    return True


def run_page(page):
    """Run every Python block of a page in one namespace; return the doctest report."""
    parser = doctest.DocTestParser()
    runner = doctest.DocTestRunner(
        checker=_Checker(), optionflags=doctest.NORMALIZE_WHITESPACE, verbose=False
    )
    namespace = {"__name__": "__main__"}
    report = []
    for line, body in python_blocks(page):
        test = parser.get_doctest(body, namespace, f"{page}:{line}", str(ROOT / page), line - 1)
        runner.run(test, out=report.append, clear_globs=False)
        namespace = test.globs  # DocTest ran in a copy: the next block continues from it
    return runner.summarize(verbose=False), "".join(report)


def test_every_page_is_collected():
    # The pages with Python blocks today; a page dropping all of its blocks is a mistake to see.
    with_blocks = {page for page in PAGES if python_blocks(page)}
    assert {
        "README.md",
        "docs/inputs.md",
        "docs/model_selection.md",
        "docs/reproducing_other_tools.md",
    } <= with_blocks


@pytest.mark.parametrize("page", PAGES)
def test_blocks_are_sessions(page):
    """Each Python block shows prompts, so that none is left out of the comparison."""
    for line, body in python_blocks(page):
        first = body.lstrip("\n").splitlines()[0] if body.strip() else ""
        assert first.startswith(">>> "), f"{page}:{line}: a python block must start with '>>> '"
        assert doctest.DocTestParser().get_examples(body), f"{page}:{line}: no example"


_SESSION = """
import json, sys
sys.path.insert(0, sys.argv[1])
from test_doc_blocks import run_page
result, report = run_page(sys.argv[2])
print(json.dumps([result.attempted, result.failed, report]))
"""


@pytest.mark.slow
@pytest.mark.parametrize("page", [p for p in PAGES if python_blocks(p)])
def test_page_prints_what_it_shows(page, tmp_path):
    # Each page in a new Python process, as a reader starts a session (a page may switch on
    # metadata routing globally), in an empty folder (blocks may write files). One OpenMP and
    # BLAS thread: on a machine shared with other work, idle-spinning OpenMP threads slow a
    # HistGradientBoosting fit down tenfold, and the values shown do not depend on it.
    threads = {f"{name}_NUM_THREADS": "1" for name in ("OMP", "OPENBLAS", "MKL")}
    done = subprocess.run(
        [sys.executable, "-c", _SESSION, str(Path(__file__).parent), page],
        cwd=tmp_path,
        env={**os.environ, **threads},
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    attempted, failed, report = json.loads(done.stdout.splitlines()[-1])
    assert attempted > 0
    assert failed == 0, report


def test_a_wrong_value_fails(tmp_path):
    """The comparison catches a wrong shown value, and accepts float rounding only."""
    checker, flags = _Checker(), doctest.NORMALIZE_WHITESPACE
    assert checker.check_output("{'mrr': 0.625}\n", "{'mrr': 0.625}\n", flags)
    assert checker.check_output("0.8333333333333334\n", "0.8333333333333333\n", flags)
    assert checker.check_output("[1, 2]\n", "[1,\n 2]\n", flags)
    assert not checker.check_output("{'mrr': 0.625}\n", "{'mrr': 0.5}\n", flags)
    assert not checker.check_output("[1, 2, 0]\n", "[0, 1, 2]\n", flags)
    assert not checker.check_output("0.8333\n", "0.8333333333333333\n", flags)
    assert not checker.check_output("{'map': 0.5}\n", "{'mrr': 0.5}\n", flags)
    assert not checker.check_output("nan\n", "0.0\n", flags)
    page = tmp_path / "page.md"
    page.write_text(
        "```python\n>>> x = 2\n```\ntext\n```python\n>>> x + 1\n4\n>>> x\n2\n```\n",
        encoding="utf-8",
    )
    result, report = run_page(page)
    assert (result.attempted, result.failed) == (3, 1)
    assert "page.md" in report and "Expected:\n    4\nGot:\n    3" in report


def _git_status():
    try:
        done = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=all"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=60,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout if done.returncode == 0 else None


@pytest.mark.slow
def test_site_builds_without_warnings(tmp_path):
    """The documentation site builds with warnings as errors, has a page for every public
    name, user-guide page and example, and leaves no new file in the tree outside .gitignore.

    The examples are not run here (``plot_gallery=0``): test_examples.py runs each of them,
    and CI builds the full site, which runs them again inside Sphinx.
    """
    for module in ("sphinx", "numpydoc", "sphinx_gallery", "myst_parser"):
        pytest.importorskip(module, reason="the docs extra is not installed")
    import sklearn_rank

    before = _git_status()
    html = tmp_path / "html"
    done = subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-b", "html", "-q"]
        + ["-D", "plot_gallery=0", "-d", str(tmp_path / "doctrees"), "docs", str(html)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    assert "WARNING" not in done.stderr and "ERROR" not in done.stderr, done.stderr
    pages = [f"reference/generated/sklearn_rank.{name}" for name in sklearn_rank.__all__]
    pages += [p.stem for p in (ROOT / "docs").glob("*.md")]
    pages += [f"auto_examples/{p.stem}" for p in (ROOT / "examples").glob("*.py")]
    missing = [page for page in pages if not (html / f"{page}.html").is_file()]
    assert not missing
    index = (html / "index.html").read_text(encoding="utf-8")
    assert all(
        f'href="{p.stem}.html"' in index for p in (ROOT / "docs").glob("*.md") if p.stem != "index"
    )
    assert _git_status() == before
