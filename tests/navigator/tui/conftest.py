"""Fixtures for the TUI tests."""

from __future__ import annotations

import pytest

from harness.fake_model import best_answer
from harness.llm_server import Behaviour
from tests.navigator.llm.conftest import SECRET, llm_server  # noqa: F401 (fixture)


@pytest.fixture
def here(tmp_path, monkeypatch):
    """A working directory of its own: colours on, no model configured, no user config read."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CONFIG_HOME", "config")  # relative: an error that names it reads the same everywhere
    for name in ("OPENAI_BASE_URL", "NAVIGATOR_LLM_MODEL", "NAVIGATOR_CONFIG", "OPENAI_API_KEY",
                 "NAVIGATOR_SESSION", "NO_COLOR"):
        monkeypatch.delenv(name, raising=False)
    return tmp_path


@pytest.fixture
def model(llm_server, monkeypatch):  # noqa: F811
    """A deterministic fake model on 127.0.0.1 that answers from the menus in the prompt,
    configured by environment as a user would."""
    llm_server.responder = lambda request: Behaviour(content=best_answer(request))
    monkeypatch.setenv("OPENAI_BASE_URL", llm_server.url)
    monkeypatch.setenv("NAVIGATOR_LLM_MODEL", "fake")
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    return llm_server


@pytest.fixture
def cli_in(capsys):
    """Run a CLI command in this process (in the current directory); returns its stdout, asserting exit 0."""
    from navigator.cli import main

    def run(*args: str) -> str:
        capsys.readouterr()
        code = main(list(args))
        out, err = capsys.readouterr()
        assert code == 0, (args, out, err)
        return out

    return run
