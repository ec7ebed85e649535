"""How Navigator scales to programs with hundreds of ops (issue 11). Prints JSON.

For deep_gcn at 2, 8, 32 and 64 layers, transformer_block, transformer12 (and gcn, the
reference for "no slower than before"):
  * ops, the exact number of legal fusion groupings and of complete schedules;
  * wall time and peak memory (RSS) of `navigator check`, `count` and `start`, each in a fresh
    process with an empty cache (what a first run pays; `--warm` also runs each a second time,
    from the cache);
  * over a full navigation that takes the default at every hole: the time to recompute every
    menu of the sketch after each step (median, p95, max), in process;
  * `--fill-growth`: the default fill of the whole sketch as one command (`fill ?0 --auto
    default --subtree`), in process, on deep_gcn at 8 to 128 layers and transformer12, and the
    exponent k of time ~ steps^k fitted over deep_gcn (1: linear in the steps; issue 24).

Targets on 2 cores: transformer12 and deep_gcn-64 start in <= 2 s and <= 1 GiB, count in
<= 2 s, menus p95 <= 50 ms; gcn start <= 0.1 s and menus p95 <= 1 ms.

    python benchmarks/scale.py                       # everything (a few minutes)
    python benchmarks/scale.py --programs gcn,deep_gcn:8
    python benchmarks/scale.py --programs '' --fill-growth
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CONFIGS = ["gcn", "deep_gcn:2", "deep_gcn:8", "deep_gcn:32", "deep_gcn:64", "transformer_block", "transformer12"]
TARGETS = {"transformer12": {"start_seconds": 2.0, "start_peak_mib": 1024, "count_seconds": 2.0, "menus_p95_ms": 50},
           "deep_gcn:64": {"start_seconds": 2.0, "start_peak_mib": 1024, "count_seconds": 2.0, "menus_p95_ms": 50},
           # gcn's start-up target is the in-process one benchmarks/menu_latency.py measures (facts,
           # oracle, first menus): a process alone takes about 0.1 s to import Python and numpy
           "gcn": {"space_build_seconds": 0.1, "menus_p95_ms": 1}}

# Runs one command in a child and reports the child's wall time and peak RSS (ru_maxrss of the
# children of this tiny wrapper is that one child's).
_WRAPPER = """
import json, resource, subprocess, sys, time
t = time.perf_counter()
done = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
seconds = time.perf_counter() - t
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
print(json.dumps({"seconds": seconds, "peak_mib": peak, "exit": done.returncode, "stderr": done.stderr[-300:]}))
"""


def program_args(config: str) -> list[str]:
    name, _, layers = config.partition(":")
    return [name] + (["--dim", f"layers={layers}"] if layers else [])


def run_command(argv: list[str], env: dict, cwd: Path) -> dict:
    out = subprocess.run([sys.executable, "-c", _WRAPPER, sys.executable, "-m", "navigator", *argv],
                         capture_output=True, text=True, env=env, cwd=cwd, check=True)
    row = json.loads(out.stdout)
    row["seconds"] = round(row["seconds"], 3)
    row["peak_mib"] = round(row["peak_mib"], 1)
    if row["exit"] == 0:
        del row["stderr"]
    return row


def commands(config: str, warm: bool) -> dict:
    results = {}
    with tempfile.TemporaryDirectory() as scratch:
        cwd = Path(scratch)
        env = dict(os.environ, NAVIGATOR_CACHE_DIR=str(cwd / "cache"))
        args = program_args(config)
        for command in ("check", "count", "start"):
            extra = ["--session", "s.json"] if command == "start" else []
            results[command] = run_command([command, *args, *extra], env, cwd)
            if warm:
                (cwd / "s.json").unlink(missing_ok=True)
                results[command + "_warm"] = run_command([command, *args, *extra], env, cwd)
            (cwd / "s.json").unlink(missing_ok=True)
    return results


def navigation(config: str) -> dict:
    """Menus recomputed after each step of a navigation taking the default at every hole."""
    from fuseflow.program.binding import bind
    from fuseflow.program.bundled import resolve_program
    from fuseflow.analysis.fusion_steps import count_groupings
    from navigator.fuseflow.schedule_space import ScheduleSpace

    name, _, layers = config.partition(":")
    dims = {"layers": int(layers)} if layers else {}
    program = resolve_program(name, dims)
    binding = bind(program, None, dims)
    t0 = time.perf_counter()
    space = ScheduleSpace.build(program, binding)
    oracle = space.oracle
    sketch = oracle.initial_sketch()
    menus = oracle.menus(sketch)
    menus.holes  # noqa: B018 - builds every hole's menu
    build = time.perf_counter() - t0
    times = []
    while not sketch.complete:
        first = menus.holes[0]
        option = first.default or first.options[0]
        sketch = oracle.apply(sketch, option)
        t = time.perf_counter()
        menus = oracle.menus(sketch)
        menus.holes  # noqa: B018
        times.append(time.perf_counter() - t)
    times.sort()
    p95 = times[min(len(times) - 1, int(0.95 * len(times)))]
    return {"ops": len(program.ops), "groupings": str(count_groupings(program)),
            "schedules": str(oracle.count(oracle.initial_sketch()).value),
            "facts": len(space.fact_records), "space_build_seconds": round(build, 3), "steps": len(times),
            "menus_ms": {"median": round(statistics.median(times) * 1000, 3), "p95": round(p95 * 1000, 3),
                         "max": round(times[-1] * 1000, 3)}}


GROWTH_CONFIGS = ["deep_gcn:8", "deep_gcn:16", "deep_gcn:32", "deep_gcn:64", "deep_gcn:128", "transformer12"]


def default_fill(config: str) -> dict:
    """Seconds of one `fill ?0 --auto default --subtree` command from ?0 (the space built
    beforehand, as a warm cache gives it), and the steps it took, forced ones included."""
    import gc

    from fuseflow.program.binding import bind
    from fuseflow.program.bundled import resolve_program
    from navigator.auto.default import DefaultStrategy
    from navigator.auto.driver import fill
    from navigator.auto.base import Scope
    from navigator.fuseflow.schedule_space import ScheduleSpace
    from navigator.navigation.session import Session
    from navigator.process.heap import keep_loaded

    name, _, layers = config.partition(":")
    dims = {"layers": int(layers)} if layers else {}
    program = resolve_program(name, dims)
    space = ScheduleSpace.build(program, bind(program, None, dims))
    session = Session(space.library, space.facts, oracle=space.oracle)
    session.settle()
    keep_loaded()  # as a command does once its space is loaded
    t = time.perf_counter()
    steps = fill(session, session.sketch.lowest_hole().id, DefaultStrategy(), Scope.SUBTREE, space=space)
    seconds = time.perf_counter() - t
    assert session.sketch.complete
    gc.unfreeze()
    return {"program": config, "steps": len(steps), "seconds": round(seconds, 3),
            "ms_per_step": round(1000 * seconds / len(steps), 3)}


def growth_exponent(rows: list[dict]) -> float:
    """Least-squares slope of log(seconds) over log(steps)."""
    import math

    xs = [math.log(r["steps"]) for r in rows]
    ys = [math.log(r["seconds"]) for r in rows]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)


def fill_growth() -> dict:
    rows = []
    for config in GROWTH_CONFIGS:
        rows.append(default_fill(config))
        print(f"{config}: default fill done", file=sys.stderr)
    deep = [r for r in rows if r["program"].startswith("deep_gcn")]
    t12 = next(r for r in rows if r["program"] == "transformer12")
    return {"rows": rows, "exponent_deep_gcn": round(growth_exponent(deep), 2),
            "targets": {"transformer12_seconds": {"target": 2.0, "measured": t12["seconds"],
                                                  "met": t12["seconds"] <= 2.0}}}


def verdict(config: str, row: dict) -> dict:
    target = TARGETS.get(config)
    if not target:
        return {}
    got = {"start_seconds": row["commands"]["start"]["seconds"], "start_peak_mib": row["commands"]["start"]["peak_mib"],
           "count_seconds": row["commands"]["count"]["seconds"], "menus_p95_ms": row["navigation"]["menus_ms"]["p95"],
           "space_build_seconds": row["navigation"]["space_build_seconds"]}
    return {key: {"target": limit, "measured": got[key], "met": got[key] <= limit} for key, limit in target.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--programs", default=",".join(CONFIGS),
                        help="comma-separated NAME or NAME:LAYERS (deep_gcn:64)")
    parser.add_argument("--warm", action="store_true", help="also time each command a second time, cached")
    parser.add_argument("--fill-growth", action="store_true",
                        help="also time the default fill of deep_gcn:8..128 and transformer12, and fit its growth")
    options = parser.parse_args()
    rows = []
    for config in filter(None, options.programs.split(",")):
        row = {"program": config, "commands": commands(config, options.warm), "navigation": navigation(config)}
        row["targets"] = verdict(config, row)
        rows.append(row)
        print(f"{config}: done", file=sys.stderr)
    report = {"benchmark": "scale", "cpus": os.cpu_count(), "results": rows}
    if options.fill_growth:
        report["default_fill"] = fill_growth()
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
