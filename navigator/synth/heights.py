"""Minimal completion heights: how few applications deep a complete program can be.

The *height* of a program is the number of applications on its longest root-to-leaf
path. For an inhabited pair `(T, m)` and a function `f` deriving it:

    h_f(T, m) = 1 + max over components c of f of  min over solutions s of c of  max over
                children (T', m') of s of h(T', m')        (1 when f has no parameters)
    h(T, m)   = min over functions f deriving (T, m) of h_f(T, m)

These are least fixpoints like the counts, but over (min, max, +1) instead of (+, x), so
they are finite for every inhabited pair, recursive libraries included: an inhabited
pair has a finite derivation by definition. They are computed by Knuth's generalisation
of Dijkstra's algorithm (Knuth 1977, "A generalization of Dijkstra's algorithm"): values
are settled in increasing order, and a rule fires once all its inputs are settled.

The engine uses them for two things: defaults that must terminate pick options of the
smallest completion (`Oracle`), and the type-level version (`type_heights`, metadata and
conditions ignored, so a lower bound) refuses up front a goal whose every program nests
deeper than a sketch may (`sketch.MAX_SKETCH_DEPTH`).
"""

from __future__ import annotations

import heapq
from typing import Hashable, Iterable, Mapping

from navigator.lang import Library
from navigator.synth.compiled import CompiledFunction, Meta
from navigator.synth.inhabitation import Tables

#: a rule: (target, weight, inputs); its value is weight + the largest input value (weight
#: alone without inputs), and a target's value is the smallest value of its rules
Rule = tuple[Hashable, int, tuple[Hashable, ...]]


def least_values(rules: list[Rule], known: Mapping[Hashable, int]) -> tuple[dict, list[int | None]]:
    """Settle every target reachable from rules without inputs (Knuth's algorithm).

    Inputs found in `known` are settled already. Returns the targets' values and each
    rule's value (None for a rule whose inputs never settle)."""
    waiting = [0] * len(rules)
    base = [0] * len(rules)
    users: dict[Hashable, list[int]] = {}
    heap: list[tuple[int, int, Hashable]] = []
    for index, (target, weight, inputs) in enumerate(rules):
        best_known = 0
        pending = 0
        for item in set(inputs):
            value = known.get(item)
            if value is None:
                pending += 1
                users.setdefault(item, []).append(index)
            elif value > best_known:
                best_known = value
        waiting[index] = pending
        base[index] = best_known
        if pending == 0:
            heapq.heappush(heap, (weight + best_known, index, target))
    rule_values: list[int | None] = [None] * len(rules)
    settled: dict[Hashable, int] = {}
    while heap:
        value, index, target = heapq.heappop(heap)
        rule_values[index] = value
        if target in settled or target in known:
            continue
        settled[target] = value
        for user in users.get(target, ()):
            waiting[user] -= 1
            if waiting[user] == 0:
                # Inputs settle in increasing order: this one is the largest pending input.
                user_target, weight, _ = rules[user]
                heapq.heappush(heap, (weight + max(base[user], value), user, user_target))
    return settled, rule_values


class CompletionHeights:
    """h(T, m) and h_f(T, m), computed on demand for the pairs reachable from the ones asked
    about, and memoised. Derivations come from the pairs' compiled plans (counting drops its
    copy once a pair is counted); every solve is paid from the tables' work budget."""

    def __init__(self, functions: tuple[CompiledFunction, ...], tables: Tables):
        self.functions = functions
        self.tables = tables
        self._pairs: dict[tuple[str, Meta], int] = {}
        self._functions: dict[tuple[int, Meta], int] = {}

    def pair(self, type_name: str, meta: Meta) -> int:
        """h(T, m) of an inhabited pair."""
        key = (type_name, meta)
        if key not in self._pairs:
            self._compute(key)
        return self._pairs[key]

    def function(self, function_index: int, meta: Meta) -> int:
        """h_f(T, m) for a function deriving the inhabited pair (T, m)."""
        key = (function_index, meta)
        if key not in self._functions:
            self._compute((self.functions[function_index].ret_type, meta))
        return self._functions[key]

    def _derivations(self, type_name: str, meta: Meta) -> list:
        tables = self.tables
        positions = tables.full_positions[type_name]
        found = []
        for cf in tables.by_type.get(type_name, ()):
            components = tables.plan(cf, positions).run(meta, None, tables.lookup)
            if components is not None:
                found.append((cf, components))
        return found

    def _compute(self, root: tuple[str, Meta]) -> None:
        rules: list[Rule] = []
        function_rules: list[tuple[int, tuple[int, Meta]]] = []
        seen = {root}
        stack = [root]
        spend = self.tables.budget.spend
        while stack:
            pair = stack.pop()
            type_name, meta = pair
            for cf, components in self._derivations(type_name, meta):
                spend(1 + sum(len(c.solutions) for c in components), cf.name)
                parts = []
                for position, comp in enumerate(components):
                    part = ("component", cf.index, meta, position)
                    parts.append(part)
                    types = [cf.slot_types[s] for s in comp.param_slots]
                    for _, metas in comp.solutions:
                        children = tuple(zip(types, metas))
                        rules.append((part, 0, children))
                        for child in children:
                            if child not in seen and child not in self._pairs:
                                seen.add(child)
                                stack.append(child)
                function_rules.append((len(rules), (cf.index, meta)))
                rules.append((pair, 1, tuple(parts)))
        settled, values = least_values(rules, self._pairs)
        for target, value in settled.items():
            if target[0] != "component":
                self._pairs[target] = value  # type: ignore[index]
        for index, key in function_rules:
            if values[index] is not None:
                self._functions[key] = values[index]  # type: ignore[assignment]


def type_heights(library: Library) -> dict[str, int]:
    """The fewest applications deep any program of each type can be, from the types alone
    (conditions and metadata ignored: a lower bound). Types without a finite program are
    left out."""
    rules: list[Rule] = [(decl.ret, 1, tuple(p.type for p in decl.params))
                         for decl in library.functions.values()]
    return least_values(rules, {})[0]


def shortest_chain(library: Library, type_name: str, heights: Mapping[str, int], limit: int = 6
                   ) -> Iterable[str]:
    """Type names along a deepest path of a shortest program of `type_name` (for messages)."""
    current: str | None = type_name
    for _ in range(limit):
        if current is None:
            return
        yield current
        height = heights[current]
        following = None
        for decl in library.functions.values():
            params = [p.type for p in decl.params]
            if decl.ret == current and params and all(t in heights for t in params) \
                    and 1 + max(heights[t] for t in params) == height:
                following = max(params, key=lambda t: heights[t])
                break
        current = following
