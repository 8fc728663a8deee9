"""The command lines the pages show print what the pages show.

A ``console`` block of a page is a session: ``$ cat FILE`` followed by lines writes that file
(the first time; later, it checks a file a command wrote), ``$ sklearn-rank ...`` runs the
command in the session's folder and compares what it prints (standard output and error,
interleaved) with the lines shown; a shown line ``...`` stands for any lines. A command whose
input files the page does not show whole (``head``) cannot be run and is not counted.
"""

import math
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = ["docs/command_line.md", "docs/compare.md", "README.md"]


def _blocks(text):
    blocks, current = [], None
    for line in text.splitlines():
        if current is None and line.strip() == "```console":
            current = []
        elif current is not None and line.strip() == "```":
            blocks.append(current)
            current = None
        elif current is not None:
            current.append(line)
    return blocks


def _commands(block):
    """(command, shown output lines) pairs, continuation lines joined."""
    steps, command, shown, continued = [], None, [], False
    for line in block:
        if continued:
            command += " " + line.strip().rstrip("\\").strip()
            continued = line.rstrip().endswith("\\")
        elif line.startswith("$ "):
            if command is not None:
                steps.append((command, shown))
            command, shown = line[2:].rstrip().rstrip("\\").strip(), []
            continued = line.rstrip().endswith("\\")
        else:
            shown.append(line)
    if command is not None:
        steps.append((command, shown))
    return steps


_NUMBER = re.compile(r"-?\d+\.\d{6,}(?:e-?\d+)?")


def _same_line(shown, printed):
    """Equal lines; a number printed with every digit (``repr`` of a float) may differ in
    its last digit, as another numpy adds in another order (the lowest supported
    versions): those compare to 1e-14 relative. Printed decimals (``%.4f``) must be equal."""
    if shown == printed:
        return True
    if _NUMBER.sub("#", shown) != _NUMBER.sub("#", printed):
        return False
    pairs = zip(_NUMBER.findall(shown), _NUMBER.findall(printed))
    return all(math.isclose(float(a), float(b), rel_tol=1e-14) for a, b in pairs)


def _matches(shown, printed):
    """Whether ``printed`` lines are ``shown``, ``...`` matching any lines (whitespace
    runs compared as one space)."""
    shown = [" ".join(line.split()) for line in shown]
    printed = [" ".join(line.split()) for line in printed]

    def match(i, j):
        if i == len(shown):
            return j == len(printed)
        if shown[i] == "...":
            return any(match(i + 1, k) for k in range(j, len(printed) + 1))
        return j < len(printed) and _same_line(shown[i], printed[j]) and match(i + 1, j + 1)

    return match(0, 0)


# Files a page's commands read from the repository (named on the page), copied into the
# session's folder first.
PAGE_FILES = {"docs/compare.md": "docs/data"}


def _run_page(page, folder):
    """Run every runnable command of ``page``; return (checked, mismatches)."""
    written, partial, checked, wrong = set(), set(), 0, []
    if page in PAGE_FILES:
        for path in sorted((ROOT / PAGE_FILES[page]).iterdir()):
            (folder / path.name).write_bytes(path.read_bytes())
    environment = {**os.environ, "COLUMNS": "100"}
    for block in _blocks((ROOT / page).read_text(encoding="utf-8")):
        for command, shown in _commands(block):
            words = shlex.split(command)
            if words[0] == "cat" and len(words) == 2:
                path = folder / words[1]
                if words[1] not in written and not path.exists():
                    path.write_text("".join(line + "\n" for line in shown), encoding="utf-8")
                    written.add(words[1])
                else:
                    checked += 1
                    printed = path.read_text(encoding="utf-8").splitlines()
                    if not _matches(shown, printed):
                        wrong.append((command, shown, printed))
                continue
            if words[0] == "head":
                partial.update(words[1:])
                continue
            if words[0] != "sklearn-rank":
                continue
            # Files named on the command line (ids such as P.5,10 have no file suffix).
            inputs = [
                w
                for w in words[1:]
                if not w.startswith("-") and Path(w).suffix and w not in _outputs(words)
            ]
            if any(w in partial or not (folder / w).exists() for w in inputs):
                continue  # its files are not on the page whole: it cannot be run
            done = subprocess.run(
                [sys.executable, "-m", "sklearn_rank", *words[1:]],
                cwd=folder,
                env=environment,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                text=True,
                timeout=300,
            )
            checked += 1
            printed = done.stdout.splitlines()
            if not _matches(shown, printed):
                wrong.append((command, shown, printed))
    return checked, wrong


def _outputs(words):
    """Files a command writes (the argument of --per-query, --plot, -o...)."""
    return {words[i + 1] for i, w in enumerate(words[:-1]) if w in ("--per-query", "--plot", "-o")}


@pytest.mark.slow
@pytest.mark.parametrize("page", ["docs/command_line.md", "docs/compare.md"])
def test_page_commands_print_what_the_page_shows(page, tmp_path):
    checked, wrong = _run_page(page, tmp_path)
    assert checked >= (4 if page == "docs/command_line.md" else 1), checked
    report = "\n\n".join(
        f"$ {command}\nshown:\n" + "\n".join(shown) + "\nprinted:\n" + "\n".join(printed)
        for command, shown, printed in wrong
    )
    assert not wrong, report


def test_the_matcher_catches_a_wrong_value():
    assert _matches(["a", "...", "z 0.0020"], ["a", "b", "c", "z\t0.0020"])
    assert not _matches(["a", "...", "z 0.0025"], ["a", "b", "c", "z 0.0020"])
    assert not _matches(["a"], ["a", "b"])
    assert _matches(["301,0.8597186998521971,1.0"], ["301,0.8597186998521972,1.0"])
    assert not _matches(["301,0.8597186998521971,1.0"], ["301,0.8597186998525,1.0"])
    assert not _matches(["map all 0.0389"], ["map all 0.0390"])
