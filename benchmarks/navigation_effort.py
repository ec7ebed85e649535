"""What forced steps save the user, and what they and `history` cost: every bundled program.

For each bundled program (default sizes), two navigations from `?0` to a complete schedule
take the same decisions: each command fills the lowest open hole with its default option
(the first option when it has none). One session takes forced steps (the CLI's default),
the other does not (`start --no-forced`). Per program:

- `decisions`: commands the user issues in each session (`by_hand` counts every hole;
  `with_forced` only the holes that offered a choice), and `forced_steps` taken;
- `counts_equal`: after every decision, the completion count is the same before and after
  the forced steps it caused; `same_schedule`: both sessions end with the same schedule;
- `forced_seconds`: time spent finding and taking forced steps (all commands together);
- `replay_seconds`, `history_seconds`: what `navigator history` does on the complete
  session in a fresh process: replay the log with a new oracle, then compute every step's
  alternatives (the menus replay computed are mostly still cached);
- `undo_seconds`: undoing every command one at a time (`undo` without a number).

    python benchmarks/navigation_effort.py [--programs gcn,spmm]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from _util import emit  # noqa: E402

from fuseflow.program.bundled import bundled_program_names  # noqa: E402
from fuseflow.support.errors import UserError  # noqa: E402
from navigator.navigation.session import Session  # noqa: E402
from navigator.navigation.step_log import FORCED  # noqa: E402
from navigator.workspace.spec import ProgramSpec  # noqa: E402
from navigator.synth import Oracle  # noqa: E402


def navigate(space, forced: bool) -> dict:
    session = Session(space.library, space.facts, oracle=space.oracle, forced_steps=forced)
    forced_seconds = 0.0
    started = time.perf_counter()
    session.settle()
    forced_seconds += time.perf_counter() - started
    decisions, counts_equal = 0, True
    while not session.complete:
        menu = session.menus().holes[0]
        option = menu.default or menu.options[0]
        with session.command():
            session.apply(option.hole, option.id)
            before_forced = session.menus().total
            started = time.perf_counter()
        forced_seconds += time.perf_counter() - started  # the forced steps ran as the block closed
        counts_equal = counts_equal and session.menus().total == before_forced
        decisions += 1
    started = time.perf_counter()
    fresh = Session.from_steps(space.library, space.facts, session.steps, oracle=Oracle(space.library, space.facts))
    replay_seconds = time.perf_counter() - started
    started = time.perf_counter()
    alternatives = sum(len(fresh.alternatives(i)) for i in range(len(fresh.steps)))
    history_seconds = time.perf_counter() - started
    schedule = space.schedule_of(session.sketch)
    started = time.perf_counter()
    while session.can_undo:
        session.undo_command()
    undo_seconds = time.perf_counter() - started
    return {"decisions": decisions, "steps": len(session.redo_steps),
            "forced_steps": sum(s.by == FORCED for s in session.redo_steps), "counts_equal": counts_equal,
            "forced_seconds": forced_seconds, "replay_seconds": replay_seconds, "history_seconds": history_seconds,
            "alternatives": alternatives, "undo_seconds": undo_seconds, "schedule": repr(schedule)}


def measure(name: str) -> dict:
    space = ProgramSpec.from_user(name).load().space
    with_forced, by_hand = navigate(space, True), navigate(space, False)
    return {
        "decisions": {"by_hand": by_hand["decisions"], "with_forced": with_forced["decisions"]},
        "forced_steps": with_forced["forced_steps"],
        "steps": {"by_hand": by_hand["steps"], "with_forced": with_forced["steps"]},
        "counts_equal": with_forced["counts_equal"],
        "same_schedule": with_forced["schedule"] == by_hand["schedule"],
        "forced_seconds": round(with_forced["forced_seconds"], 5),
        "replay_seconds": round(with_forced["replay_seconds"], 5),
        "history_seconds": round(with_forced["history_seconds"], 5),
        "history_alternatives": with_forced["alternatives"],
        "undo_seconds": round(with_forced["undo_seconds"], 5),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--programs", help="comma-separated bundled programs (default: all)")
    args = parser.parse_args()
    names = args.programs.split(",") if args.programs else list(bundled_program_names())
    results = {}
    for name in names:
        try:
            results[name] = measure(name)
        except UserError as exc:  # a program past an analysis budget is a figure too, not a crash
            results[name] = {"error": str(exc)}
    emit({"programs": results})


if __name__ == "__main__":
    main()
