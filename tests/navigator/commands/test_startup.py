"""Start-up of the `navigator` command: what it imports, and Ctrl-C at any moment of it.

Each test runs a fresh interpreter: what a process imports, and when a signal lands, can
only be seen from outside it.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import tomllib
from pathlib import Path

import pytest

from tests.cli import clean_env, default_sigint
from tests.paths import REPO

HEAVY = ("numpy", "scipy", "networkx", "dask", "rich", "textual")
INTERRUPTED = "navigator: interrupted"

# Sends SIGINT to its own process when the named module starts being imported: a Ctrl-C that
# lands exactly there. A meta-path finder sees every import, importlib.import_module's too.
SITECUSTOMIZE = '''
import os, signal, sys

_target = os.environ.get("NAVIGATOR_TEST_SIGINT_AT")


_wrapped = os.environ.get("NAVIGATOR_TEST_WRAPPED_SIGINT_AT")


class _InterruptAt:
    @staticmethod
    def find_spec(name, path=None, target=None):
        if name == _target:
            os.kill(os.getpid(), signal.SIGINT)
        if name == _wrapped:  # as Python 3.11 reports a Ctrl-C inside a dataclass's __set_name__
            try:
                os.kill(os.getpid(), signal.SIGINT)
                time.sleep(1)
            except KeyboardInterrupt as exc:
                raise RuntimeError("Error calling __set_name__ on 'Field' instance '_hash' in 'App'") from exc
        return None


if _target or _wrapped:
    import time

    sys.meta_path.insert(0, _InterruptAt)

if os.environ.get("NAVIGATOR_TEST_SIGINT_AT_EXIT"):  # after the command, while Python shuts down
    import atexit, time

    atexit.register(lambda: (os.kill(os.getpid(), signal.SIGINT), time.sleep(5)))
'''


def _entry_point_code() -> str:
    """What pip's generated `navigator` script does, for the entry point pyproject.toml names."""
    scripts = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]["scripts"]
    module, _, function = scripts["navigator"].partition(":")
    return f"import sys\nfrom {module} import {function}\nsys.exit({function}())"


LAUNCHES = {
    "python -m navigator": ["-m", "navigator"],
    "console script": ["-c", _entry_point_code()],
}


def _env(tmp_path: Path, **extra: str) -> dict[str, str]:
    hooks = tmp_path / "hooks"
    hooks.mkdir(exist_ok=True)
    (hooks / "sitecustomize.py").write_text(SITECUSTOMIZE, encoding="utf-8")
    path = [str(hooks), str(REPO)] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    return clean_env(PYTHONPATH=os.pathsep.join(path), **extra)


def _run(tmp_path: Path, launch: str, *args: str, **env: str) -> subprocess.CompletedProcess:
    environment = _env(tmp_path, **env)
    environment.pop("PYTHONUNBUFFERED", None)  # stdout buffered, as it is for users
    return subprocess.run([sys.executable, *LAUNCHES[launch], *args], capture_output=True, text=True,
                          cwd=tmp_path, env=environment, timeout=120, preexec_fn=default_sigint)


def _imported_by(tmp_path: Path, code: str) -> list[str]:
    probe = (f"import sys\n{code}\n"
             f"print(' '.join(m for m in {HEAVY!r} if m in sys.modules), file=sys.stderr)")
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=tmp_path,
                            env=_env(tmp_path), timeout=120)
    assert result.returncode == 0, result.stderr
    return result.stderr.split()


# ---------------------------------------------------------------- imports

def test_building_the_parser_imports_no_numerical_library(tmp_path):
    assert _imported_by(tmp_path, "from navigator.cli import build_parser\nbuild_parser()") == []


