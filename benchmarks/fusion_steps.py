"""Time to explore every fusion state of the bundled programs region by region
(fuseflow.analysis.fusion_steps.FusionSteps.reachable), with the states and offered steps found, each on a
fresh program (no memoized region checks). The best of a few runs. Prints JSON."""

import json
import time

from fuseflow.program.bundled import resolve_program
from fuseflow.analysis.fusion_steps import FusionSteps

PROGRAMS = ("transformer_block", "transformer12")
RUNS = 3


def measure(name: str) -> dict:
    best = None
    for _ in range(RUNS):
        program = resolve_program(name)
        start = time.perf_counter()
        steps = FusionSteps(program)
        states = steps.reachable()
        offered = sum(len(steps.steps(state)) for state in states)
        seconds = time.perf_counter() - start
        best = seconds if best is None else min(best, seconds)
    return {"program": name, "ops": len(program.ops), "states": len(states), "steps": offered,
            "seconds": round(best, 4)}


def main() -> dict:
    return {"benchmark": "fusion_steps", "results": [measure(name) for name in PROGRAMS]}


if __name__ == "__main__":
    print(json.dumps(main(), indent=2))
