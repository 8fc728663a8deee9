"""scipy.sparse, imported only where a sparse matrix is made: importing it takes ~0.1 s,
a third of a command line's start, and an input cannot be sparse before it is imported
(every sparse class lives in it)."""

import sys


def _issparse(value):
    """``scipy.sparse.issparse(value)``, without importing scipy.sparse."""
    module = sys.modules.get("scipy.sparse")
    return module is not None and module.issparse(value)


def _sparse():
    """The scipy.sparse module (imported on first use)."""
    import scipy.sparse

    return scipy.sparse
