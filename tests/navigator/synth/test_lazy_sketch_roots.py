"""A step keeps the sketch it came from and builds its tree on demand (Sketch._build, once for
a run of steps): whatever sketch of a run is asked for its tree, in whatever order, the tree is
the one rebuilding the path at every step gives, and the holes index, equality, hashing and
pickling agree with it."""

from __future__ import annotations

import pickle

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from navigator.synth import Oracle
from navigator.synth.sketch import App, Hole, Node, Sketch
from tests.deep_sketches import nat_chain, shallow_stack
from tests.navigator.synth.oracle_checks import load
from tests.navigator.synth.random_problems import problems


def eager_fill(root: Node, positions: tuple[int, ...], new: App) -> Node:
    """The reference: the path from the hole to the root rebuilt at once."""
    if not positions:
        return new
    args = list(root.args)  # type: ignore[union-attr]
    name, child = args[positions[0]]
    args[positions[0]] = (name, eager_fill(child, positions[1:], new))
    return App(root.function, root.type, root.metadata, tuple(args))  # type: ignore[union-attr]


def holes_of(node: Node) -> dict[int, tuple[tuple[int, ...], Hole]]:
    found = {}
    stack = [(node, ())]
    while stack:
        current, path = stack.pop()
        if isinstance(current, Hole):
            found[current.id] = (path, current)
        else:
            stack.extend((child, path + (i,)) for i, (_, child) in enumerate(current.args))
    return found


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(texts=problems(), data=st.data())
def test_any_sketch_of_a_run_builds_the_tree_path_copying_gives(texts, data):
    library, facts = load(texts)
    oracle = Oracle(library, facts)
    sketch = oracle.initial_sketch()
    run, reference = [sketch], [sketch.root]
    for _ in range(data.draw(st.integers(1, 14))):
        options = list(oracle.menus(sketch).options())
        if not options:
            break
        option = data.draw(st.sampled_from(options))
        positions = sketch._holes_index()[option.hole][0]
        sketch = oracle.apply(sketch, option)
        new = sketch.last_step[1]
        reference.append(eager_fill(reference[-1], positions, new))
        run.append(sketch)
    order = data.draw(st.permutations(range(len(run))))
    for i in order:  # built in any order: a later sketch first, or an earlier one after it
        assert run[i].root == reference[i]
        assert {h: (p, hole) for h, (p, hole, _) in run[i]._holes_index().items()} == holes_of(reference[i])
        assert run[i] == Sketch(reference[i], run[i].next_hole)
        assert hash(run[i]) == hash(Sketch(reference[i], run[i].next_hole))
        assert pickle.loads(pickle.dumps(run[i])) == run[i]


def test_a_run_of_steps_down_a_deep_chain_builds_its_tree_without_recursion():
    """Filling the hole at the bottom of the deepest chain, then the holes beneath it, step by
    step: the tree is built once at the end, iteratively, and shares everything above the path."""
    sketch = nat_chain(hole_at_bottom=True)
    start = sketch.root
    with shallow_stack():
        filled = sketch.fill(0, "zero", (("n", 0),), ())
        built = filled.root
    node = built
    while node.args:
        node = node.args[0][1]
    assert node == App("zero", "Nat", (("n", 0),), ())
    assert built.function == start.function and built is not start
    assert filled.complete and not sketch.complete


def test_the_analysis_of_a_step_sees_the_parent_with_its_new_child():
    """last_step's parent is the parent as the step left it: the new application in the
    hole's place, its other children as before."""
    sketch = Sketch(App("pair", "P", (), (("a", Hole(0, "T")), ("b", Hole(1, "T")))), 2)
    first = sketch.fill(0, "leaf", (("v", 1),), ())
    second = first.fill(1, "leaf", (("v", 2),), ())
    positions, new, parent = second.last_step
    assert positions == (1,) and new == App("leaf", "T", (("v", 2),), ())
    assert parent == second.root == App("pair", "P", (), (("a", App("leaf", "T", (("v", 1),), ())), ("b", new)))
