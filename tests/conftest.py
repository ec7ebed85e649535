"""Shared pytest options and fixtures for every test folder."""

import os
from pathlib import Path

import pytest

# Every command a test runs runs in its own process: a session's server (navigator.server) would
# outlive the test and serve the next one's commands from what it keeps. The server's own tests
# switch it on for the commands they run.
os.environ["NAVIGATOR_SERVER"] = "off"

from tests.cli import SMALL_SPMM, InProcess, Navigator
from tests.paths import DATASETS, TESTS


def pytest_addoption(parser):
    parser.addoption("--update-golden", action="store_true", default=False,
                     help="rewrite golden files with the current output instead of comparing")
    parser.addoption("--slow", action="store_true", default=False,
                     help="also run the tests marked slow (minutes each; not part of CI)")


def pytest_collection_modifyitems(config, items):
    # The fuzz harness forks a child per case, which is safe only while the process runs no
    # thread besides the main one; other tests leave some behind (Dask's offload pool, a
    # batch watchdog), so the fuzz tests run first.
    items.sort(key=lambda item: not _is_fuzz_test(item))
    if config.getoption("--slow"):
        return
    skip = pytest.mark.skip(reason="slow: run with --slow")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)


def _is_fuzz_test(item) -> bool:
    return (TESTS / "harness") in Path(str(item.path)).parents


@pytest.fixture(autouse=True)
def _collector_back_after_each_test():
    """A command run in process freezes what it loaded out of the cyclic collector
    (navigator.process.heap): for one command, not for a whole test session, which would keep
    every test's garbage cycles."""
    yield
    import gc

    from navigator.synth.inhabitation import freeze_after_pauses

    freeze_after_pauses(False)
    gc.unfreeze()


@pytest.fixture(scope="session")
def _crash_folder(tmp_path_factory):
    return tmp_path_factory.mktemp("crashes")


@pytest.fixture(scope="session")
def _cache_folder(tmp_path_factory):
    return tmp_path_factory.mktemp("navigator-cache")


@pytest.fixture(autouse=True)
def private_cache(_cache_folder, monkeypatch):
    """Navigator's cache (navigator.workspace.cache) goes to a folder of the test session's, never the
    user's; tests share it, so commands also run on what earlier ones cached."""
    monkeypatch.setenv("NAVIGATOR_CACHE_DIR", str(_cache_folder))
    monkeypatch.delenv("NAVIGATOR_CACHE", raising=False)


@pytest.fixture(autouse=True)
def no_internal_errors(_crash_folder, monkeypatch):
    """Every test runs with crash reports going to a folder of the test session's, and fails
    if Navigator (in process or in a subprocess) reported an internal error during it. Tests
    that provoke one on purpose point NAVIGATOR_CRASH_DIR elsewhere."""
    monkeypatch.setenv("NAVIGATOR_CRASH_DIR", str(_crash_folder))
    yield
    reports = sorted(_crash_folder.iterdir())
    for report in reports:
        text = report.read_text(encoding="utf-8", errors="replace")
        report.unlink()
        pytest.fail(f"navigator reported an internal error during this test:\n{text}")


@pytest.fixture
def golden(request):
    """golden(path, text): compare text with a golden file, or rewrite it under --update-golden."""
    update = request.config.getoption("--update-golden")

    def check(path: Path, text: str) -> None:
        if update or not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            if not update:
                pytest.fail(f"golden file {path} was missing and has been written; rerun the test")
            return
        expected = path.read_text(encoding="utf-8")
        assert text == expected, f"output differs from {path}; rerun with --update-golden if the change is intended"

    return check


@pytest.fixture
def shared_datasets():
    if not DATASETS.is_dir():
        pytest.skip("../shared/datasets is not beside the repository")
    return DATASETS


# -- the command line (tests/cli.py) --------------------------------------------------------


@pytest.fixture
def nav(tmp_path) -> Navigator:
    """Runs `python -m navigator` in a subprocess, in tmp_path."""
    return Navigator(tmp_path)


@pytest.fixture
def cli(tmp_path, capsys, monkeypatch) -> InProcess:
    """Runs navigator.cli.main in this process, with tmp_path as the working directory."""
    return InProcess(tmp_path, capsys, monkeypatch)


@pytest.fixture
def spmm_session(cli) -> Path:
    """A session on spmm with N=2, J=2 (32 schedules) in the test's directory, filled hole by hole
    (--no-forced: no hole is filled for the user)."""
    cli("start", "spmm", *SMALL_SPMM, "--no-forced", ok=True)
    return cli.cwd / ".navigator" / "session.json"
