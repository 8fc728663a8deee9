"""The main job and every example script run and print what they claim; examples and docs
keep to one level of parallelism. (The README's and the docs' code: test_doc_blocks.py.)"""

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _run(args):
    # The examples must finish in under a minute.
    done = subprocess.run(
        [sys.executable, *args], capture_output=True, text=True, timeout=60, cwd=ROOT
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.slow
def test_module_is_the_command():
    """`python -m sklearn_rank` is `sklearn-rank`: the same arguments, the same output."""
    script = Path(sys.executable).with_name("sklearn-rank")
    for args in (["--version"], ["evaluate", "--example", "-m", "ndcg@2", "--format", "json"]):
        module = _run(["-m", "sklearn_rank", *args])
        command = subprocess.run(
            [str(script), *args], capture_output=True, text=True, timeout=60, check=True
        ).stdout
        assert module == command
    assert _run(["-m", "sklearn_rank", "--version"]).startswith("sklearn-rank ")


def test_main_job_prints_hivemall_table():
    # Full precision, to compare with Hivemall's published values.
    out = _run(["-m", "sklearn_rank", "evaluate", "--example", "--precision", "17"])
    rows = {
        line.split("  ")[0].strip(): line.split()[-2:]
        for line in out.splitlines()
        if line.startswith(("Recall", "Precision", "MAP", "AUC", "MRR", "NDCG (binary)", "F1"))
    }
    assert [float(v) for v in rows["Recall"]] == [2 / 3, 1 / 3]
    assert [float(v) for v in rows["AUC (top-k form)"]] == [0.75, 1.0]
    assert float(rows["NDCG (binary)"][0]) == pytest.approx(0.7039180890341349, abs=1e-12)
    graded = dict(re.findall(r"^(NDCG@\d)\s+(\S+)$", out, re.M))
    assert float(graded["NDCG@2"]) == pytest.approx(0.8128912838590544, abs=1e-12)
    # By default 4 decimals, as trec_eval prints: F1@2 is 0.4000, not 0.4000000000000001.
    out = _run(["-m", "sklearn_rank", "evaluate", "--example"])
    f1 = next(line for line in out.splitlines() if line.startswith("F1"))
    assert f1.split()[1:] == ["0.5714", "0.4000"]


EXAMPLES = sorted(p.name for p in (ROOT / "examples").glob("*.py"))


@pytest.mark.slow
@pytest.mark.parametrize("script", EXAMPLES)
def test_example_runs(script):
    out = _run([str(ROOT / "examples" / script)])
    assert out.strip()


@pytest.mark.parametrize("script", EXAMPLES)
def test_example_has_a_gallery_header(script):
    """sphinx-gallery needs a docstring that opens with a title underlined with '='."""
    docstring = ast.get_docstring(ast.parse((ROOT / "examples" / script).read_text()), clean=False)
    assert docstring is not None, script
    title, underline, blank = docstring.lstrip("\n").splitlines()[:3]
    assert title.strip() and set(underline) == {"="} and len(underline) >= len(title), script
    assert not blank.strip(), script
    assert (ROOT / "examples" / "GALLERY_HEADER.rst").is_file()


# Models that start their own threads: LightGBM, XGBoost and CatBoost estimators.
_THREADED_MODEL = re.compile(r"\b((?:LGBM|XGB|CatBoost)\w*)\(")


def _arguments(text, start):
    """The arguments of the call whose opening parenthesis is at ``start - 1``."""
    depth, i = 1, start
    while depth:
        depth += {"(": 1, ")": -1}.get(text[i], 0)
        i += 1
    return text[start : i - 1]


@pytest.mark.parametrize(
    "path",
    ["README.md", *sorted(f"docs/{p.name}" for p in (ROOT / "docs").glob("*.md"))]
    + [f"examples/{name}" for name in EXAMPLES],
)
def test_threaded_models_get_one_thread(path):
    """Every LightGBM, XGBoost or CatBoost model in the docs and examples is made with one
    thread: they run inside searches with n_jobs=2, where a thread per core in each of two
    fits oversubscribes the machine (docs/model_selection.md, "One level of parallelism")."""
    text = (ROOT / path).read_text()
    for match in _THREADED_MODEL.finditer(text):
        arguments = _arguments(text, match.end())
        assert re.search(r"\b(n_jobs|thread_count)=1\b", arguments), (
            f"{path}: {match[1]}({arguments}) must set n_jobs=1 (thread_count=1 for CatBoost)"
        )


def test_example_evaluate_rankings_claims():
    out = _run([str(ROOT / "examples" / "evaluate_rankings.py")])
    assert "Long format, shuffled rows: identical values." in out
