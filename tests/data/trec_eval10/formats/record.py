"""Record trec_eval 10.0's output on the random preference files, judgment-group qrels
and runs of tests/_random_prefs.py.

Run from the repository root: ``python tests/data/trec_eval10/formats/record.py
/path/to/trec_eval`` (shared/tools/build-trec-eval prints the binary's path). The tests
regenerate the same files from the same seeds and compare the command line's output with
the recorded bytes; they never run the binary.
"""

import gzip
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[2]))

from _random_prefs import RECORDINGS, random_prefs  # noqa: E402


def main(binary):
    with tempfile.TemporaryDirectory() as folder:
        for seed, n_topics, options, judged, name in RECORDINGS:
            prefs, qrels, qrels_jg, run = random_prefs(seed, n_topics)
            text = {"prefs": prefs, "qrels": qrels, "qrels_jg": qrels_jg}[judged]
            (Path(folder) / "judged").write_text(text)
            (Path(folder) / "run").write_text(run)
            command = [binary, *options, str(Path(folder) / "judged"), str(Path(folder) / "run")]
            out = subprocess.run(command, capture_output=True, check=True).stdout
            if name.endswith(".gz"):
                out = gzip.compress(out, mtime=0)
            (HERE / name).write_bytes(out)


if __name__ == "__main__":
    main(sys.argv[1])
