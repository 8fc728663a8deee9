"""The layout of docs/architecture.md holds: no import cycle, imports flow one way, no module
over 600 lines, and every public name stays where users import it from."""

import ast
import subprocess
import sys
import types
from pathlib import Path

import pytest

import sklearn_rank

PACKAGE = Path(sklearn_rank.__file__).resolve().parent
ROOT = PACKAGE.parent

# What each folder (or leaf module) of the package may import, as docs/architecture.md states.
ALLOWED = {
    "_version": set(),
    "datasets": set(),
    "utils": set(),
    "conventions": {"utils"},
    "inputs": {"utils", "conventions"},
    "metrics": {"utils", "conventions", "inputs"},
    "model_selection": {"utils", "conventions", "inputs", "metrics"},
    "comparison": {"utils", "conventions", "inputs", "metrics", "model_selection"},
    "plot": {"utils", "conventions", "inputs", "metrics", "model_selection", "comparison"},
    "integrations": {"utils", "conventions", "inputs", "metrics", "model_selection"},
    "distributed": {"utils", "conventions", "inputs", "metrics"},
    "cli": {
        "utils",
        "conventions",
        "inputs",
        "metrics",
        "model_selection",
        "comparison",
        "plot",
        "integrations",
        "distributed",
        "datasets",
        "_version",
    },
}
TOP = {"__init__", "__main__"}  # the package's entry points may import anything

# Every name importable from sklearn_rank before the layout moved into folders.
PUBLIC_NAMES = [
    "GroupedGridSearchCV",
    "GroupedRandomizedSearchCV",
    "ItemJudgments",
    "ItemRanking",
    "QueryGroupRanker",
    "RankingScorer",
    "average_relative_position",
    "cg_score",
    "dcg_score",
    "evaluate",
    "f1_at_k_score",
    "get_metric_names",
    "get_scorer",
    "get_scorer_names",
    "grouped_cross_validate",
    "hit_rate_score",
    "kendall_tau_score",
    "make_ranking_scorer",
    "mean_average_precision_score",
    "mean_reciprocal_rank_score",
    "ndcg_score",
    "precision_at_k_score",
    "query_ids",
    "read_trec_qrels",
    "read_trec_run",
    "ranking_auc_score",
    "recall_at_k_score",
]
METRIC_FUNCTIONS = [
    "average_relative_position",
    "cg_score",
    "dcg_score",
    "f1_at_k_score",
    "hit_rate_score",
    "kendall_tau_score",
    "mean_average_precision_score",
    "mean_reciprocal_rank_score",
    "ndcg_score",
    "precision_at_k_score",
    "ranking_auc_score",
    "recall_at_k_score",
]
MODEL_SELECTION = [
    "GroupedGridSearchCV",
    "GroupedRandomizedSearchCV",
    "QueryGroupRanker",
    "RankingScorer",
    "get_scorer",
    "get_scorer_names",
    "grouped_cross_validate",
    "make_ranking_scorer",
]


def _modules():
    """Dotted name -> path of every module of the package."""
    modules = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        modules[".".join(parts)] = path
    return modules


def _is_package(name, modules):
    return modules[name].name == "__init__.py"


def _imports(name, path, modules):
    """Internal modules imported anywhere in a module, including inside functions."""
    package = name if _is_package(name, modules) else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module
            # `from . import x` imports module x when it is one.
            targets = [
                f"{module}.{a.name}" if f"{module}.{a.name}" in modules else module
                for a in node.names
            ]
        else:
            continue
        found.update(t for t in targets if t in modules)
    return found


def _area(name):
    parts = name.split(".")
    return "__init__" if len(parts) == 1 else parts[1]


def _graph():
    modules = _modules()
    graph = {}
    for name, path in modules.items():
        edges = set()
        for target in _imports(name, path, modules):
            edges.add(target)
            # Importing a module of another folder runs that folder's __init__ first.
            parent = target.rpartition(".")[0]
            if parent != "sklearn_rank" and _area(parent) != _area(name) and parent in modules:
                edges.add(parent)
        edges.discard(name)
        graph[name] = edges
    return graph


def _cycle(graph):
    """One import cycle as a list of modules, or None. A module may import its own
    package's __init__ (Python has started running it already)."""
    state = {}
    stack = []

    def visit(node):
        state[node] = "open"
        stack.append(node)
        for target in sorted(graph[node]):
            if target == node.rpartition(".")[0]:
                continue
            if state.get(target) == "open":
                return stack[stack.index(target) :] + [target]
            if target not in state:
                found = visit(target)
                if found:
                    return found
        stack.pop()
        state[node] = "done"
        return None

    for node in sorted(graph):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return None


def test_no_import_cycle():
    graph = _graph()
    assert len(graph) > 20
    assert _cycle(graph) is None, " -> ".join(_cycle(graph))


def test_cycle_detector_finds_a_cycle():
    graph = {"sklearn_rank.a.x": {"sklearn_rank.b.y"}, "sklearn_rank.b.y": {"sklearn_rank.a.x"}}
    assert _cycle(graph) == ["sklearn_rank.a.x", "sklearn_rank.b.y", "sklearn_rank.a.x"]


