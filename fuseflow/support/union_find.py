"""Union-find over hashable items, with path compression: the one used wherever classes of
equal things are built (MLIR axes, the solver's join units, a formula's equal atoms)."""

from __future__ import annotations

from typing import Hashable, Iterable


class UnionFind:
    def __init__(self, items: Iterable[Hashable] = ()):
        self.parent: dict[Hashable, Hashable] = {item: item for item in items}

    def add(self, item: Hashable) -> None:
        self.parent.setdefault(item, item)

    def __contains__(self, item: Hashable) -> bool:
        return item in self.parent

    def find(self, item: Hashable) -> Hashable:
        root = item
        while self.parent[root] != root:
            root = self.parent[root]
        while self.parent[item] != root:  # path compression
            self.parent[item], item = root, self.parent[item]
        return root

    def union(self, keep: Hashable, other: Hashable) -> Hashable:
        """Join the classes of `keep` and `other`; the root of `keep`'s class is the joint root."""
        root, joined = self.find(keep), self.find(other)
        if root != joined:
            self.parent[joined] = root
        return root
