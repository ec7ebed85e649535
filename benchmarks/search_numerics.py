"""Wall time of the simulation-backed searches (`beam`, `anneal`) and the choices they make,
printed as JSON: the figure for "searches simulate without numerics" (issue 22).

Candidates run without values (counts and cycles only) and the numerical check runs once,
on the chosen schedule. The choices must not change, only the time: run this against the
code before the change and after it and compare `steps` and `best_simulated_cycles`.

    python benchmarks/search_numerics.py [--strategies beam,anneal] [--repeat 3] [--budget 36]
    PYTHONPATH=/path/to/other/checkout python benchmarks/search_numerics.py   # "before"

The program is gcn on the real Cora graph (shared/datasets/cora.npz), the session filled from
scratch (`--all`). Times are the median of `--repeat` fills, each in a fresh session with the
simulator's inputs already loaded (the first fill loads them and is not counted).
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CORA = REPO.parent / "shared" / "datasets" / "cora.npz"


def measure(strategy: str, repeat: int, budget: int, data: str) -> dict:
    from fuseflow.program.binding import bind
    from fuseflow.program.bundled import resolve_program
    from navigator.auto import Scope, fill, get_strategy
    from navigator.evaluation.tasks import EvalConfig
    from navigator.fuseflow.schedule_space import ScheduleSpace
    from navigator.navigation.session import Session
    from navigator.workspace.spec import ProgramSpec

    program = resolve_program("gcn")
    space = ScheduleSpace.build(program, bind(program, data))
    config = EvalConfig(ProgramSpec.from_user("gcn", data))
    seconds, records = [], None
    for run in range(repeat + 1):
        session = Session(space.library, space.facts, oracle=space.oracle)
        start = time.perf_counter()
        records = fill(session, 0, get_strategy(strategy, budget=budget), Scope.ALL, space=space,
                       evaluation=config)
        if run:                       # the first fill also loads the data
            seconds.append(time.perf_counter() - start)
    figures = records[0].figures
    return {"seconds_median": round(statistics.median(seconds), 3), "seconds": [round(s, 3) for s in seconds],
            "simulations": figures["evaluated"]["simulator"],
            "best_simulated_cycles": figures["compared"]["best_simulated_cycles"],
            "choice_checked": figures["compared"].get("choice_checked", False),
            "steps": [f"?{r.hole}:={r.option}" for r in records]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--strategies", default="beam")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--budget", type=int, default=36)
    parser.add_argument("--data", default=str(CORA))
    args = parser.parse_args()
    import json

    import fuseflow

    out = {"code": str(Path(fuseflow.__file__).resolve().parents[1]), "program": "gcn", "data": args.data,
           "budget": args.budget}
    for strategy in args.strategies.split(","):
        out[strategy] = measure(strategy, args.repeat, args.budget, args.data)
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
