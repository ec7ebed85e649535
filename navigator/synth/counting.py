"""How many complete programs exist for each inhabited (type, metadata) pair.

The derivation graph has a node per inhabited pair `(T, m)`, a node per component key
`(f, component, key)` of each function, and edges from a pair to the components of every
function that derives it, and from a component key to the pairs its solutions use. Counts
follow by dynamic programming in reverse topological order of the strongly connected
components:

    N(T, m)            = sum over functions f deriving (T, m) of N_f(T, m)
    N_f(T, m)          = product over components c of f of W(f, c, m restricted to c)
    W(f, c, key)       = sum over solutions of c with that key of the product of N(child)

A pair is unbounded when it lies on a cycle or reaches one: every edge here is productive
(all children are inhabited), so a cycle can be pumped into arbitrarily large programs.
Nothing enumerates programs; Python ints hold the exact, possibly huge, counts.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from navigator.synth.compiled import CompiledFunction, FactIndex, Meta
from navigator.synth.count import ONE, UNBOUNDED, ZERO, Count
from navigator.synth.domain import Domain
from navigator.synth.inhabitation import assemble_ret
from navigator.synth.solver import ComponentResult, solve


@dataclass
class _FunctionGrounding:
    cf: CompiledFunction
    components: list[ComponentResult]
    #: per component: ret key -> solutions' parameter metadata tuples
    by_key: list[dict[tuple, list[tuple[Meta, ...]]]]
    derived: list[Meta]


class DerivationCounts:
    """Counts of complete programs per (type, metadata) and per (function, metadata)."""

    def __init__(self, functions: tuple[CompiledFunction, ...], inhabited: dict[str, list[Meta]],
                 domain: Domain, facts: FactIndex):
        self.functions = functions
        self.inhabited = inhabited
        self.groundings: list[_FunctionGrounding | None] = []
        #: (type, meta) -> indices of the functions deriving it, in library order
        self.derivers: dict[tuple[str, Meta], list[int]] = defaultdict(list)
        for cf in functions:
            components = solve(cf, {}, lambda s, cf=cf: inhabited[cf.slot_types[s]], domain, facts)
            if components is None:
                self.groundings.append(None)
                continue
            by_key = []
            for comp in components:
                groups: dict[tuple, list[tuple[Meta, ...]]] = defaultdict(list)
                for key, metas in comp.solutions:
                    groups[key].append(metas)
                by_key.append(dict(groups))
            derived = assemble_ret(cf, components, keys_of=lambda c: {k for k, _ in c.solutions})
            self.groundings.append(_FunctionGrounding(cf, components, by_key, derived))
            for meta in derived:
                self.derivers[(cf.ret_type, meta)].append(cf.index)
        self._value_count: dict[tuple[str, Meta], Count] = {}
        self._component_count: dict[tuple[int, int, tuple], Count] = {}
        self._compute()

    # -- graph ----------------------------------------------------------------------

    def _component_key(self, g: _FunctionGrounding, ci: int, meta: Meta) -> tuple:
        return tuple(meta[f] for f in g.components[ci].ret_fields)

    def _successors(self, node):
        if node[0] == "v":
            _, type_name, meta = node
            out = []
            for fi in self.derivers.get((type_name, meta), ()):
                g = self.groundings[fi]
                for ci in range(len(g.components)):
                    out.append(("c", fi, ci, self._component_key(g, ci, meta)))
            return out
        _, fi, ci, key = node
        g = self.groundings[fi]
        slots = g.components[ci].param_slots
        seen = {}
        for metas in g.by_key[ci].get(key, ()):
            for slot, meta in zip(slots, metas):
                child = ("v", g.cf.slot_types[slot], meta)
                seen[child] = None
        return list(seen)

    def _compute(self) -> None:
        roots = [("v", t, m) for t, metas in self.inhabited.items() for m in metas]
        counts: dict[tuple, Count] = {}
        for scc in _strongly_connected(roots, self._successors):
            cyclic = len(scc) > 1 or scc[0] in self._successors(scc[0])
            for node in scc:
                counts[node] = UNBOUNDED if cyclic else self._node_count(node, counts)
        for node, count in counts.items():
            if node[0] == "v":
                self._value_count[(node[1], node[2])] = count
            else:
                self._component_count[(node[1], node[2], node[3])] = count

    def _node_count(self, node, counts) -> Count:
        if node[0] == "v":
            _, type_name, meta = node
            result = ZERO
            for fi in self.derivers.get((type_name, meta), ()):
                g = self.groundings[fi]
                term = ONE
                for ci in range(len(g.components)):
                    term = term * counts[("c", fi, ci, self._component_key(g, ci, meta))]
                result = result + term
            return result
        _, fi, ci, key = node
        g = self.groundings[fi]
        slots = g.components[ci].param_slots
        result = ZERO
        for metas in g.by_key[ci].get(key, ()):
            term = ONE
            for slot, meta in zip(slots, metas):
                term = term * counts[("v", g.cf.slot_types[slot], meta)]
            result = result + term
        return result

    # -- queries --------------------------------------------------------------------

    def value(self, type_name: str, meta: Meta) -> Count:
        """N(T, m): complete programs of type T whose result has metadata m."""
        return self._value_count.get((type_name, meta), ZERO)

    def function(self, function_index: int, meta: Meta) -> Count:
        """N_f(T, m): complete programs whose root is function f with metadata m."""
        g = self.groundings[function_index]
        if g is None:
            return ZERO
        result = ONE
        for ci in range(len(g.components)):
            key = self._component_key(g, ci, meta)
            result = result * self._component_count.get((function_index, ci, key), ZERO)
        return result

    def derivers_of(self, type_name: str, meta: Meta) -> list[int]:
        return self.derivers.get((type_name, meta), [])


def _strongly_connected(roots, successors):
    """Tarjan's algorithm without recursion; yields SCCs children-first."""
    index: dict = {}
    low: dict = {}
    on_stack: set = set()
    stack: list = []
    counter = 0
    for root in roots:
        if root in index:
            continue
        work = [(root, iter(successors(root)))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            advanced = False
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(successors(child))))
                    advanced = True
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            if advanced:
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                scc = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    scc.append(member)
                    if member == node:
                        break
                yield scc
