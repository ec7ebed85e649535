"""Wall time and evaluations of the planning strategies filling a fresh session (`--all`).

For each case: the strategy's plan time (the fill without menus shown, best of `--repeat`:
the cost hints' memo is kept on the space between runs, and `first_seconds`, the first run,
pays for computing it), its cost-model evaluations, and the est. cycles and bytes the cost
model gives the schedule it chose, beside the `default` strategy's. `exhaustive` runs only where the whole
space has at most `--limit` completions (it refuses otherwise).

Target (issue 12): `heuristic` in at most 50 ms on gcn and graphsage.

    python benchmarks/strategy_times.py [--programs gcn,graphsage,spmm,sddmm] [--repeat 3]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks._util import emit, stopwatch  # noqa: E402

SMALL = {"spmm": {"N": 2, "J": 2}, "sddmm": {"N": 2, "K": 2}}


def measure(name: str, strategy: str, repeat: int, limit: int) -> dict:
    from fuseflow.program.binding import bind
    from fuseflow.program.bundled import resolve_program
    from navigator.auto import Scope, StrategyError, fill, get_strategy
    from navigator.auto.scoring import CostModelScorer
    from navigator.navigation.session import Session
    from navigator.fuseflow.schedule_space import ScheduleSpace

    dims = SMALL.get(name)
    program = resolve_program(name, dims)
    space = ScheduleSpace.build(program, bind(program, dims=dims))
    best = first = None
    for _ in range(repeat):
        session = Session(space.library, space.facts, oracle=space.oracle)
        options = {"limit": limit} if strategy == "exhaustive" else {}
        try:
            with stopwatch() as elapsed:
                records = fill(session, 0, get_strategy(strategy, **options), Scope.ALL, space=space)
        except StrategyError as exc:
            return {"refused": exc.bare_message}
        best = elapsed[0] if best is None else min(best, elapsed[0])
        first = elapsed[0] if first is None else first
    cycles, bytes_ = CostModelScorer(space).score(session.sketch)
    figures = records[0].figures or {"evaluated": {"cost_model": 0, "simulator": 0}}
    return {"seconds": best, "first_seconds": first, "steps": len(records), "cost_model_evaluations": figures["evaluated"]["cost_model"],
            "completions": space.oracle.count(space.initial_sketch()).to_json(),
            "est_cycles": cycles, "bytes": bytes_}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--programs", default="gcn,graphsage,spmm,sddmm")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--limit", type=int, default=10_000)
    args = parser.parse_args()
    emit({name: {strategy: measure(name, strategy, args.repeat, args.limit)
                 for strategy in ("default", "heuristic", "exhaustive")}
          for name in args.programs.split(",")})


if __name__ == "__main__":
    main()
