"""`navigator eval` and `navigator compare`, and their one-line errors (exit code 2)."""

import json
import subprocess
import sys

import pytest

from fuseflow.program.bundled import resolve_program
from fuseflow.schedule import RegionSchedule, Schedule, default_schedule, save_schedule, schedule_to_json
from navigator.cli import main

SMALL_GCN = ["--dim", "N=12", "--dim", "F=4", "--dim", "H=2", "--dim", "C=2"]


@pytest.fixture
def gcn_schedule(tmp_path):
    path = tmp_path / "gcn.json"
    save_schedule(path, resolve_program("gcn"), default_schedule(resolve_program("gcn")))
    return path


def _run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_eval_prints_the_figures_and_passes_the_check(capsys, gcn_schedule):
    code, out, err = _run(capsys, "eval", gcn_schedule, "--program", "gcn", *SMALL_GCN)
    assert code == 0, err
    for word in ("FLOPs", "bytes", "intensity", "cycles", "[aggregate1]", "counters:", "numerical check: passed"):
        assert word in out
    assert "bound" in out


def test_eval_json_and_the_exact_executor(capsys, gcn_schedule):
    code, out, _ = _run(capsys, "eval", gcn_schedule, "--program", "gcn", *SMALL_GCN, "--json",
                        "--executor", "exact")
    data = json.loads(out)
    assert code == 0 and data["executor"] == "exact" and data["check"]["passed"]
    assert data["roofline"] in ("compute-bound", "memory-bound")
    assert len(data["regions"]) == 6 and set(data["counters"]) == {
        "ops", "reductions", "value_reads", "coord_reads", "value_writes", "coord_writes"}
    assert data["flops"] == data["counters"]["ops"] + data["counters"]["reductions"]
    # The memory model's figures: DRAM bytes in lines with spills, beside the logical ones.
    assert {"logical_bytes", "spill_bytes"} <= set(data)
    for region in data["regions"]:
        assert {"bytes_read", "bytes_written", "logical_bytes_read", "logical_bytes_written", "spill_bytes",
                "onchip_bytes", "onchip_state", "gathers", "latency_cycles"} <= set(region)
        assert region["bytes_read"] + region["bytes_written"] == region["streamed_bytes"] + region["gathered_bytes"]


def test_eval_prints_graphs_and_writes_dot(capsys, tmp_path):
    program = resolve_program("spmm")
    path = tmp_path / "spmm.json"
    save_schedule(path, program, default_schedule(program))
    dot = tmp_path / "spmm.dot"
    code, out, _ = _run(capsys, "eval", path, "--program", "spmm", "--dim", "N=10", "--graph", "--dot", dot)
    assert code == 0 and "op spmm:" in out and "scan A.k" in out
    assert dot.read_text().startswith("digraph")


def test_eval_exits_1_when_the_check_fails(capsys, gcn_schedule, monkeypatch):
    import simulator.evaluate as ev

    real = ev.evaluate_program
    monkeypatch.setattr(ev, "evaluate_program",
                        lambda *a: {k: v + 1.0 for k, v in real(*a).items()})
    code, out, _ = _run(capsys, "eval", gcn_schedule, "--program", "gcn", *SMALL_GCN)
    assert code == 1 and "numerical check: FAILED" in out


def test_compare_json_lists_the_baselines_under_both_settings(capsys):
    code, out, _ = _run(capsys, "compare", "gcn", *SMALL_GCN, "--policy", "accumulate", "--json")
    data = json.loads(out)
    assert code == 0
    assert list(data["settings"]) == ["defaults", "parallel"]
    for setting in data["settings"].values():
        names = [b["name"] for b in setting["baselines"]]
        assert names == ["unfused", "unfused_default_orders", "per_layer", "fully_fused"]
        for b in setting["baselines"]:
            assert {"name", "flops", "bytes", "cycles", "speedup"} <= set(b)
        assert setting["baselines"][0]["speedup"] == 1.0
        assert setting["baselines"][2]["fusion"] == [["aggregate1", "transform1", "activate1"],
                                                    ["aggregate2", "transform2", "bias2"]]
    defaults, parallel = (data["settings"][s]["baselines"] for s in ("defaults", "parallel"))
    # lanes and vectors make every baseline faster on the same data, and FLOPs do not change
    for d, p in zip(defaults, parallel):
        assert p["cycles"] < d["cycles"] and p["flops"] == d["flops"]


