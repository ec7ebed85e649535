"""What a command loads, and what the engine's bursts of allocation leave, is kept out of the
cyclic collector's scans (navigator.process.heap)."""

from __future__ import annotations

import gc

from navigator.process.heap import keep_loaded
from navigator.synth.inhabitation import gc_paused


class Node:
    def __init__(self):
        self.me = self  # a cycle: tracked by the collector


def test_what_is_loaded_and_what_each_burst_leaves_is_frozen_and_the_collector_runs_again():
    loaded = Node()
    keep_loaded()
    assert gc.isenabled()
    frozen = gc.get_freeze_count()
    assert frozen > 0 and gc.is_tracked(loaded)
    with gc_paused():
        assert not gc.isenabled()
        with gc_paused():  # nested: nothing changes until the outermost ends
            kept = [Node() for _ in range(1000)]
        assert not gc.isenabled() and gc.get_freeze_count() == frozen
    assert gc.isenabled()
    assert gc.get_freeze_count() >= frozen + len(kept)


def test_without_keep_loaded_a_burst_leaves_its_objects_to_the_collector():
    before = gc.get_freeze_count()
    with gc_paused():
        kept = [Node() for _ in range(100)]
    assert gc.get_freeze_count() == before and len(kept) == 100
