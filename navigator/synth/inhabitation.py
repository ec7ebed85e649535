"""Which typed values are derivable, computed on demand: tabled evaluation of the rules.

Read each function as a Datalog rule: `Ret(m)` holds if every parameter type holds at some
metadata and the condition is satisfied. The least fixpoint of these rules is the set of
inhabited (type, metadata) pairs: a pair is in it exactly when at least one complete program
of that type with that metadata exists. Metadata ranges over the finite domain, so the
fixpoint is finite even for recursive libraries.

It can also be very large while almost none of it matters: a rule such as
`ret.level = ret.count` with no other condition makes every (Str, Str, Int, Int) tuple of the
domain inhabited, although the goal only ever asks for a few of them. So nothing is computed
bottom-up. Instead, a *table* answers one call pattern: a type with some fields given, e.g.
`Levels{region="r", order="o", level=1, count=3}` or `Order{region="r"}`. Its answers are the
inhabited metadata that agree with the given fields. A table is filled by running each rule
for the type with those return fields given (a compiled `Plan`); each parameter lookup in a
plan is itself a call pattern, keyed by the fields known at that point, and so a table.

Tables are evaluated depth first: a lookup of a table that does not exist yet evaluates it
on the spot. A table whose evaluation only read finished tables is finished (its answers are
exact and never change). Recursion can make a table read itself or a table that is still
being evaluated; then it reads what is there so far, is recorded as a dependent, and is
re-evaluated whenever a table it read grows. Once no table grows, every table of the round
is finished: this is the least fixpoint restricted to the call patterns that were asked
(magic sets / SLG resolution in Datalog terms). Acyclic libraries, such as the FuseFlow one,
evaluate each table exactly once.

A table with every field given answers "is (T, m) inhabited?"; it is run in full mode and
hands its derivations (which function, which children) to counting, which needs exactly
those for that pair.

Storage is kept cheap for Python's garbage collector, which otherwise rescans every
long-lived container on each full collection (100-250 ms on the larger FuseFlow programs,
landing in some later menu call): a finished table is stored as a plain tuple of its answers
and pair derivations are dropped once counted, so what stays is tuples and dicts of atoms,
which CPython stops tracking.
"""

from __future__ import annotations

import gc
from collections import deque
from contextlib import contextmanager
from functools import partial
from itertools import product
from typing import Callable, Iterator, Mapping

from navigator.lang.formula import value_type_of
from navigator.synth.lookup_budget import WorkBudget
from navigator.synth.compiled import CompiledFunction, FactIndex, Meta
from navigator.synth.domain import Domain
from navigator.synth.solver import FULL, PROJECT, ComponentResult, Plan, compile_plan

#: deeper than this, a new table is evaluated later from the worklist rather than nested
#: (bounds Python's stack use on long recursive chains; the result is the same)
_MAX_NESTING = 24

#: how a call pattern is evaluated: a pair (every field given; full mode, derivations
#: kept), a split pattern (full mode, derivations of every answer), or by projection
_PAIR, _SPLIT, _PROJECT = 0, 1, 2

#: a pair's derivations: (function index, components) per function deriving it
Derivations = list[tuple[int, list[ComponentResult]]]


@contextmanager
def gc_paused():
    """Pause Python's cyclic garbage collector for a burst of allocations.

    Evaluation and counting allocate many small, long-lived tuples; the collector would
    otherwise re-scan the growing heap many times over (about 40% of the start-up time on
    the FuseFlow library). Nothing here relies on it: the structures are freed by reference
    counting. The previous state is restored, and nested pauses are no-ops.

    What a burst leaves alive would still be scanned by the first collection after it (all
    of it young: 2.3 million objects, 0.6 s, after a default fill of transformer12); a process
    that keeps what it computes (`freeze_after_pauses`) moves it out of the collector's sight.
    """
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        if _freeze_after_pauses:
            gc.freeze()
        gc.enable()


_freeze_after_pauses = False


def freeze_after_pauses(on: bool = True) -> None:
    """After each outermost `gc_paused`, exempt every live object from later collections
    (`gc.freeze`): for a process whose bursts leave no garbage cycles (measured: none), at
    the price that a cycle among them would stay until exit."""
    global _freeze_after_pauses
    _freeze_after_pauses = on


