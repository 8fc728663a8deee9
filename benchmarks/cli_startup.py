"""Start-up time of the command line: `sklearn-rank --version` and `--help` against a bare
Python and against `import numpy`, in the same run.

The command must answer --version and --help without importing numpy, scipy or
scikit-learn (target: under 0.3 s). Prints the median of several runs of each and the
ratios. Run: python benchmarks/cli_startup.py [--repeat 7]
"""

import argparse
import statistics
import subprocess
import sys
import time

CASES = {
    "python -c pass": [sys.executable, "-c", "pass"],
    "python -c 'import numpy'": [sys.executable, "-c", "import numpy"],
    "sklearn-rank --version": [sys.executable, "-m", "sklearn_rank", "--version"],
    "sklearn-rank --help": [sys.executable, "-m", "sklearn_rank", "--help"],
    "sklearn-rank evaluate --help": [sys.executable, "-m", "sklearn_rank", "evaluate", "--help"],
}


def median_seconds(command, repeat):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run(command, check=True, capture_output=True)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    repeat = parser.parse_args().repeat
    results = {name: median_seconds(command, repeat) for name, command in CASES.items()}
    bare = results["python -c pass"]
    print(f"{'command':<32}{'median s':>10}{'x bare python':>15}")
    for name, seconds in results.items():
        print(f"{name:<32}{seconds:>10.3f}{seconds / bare:>15.1f}")
    version = results["sklearn-rank --version"]
    print(f"\n--version under 0.3 s: {'PASS' if version < 0.3 else 'FAIL'} ({version:.3f} s)")


if __name__ == "__main__":
    main()
