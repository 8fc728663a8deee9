"""How the ``sklearn-rank`` command prints values: the table (4 decimals by default, as
trec_eval prints them), JSON and the per-query file (full precision unless asked),
library warnings in the command's words and the progress of long reads; and the
argparse type of ``-j/--jobs``, which both forms of ``evaluate`` take."""

import argparse
import csv
import json
import math
import os
import re
import sys

# Decimals of the printed table: trec_eval prints "%6.4f"; pandas shows up to 6 (its
# display.precision) and trims zeros. Four, as trec_eval, so that outputs compare by eye.
DEFAULT_PRECISION = 4


def _format_value(value, precision=None):
    """``precision`` decimals, or None: full precision (``repr``, which round-trips)."""
    value = float(value)
    return repr(value) if precision is None else f"{value:.{precision}f}"


def _print_table(results, stream, precision=DEFAULT_PRECISION):
    width = max(len("metric"), *(len(name) for name in results))
    values = {name: _format_value(value, precision) for name, value in results.items()}
    value_width = max(len("value"), *(len(v) for v in values.values()))
    stream.write(f"{'metric':<{width}}  {'value':>{value_width}}\n")
    for name, value in values.items():
        stream.write(f"{name:<{width}}  {value:>{value_width}}\n")


def _print_json(results, stream, precision=None):
    def clean(value):
        value = float(value)
        if math.isnan(value):
            return None
        return value if precision is None else round(value, precision)

    shown = {name: clean(value) for name, value in results.items()}
    stream.write(json.dumps(shown, indent=2, allow_nan=False) + "\n")


def _per_query_ids(truth, run, n_queries, conventions):
    """Query ids in the order of the per-query values."""
    from ..inputs import query_ids

    chosen = {
        name: conventions[name] for name in ("convention", "query_set") if name in conventions
    }
    ids = query_ids(truth, run, **chosen)
    if len(ids) != n_queries:  # pragma: no cover - query_ids and evaluate disagree
        raise ValueError(
            f"cannot name the {n_queries} per-query values: query_ids gives {len(ids)} queries"
        )
    return ids


def _write_per_query(path, truth, run, per_query, query_header, conventions, precision=None):
    import numpy as np

    names = list(per_query)
    n_queries = len(per_query[names[0]])
    ids = _per_query_ids(truth, run, n_queries, conventions)
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow([query_header, *names])
        columns = [np.asarray(per_query[name], dtype=np.float64) for name in names]
        for row, query in enumerate(ids):
            writer.writerow([query, *(_format_value(column[row], precision) for column in columns)])


def _as_options(message):
    """A library warning in the command's words: no_relevant='skip' is --no-relevant skip."""
    return re.sub(
        r"\b([a-z_]+)=(?:'([^']*)'|([0-9.]+))",
        lambda m: f"--{m.group(1).replace('_', '-')} {m.group(2) or m.group(3)}",
        message,
    )


def _warn(message):
    """One warning line on stderr, in the command's name."""
    sys.stderr.write(f"sklearn-rank: warning: {message}\n")


class _Progress:
    """Progress of long reads on stderr, only when stderr is a terminal."""

    def __init__(self, stream):
        self.stream = stream
        try:
            self.enabled = bool(stream.isatty())
        except (AttributeError, ValueError, OSError):
            self.enabled = False
        self.shown = False

    def reading(self, path):
        """A callback for the readers: ``callback(lines, done=False)``."""
        if not self.enabled:
            return None
        name = os.path.basename(os.fspath(path))

        def callback(lines, done=False):
            if done and not self.shown:
                return  # a short file: nothing was shown, nothing to finish
            self.shown = True
            end = ", done\n" if done else ""
            self.stream.write(f"\rreading {name}: {lines:,} lines{end}")
            self.stream.flush()
            if done:
                self.shown = False

        return callback

    def note(self, message):
        if self.enabled:
            self.stream.write(message)
            self.stream.flush()
            self.shown = True

    def clear(self):
        if self.enabled and self.shown:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
            self.shown = False


def _jobs(text):
    from ..utils._threads import _check_n_jobs

    try:
        number = int(text)
        _check_n_jobs(number)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"must be a positive number of threads, or -1 for every core; got {text!r}"
        ) from None
    return number
