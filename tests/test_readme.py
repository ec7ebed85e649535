"""README.md works as written: its console blocks, run in order in an empty directory with
`navigator` from this environment on PATH, all succeed; and its "Two commands" are what
.ci/run runs."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys

from tests.paths import DATASETS, REPO

README = REPO / "README.md"
CONSOLE = re.compile(r"^```console\n(.*?)^```", re.S | re.M)
SHELL = re.compile(r"^```sh\n(.*?)^```", re.S | re.M)


def readme_commands() -> list[str]:
    """Every command line of the README's console blocks, in order (a line is one command)."""
    text = README.read_text(encoding="utf-8")
    return [line for block in CONSOLE.findall(text) for line in block.splitlines()
            if line.strip() and not line.lstrip().startswith("#")]


def _environment() -> dict[str, str]:
    bin_dir = os.path.dirname(sys.executable)
    env = {k: v for k, v in os.environ.items() if k not in ("NAVIGATOR_SESSION", "DASK_SCHEDULER_ADDRESS")}
    env["PATH"] = bin_dir + os.pathsep + env.get("PATH", "")
    # This checkout, even when the environment's navigator is installed from another one.
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO), env.get("PYTHONPATH")) if p)
    return env


def test_the_readme_examples_run_in_order_in_an_empty_directory(tmp_path):
    commands = readme_commands()
    assert len(commands) >= 15 and any("schedule.json" in c for c in commands)
    env = _environment()
    assert shutil.which("navigator", path=env["PATH"]), \
        f"no navigator in {os.path.dirname(sys.executable)}: install this checkout (pip install -e '.[test]')"
    work = tmp_path / "work"      # empty; ../shared/datasets beside it, as beside the repository
    work.mkdir()
    shared = DATASETS.parent
    if shared.is_dir():
        (tmp_path / "shared").symlink_to(shared, target_is_directory=True)
    ran = []
    for command in commands:
        if "../shared/" in command and not shared.is_dir():
            continue
        result = subprocess.run(["bash", "-c", command], cwd=work, env=env, capture_output=True, text=True,
                                timeout=600)
        assert result.returncode == 0, (command, result.stdout[-3000:], result.stderr[-3000:])
        assert "Traceback" not in result.stderr, (command, result.stderr)
        ran.append(command)
    # The files the examples name were made by earlier commands, not found lying around.
    for made in ("schedule.json", "rebuild.py", "again.json", "gcn.hb.toml", "results.jsonl", "model.toml",
                 "pipeline.json"):
        assert (work / made).is_file(), made
    assert len(list((work / "samples").glob("*.json"))) == 20
    assert len(ran) >= len(commands) - 1


def _ci_commands() -> set[str]:
    """.ci/run's commands as a user would type them: without its venv paths, -q and redirections."""
    found = set()
    for line in (REPO / ".ci" / "run").read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        line = re.sub(r'"\$work/[\w-]+/bin/([\w.-]+)"', r"\1", line)
        line = re.sub(r"\s+-q\b", "", line)
        line = re.sub(r"\s*>\s*\S+$", "", line)
        found.add(" ".join(line.split()))
    return found


def test_the_two_commands_are_what_ci_runs():
    text = README.read_text(encoding="utf-8")
    section = text[text.index("## Two commands"):text.index("\n## ", text.index("## Two commands") + 1)]
    blocks = SHELL.findall(section)
    assert len(blocks) == 2
    ci = _ci_commands()
    ci_text = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    for block in blocks:
        lines = [line for line in block.splitlines() if line.strip() and not line.startswith("#")]
        assert len(lines) == 1, block
        for command in (part.strip() for part in lines[0].split("&&")):
            if command == "python3 -m venv .venv":           # CI makes its environments elsewhere
                assert "python3 -m venv" in ci_text
            elif command == ". .venv/bin/activate":
                assert re.search(r"^\. \"?\S*/bin/activate\"?$", ci_text, re.M)
            elif command == "pip install .":                 # CI installs `.` as the wheel pip builds of it
                assert any(c.startswith("pip wheel") and c.endswith(" .") for c in ci)
                assert any(c.startswith("pip install") and c.endswith(".whl") for c in ci)
            elif command == "navigator":                      # on a terminal: CI runs it in a pseudo-terminal
                assert any(c.endswith(".ci/terminal\" navigator") for c in ci), sorted(ci)
            else:
                assert command in ci, (command, sorted(ci))
