"""Fixtures for the engine tests.

Golden files live in tests/engine/golden; `pytest --update-golden` rewrites them. The root
tests/conftest.py already registers that option and the `golden` fixture; registering it
here as well keeps `pytest tests/engine` working if the root one ever goes away.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from navigator.lang import parse_facts, parse_library

GOLDEN = Path(__file__).parent / "golden"


def pytest_addoption(parser):
    try:
        parser.addoption("--update-golden", action="store_true", default=False,
                         help="rewrite golden files with the current output")
    except ValueError:
        pass  # already registered by tests/conftest.py


@pytest.fixture
def engine_golden(request):
    """engine_golden(name, text): compare with tests/engine/golden/<name>, or rewrite it."""
    update = request.config.getoption("--update-golden", default=False)

    def check(name: str, text: str) -> None:
        path = GOLDEN / name
        if update or not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            if not update:
                pytest.fail(f"golden file {path} was missing and has been written; rerun")
            return
        assert text == path.read_text(encoding="utf-8"), (
            f"output differs from {path}; rerun with --update-golden if intended")

    return check


@pytest.fixture
def problem():
    """problem(library_toml, facts_toml) -> (Library, FactProgram)."""
    def build(library_text: str, facts_text: str):
        library = parse_library(library_text, "test.hblib.toml")
        return library, parse_facts(facts_text, library, "test.hb.toml")
    return build
