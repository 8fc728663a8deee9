"""The ``sklearn-rank`` command (`main`). Imports any other folder, lazily, so that
``sklearn-rank --version`` and ``--help`` start fast; nothing imports it but the package's
entry points."""

from ._main import main

__all__ = ["main"]
