"""The fusion and parallelism trends of docs/trends.md, printed as JSON.

    python benchmarks/trends.py                      # the table in docs/trends.md
    python benchmarks/trends.py --policy stream      # the cost model's streaming rule
    python benchmarks/trends.py --datasets cora --programs gcn

For each graph (real Cora and Cora_ML files; synthetic DBLP- and OGB-Collab-shaped presets)
and each program (two-layer GCN, GraphSAGE), `navigator compare` simulates the unfused,
per-layer and fully fused baselines (navigator/evaluation/baselines.py), and the per-layer grouping
once more with, in each region, the shortlisted order that moves the fewest bytes instead of
the fastest one (`per_layer_fewest_bytes`). A second experiment forks the rows of a dense
matmul (a balanced level) by 1, 2 and 4. `checks` says whether each trend holds.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DATASETS = REPO.parent / "shared" / "datasets"
GRAPHS = {"cora": ("file", DATASETS / "cora.npz"), "cora_ml": ("file", DATASETS / "cora_ml.npz"),
          "dblp": ("preset", "dblp"), "ogb_collab": ("preset", "ogb_collab")}
MIB = 2 ** 20


def load(program_name: str, graph: str):
    """The program bound to one of GRAPHS, its generated inputs, and the default hardware."""
    from fuseflow.program.binding import bind
    from fuseflow.program.bundled import resolve_program
    from fuseflow.cost.hardware import load_hardware
    from simulator.program_data import materialize

    program = resolve_program(program_name)
    kind, where = GRAPHS[graph]
    data = None
    if kind == "file":
        data = str(where)
    else:
        program = dataclasses.replace(program, data=dataclasses.replace(program.data, preset=where))
    binding = bind(program, data)
    return program, binding, materialize(program, binding), load_hardware()


def fusion_rows(program_name: str, graph: str, policy: str, parallel: bool) -> dict:
    from navigator.evaluation.baselines import compare_baselines, totals, tune
    from simulator.evaluate import Machine

    start = time.perf_counter()
    program, binding, inputs, hw = load(program_name, graph)
    rows = compare_baselines(program, binding, hw, policy=policy, parallel=parallel, data=inputs)
    # The same per-layer grouping with, in each region, the shortlisted order that moves the
    # fewest bytes rather than the fastest one.
    per_layer = next(r for r in rows if r["name"] == "per_layer")
    results = tune(Machine(program, binding, inputs, hw, policy, numerics=False),
                   [tuple(g) for g in per_layer["fusion"]], parallel, tie=math.inf)
    frugal = {"name": "per_layer_fewest_bytes", **totals(results)}
    frugal["speedup"] = rows[0]["cycles"] / frugal["cycles"]
    for row in rows:
        del row["schedule"]
        for key in ("bytes", "compulsory_bytes"):
            if row[key] is not None:
                row[key.replace("bytes", "mib")] = round(row[key] / MIB, 1)
    unfused = rows[0]
    for row in rows[1:]:
        if row["flops"] is not None:
            row["flops_over_unfused"] = row["flops"] / unfused["flops"]
    for key in ("bytes", "compulsory_bytes"):
        frugal[key.replace("bytes", "mib")] = round(frugal[key] / MIB, 1)
    return {"program": program_name, "graph": graph, "data": binding.data_source,
            "seconds": round(time.perf_counter() - start, 1), "baselines": rows, "per_layer_fewest_bytes": frugal}


def literal_layers(program_name: str, graph: str, policy: str, parallel: bool) -> dict:
    """Each GNN layer as one region even when that recomputes (what the streaming rule forces),
    against the unfused baseline."""
    from fuseflow.analysis.fusion import unfused
    from navigator.evaluation.baselines import totals, tune
    from simulator.evaluate import Machine

    program, binding, inputs, hw = load(program_name, graph)
    layers = (("aggregate1", "transform1", "activate1"), ("aggregate2", "transform2", "bias2"))
    out = {}
    for name, grouping in (("unfused", unfused(program)), ("layers", layers)):
        results = tune(Machine(program, binding, inputs, hw, policy, numerics=False), grouping, parallel)
        out[name] = totals(results)
    out["speedup"] = out["unfused"]["cycles"] / out["layers"]["cycles"]
    out["flops_over_unfused"] = out["layers"]["flops"] / out["unfused"]["flops"]
    return {"program": program_name, "graph": graph, **out}


def par_rows() -> dict:
    """Rows of the dense matmul T(i,k) * C(k,l) dealt to 1, 2 and 4 lanes (every row the same work)."""
    from fuseflow.program.binding import bind
    from fuseflow.program.bundled import resolve_program
    from fuseflow.schedule import RegionSchedule, Schedule
    from simulator.evaluate import evaluate

    program = resolve_program("nested_matmul")
    binding = bind(program)
    out = {}
    for factor in (1, 2, 4):
        schedule = Schedule((RegionSchedule(("matmul1",), ("i", "j", "k"), (factor, 1, 1)),
                             RegionSchedule(("matmul2",), ("i", "k", "l"), (factor, 1, 1))))
        report = evaluate(program, binding, schedule, check=False)
        out[factor] = report.regions[1].timing.cycles
    return {"program": "nested_matmul", "region": "matmul2: E(i,l) = T(i,k) * C(k,l), order i k l, fork on i",
            "cycles": out, "speedup": {f: out[1] / c for f, c in out.items()}}


def checks(fusion: list[dict], par: dict) -> dict:
    result = {"per_layer_at_least_1.3x": True, "per_layer_moves_fewer_bytes": True,
              "per_layer_fewer_compulsory_bytes": True, "full_fusion_slower": True,
              "full_fusion_flops_over_5x": True, "per_layer_fewest_bytes_at_least_1.3x": True,
              "per_layer_fewest_bytes_moves_fewer_bytes": True}
    for entry in fusion:
        base = {b["name"]: b for b in entry["baselines"]}
        unfused, layer, full = base["unfused"], base["per_layer"], base["fully_fused"]
        result["per_layer_at_least_1.3x"] &= layer["speedup"] is not None and layer["speedup"] >= 1.3
        result["per_layer_moves_fewer_bytes"] &= layer["bytes"] < unfused["bytes"]
        result["per_layer_fewer_compulsory_bytes"] &= layer["compulsory_bytes"] < unfused["compulsory_bytes"]
        frugal = entry["per_layer_fewest_bytes"]
        result["per_layer_fewest_bytes_at_least_1.3x"] &= frugal["speedup"] >= 1.3
        result["per_layer_fewest_bytes_moves_fewer_bytes"] &= frugal["bytes"] < unfused["bytes"]
        if full["cycles"] is not None:
            result["full_fusion_slower"] &= full["speedup"] < 1.0
            result["full_fusion_flops_over_5x"] &= full["flops"] > 5 * unfused["flops"]
    result["par_2_at_least_1.8x"] = par["speedup"][2] >= 1.8
    result["par_4_at_least_3.5x"] = par["speedup"][4] >= 3.5
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--policy", choices=("stream", "accumulate"), default="accumulate")
    parser.add_argument("--scalar", action="store_true", help="baselines without par factors or vector widths")
    parser.add_argument("--datasets", nargs="+", default=list(GRAPHS), choices=list(GRAPHS))
    parser.add_argument("--programs", nargs="+", default=["gcn", "graphsage"])
    parser.add_argument("--literal-layers", action="store_true",
                        help="also fuse each GCN layer into one region even if it recomputes")
    args = parser.parse_args()
    fusion = [fusion_rows(p, g, args.policy, not args.scalar) for g in args.datasets for p in args.programs]
    par = par_rows()
    out = {"policy": args.policy, "parallel_baselines": not args.scalar, "fusion": fusion, "par": par,
           "checks": checks(fusion, par)}
    if args.literal_layers:
        out["gcn_literal_layers"] = [literal_layers("gcn", g, args.policy, not args.scalar) for g in args.datasets]
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    sys.path.insert(0, str(REPO))
    main()
