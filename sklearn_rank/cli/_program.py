"""What the command knows of the process it runs in: whether it is the program (whose
process it may set up) and its standard streams closed at the start."""

import os
import sys


def _is_the_program():
    """Whether this process is the command (``sklearn-rank``, ``python -m sklearn_rank``)."""
    program = sys.modules.get("__main__")
    spec = getattr(program, "__spec__", None)
    name = os.path.basename(getattr(program, "__file__", None) or "")
    return (spec is not None and spec.name == "sklearn_rank.__main__") or name == "sklearn-rank"


class _ClosedStream:
    """Stands for a standard stream that was closed when the command started: takes the
    text and drops it, remembering that some was lost."""

    lost = False

    def write(self, text):
        self.lost = self.lost or bool(text)
        return len(text)

    def flush(self):
        pass

    def isatty(self):
        return False
