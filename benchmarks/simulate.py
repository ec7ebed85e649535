"""Simulator benchmarks, printed as JSON.

    python benchmarks/simulate.py            # all parts, each in its own process
    python benchmarks/simulate.py --part cora

Parts (two-layer GCN, default = unfused schedule, fast executor unless stated):
  cora        fast executor + timing on the real Cora graph (target <= 1 s)
  ogb_collab  the same on the OGB-Collab-shaped graph: 235,868 vertices, 2,570,930 edges
              (target <= 30 s and <= 4 GiB peak RSS)
  edges10m    the same on the OGB-Collab preset scaled to 917,400 vertices (its mean degree:
              about 10 M edges; target: the whole eval in <= 60 s)
  exact       exact executor throughput in tokens per second (target: 1e6 tokens in <= 10 s)

Each part runs in a fresh process so its peak RSS (getrusage ru_maxrss) is its own. Data
generation / loading is timed separately from the simulation. With PYTHONPATH set, the code
under it is measured (e.g. another checkout, for a before/after figure); otherwise this one.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CORA = REPO.parent / "shared" / "datasets" / "cora.npz"


def _peak_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def _gcn(preset: str | None = None, data: str | None = None, dims=None):
    from fuseflow.program.binding import bind
    from fuseflow.program.bundled import resolve_program

    program = resolve_program("gcn")
    if preset:
        program = dataclasses.replace(program, data=dataclasses.replace(program.data, preset=preset))
    return program, bind(program, data, dims)


def part_fast(preset: str | None, data: str | None, dims: dict | None = None) -> dict:
    from fuseflow.cost.hardware import load_hardware
    from fuseflow.schedule import default_schedule
    from simulator.program_data import materialize
    from simulator.evaluate import compare, run_schedule
    from simulator.reference import evaluate_program

    start, cpu = time.perf_counter(), time.process_time()
    program, binding = _gcn(preset, data, dims)
    inputs = materialize(program, binding)
    load_s, load_cpu = time.perf_counter() - start, time.process_time() - cpu
    schedule = default_schedule(program)
    cpu = time.process_time()
    run_schedule(program, binding, schedule, "fast", data=inputs, hardware=load_hardware(), numerics=False)
    counts_cpu = time.process_time() - cpu
    start, cpu = time.perf_counter(), time.process_time()
    regions, values = run_schedule(program, binding, schedule, "fast", data=inputs, hardware=load_hardware())
    simulate_s, simulate_cpu = time.perf_counter() - start, time.process_time() - cpu
    start, cpu = time.perf_counter(), time.process_time()
    reference = evaluate_program(program, inputs.arrays, binding.extents)
    check = compare(values, reference, [t for r in regions for t in r.written])
    check_s, check_cpu = time.perf_counter() - start, time.process_time() - cpu
    adjacency = inputs.arrays["A"]
    return {"graph": {"vertices": int(adjacency.shape[0]), "stored_edges": int(adjacency.nnz),
                      "source": binding.data_source},
            "schedule": "unfused (default)", "load_seconds": round(load_s, 3),
            "simulate_seconds": round(simulate_s, 3), "reference_check_seconds": round(check_s, 3),
            "eval_seconds": round(load_s + simulate_s + check_s, 3),
            # CPU seconds (user + system) of each phase: wall time on a shared machine varies
            # the numerical check costs the simulated values (simulate minus counts only) and the
            # reference with the comparison
            "cpu_seconds": {"load": round(load_cpu, 3), "simulate": round(simulate_cpu, 3),
                            "simulate_counts_only": round(counts_cpu, 3), "reference_check": round(check_cpu, 3),
                            "check": round(simulate_cpu - counts_cpu + check_cpu, 3),
                            "eval": round(load_cpu + simulate_cpu + check_cpu, 3)},
            "check_passed": check.passed, "cycles": sum(r.timing.cycles for r in regions),
            "flops": sum(r.flops for r in regions), "bytes": sum(r.traffic.bytes for r in regions),
            "tokens": sum(c.data + c.stops for r in regions for c in r.run.counts.values()),
            "peak_rss_mib": round(_peak_mib(), 1)}


def part_exact() -> dict:
    from fuseflow.cost.hardware import load_hardware
    from fuseflow.schedule import RegionSchedule, Schedule
    from simulator.program_data import materialize
    from simulator.evaluate import run_schedule

    # Layer 1 of GCN fused, on a 600-vertex Cora-shaped graph with 24 features and 16 hidden.
    program, binding = _gcn(dims={"N": 600, "F": 24})
    inputs = materialize(program, binding)
    ops = ("aggregate1", "transform1", "activate1")
    schedule = Schedule((RegionSchedule(ops, ("i", "k", "f", "h"), (1, 1, 1, 1)),
                         RegionSchedule(("aggregate2",), ("i", "k", "h"), (1, 1, 1)),
                         RegionSchedule(("transform2",), ("i", "h", "c"), (1, 1, 1)),
                         RegionSchedule(("bias2",), ("i", "c"), (1, 1))))
    start = time.perf_counter()
    regions, _ = run_schedule(program, binding, schedule, "exact", policy="accumulate", data=inputs,
                              hardware=load_hardware())
    seconds = time.perf_counter() - start
    tokens = sum(c.data + c.stops for r in regions for c in r.run.counts.values())
    return {"problem": "gcn, N=600 F=24 H=16 C=7, layer 1 fused (order i k f h, policy accumulate)",
            "tokens": tokens, "seconds": round(seconds, 3), "tokens_per_second": round(tokens / seconds),
            "seconds_per_million_tokens": round(seconds / tokens * 1e6, 3),
            "peak_rss_mib": round(_peak_mib(), 1)}


PARTS = {
    "cora": lambda: part_fast(None, str(CORA)),
    "ogb_collab": lambda: part_fast("ogb_collab", None),
    "edges10m": lambda: part_fast("ogb_collab", None, {"N": 917_400}),
    "exact": part_exact,
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--part", choices=sorted(PARTS))
    args = parser.parse_args()
    if args.part:
        print(json.dumps(PARTS[args.part]()))
        return
    results = {}
    for name in PARTS:
        out = subprocess.run([sys.executable, __file__, "--part", name], capture_output=True, text=True,
                             cwd=REPO, check=True)
        results[name] = json.loads(out.stdout.strip().splitlines()[-1])
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    if "PYTHONPATH" not in os.environ:
        sys.path.insert(0, str(REPO))
    main()
