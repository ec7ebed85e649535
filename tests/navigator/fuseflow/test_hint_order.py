"""Hints respond to every decision: on every kind of hole of gcn and graphsage, the options'
order by hint (est.) agrees with their order by simulated cycles of "this option, the current
choices, and the heuristic for the rest" (sim.): Spearman >= 0.8 on every hole where those
simulated cycles differ by more than 5 % (docs/cost-model.md#cost-hints).

The walk takes, at each step, the lowest open hole's option the heuristic would take, so it
passes the goal, the fusion, the regions, each order, factor, stream shape and block mode."""

from __future__ import annotations

import pytest
from scipy.stats import spearmanr

from fuseflow.cost.hardware import load_hardware
from fuseflow.program.binding import bind
from fuseflow.program.bundled import resolve_program
from navigator.auto.heuristic import HeuristicRules, complete_with_rules
from navigator.fuseflow.schedule_space import ScheduleSpace
from simulator.evaluate import run_schedule
from simulator.program_data import materialize

#: Cora-shaped presets at a size the simulator runs in milliseconds (mean degree kept)
DIMS = {"N": 96, "F": 48, "H": 16, "C": 7}
#: options compared per hole (the best hints, as `show --simulate` takes them)
OPTIONS = 8
AGREEMENT = 0.8


def simulated(program, binding, inputs, hw, schedule) -> float:
    results, _ = run_schedule(program, binding, schedule, "fast", "accumulate", inputs, hw, numerics=False)
    return sum(r.timing.cycles for r in results)


@pytest.mark.parametrize("name", ["gcn", "graphsage"])
def test_hint_order_agrees_with_the_simulated_order_on_every_kind_of_hole(name):
    program = resolve_program(name, DIMS)
    binding = bind(program, dims=DIMS)
    space = ScheduleSpace.build(program, binding)
    hw = load_hardware()
    inputs = materialize(program, binding)
    rules = HeuristicRules(space, hw)
    sketch = space.initial_sketch()
    seen, compared, disagreements = set(), 0, []
    while not sketch.complete:
        menus = space.oracle.menus(sketch)
        menu = menus.for_hole(min(m.hole for m in menus.holes))
        seen.add(menu.type)
        hints = space.hints(sketch, menus.only([menu.hole]))
        options = [o for o in menu.options if hints.get((menu.hole, o.id)) is not None
                   and hints[(menu.hole, o.id)].exact]
        options = sorted(options, key=lambda o: hints[(menu.hole, o.id)].key)[:OPTIONS]
        if len(options) > 1:
            est = [hints[(menu.hole, o.id)].cycles for o in options]
            sim = [simulated(program, binding, inputs, hw,
                             space.schedule_of(complete_with_rules(space, space.oracle.apply(sketch, o), hw, rules)))
                   for o in options]
            if max(sim) > 1.05 * min(sim):
                compared += 1
                rho = spearmanr(est, sim).statistic
                if not rho >= AGREEMENT:
                    disagreements.append((menu.type, menu.hole, round(float(rho), 2),
                                          [(o.id, e, s) for o, e, s in zip(options, est, sim)]))
        option, _ = rules.choose(sketch, menu)
        sketch = space.oracle.apply(sketch, option)
    assert {"Fusion", "Order", "Par", "Vector"} <= seen, seen
    assert compared >= 3
    assert not disagreements, disagreements
