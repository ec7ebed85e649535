"""`navigator import`, and a .mlir model wherever a command takes a program: a session on an
imported model navigates, evaluates (numbers checked) and exports like any program."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.cli import assert_user_error, clean_env

pytest.importorskip("torch_mlir", reason="the MLIR bindings are in the test extra")

MODELS = Path(__file__).resolve().parents[2] / "fuseflow" / "program" / "mlir_models"


@pytest.fixture
def models(tmp_path) -> Path:
    for name in ("sparse_autoencoder", "spmm_chain", "gcn"):
        shutil.copy(MODELS / f"{name}.mlir", tmp_path / f"{name}.mlir")
    return tmp_path


def test_import_writes_a_program_that_reads_back(cli, models):
    result = cli("import", "sparse_autoencoder.mlir", "-o", "sae.toml", ok=True)
    assert "wrote sae.toml: sparse_autoencoder, 6 ops" in result.stderr
    text = (models / "sae.toml").read_text(encoding="utf-8")
    assert 'origin = "sparse_autoencoder.mlir:' in text
    printed = cli("import", "sparse_autoencoder.mlir", ok=True).stdout
    assert printed == text
    cli("check", "sae.toml", ok=True)


def test_commands_take_the_model_directly(cli, models):
    summary = cli("check", "sparse_autoencoder.mlir", ok=True).stdout
    assert "program sparse_autoencoder" in summary and "matmul_" in summary
    cli("start", "spmm_chain.mlir", "--dim", "D1=8", ok=True)
    cli("fill", "?0", "--auto", "default", "--subtree", ok=True)
    cli("export", "--json", "schedule.json", ok=True)
    report = json.loads(cli("eval", "schedule.json", "--json", ok=True).stdout)
    assert report["check"]["passed"] is True, report["check"]
    cli("validate", "schedule.json", "--program", "spmm_chain.mlir", "--dim", "D1=8", ok=True)
    # back to FuseFlow: the options per region, and the regions as functions of one module
    cli("export", "--fuseflow-pipeline", "pipeline.json", "--fuseflow-mlir", "regions.mlir", ok=True)
    from fuseflow.program.mlir.bindings import parse_module

    pipeline = json.loads((models / "pipeline.json").read_text(encoding="utf-8"))
    module = parse_module((models / "regions.mlir").read_text(encoding="utf-8"), "regions.mlir")
    functions = [str(op.operation.attributes["sym_name"]).strip('"') for op in module.body.operations]
    assert functions == [region["function"] for region in pipeline["regions"]]
    assert all(op["origin"].startswith("spmm_chain.mlir:") for r in pipeline["regions"] for op in r["ops"])


def test_a_dynamic_dimension_left_unbound_names_the_option(cli, models):
    assert_user_error(cli("import", "spmm_chain.mlir"), "spmm_chain.mlir: dimension D1", "--dim D1=N")
    assert_user_error(cli("check", "spmm_chain.mlir"), "dimension D1", "--dim D1=N")


def test_bad_models_stop_with_one_line_and_exit_2(cli, models):
    (models / "broken.mlir").write_text("module {\n  func.func @f() {\n    %0 = foo.bar : i32\n  }\n}\n")
    assert_user_error(cli("import", "broken.mlir"), "broken.mlir:3:", "Dialect `foo' not found")
    (models / "binary.mlir").write_bytes(b"\xff\xfe\x00garbage")
    assert_user_error(cli("import", "binary.mlir"), "binary.mlir", "not UTF-8")
    assert_user_error(cli("import", "missing.mlir"), "missing.mlir", "not found")
    unsupported = (MODELS / "gcn.mlir").read_text(encoding="utf-8").replace("math.exp", "math.sin", 1)
    (models / "sin.mlir").write_text(unsupported, encoding="utf-8")
    line = next(i for i, text in enumerate(unsupported.splitlines(), 1) if "math.sin" in text)
    assert_user_error(cli("import", "sin.mlir"), f"sin.mlir:{line}: math.sin is not supported")
    assert_user_error(cli("import", "gcn.mlir", "-o", "gcn.mlir"), "is the model being imported")
    assert (models / "gcn.mlir").read_text(encoding="utf-8") == (MODELS / "gcn.mlir").read_text(encoding="utf-8")
    assert_user_error(cli("import", "gcn.mlir", "--dim", "D0=0"), "--dim", "must be positive")
    assert_user_error(cli("import", "gcn.mlir", "--dim", "D99=3"), "--dim", "unknown dimension 'D99'")
    result = cli("import", "gcn.mlir", "--density", "2")
    assert result.returncode == 2 and "must be a number in (0, 1]" in result.stderr


def test_without_the_bindings_import_says_how_to_install_them(nav, models):
    """A process where `torch_mlir` cannot be imported (a path entry that shadows it with a
    package that fails), as on a machine without the [mlir] extra."""
    shadow = models / "shadow" / "torch_mlir"
    shadow.mkdir(parents=True)
    (shadow / "__init__.py").write_text("raise ImportError('no bindings here', name='torch_mlir')\n")
    env = clean_env(PYTHONPATH=str(models / "shadow") + ":" + clean_env().get("PYTHONPATH", ""))
    root = Path(__file__).resolve().parents[3]
    env["PYTHONPATH"] = f"{models / 'shadow'}:{root}"
    result = nav("import", "gcn.mlir", env=env)
    assert_user_error(result, "gcn.mlir: reading MLIR needs the MLIR Python bindings",
                      "pip install 'navigator-sched[mlir]'")
    assert_user_error(nav("check", "gcn.mlir", env=env), "pip install 'navigator-sched[mlir]'")
