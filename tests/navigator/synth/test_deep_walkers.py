"""Issue 21: every reader and writer of sketches handles the depth the engine allows
(MAX_SKETCH_DEPTH applications), with an explicit stack. Each walker runs under
tests.deep_sketches.shallow_stack(), a recursion limit far below the sketch's depth, so a walk
that recursed once per level (as the session file's sketch comparison did) fails here."""

from __future__ import annotations

import json

import pytest

from fuseflow.support.readers import json_equal, nesting_depth, parse_json_text
from harness.honeybee_examples import DEEP
from navigator.lang import parse_library
from navigator.synth import format_node_inline, format_sketch, node_to_json, sketch_from_json, sketch_to_json
from navigator.synth.json_form import sketch_json_text
from navigator.synth.sketch import MAX_SKETCH_DEPTH, SKETCH_JSON_NESTING, App, depth_of
from tests.deep_sketches import nat_chain, shallow_stack


@pytest.fixture(scope="module")
def library():
    return parse_library(DEEP, "deep.hblib.toml")


def test_the_shallow_stack_catches_a_recursive_walk():
    """The guard works: a walk recursing once per level fails under it at this depth."""
    def depth(node) -> int:
        deepest = 0
        for _, child in node.args if isinstance(node, App) else ():
            deepest = max(deepest, depth(child))
        return deepest + isinstance(node, App)

    sketch = nat_chain()
    with shallow_stack(room=5 * MAX_SKETCH_DEPTH):
        assert depth(sketch.root) == MAX_SKETCH_DEPTH  # with room for a frame per level it works...
    with shallow_stack(), pytest.raises(RecursionError):
        depth(sketch.root)  # ...under the shallow stack it does not
    data = node_to_json(sketch.root)
    with shallow_stack(), pytest.raises(RecursionError):
        data == node_to_json(sketch.root)  # noqa: B015 - Python's own == on the JSON: the session file's crash


def test_sketch_queries_and_steps_at_the_deepest(library):
    full, open_ = nat_chain(), nat_chain(hole_at_bottom=True)
    with shallow_stack():
        assert depth_of(full.root) == MAX_SKETCH_DEPTH and full.complete and full.size() == MAX_SKETCH_DEPTH
        assert len(list(full.applications())) == MAX_SKETCH_DEPTH
        assert [h.id for h in open_.holes()] == [0] and open_.hole_sites()[0].depth == MAX_SKETCH_DEPTH - 1
        filled = open_.fill(0, "zero", (("n", 0),), ())
        assert filled.root == full.root and hash(filled.root) == hash(full.root)
        assert filled.root != nat_chain(MAX_SKETCH_DEPTH - 1).root


def test_the_json_form_reads_writes_and_compares_at_the_deepest(library):
    sketch = nat_chain()
    with shallow_stack():
        data = sketch_to_json(sketch)
        assert nesting_depth(data, SKETCH_JSON_NESTING) == 3 * MAX_SKETCH_DEPTH + 1  # and zero{n=0}: its empty arguments
        text = sketch_json_text(data)  # C-level json inside recursion_room, bounded by SKETCH_JSON_NESTING
        again = parse_json_text(text, "deep.json", nesting=SKETCH_JSON_NESTING)
        assert json_equal(again, data) and json_equal(data, node_to_json(sketch.root))
        assert sketch_from_json(again, library, "Nat").root == sketch.root
        other = node_to_json(nat_chain(hole_at_bottom=True).root)
        assert not json_equal(data, other) and not json_equal(other, data)


def test_json_equal_is_python_equality_on_json_values():
    cases = [({"a": [1, 2]}, {"a": [1, 2]}), ({"a": 1, "b": 2}, {"b": 2, "a": 1}), ([1], [1, 2]),
             ({"a": 1}, {"a": 1, "b": 2}), ([1], (1,)), (1, 1.0), (True, 1), ("1", 1), (None, None),
             ({"a": {"b": [None]}}, {"a": {"b": [None]}}), ({"a": {"b": [None]}}, {"a": {"b": []}}),
             ([{}], [[]]), ({"a": [1]}, {"a": 1})]
    for a, b in cases:
        assert json_equal(a, b) == (a == b), (a, b)
        assert json_equal(b, a) == (b == a), (b, a)


def test_printing_at_the_deepest():
    sketch = nat_chain()
    with shallow_stack():
        text = format_sketch(sketch)
        inline = format_node_inline(sketch.root)
    assert text.count("\n") == 2 * (MAX_SKETCH_DEPTH - 1)  # a head and a closer per succ, zero alone
    assert inline.count("(") == MAX_SKETCH_DEPTH - 1 and inline.endswith("zero{n=0}" + ")" * (MAX_SKETCH_DEPTH - 1))


def test_the_session_files_text_holds_the_deepest_sketch():
    from navigator.navigation.session_format import session_text

    data = {"format": "navigator-session", "version": 2, "steps": [], "sketch": node_to_json(nat_chain().root)}
    with shallow_stack():
        text = session_text(data)
        read = parse_json_text(text, "s.json", nesting=SKETCH_JSON_NESTING)
        assert json_equal(read, data)
    assert text.startswith('{\n  "format": "navigator-session",')  # the envelope stays indented


def test_json_output_indents_the_outer_levels_and_writes_the_deep_ones_compactly():
    """Was: `show --json`, `export --json` and `replay --json` indented every level, 65 MB of
    spaces for a chain 1,200 applications deep."""
    from navigator.synth.json_form import INDENTED_LEVELS

    small = {"a": [1, {"b": {}, "c": [None, "é"]}], "d": True}
    assert sketch_json_text(small) == json.dumps(small, indent=2, ensure_ascii=False)
    value = {"outer": [sketch_to_json(nat_chain())]}
    with shallow_stack():
        text = sketch_json_text(value)
        assert json_equal(parse_json_text(text, "deep.json", nesting=SKETCH_JSON_NESTING), value)
    assert len(text) < 200_000 and max(map(len, text.splitlines())) > 90_000  # the deep part on one line
    indents = {len(line) - len(line.lstrip(" ")) for line in text.splitlines()}
    assert max(indents) == 2 * INDENTED_LEVELS  # the items of the deepest indented container
