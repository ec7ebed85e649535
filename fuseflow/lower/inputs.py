"""The tensors an op of a lowered region reads, and how each supports a loop level."""

from __future__ import annotations

from dataclasses import dataclass

from fuseflow.program.expr import Access
from fuseflow.lower.level_support import ALL, Support, fiber


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


def memory_key(tensor: str, vars_: tuple[str, ...]) -> str:
    return f"{tensor}({','.join(vars_)})"


def buffer_key(tensor: str) -> str:
    return f"{tensor}~"


def leaf_support(inputs: dict[str, Input], keys: dict[Access, str], var: str, buffers_dense: bool = False):
    """The support a level of `var` gets from each access: a fiber when the input stores
    `var` compressed (buffers counted as dense when `buffers_dense`), else every coordinate."""

    def leaf(access: Access) -> Support:
        inp = inputs[keys[access]]
        if var not in inp.vars:
            return ALL
        if inp.kind == "buffer" and buffers_dense:
            return ALL
        return fiber(inp.key) if inp.formats[inp.vars.index(var)] == "compressed" else ALL
    return leaf