def test_imports_follow_the_documented_direction():
    page = (ROOT / "docs" / "architecture.md").read_text()
    wrong = []
    for name, targets in _graph().items():
        area = _area(name)
        if area in TOP:
            continue
        assert area in ALLOWED, f"{name}: folder {area!r} is not in docs/architecture.md"
        assert f"`{area}" in page, f"docs/architecture.md does not describe {area!r}"
        for target in targets:
            other = _area(target)
            if other != area and other not in ALLOWED[area]:
                wrong.append(f"{name} imports {target}")
    assert not wrong, "\n".join(wrong)


# The seam: above `metrics`, callers compute through `metrics._plan` (one plan per call
# site) and prepare inputs through `inputs._prepared`; the pipeline's stages are private.
PIPELINE_STAGES = "sklearn_rank.metrics._evaluate"


def test_nothing_above_metrics_reaches_into_the_pipeline_stages():
    wrong = [
        f"{name} imports {PIPELINE_STAGES}"
        for name, targets in _graph().items()
        if _area(name) not in ("metrics", "__init__") and PIPELINE_STAGES in targets
    ]
    assert not wrong, "\n".join(wrong)


def test_only_inputs_builds_the_query_structure():
    builders = []
    for name, path in _modules().items():
        if _area(name) == "inputs":
            continue
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "_Queries":
                builders.append(f"{name}:{node.lineno}")
    assert not builders, "_Queries built outside inputs/: " + ", ".join(builders)


def test_deferred_imports_are_seen():
    # cli/_main.py imports the metrics inside functions only: the walk must still see it.
    modules = _modules()
    found = _imports("sklearn_rank.cli._main", modules["sklearn_rank.cli._main"], modules)
    assert "sklearn_rank.metrics" in found


@pytest.mark.parametrize("name", sorted(_modules()))
def test_no_module_over_600_lines(name):
    lines = _modules()[name].read_text().count("\n")
    assert lines <= 600, f"{name} has {lines} lines"


@pytest.mark.parametrize("name", PUBLIC_NAMES)
def test_public_name_did_not_move(name):
    namespace = {}
    exec(f"from sklearn_rank import {name}", namespace)  # noqa: S102
    assert namespace[name] is getattr(sklearn_rank, name)
    assert name in sklearn_rank.__all__
    assert name in dir(sklearn_rank)


def test_namespaces_as_in_scikit_learn():
    import sklearn_rank.metrics as metrics
    import sklearn_rank.model_selection as model_selection

    for name in METRIC_FUNCTIONS + ["evaluate", "get_metric_names"]:
        assert getattr(metrics, name) is getattr(sklearn_rank, name)
        assert name in metrics.__all__
    for name in MODEL_SELECTION:
        assert getattr(model_selection, name) is getattr(sklearn_rank, name)
        assert name in model_selection.__all__
    from sklearn_rank.datasets import make_ranking

    assert callable(make_ranking)
    assert isinstance(sklearn_rank.__version__, str)


def test_unknown_attribute_is_an_attribute_error():
    with pytest.raises(AttributeError, match="no attribute 'ndcg'"):
        sklearn_rank.ndcg  # noqa: B018


def test_import_loads_no_dependency():
    """`import sklearn_rank` loads neither scikit-learn, scipy nor any optional extra."""
    code = (
        "import sys, sklearn_rank; "
        "print(sorted(m for m in ('sklearn', 'scipy', 'numpy', 'matplotlib', 'pandas', "
        "'dask', 'pyspark', 'lightgbm', 'pyarrow') if m in sys.modules))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT
    )
    assert done.stdout.strip() == "[]"


def test_the_metrics_and_the_trec_eval_form_import_no_scipy():
    """`evaluate` and the command line's trec_eval form need scipy only where a sparse
    matrix, a tie-averaged count or a statistic is computed: importing them starts the
    command line about 0.1 s sooner without it."""
    code = (
        "import sys, sklearn_rank.metrics, sklearn_rank.cli._trec, sklearn_rank.inputs._files; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('scipy', 'sklearn', 'joblib')))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT
    )
    assert done.stdout.strip() == "[]"


def test_each_convention_is_declared_once():
    """A convention's allowed values are written in its declaration only; everything else
    (checks, docstrings, command-line options, the docs table) is generated from it."""
    from sklearn_rank.conventions._declarations import CONVENTIONS

    declarations = PACKAGE / "conventions" / "_declarations.py"
    for parameter in CONVENTIONS.values():
        if parameter.choices is None:
            continue
        spellings = {", ".join(f"{q}{c}{q}" for c in parameter.choices) for q in "\"'"}
        for path in PACKAGE.rglob("*.py"):
            if path == declarations:
                continue
            text = path.read_text()
            assert not any(s in text for s in spellings), (parameter.name, path)


