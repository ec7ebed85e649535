"""The last resort: an unexpected exception is a one-line bug report and a crash file."""

from __future__ import annotations

import subprocess
import sys

import pytest


def test_an_internal_error_is_one_line_and_a_crash_file(cli, tmp_path, monkeypatch):
    import navigator.commands.compiler as compiler

    crashes = tmp_path / "crashes"
    monkeypatch.setenv("NAVIGATOR_CRASH_DIR", str(crashes))

    def broken(args):
        return {}["fusion"]

    monkeypatch.setattr(compiler, "cmd_programs", broken)
    result = cli("programs")
    assert result.returncode == 1 and result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("navigator: internal error (a bug in navigator, not in your input): KeyError: 'fusion'")
    [report] = list(crashes.iterdir())
    assert str(report) in lines[0]
    text = report.read_text()
    assert "Traceback" in text and "broken" in text and "command: navigator 'programs'" in text


@pytest.mark.parametrize("error", [RecursionError, MemoryError, ZeroDivisionError, OverflowError])
def test_every_kind_of_unexpected_error_is_caught(cli, tmp_path, monkeypatch, error):
    import navigator.commands.compiler as compiler

    monkeypatch.setenv("NAVIGATOR_CRASH_DIR", str(tmp_path / "crashes"))

    def broken(args):
        raise error("boom")

    monkeypatch.setattr(compiler, "cmd_programs", broken)
    result = cli("programs")
    assert result.returncode == 1 and f"{error.__name__}: boom" in result.stderr


def test_a_closed_pipe_ends_quietly(tmp_path):
    process = subprocess.Popen(f"{sys.executable} -m navigator check gcn --json | head -c 10",
                               shell=True, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out, err = process.communicate(timeout=120)
    assert len(out) == 10 and err == ""
