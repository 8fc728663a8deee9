"""Convention parameters, declared once, and the presets that reproduce other tools.

Each convention (``ties``, ``gain``, ``ap_denominator``, ``no_relevant``...) is a
`Parameter`: its allowed values, default, documentation, command-line help and its spelling
in other tools. Validation, docstrings, the command line's options and the docs are
generated from these declarations. Imports only `sklearn_rank.utils`.

Internal: users meet the conventions as the ``convention=`` and convention keywords of the
public functions, documented in docs/metrics.md (a table generated from here). The package
reads the declarations from `._declarations`; the names this namespace exported before 0.2
(``CONVENTIONS``, ``resolve``...) are deprecated aliases of its private names.
The measures' own parameters (``p`` of RBP, ``max_grade`` of ERR...) are declared the
same way (`_measures.MEASURE_PARAMETERS`).
"""

import sys
import warnings

from . import _declarations
from ._docs import _fill_doc as _fill_doc

__all__ = []

_CONVENTION = _declarations.CONVENTION
_CONVENTIONS = _declarations.CONVENTIONS
_PRESETS = _declarations.PRESETS
_Parameter = _declarations.Parameter
_check_k = _declarations.check_k
_resolve = _declarations.resolve

# The names this namespace exported before 0.2 -> their private names here.
_DEPRECATED = {
    "CONVENTION": "_CONVENTION",
    "CONVENTIONS": "_CONVENTIONS",
    "PRESETS": "_PRESETS",
    "Parameter": "_Parameter",
    "check_k": "_check_k",
    "resolve": "_resolve",
}


def __getattr__(name):
    if name not in _DEPRECATED:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    if not _asked_from_the_package():
        warnings.warn(
            f"sklearn_rank.conventions.{name} is deprecated in version 0.2 and will be "
            f"removed in 0.4: the conventions' declarations are internal. Pass conventions "
            f"as keywords of the metric functions (docs/metrics.md lists them).",
            FutureWarning,
            stacklevel=2,
        )
    return globals()[_DEPRECATED[name]]


def _asked_from_the_package():
    """Whether the old name is read by a module of this package (or by the import system,
    which also reads each name of a ``from ... import``, just before the importer does).

    Such modules get no warning: a module of another branch may still import the old name
    (metrics/_curves.py did when these names went private), and a user must never see a
    warning about the package's own code. tests/test_public_names.py lists the modules
    that still do.
    """
    caller = sys._getframe(2).f_globals.get("__name__", "")
    return caller.startswith(("sklearn_rank.", "importlib."))
