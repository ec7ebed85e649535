"""Batch evaluation throughput: uniformly sampled GCN schedules on the Cora-sized graph.

    python benchmarks/batch.py                  # 200 schedules, 1 and 2 local jobs
    python benchmarks/batch.py --schedules 40   # quicker

Samples schedules uniformly from the full GCN space (Cora-sized preset dimensions, via the
navigator's exact counts), then evaluates the same list with `run_batch` on a local process
pool of 1 and of 2 workers, each into a fresh results file, and prints JSON. Target: 2 jobs
at least 1.6x the schedules per second of 1 job. Pool start-up is timed separately; the
throughput counts only the batch itself (every candidate simulated and numerically checked).

The machine may be shared: the JSON also gives the load average before each run, the CPU
seconds the workers got, and the speedup two free cores would give (from schedules per
worker CPU second), so a figure measured under someone else's load can be read correctly.
(With Linux autogroup scheduling, each terminal session gets a fair share of the CPU however
many processes it runs: on a busy shared machine `cores_used` stays the same for 1 and 2 jobs.)
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _util import emit  # noqa: E402

TARGET_SPEEDUP = 1.6


def sample_candidates(count: int, seed: int):
    from fuseflow.schedule import schedule_to_json
    from navigator.batch import Candidate, schedule_key
    from navigator.navigation.sampling import UniformSampler
    from navigator.workspace import ProgramSpec

    start = time.perf_counter()
    space = ProgramSpec.from_user("gcn").load().space
    sampler = UniformSampler(space.oracle)
    rng = random.Random(seed)
    candidates = []
    for index in range(count):
        schedule = space.schedule_of(sampler.sample(rng))
        data = schedule_to_json(space.program, schedule)
        candidates.append(Candidate(f"sample-{index:03d}", schedule_key(data), data))
    return candidates, sampler.size(), time.perf_counter() - start


def run(candidates, jobs: int) -> dict:
    from navigator.batch import EvalConfig, ResultsLog, open_executor, run_batch
    from navigator.evaluation.tasks import ensure_reference, load_inputs
    from navigator.workspace import ProgramSpec

    config = EvalConfig(ProgramSpec.from_user("gcn"))
    # as `navigator batch` does: workers inherit the loaded inputs and the reference result
    ensure_reference(load_inputs(config.spec, None, None))
    load_before = os.getloadavg()[0]
    cpu_before = os.times()
    with tempfile.TemporaryDirectory() as tmp:
        with ResultsLog(Path(tmp) / "results.jsonl") as results:
            start = time.perf_counter()
            with open_executor("local", jobs) as handle:
                pool_seconds = time.perf_counter() - start
                summary = run_batch(candidates, config, handle.executor, results, slots=handle.slots,
                                    engine="local")
    cpu_after = os.times()  # the pool's workers have exited and been reaped: their CPU time is counted
    workers_cpu = (cpu_after.children_user - cpu_before.children_user
                   + cpu_after.children_system - cpu_before.children_system)
    return {"jobs": jobs, "seconds": round(summary.seconds, 3), "pool_startup_seconds": round(pool_seconds, 3),
            "schedules_per_second": round(summary.throughput, 3), "ok": summary.ok, "failed": summary.failed,
            "failures": dict(summary.failures),
            "workers_cpu_seconds": round(workers_cpu, 3),
            # CPU seconds the workers got per wall second: close to `jobs` on an idle machine
            "cores_used": round(workers_cpu / summary.seconds, 3) if summary.seconds else 0.0,
            "load_average_before": round(load_before, 2)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--schedules", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    candidates, space, sampling_seconds = sample_candidates(args.schedules, args.seed)
    one = run(candidates, 1)
    two = run(candidates, 2)
    speedup = two["schedules_per_second"] / one["schedules_per_second"] if one["schedules_per_second"] else 0.0
    # Throughput per CPU second is what the machine's other load cannot change: the speedup two
    # workers would give with two free cores.
    per_cpu = [r["ok"] / r["workers_cpu_seconds"] if r["workers_cpu_seconds"] else 0.0 for r in (one, two)]
    cpu_bound_speedup = 2 * per_cpu[1] / per_cpu[0] if per_cpu[0] else 0.0
    emit({
        "benchmark": "batch",
        "program": "gcn",
        "data": "cora preset (synthetic graph with Cora's sizes: 2708 vertices, 1433 features)",
        "sampling": {"schedules": args.schedules, "distinct": len({c.key for c in candidates}),
                     "space": str(space), "seed": args.seed, "seconds": round(sampling_seconds, 3),
                     "method": "uniform, from the navigator's exact counts on the full Cora-sized dimensions"},
        "evaluation": {"executor": "fast", "check": True, "policy": "accumulate"},
        "cpu_count": os.cpu_count(),
        "runs": [one, two],
        "speedup_2_vs_1": round(speedup, 3),
        "estimated_speedup_on_two_idle_cores": round(cpu_bound_speedup, 3),
        "target_speedup": TARGET_SPEEDUP,
        "meets_target": speedup >= TARGET_SPEEDUP,
    })


if __name__ == "__main__":
    main()
