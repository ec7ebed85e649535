"""The layers of docs/architecture.md hold: import-linter checks every contract in pyproject.toml
(the layers, the engine's and the navigation's boundaries, who may import Textual, openai and the
simulator, and no import cycle among first-party modules)."""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

from importlinter.cli import lint_imports

REPO = Path(__file__).resolve().parents[1]


def test_every_import_contract_holds(monkeypatch):
    monkeypatch.chdir(REPO)
    report = io.StringIO()
    with contextlib.redirect_stdout(report):
        code = lint_imports(config_filename=str(REPO / "pyproject.toml"), no_cache=True, no_logo=True)
    assert code == 0, report.getvalue()
    assert "BROKEN" not in report.getvalue() and "KEPT" in report.getvalue()
