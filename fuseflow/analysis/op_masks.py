"""The op graph as bit masks over program positions, for the region checks that run on every
candidate region (connected, convex, ancestors inside a region): set operations on Python ints
instead of graph traversals. Program order is topological, so bit i is op i."""

from __future__ import annotations

from dataclasses import dataclass

from fuseflow.program.ir import Program


@dataclass(frozen=True)
class OpMasks:
    succ: tuple[int, ...]        # consumers of op i
    pred: tuple[int, ...]        # producers op i reads
    desc: tuple[int, ...]        # every op reachable from op i
    anc: tuple[int, ...]         # every op that reaches op i

    def neighbours(self, i: int) -> int:
        return self.succ[i] | self.pred[i]

    def is_connected(self, region: int) -> bool:
        """Weakly connected: every member reached from the lowest one, edges either way."""
        low = region & -region
        seen = frontier = low
        while frontier:
            new = 0
            for i in bits(frontier):
                new |= self.succ[i] | self.pred[i]
            frontier = new & region & ~seen
            seen |= frontier
        return seen == region

    def convex_closure(self, region: int) -> int:
        """The region and every op on a path between two of its members."""
        below = above = 0
        for i in bits(region):
            below |= self.desc[i]
            above |= self.anc[i]
        return region | (below & above)


    def grown_closures(self, region: int, allowed: int = -1) -> list[int]:
        """convex_closure(region | op) for each neighbour op of the region within `allowed`, in
        the order of the ops, each closure once; the unions over the region are shared."""
        below = above = reach = 0
        for i in bits(region):
            below |= self.desc[i]
            above |= self.anc[i]
            reach |= self.succ[i] | self.pred[i]
        # adding ops on paths between members changes neither union, so one step closes
        return list(dict.fromkeys(region | 1 << j | ((below | self.desc[j]) & (above | self.anc[j]))
                                  for j in bits(reach & allowed & ~region)))


def op_masks(program: Program) -> OpMasks:
    masks = program.memo.get("op_masks")
    if masks is None:
        # From the ops' accesses rather than program.graph: networkx is not needed to start.
        position = program.op_position
        names = [op.name for op in program.ops]
        pred = [0] * len(names)
        for i, op in enumerate(program.ops):
            for access in op.inputs:
                source = program.producer.get(access.tensor)
                if source is not None:
                    pred[i] |= 1 << position[source]
        succ = [0] * len(names)
        for i in range(len(names)):
            for j in bits(pred[i]):
                succ[j] |= 1 << i
        desc = [0] * len(names)
        for i in reversed(range(len(names))):
            mask = succ[i]
            for j in bits(succ[i]):
                mask |= desc[j]
            desc[i] = mask
        anc = [0] * len(names)
        for i in range(len(names)):
            mask = pred[i]
            for j in bits(pred[i]):
                mask |= anc[j]
            anc[i] = mask
        masks = program.memo["op_masks"] = OpMasks(tuple(succ), tuple(pred), tuple(desc), tuple(anc))
    return masks


def mask_of(program: Program, ops) -> int:
    position = program.op_position
    return sum(1 << position[op] for op in set(ops))


def bits(mask: int):
    """Positions of the set bits, lowest first."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low
