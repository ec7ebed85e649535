"""Printed sketches, checked against golden files (pytest --update-golden rewrites them)."""

from __future__ import annotations

from pathlib import Path

from navigator.synth import Oracle, format_node_inline, format_sketch, sketch_from_json

from tests.navigator.synth.examples import sched

GOLDEN = Path(__file__).parent / "golden"

STEPS = [
    (0, "unfused_schedule{fused=false}"),
    (1, 'choose_grouping{groups="0|1", regions=2}'),
    (2, "region_schedule{region=0}"),
    (4, 'choose_order{region=0, order="i j"}'),
    (5, 'par_level{region=0, order="i j", level=0, extent=64, factor=4}'),
    (6, 'choose_order{region=0, order="i j"}'),
    (3, "region_schedule{region=1}"),
    (7, 'choose_order{region=1, order="i k"}'),
    (8, 'par_level{region=1, order="i k", level=0, extent=2, factor=2}'),
    (9, 'choose_order{region=1, order="i k"}'),
]


def walk():
    oracle = Oracle(*sched())
    sketch = oracle.initial_sketch()
    yield sketch
    for hole, option in STEPS:
        sketch = oracle.step(sketch, hole, option)
        yield sketch


def test_navigation_printed_at_every_step(golden):
    blocks = []
    for index, sketch in enumerate(walk()):
        blocks.append(f"## after {index} steps\n{format_sketch(sketch)}\n")
    golden(GOLDEN / "navigation.txt", "\n".join(blocks))


def test_hole_types_and_narrow_width(golden):
    sketches = list(walk())
    text = "\n\n".join([
        format_sketch(sketches[3], hole_types=True),
        format_sketch(sketches[-1], width=40),
        format_node_inline(sketches[-1].root),
    ])
    golden(GOLDEN / "narrow_and_typed.txt", text + "\n")


def test_fits_on_one_line_when_short():
    sketches = list(walk())
    assert format_sketch(sketches[0]) == "?0"
    assert format_sketch(sketches[1]) == "unfused_schedule{fused=false}(grouping=?1, r0=?2, r1=?3)"
    width = len(format_sketch(sketches[1]))
    assert "\n" not in format_sketch(sketches[1], width=width)
    assert format_sketch(sketches[1], width=width - 1).splitlines() == [
        "unfused_schedule{fused=false}(", "  grouping=?1,", "  r0=?2,", "  r1=?3,", ")"]


def test_deep_tree_from_json(golden):
    library, facts = sched()
    sketch = sketch_from_json({"App": [
        {"name": "fused_schedule", "metadata": {"fused": True}, "arity": ["grouping", "r0"]},
        {"grouping": {"Hole": 7},
         "r0": {"App": [{"name": "region_schedule", "metadata": {"region": 0},
                         "arity": ["order", "par0"]},
                        {"order": {"Hole": 3},
                         "par0": {"App": [{"name": "par_level", "metadata": {
                             "region": 0, "order": "i j", "level": 0, "extent": 64, "factor": 1},
                             "arity": ["order"]}, {"order": {"Hole": 12}}]}}]}}]},
        library, facts.goal.type)
    golden(GOLDEN / "deep_from_json.txt", format_sketch(sketch, width=60, hole_types=True) + "\n")
