"""Record trec_eval 10.0's output on the random qrels and runs of tests/_random_trec.py.

Run from the repository root: ``python tests/data/trec_eval10/record_random.py
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
sys.path.insert(0, str(HERE.parents[1]))

from _random_trec import RECORDINGS, random_trec  # noqa: E402


def main(binary):
    with tempfile.TemporaryDirectory() as folder:
        for seed, n_queries, missing, options, name in RECORDINGS:
            qrels, run = random_trec(seed, n_queries, missing_topics=missing)
            (Path(folder) / "qrels").write_text(qrels)
            (Path(folder) / "run").write_text(run)
            command = [binary, *options, str(Path(folder) / "qrels"), str(Path(folder) / "run")]
            out = subprocess.run(command, capture_output=True, check=True).stdout
            if name.endswith(".gz"):
                out = gzip.compress(out, mtime=0)
            (HERE / name).write_bytes(out)


if __name__ == "__main__":
    main(sys.argv[1])
