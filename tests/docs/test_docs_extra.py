"""The docs extra alone builds the site (CI builds it in a virtual environment holding only
``pip install ".[docs]"``): every package the gallery's examples import is in it, or is a
runtime dependency of the library."""

import ast
import re
from pathlib import Path

import pytest

tomllib = pytest.importorskip("tomllib")  # Python 3.11+

ROOT = Path(__file__).resolve().parents[2]
# Import names of distributions whose import name differs from the distribution's.
IMPORT_NAMES = {
    "scikit-learn": "sklearn",
    "sklearn-rank": "sklearn_rank",
    "myst-parser": "myst_parser",
}


def _distributions(requirements):
    names = set()
    for requirement in requirements:
        name = re.split(r"[<>=!~\[; ]", requirement, maxsplit=1)[0].strip().lower()
        names.add(IMPORT_NAMES.get(name, name.replace("-", "_")))
    return names


def test_the_docs_extra_holds_what_the_examples_import():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    available = _distributions(project["dependencies"]) | _distributions(
        project["optional-dependencies"]["docs"]
    )
    available |= {"sklearn_rank"}
    imported = set()
    for example in sorted((ROOT / "examples").glob("*.py")):
        for node in ast.walk(ast.parse(example.read_text(), str(example))):
            if isinstance(node, ast.Import):
                imported.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                imported.add(node.module.split(".")[0])
    third_party = {name for name in imported if name not in _standard_library()}
    assert {"matplotlib", "lightgbm"} <= third_party  # what the gallery needs today
    assert third_party <= available, third_party - available


def _standard_library():
    import sys

    return set(sys.stdlib_module_names)


def test_the_readme_names_every_example_once():
    readme = (ROOT / "README.md").read_text()
    line = next(line for line in readme.splitlines() if "[examples/](examples/)" in line)
    start = readme.index(line)
    entry = readme[start : readme.index("\n- ", start + 1)]
    named = re.findall(r"`([a-z_]+\.py)`", entry)
    assert sorted(named) == sorted(p.name for p in (ROOT / "examples").glob("*.py"))


def _gallery_text(path):
    """The lines of an example that the gallery renders as reStructuredText: its docstring
    and the comment lines of its ``# %%`` cells."""
    lines, text, in_docstring, in_cell = path.read_text().splitlines(), [], None, False
    for line in lines:
        if in_docstring is None and line.startswith('"""'):
            in_docstring = True
            continue
        if in_docstring and line.startswith('"""'):
            in_docstring = False
            continue
        if in_docstring:
            text.append(line)
        in_cell = line.startswith("# %%") or (in_cell and line.startswith("#"))
        if in_cell and not line.startswith("# %%"):
            text.append(line)
    return text


def test_gallery_text_has_no_bare_metric_at_k():
    # reStructuredText reads NDCG@10 as an e-mail address: the gallery made it a mailto: link.
    bare = re.compile(r"(?<![`\w])[A-Za-z]+@\d+(?![`\w])")
    found = [
        f"{path.name}: {line.strip()}"
        for path in sorted((ROOT / "examples").glob("*.py"))
        for line in _gallery_text(path)
        if bare.search(line)
    ]
    assert not found, found


def test_nothing_points_to_a_file_outside_the_repository():
    # Pages and docstrings once sent readers to shared/spec/..., which users do not have.
    texts = [*sorted((ROOT / "docs").glob("*.md")), ROOT / "README.md"]
    texts += sorted((ROOT / "sklearn_rank").rglob("*.py"))
    pointing = [str(path.relative_to(ROOT)) for path in texts if "shared/spec" in path.read_text()]
    assert not pointing, pointing


def test_the_site_puts_the_architecture_page_under_contributors():
    index = (ROOT / "docs" / "index.md").read_text()
    toctrees = re.findall(r"```\{toctree\}\n(.*?)```", index, flags=re.S)
    captions = {
        re.search(r":caption: (.*)", tree).group(1): re.findall(r"^(\w+)$", tree, flags=re.M)
        for tree in toctrees
    }
    assert captions["For contributors"] == ["architecture"]
    assert "architecture" not in captions["User guide"]
    guide = {p.stem for p in (ROOT / "docs").glob("*.md")} - {"index", "architecture"}
    assert set(captions["User guide"]) == guide  # every page listed, in the page's order


def test_the_readme_says_what_the_tests_cost_and_names_the_quick_subset():
    tests = (ROOT / "README.md").read_text().split("## Tests", 1)[1]
    assert 'python -m pytest -m "not\nslow"' in tests or 'python -m pytest -m "not slow"' in tests
    assert re.search(r"about [\d.]+ GB", tests) and re.search(r"\d+ minutes", tests)
