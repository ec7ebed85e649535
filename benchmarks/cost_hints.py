"""Time to compute the cost hint of every option of every open hole (docs/cost-model.md#cost-hints).

For gcn, graphsage and transformer12 (default sizes, default hardware), on a space built as
`navigator start` builds it (facts generated and the program bound beforehand, not timed):

- `fresh_seconds`: every hint of a fresh session (the root hole) with an empty memo: this pays
  for costing every legal order of every region and the min-plus pass over the fusion states;
- `regions_open_seconds`: after `fill ?0 1` and `fill ?1 fuse` (the first Regions menu open),
  with an empty memo, and `regions_open_warm_seconds` with the memo of the fresh session kept
  (what a session that recomputes hints after each step pays);
- the number of hints, how many are exact, the orders costed, and the best schedule's figures;
- `cli_show_hints_seconds`: `navigator show --hints` in a fresh process on a started session
  (reading the cached facts, binding the program, the hints, printing), for comparison with
  `cli_show_seconds` (plain `show`).

Each timing is the best of RUNS. Targets (issue 12): fresh hints of gcn and graphsage <= 0.5 s,
of transformer12 <= 5 s.

    python benchmarks/cost_hints.py [--programs gcn,graphsage,transformer12]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _util import emit  # noqa: E402

from fuseflow.program.binding import bind  # noqa: E402
from fuseflow.program.bundled import resolve_program  # noqa: E402
from navigator.fuseflow import sketch_hints  # noqa: E402
from navigator.fuseflow.sketch_hints import SketchHints  # noqa: E402
from navigator.fuseflow.schedule_space import ScheduleSpace  # noqa: E402

PROGRAMS = ("gcn", "graphsage", "transformer12")
RUNS = 3


def timed(work) -> tuple[float, object]:
    best, result = None, None
    for _ in range(RUNS):
        start = time.perf_counter()
        result = work()
        seconds = time.perf_counter() - start
        best = seconds if best is None else min(best, seconds)
    return round(best, 4), result


def regions_open(space: ScheduleSpace, name: str):
    sketch = space.oracle.step(space.initial_sketch(), 0, f'schedule{{program="{name}"}}')
    return space.oracle.step(sketch, 1, f'fuse{{program="{name}"}}')


def cli_seconds(name: str, *flags: str) -> float:
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    with tempfile.TemporaryDirectory() as folder:
        run = lambda *args: subprocess.run([sys.executable, "-m", "navigator", *args], cwd=folder, env=env,  # noqa: E731
                                           capture_output=True, text=True, check=True)
        run("start", name)
        best = None
        for _ in range(RUNS):
            start = time.perf_counter()
            run("show", *flags)
            seconds = time.perf_counter() - start
            best = seconds if best is None else min(best, seconds)
        return round(best, 3)


def measure(name: str) -> dict:
    program = resolve_program(name)
    space = ScheduleSpace.build(program, bind(program))
    fresh = space.initial_sketch()
    fresh_menus = space.oracle.menus(fresh)
    opened = regions_open(space, name)
    opened_menus = space.oracle.menus(opened)

    def cold(sketch, menus):
        sketch_hints._COSTS.clear()   # the process keeps a space's memo for the next one: not here
        return SketchHints(space).of_menus(sketch, menus)

    fresh_seconds, fresh_hints = timed(lambda: cold(fresh, fresh_menus))
    open_seconds, open_hints = timed(lambda: cold(opened, opened_menus))
    warm = SketchHints(space)
    warm.of_menus(fresh, fresh_menus)
    warm_seconds, _ = timed(lambda: warm.of_menus(opened, opened_menus))
    best = warm.costs.best()
    hints = list(fresh_hints.values()) + list(open_hints.values())
    return {
        "program": name, "ops": len(program.ops),
        "fresh_seconds": fresh_seconds, "fresh_hints": len(fresh_hints),
        "regions_open_seconds": open_seconds, "regions_open_warm_seconds": warm_seconds,
        "regions_open_hints": len(open_hints),
        "exact": sum(1 for h in hints if h is not None and h.exact), "bound": sum(1 for h in hints if h is not None
                                                                                 and not h.exact),
        "regions_costed": len(warm.costs._models),
        "best": best.to_dict(),
        "cli_show_seconds": cli_seconds(name),
        "cli_show_hints_seconds": cli_seconds(name, "--hints"),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--programs", default=",".join(PROGRAMS))
    args = parser.parse_args()
    emit({"benchmark": "cost_hints", "runs": RUNS, "cpus": os.cpu_count(),
          "results": [measure(name) for name in args.programs.split(",")]})


if __name__ == "__main__":
    main()
