"""Fixtures for the language-model tests: a live OpenAI-compatible server on 127.0.0.1 and a
URL where nothing answers."""

from __future__ import annotations

import pytest

from harness.llm_server import ChatServer, refused_port

#: a distinctive key: tests grep every file they leave behind for it
SECRET = "sk-test-SECRET-1234"


@pytest.fixture
def llm_server():
    server = ChatServer().start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def refused_url() -> str:
    return f"http://127.0.0.1:{refused_port()}/v1"


@pytest.fixture
def llm_env(tmp_path) -> dict[str, str]:
    """An environment with the secret key and a config home of the test's own (no user file read)."""
    return {"OPENAI_API_KEY": SECRET, "HOME": str(tmp_path / "home"), "XDG_CONFIG_HOME": str(tmp_path / "config")}


def files_holding(root, text: str) -> list[str]:
    """Every file under `root` whose bytes contain `text`."""
    needle = text.encode()
    return [str(p) for p in root.rglob("*") if p.is_file() and needle in p.read_bytes()]
