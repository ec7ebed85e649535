"""Block storage: how a block-sparse operand is stored in block mode.

In a region with `block_sparse` set, a block-sparse operand (sparse, two or more levels: the
operands whose levels the lowering tiles, `fuseflow.lower.plan.is_block_sparse`) is stored as
blocks: its pattern is the pattern of the occupied blocks (each coordinate divided by the
block edge of its variable), every occupied block stores all its values (zeros included:
padded to the block), and each compressed level stores one coordinate per block. So its
bytes and its reads, like its arithmetic, follow the real block occupancy: a half-empty block
costs a whole one.
"""

from __future__ import annotations

import math

from simulator.fibertree import FiberTree


def block_tree(tree: FiberTree, edges: tuple[int, ...]) -> FiberTree:
    """The pattern of the occupied blocks, as a fiber tree over block coordinates (no values)."""
    extents = tuple(-(-e // b) for e, b in zip(tree.extents, edges))
    coords, _ = tree.coordinates()
    return FiberTree.from_coo(tree.formats, extents, [c // b for c, b in zip(coords, edges)])


def stored_arrays(tree: FiberTree, value_bytes: int, index_bytes: int,
                  edges: tuple[int, ...] | None = None) -> list[int]:
    """Bytes of each array the tensor is stored in (FiberTree.array_bytes); with block
    `edges`, of its block storage: `value_bytes` per element of each occupied block."""
    if edges is None:
        return tree.array_bytes(value_bytes, index_bytes)
    return block_tree(tree, edges).array_bytes(value_bytes, index_bytes, math.prod(edges))
