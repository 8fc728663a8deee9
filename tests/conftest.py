"""Under CI (CI=true) a skipped test fails the run: CI installs every extra and peer, so a
skip there means a test that did not run, never an extra that is missing."""

import os

import pytest

# The scripts that recorded the peers' values (trec_eval, RecTools) run in their own
# environments; they are data, not tests, and are never collected.
collect_ignore_glob = ["data/*"]


def pytest_sessionfinish(session, exitstatus):
    if os.environ.get("CI", "").lower() not in ("1", "true", "yes"):
        return
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    skipped = len(reporter.stats.get("skipped", [])) if reporter else 0
    if skipped and session.exitstatus == 0:
        reporter.write_line(
            f"CI: {skipped} test(s) skipped; every extra is installed here, so none may skip "
            "(pytest -rs lists them).",
            red=True,
        )
        session.exitstatus = 1


# --------------------------------------------------------------------------------------
# The file readers' two paths
# --------------------------------------------------------------------------------------


def _file_parsers():
    """The readers' paths on this machine: line by line always, pyarrow's CSV reader when
    pyarrow imports (it may not: CI's lowest-versions run has no pyarrow)."""
    from sklearn_rank.inputs._fast_files import _import_pyarrow

    return ["line by line"] + (["pyarrow"] if _import_pyarrow() is not None else [])


FILE_PARSERS = _file_parsers()


class FileParser:
    """The path a test reads files through; ``fast_reads`` counts the files the pyarrow
    path read itself (it hands the others to the line-by-line reader)."""

    def __init__(self, name):
        self.name = name
        self.fast_reads = 0

    def __repr__(self):
        return self.name


@pytest.fixture(params=FILE_PARSERS)
def file_parser(request, monkeypatch):
    """Runs the test once per reader path; the pyarrow path takes files of any size."""
    from sklearn_rank.inputs import _fast_files, _files

    parser = FileParser(request.param)
    if parser.name == "pyarrow":
        monkeypatch.setattr(_fast_files, "_MIN_BYTES", 0)
    else:
        monkeypatch.setattr(_fast_files, "_ENABLED", False)
    for name in ("_fast_trec", "_fast_table"):
        original = getattr(_files, name)

        def counted(*args, _original=original, **kwargs):
            result = _original(*args, **kwargs)
            parser.fast_reads += result is not None
            return result

        monkeypatch.setattr(_files, name, counted)
    return parser
