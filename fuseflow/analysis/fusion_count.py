"""Count the legal fusion groupings of a program without listing them.

f(S) is the number of legal partitions of the ops outside S, for S a downward-closed op set
(every predecessor of a member is a member); the answer is f(no ops), and f(all ops) = 1.
A partition with an acyclic region graph has at least one source region (all its outside
predecessors lie in S), and for any non-empty set the signed sum over its non-empty subsets
is 1, so by inclusion-exclusion over the sources

    f(S) = sum over non-empty collections T of disjoint legal regions that are ready at S
           (every outside predecessor in S) of (-1)^(|T|+1) * f(S + union(T)).

Collections with the same union reach the same state, so a small DP folds them into one signed
coefficient per union. Each region's legality is `fusion.region_problem`, the validator's rule.
docs/fusion-count.md explains the algorithm and its cost.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import networkx as nx

from fuseflow.support.work_budget import StepBudget
from fuseflow.analysis.fusion import region_cannot_grow, region_problem
from fuseflow.program.ir import Program

#: Work while counting, in ops of each candidate region unified or checked, and unions folded
#: (about 10 µs each). A 64-layer residual GCN uses 5,633, an 80-op element-wise chain (every
#: interval fuses) 180,360; a wide fan-out runs out in about 3 s with a ResourceError.
MAX_COUNT_STEPS = 300_000
_COUNT_FIX = ("split the program into smaller programs: counting fusion groupings grows with the number "
              "of ops that can run side by side")


def count_legal_groupings(program: Program,
                          weight: Callable[[tuple[str, ...]], int] | None = None) -> int:
    """How many legal groupings `fusion.legal_groupings` would list, computed without listing them.

    With `weight` (a region's ops, in program order -> a number), the sum over the groupings of
    the product of their regions' weights instead: the schedule space's closed form
    (fuseflow.schedule.space_size) with each region weighted by its schedules."""
    # A region is connected, so it lies in one weakly connected part of the op graph, and parts
    # share no edges: the groupings of the whole are the products of the parts' groupings.
    steps = StepBudget(MAX_COUNT_STEPS, "steps counting fusion groupings", program.path or program.name,
                       _COUNT_FIX)
    parts = [sorted(part, key=program.op_position.__getitem__)
             for part in nx.weakly_connected_components(program.graph)]
    return math.prod(_Counter(program, part, weight, steps).total() for part in parts)


class _Counter:
    """Counts the groupings of one part of the op graph. Op sets are bit masks over its ops in
    program order (a topological order)."""

    def __init__(self, program: Program, names: list[str], weight: Callable[[tuple[str, ...]], int] | None,
                 steps: StepBudget):
        self.program = program
        self.weight = weight
        self.names = names  # one weakly connected part of the op graph, in program order
        bit = {name: 1 << i for i, name in enumerate(self.names)}
        graph = program.graph
        self.preds = [sum(bit[p] for p in graph.predecessors(n)) for n in self.names]
        self.neighbours = [self.preds[i] | sum(bit[s] for s in graph.successors(n))
                           for i, n in enumerate(self.names)]
        self.full = (1 << len(self.names)) - 1
        self.steps = steps

    def total(self) -> int:
        """f(empty set), evaluated bottom-up with an explicit stack: a long chain of states
        nests as deep as the program has ops."""
        memo: dict[int, int] = {self.full: 1}
        terms: dict[int, dict[int, int]] = {}
        stack = [0]
        while stack:
            state = stack[-1]
            if state in memo:
                stack.pop()
                continue
            if state not in terms:
                terms[state] = self._coefficients(state)
                missing = [state | union for union in terms[state] if state | union not in memo]
                if missing:
                    stack.extend(missing)
                    continue
            memo[state] = sum(c * memo[state | union] for union, c in terms.pop(state).items())
            stack.pop()
        return memo[0]

    def _coefficients(self, state: int) -> dict[int, int]:
        """{union of T: sum of (-1)^(|T|+1) * (product of T's weights) over the collections T with
        that union}, zeros dropped. Adding a region to a collection flips its sign; visiting the
        regions once each, against a snapshot, builds every collection once."""
        signed = {0: -1}
        for region in self._ready_regions(state):
            w = 1 if self.weight is None else self.weight(self._ops(region))
            for union, c in list(signed.items()):
                if not union & region:
                    self.steps.spend()
                    signed[union | region] = signed.get(union | region, 0) - c * w
        return {union: c for union, c in signed.items() if union and c}

    def _ready_regions(self, state: int) -> list[int]:
        """Legal regions R outside `state` whose outside predecessors all lie in it.

        Such an R is exactly D - state for a downward-closed D above state, and is convex for
        free (a path leaving R would need an op outside both to feed R). The candidates are
        grown by adding ops in increasing position, each one only after all its predecessors,
        so every D is visited once; the connected ones the region rules accept are kept. A
        connected set whose unification fails is not grown: every larger set fails too. (Only
        connected sets are unified: the unification of each is kept in program.memo.)"""
        n = len(self.names)
        found = []
        stack = [(0, 0)]  # (region so far, next position to consider)
        while stack:
            region, start = stack.pop()
            covered = state | region
            for i in range(start, n):
                bit = 1 << i
                if covered & bit or self.preds[i] & ~covered:
                    continue
                grown = region | bit
                self.steps.spend(grown.bit_count())
                if not self._connected(grown):
                    stack.append((grown, i + 1))  # a later op may join the pieces
                elif not region_cannot_grow(self.program, self._ops(grown)):
                    found.append(grown)
                    stack.append((grown, i + 1))
        return [r for r in found if self._legal(r)]

    def _connected(self, region: int) -> bool:
        low = region & -region
        seen = low
        frontier = low
        while frontier:
            i = (frontier & -frontier).bit_length() - 1
            frontier &= frontier - 1
            new = self.neighbours[i] & region & ~seen
            seen |= new
            frontier |= new
        return seen == region

    def _legal(self, region: int) -> bool:
        group = self._ops(region)
        self.steps.spend(len(group))
        return region_problem(self.program, group) is None

    def _ops(self, region: int) -> tuple[str, ...]:
        return tuple(name for i, name in enumerate(self.names) if region >> i & 1)
