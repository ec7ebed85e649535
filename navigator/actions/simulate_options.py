"""Simulated figures per option of one hole: what `show --simulate` prints and the TUI's `sim.`
column shows next to the cost model's `est.`.

Each option is taken with the session's current choices, and every other open hole is filled
by the `heuristic` strategy's rules (navigator.auto.heuristic.complete_with_rules), then the
complete schedule is simulated (fast executor, counts only). The options go best hint first,
at most `limit` of them; `cancelled()` is asked between simulations. Results are kept per
(schedule, program and data, hardware): in memory for the process, and in the user's cache
folder (navigator.workspace.cache), so revisiting a hole, from the TUI or from another
command, simulates nothing again.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable

from fuseflow.support.errors import UserError
from navigator.navigation.fingerprint import content_hash

if TYPE_CHECKING:
    from navigator.workspace.session_workspace import Workspace

#: options simulated per hole unless told otherwise (best hints first)
DEFAULT_LIMIT = 16
_KIND = "option-simulations"
#: simulations the cache folder keeps per configuration (the most recent)
KEPT = 4096
#: configuration -> schedule key -> {"cycles": …} or {"problem": …}, for this process
_memory: dict[str, dict[str, dict]] = {}


@dataclass
class OptionSimulation:
    hole: int
    option: str                      # option id
    number: int                      # its number in the menu (1-based)
    estimated: float | None          # the option's hint: est. cycles of the best completion found
    cycles: float | None = None      # sim. cycles of this option, the current choices and the heuristic
    problem: str | None = None       # why it has no sim. figure (too large, ...)
    cached: bool = False

    def to_dict(self) -> dict:
        return {"hole": self.hole, "option": self.option, "number": self.number, "est_cycles": self.estimated,
                "sim_cycles": self.cycles, "problem": self.problem, "cached": self.cached}


def simulation_problem(workspace: "Workspace", hole: int | None) -> str | None:
    """Why the options of `hole` (None: the first open one) cannot be simulated, or None."""
    space = workspace.space
    if space.tensor_program is None:
        return f"a {workspace.spec.space_kind.label or space.noun} has no cost model or simulator"
    if workspace.session.sketch.complete:
        return "the sketch is complete: no hole has options to simulate"
    return None


def simulate_options(workspace: "Workspace", hole: int | None = None, limit: int = DEFAULT_LIMIT, *,
                     cancelled: Callable[[], bool] = lambda: False,
                     progress: Callable[[OptionSimulation], None] | None = None) -> list[OptionSimulation]:
    """Per option of `hole` (None: the lowest open hole), best hint first, at most `limit`: its
    est. cycles and, unless `cancelled()` stopped the run before it, its sim. cycles."""
    from navigator.evaluation.tasks import EvalConfig, load_inputs, simulated_cycles

    problem = simulation_problem(workspace, hole)
    if problem is not None:
        raise UserError(problem, where="--simulate",
                        fix="simulate the options of an open hole of a tensor program's session "
                            "(`navigator eval` simulates a complete schedule)")
    space, sketch = workspace.space, workspace.session.sketch
    hole = min(h.id for h in sketch.holes()) if hole is None else hole
    hints = space.hints(sketch, space.oracle.menus(sketch).only([hole]))
    chosen = ranked_options(workspace, hole, hints)[:max(0, limit)]
    out = [OptionSimulation(hole, option.id, number,
                            hints[(hole, option.id)].cycles if hints.get((hole, option.id)) else None)
           for number, option in chosen]
    config = EvalConfig(workspace.spec, check=False)
    memory = _memory.setdefault(repr(config.identity()), {})
    stored = None
    inputs = None
    for entry, (_, option) in zip(out, chosen):
        if cancelled():
            break
        schedule = _completed(space, space.oracle.apply(sketch, option))
        key = _key(schedule)
        if key not in memory:
            stored = _stored(config) if stored is None else stored
            if key in stored:
                memory[key] = stored[key]
        found = memory.get(key)
        if found is None:
            inputs = inputs or load_inputs(workspace.spec, None, None)
            found = memory[key] = simulated_cycles(inputs, schedule, config)
            stored = _stored(config) if stored is None else stored
            stored[key] = found
            _store(config, stored)
        else:
            entry.cached = True
        entry.cycles, entry.problem = found.get("cycles"), found.get("problem")
        if progress is not None:
            progress(entry)
    return out


def ranked_options(workspace: "Workspace", hole: int, hints: dict | None = None) -> list:
    """(menu number, option) of `hole`, best hint first: estimates by cycles, then bounds, then
    options without a hint, each in menu order."""
    space, sketch = workspace.space, workspace.session.sketch
    menus = space.oracle.menus(sketch).only([hole])
    hints = space.hints(sketch, menus) if hints is None else hints

    def rank(item):
        hint = hints.get((hole, item[1].id))
        return (hint is None, hint is not None and not hint.exact, hint.cycles if hint is not None else math.inf,
                item[0])

    return sorted(enumerate(menus.for_hole(hole).options, 1), key=rank)


def _completed(space, sketch):
    from fuseflow.cost.hardware import load_hardware
    from navigator.auto.heuristic import complete_with_rules

    return space.schedule_of(complete_with_rules(space, sketch, load_hardware()))


def _key(schedule) -> str:
    return content_hash(repr(schedule))   # the schedule's fields: tuples of names and numbers


def _config_key(config) -> dict:
    from navigator.evaluation.result_keys import canonical_json

    return {"config": content_hash(canonical_json(config.identity()))}


def _stored(config) -> dict[str, dict]:
    """The simulations the cache folder keeps for this configuration (one entry for all)."""
    from navigator.workspace.cache import read_entry

    found = read_entry(_KIND, _config_key(config))
    if not isinstance(found, dict):
        return {}
    return {k: v for k, v in found.items() if isinstance(k, str) and isinstance(v, dict)
            and (isinstance(v.get("cycles"), (int, float)) or isinstance(v.get("problem"), str))}


def _store(config, results: dict[str, dict]) -> None:
    from navigator.workspace.cache import write_entry

    kept = dict(list(results.items())[-KEPT:])
    write_entry(_KIND, _config_key(config), kept)
