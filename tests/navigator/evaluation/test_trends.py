"""The trends of docs/trends.md on real Cora (the full table: benchmarks/trends.py)."""

from fuseflow.program.binding import bind
from fuseflow.program.bundled import resolve_program
from fuseflow.cost.hardware import load_hardware
from navigator.evaluation.baselines import compare_baselines


def _rows(name, path, policy="accumulate", parallel=True):
    program = resolve_program(name)
    rows = compare_baselines(program, bind(program, str(path)), load_hardware(), policy=policy, parallel=parallel)
    return {row["name"]: row for row in rows}


def test_gcn_on_cora_follows_the_published_trends(shared_datasets):
    rows = _rows("gcn", shared_datasets / "cora.npz")
    unfused, layer, full = rows["unfused"], rows["per_layer"], rows["fully_fused"]
    assert layer["speedup"] >= 1.3
    assert layer["compulsory_bytes"] < unfused["compulsory_bytes"]
    assert layer["flops"] == unfused["flops"]              # no recomputation in the fused layers
    assert full["speedup"] < 1.0
    assert full["flops"] > 5 * unfused["flops"]           # layer 1 recomputed for every neighbour


def test_under_the_streaming_rule_a_gcn_layer_cannot_fuse_without_recomputation(shared_datasets):
    rows = _rows("gcn", shared_datasets / "cora.npz", policy="stream", parallel=False)
    assert rows["per_layer"]["fusion"] == [["aggregate1"], ["transform1", "activate1"], ["aggregate2"],
                                           ["transform2", "bias2"]]
