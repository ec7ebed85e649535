"""Whole-process wall time of short `navigator` commands; prints the figures as JSON.

Each figure is the median of `--repeat` (default 5) runs of `python -m navigator ...` in a
fresh process, measured from before the process is started until it has exited, so Python's
start-up and every import count. Measured:

- `--version`;
- `show`, `fill` and `undo` in a session on gcn and one on graphsage (sessions created with
  `navigator start` in a temporary folder first; each `fill ?0 1` is timed, then the `undo`
  that takes it back, so every repetition starts from the same session);
- `show` again with the cache off (`--no-cache`), to show what the cache saves;
- `replay` of a small Honeybee target: the library and facts of harness/data
  (sched.hblib.toml, sched.hb.toml), with a target expression made by taking the first
  option of the first hole until the sketch is complete (written by this script before timing).

`cpu_seconds` gives the median CPU time (user + system) of the same runs: on a busy machine
it is the better guess at an idle machine's wall time. Conditions, as for an installed navigator: compiled bytecode is kept (in a temporary
PYTHONPYCACHEPREFIX, so the checkout stays clean) and every command runs once untimed first;
Navigator's cache lives in a temporary folder, warmed by `start`. The load average is
printed with the figures: on a busy machine, wall times are longer than on an idle one.

Targets on an idle machine: `--version` <= 0.15 s; `show` and `fill` <= 0.3 s on gcn and
<= 0.5 s on graphsage; `replay` of the small Honeybee target <= 0.25 s.

    python benchmarks/cli_latency.py [--repeat 5]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from _util import emit  # noqa: E402

HARNESS_DATA = ROOT / "harness" / "data"
TARGETS = {"version": 0.15, "show_gcn": 0.3, "fill_gcn": 0.3, "show_graphsage": 0.5, "fill_graphsage": 0.5,
           "replay_honeybee": 0.25}


def _environment(scratch: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONDONTWRITEBYTECODE", "NAVIGATOR_SESSION", "NAVIGATOR_CACHE")}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT)] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
    env["PYTHONPYCACHEPREFIX"] = str(scratch / "bytecode")
    env["NAVIGATOR_CACHE_DIR"] = str(scratch / "cache")
    return env


#: CPU seconds (user + system) of each timed run, by figure name: on a busy machine, a
#: better guess than wall time at what an idle machine would take
CPU: dict[str, list[float]] = {}


def _run(args: list[str], cwd: Path, env: dict[str, str], cpu: list[float] | None = None) -> float:
    started = time.perf_counter()
    with tempfile.TemporaryFile() as errors:
        process = subprocess.Popen([sys.executable, "-m", "navigator", *args], cwd=cwd, env=env,
                                   stdout=subprocess.DEVNULL, stderr=errors)
        _, status, usage = os.wait4(process.pid, 0)
        seconds = time.perf_counter() - started
        process.returncode = os.waitstatus_to_exitcode(status)
        if process.returncode != 0:
            errors.seek(0)
            raise SystemExit(f"navigator {' '.join(args)} failed ({process.returncode}): "
                             f"{errors.read().decode(errors='replace').strip()}")
    if cpu is not None:
        cpu.append(usage.ru_utime + usage.ru_stime)
    return seconds


def _median(samples: list[float]) -> float:
    return round(statistics.median(samples), 4)


def _honeybee_target(folder: Path) -> Path:
    """A complete expression for the small test library: the first option of the first hole,
    round after round."""
    from navigator.lang import load_facts, load_library
    from navigator.navigation.session import Session
    from navigator.synth import sketch_to_json

    import json

    library = load_library(HARNESS_DATA / "sched.hblib.toml")
    session = Session(library, load_facts(HARNESS_DATA / "sched.hb.toml", library))
    while not session.complete:
        menu = session.menus().holes[0]
        session.apply(menu.hole, menu.options[0].id)
    path = folder / "target.json"
    path.write_text(json.dumps(sketch_to_json(session.sketch)), encoding="utf-8")
    return path


def measure(repeat: int) -> dict:
    figures: dict = {}
    with tempfile.TemporaryDirectory(prefix="navigator-cli-latency-") as scratch_name:
        scratch = Path(scratch_name)
        env = _environment(scratch)

        def timed(name: str, args: list[str]) -> None:
            _run(args, scratch, env)  # untimed: compiles the bytecode, warms the OS file cache
            figures[name] = _median([_run(args, scratch, env, CPU.setdefault(name, [])) for _ in range(repeat)])

        timed("version", ["--version"])
        for program in ("gcn", "graphsage"):
            session = ["--session", str(scratch / f"{program}.json")]
            _run(["start", program, *session], scratch, env)
            timed(f"show_{program}", ["show", *session])
            timed(f"show_{program}_no_cache", ["show", "--no-cache", *session])
            fills, undos = [], []
            for index in range(repeat + 1):  # the first pair is untimed, like the others' warm-up run
                fill_cpu = CPU.setdefault(f"fill_{program}", []) if index else None
                undo_cpu = CPU.setdefault(f"undo_{program}", []) if index else None
                fills.append(_run(["fill", "?0", "1", *session], scratch, env, fill_cpu))
                undos.append(_run(["undo", *session], scratch, env, undo_cpu))
            figures[f"fill_{program}"] = _median(fills[1:])
            figures[f"undo_{program}"] = _median(undos[1:])
        target = _honeybee_target(scratch)
        timed("replay_honeybee", ["replay", str(target), "--facts", str(HARNESS_DATA / "sched.hb.toml"),
                                  "--library", str(HARNESS_DATA / "sched.hblib.toml")])
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="timed runs per command (the median is reported)")
    args = parser.parse_args()
    started = time.perf_counter()
    figures = measure(args.repeat)
    emit({
        "benchmark": "cli_latency",
        "unit": "seconds (median of whole-process wall times)",
        "repeat": args.repeat,
        "python": sys.version.split()[0],
        "cpus": os.cpu_count(),
        "load_average_1min": round(os.getloadavg()[0], 2),
        "figures": figures,
        "cpu_seconds": {name: _median(samples) for name, samples in sorted(CPU.items())},
        "targets": TARGETS,
        "within_target": {name: figures[name] <= limit for name, limit in TARGETS.items() if name in figures},
        "benchmark_seconds": round(time.perf_counter() - started, 1),
    })


if __name__ == "__main__":
    main()
