"""`export --python` under hostile input: no program name, path, dimension name or rationale
can change the generated script's code. Every generated script parses to the same code as a
harmless one (only the one JSON string differs), runs, and writes exactly the exported JSON.
Also: outputs that are directories, under files, or the session itself."""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from fuseflow.schedule import RegionSchedule, Schedule
from navigator.fuseflow.rebuild_script import default_output, schedule_python
from tests.cli import SMALL_SPMM, assert_user_error, clean_env

PAYLOAD = '__import__("os").system("touch pwned")'
# Pieces that end a string, a docstring or a comment, escape, or change how the file decodes.
PIECES = ['"""', "'''", '"', "'", "\\", "\\n", "\n", "\r", "\r\n", "\u2028", "\u2029", "\x0b", "\x0c", "\x1b",
          "\x85", "é", "# coding: utf-7", "+AAo-", "{", "}", "%s", "; ", f'x"""; {PAYLOAD}; """', PAYLOAD]
hostile = st.lists(st.one_of(st.sampled_from(PIECES), st.text(max_size=4)), max_size=6).map("".join)
# ... plus what only the Python API can be given: NUL, and lone surrogates (undecodable bytes)
hostile_any = st.lists(st.one_of(hostile, st.sampled_from(["\x00", "\ud800", "\udcff"])), max_size=3).map("".join)

SCHEDULE = Schedule(regions=(RegionSchedule(ops=("spmm",), order=("i", "k", "j"), par_factors=(1, 2, 1)),))


def normalized(script: str) -> str:
    """The script's code with the one data string replaced: equal for every input if no input
    reaches the code. Parsed from bytes, as Python reads a file, so a coding cookie would count."""
    tree = ast.parse(script.encode("utf-8"))
    [loads] = [node for node in ast.walk(tree) if isinstance(node, ast.Call)
               and isinstance(node.func, ast.Attribute) and node.func.attr == "loads"]
    assert isinstance(loads.args[0], ast.Constant) and isinstance(loads.args[0].value, str)
    loads.args[0] = ast.Constant("DATA")
    return ast.dump(tree)


def data_of(script: str) -> dict:
    [loads] = [node for node in ast.walk(ast.parse(script)) if isinstance(node, ast.Call)
               and isinstance(node.func, ast.Attribute) and node.func.attr == "loads"]
    return json.loads(loads.args[0].value)


REFERENCE = schedule_python(SCHEDULE, program="spmm", program_name="spmm", output="s.json", source="s")


@settings(max_examples=150, deadline=None)
@given(name=hostile_any, program=hostile_any, data=st.none() | hostile_any,
       dims=st.dictionaries(hostile_any, st.integers(1, 10**30), max_size=2),
       output=st.none() | hostile_any, source=hostile_any)
def test_no_input_changes_the_scripts_code(name, program, data, dims, output, source):
    script = schedule_python(SCHEDULE, program=program, program_name=name, data=data, dims=dims,
                             output=output, source=source)
    assert script.isascii()
    assert normalized(script) == normalized(REFERENCE)
    assert script.splitlines()[:2] == REFERENCE.splitlines()[:2]  # where a coding cookie would count
    expected_output = output or default_output(name)
    assert data_of(script) == {"program": program, "data": data, "dims": dims, "output": expected_output,
                               "regions": [{"ops": ["spmm"], "order": ["i", "k", "j"], "par_factors": [1, 2, 1],
                                            "stream_shape": 1, "block_sparse": False}]}
    comments = [line for line in script.splitlines() if line.startswith("#")]
    assert all(all(" " <= c <= "~" for c in line) for line in comments)


@settings(max_examples=100, deadline=None)
@given(name=hostile_any)
def test_the_default_output_stays_in_the_current_folder(name):
    output = default_output(name)
    assert re.fullmatch(r"[A-Za-z0-9_-][A-Za-z0-9_.-]*\.schedule\.json", output), output


# A file name: no "/", no NUL, no lone surrogate; not "." or "..".
file_name = hostile.map(lambda s: s.replace("/", "_").replace("\0", "_")[:60])


def _toml_string(text: str) -> str:
    escaped = "".join(c if c >= " " and c not in '"\\\x7f' else f"\\u{ord(c):04x}" for c in text)
    return f'"{escaped}"'


def _navigator(*args: str) -> None:
    from navigator.cli import main

    code = main(list(args))
    assert code == 0, args


# The program reader accepts only identifier-like names (hostile names are refused there, see
# test_a_hostile_program_name_...), so end to end the names are the odd ones it does accept.
program_name = st.sampled_from(["import", "class", "x-1.y", "_", "n" * 64, "SELECT", "None", "__init__"])


