"""Counting a cycle of pairs when shortcut (alias) derivations are left out of the counts.

Without aliases, every pair of a cyclic strongly connected set is unbounded: each pair is
built by some program and every derivation's children are built too, so the cycle can be
pumped into ever larger programs. Counts leave alias derivations out
(`N(T, m)` sums the non-alias functions only), and then neither holds: a pair that only an
alias builds has no program of its own (N = 0, yet it is inhabited), a derivation with such
a child contributes nothing, and a cycle may run through alias derivations alone. So, for
one such set (computed over every derivation, aliases included):

1. the members that some alias-free program builds: a least fixpoint over the non-alias
   derivations, children outside the set read from their counts (0 means none);
2. their *productive* derivations: non-alias, with a solution in every component whose
   children all have programs; only those solutions are kept;
3. the members on a cycle of productive derivations, and those that reach one, are
   unbounded (that cycle can be pumped); the others are finite. Counting the kept
   derivations children first, over the strongly connected sets of the productive graph,
   gives each member's exact N, unbounded ones included.

Members that step 1 leaves out have N = 0.
"""

from __future__ import annotations

from typing import Callable, Hashable, Iterable, Mapping

from navigator.synth.compiled import CompiledFunction
from navigator.synth.inhabitation import Derivations
from navigator.synth.solver import ComponentResult

Pair = tuple


def count_cycle_without_aliases(members: list[Pair], derivations: Mapping[Pair, Derivations],
                                counted: dict, functions: tuple[CompiledFunction, ...],
                                count_pair: Callable[[Pair, Derivations], None]) -> None:
    """Set `counted[member]` (an int, or None for unbounded) for every member of a cyclic
    strongly connected set. `counted` holds the counts of every child outside the set;
    `count_pair(member, kept)` counts a member from kept derivations whose children are all
    counted, and stores it in `counted`."""
    inside = set(members)
    built = _built_without_aliases(members, inside, derivations, counted, functions)
    for member in members:
        if member not in built:
            counted[member] = 0
    kept: dict[Pair, Derivations] = {}
    successors: dict[Pair, list[Pair]] = {}
    for member in members:
        if member in built:
            kept[member], successors[member] = _productive(member, inside, built, derivations[member],
                                                           counted, functions)
    for component in strongly_connected(list(kept), successors):
        first = component[0]
        if len(component) > 1 or first in successors[first]:
            for member in component:
                counted[member] = None
        else:
            count_pair(first, kept[first])


def _children(function: CompiledFunction, component: ComponentResult, metas: tuple) -> Iterable[Pair]:
    types = function.slot_types
    return zip([types[s] for s in component.param_slots], metas)


def _built_without_aliases(members, inside, derivations, counted, functions) -> set[Pair]:
    """Step 1: the members some alias-free program builds. Each solution waits for its
    children inside the set; a component is alive once one of its solutions is, a
    derivation once every component is, a member once one derivation is."""
    built: set[Pair] = set()
    ready: list[Pair] = []
    waiting_on: list[int] = []  # per solution: children inside the set not known built yet
    owner: list[tuple] = []  # per solution: (member, derivation, component)
    users: dict[Pair, list[int]] = {}
    alive: set[tuple] = set()
    dead_components: dict[tuple, int] = {}

    def component_alive(member, derivation, component) -> None:
        if (member, derivation, component) in alive:
            return
        alive.add((member, derivation, component))
        dead_components[(member, derivation)] -= 1
        if dead_components[(member, derivation)] == 0 and member not in built:
            built.add(member)
            ready.append(member)

    for member in members:
        for d, (fi, components) in enumerate(derivations[member]):
            function = functions[fi]
            if function.alias:
                continue
            dead_components[(member, d)] = len(components)
            if not components and member not in built:
                built.add(member)
                ready.append(member)
            for c, component in enumerate(components):
                for _, metas in component.solutions:
                    needs: set[Pair] = set()
                    for child in _children(function, component, metas):
                        if child in inside:
                            needs.add(child)
                        elif counted[child] == 0:
                            break  # a child without a program: this solution never has one
                    else:
                        if not needs:
                            component_alive(member, d, c)
                            continue
                        solution = len(waiting_on)
                        waiting_on.append(len(needs))
                        owner.append((member, d, c))
                        for child in needs:
                            users.setdefault(child, []).append(solution)
    while ready:
        member = ready.pop()
        for solution in users.get(member, ()):
            waiting_on[solution] -= 1
            if waiting_on[solution] == 0:
                component_alive(*owner[solution])
    return built


def _productive(member, inside, built, derivations, counted, functions) -> tuple[Derivations, list[Pair]]:
    """Step 2: a built member's non-alias derivations, each solution kept when all its
    children have programs, each derivation kept when all its components keep one; and the
    members inside the set that the kept solutions use."""
    kept: Derivations = []
    successors: dict[Pair, None] = {}
    for fi, components in derivations:
        function = functions[fi]
        if function.alias:
            continue
        kept_components = []
        uses: dict[Pair, None] = {}
        for component in components:
            solutions = []
            for solution in component.solutions:
                children = list(_children(function, component, solution[1]))
                if all(child in built if child in inside else counted[child] != 0 for child in children):
                    solutions.append(solution)
                    uses.update((child, None) for child in children if child in inside)
            if not solutions:
                break
            kept_components.append(ComponentResult(component.ret_fields, component.param_slots, solutions))
        else:
            kept.append((fi, kept_components))
            successors.update(uses)
    return kept, list(successors)


def strongly_connected(nodes: list[Hashable], successors: Mapping[Hashable, list[Hashable]]) -> list[list]:
    """Tarjan's algorithm without recursion: the strongly connected sets of the graph,
    children first (a set comes after every set it reaches)."""
    index: dict = {}
    low: dict = {}
    on_stack: set = set()
    stack: list = []
    found: list[list] = []
    for root in nodes:
        if root in index:
            continue
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        work = [(root, iter(successors[root]))]
        while work:
            node, children = work[-1]
            for child in children:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(successors[child])))
                    break
                if child in on_stack and index[child] < low[node]:
                    low[node] = index[child]
            else:
                work.pop()
                if work:
                    parent = work[-1][0]
                    if low[node] < low[parent]:
                        low[parent] = low[node]
                if low[node] == index[node]:
                    component = [stack.pop()]
                    on_stack.discard(component[0])
                    while component[-1] != node:
                        component.append(stack.pop())
                        on_stack.discard(component[-1])
                    found.append(component)
    return found