def test_compare_states_its_backend(capsys, tmp_path):
    hardware = tmp_path / "hw.toml"
    hardware.write_text("lanes = 4\nqueue_depth = 2\n")
    code, out, _ = _run(capsys, "compare", "gcn", *SMALL_GCN, "--hardware", hardware, "--json")
    backend = json.loads(out)["backend"]
    assert backend["executor"] == "fast" and backend["policy"] == "accumulate"
    assert backend["hardware"]["source"] == str(hardware)
    assert backend["hardware"]["lanes"] == 4 and backend["hardware"]["queue_depth"] == 2
    assert "up to 4 lanes" in backend["settings"]["parallel"] and "par factors 1" in backend["settings"]["defaults"]
    code, out, _ = _run(capsys, "compare", "gcn", *SMALL_GCN, "--hardware", hardware)
    assert f"hardware {hardware}: 4 lanes" in out and "queue depth 2" in out
    assert "── defaults ──" in out and "── parallel ──" in out


def test_compare_one_setting(capsys):
    code, out, _ = _run(capsys, "compare", "gcn", *SMALL_GCN, "--parallel", "--json")
    assert list(json.loads(out)["settings"]) == ["parallel"]
    code, out, _ = _run(capsys, "compare", "gcn", *SMALL_GCN, "--setting", "defaults")
    assert "── defaults ──" in out and "── parallel ──" not in out


def test_compare_explains_an_illegal_full_fusion(capsys, tmp_path):
    code, out, _ = _run(capsys, "compare", "block_attention", "--dim", "L=32", "--dim", "Dk=4", "--save", tmp_path)
    assert code == 0
    assert "full fusion is illegal" in out and "second pass" in out
    saved = sorted(p.name for p in tmp_path.iterdir())
    assert saved == ["block_attention_fully_fused.json", "block_attention_fully_fused_parallel.json",
                     "block_attention_per_layer.json", "block_attention_per_layer_parallel.json",
                     "block_attention_unfused.json", "block_attention_unfused_default_orders.json",
                     "block_attention_unfused_default_orders_parallel.json", "block_attention_unfused_parallel.json"]
    assert main(["eval", str(tmp_path / "block_attention_per_layer.json"), "--program", "block_attention",
                 "--dim", "L=32", "--dim", "Dk=4"]) == 0


def test_compare_on_a_synthetic_preset(capsys):
    code, out, _ = _run(capsys, "compare", "spmm", "--preset", "dblp", "--dim", "N=200", "--json")
    assert code == 0 and json.loads(out)["settings"]["defaults"]["baselines"][0]["cycles"] > 0


# ---- bad input: one line on stderr, exit code 2 ----

def _bad(capsys, *argv, match):
    code, out, err = _run(capsys, *argv)
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("navigator: error:"), err
    assert match in lines[0], lines[0]
    return lines[0]


def test_a_schedule_for_another_program(capsys, gcn_schedule):
    _bad(capsys, "eval", gcn_schedule, "--program", "graphsage", match="[rule: program-match]")


def test_a_schedule_that_breaks_a_rule(capsys, tmp_path):
    program = resolve_program("spmm")
    data = schedule_to_json(program, Schedule((RegionSchedule(("spmm",), ("i", "k", "j"), (1, 2, 1)),)))
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    _bad(capsys, "eval", path, "--program", "spmm", match="[rule: par-compressed]")


def test_a_graph_whose_size_disagrees_with_a_dimension(capsys, gcn_schedule, tmp_path):
    graph = tmp_path / "g.txt"
    graph.write_text("0 1\n1 2\n")
    _bad(capsys, "eval", gcn_schedule, "--program", "gcn", "--data", graph, "--dim", "N=9", "--dim", "F=2",
         match="the graph has 3 vertices but A is 9 x 9")


