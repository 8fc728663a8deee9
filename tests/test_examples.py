"""The README's code, the main job and every example script run and print what they claim."""

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _run(args):
    # The examples must finish in under a minute.
    done = subprocess.run(
        [sys.executable, *args], capture_output=True, text=True, timeout=60, cwd=ROOT
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


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


@pytest.mark.parametrize("script", sorted(p.name for p in (ROOT / "examples").glob("*.py")))
def test_example_runs(script):
    out = _run([str(ROOT / "examples" / script)])
    assert out.strip()


def test_example_evaluate_rankings_claims():
    out = _run([str(ROOT / "examples" / "evaluate_rankings.py")])
    assert "Long format, shuffled rows: identical values." in out


def test_readme_python_blocks_run():
    readme = (ROOT / "README.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", readme, re.S)
    assert len(blocks) >= 3
    namespaces = []
    for block in blocks:
        namespace = {}
        exec(compile(block, "README.md", "exec"), namespace)  # noqa: S102
        namespaces.append(namespace)
    first = namespaces[0]
    assert first["ndcg_score"](first["y_true"], first["y_score"], k=2) == pytest.approx(
        0.8710490642551527, abs=1e-12
    )
    search = next(ns["search"] for ns in namespaces if "search" in ns)
    assert set(search.best_params_) == {"estimator__num_leaves"}
