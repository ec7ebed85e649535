"""Legal dataflow orders of a region: linear extensions of its operands' storage orders.

A sparse operand (one with a compressed level) must be traversed concordantly: the variable
of each storage level is iterated after the variable of the level above it. With
`dense_fixed=True`, dense operands' storage orders are fixed too.

Orders are counted with dynamic programming over subsets of variables (2^n states, with
n at most ir.MAX_VARS), so counting never enumerates, and they can be ranked, unranked and
enumerated lazily. Enumerating all of them is factorial in n: callers that list every order
bound how many (navigator.fuseflow.facts, fuseflow.schedule.space_size).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import cached_property

from fuseflow.program.ir import MAX_VARS, Region
from fuseflow.support.memo import BoundedMemo


#: order lists by space; a few hundred distinct spaces even for the largest bundled program
_LISTED: BoundedMemo = BoundedMemo(256)
#: orders of a space kept in that memo, at most
LISTED_LIMIT = 2_000


def precedence_pairs(region: Region, dense_fixed: bool = False) -> set[tuple[str, str]]:
    """(before, after) pairs: `before` must be iterated outside `after`."""
    pairs: set[tuple[str, str]] = set()
    for operand in region.operands:
        if "compressed" in operand.formats or dense_fixed:
            for parent, child in zip(operand.vars, operand.vars[1:]):
                pairs.add((parent, child))
    return pairs


@dataclass(frozen=True)
class OrderSpace:
    """The legal orders of one region's variables under precedence constraints."""

    vars: tuple[str, ...]
    pairs: frozenset[tuple[str, str]]

    @classmethod
    def of_region(cls, region: Region, dense_fixed: bool = False) -> "OrderSpace":
        return cls(region.vars, frozenset(precedence_pairs(region, dense_fixed)))

    @cached_property
    def _pred_masks(self) -> tuple[int, ...]:
        index = {v: i for i, v in enumerate(self.vars)}
        masks = [0] * len(self.vars)
        for before, after in self.pairs:
            masks[index[after]] |= 1 << index[before]
        return tuple(masks)

    @cached_property
    def _completions(self) -> dict[int, int]:
        """placed-set mask -> number of ways to order the remaining variables."""
        n = len(self.vars)
        # Up to 2**n states: the program reader and fusion.region_problem keep n within MAX_VARS.
        if n > MAX_VARS:
            raise ValueError(f"{n} loop variables reached the order counter; at most {MAX_VARS} may")
        full = (1 << n) - 1
        preds = self._pred_masks
        ways: dict[int, int] = {full: 1}
        # Process masks by decreasing popcount so successors are ready first.
        by_size: list[list[int]] = [[] for _ in range(n + 1)]
        reachable = {0}
        frontier = [0]
        while frontier:
            nxt = []
            for mask in frontier:
                by_size[bin(mask).count("1")].append(mask)
                for i in range(n):
                    if not mask >> i & 1 and preds[i] & ~mask == 0:
                        m2 = mask | 1 << i
                        if m2 not in reachable:
                            reachable.add(m2)
                            nxt.append(m2)
            frontier = nxt
        for size in range(n - 1, -1, -1):
            for mask in by_size[size]:
                total = 0
                for i in range(n):
                    if not mask >> i & 1 and preds[i] & ~mask == 0:
                        total += ways[mask | 1 << i]
                ways[mask] = total
        return ways

    def count(self, prefix: tuple[str, ...] = ()) -> int:
        """Number of legal orders that start with `prefix` (0 if the prefix is illegal)."""
        mask = self._mask_of_prefix(prefix)
        return 0 if mask is None else self._completions.get(mask, 0)

    def listed(self) -> Iterable[tuple[str, ...]]:
        """Every legal order, as `iter` gives them; kept for the spaces listed most recently when
        there are at most LISTED_LIMIT (a deep model's repeated blocks have many regions with the
        same variables and constraints, and the facts list each region's orders). A larger space
        is iterated lazily, so that a caller's budget can stop it."""
        found = _LISTED.get(self)
        if found is None:
            if self.count() > LISTED_LIMIT:
                return iter(self)
            found = _LISTED[self] = tuple(self)
        return found

    def count_ending_with(self, var: str) -> int:
        """Number of legal orders whose innermost (last) variable is `var`: the orders of the
        others, when no constraint puts a variable after `var` (else 0)."""
        if any(before == var for before, _ in self.pairs):
            return 0
        rest = tuple(v for v in self.vars if v != var)
        return OrderSpace(rest, frozenset(p for p in self.pairs if var not in p)).count()

    def _mask_of_prefix(self, prefix) -> int | None:
        index = {v: i for i, v in enumerate(self.vars)}
        mask = 0
        for var in prefix:
            i = index.get(var)
            if i is None or mask >> i & 1 or self._pred_masks[i] & ~mask:
                return None
            mask |= 1 << i
        return mask

    def next_choices(self, prefix: tuple[str, ...] = ()) -> list[str]:
        """Variables that may come next after a legal prefix."""
        mask = self._mask_of_prefix(prefix)
        if mask is None:
            return []
        return [v for i, v in enumerate(self.vars)
                if not mask >> i & 1 and self._pred_masks[i] & ~mask == 0]

    def is_legal(self, order) -> bool:
        return len(order) == len(self.vars) and self._mask_of_prefix(tuple(order)) == (1 << len(self.vars)) - 1

    def violated(self, order) -> tuple[str, str] | None:
        """A (before, after) constraint the order breaks, if any."""
        position = {v: i for i, v in enumerate(order)}
        for before, after in sorted(self.pairs):
            if before in position and after in position and position[before] > position[after]:
                return before, after
        return None

    def __iter__(self) -> Iterator[tuple[str, ...]]:
        """All legal orders, lazily, in lexicographic order of variable positions."""
        n = len(self.vars)
        preds = self._pred_masks
        order: list[str] = []

        def walk(mask: int) -> Iterator[tuple[str, ...]]:
            if len(order) == n:
                yield tuple(order)
                return
            for i in range(n):
                if not mask >> i & 1 and preds[i] & ~mask == 0:
                    order.append(self.vars[i])
                    yield from walk(mask | 1 << i)
                    order.pop()

        yield from walk(0)

    def unrank(self, rank: int) -> tuple[str, ...]:
        """The rank-th order of the iteration above, in O(n^2) using the counts."""
        if not 0 <= rank < self.count():
            raise IndexError(rank)
        order: list[str] = []
        mask = 0
        preds = self._pred_masks
        ways = self._completions
        while len(order) < len(self.vars):
            for i, var in enumerate(self.vars):
                if not mask >> i & 1 and preds[i] & ~mask == 0:
                    below = ways[mask | 1 << i]
                    if rank < below:
                        order.append(var)
                        mask |= 1 << i
                        break
                    rank -= below
        return tuple(order)

    def first(self) -> tuple[str, ...]:
        """The first legal order in canonical variable order."""
        return self.unrank(0)


def default_order(region: Region) -> tuple[str, ...]:
    """The compiler's default order: concordant with every operand's storage order when some
    order is (so dense operands stream row by row too), else the first legal order."""
    concordant = OrderSpace.of_region(region, dense_fixed=True)
    if concordant.count():
        return concordant.first()
    return OrderSpace.of_region(region).first()
