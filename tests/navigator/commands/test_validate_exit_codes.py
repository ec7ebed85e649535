"""`validate`: every invalid schedule exits 1 (with its JSON report under --json); input
that cannot be read as a schedule exits 2."""

from __future__ import annotations

import json

import pytest

from tests.cli import assert_user_error

INVALID = {
    # fusion-legality: a region that skips the op between its two ops (this exited 2 with no JSON)
    "fusion": ({"regions": [{"ops": [op]} for op in ("transform1", "aggregate2", "transform2", "bias2")]
                + [{"ops": ["aggregate1", "activate1"]}]}, "gcn", "fusion-legal"),
    "shape": ({"dataflow-ordering": 7}, "spmm", "json-shape"),
    "order": ({"dataflow-ordering": "j k"}, "spmm", "order-complete"),
    "program": ({"program": "gcn", "regions": [{"ops": ["spmm"]}]}, "spmm", "program-match"),
}


@pytest.mark.parametrize("kind", sorted(INVALID))
def test_invalid_schedules_exit_1_with_a_json_report(cli, tmp_path, kind):
    data, program, rule = INVALID[kind]
    path = tmp_path / "s.json"
    path.write_text(json.dumps(data))
    result = cli("validate", str(path), "--program", program, "--json")
    assert result.returncode == 1, result.stderr
    report = json.loads(result.stdout)
    assert report["valid"] is False and report["problems"][0]["rule"] == rule
    text = cli("validate", str(path), "--program", program)
    assert text.returncode == 1 and f"[rule: {rule}]" in text.stderr


@pytest.mark.parametrize("content, fragment", [("{", "invalid JSON"), ('{"a": NaN}', "holds NaN"),
                                               ("[" * 5000 + "]" * 5000, "levels deep")])
def test_unreadable_schedules_exit_2(cli, tmp_path, content, fragment):
    path = tmp_path / "s.json"
    path.write_text(content)
    assert_user_error(cli("validate", str(path), "--program", "spmm"), str(path), fragment)


def test_facts_json_is_a_summary_on_stdout_even_with_an_output_file(cli, tmp_path):
    from tests.cli import check_schema

    for extra in ([], ["-o", "f.hb.toml"]):
        result = cli("facts", "spmm", "--dim", "N=4", "--json", *extra)
        assert result.returncode == 0
        data = json.loads(result.stdout)  # pure JSON, also when the facts go to a file
        check_schema("facts", data)
        assert data["facts"] == sum(data["props"].values()) > 0
        assert data["output"] == (extra[1] if extra else None)
    assert (tmp_path / "f.hb.toml").read_text().count("[[Prop]]") == data["facts"]
