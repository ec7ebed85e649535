"""What a command loads, and what the engine's bursts of allocation leave, is kept out of the
cyclic collector's scans (navigator.process.heap)."""

from __future__ import annotations

import gc

from navigator.process.heap import keep_loaded
from navigator.synth.inhabitation import gc_paused


class Node:
    def __init__(self):
        self.me = self  # a cycle: tracked by the collector


def _scanned(obj) -> bool:
    """Whether the collector's generations hold `obj` (frozen objects are in none)."""
    return any(o is obj for o in gc.get_objects())


def test_what_is_loaded_and_what_each_burst_leaves_is_frozen_and_the_collector_runs_again():
    loaded = Node()
    assert _scanned(loaded)
    keep_loaded()
    assert gc.isenabled() and not _scanned(loaded)
    with gc_paused():
        assert not gc.isenabled()
        with gc_paused():  # nested: nothing changes until the outermost ends
            kept = Node()
        assert not gc.isenabled() and _scanned(kept)
    assert gc.isenabled() and not _scanned(kept)


def test_without_keep_loaded_a_burst_leaves_its_objects_to_the_collector():
    with gc_paused():
        kept = Node()
    assert _scanned(kept)
