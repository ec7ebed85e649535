"""Time to compute the cost hint of every option of every open hole (docs/cost-model.md#cost-hints).

For gcn, graphsage and transformer12 (default sizes, default hardware), on a space built as
`navigator start` builds it (facts generated and the program bound beforehand, not timed):

- `fresh_seconds`: every hint of a fresh session (the root hole) the first time this program,
  data and hardware are seen: an empty memo and nothing kept, so every region signature's
  orders are ranked and its completions estimated, and the min-plus pass runs over the fusion states;
- `cached_seconds`: the same in a new process once an earlier one kept its region estimates in
  the cache (an empty memo, the cache entry read and checked);
- `regions_open_seconds`: after `fill ?0 1` and `fill ?1 fuse` (the first Regions menu open),
  with an empty memo and nothing kept, and `regions_open_warm_seconds` with the memo of the
  fresh session kept (what a session that recomputes hints after each step pays);
- the number of hints, how many are exact, the region estimates and distinct region signatures
  (regions alike share one estimate), and the best schedule's figures;
- `cli_show_hints_first_seconds`: `navigator show --hints` in a fresh process on a started
  session with an empty cache, and `cli_show_hints_seconds` once the cache holds the estimates
  (the best of RUNS), for comparison with `cli_show_seconds` (plain `show`).

Each in-process timing is the best of RUNS. Targets (issue 12): fresh hints of gcn and graphsage
<= 0.5 s, of transformer12 <= 5 s.

    python benchmarks/cost_hints.py [--programs gcn,graphsage,transformer12]
"""

from __future__ import annotations

import argparse
import json
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


def cli_seconds(name: str, *flags: str) -> tuple[float, float]:
    """(the first `show` after `start`, the best of RUNS after it), each in a fresh process,
    with a cache folder of their own."""
    with tempfile.TemporaryDirectory() as folder:
        cache = Path(folder) / "cache"
        env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1]),
               "NAVIGATOR_CACHE_DIR": str(cache)}
        env.pop("NAVIGATOR_CACHE", None)
        run = lambda *args: subprocess.run([sys.executable, "-m", "navigator", *args], cwd=folder, env=env,  # noqa: E731
                                           capture_output=True, text=True, check=True)
        run("start", name)
        times = []
        for _ in range(RUNS + 1):
            start = time.perf_counter()
            run("show", *flags)
            times.append(time.perf_counter() - start)
        return round(times[0], 3), round(min(times[1:]), 3)


class _Kept:
    """An estimate store in memory (the cache's role: what an earlier process kept)."""

    def __init__(self):
        self.payload = None

    def read(self, parts):
        return json.loads(self.payload) if self.payload else None

    def write(self, parts, payload):
        self.payload = json.dumps(payload)


def measure(name: str) -> dict:
    program = resolve_program(name)
    space = ScheduleSpace.build(program, bind(program))
    fresh = space.initial_sketch()
    fresh_menus = space.oracle.menus(fresh)
    opened = regions_open(space, name)
    opened_menus = space.oracle.menus(opened)

    def cold(sketch, menus, store=None):
        sketch_hints._COSTS.clear()   # the process keeps a space's memo for the next one: not here
        space.estimate_store = store
        return SketchHints(space).of_menus(sketch, menus)

    fresh_seconds, fresh_hints = timed(lambda: cold(fresh, fresh_menus))
    kept = _Kept()
    cold(fresh, fresh_menus, kept)
    cached_seconds, cached_hints = timed(lambda: cold(fresh, fresh_menus, kept))
    assert cached_hints == fresh_hints
    open_seconds, open_hints = timed(lambda: cold(opened, opened_menus))
    warm = SketchHints(space)
    warm.of_menus(fresh, fresh_menus)
    warm_seconds, _ = timed(lambda: warm.of_menus(opened, opened_menus))
    best = warm.costs.best()
    regions = {s.region for state in warm.costs.steps._topological() for s in warm.costs.steps.steps(state)}
    hints = list(fresh_hints.values()) + list(open_hints.values())
    show_first, show_cached = cli_seconds(name, "--hints")
    return {
        "program": name, "ops": len(program.ops),
        "fresh_seconds": fresh_seconds, "cached_seconds": cached_seconds, "fresh_hints": len(fresh_hints),
        "regions_open_seconds": open_seconds, "regions_open_warm_seconds": warm_seconds,
        "regions_open_hints": len(open_hints),
        "exact": sum(1 for h in hints if h is not None and h.exact), "bound": sum(1 for h in hints if h is not None
                                                                                 and not h.exact),
        "regions": len(regions), "signatures": len({warm.costs.signature(tuple(r)) for r in regions}),
        "region_estimates": warm.costs.estimated,
        "best": best.to_dict(),
        "cli_show_seconds": cli_seconds(name)[1],
        "cli_show_hints_first_seconds": show_first, "cli_show_hints_seconds": show_cached,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--programs", default=",".join(PROGRAMS))
    args = parser.parse_args()
    emit({"benchmark": "cost_hints", "runs": RUNS, "cpus": os.cpu_count(),
          "results": [measure(name) for name in args.programs.split(",")]})


if __name__ == "__main__":
    main()