class Table:
    """A table being evaluated (or waiting for the end of its round): the inhabited
    metadata of one type that agree with the given fields. Once finished, its group stores
    the answers as a plain tuple instead."""

    __slots__ = ("group", "spec", "type", "positions", "values", "answers", "seen", "waiting",
                 "dependents", "queued", "derivations", "evaluated")

    def __init__(self, group: dict, spec: tuple[str, tuple[int, ...]], values: tuple):
        self.group = group
        #: (type, given positions)
        self.spec = spec
        self.type, self.positions = spec
        self.values = values
        self.answers: list[Meta] = []
        #: the answers as a set, made once there are several (partial patterns only)
        self.seen: set[Meta] | None = None
        #: read an unfinished table during its last evaluation
        self.waiting = False
        self.dependents: set[Table] | None = None
        self.queued = False
        self.evaluated = False
        #: fully given tables only
        self.derivations: Derivations | None = None

    def __repr__(self) -> str:
        return f"Table({self.type}, {self.positions}, {self.values}, {len(self.answers)})"


class Tables:
    """Demand-driven inhabitation: one table per call pattern, created when asked.

    A group (one per type and set of given positions) maps the given values to the table:
    a tuple of answers once finished, a `Table` while being evaluated.
    """

    def __init__(self, functions: tuple[CompiledFunction, ...],
                 type_fields: Mapping[str, tuple[str, ...]], domain: Domain, facts: FactIndex,
                 budget: WorkBudget | None = None):
        """`type_fields`: each type's field value types ("Int", "Str", "Bool"), in order;
        `budget`: what every solve and answer is paid from (the caller resets it per
        operation)."""
        self.functions = functions
        self.budget = budget if budget is not None else WorkBudget()
        self.domain = domain
        self.facts = facts
        self.type_fields = dict(type_fields)
        self.full_positions = {t: tuple(range(len(f))) for t, f in self.type_fields.items()}
        self._domain_sets = {vt: {(type(v), v) for v in vals} for vt, vals in domain.values.items()}
        self.by_type: dict[str, list[CompiledFunction]] = {t: [] for t in self.type_fields}
        for cf in functions:
            self.by_type.setdefault(cf.ret_type, []).append(cf)
        self._plans: dict[tuple[int, tuple[int, ...], tuple[int, ...]], Plan] = {}
        #: (type, positions) -> values -> answers tuple (finished) or Table
        self._groups: dict[tuple[str, tuple[int, ...]], dict[tuple, tuple | Table]] = {}
        self._pair_groups: dict[str, dict[tuple, tuple | Table]] = {}
        #: finished pairs' derivations, until counting takes them (`take_derivations`)
        self._derivations: dict[tuple[str, Meta], Derivations] = {}
        self._stack: list[Table] = []
        self._worklist: deque[Table] = deque()
        self._unfinished: list[Table] = []
        #: (type, positions) -> (kind, [(function, compiled plan)]), kind one of
        #: _PAIR, _SPLIT, _PROJECT
        self._runners: dict[tuple[str, tuple[int, ...]], tuple[int, list]] = {}
        #: called with (type, meta, derivations) for each pair that finishes; counting
        #: settles what it can (and then keeps only what it needs)
        self.on_pair_finished: Callable[[str, Meta, Derivations], None] | None = None
        self.evaluations = 0

    # -- plans and groups -----------------------------------------------------------

    def group(self, type_name: str, positions: tuple[int, ...]) -> dict:
        key = (type_name, positions)
        group = self._groups.get(key)
        if group is None:
            group = self._groups[key] = {}
        return group

    def plan(self, cf: CompiledFunction, fixed_ret: tuple[int, ...],
             fixed_slots: tuple[int, ...] = ()) -> Plan:
        key = (cf.index, fixed_ret, fixed_slots)
        plan = self._plans.get(key)
        if plan is None:
            plan = self._plans[key] = compile_plan(cf, fixed_ret, fixed_slots, self.domain,
                                                   self.facts, self.group, self.budget)
        return plan

    # -- public queries (always answered from finished tables) -----------------------

    def answers(self, type_name: str, positions: tuple[int, ...], values: tuple) -> tuple:
        """The inhabited metadata of the type that agree with `values` at `positions`
        (ascending)."""
        group = self.group(type_name, positions)
        found = group.get(values)
        if found.__class__ is tuple:
            return found  # type: ignore[return-value]
        return self._finish(group, (type_name, positions), values)

    def pair(self, type_name: str, meta: Meta) -> tuple:
        """`(meta,)` if the pair is inhabited, else `()`."""
        group = self._pair_groups.get(type_name) or self._pair_group(type_name)
        found = group.get(meta)
        if found.__class__ is tuple:
            return found  # type: ignore[return-value]
        return self._finish(group, (type_name, self.full_positions[type_name]), meta)

    def take_derivations(self, type_name: str, meta: Meta) -> Derivations:
        """A finished pair's derivations (for counting, which asks once per pair)."""
        self.pair(type_name, meta)
        return self._derivations.pop((type_name, meta), [])

    def in_domain(self, type_name: str, meta: Meta) -> bool:
        """Whether `meta` is a metadata tuple of the type over the domain (pairs outside it
        are never inhabited)."""
        fields = self.type_fields.get(type_name)
        if fields is None or len(fields) != len(meta):
            return False
        return all((type(v), v) in self._domain_sets.get(vt, ()) and value_type_of(v) == vt
                   for vt, v in zip(fields, meta))

    def inhabited(self, type_name: str, meta: Meta) -> bool:
        return bool(self.pair(type_name, meta))

    def all_of(self, type_name: str) -> tuple:
        """Every inhabited metadata of the type (may be large: the domain's product)."""
        return self.answers(type_name, (), ())

    def lookup(self, group: dict, spec: tuple[str, tuple[int, ...]], key: tuple):
        """A plan's parameter lookup of a table that is not finished, or does not exist."""
        found = group.get(key)
        if found.__class__ is tuple:
            return found
        if not self._stack:
            return self._finish(group, spec, key)
        current = self._stack[-1]
        if found is None:
            found = group[key] = Table(group, spec, key)
            if len(self._stack) < _MAX_NESTING:
                self._evaluate(found)
                done = group[key]
                if done.__class__ is tuple:
                    return done
            else:
                self._unfinished.append(found)
                self._queue(found)
        current.waiting = True
        if found.dependents is None:
            found.dependents = set()
        found.dependents.add(current)
        return found.answers

    # -- evaluation -----------------------------------------------------------------

    def _finish(self, group: dict, spec: tuple[str, tuple[int, ...]], key: tuple) -> tuple:
        """Evaluate a table to its fixpoint, from outside any evaluation (a round)."""
        assert not self._stack
        paused = gc.isenabled()
        if paused:
            gc.disable()  # see gc_paused
        try:
            if group.get(key) is None:
                table = group[key] = Table(group, spec, key)
                self._evaluate(table)
            while self._worklist:
                pending = self._worklist.popleft()
                pending.queued = False
                self._evaluate(pending)
            unfinished = self._unfinished
            self._unfinished = []
            for table in unfinished:
                self._done(table)
        except BaseException:
            self._abandon_round()
            raise
        finally:
            if paused:
                gc.enable()
        found = group[key]
        assert found.__class__ is tuple
        return found

    def _abandon_round(self) -> None:
        """After an error (or an interrupt) inside a round: forget every table that is not
        finished. Finished tables (tuples) are exact whatever happened after them."""
        self._stack.clear()
        self._worklist.clear()
        self._unfinished = []
        for group in self._groups.values():
            for key in [k for k, v in group.items() if v.__class__ is not tuple]:
                del group[key]

    def _done(self, table: Table) -> None:
        """The table is finished: store its answers as a tuple, hand on derivations."""
        group, values = table.group, table.values
        if group.get(values) is not table:
            return  # already done
        group[values] = tuple(table.answers)
        table.dependents = None
        derivations = table.derivations
        if derivations is not None:
            table.derivations = None
            if self.on_pair_finished is not None:
                self.on_pair_finished(table.type, values, derivations)
            else:
                self._derivations[(table.type, values)] = derivations

    def _queue(self, table: Table) -> None:
        if not table.queued:
            table.queued = True
            self._worklist.append(table)

    def _runner(self, type_name: str, positions: tuple[int, ...]) -> tuple[int, list]:
        runner = self._runners.get((type_name, positions))
        if runner is None:
            functions = self.by_type.get(type_name, ())
            plans = [self.plan(cf, positions) for cf in functions]
            if positions == self.full_positions[type_name]:
                kind = _PAIR
            elif all(not (c.ret_fields and c.param_slots) for p in plans for c in p.components):
                # No component mixes free return fields with parameters: every answer
                # has the same parameter components, so a full run gives its derivations.
                kind = _SPLIT
            else:
                kind = _PROJECT
            mode = PROJECT if kind == _PROJECT else FULL
            runner = self._runners[(type_name, positions)] = (kind, [
                (cf, partial(plan.run, mode=mode)) for cf, plan in zip(functions, plans)])
        return runner

    def _evaluate(self, table: Table) -> None:
        self.evaluations += 1
        first = not table.evaluated
        table.evaluated = True
        table.waiting = False
        values = table.values
        kind, runners = self._runners.get(table.spec) or self._runner(*table.spec)
        lookup = self.lookup
        stack = self._stack
        stack.append(table)
        try:
            if kind == _PAIR:
                derivations = table.derivations = []
                for cf, run in runners:
                    components = run(values, None, lookup)
                    if components is not None:
                        derivations.append((cf.index, components))
                if derivations and not table.answers:
                    self._add(table, values)
            elif kind == _SPLIT:
                self._evaluate_split(table, runners)
            else:
                positions = table.positions
                for cf, run in runners:
                    components = run(values, None, lookup)
                    if components is not None:
                        for meta in _assemble(len(cf.slot_fields[0]), positions, values,
                                              components, self.budget, cf.name):
                            self._add(table, meta)
        finally:
            stack.pop()
        if table.waiting:
            if first:
                self._unfinished.append(table)
        else:
            self._done(table)

    def _evaluate_split(self, table: Table, runners: list) -> None:
        """A partial table whose plans keep free return fields and parameters in separate
        components (`Par`, `Block` and `Vector` in FuseFlow). A function then derives each
        answer with the same parameter components, so the answers' pair tables are made
        here, finished, with their derivations (unless this table read an unfinished one)."""
        positions, values = table.positions, table.values
        arity = len(self.full_positions[table.type])
        derivers: dict[Meta, Derivations] = {}
        for cf, run in runners:
            components = run(values, None, self.lookup)
            if components is None:
                continue
            with_params = [c for c in components if c.param_slots]
            keyed = []
            for comp in components:
                if comp.ret_fields:
                    comp.keys = dict.fromkeys(key for key, _ in comp.solutions)
                    keyed.append(comp)
            for meta in _assemble(arity, positions, values, keyed, self.budget, cf.name):
                derivers.setdefault(meta, []).append((cf.index, with_params))
                self._add(table, meta)
        if table.waiting:
            return  # derivations may be incomplete: the pairs are evaluated on their own
        pairs = self._pair_group(table.type)
        for meta, derivations in derivers.items():
            if meta not in pairs:
                pairs[meta] = (meta,)
                if self.on_pair_finished is not None:
                    self.on_pair_finished(table.type, meta, derivations)
                else:
                    self._derivations[(table.type, meta)] = derivations

    def _pair_group(self, type_name: str) -> dict:
        group = self._pair_groups.get(type_name)
        if group is None:
            group = self._pair_groups[type_name] = self.group(type_name,
                                                             self.full_positions[type_name])
        return group

    def _add(self, table: Table, meta: Meta) -> None:
        answers = table.answers
        if answers:
            seen = table.seen
            if seen is None:
                seen = table.seen = set(answers)
            if meta in seen:
                return
            seen.add(meta)
        elif table.seen is not None:
            table.seen.add(meta)
        answers.append(meta)
        if table.dependents:
            for dependent in table.dependents:
                self._queue(dependent)


def _assemble(arity: int, positions: tuple[int, ...], values: tuple,
              components: list[ComponentResult], budget: WorkBudget, name: str) -> Iterator[Meta]:
    """Every return metadata: the given fields, times the product of the components' keys.

    The product is paid for before it is built: components that are each small can still
    multiply to more answers than any table should hold."""
    with_ret = [c for c in components if c.ret_fields]
    base: list = [None] * arity
    for p, v in zip(positions, values):
        base[p] = v
    size = 1
    for comp in with_ret:
        size *= len(comp.keys)
        if size > budget.left:
            budget.exhausted(name)
    budget.left -= size
    for keys in product(*[comp.keys for comp in with_ret]):
        for comp, key in zip(with_ret, keys):
            for f, v in zip(comp.ret_fields, key):
                base[f] = v
        yield tuple(base)
