"""The installed entry points, run as a user would: exit codes and no tracebacks."""

import json
import subprocess
import sys

import pytest


def run(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "navigator", *args], capture_output=True, text=True,
                          cwd=cwd, timeout=120)


def test_version_and_check_from_another_directory(tmp_path):
    result = run("--version", cwd=tmp_path)
    assert result.returncode == 0 and result.stdout.startswith("navigator ")
    result = run("check", "gcn", "--json", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["program"] == "gcn"


@pytest.mark.parametrize("args,fragment", [
    (["check", "no_such_program"], "unknown program"),
    (["check", "gcn", "--dim", "N=zero"], "--dim"),
    (["check", "gcn", "--dim", "Q=4"], "unknown dimension 'Q'"),
    (["check", "gcn", "--hardware", "missing.toml"], "missing.toml: file not found"),
    (["check", "gcn", "--data", "missing.npz"], "missing.npz"),
    (["validate", "missing.json", "--program", "gcn"], "missing.json: file not found"),
    (["frobnicate"], "invalid choice"),
])
def test_user_errors_exit_2_without_traceback(tmp_path, args, fragment):
    result = run(*args, cwd=tmp_path)
    assert result.returncode == 2, (result.stdout, result.stderr)
    assert "Traceback" not in result.stderr
    assert fragment in result.stderr


def test_broken_hardware_file(tmp_path):
    (tmp_path / "hw.toml").write_text("lanes = 'many'\n")
    result = run("check", "spmm", "--hardware", "hw.toml", cwd=tmp_path)
    assert result.returncode == 2 and "hw.toml [lanes]: must be a number" in result.stderr
    (tmp_path / "hw.toml").write_text("peak_ops_per_cycle = 128\nmemory_bytes_per_cycle = 1\n")
    result = run("check", "spmm", "--hardware", "hw.toml", "--json", cwd=tmp_path)
    assert result.returncode == 0 and json.loads(result.stdout)["hardware"] == "hw.toml"


def test_programs_facts_and_compare_end_to_end(tmp_path):
    listed = run("programs", cwd=tmp_path)
    assert listed.returncode == 0 and "gcn" in listed.stdout and "graphsage" in listed.stdout
    facts = run("facts", "spmm", "--dim", "N=4", "-o", "spmm.hb.toml", cwd=tmp_path)
    assert facts.returncode == 0, facts.stderr
    text = (tmp_path / "spmm.hb.toml").read_text()
    assert 'name = "RegionVar"' in text and "[Goal]" in text
    compared = run("compare", "gcn", "--dim", "N=12", "--dim", "F=4", "--dim", "H=2", "--dim", "C=2", "--json",
                   cwd=tmp_path)
    assert compared.returncode == 0, compared.stderr
    names = [b["name"] for b in json.loads(compared.stdout)["settings"]["defaults"]["baselines"]]
    assert names == ["unfused", "unfused_default_orders", "per_layer", "fully_fused"]