def test_features_whose_width_disagrees(capsys, gcn_schedule, shared_datasets):
    _bad(capsys, "eval", gcn_schedule, "--program", "gcn", "--data", shared_datasets / "cora.npz",
         "--dim", "F=100", match="features are 2708 x 1433 but X is 2708 x 100")


def test_a_broken_hardware_file(capsys, gcn_schedule, tmp_path):
    hw = tmp_path / "hw.toml"
    hw.write_text("lanes = 'many'\n")
    _bad(capsys, "eval", gcn_schedule, "--program", "gcn", "--hardware", hw, match="must be a number")


def test_the_exact_executor_refuses_large_inputs(capsys, gcn_schedule):
    _bad(capsys, "eval", gcn_schedule, "--program", "gcn", "--executor", "exact", match="too many for the exact")


def test_an_unknown_preset(capsys):
    _bad(capsys, "compare", "gcn", "--preset", "citeseer", match="unknown graph preset")


def test_bad_input_in_a_subprocess(tmp_path):
    hw = tmp_path / "hw.toml"
    hw.write_text("lanes = [\n")
    schedule = tmp_path / "s.json"
    save_schedule(schedule, resolve_program("spmm"), default_schedule(resolve_program("spmm")))
    result = subprocess.run([sys.executable, "-m", "navigator", "eval", str(schedule), "--program", "spmm",
                             "--hardware", str(hw)], capture_output=True, text=True)
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and "TOML syntax error" in result.stderr
    assert "Traceback" not in result.stderr


def test_eval_compare_and_check_say_what_their_figures_are(capsys, gcn_schedule, shared_datasets):
    code, out, _ = _run(capsys, "eval", gcn_schedule, "--program", "gcn", *SMALL_GCN, "--seed", "5")
    assert code == 0
    assert "simulated" in out and "pipeline fill" in out and "overlapped with it" in out
    assert "data: synthetic preset cora scaled from 2,708 vertices, keeping its mean degree: 12 vertices" in out
    assert "seed 5" in out
    code, out, _ = _run(capsys, "compare", "gcn", *SMALL_GCN, "--seed", "3")
    assert "cycles and bytes are simulated" in out and "data: synthetic preset cora" in out and "seed 3" in out
    code, out, _ = _run(capsys, "compare", "gcn", "--data", shared_datasets / "cora.npz", "--json")
    assert json.loads(out)["data"].startswith(f"file {shared_datasets / 'cora.npz'}: 2,708 vertices")
    code, out, _ = _run(capsys, "check", "gcn", *SMALL_GCN)
    assert "estimated by the cost model (est.), not simulated" in out and "bytes read" in out and "est. " in out


def test_check_names_the_bound_vertex_count_not_the_presets(capsys):
    code, out, _ = _run(capsys, "check", "spmm", "--dim", "N=64")
    assert code == 0
    data_line = next(line for line in out.splitlines() if line.startswith("data:"))
    assert "scaled to N=64 vertices" in data_line and data_line.index("N=64") < data_line.index("2708")
    code, out, _ = _run(capsys, "check", "spmm")
    assert "data: preset cora (synthetic, 2708 vertices, 10556 edges)" in out


