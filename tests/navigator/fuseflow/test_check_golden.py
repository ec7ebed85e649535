"""`navigator check` on every bundled program, pinned by golden files."""

from pathlib import Path

import pytest

from tests.bundled import enumerable_program_names
from navigator.cli import main

GOLDEN = Path(__file__).parent / "golden"


@pytest.mark.parametrize("name", enumerable_program_names())
def test_check_output_matches_golden(name, capsys, golden):
    assert main(["check", name]) == 0
    golden(GOLDEN / f"check_{name}.txt", capsys.readouterr().out)


def test_check_json_is_consistent_with_counts(capsys):
    import json

    assert main(["check", "gcn", "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["groupings"]["count"] == 32  # a chain of 6 ops: 2^5 groupings
    fused = [r for r in summary["regions"] if len(r["ops"]) == 6][0]
    assert fused["orders"] == 120  # 6 variables, constraints i2<i<k: 6!/3!


def test_dense_order_switch_narrows_orders(capsys):
    import json

    main(["check", "nested_matmul", "--json"])
    free = json.loads(capsys.readouterr().out)
    main(["check", "nested_matmul", "--json", "--dense-order-fixed"])
    fixed = json.loads(capsys.readouterr().out)
    count = {tuple(r["ops"]): r["orders"] for r in free["regions"]}
    count_fixed = {tuple(r["ops"]): r["orders"] for r in fixed["regions"]}
    assert count[("matmul1", "matmul2")] == 12 and count_fixed[("matmul1", "matmul2")] == 1


def test_check_with_real_cora_file(shared_datasets, capsys):
    assert main(["check", "gcn", "--data", str(shared_datasets / "cora.npz"), "--json"]) == 0
    import json

    summary = json.loads(capsys.readouterr().out)
    assert summary["dims"] == {"N": 2708, "F": 1433, "H": 16, "C": 7}
    assert "cora.npz" in summary["data"]
