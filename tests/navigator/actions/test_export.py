"""export: schedule JSON and a Python script that rebuilds it."""

from __future__ import annotations

import ast
import json
import subprocess
import sys

from tests.cli import SMALL_SPMM, assert_user_error, clean_env


def exported_data(script: str) -> dict:
    """The one JSON string a generated script holds its values in (EXPORT = json.loads(...))."""
    [value] = [node.value for node in ast.parse(script).body
               if isinstance(node, ast.Assign) and [t.id for t in node.targets] == ["EXPORT"]]
    return json.loads(value.args[0].value)


def test_export_partial_json_and_python_end_to_end(nav, cli, tmp_path):
    cli("start", "spmm", *SMALL_SPMM, "--no-forced", ok=True)
    cli("fill", "?0", "1", ok=True)
    cli("fill", "?1", "--auto", "default", "--subtree", ok=True)
    cli("undo", "10", ok=True)  # back to open ?5 (the order)
    before = (tmp_path / ".navigator" / "session.json").read_bytes()
    assert_user_error(nav("export", "--json", "s.json"), "the sketch still has open holes: ?5", "--partial")
    assert not (tmp_path / "s.json").exists()
    result = nav("export", "--partial", "--json", "s.json", "--python", "s.py", ok=True)
    assert "--partial filled 10 open holes with their defaults" in result.stderr
    assert '  ?5 := order{region="spmm", order="i k j", count=3, inner="j", is_default=true}' in result.stderr
    assert (tmp_path / ".navigator" / "session.json").read_bytes() == before  # the session is unchanged
    exported = json.loads((tmp_path / "s.json").read_text())
    assert exported["format"] == "navigator-schedule" and exported["program"] == "spmm"
    assert exported["regions"][0]["dataflow-ordering"] == "i k j"
    # The script rebuilds the same file, byte for byte, with fuseflow's API only.
    script = (tmp_path / "s.py").read_text()
    imports = {node.module for node in ast.walk(ast.parse(script)) if isinstance(node, ast.ImportFrom)}
    assert imports == {"fuseflow.program.binding", "fuseflow.program.bundled", "fuseflow.support.errors", "fuseflow.schedule"}
    run = subprocess.run([sys.executable, "s.py", "again.json"], cwd=tmp_path, capture_output=True, text=True,
                         env=clean_env(), timeout=60)
    assert run.returncode == 0, run.stderr
    assert (tmp_path / "again.json").read_bytes() == (tmp_path / "s.json").read_bytes()
    (tmp_path / "s.json").unlink()
    run = subprocess.run([sys.executable, "s.py"], cwd=tmp_path, capture_output=True, text=True,
                         env=clean_env(), timeout=60)
    assert run.returncode == 0 and (tmp_path / "s.json").read_bytes() == (tmp_path / "again.json").read_bytes()


def test_export_to_stdout_keeps_choices(cli, tmp_path):
    cli("start", "spmm", *SMALL_SPMM, "--no-forced", ok=True)
    for hole, option in ((0, "1"), (1, "1"), (2, "1"), (3, "1"), (4, "1"), (5, "3"), (6, "1")):
        cli("fill", f"?{hole}", option, ok=True)
    cli("fill", "?7", "--auto", "default", "--subtree", ok=True)
    cli("fill", "?8", "par", "factor=2", ok=True)  # the first region variable, i
    cli("fill", "?9", "--auto", "default", "--subtree", ok=True)
    data = json.loads(cli("export", ok=True).stdout)
    region = data["regions"][0]
    assert region["dataflow-ordering"] == "j i k"
    assert region["stream-parallelizer"]["par_factors"] == [1, 2, 1]  # factors are listed per level of the order
    cli("export", "--json", "out/s.json", ok=True)
    assert cli.json("validate", "out/s.json", schema="validate")["valid"]  # program from the session


def test_python_export_of_a_program_file(cli, tmp_path):
    from fuseflow.program.bundled import bundled_program_text

    (tmp_path / "my prog.toml").write_text(bundled_program_text("sddmm"), encoding="utf-8")
    cli("start", "my prog.toml", "--dim", "N=4", "--dim", "K=2", "--no-forced", ok=True)
    cli("fill", "?0", "1", ok=True)
    cli("fill", "?1", "--auto", "default", "--subtree", ok=True)
    cli("export", "--python", "rebuild.py", ok=True)
    script = (tmp_path / "rebuild.py").read_text()
    data = exported_data(script)
    assert data["program"] == str(tmp_path / "my prog.toml") and data["dims"] == {"K": 2, "N": 4}
    run = subprocess.run([sys.executable, "rebuild.py", "x.json"], cwd=tmp_path, capture_output=True, text=True,
                         env=clean_env(), timeout=60)
    assert run.returncode == 0, run.stderr
    assert json.loads((tmp_path / "x.json").read_text())["program"] == "sddmm"


def test_fuseflow_pipeline_export(cli, tmp_path):
    import shutil

    from tests.paths import DOCS

    cli("start", "spmm", *SMALL_SPMM, ok=True)
    cli("fill", "?0", "--auto", "default", "--subtree", ok=True)
    assert "wrote p.json" in cli("export", "--fuseflow-pipeline", "p.json", ok=True).stderr
    document = json.loads((tmp_path / "p.json").read_text())
    assert (document["format"], document["version"], document["program"]) == ("fuseflow-pipeline", 1, "spmm")
    [region] = document["regions"]
    assert region["order"] == {"names": ["i", "k", "j"], "ids": ["i0", "i2", "i1"]} and region["order_index"] == 0
    assert region["command"] == "sam-opt --linalg-to-sam"
    # the same path checks as every other format
    session = tmp_path / ".navigator" / "session.json"
    before = session.read_bytes()
    assert_user_error(cli("export", "--fuseflow-pipeline", ".navigator/session.json"),
                      "--fuseflow-pipeline: .navigator/session.json is the session file")
    assert_user_error(cli("export", "--json", "same.json", "--fuseflow-pipeline", "same.json"),
                      "--json and --fuseflow-pipeline name the same file")
    assert session.read_bytes() == before and not (tmp_path / "same.json").exists()
    # a Honeybee problem's expression has no compiler options
    for name in ("pipeline.hb.toml", "pipeline.hblib.toml"):
        shutil.copy(DOCS / "examples" / "honeybee" / name, tmp_path / name)
    cli("start", "pipeline.hb.toml", "--library", "pipeline.hblib.toml", "--session", "hb.json", ok=True)
    cli("fill", "?0", "--auto", "default", "--subtree", "--session", "hb.json", ok=True)
    assert_user_error(cli("export", "--fuseflow-pipeline", "hb.pipeline.json", "--session", "hb.json"),
                      "--fuseflow-pipeline: the expression of this session's problem cannot be written in this format",
                      "--json F, --python F or --notebook F")
    assert not (tmp_path / "hb.pipeline.json").exists()
