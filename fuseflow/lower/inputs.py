"""The tensors an op of a lowered region reads (how each supports a loop level: fuseflow.analysis.loop_fibers)."""

from __future__ import annotations

from dataclasses import dataclass

from fuseflow.analysis.loop_fibers import buffer_key, memory_key  # noqa: F401 (the lowering's names for inputs)


@dataclass(frozen=True)
class Input:
    """A tensor an op reads: from memory, from an on-chip buffer, or only as a filter."""

    key: str
    kind: str                     # "memory" | "buffer" | "filter"
    tensor: str
    vars: tuple[str, ...]         # region variable of each storage level
    formats: tuple[str, ...]
    extents: tuple[int, ...]
    producer: str | None = None   # buffers: the op that fills it
    depends: tuple[bool, ...] = ()  # buffers: levels whose coordinates the producer's data decides

    def level_depends(self, level: int) -> bool:
        return self.depends[level] if self.depends else True
