"""Keep Python's cyclic garbage collector off what a Navigator process loads and keeps.

A loaded schedule space holds millions of objects (transformer12: 2.4 million) that live as
long as the process, and each step adds more (menus, sketches, memos). Every full collection
scans all of them (1.8 s there), and an ordinary burst of allocations later (writing the
session, a menu) triggers one: a `fill` paid for two. `gc.freeze()` moves what exists to a
generation the collector never scans; those objects are still freed by reference counting,
only a cycle among them would stay until exit (the engine's bursts leave none).
"""

from __future__ import annotations

import gc

from navigator.synth.inhabitation import freeze_after_pauses


def keep_loaded() -> None:
    """Exempt every object alive now from later collections (once a space is loaded), and
    from now on what each of the engine's bursts leaves (navigator.synth.inhabitation.gc_paused)."""
    gc.freeze()
    freeze_after_pauses(True)
