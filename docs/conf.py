"""Sphinx configuration: the user guide (docs/*.md), the API reference generated from the
numpydoc docstrings, and a gallery that runs every script of examples/.

Build: python -m sphinx -W -b html docs docs/_build/html (needs the ``docs`` extra).
"""

import importlib
import importlib.util
import inspect
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # the package of this checkout, not an installed one

import sklearn_rank  # noqa: E402

project = "sklearn_rank"
author = "sklearn_rank developers"
copyright = "sklearn_rank developers"
release = version = sklearn_rank.__version__

extensions = [
    "myst_parser",
    "numpydoc",
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx_gallery.gen_gallery",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
templates_path = ["_templates"]
# update_tables.py is a script that rewrites tables of metrics.md, not a page.
exclude_patterns = ["_build", "update_tables.py"]
html_theme = "alabaster"
html_theme_options = {
    "description": "Ranking metrics per query group, for scikit-learn",
    "page_width": "1240px",  # a 1,280-pixel screen shows the tables whole where they fit
}
html_static_path = ["_static"]
html_css_files = ["wide.css"]  # wide tables and code scroll instead of being cut
html_show_sourcelink = False

# Markdown pages: GitHub-style anchors so that links such as metrics.md#input-forms resolve.
myst_heading_anchors = 3

# API reference: a page per public name, from its numpydoc docstring.
autosummary_generate = True
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False

# Every example runs at build time and its output is shown (all files, not only plot_*).
sphinx_gallery_conf = {
    "examples_dirs": ["../examples"],
    "gallery_dirs": ["auto_examples"],
    "filename_pattern": r".*\.py$",
    "abort_on_example_error": True,
    "download_all_examples": False,
    "write_computation_times": False,
    # Figures, once examples draw them (matplotlib is not part of the docs extra).
    "image_scrapers": ("matplotlib",) if importlib.util.find_spec("matplotlib") else (),
    "reset_modules": ("matplotlib",) if importlib.util.find_spec("matplotlib") else (),
    "capture_repr": (),
}

# --- The API reference page, generated from the package's own list of public names ---------
# Public names: sklearn_rank.__all__ (by the folder that defines each), then the public names
# of the public subpackages that are not re-exported at the top. Generated at every build
# (into docs/reference/, ignored by git), so a new public name needs no edit here.
_INTERNAL = {"conventions", "utils"}  # declarations and helpers of the package itself
_TITLES = {
    "metrics": "Metrics",
    "inputs": "Inputs with item ids",
    "model_selection": "Model selection",
    "datasets": "Datasets",
    "cli": "Command line",
}


def _public_names(module):
    names = getattr(module, "__all__", None)
    if names is None:  # a module without __all__: the functions and classes it defines
        names = [
            name
            for name, value in vars(module).items()
            if not name.startswith("_")
            and (inspect.isfunction(value) or inspect.isclass(value))
            and value.__module__ == module.__name__
        ]
    return sorted(names)


def _reference_sections():
    by_folder = {}
    for name, folder in sklearn_rank._EXPORTS.items():
        by_folder.setdefault(folder, []).append(f"sklearn_rank.{name}")
    for folder in sklearn_rank._SUBPACKAGES:
        if folder in _INTERNAL:
            continue
        module = importlib.import_module(f"sklearn_rank.{folder}")
        for name in _public_names(module):
            if sklearn_rank._EXPORTS.get(name) != folder:
                by_folder.setdefault(folder, []).append(f"sklearn_rank.{folder}.{name}")
    order = [f for f in _TITLES if f in by_folder] + sorted(set(by_folder) - set(_TITLES))
    return [
        (folder, sorted(by_folder[folder], key=lambda n: n.rsplit(".", 1)[1].lower()))
        for folder in order
    ]


def _write_reference():
    lines = [
        "API reference",
        "=============",
        "",
        "Every public name, with its docstring. Names listed as ``sklearn_rank.NAME`` are",
        "importable from the package itself; :doc:`../api` says what each is for.",
        "",
    ]
    sections = _reference_sections()
    for folder, names in sections:
        title = _TITLES.get(folder, folder.replace("_", " ").capitalize())
        lines += [title, "-" * len(title), ""]
        lines += [".. autosummary::", "   :toctree: generated", "   :nosignatures:", ""]
        lines += [f"   {name}" for name in names] + [""]
    target = HERE / "reference" / "index.rst"
    target.parent.mkdir(exist_ok=True)
    text = "\n".join(lines)
    # Rewritten only when it changes, so that an incremental build stays incremental.
    if not target.exists() or target.read_text(encoding="utf-8") != text:
        target.write_text(text, encoding="utf-8")
    # A page generated by an earlier build for a name since moved or removed (a name made
    # public at the root, a deprecated one) would fail the build as outside every toctree.
    listed = {f"{name}.rst" for _folder, names in sections for name in names}
    for page in (target.parent / "generated").glob("*.rst"):
        if page.name not in listed:
            page.unlink()


_write_reference()

# The user guide lists its pages in order (index.md); a page added to docs/ later joins the
# end of that list instead of failing the build as a page outside every toctree.
_GUIDE = re.compile(r"(```\{toctree\}\n(?::[^\n]*\n)*?:caption: User guide\n.*?)(```)", re.S)


def _add_new_pages(app, docname, source):
    if docname != "index":
        return
    match = _GUIDE.search(source[0])
    if match is None:
        return
    listed = {line.strip() for line in source[0].splitlines()}  # in any toctree
    new = "".join(
        f"{p.stem}\n" for p in sorted(HERE.glob("*.md")) if p.stem not in listed | {"index"}
    )
    source[0] = source[0][: match.end(1)] + new + source[0][match.end(1) :]


# Links from the pages to examples/NAME.py (right on GitHub) lead to the gallery's page.
_EXAMPLE_LINK = re.compile(r"\]\(\.\./examples/(\w+)\.py\)")


def _link_examples_to_gallery(app, docname, source):
    source[0] = _EXAMPLE_LINK.sub(r"](auto_examples/\1.rst)", source[0])


def _skip_foreign_members(app, what, name, obj, skip, options):
    # Members a class gets from scikit-learn (set_fit_request...) are documented there, and
    # their docstrings point into scikit-learn's own site.
    module = getattr(obj, "__module__", None) or ""
    if what == "class" and not module.startswith("sklearn_rank"):
        return True
    return None


def setup(app):
    app.connect("autodoc-skip-member", _skip_foreign_members)
    app.connect("source-read", _add_new_pages)
    app.connect("source-read", _link_examples_to_gallery)
