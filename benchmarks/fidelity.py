"""Where the literature's fusion trends hold: a hardware sweep of `navigator compare`'s baselines,
printed as JSON (docs/trends.md reads it).

    python benchmarks/fidelity.py                                   # the whole sweep (long; see docs/trends.md)
    python benchmarks/fidelity.py --graphs cora --axes lanes         # one graph, one axis
    python benchmarks/fidelity.py --quick                           # Cora only, each axis's end points
    python benchmarks/fidelity.py --graphs cora --axes depth --step-tokens 5000000   # back-pressure

Each axis is swept on its own around the default hardware (fuseflow/cost/hardware.toml), the
other keys at their defaults:

  lanes                 1, 2, 4, 8, 16
  memory_bytes_per_cycle 16, 32, 64, 128, 256
  onchip_buffer_bytes   64 KiB, 256 KiB, 1 MiB, 4 MiB
  queue_depth           0 (unbounded), 2

At every point, GCN and GraphSAGE on each graph (real Cora and Cora_ML files, DBLP- and
OGB-Collab-shaped synthetic graphs) run the unfused, per-layer and fully fused baselines under
both settings of `compare` (defaults: no lanes, scalar streams; parallel: lanes and vectors).
A row gives the per-layer and full-fusion speedups over that setting's unfused baseline and the
per-layer fusion's DRAM bytes over the unfused ones. `trends` says, per program and setting,
at which points per-layer fusion wins (speedup > 1) and full fusion loses (speedup < 1).

Back-pressure (queue_depth > 0) is stepped only in regions of at most --step-tokens tokens
(simulator.timing.STEPPED_TOKENS, 20,000 by default); larger regions get the fast executor's
lower bound, so on real graphs the depth axis needs --step-tokens above the regions' tokens
(Cora: about 10**6 per region, some seconds each).
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._util import emit  # noqa: E402
from benchmarks.trends import GRAPHS, load  # noqa: E402

KIB = 1024
AXES = {
    "lanes": (1, 2, 4, 8, 16),
    "memory_bytes_per_cycle": (16, 32, 64, 128, 256),
    "onchip_buffer_bytes": (64 * KIB, 256 * KIB, 1024 * KIB, 4096 * KIB),
    "queue_depth": (0, 2),
}
SHORT = {"bandwidth": "memory_bytes_per_cycle", "buffer": "onchip_buffer_bytes", "depth": "queue_depth"}
SETTINGS = ("defaults", "parallel")


def sweep_points(axes: list[str], quick: bool) -> list[tuple[str, object]]:
    """(axis, value) per hardware point; the default point once, as ("default", None)."""
    from fuseflow.cost.hardware import load_hardware

    default = load_hardware()
    points = [("default", None)]
    for axis in axes:
        values = AXES[axis]
        for value in (values[0], values[-1]) if quick else values:
            if getattr(default, axis) != value:
                points.append((axis, value))
    return points


def baseline_row(program, binding, inputs, hw, setting: str, policy: str, orders: int | None) -> dict:
    from navigator.evaluation.baselines import compare_baselines

    rows = {r["name"]: r for r in compare_baselines(program, binding, hw, policy=policy,
                                                    parallel=setting == "parallel", data=inputs, orders=orders)}
    unfused, layer, full = rows["unfused"], rows["per_layer"], rows["fully_fused"]
    return {"unfused_cycles": unfused["cycles"], "per_layer_speedup": layer["speedup"],
            "full_fusion_speedup": full["speedup"],
            "per_layer_bytes_over_unfused": layer["bytes"] / unfused["bytes"] if unfused["bytes"] else None,
            "full_fusion_flops_over_unfused": (full["flops"] / unfused["flops"]
                                               if full["flops"] is not None and unfused["flops"] else None),
            "per_layer_roofline": layer["roofline"]}


def _times(x) -> str:
    return "not simulated" if x is None else f"{x:.3g}x"


def trends(rows: list[dict]) -> dict:
    """Per program and setting: the points where per-layer fusion wins and where full fusion loses."""
    out: dict = {}
    for row in rows:
        key = f"{row['program']}/{row['setting']}"
        entry = out.setdefault(key, {"points": 0, "per_layer_wins": 0, "full_fusion_loses": 0,
                                     "per_layer_loses_at": [], "full_fusion_wins_at": [],
                                     "per_layer_speedup_range": [None, None]})
        entry["points"] += 1
        s = row["per_layer_speedup"]
        if s is not None:
            lo, hi = entry["per_layer_speedup_range"]
            entry["per_layer_speedup_range"] = [s if lo is None else min(lo, s), s if hi is None else max(hi, s)]
            if s > 1:
                entry["per_layer_wins"] += 1
            else:
                entry["per_layer_loses_at"].append(f"{row['graph']} {row['axis']}={row['value']}")
        f = row["full_fusion_speedup"]
        if f is not None:
            if f < 1:
                entry["full_fusion_loses"] += 1
            else:
                entry["full_fusion_wins_at"].append(f"{row['graph']} {row['axis']}={row['value']}")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--programs", nargs="+", default=["gcn", "graphsage"])
    parser.add_argument("--graphs", nargs="+", choices=sorted(GRAPHS), default=list(GRAPHS))
    parser.add_argument("--axes", nargs="+", default=list(AXES),
                        help=f"axes to sweep: {', '.join(AXES)} (or bandwidth, buffer, depth)")
    parser.add_argument("--settings", nargs="+", choices=SETTINGS, default=list(SETTINGS))
    parser.add_argument("--policy", choices=("stream", "accumulate"), default="accumulate")
    parser.add_argument("--quick", action="store_true", help="Cora only, and each axis's end points")
    parser.add_argument("--orders", default="6", metavar="N|all",
                        help="orders simulated per region, as `navigator compare --orders` (default 6)")
    parser.add_argument("--step-tokens", type=int, default=None,
                        help="step the queues of regions up to this many tokens (default: the simulator's)")
    args = parser.parse_args()
    from simulator import timing

    if args.step_tokens is not None:
        timing.STEPPED_TOKENS = args.step_tokens
    axes = [SHORT.get(a, a) for a in args.axes]
    unknown = [a for a in axes if a not in AXES]
    if unknown:
        parser.error(f"unknown axis {unknown[0]!r}; expected one of {', '.join(AXES)}")
    orders = None if args.orders == "all" else int(args.orders)
    graphs = ["cora"] if args.quick else args.graphs
    points = sweep_points(axes, args.quick)
    start = time.perf_counter()
    rows = []
    for graph in graphs:
        for name in args.programs:
            program, binding, inputs, default = load(name, graph)
            for axis, value in points:
                hw = default if axis == "default" else dataclasses.replace(default, **{axis: value})
                for setting in args.settings:
                    t0 = time.perf_counter()
                    row = {"program": name, "graph": graph, "axis": axis, "value": value, "setting": setting,
                           **baseline_row(program, binding, inputs, hw, setting, args.policy, orders),
                           "seconds": round(time.perf_counter() - t0, 2)}
                    rows.append(row)
                    print(f"{name} {graph} {axis}={value} {setting}: per-layer {_times(row['per_layer_speedup'])}, "
                          f"full {_times(row['full_fusion_speedup'])}", file=sys.stderr, flush=True)
    emit({"benchmark": "fidelity", "policy": args.policy, "executor": "fast",
          "step_tokens": timing.STEPPED_TOKENS, "orders": args.orders,
          "axes": {a: list(AXES[a]) for a in axes}, "graphs": graphs, "programs": args.programs,
          "seconds": round(time.perf_counter() - start, 1), "trends": trends(rows), "rows": rows})


if __name__ == "__main__":
    main()
