"""The cost hook strategies use to rank (partial) sketches.

A cost function takes a sketch and returns an estimated cost (lower is better), or None
when it cannot estimate one yet (for instance while key holes are still open). The engine
only stores it (`Oracle(..., cost=...)`); strategies decide how to use it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Optional

if TYPE_CHECKING:
    from navigator.synth.sketch import Sketch

CostFunction = Callable[["Sketch"], Optional[float]]
