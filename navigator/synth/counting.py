"""How many complete programs exist for each inhabited (type, metadata) pair.

The derivation graph has a node per inhabited pair `(T, m)`. Its derivations come from the
pair's inhabitation table (`Tables.pair`): for each function `f` that derives it, the
solutions of `f`'s condition with the return metadata given, split into components that no
condition links. Counts follow by dynamic programming, children first:

    N(T, m)            = sum over functions f deriving (T, m) of N_f(T, m)
    N_f(T, m)          = product over components c of f of W(f, c)
    W(f, c)            = sum over solutions of c of the product of N(child)

A pair is unbounded when it lies on a cycle or reaches one: every edge here is productive
(all children are inhabited), so a cycle can be pumped into arbitrarily large programs.
Nothing enumerates programs; Python ints hold the exact, possibly huge, counts, up to
MAX_COUNT: a finite count can still double its digits at every level of a recursion (a
binary tree of depth 30 has 2^(2^30) shapes), and such numbers cost minutes to multiply and
cannot be printed (Python converts at most 4,300 digits). Every count of a sketch's
completions is at most the sum of the goal pairs' counts, so bounding the pairs bounds them all.

Counts are computed as early as possible and memoised. Tables are evaluated depth first, so
on an acyclic library a pair's children are finished, and counted, before the pair itself:
each pair is counted the moment its table finishes (`_on_pair_finished`), in one pass over
its derivations, which are then dropped. Whatever is left (a pair on a cycle, or one whose
children were not counted yet) is counted when asked for, by Tarjan's algorithm over the
uncounted pairs it reaches (a counted pair's whole reachable set is counted, so it is a leaf
there). Counts depend only on the library and the facts, so every menu shares them.
"""

from __future__ import annotations

from fuseflow.memory import ResourceError
from navigator.lang.formula import describe_value
from navigator.synth.compiled import CompiledFunction, Meta
from navigator.synth.count import ONE, UNBOUNDED, ZERO, Count
from navigator.synth.inhabitation import Derivations, Tables

_MISSING = object()
#: the largest count kept exactly (4,000 digits)
MAX_COUNT_DIGITS = 4000
MAX_COUNT = 10 ** MAX_COUNT_DIGITS


