"""Convention parameters, declared once, and the presets that reproduce other tools.

Each convention (``ties``, ``gain``, ``ap_denominator``, ``no_relevant``...) is a
`Parameter`: its allowed values, default, documentation, command-line help and its spelling
in other tools. Validation, docstrings, the command line's options and the docs are
generated from these declarations. The measures' own parameters (``p`` of RBP,
``max_grade`` of ERR...) are declared the same way (`MEASURE_PARAMETERS`). Imports only
`sklearn_rank.utils`.
"""

from ._declarations import CONVENTION, CONVENTIONS, PRESETS, Parameter, check_k, resolve
from ._docs import _fill_doc as _fill_doc
from ._measures import MEASURE_PARAMETERS

__all__ = [
    "CONVENTION",
    "CONVENTIONS",
    "MEASURE_PARAMETERS",
    "PRESETS",
    "Parameter",
    "check_k",
    "resolve",
]
