"""Fixtures for the TUI tests."""

from __future__ import annotations

import pytest


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
