"""Helpers every other folder uses: checks of array arguments, how bad values are shown in
messages, and query/item id handling. Imports nothing from the rest of the package.
Internal: no public name (docs/architecture.md, "Public names")."""

__all__ = []
