"""Helpers for the tests that run the command line: `python -m navigator` in a subprocess
(`Navigator`, the `nav` fixture) or navigator.cli.main in this process (`InProcess`, the `cli`
fixture), both in a temporary directory; JSON output checked against the schemas in
tests/schemas/. The fixtures are in tests/conftest.py."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

SCHEMAS = Path(__file__).resolve().parent / "schemas"
SMALL_SPMM = ["--dim", "N=2", "--dim", "J=2"]


def default_sigint() -> None:
    """preexec_fn for a child that must hear Ctrl-C: a user's shell gives navigator SIGINT at its
    default, but a test run started in the background (`bash .ci/run &`) passes it on ignored,
    and Python then installs no handler at all."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_DFL)


def clean_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("NAVIGATOR_SESSION", "DASK_SCHEDULER_ADDRESS")}
    env.update(extra)
    return env


class Navigator:
    """`nav("show", "--json")` runs the CLI in `cwd` and returns the CompletedProcess."""

    def __init__(self, cwd: Path):
        self.cwd = cwd

    def __call__(self, *args: str, ok: bool | None = None, env: dict[str, str] | None = None,
                 timeout: float = 120) -> subprocess.CompletedProcess:
        result = subprocess.run([sys.executable, "-m", "navigator", *args], capture_output=True, text=True,
                                cwd=self.cwd, env=env or clean_env(), timeout=timeout)
        assert "Traceback" not in result.stderr, result.stderr
        if ok is True:
            assert result.returncode == 0, (args, result.stdout, result.stderr)
        return result

    def json(self, *args: str, schema: str | None = None, code: int = 0, **kwargs) -> dict:
        result = self(*args, "--json", **kwargs)
        assert result.returncode == code, (args, result.stdout, result.stderr)
        data = json.loads(result.stdout)  # stdout is pure JSON
        if schema:
            check_schema(schema, data)
        return data

    def popen(self, *args: str, env: dict[str, str] | None = None) -> subprocess.Popen:
        return subprocess.Popen([sys.executable, "-m", "navigator", *args], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, cwd=self.cwd, env=env or clean_env())


def check_schema(name: str, data) -> None:
    import jsonschema

    schema = json.loads((SCHEMAS / f"{name}.schema.json").read_text(encoding="utf-8"))
    jsonschema.validate(data, schema, cls=jsonschema.Draft202012Validator)


def assert_user_error(result: subprocess.CompletedProcess, *fragments: str) -> None:
    """Exit 2, one line on stderr naming the problem, nothing on stdout."""
    assert result.returncode == 2, (result.stdout, result.stderr)
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert lines and lines[-1].startswith("navigator: error:"), result.stderr
    errors = [line for line in lines if line.startswith("navigator: error:")]
    assert len(errors) == 1, result.stderr
    for fragment in fragments:
        assert fragment in errors[0], (fragment, errors[0])


class InProcess(Navigator):
    """The same interface, calling navigator.cli.main in this process (fast; for the many
    small variations). The end-to-end behaviour of each command is tested through `Navigator`."""

    def __init__(self, cwd: Path, capsys, monkeypatch):
        super().__init__(cwd)
        self.capsys = capsys
        monkeypatch.chdir(cwd)
        monkeypatch.delenv("NAVIGATOR_SESSION", raising=False)

    def __call__(self, *args: str, ok: bool | None = None, env=None, timeout=None):
        from navigator.cli import main

        assert env is None, "run with another environment through the subprocess fixture"
        self.capsys.readouterr()
        try:
            code = main(list(args))
        except SystemExit as exc:  # argparse
            code = exc.code
        out, err = self.capsys.readouterr()
        result = subprocess.CompletedProcess(list(args), code, out, err)
        assert "Traceback" not in err, err
        if ok is True:
            assert code == 0, (args, out, err)
        return result
