"""The table of limits per command in docs/cli.md (issue 21: the README said deep_gcn goes up to
333 layers, while `count` and `start` refuse it from 136 and transformer programs from 13
blocks). The table is benchmarks/limits.py's output; here its shape and the limits that are
cheap to check are tested, and with --slow every boundary is run (each largest count
accepted, the next refused)."""

from __future__ import annotations

import importlib.util
import subprocess
import sys

import pytest

from fuseflow.program.bundled import resolve_program
from fuseflow.program.frontend import MAX_OPS
from fuseflow.support.errors import ProgramError
from tests.paths import DOCS, REPO


def _limits_script():
    spec = importlib.util.spec_from_file_location("limits", REPO / "benchmarks" / "limits.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


LIMITS = _limits_script()
TABLE = LIMITS.documented(DOCS / "cli.md")


def test_the_table_lists_every_command_for_both_programs():
    assert list(TABLE) == list(LIMITS.COMMANDS)
    for command, limits in TABLE.items():
        assert set(limits) == set(LIMITS.PROGRAMS), command
        # a session's later commands go no deeper than start
        if command in ("fill --all", "export"):
            assert all(limits[p] <= TABLE["start"][p] for p in limits), command


def test_no_command_goes_deeper_than_the_op_limit_and_check_reaches_it():
    for program, (name, _) in LIMITS.PROGRAMS.items():
        deepest = TABLE["check"][program]
        assert len(resolve_program(program, {name: deepest}).ops) <= MAX_OPS
        with pytest.raises(ProgramError, match=f"more than the {MAX_OPS:,} a program may have"):
            resolve_program(program, {name: deepest + 1})
        assert all(limits[program] <= deepest for limits in TABLE.values())


def test_the_readme_states_the_limits_of_the_table():
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert f"up to {TABLE['check']['deep_gcn']} for `check`" in readme
    assert f"{TABLE['start']['deep_gcn']} for `start`" in readme


@pytest.mark.slow
def test_every_documented_boundary_holds():
    result = subprocess.run([sys.executable, str(REPO / "benchmarks" / "limits.py"), "--verify",
                             str(DOCS / "cli.md")], capture_output=True, text=True, cwd=REPO, timeout=7200)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]
