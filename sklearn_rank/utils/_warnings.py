"""Where a warning points: at the user's line, outside sklearn_rank."""

import os
import sys


def _outside_stacklevel():
    """The ``stacklevel`` of the first caller outside sklearn_rank, counted from the
    function that calls `warnings.warn` (a warning points at the user's line)."""
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
    frame, level = sys._getframe(2), 2
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(package):
        frame, level = frame.f_back, level + 1
    return level
