"""Record trec_eval 10.0's output on the command lines of its Makefile's quicktest.

Run from the repository root: ``python tests/data/trec_eval10/quicktest/record.py
/path/to/trec_eval`` (shared/tools/build-trec-eval prints the binary's path). It reads
``quicktest.txt`` (options, judgments, run, ``>`` output), runs the binary on the unzipped
files and writes each output beside this script (the ``../formats/`` outputs are the ones
tests/data/trec_eval10/formats/record.py's folder already holds; the same binary wrote them).

trec_eval's rbp reads uninitialised stack memory (m_rbp.c: ``min`` and ``max``); under
``-m all_trec`` the stale values left by the measures before it change its rbp lines. Each
``all_trec`` line is therefore recorded a second time with ``-m rbp`` in place of
``-m all_trec`` (``<output>.rbp``), where the stack holds zeros and rbp prints what the
source means.
The tests compare the command line's output with the recorded bytes; they never run the
binary.
"""

import gzip
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent


def quicktest_lines():
    """``(options, judged, run, output)`` for each line of quicktest.txt, paths resolved."""
    lines = []
    for text in (HERE / "quicktest.txt").read_text().splitlines():
        if not text.strip() or text.startswith("#"):
            continue
        command, output = text.split(">")
        *options, judged, run = shlex.split(command)
        # -Z names a file too: the zscores, relative to the same folder
        options = [
            str(HERE.parent / option) if previous == "-Z" else option
            for previous, option in zip(["", *options], options)
        ]
        lines.append((options, HERE.parent / judged, HERE.parent / run, HERE / output.strip()))
    return lines


def _plain(path, folder):
    """The path itself, or an unzipped copy of it in ``folder``: the binary reads no gzip."""
    if path.suffix != ".gz":
        return path
    copy = Path(folder) / path.stem
    copy.write_bytes(gzip.decompress(path.read_bytes()))
    return copy


def rbp_alone(options):
    """The options with ``-m all_trec`` replaced by ``-m rbp``."""
    return ["rbp" if option == "all_trec" else option for option in options]


def main(binary):
    with tempfile.TemporaryDirectory() as folder:
        for options, judged, run, output in quicktest_lines():
            files = [str(_plain(judged, folder)), str(_plain(run, folder))]
            command = [binary, *options, *files]
            output.write_bytes(subprocess.run(command, capture_output=True, check=True).stdout)
            if "all_trec" in options:
                command = [binary, *rbp_alone(options), *files]
                out = subprocess.run(command, capture_output=True, check=True).stdout
                output.with_name(output.name + ".rbp").write_bytes(out)


if __name__ == "__main__":
    main(sys.argv[1])