# Each example runs a process; a failure is reported as found, not shrunk for minutes.
@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow],
          phases=[Phase.explicit, Phase.reuse, Phase.generate])
@given(name=program_name, program=file_name, session=file_name, output=file_name, rationale=hostile)
def test_generated_scripts_run_and_write_exactly_the_exported_json(name, program, session, output, rationale):
    from fuseflow.program.bundled import bundled_program_text

    text = bundled_program_text("spmm").replace('name = "spmm"', f"name = {_toml_string(name)}", 1)  # the program's
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        (folder / f"{program}.toml").write_text(text, encoding="utf-8")
        where = f"--session={folder / ('s_' + session + '.json')}"
        out = folder / f"o_{output}.json"
        _navigator("start", str(folder / f"{program}.toml"), *SMALL_SPMM, "--no-forced", where)
        _navigator("fill", "?0", "1", f"--rationale={rationale}", where)
        _navigator("fill", "?1", "--auto", "default", "--subtree", f"--rationale={rationale}", where)
        _navigator("export", f"--json={out}", f"--python={folder / 's.py'}", where)
        script = (folder / "s.py").read_text(encoding="utf-8")
        assert normalized(script) == normalized(REFERENCE)
        exported = out.read_bytes()
        assert json.loads(exported)["program"] == name
        out.unlink()
        run = subprocess.run([sys.executable, "s.py"], cwd=folder, capture_output=True, text=True,
                             env=clean_env(), timeout=60)
        assert run.returncode == 0, run.stderr
        assert out.read_bytes() == exported  # the default output: the --json path, byte for byte
        assert not (folder / "pwned").exists()


def test_a_hostile_program_name_does_not_run_when_the_script_is_imported(cli, tmp_path):
    from fuseflow.program.bundled import bundled_program_text

    name = f'x"""; {PAYLOAD}; """\n# coding: utf-7'
    text = bundled_program_text("spmm").replace('name = "spmm"', f"name = {_toml_string(name)}", 1)
    (tmp_path / "evil.toml").write_text(text, encoding="utf-8")
    # The reader refuses the name where it enters ...
    assert_user_error(cli("start", "evil.toml", *SMALL_SPMM), "evil.toml:", "[name]", "not a valid program name")
    # ... and a script generated for it anyway (through the Python API) runs nothing when imported.
    script = schedule_python(SCHEDULE, program=str(tmp_path / "evil.toml"), program_name=name, source=name)
    (tmp_path / "evil_export.py").write_text(script, encoding="utf-8")
    run = subprocess.run([sys.executable, "-c", "import evil_export"], cwd=tmp_path, capture_output=True,
                         text=True, env=clean_env(), timeout=60)
    assert run.returncode == 0, run.stderr
    assert not (tmp_path / "pwned").exists()
    data = data_of(script)
    assert data["output"] == default_output(name) and data["output"].startswith("x___")


# ---------------------------------------------------------------- where the outputs go

def test_outputs_that_cannot_be_written_are_one_line_errors(cli, tmp_path):
    cli("start", "spmm", *SMALL_SPMM, ok=True)
    cli("fill", "?0", "--auto", "default", "--subtree", ok=True)
    (tmp_path / "adir").mkdir()
    (tmp_path / "afile").write_text("")
    for option in ("--json", "--python"):
        assert_user_error(cli("export", option, "adir"), "adir: is a directory")
        assert_user_error(cli("export", option, "afile/out"), "afile/out", "a part of the path is a file")
        assert_user_error(cli("export", option, "bad\udcff.json"), f"{option}: holds '\\udcff'")
    assert (tmp_path / "afile").read_text() == "" and list((tmp_path / "adir").iterdir()) == []


def test_outputs_never_overwrite_the_session(cli, tmp_path):
    cli("start", "spmm", *SMALL_SPMM, ok=True)
    cli("fill", "?0", "--auto", "default", "--subtree", ok=True)
    session = tmp_path / ".navigator" / "session.json"
    before = session.read_bytes()
    (tmp_path / "alias.json").symlink_to(session)
    for option in ("--json", "--python"):
        for path in (".navigator/session.json", "alias.json", "./.navigator/../.navigator/session.json"):
            assert_user_error(cli("export", option, path), f"{option}: {path} is the session file")
        assert_user_error(cli("export", option, ".navigator/session.json.lock"), "is the session's lock file")
    assert_user_error(cli("export", "--json", "s.json", "--python", "./s.json"), "name the same file")
    assert session.read_bytes() == before and not (tmp_path / "s.json").exists()