class DerivationCounts:
    """Counts of complete programs per (type, metadata) and per (function, metadata)."""

    def __init__(self, functions: tuple[CompiledFunction, ...], tables: Tables):
        self.functions = functions
        self.tables = tables
        #: (type, meta) -> count, None when unbounded (plain ints: cheaper than Count)
        self._n: dict[tuple[str, Meta], int | None] = {}
        #: (function index, meta) -> count, None when unbounded
        self._nf: dict[tuple[int, Meta], int | None] = {}
        #: (type, meta) -> indices of the functions deriving it, in library order
        self._derivers: dict[tuple[str, Meta], tuple[int, ...]] = {}
        #: derivations of finished pairs not counted yet
        self._pending: dict[tuple[str, Meta], Derivations] = {}
        tables.on_pair_finished = self._on_pair_finished

    # -- queries --------------------------------------------------------------------

    def value(self, type_name: str, meta: Meta) -> Count:
        """N(T, m): complete programs of type T whose result has metadata m."""
        n = self._n.get((type_name, meta), _MISSING)
        if n is _MISSING:
            if not self.tables.in_domain(type_name, meta):
                return ZERO
            n = self.raw(type_name, meta)
        return _count(n)  # type: ignore[arg-type]

    def raw(self, type_name: str, meta: Meta) -> int | None:
        """N(T, m) as an int (None: unbounded), for a pair over the domain."""
        key = (type_name, meta)
        n = self._n.get(key, _MISSING)
        if n is _MISSING:
            self._count_from(key)
            n = self._n[key]
        return n  # type: ignore[return-value]

    def function(self, function_index: int, meta: Meta) -> Count:
        """N_f(T, m): complete programs whose root is function f with metadata m."""
        n = self._nf.get((function_index, meta), _MISSING)
        if n is _MISSING:
            cf = self.functions[function_index]
            if self.value(cf.ret_type, meta).value == 0:
                return ZERO
            n = self._nf.get((function_index, meta), 0)
        return _count(n)  # type: ignore[arg-type]

    def raw_function(self, function_index: int, meta: Meta) -> int | None:
        """N_f(T, m) as an int (None: unbounded), for a pair already counted."""
        return self._nf.get((function_index, meta), 0)

    def derivers_of(self, type_name: str, meta: Meta) -> tuple[int, ...]:
        """The functions deriving (T, m), in library order."""
        derivers = self._derivers.get((type_name, meta))
        if derivers is None:
            if not self.tables.in_domain(type_name, meta):
                return ()
            self.raw(type_name, meta)
            derivers = self._derivers.get((type_name, meta), ())
        return derivers

    def functions_counted(self) -> set[int]:
        """The functions that derive some pair counted so far: each is the root of at least
        one complete program (a derivation's children are all inhabited)."""
        return {fi for fi, _ in self._nf}

    # -- dynamic programming --------------------------------------------------------

    def _on_pair_finished(self, type_name: str, meta: Meta, derivations: Derivations) -> None:
        """A pair's table finished: count it now if its children are counted, else keep
        its derivations for `_count_from`. (A pair all of whose children are counted is
        on no cycle: a counted pair reaches only counted pairs.)"""
        node = (type_name, meta)
        if node not in self._n and not self._settle(node, derivations, False, partial=True):
            self._pending[node] = derivations

    def _settle(self, node: tuple[str, Meta], derivations: Derivations, cyclic: bool,
                partial: bool = False) -> bool:
        """Count a node from its children's counts. `partial`: a child may be uncounted,
        then give up (return False). In a cyclic SCC the members are already marked
        unbounded."""
        get = self._n.get
        missing = _MISSING
        functions = self.functions
        results = []
        total: int | None = 0
        for fi, components in derivations:
            types = functions[fi].slot_types
            term: int | None = 1
            for comp in components:
                slots = comp.param_slots
                weight: int | None = 0
                if len(slots) == 1:
                    t = types[slots[0]]
                    for _, (m,) in comp.solutions:
                        c = get((t, m), missing)
                        if c is None:
                            weight = None
                        elif c is missing:
                            if partial:
                                return False
                            raise AssertionError(f"uncounted child {(t, m)}")
                        elif weight is not None:
                            weight += c  # type: ignore[operator]
                else:
                    slot_types = [types[s] for s in slots]
                    for _, metas in comp.solutions:
                        part: int | None = 1
                        for t, m in zip(slot_types, metas):
                            c = get((t, m), missing)
                            if c is missing:
                                if partial:
                                    return False
                                raise AssertionError(f"uncounted child {(t, m)}")
                            part = None if c is None or part is None else part * c  # type: ignore[operator]
                        weight = None if part is None or weight is None else weight + part
                # every child is inhabited (count >= 1), so no zero meets an unbounded
                term = None if weight is None or term is None else term * weight
            results.append((fi, term))
            total = None if term is None or total is None else total + term
        if total is not None and total > MAX_COUNT:
            raise ResourceError(
                f"{node[0]} {_short(meta_text(node[1]))} has more than 10^{MAX_COUNT_DIGITS} complete programs; "
                f"Navigator counts exactly up to {MAX_COUNT_DIGITS:,} digits", where=self.tables.budget.where,
                fix="the library's recursion multiplies the programs at every level; bound it more tightly")
        meta = node[1]
        nf = self._nf
        for fi, term in results:
            nf[(fi, meta)] = term
        self._derivers[node] = tuple([fi for fi, _ in results])
        self._n[node] = None if cyclic else total
        self._pending.pop(node, None)
        return True

    def _expand(self, node: tuple[str, Meta]) -> tuple[Derivations, dict] | None:
        """An uncounted node's derivations and distinct children; None if it got counted
        while its table was evaluated."""
        self.tables.pair(*node)
        if node in self._n:
            return None
        derivations = self._pending.get(node)
        if derivations is None:
            derivations = self._pending[node] = self.tables.take_derivations(*node)
        children: dict[tuple[str, Meta], None] = {}
        functions = self.functions
        for fi, components in derivations:
            types = functions[fi].slot_types
            for comp in components:
                slot_types = [types[s] for s in comp.param_slots]
                for _, metas in comp.solutions:
                    for t, m in zip(slot_types, metas):
                        children[(t, m)] = None
        return derivations, children

    def _count_from(self, root: tuple[str, Meta]) -> None:
        """Tarjan's algorithm without recursion over uncounted nodes; SCCs children-first."""
        done = self._n
        expanded_root = self._expand(root)
        if expanded_root is None:
            return
        index: dict = {root: 0}
        low: dict = {root: 0}
        expanded: dict = {root: expanded_root}
        on_stack: set = {root}
        stack: list = [root]
        counter = 1
        work = [(root, iter(expanded_root[1]))]
        while work:
            node, it = work[-1]
            advanced = False
            for child in it:
                if child in done:
                    continue
                if child not in index:
                    child_expanded = self._expand(child)
                    if child_expanded is None:
                        continue  # counted as its table finished
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    expanded[child] = child_expanded
                    work.append((child, iter(child_expanded[1])))
                    advanced = True
                    break
                if child in on_stack and index[child] < low[node]:
                    low[node] = index[child]
            if advanced:
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                if low[node] < low[parent]:
                    low[parent] = low[node]
            if low[node] != index[node]:
                continue
            scc = [stack.pop()]
            on_stack.discard(scc[0])
            while scc[-1] != node:
                scc.append(stack.pop())
                on_stack.discard(scc[-1])
            cyclic = len(scc) > 1 or node in expanded[node][1]
            if not cyclic:
                self._settle(node, expanded.pop(node)[0], False)
                continue
            # Mark the SCC first so that members see each other as unbounded.
            for member in scc:
                done[member] = None
            try:
                for member in scc:
                    self._settle(member, expanded.pop(member)[0], True)
            except BaseException:
                for member in scc:
                    if member not in self._derivers:
                        del done[member]
                raise


def _count(n: int | None) -> Count:
    if n is None:
        return UNBOUNDED
    if n == 0:
        return ZERO
    if n == 1:
        return ONE
    return Count(n)


def meta_text(meta: Meta) -> str:
    return "(" + ", ".join(describe_value(v) for v in meta) + ")"


def _short(text: str) -> str:
    return text if len(text) <= 80 else text[:60] + "...)"