def test_the_package_is_a_plain_module_and_compare_the_function():
    """Issue 26: no module class of the package's own; the folder `comparison` does not
    share its name with the function `compare`, so loading it leaves the function in place."""
    code = (
        "import sys, types, sklearn_rank\n"
        "assert type(sys.modules['sklearn_rank']) is types.ModuleType\n"
        "before = sklearn_rank.compare\n"
        "import sklearn_rank.comparison, sklearn_rank.comparison._align\n"
        "from sklearn_rank.comparison import compare\n"
        "assert sklearn_rank.compare is before is compare\n"
        "assert compare.__module__ == 'sklearn_rank.comparison._compare'\n"
        "assert sklearn_rank.comparison is sys.modules['sklearn_rank.comparison']\n"
        "assert type(sys.modules['sklearn_rank']) is types.ModuleType\n"
        "print('ok')\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"


def test_compare_is_the_function_after_the_folder_is_imported():
    import sklearn_rank.comparison

    assert callable(sklearn_rank.compare) and sklearn_rank.compare.__name__ == "compare"
    assert sklearn_rank.compare is sklearn_rank.comparison.compare
    assert type(sys.modules["sklearn_rank"]) is types.ModuleType


def test_no_public_name_is_also_a_module_of_the_package():
    # Importing sklearn_rank.<folder> sets the package's attribute <folder> to the folder:
    # a public name spelled as a folder or module would be replaced by it.
    modules = {name.split(".")[1] for name in _modules() if name.count(".") >= 1}
    assert not modules & set(sklearn_rank._EXPORTS)
    assert set(sklearn_rank._SUBPACKAGES) <= modules


def test_version_is_one_and_deprecations_name_it_or_an_earlier_one():
    import re

    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert sklearn_rank.__version__ == project["version"]
    current = tuple(int(part) for part in sklearn_rank.__version__.split(".")[:2])
    named = set()
    for path in PACKAGE.rglob("*.py"):
        named.update(re.findall(r"deprecated in (?:version )?(\d+)\.(\d+)", path.read_text()))
    assert named  # the check reads the messages
    # A deprecation "in 0.2" said by version 0.1.0 announced a release that had not begun.
    assert all((int(major), int(minor)) <= current for major, minor in named), named


# --------------------------------------------------------------------------------------
# The tests mirror the package (tests/README.md)
# --------------------------------------------------------------------------------------

TESTS = Path(__file__).resolve().parent


def _package_folders():
    """The package's folders as they are on disk next to tests/, so that a renamed or a new
    folder is checked without editing this file."""
    source = TESTS.parent / "sklearn_rank"
    return sorted(p.name for p in source.iterdir() if (p / "__init__.py").is_file())


def test_package_folders_are_found():
    assert {"metrics", "inputs", "cli"} <= set(_package_folders())


@pytest.mark.parametrize("folder", _package_folders())
def test_each_package_folder_has_a_tests_folder(folder):
    tests = TESTS / folder
    assert sorted(tests.glob("test_*.py")), f"no tests/{tests.name}/test_*.py for {folder}/"
    readme = (TESTS / "README.md").read_text(encoding="utf-8")
    assert f"tests/{tests.name}/" in readme, f"tests/README.md does not describe {tests.name}/"


def _is_slow(node):
    """Whether a decorator or a module-level ``pytestmark`` value is (or lists) the slow mark."""
    return "pytest.mark.slow" in ast.unparse(node)


def _quick_tests(path):
    """The test functions of a file that ``pytest -m "not slow"`` runs."""
    module = ast.parse(path.read_text(encoding="utf-8"))
    for node in module.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "pytestmark" for t in node.targets
        ):
            if _is_slow(node.value):
                return []
    return [
        node.name
        for node in module.body
        if isinstance(node, ast.FunctionDef)
        and node.name.startswith("test_")
        and not any(_is_slow(d) for d in node.decorator_list)
    ]


@pytest.mark.parametrize("folder", _package_folders())
def test_the_quick_subset_runs_every_tests_folder(folder):
    tests = TESTS / folder
    quick = [name for path in sorted(tests.glob("test_*.py")) for name in _quick_tests(path)]
    assert quick, f"pytest -m 'not slow' runs nothing of tests/{tests.name}/"


def test_slow_marks_are_seen(tmp_path):
    marked = tmp_path / "test_marked.py"
    marked.write_text("@pytest.mark.slow\ndef test_a():\n    pass\n\n\ndef test_b():\n    pass\n")
    whole = tmp_path / "test_whole.py"
    whole.write_text("pytestmark = [pytest.mark.slow]\n\n\ndef test_c():\n    pass\n")
    assert _quick_tests(marked) == ["test_b"]
    assert _quick_tests(whole) == []


def test_readme_names_every_test_file():
    readme = (TESTS / "README.md").read_text(encoding="utf-8")
    unnamed = [
        str(path.relative_to(TESTS))
        for path in sorted(TESTS.glob("*/test_*.py"))
        if f"`{path.name}`" not in readme
    ]
    assert not unnamed, f"tests/README.md names no {unnamed}"


def test_test_file_names_are_unique():
    # The test folders are not packages (no __init__.py): pytest imports each test file by
    # its bare name, so two files of one name in two folders would collide.
    names = [path.name for path in TESTS.rglob("test_*.py")]
    assert len(names) == len(set(names)), sorted(n for n in names if names.count(n) > 1)
    assert not list(TESTS.rglob("__init__.py"))
