"""The alternatives history lists for each step (the options its hole offered and it did not
take) are those of the menus of the sketch it was taken on, whether asked in order (each
sketch's menus following from the one before, Oracle.follow) or one by one, out of order."""

from __future__ import annotations

import random

import pytest

from fuseflow.program.bundled import resolve_program
from navigator.fuseflow.schedule_space import ScheduleSpace
from navigator.navigation.session import Session
from navigator.synth import Oracle


def _session(seed: int) -> Session:
    program = resolve_program("gcn", {"N": 16, "F": 4, "H": 4, "C": 3})
    from fuseflow.program.binding import bind
    from navigator.fuseflow.bundled_library import load_scheduling_library

    space = ScheduleSpace.build(program, bind(program, None, {"N": 16, "F": 4, "H": 4, "C": 3}), None,
                                load_scheduling_library(None))
    session = Session(space.library, space.facts, oracle=space.oracle, forced_steps=True)
    rng = random.Random(seed)
    while not session.complete:
        menus = session.menus()
        hole = rng.choice(menus.holes)
        options = [o for o in hole.options if "default_schedule" not in o.id] or hole.options  # not the shortcut
        session.apply(hole.hole, rng.choice(options).id)
    return session


def _expected(session: Session, index: int) -> list[str]:
    record = session.steps[index]
    if record.by == "forced":
        return []
    fresh = Oracle(session.library, session.facts)
    menu = fresh.menus(session._sketches[index]).for_hole(record.hole)
    return [(o.id, o.count) for o in menu.options if o.id != record.option]


@pytest.mark.parametrize("seed", range(3))
def test_alternatives_in_order_and_out_of_order_are_the_menus_of_each_step(seed):
    session = _session(seed)
    n = len(session.steps)
    assert n > 5
    in_order = [[(o.id, o.count) for o in session.alternatives(i)] for i in range(n)]
    assert in_order == [_expected(session, i) for i in range(n)]
    shuffled = list(range(n))
    random.Random(seed).shuffle(shuffled)
    assert all([(o.id, o.count) for o in session.alternatives(i)] == in_order[i] for i in shuffled)
