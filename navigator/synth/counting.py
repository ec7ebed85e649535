"""How many complete programs exist for each inhabited (type, metadata) pair.

The derivation graph has a node per inhabited pair `(T, m)`. Its derivations come from the
pair's inhabitation table (`Tables.pair`): for each function `f` that derives it, the
solutions of `f`'s condition with the return metadata given, split into components that no
condition links. Counts follow by dynamic programming, children first:

    N(T, m)            = sum over the non-alias functions f deriving (T, m) of N_f(T, m)
    N_f(T, m)          = product over components c of f of W(f, c)
    W(f, c)            = sum over solutions of c of the product of N(child)

A function marked `alias = true` is a shortcut: every program built through it is also
built without it. Its derivations are left out of N, so every program is counted once and
the non-alias options of a hole partition its completions; N_f of an alias is still its own
count (its children counted without aliases). N can be 0 for an inhabited pair that only an
alias builds, and 0 wins over unbounded in a product. `A` and `A_f` are the same counts
with alias derivations included (every complete program), kept only where they differ from
N and N_f: they bound what a run of defaults can build, and `navigator count` reports them.

A pair is unbounded when it lies on a cycle or reaches one: every edge here is productive
(all children are inhabited), so a cycle can be pumped into arbitrarily large programs. With
aliases left out that holds for A, and N is settled per cycle by `alias_cycles`.
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

from fuseflow.support.memory import ResourceError
from navigator.lang.formula import describe_value
from navigator.synth.alias_cycles import count_cycle_without_aliases
from navigator.synth.compiled import CompiledFunction, Meta
from navigator.synth.count import ONE, UNBOUNDED, ZERO, Count
from navigator.synth.inhabitation import Derivations, Tables

_MISSING = object()
#: the largest count kept exactly (4,000 digits)
MAX_COUNT_DIGITS = 4000
MAX_COUNT = 10 ** MAX_COUNT_DIGITS


class DerivationCounts:
    """Counts of complete programs per (type, metadata) and per (function, metadata):
    N and N_f leave alias derivations out, A and A_f count every program."""

    def __init__(self, functions: tuple[CompiledFunction, ...], tables: Tables):
        self.functions = functions
        self.tables = tables
        self._alias = tuple(cf.alias for cf in functions)
        self._has_alias = any(self._alias)
        #: types some alias derives: only there, and above, can A differ from N
        self._alias_types = frozenset(cf.ret_type for cf in functions if cf.alias)
        #: (type, meta) -> N, None when unbounded (plain ints: cheaper than Count)
        self._n: dict[tuple[str, Meta], int | None] = {}
        #: (function index, meta) -> N_f, None when unbounded
        self._nf: dict[tuple[int, Meta], int | None] = {}
        #: A and A_f where they differ from N and N_f (empty for a library without aliases)
        self._a: dict[tuple[str, Meta], int | None] = {}
        self._af: dict[tuple[int, Meta], int | None] = {}
        #: (type, meta) -> indices of the functions deriving it, in library order
        self._derivers: dict[tuple[str, Meta], tuple[int, ...]] = {}
        #: derivations of finished pairs not counted yet
        self._pending: dict[tuple[str, Meta], Derivations] = {}
        tables.on_pair_finished = self._on_pair_finished

    # -- queries --------------------------------------------------------------------

    def value(self, type_name: str, meta: Meta) -> Count:
        """N(T, m): complete programs of type T whose result has metadata m, built without
        aliases (0 for a pair that is not inhabited, or that only an alias builds)."""
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

    def raw_with_aliases(self, type_name: str, meta: Meta) -> int | None:
        """A(T, m): every complete program, aliases included (None: unbounded)."""
        n = self.raw(type_name, meta)
        return self._a.get((type_name, meta), n)

    def function(self, function_index: int, meta: Meta) -> Count:
        """N_f(T, m): complete programs whose root is function f with metadata m (for an
        alias too), their subtrees built without aliases."""
        n = self._nf.get((function_index, meta), _MISSING)
        if n is _MISSING:
            cf = self.functions[function_index]
            if not self.tables.in_domain(cf.ret_type, meta):
                return ZERO
            self.raw(cf.ret_type, meta)  # counts every function deriving the pair
            n = self._nf.get((function_index, meta), 0)
        return _count(n)  # type: ignore[arg-type]

    def raw_function(self, function_index: int, meta: Meta) -> int | None:
        """N_f(T, m) as an int (None: unbounded), for a pair already counted."""
        return self._nf.get((function_index, meta), 0)

    def raw_function_with_aliases(self, function_index: int, meta: Meta) -> int | None:
        """A_f(T, m), for a pair already counted."""
        key = (function_index, meta)
        return self._af.get(key, self._nf.get(key, 0))

    def derivers_of(self, type_name: str, meta: Meta) -> tuple[int, ...]:
        """The functions deriving (T, m), in library order (aliases included)."""
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
        if node not in self._n and not self._settle(node, derivations, partial=True):
            self._pending[node] = derivations

    def _settle(self, node: tuple[str, Meta], derivations: Derivations, partial: bool = False) -> bool:
        """Count a node from its children's counts: N_f and A_f of every function deriving
        it, N and A. `partial`: a child may be uncounted, then give up (return False)."""
        terms = self._terms(derivations, self._n.get, partial)
        if terms is None:
            return False
        alias = self._alias
        total: int | None = 0
        for fi, term in terms:
            if not alias[fi]:
                total = None if term is None or total is None else total + term
        self._check_limit(node, total)
        with_aliases = None
        if self._a or node[0] in self._alias_types:
            with_aliases = self._terms(derivations, self._get_with_aliases, partial)
            if with_aliases is None:
                return False
            all_total: int | None = 0
            for _, term in with_aliases:
                all_total = None if term is None or all_total is None else all_total + term
            self._check_limit(node, all_total)
        meta = node[1]
        nf = self._nf
        for fi, term in terms:
            nf[(fi, meta)] = term
        if with_aliases is not None:
            for (fi, term), (_, all_term) in zip(terms, with_aliases):
                if all_term != term:
                    self._af[(fi, meta)] = all_term
            if all_total != total:
                self._a[node] = all_total
            else:
                self._a.pop(node, None)
        self._derivers[node] = tuple([fi for fi, _ in terms])
        self._n[node] = total
        self._pending.pop(node, None)
        return True

    def _get_with_aliases(self, key: tuple[str, Meta], default: object) -> object:
        found = self._a.get(key, _MISSING)
        return self._n.get(key, default) if found is _MISSING else found

    def _terms(self, derivations: Derivations, get, partial: bool) -> list[tuple[int, int | None]] | None:
        """Each deriving function's count from the children's counts (`get`: N or A).
        A child that is not counted yet: None if `partial`, else a bug."""
        missing = _MISSING
        functions = self.functions
        results = []
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
                                return None
                            raise AssertionError(f"uncounted child {(t, m)}")
                        elif weight is not None:
                            weight += c  # type: ignore[operator]
                else:
                    slot_types = [types[s] for s in slots]
                    for _, metas in comp.solutions:
                        part = 1
                        unbounded = False
                        for t, m in zip(slot_types, metas):
                            c = get((t, m), missing)
                            if c is None:
                                unbounded = True
                            elif c is missing:
                                if partial:
                                    return None
                                raise AssertionError(f"uncounted child {(t, m)}")
                            else:
                                part *= c  # type: ignore[operator]
                        if part == 0:
                            continue  # a child with no program (only an alias builds it): none here
                        if unbounded:
                            weight = None
                        elif weight is not None:
                            weight += part
                # zero wins over unbounded: a component with no completion leaves none
                if weight == 0 or term == 0:
                    term = 0
                else:
                    term = None if weight is None or term is None else term * weight
            results.append((fi, term))
        return results

    def _check_limit(self, node: tuple[str, Meta], total: int | None) -> None:
        if total is not None and total > MAX_COUNT:
            raise ResourceError(
                f"{node[0]} {_short(meta_text(node[1]))} has more than 10^{MAX_COUNT_DIGITS} complete programs; "
                f"Navigator counts exactly up to {MAX_COUNT_DIGITS:,} digits", where=self.tables.budget.where,
                fix="the library's recursion multiplies the programs at every level; bound it more tightly")

    def _settle_cycle(self, scc: list[tuple[str, Meta]], derivations: dict[tuple[str, Meta], Derivations]) -> None:
        """Count a cyclic strongly connected set of pairs (over every derivation). Every
        member has unboundedly many programs (A): all are inhabited, so the cycle can be
        pumped. Without aliases, N = A; with them, `alias_cycles` settles N. Then each
        member's functions are counted from the members' values."""
        done = self._n
        try:
            if self._has_alias:
                for member in scc:
                    self._a[member] = None
                count_cycle_without_aliases(scc, derivations, done, self.functions, self._count_kept)
            else:
                for member in scc:
                    done[member] = None
            for member in scc:
                self._settle(member, derivations[member])
        except BaseException:
            for member in scc:
                if member not in self._derivers:
                    done.pop(member, None)
                    self._a.pop(member, None)
            raise

    def _count_kept(self, node: tuple[str, Meta], kept: Derivations) -> None:
        """N of a cycle member from its productive non-alias derivations (`alias_cycles`)."""
        total: int | None = 0
        for _, term in self._terms(kept, self._n.get, False):  # type: ignore[union-attr]
            total = None if term is None or total is None else total + term
        self._check_limit(node, total)
        self._n[node] = total

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
                self._settle(node, expanded.pop(node)[0])
                continue
            self._settle_cycle(scc, {member: expanded.pop(member)[0] for member in scc})


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
