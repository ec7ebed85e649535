"""Issue 21: the model's view of a sketch as deep as the engine allows, built without recursion."""

from __future__ import annotations

from navigator.llm.prompt import _sketch_text
from navigator.present.regions import region_view
from navigator.synth.sketch import MAX_SKETCH_DEPTH
from tests.deep_sketches import nat_chain, shallow_stack


def test_the_prompts_sketch_view_at_the_deepest():
    sketch = nat_chain(hole_at_bottom=True)
    with shallow_stack():
        view = region_view(sketch)
        text = _sketch_text(sketch, (0,))
    assert view.hole_region == {0: None}
    assert text.startswith("## Current sketch (1 open hole; to fill: ?0)")
    assert f"abbreviated: {2 * MAX_SKETCH_DEPTH - 1:,} lines" in text  # too long to send whole
