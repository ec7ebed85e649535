"""Issue 21: a deep tensor-program session. Was: `fill ?0 --auto default --all` on
`deep_gcn --dim layers=120` exited 0, then show, history, export and undo all failed with an
internal error (RecursionError comparing the replayed sketch with the one saved in the file).

Navigating deep_gcn takes minutes (each step is checked against the whole sketch), so the
command-line test runs with --slow; tests/navigator/honeybee/test_deep_problem.py runs every session command in
CI on a problem as deep, under a shallow stack, and tests/navigator/synth/test_deep_walkers.py
every walker at MAX_SKETCH_DEPTH."""

from __future__ import annotations

import json

import pytest

from fuseflow.support.readers import parse_json_text
from navigator.synth.sketch import MAX_SKETCH_DEPTH, SKETCH_JSON_NESTING, depth_of
from tests.deep_sketches import shallow_stack

#: the most layers `start` accepts: a program may have 333 (1,000 ops, docs/program-format.md),
#: but past 135 its facts exceed the 100,000 the navigator works through
MOST_LAYERS = 135


@pytest.mark.slow
@pytest.mark.parametrize("layers", [120, MOST_LAYERS])
def test_deep_gcn_through_the_command_line(nav, layers):
    nav("start", "deep_gcn", "--dim", f"layers={layers}", ok=True, timeout=600)
    nav("fill", "?0", "--auto", "default", "--all", ok=True, timeout=1800)
    for command in (("show",), ("history",), ("export", "--json", "s.json", "--python", "s.py"), ("undo",),
                    ("redo",), ("show", "--json")):
        result = nav(*command, ok=True, timeout=1800)
    shown = parse_json_text(result.stdout, "show --json", nesting=SKETCH_JSON_NESTING)
    assert shown["complete"] and (nav.cwd / "s.json").exists() and (nav.cwd / "s.py").exists()


def test_the_largest_deep_gcn_sketch_is_read_printed_and_saved():
    """deep_gcn at the most layers `start` accepts: its complete default sketch (built from the
    schedule, not navigated: that takes minutes) through every walker of the binding."""
    from fuseflow.program.binding import bind
    from fuseflow.program.bundled import resolve_program
    from fuseflow.schedule.rules import default_schedule
    from navigator.fuseflow.schedule_space import ScheduleSpace
    from navigator.present.regions import region_view
    from navigator.synth import format_sketch, sketch_to_json
    from navigator.synth.json_form import sketch_json_text

    dims = {"layers": MOST_LAYERS}
    program = resolve_program("deep_gcn", dims)
    space = ScheduleSpace.build(program, bind(program, None, dims))
    schedule = default_schedule(program)
    sketch = space.sketch_of(schedule)
    assert 400 < depth_of(sketch.root) <= MAX_SKETCH_DEPTH  # from 330 on, the session file's check crashed
    with shallow_stack():
        assert space.schedule_of(sketch) == schedule
        assert space.oracle.blocked(sketch) is None
        assert region_view(sketch).hole_region == {}  # complete: no hole to place
        assert format_sketch(sketch).count("\n") > 3 * MOST_LAYERS
        assert json.loads(space.document_text(sketch))["format"] == "navigator-schedule"
        parse_json_text(sketch_json_text(sketch_to_json(sketch)), "sketch", nesting=SKETCH_JSON_NESTING)
