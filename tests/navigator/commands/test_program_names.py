"""One rule for a PROGRAM argument (fuseflow.program.bundled.program_location): a bundled name means
the bundled program even when a file or folder of that name is in the way; paths are paths."""

from __future__ import annotations

from fuseflow.program.bundled import bundled_program_text, program_location
from navigator.workspace import ProgramSpec
from tests.cli import SMALL_SPMM, assert_user_error


def test_a_folder_named_like_a_bundled_program_does_not_shadow_it(nav, tmp_path):
    (tmp_path / "gcn").mkdir()
    result = nav("check", "gcn", ok=True)
    assert result.stdout.startswith("program gcn: Two-layer GCN")
    started = nav("start", "spmm", *SMALL_SPMM, ok=True)
    assert "spmm" in started.stdout
    (tmp_path / "spmm").mkdir()
    assert nav("count", "spmm", *SMALL_SPMM, ok=True).stdout.startswith("spmm: 32 schedules")


def test_a_file_named_like_a_bundled_program_does_not_shadow_it(cli, tmp_path):
    (tmp_path / "spmm").write_text("not a program", encoding="utf-8")
    assert cli.json("check", "spmm", *SMALL_SPMM)["program"] == "spmm"
    cli("start", "spmm", *SMALL_SPMM, ok=True)
    assert ProgramSpec.from_user("spmm").program == "spmm"      # recorded as the bundled name


def test_paths_are_read_as_files(cli, tmp_path):
    text = bundled_program_text("spmm").replace('name = "spmm"', 'name = "mine"')
    (tmp_path / "spmm.toml").write_text(text, encoding="utf-8")
    (tmp_path / "gcn").write_text(text, encoding="utf-8")
    assert cli.json("check", "spmm.toml", *SMALL_SPMM)["program"] == "mine"
    assert cli.json("check", "./gcn", *SMALL_SPMM)["program"] == "mine"
    (tmp_path / "sub").mkdir()
    assert_user_error(cli("check", "./sub"), "is a directory")
    assert_user_error(cli("check", "nothing_here"), "unknown program 'nothing_here'", "gcn")
    assert_user_error(cli("start", "nothing_here"), "unknown program 'nothing_here'")


def test_the_rule_is_shared(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "gcn").mkdir()
    assert program_location("gcn").bundled == "gcn"
    assert program_location("./gcn").path == "./gcn"
    assert program_location("gcn.toml").path == "gcn.toml"        # missing: the reader says so
    assert ProgramSpec.from_user("./gcn").program == str(tmp_path.resolve() / "gcn")
