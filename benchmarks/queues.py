"""Bounded queues: how far the fast executor's cycles (no back-pressure) fall below the exact
executor's cycle-level pipeline, and what the pipeline costs. Prints JSON.

    python benchmarks/queues.py                 # both parts
    python benchmarks/queues.py --part error --schedules 12

Parts:
  error       random small data and random legal schedules of the bundled programs, at queue
              depths 1, 2 and 3: per region, exact cycles / fast cycles - 1 with no region
              stepped (the error of the bound the fast executor reports for regions over
              simulator.timing.STEPPED_TOKENS tokens); median, p95 and max, over all regions
              and per program
  throughput  the exact executor on layer 1 of GCN (N=600, as benchmarks/simulate.py's exact
              part) with queues of depth 2: tokens per second including both pipeline runs
  baselines   compare's baselines (both settings, orders chosen with unbounded queues) on a real
              graph (--graph, default Cora), re-simulated with queues of depth 2, regions of up
              to --step-tokens tokens stepped: cycles, speedups over unfused and each region's
              stall and queue model, at both depths
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._util import emit, summary  # noqa: E402

PROGRAMS = ["spmm", "sddmm", "gcn", "graphsage", "nested_matmul", "sparse_autoencoder"]


def part_error(schedules: int) -> dict:
    import numpy as np

    from fuseflow.cost.hardware import load_hardware
    from fuseflow.program.binding import bind
    from fuseflow.program.bundled import resolve_program
    from simulator import timing
    from simulator.evaluate import run_schedule
    from simulator.program_data import materialize
    from tests.simulator.helpers import SMALL_DIMS, random_schedule

    # the bound is what the fast executor reports for regions over timing.STEPPED_TOKENS; small
    # regions are stepped (and exact), so step none to measure the bound on small data
    timing.STEPPED_TOKENS = 0
    out: dict = {}
    for depth in (1, 2, 3):
        hw = dataclasses.replace(load_hardware(), queue_depth=depth)
        errors: list[float] = []
        per_program: dict[str, list[float]] = {}
        for name in PROGRAMS:
            program = resolve_program(name)
            binding = bind(program, dims=SMALL_DIMS[name])
            rng = np.random.default_rng(depth * 100 + len(name))
            for k in range(schedules):
                data = materialize(program, binding, k)
                schedule = random_schedule(program, binding, rng)
                exact, _ = run_schedule(program, binding, schedule, "exact", "stream", data, hw, numerics=False)
                fast, _ = run_schedule(program, binding, schedule, "fast", "stream", data, hw, numerics=False)
                for re, rf in zip(exact, fast):
                    error = re.timing.cycles / rf.timing.cycles - 1
                    errors.append(error)
                    per_program.setdefault(name, []).append(error)
        out[f"depth_{depth}"] = {"regions": len(errors), "fast_bound_error": summary(errors),
                                 "exact_above_fast_share": sum(e > 1e-12 for e in errors) / len(errors),
                                 "per_program_max": {n: round(max(v), 4) for n, v in per_program.items()}}
    return out


def part_throughput() -> dict:
    from fuseflow.cost.hardware import load_hardware
    from fuseflow.program.binding import bind
    from fuseflow.program.bundled import resolve_program
    from fuseflow.schedule import RegionSchedule, Schedule
    from simulator.evaluate import run_schedule
    from simulator.program_data import materialize

    program = resolve_program("gcn")
    binding = bind(program, dims={"N": 600, "F": 24})
    inputs = materialize(program, binding)
    schedule = Schedule((RegionSchedule(("aggregate1", "transform1", "activate1"), ("i", "k", "f", "h"),
                                        (1, 1, 1, 1)),
                         RegionSchedule(("aggregate2",), ("i", "k", "h"), (1, 1, 1)),
                         RegionSchedule(("transform2",), ("i", "h", "c"), (1, 1, 1)),
                         RegionSchedule(("bias2",), ("i", "c"), (1, 1))))
    figures = {}
    for depth in (0, 2):
        hw = dataclasses.replace(load_hardware(), queue_depth=depth)
        start = time.perf_counter()
        regions, _ = run_schedule(program, binding, schedule, "exact", "accumulate", inputs, hw)
        seconds = time.perf_counter() - start
        tokens = sum(c.data + c.stops for r in regions for c in r.run.counts.values())
        figures[f"depth_{depth}"] = {"tokens": tokens, "seconds": round(seconds, 3),
                                     "tokens_per_second": round(tokens / seconds),
                                     "cycles": sum(r.timing.cycles for r in regions),
                                     "queue_stall": [round(r.timing.queue_stall, 4) for r in regions]}
    return figures


def part_baselines(graph: str, steps: int) -> dict:
    from benchmarks.trends import load
    from navigator.evaluation.baselines import compare_baselines
    from simulator import timing
    from simulator.evaluate import run_schedule

    timing.STEPPED_TOKENS = steps   # larger regions keep the bound (queue_model "bound")
    out: dict = {}
    for name in ("gcn", "graphsage"):
        program, binding, inputs, default = load(name, graph)
        for setting in ("defaults", "parallel"):
            rows = compare_baselines(program, binding, default, parallel=setting == "parallel", data=inputs)
            entry = {}
            for depth in (0, 2):
                hw = dataclasses.replace(default, queue_depth=depth)
                cycles = {}
                for row in rows:
                    if row["schedule"] is None:
                        continue
                    start = time.perf_counter()
                    regions, _ = run_schedule(program, binding, row["schedule"], "fast", "accumulate", inputs, hw,
                                              numerics=False)
                    cycles[row["name"]] = {"cycles": sum(r.timing.cycles for r in regions),
                                           "queue_stall": [round(r.timing.queue_stall, 3) for r in regions],
                                           "queue_model": [r.timing.queue_model for r in regions],
                                           "seconds": round(time.perf_counter() - start, 1)}
                unfused = cycles["unfused"]["cycles"]
                for figures in cycles.values():
                    figures["speedup"] = round(unfused / figures["cycles"], 4)
                entry[f"depth_{depth}"] = cycles
                print(f"{name} {setting} depth {depth}: " + ", ".join(f"{k} {v['speedup']}x" for k, v in cycles.items()),
                      file=sys.stderr, flush=True)
            out[f"{name}/{setting}"] = entry
    return {"graph": graph, **out}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--part", choices=["error", "throughput", "baselines"])
    parser.add_argument("--graph", default="cora", help="the graph of the baselines part (benchmarks/trends.GRAPHS)")
    parser.add_argument("--step-tokens", type=int, default=3_000_000,
                        help="the baselines part steps regions up to this many tokens (the others keep the bound)")
    parser.add_argument("--schedules", type=int, default=8, help="random schedules per program and depth")
    args = parser.parse_args()
    figures = {}
    if args.part in (None, "error"):
        figures["error"] = part_error(args.schedules)
    if args.part in (None, "throughput"):
        figures["throughput"] = part_throughput()
    if args.part == "baselines":
        figures["baselines"] = part_baselines(args.graph, args.step_tokens)
    emit(figures)


if __name__ == "__main__":
    main()
