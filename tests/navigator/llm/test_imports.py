"""Commands that never ask a model must not pay for importing the openai client."""

from __future__ import annotations

import subprocess
import sys

from tests.cli import clean_env

PROBE = """
import contextlib, io, sys
from navigator import main
for argv in (["start", "spmm", "--dim", "N=2", "--dim", "J=2"], ["fill", "?0", "--auto", "heuristic", "--all"]):
    sys.argv = ["navigator", *argv]
    with contextlib.redirect_stdout(io.StringIO()):
        assert main() == 0, argv
print(sorted(m for m in ("openai", "httpx", "httpx2") if m in sys.modules))
"""


def test_fill_with_the_heuristic_imports_no_openai(tmp_path):
    result = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, cwd=tmp_path,
                            env=clean_env(), timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"


def test_importing_navigator_llm_imports_no_openai(tmp_path):
    code = ("import sys, navigator.llm.config, navigator.llm.transport, navigator.llm.recording\n"
            "print('openai' in sys.modules)")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path,
                            env=clean_env(), timeout=60)
    assert result.stdout.strip() == "False", result.stderr
