"""Time and size of the LLM fill-in's prompt (navigator.llm.prompt.build_prompt).

For each case, on a space built as `navigator start` builds it (not timed):

- `first_seconds`: the first prompt of a fill (describes the program and measures its data,
  completes the sketch with defaults for the regions' roofline, computes the menus' cost hints);
- `again_seconds`: the best of RUNS later rounds of the same fill (new feedback, same state:
  what the strategy loop pays per round; target for gcn: well under 10 ms);
- `estimated_tokens`, `characters`, and the options listed and offered.

Cases: gcn at its fusion hole (`schedule` taken), gcn at an order hole (first region placed),
transformer_block and transformer12 at their fusion hole.

    python benchmarks/llm_prompt.py [--cases gcn-fusion,gcn-order,transformer_block,transformer12]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._util import emit, stopwatch  # noqa: E402

RUNS = 20


def _session(name: str, picks):
    from fuseflow.program.binding import bind
    from fuseflow.program.bundled import resolve_program
    from navigator.navigation.session import Session
    from navigator.fuseflow.schedule_space import ScheduleSpace

    program = resolve_program(name, {})
    space = ScheduleSpace.build(program, bind(program))
    session = Session(space.library, space.facts, oracle=space.oracle)
    for hole, number in picks:
        session.apply(hole, session.menus().for_hole(hole).options[number - 1].id)
    return space, session


CASES = {
    "gcn-fusion": ("gcn", [(0, 1)], None),
    "gcn-order": ("gcn", [(0, 1), (1, 1), (2, 1), (3, 1)], "Order"),
    "transformer_block": ("transformer_block", [(0, 1)], None),
    "transformer12": ("transformer12", [(0, 1)], None),
}


def measure(case: str) -> dict:
    from navigator.auto.base import StrategyContext
    from navigator.llm.prompt import build_prompt

    name, picks, hole_type = CASES[case]
    space, session = _session(name, picks)
    context = StrategyContext.of(session, space)
    holes = [m.hole for m in context.menus.holes if hole_type is None or m.type == hole_type][:1] \
        if hole_type else [h.id for h in session.sketch.holes()]
    with stopwatch() as first:
        prompt = build_prompt(context, holes, instructions="(instructions)", system="(system)")
    again = []
    for round_ in range(RUNS):
        with stopwatch() as t:
            build_prompt(context, holes, instructions="(instructions)", system="(system)",
                         feedback=f"round {round_}: 0.9 is not offered")
        again.append(t[0])
    offered = sum(len(context.menu(h).options) for h in holes)
    return {"case": case, "program": name, "holes": list(prompt.holes), "first_seconds": round(first[0], 4),
            "again_seconds": round(min(again), 6), "estimated_tokens": prompt.estimated_tokens,
            "characters": len(prompt.text), "listed": len(prompt.entries), "offered": offered}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", default=",".join(CASES))
    args = parser.parse_args()
    emit({"benchmark": "llm_prompt", "runs": RUNS,
          "results": [measure(case) for case in args.cases.split(",")]})


if __name__ == "__main__":
    main()