def test_eval_estimate_is_what_check_and_the_hints_say(capsys, gcn_schedule):
    """`eval --estimate` on the default schedule: the figures `check` prints for it, and the hint
    a complete schedule gets, in the simulated report's form."""
    from fuseflow.cost.estimate import schedule_cost
    from fuseflow.cost.hardware import load_hardware
    from fuseflow.cost.hints import estimate_hint
    from fuseflow.program.binding import bind
    from navigator.fuseflow.data_statistics import data_statistics

    code, out, err = _run(capsys, "eval", gcn_schedule, "--program", "gcn", *SMALL_GCN, "--estimate", "--json")
    assert code == 0, err
    estimate = json.loads(out)
    code, out, _ = _run(capsys, "check", "gcn", *SMALL_GCN, "--json")
    checked = json.loads(out)["default_schedule"]
    assert estimate["kind"] == "estimated"
    assert (estimate["cycles"], estimate["flops"], estimate["bytes"], estimate["roofline"]) == \
        (checked["cycles"], checked["flops"], checked["bytes"], checked["roofline"])
    assert [(r["ops"], r["order"], r["cycles"], r["roofline"], r["bottleneck"]) for r in estimate["regions"]] == \
        [(r["ops"], r["order"], r["cycles"], r["roofline"], r["bottleneck"]) for r in checked["regions"]]
    program = resolve_program("gcn")
    binding = bind(program, dims={"N": 12, "F": 4, "H": 2, "C": 2})
    hint = estimate_hint(schedule_cost(program, binding, default_schedule(program), load_hardware(),
                                       stats=data_statistics(program, binding)))
    assert (hint.cycles, hint.flops, hint.bytes) == (estimate["cycles"], estimate["flops"], estimate["bytes"])
    for region in estimate["regions"]:
        terms = (region["compute_cycles"], region["memory_cycles"], region["arithmetic_cycles"])
        assert region["cycles"] == max(terms) + region["fill_cycles"]
    code, out, _ = _run(capsys, "eval", gcn_schedule, "--program", "gcn", *SMALL_GCN, "--estimate")
    assert "estimated by the cost model, not simulated" in out and "est. cycles" in out and "[aggregate1]" in out


@pytest.mark.parametrize("flag", [["--executor", "exact"], ["--executor", "fast"], ["--graph"], ["--dot", "g.dot"],
                                  ["--no-check"]])
def test_eval_estimate_refuses_the_simulators_options(capsys, gcn_schedule, flag):
    code, out, err = _run(capsys, "eval", gcn_schedule, "--program", "gcn", *SMALL_GCN, "--estimate", *flag)
    assert code == 2 and out == ""
    line, = err.strip().splitlines()
    assert f"--estimate runs no simulation, so {flag[0]}" in line and "drop --estimate to simulate" in line


def test_eval_estimate_refuses_an_illegal_schedule(capsys, tmp_path):
    program = resolve_program("gcn")
    bad = Schedule((RegionSchedule(("aggregate1",), ("k", "i", "f"), (1, 1, 1)),) + default_schedule(program).regions[1:])
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(schedule_to_json(program, bad)))
    code, out, err = _run(capsys, "eval", path, "--program", "gcn", *SMALL_GCN, "--estimate")
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1 and "bad.json" in err


def test_compare_names_the_tuis_baseline_and_it_is_the_default_schedule(capsys):
    """`unfused_default_orders` is the compiler's default schedule, the one the TUI's Evaluation
    panel compares with (navigator.actions.evaluate_sketch), under the same name."""
    from fuseflow.cost.hardware import load_hardware
    from fuseflow.program.binding import bind
    from navigator.actions.evaluate_sketch import Evaluation
    from navigator.evaluation.baselines import DEFAULT_ORDERS, compare_baselines
    from simulator.evaluate import run_schedule
    from simulator.program_data import materialize

    program = resolve_program("gcn")
    binding = bind(program, dims={"N": 12, "F": 4, "H": 2, "C": 2})
    data = materialize(program, binding)
    rows = {r["name"]: r for r in compare_baselines(program, binding, load_hardware(), data=data)}
    assert rows[DEFAULT_ORDERS]["schedule"] == default_schedule(program)
    results, _ = run_schedule(program, binding, default_schedule(program), "fast", "accumulate", data, load_hardware(),
                              numerics=False)
    assert rows[DEFAULT_ORDERS]["cycles"] == sum(r.timing.cycles for r in results)
    assert Evaluation.__dataclass_fields__["baseline"].default == DEFAULT_ORDERS
    code, out, _ = _run(capsys, "compare", "gcn", *SMALL_GCN)
    assert code == 0 and f"  {DEFAULT_ORDERS}: " in out and "orders tuned" in out
