"""Replay a 20-round target through a synthetic 100-function library; print figures as JSON.

The library is a pipeline of 10 stages. Stage i has 5 "knob" functions (leaves reading
`Knob` facts, each with a different extra condition) and 5 "stage" functions that combine
the next stage with a knob of stage i under conditions using =, !=, < and <=. Every
complete program has 10 stage nodes and 10 knob nodes, so a target takes 20 rounds. The
target is drawn by a seeded random walk over the offered steps.

Figures: start-up (load + oracle construction + first menus), replay rounds, total and
median/p95 seconds per round. Target: replay total <= 1 s.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _util import emit, stopwatch, summary  # noqa: E402

from navigator.lang import parse_facts, parse_library  # noqa: E402
from navigator.navigation.replay import replay  # noqa: E402
from navigator.synth import Oracle, sketch_to_json  # noqa: E402

STAGES = 10
VALUES = (1, 2, 4, 8, 16)
KINDS = ("fast", "slow", "auto")

KNOB_CONDITIONS = [
    ["ret.value <= 8"],
    ['ret.kind != "slow"'],
    ["ret.value != 1"],
    ["1 < ret.value"],
    ['ret.kind = "fast"'],
]
STAGE_CONDITIONS = [
    ["ret.mode = knob.kind", "ret.par <= next.par"],
    ["ret.mode = next.mode", "ret.par < next.par"],
    ['ret.mode = "fast"', 'knob.kind = "fast"', "ret.par <= next.par"],
    ["ret.mode = knob.kind", "ret.par = next.par"],
    ["ret.mode != next.mode", "ret.mode = knob.kind", "ret.par <= next.par"],
]


def library_text() -> str:
    parts = ['[Prop.Knob]\nparams.stage = "Int"\nparams.value = "Int"\nparams.kind = "Str"\n']
    for i in range(STAGES):
        parts.append(f'[Type.Knob{i}]\nparams.value = "Int"\nparams.kind = "Str"\n')
        parts.append(f'[Type.Stage{i}]\nparams.par = "Int"\nparams.mode = "Str"\n')
        for j, extra in enumerate(KNOB_CONDITIONS):
            conditions = [f"Knob {{ stage = {i}, value = ret.value, kind = ret.kind }}"] + extra
            parts.append(_function(f"knob_{i}_{j}", {}, f"Knob{i}", conditions, default=j == 0))
        for j, conditions in enumerate(STAGE_CONDITIONS):
            params = {"knob": f"Knob{i}"}
            if i + 1 < STAGES:
                params = {"next": f"Stage{i + 1}", **params}
            else:
                conditions = [c for c in conditions if "next." not in c]
            conditions = conditions + ["ret.par = knob.value"]
            parts.append(_function(f"stage_{i}_{j}", params, f"Stage{i}", conditions))
    return "\n".join(parts)


def _function(name, params, ret, conditions, default=False) -> str:
    lines = [f"[Function.{name}]"]
    lines += [f'params.{p} = "{t}"' for p, t in params.items()] or ["params = {}"]
    lines.append(f'ret = "{ret}"')
    lines.append("condition = [" + ", ".join(f"'{c}'" for c in conditions) + "]")
    if default:
        lines.append("default = true")
    return "\n".join(lines) + "\n"


def facts_text() -> str:
    parts = []
    for i in range(STAGES):
        for value in VALUES:
            for kind in KINDS:
                parts.append(f'[[Prop]]\nname = "Knob"\nargs = {{ stage = {i}, value = {value}, '
                             f'kind = "{kind}" }}\n')
    parts.append('[Goal]\nname = "Stage0"\nargs = {}\n')
    return "\n".join(parts)


def random_target(oracle: Oracle, seed: int) -> dict:
    rng = random.Random(seed)
    sketch = oracle.initial_sketch()
    while not sketch.complete:
        menus = oracle.menus(sketch)
        options = list(menus.options())
        sketch = oracle.apply(sketch, rng.choice(options))
    return sketch_to_json(sketch)


def main() -> None:
    lib_src, facts_src = library_text(), facts_text()
    with stopwatch() as load_time:
        library = parse_library(lib_src, "synthetic.hblib.toml")
        facts = parse_facts(facts_src, library, "synthetic.hb.toml")
    with stopwatch() as oracle_time:
        oracle = Oracle(library, facts)
    with stopwatch() as first_menu_time:
        first = oracle.menus(oracle.initial_sketch())
    target = random_target(oracle, seed=7)

    # A fresh oracle, so the replay pays its own start-up and has no warm menu cache.
    with stopwatch() as replay_time:
        report = replay(library, facts, target)
    assert report.reached, report.failure
    rounds = [r.seconds for r in report.rounds]
    emit({
        "functions": len(library.functions),
        "types": len(library.types),
        "facts": len(facts.facts),
        "rounds": len(report.rounds),
        "reached": report.reached,
        "startup_seconds": {
            "load": load_time[0],
            "oracle": oracle_time[0],
            "first_menus": first_menu_time[0],
            "total": load_time[0] + oracle_time[0] + first_menu_time[0],
        },
        "first_menu_options": len(first),
        "programs_total": str(first.total),
        "replay_total_seconds": replay_time[0],
        "replay_oracle_startup_seconds": report.startup_seconds,
        "round_seconds": summary(rounds),
        "rounds_only_seconds": sum(rounds),
        "target_seconds": 1.0,
        "within_target": replay_time[0] <= 1.0,
    })


if __name__ == "__main__":
    main()
