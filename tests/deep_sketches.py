"""Sketches as deep as the engine allows, built directly (no slow navigation), and a stack too
shallow for any walk that recurses once per level: the tests of deep sketches run every reader
and writer of sketches under `shallow_stack()`, so a recursive walk brought back fails them."""

from __future__ import annotations

import sys
from contextlib import contextmanager
from typing import Iterator

from navigator.synth.sketch import MAX_SKETCH_DEPTH, App, Hole, Node, Sketch

#: frames a walker may use above its caller: far fewer than a sketch's depth, far more than any
#: iterative walk needs (a C-level JSON encode or decode raises the limit itself, in recursion_room)
ROOM = 150


def _stack_depth() -> int:
    depth, frame = 0, sys._getframe()
    while frame is not None:
        depth, frame = depth + 1, frame.f_back
    return depth


@contextmanager
def shallow_stack(room: int = ROOM) -> Iterator[None]:
    """Python's recursion limit at `room` frames above the caller's, for the block."""
    previous = sys.getrecursionlimit()
    sys.setrecursionlimit(_stack_depth() + room)
    try:
        yield
    finally:
        sys.setrecursionlimit(previous)


def nat_chain(depth: int = MAX_SKETCH_DEPTH, *, hole_at_bottom: bool = False) -> Sketch:
    """A sketch of harness.honeybee_examples.DEEP `depth` applications deep: succ{n=depth-1}(...
    zero{n=0}), its goal Nat{n = depth - 1}; with `hole_at_bottom`, ?0 : Nat stands for zero."""
    node: Node = Hole(0, "Nat") if hole_at_bottom else App("zero", "Nat", (("n", 0),), ())
    for n in range(1, depth):
        node = App("succ", "Nat", (("n", n),), (("prev", node),))
    return Sketch(node, 1 if hole_at_bottom else 0)
