"""Printed sketches, checked against golden files (pytest --update-golden rewrites them)."""

from __future__ import annotations

from pathlib import Path

from navigator.synth import Oracle, format_node_inline, format_sketch, sketch_from_json

from harness.honeybee_examples import SCHED_STEPS as STEPS, sched

GOLDEN = Path(__file__).parent / "golden"



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
