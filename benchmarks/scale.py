"""How Navigator scales to programs with hundreds of ops (issue 11). Prints JSON.

For deep_gcn at 2, 8, 32 and 64 layers, transformer_block, transformer12 (and gcn, the
reference for "no slower than before"):
  * ops, the exact number of legal fusion groupings and of complete schedules;
  * wall time and peak memory (RSS) of `navigator check`, `count` and `start`, each in a fresh
    process with an empty cache (what a first run pays; `--warm` also runs each a second time,
    from the cache);
  * over a full navigation that takes the default at every hole: the time to recompute every
    menu of the sketch after each step (median, p95, max), in process.

Targets on 2 cores: transformer12 and deep_gcn-64 start in <= 2 s and <= 1 GiB, count in
<= 2 s, menus p95 <= 50 ms; gcn start <= 0.1 s and menus p95 <= 1 ms.

    python benchmarks/scale.py                       # everything (a few minutes)
    python benchmarks/scale.py --programs gcn,deep_gcn:8
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
    options = parser.parse_args()
    rows = []
    for config in options.programs.split(","):
        row = {"program": config, "commands": commands(config, options.warm), "navigation": navigation(config)}
        row["targets"] = verdict(config, row)
        rows.append(row)
        print(f"{config}: done", file=sys.stderr)
    print(json.dumps({"benchmark": "scale", "cpus": os.cpu_count(), "results": rows}, indent=2))


if __name__ == "__main__":
    main()