def test_version_imports_no_numerical_library(tmp_path):
    code = ("import atexit, contextlib, io\n"
            "sys.argv = ['navigator', '--version']\n"
            "from navigator import main\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            "    try:\n        main()\n    except SystemExit:\n        pass")
    assert _imported_by(tmp_path, code) == []


def test_show_on_a_session_imports_no_numerical_library(tmp_path):
    """Once a session's facts are cached, `show` neither generates them nor binds the program."""
    start = _run(tmp_path, "python -m navigator", "start", "gcn")
    assert start.returncode == 0, start.stderr
    code = ("import contextlib, io\n"
            "sys.argv = ['navigator', 'show']\n"
            "from navigator import main\n"
            "with contextlib.redirect_stdout(io.StringIO()) as out:\n"
            "    assert main() == 0\n"
            "assert '?0' in out.getvalue()")
    assert _imported_by(tmp_path, code) == []


# ---------------------------------------------------------------- Ctrl-C

def _assert_interrupted(result: subprocess.CompletedProcess) -> None:
    assert result.returncode == 130, (result.returncode, result.stderr)
    assert result.stderr.splitlines() == [INTERRUPTED], result.stderr
    assert result.stdout == ""


@pytest.mark.parametrize("launch", sorted(LAUNCHES))
@pytest.mark.parametrize("module", [
    "navigator.launcher",           # the entry point's own import, before main()'s try
    "navigator.cli",
    "argparse",
    "navigator.commands.batch",     # while the parser is built
    "fuseflow.program.bundled",             # inside the command
])
def test_ctrl_c_during_start_up_prints_one_line_and_exits_130(tmp_path, launch, module):
    _assert_interrupted(_run(tmp_path, launch, "programs", NAVIGATOR_TEST_SIGINT_AT=module))


@pytest.mark.parametrize("module", ["navigator.cli", "navigator.synth.sketch", "fuseflow.program.bundled"])
def test_ctrl_c_that_an_import_wraps_in_another_error_prints_one_line_and_exits_130(tmp_path, module):
    """Before the command's own handler exists (navigator.cli) and after it (inside the command)."""
    _assert_interrupted(_run(tmp_path, "python -m navigator", "programs", NAVIGATOR_TEST_WRAPPED_SIGINT_AT=module))


def test_ctrl_c_after_the_command_while_python_shuts_down(tmp_path):
    result = _run(tmp_path, "console script", "programs", NAVIGATOR_TEST_SIGINT_AT_EXIT="1")
    assert result.returncode == 130, (result.returncode, result.stderr)
    assert result.stderr.splitlines() == [INTERRUPTED], result.stderr
    assert "spmm" in result.stdout  # the command's own output was complete


def test_ctrl_c_while_a_command_loads_the_compiler(tmp_path):
    for module in ("numpy", "navigator.fuseflow.facts"):
        _assert_interrupted(_run(tmp_path, "python -m navigator", "count", "spmm",
                                 NAVIGATOR_TEST_SIGINT_AT=module))


def _navigator_frames(err: str) -> list[str]:
    """Traceback lines that point into Navigator's own code, past the two statements of
    navigator/__init__.py that define main() (Python runs them before main can guard them)."""
    first = f"{os.sep}navigator{os.sep}__init__.py"
    return [line for line in err.splitlines() if line.strip().startswith('File "')
            and any(f"{os.sep}{package}{os.sep}" in line for package in ("navigator", "fuseflow", "simulator"))
            and not (first in line and line.rstrip().endswith("in <module>"))]


def test_ctrl_c_at_any_moment_of_a_short_command(tmp_path):
    """A real Ctrl-C from outside, at a spread of moments: the command is interrupted (one line,
    130), or had finished; or Python had not started running Navigator yet (the signal ends
    the process, which a shell reports as 130, or Python reports it failed to start)."""
    env = _env(tmp_path)
    outcomes = set()
    for delay in [0.0, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.13, 0.16, 0.2, 0.25, 0.3, 0.4]:
        process = subprocess.Popen([sys.executable, "-m", "navigator", "count", "spmm"], cwd=tmp_path, env=env,
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        time.sleep(delay)
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=120)
        if process.returncode == 130 and err.splitlines() == [INTERRUPTED]:
            outcomes.add("interrupted")
        elif err == "" and process.returncode == -signal.SIGINT:
            outcomes.add("before Python handles signals")
        elif any(mark in err for mark in ("Traceback", "Fatal Python error", "Error processing line")):
            # Python's own start-up (site's .pth files, runpy importing the package): no
            # code of Navigator's has run yet, so none may appear in what was printed.
            assert _navigator_frames(err) == [], err
            outcomes.add("in Python's start-up")
        else:
            assert process.returncode == 0 and err == "", (process.returncode, err)
            outcomes.add("finished")
    assert "interrupted" in outcomes, outcomes
