"""The step oracle: for every open hole, exactly the steps that keep the sketch completable.

Why holes are handled per parent: a condition may link two parameters of the same function
(Honeybee's `mosaic` has `r1.bands = r2.bands`), so sibling holes are not independent. But
every condition mentions only one function's return value and its own parameters, and an
application's return metadata is fixed once it is placed. So a sketch is completable iff,
for every application, some assignment of inhabited metadata to its hole children
satisfies its condition (given its fixed return and filled children), and the root fits
the goal. Different applications share no holes, so these checks are independent.

Within one application the hole children split into components that no condition links;
the options at a hole come from its component's solutions: metadata `m` is allowed at the
hole if some solution gives it `m`, and `(f, m)` is offered if `f` derives `(T, m)`.
Everything that depends only on library + facts is shared by all menus: the domain, the
inhabitation tables (computed on demand, per call pattern: `inhabitation.Tables`) and the
counts of every pair reachable from the goal (computed in the constructor). A menu then
costs lookups plus one small solve per application, cached by (function, metadata, filled
children) and found by identity for applications a step did not rebuild; each hole's
sorted options are cached with that solve, so a menu only rescales their counts.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Callable, Iterator, Mapping

from navigator.lang import FactProgram, Library, LibraryError
from navigator.lang.formula import Value, format_value, same_value, value_type_of
from navigator.synth.lookup_budget import WORK_PER_FACT, WorkBudget, max_work
from navigator.synth.compiled import FactIndex, Meta, compile_library
from navigator.synth.count import UNBOUNDED, ZERO, Count
from navigator.synth.counting import DerivationCounts
from navigator.synth.domain import build_domain
from navigator.synth.heights import CompletionHeights, shortest_chain, type_heights
from navigator.synth.inhabitation import Tables, gc_paused
from navigator.synth.solved_state import restore, snapshot
from navigator.synth.menu import HoleMenu, MenuOption, Menus, option_id
from navigator.synth.sketch import MAX_SKETCH_DEPTH, App, Hole, Sketch

#: the sketches whose menus are kept (by identity): a strategy's plan of a few hundred steps
#: is taken on the session without computing them again
MENUS_KEPT = 512


@dataclass
class _Group:
    """One component of an application's hole children."""

    slots: tuple[int, ...]
    #: completions of the group's holes (None: unbounded; 0 when only aliases complete it)
    total: int | None
    #: per slot: allowed metadata -> number of ways to complete the other holes of the group
    weights: dict[int, dict[Meta, int | None]] = field(default_factory=dict)
    #: the same counting alias derivations too (every program), when they differ: what a run
    #: of defaults can build (None: the weights above)
    weights_with_aliases: dict[int, dict[Meta, int | None]] | None = None
    #: per slot: the parts of the hole's menu that do not depend on the rest of the sketch
    #: (made on first use; an application's groups are cached, so menus after a step only
    #: rebuild the options' counts)
    bases: dict[int, tuple] = field(default_factory=dict)
    #: the slots' types, and the solutions `(ret key, metas)` behind the weights (for
    #: defaults that must pick by the smallest completion)
    types: tuple[str, ...] = ()
    solutions: list = field(default_factory=list)
    #: the application whose hole children these are, as (function index, metadata); None
    #: for the root hole
    parent: tuple[int, Meta] | None = None


def _mul(a: int | None, b: int | None) -> int | None:
    """Product of counts (None: unbounded); zero wins over unbounded."""
    if a == 0 or b == 0:
        return 0
    return None if a is None or b is None else a * b


def _as_count(n: int | None) -> Count:
    return UNBOUNDED if n is None else Count(n)


@dataclass
class _Collected:
    """What `Oracle._collect` finds of a sketch: per application (by argument positions from
    the root) its hole groups with their holes' slots, each open hole's parent, the open
    holes, and why the sketch is blocked (None: it is not).

    Kept with them, so that a step updates them for the two applications it changes instead of
    going over every group (which made a whole fill quadratic in its steps): each open hole's
    group and slot, and the product of the groups' totals (completions of the sketch), as the
    product of the nonzero finite ones and how many are 0 and how many unbounded."""

    entries: dict[tuple[int, ...], list[tuple["_Group", dict[int, int]]]]
    parents: dict[int, tuple[str | None, str | None]]
    holes: dict[int, Hole]
    blocked: str | None
    group_of: dict[int, tuple["_Group", int]] = field(default_factory=dict)
    product: int = 1
    zeros: int = 0
    unbounded: int = 0

    def add(self, entries: list[tuple["_Group", dict[int, int]]]) -> None:
        for group, hole_slots in entries:
            total = group.total
            if total == 0:
                self.zeros += 1
            elif total is None:
                self.unbounded += 1
            else:
                self.product *= total
            for hole_id, slot in hole_slots.items():
                self.group_of[hole_id] = (group, slot)

    def remove(self, entries: list[tuple["_Group", dict[int, int]]]) -> None:
        for group, hole_slots in entries:
            total = group.total
            if total == 0:
                self.zeros -= 1
            elif total is None:
                self.unbounded -= 1
            else:
                self.product //= total  # exact: it was multiplied in
            for hole_id in hole_slots:
                self.group_of.pop(hole_id, None)

    def total(self) -> int | None:
        """The product of every group's total (zero wins over unbounded, as in _mul)."""
        return 0 if self.zeros else None if self.unbounded else self.product

    def others(self, group: "_Group") -> int | None:
        """The product of the totals of every group but `group`."""
        total = group.total
        zeros = self.zeros - (total == 0)
        if zeros:
            return 0
        if self.unbounded - (total is None):
            return None
        return self.product // total if total else self.product


class _HoleMakers(Mapping):
    """hole -> how to build its menu, for every open hole of a collected sketch, made on demand:
    a step that asks for one menu does not pay for the others (in ascending hole order)."""

    def __init__(self, oracle: "Oracle", collected: _Collected):
        self._oracle = oracle
        self._collected = collected

    def __getitem__(self, hole_id: int) -> Callable[[], HoleMenu]:
        collected = self._collected
        group, slot = collected.group_of[hole_id]
        return partial(self._oracle._hole_menu, collected.holes[hole_id], collected.parents[hole_id], group, slot,
                       collected.others(group))

    def __contains__(self, hole_id: object) -> bool:
        return hole_id in self._collected.holes

    def __iter__(self):
        return iter(sorted(self._collected.holes))

    def __len__(self) -> int:
        return len(self._collected.holes)


class Oracle:
    """Menus, counts and step checks for one library and fact program."""

    def __init__(self, library: Library, facts: FactProgram, *,
                 work_limit: int | None = None, solved: Mapping[str, Any] | None = None):
        """`work_limit`: candidate rows one operation may visit (default: `budget.max_work()`,
        plus WORK_PER_FACT per fact). `solved`: the tables and counts an oracle of the same
        library and facts solved (`solved_state()`), taken instead of solving them again
        (data of another shape is ignored: `restored_solved` says which happened)."""
        if work_limit is None:
            work_limit = max_work() + WORK_PER_FACT * len(facts.facts)
        self.budget = WorkBudget(work_limit, where=", ".join(library.sources) or "the library")
        with gc_paused(), self.budget.operation():
            self._start(library, facts, solved)

    def _start(self, library: Library, facts: FactProgram, solved: Mapping[str, Any] | None = None) -> None:
        started = time.perf_counter()
        self.library = library
        self.facts = facts
        self._type_heights = type_heights(library)
        _check_goal_depth(library, facts.goal.type, self._type_heights)
        self.fact_index = FactIndex(facts)
        self.domain = build_domain(library, facts, self.fact_index)
        self.functions = compile_library(library)
        self._has_aliases = any(cf.alias for cf in self.functions)
        self._by_name = {cf.name: cf for cf in self.functions}
        self.restored_solved = solved is not None and self._restore(solved)
        if not self.restored_solved:
            self._new_tables()
            self._solve()
        self._analysis_cache: dict[tuple, list[_Group] | str] = {}
        self._by_app: dict[int, tuple[App, list[_Group] | str]] = {}
        self._root_group: _Group | None = None
        self._menu_cache: dict[int, tuple[Sketch, Menus]] = {}
        #: what `_collect` found of a sketch (by identity), so the next step's is updated, not walked again
        self._collected: dict[int, tuple[Sketch, _Collected]] = {}
        self._default_order = self._default_priorities()
        self.startup_seconds = time.perf_counter() - started

    def _new_tables(self) -> None:
        self.tables = Tables(self.functions,
                             {name: tuple(f.type for f in t.fields)
                              for name, t in self.library.types.items()},
                             self.domain, self.fact_index, self.budget)
        self.counts = DerivationCounts(self.functions, self.tables)
        self.heights = CompletionHeights(self.functions, self.tables)

    def _solve(self) -> None:
        goal = self.facts.goal
        goal_fields = self.library.types[goal.type].field_names
        wanted = sorted((goal_fields.index(k), v) for k, v in goal.args)
        self.goal_metadata: list[Meta] = [
            m for m in self.tables.answers(goal.type, tuple(i for i, _ in wanted),
                                           tuple(v for _, v in wanted))
            if all(same_value(m[i], v) for i, v in wanted)]
        # Count every program reachable from the goal now: counts depend only on the
        # library and the facts, and every menu reads them.
        for meta in self.goal_metadata:
            self.counts.raw(self.facts.goal.type, meta)

    def _restore(self, solved: Mapping[str, Any]) -> bool:
        self._new_tables()
        try:
            self.goal_metadata = restore(solved, self.tables, self.counts, self.facts.goal.type)  # type: ignore[arg-type]
        except (ValueError, KeyError, TypeError, IndexError, AttributeError):
            return False
        return True

    def solved_state(self) -> dict[str, Any]:
        """The solved tables and counts as JSON data, for `Oracle(..., solved=)` in another
        process (navigator.synth.solved_state)."""
        return snapshot(self.tables, self.counts, self.facts.goal.type, self.goal_metadata)

    # -- public API -----------------------------------------------------------------

    def initial_sketch(self) -> Sketch:
        return Sketch.initial(self.facts.goal.type)

    @property
    def inhabited(self) -> Mapping[str, list[Meta]]:
        """Every inhabited metadata per type (computed per type on first access; can be
        the whole product of the domain for a type with unconstrained fields)."""
        return _InhabitedView(self.tables, tuple(self.library.types))

    def inhabited_metadata(self, type_name: str) -> list[dict[str, Value]]:
        """Every metadata a complete program of this type can produce."""
        names = self.library.types[type_name].field_names
        with self.budget.operation():
            found = self.tables.all_of(type_name)
        return [dict(zip(names, m)) for m in sorted(found, key=_meta_key)]

    def count_programs(self, type_name: str, metadata: Mapping[str, Value]) -> Count:
        names = self.library.types[type_name].field_names
        with self.budget.operation():
            return self.counts.value(type_name, tuple(metadata[n] for n in names))

    def menus(self, sketch: Sketch) -> Menus:
        # Keyed by identity: hashing a deep tree on every call would cost more than it saves,
        # and sessions and strategies keep passing the same sketch objects.
        cached = self._menu_cache.get(id(sketch))
        if cached is not None and cached[0] is sketch:
            return cached[1]
        with gc_paused(), self.budget.operation():
            menus = self._compute_menus(sketch)
        if len(self._menu_cache) > MENUS_KEPT:
            self._menu_cache.clear()
        self._menu_cache[id(sketch)] = (sketch, menus)
        return menus

    def blocked(self, sketch: Sketch) -> str | None:
        """Why the sketch cannot be completed, or None if it can."""
        return self.menus(sketch).blocked

    def count(self, sketch: Sketch) -> Count:
        """Complete programs extending the sketch."""
        return self.menus(sketch).total

    def count_with_aliases(self) -> Count:
        """Every complete program for the goal, aliases (shortcuts) included: `count` of the
        initial sketch counts each program once, leaving out what is built through an alias."""
        goal_type = self.facts.goal.type
        found: int | None = 0
        with self.budget.operation():
            for meta in self.goal_metadata:
                n = self.counts.raw_with_aliases(goal_type, meta)
                found = None if n is None or found is None else found + n
        return _as_count(found)

    def apply(self, sketch: Sketch, option: MenuOption) -> Sketch:
        """Take an offered step (no re-check: the option came from a menu of this sketch)."""
        decl = self.library.functions[option.function]
        filled = sketch.fill(option.hole, option.function, option.metadata,
                             tuple((p.name, p.type) for p in decl.params))
        self._collect_after(sketch, option.hole, filled)
        return filled

    def step(self, sketch: Sketch, hole: int, option_id_: str) -> Sketch:
        """Take the step (hole, option id); KeyError if it is not offered."""
        option = self.menus(sketch).option(hole, option_id_)
        if option is None:
            raise KeyError(f"?{hole} := {option_id_} is not offered")
        return self.apply(sketch, option)

    # -- menus ----------------------------------------------------------------------

    def _compute_menus(self, sketch: Sketch) -> Menus:
        collected = self._collected_of(sketch)
        blocked = collected.blocked
        if blocked is not None:
            parents = collected.parents
            return Menus(tuple(HoleMenu(h.id, h.type, *parents.get(h.id, (None, None)), ())
                               for h in sketch.holes()), ZERO, blocked)
        return Menus(total=_as_count(collected.total()), makers=_HoleMakers(self, collected))

    def _hole_menu(self, hole: Hole, parent: tuple[str | None, str | None], group: _Group,
                   slot: int, others: int | None) -> HoleMenu:
        base = group.bases.get(slot)
        if base is None:
            with self.budget.operation():  # menus are built lazily, after `menus` returned
                base = group.bases[slot] = self._menu_base(hole.type, group, slot)
        entries, default_index, allowed = base
        hole_id, hole_type = hole.id, hole.type
        options = tuple([
            MenuOption(hole_id, function, hole_type, metadata, _as_count(_mul(weight, others)),
                       subtree, index == default_index, alias)
            for index, (function, metadata, weight, subtree, alias, _) in enumerate(entries)])
        return HoleMenu(hole_id, hole_type, parent[0], parent[1], options, allowed)

    def _menu_base(self, type_name: str, group: _Group, slot: int) -> tuple:
        """A hole's options without the factor from the rest of the sketch: sorted
        (function, metadata, subtree count x weight, subtree count, alias, whether every
        program through it, aliases included, is finite in number), the default's index,
        and the allowed metadata."""
        weights = group.weights[slot]
        weights_with_aliases = (group.weights_with_aliases or group.weights)[slot]
        names = self.library.types[type_name].field_names
        counts = self.counts
        entries = []
        for meta, weight in weights.items():
            pairs = tuple(zip(names, meta))
            for fi in counts.derivers_of(type_name, meta):
                subtree = counts.raw_function(fi, meta)
                bounded = _mul(counts.raw_function_with_aliases(fi, meta), weights_with_aliases[meta]) is not None
                entries.append(((fi, _meta_key(meta)), self.functions[fi].name, pairs,
                                _mul(subtree, weight), _as_count(subtree), self.functions[fi].alias, bounded,
                                fi, meta))
        entries.sort(key=lambda e: e[0])
        derivations = [(entry[7], entry[8]) for entry in entries]
        entries = [entry[1:7] for entry in entries]
        allowed = tuple(tuple(zip(names, m)) for m in sorted(weights, key=_meta_key))
        return entries, self._default_index(entries, derivations, group, slot), allowed

    def _default_priorities(self) -> dict[str, int]:
        return {name: i for i, (name, decl) in enumerate(self.library.functions.items())
                if decl.default is not None}

    def _default_index(self, entries: list[tuple], derivations: list[tuple[int, Meta]],
                       group: _Group, slot: int) -> int | None:
        """Which option is the hole's default (docs/engine.md#defaults).

        1. The library's marks decide, in priority order (function declaration order, then the
           mark's choices, then menu order), among the marked options below which the hole and
           its siblings have finitely many completions (aliases included): whatever defaults do
           there, they stop.
        2. Otherwise following marks could recurse forever (a marked `wrap: Schedule ->
           Schedule`). Each option gets a height, the least height of a completion of it and its
           siblings; a marked option is still taken if its height is below the least completion
           height of the parent application (any, at the root), so heights descend.
        3. Otherwise the default is an option of the least height, marked ones first.
        A hole with no marked option has no default."""
        marked: dict[int, tuple[int, int]] = {}
        for index, (function, metadata, *_) in enumerate(entries):
            rank = self._default_order.get(function)
            if rank is None:
                continue
            choice = self.library.functions[function].default.matches(dict(metadata))
            if choice is not None:
                marked[index] = (rank, choice)
        if not marked:
            return None
        finite = [(priority, index) for index, priority in marked.items() if entries[index][5]]
        if finite:
            return min(finite)[1]
        return self._smallest_completion(derivations, group, slot, marked)

    def _smallest_completion(self, derivations: list[tuple[int, Meta]], group: _Group, slot: int,
                             marked: dict[int, tuple[int, int]]) -> int:
        """Rules 2 and 3 of `_default_index`. An option (f, m)'s height is max(h_f(m), the least
        height of a completion of the hole's siblings when it has m); the parent's height
        bounds them all, at least one option is within it when the siblings were filled by
        these rules, and so defaults taken one below the other descend strictly in height."""
        height = self.heights.pair
        position = group.slots.index(slot)
        siblings: dict[Meta, int] = {}
        for _, metas in group.solutions:
            tallest = max(height(t, m) for t, m in zip(group.types, metas))
            meta = metas[position]
            if tallest < siblings.get(meta, tallest + 1):
                siblings[meta] = tallest
        heights = [max(siblings[meta], self.heights.function(fi, meta)) for fi, meta in derivations]
        below = None if group.parent is None else self.heights.function(*group.parent)
        within = [(priority, index) for index, priority in marked.items()
                  if below is None or heights[index] < below]
        if within:
            return min(within)[1]
        return min(range(len(derivations)),
                   key=lambda index: (heights[index], index not in marked, marked.get(index, (0, 0)), index))

    # -- completability -------------------------------------------------------------

    def _collected_of(self, sketch: Sketch) -> "_Collected":
        found = self._collected.get(id(sketch))
        if found is not None and found[0] is sketch:
            return found[1]
        collected = _Collected({}, {}, {}, None)
        collected.blocked = self._collect(sketch, collected.entries, collected.parents, collected.holes)
        if collected.blocked is None:
            for entries in collected.entries.values():
                collected.add(entries)
        self._keep_collected(sketch, collected)
        return collected

    def follow(self, sketch: Sketch, hole_id: int, filled: Sketch) -> None:
        """Let the oracle know that `filled` is `sketch` with hole `hole_id` filled, so that
        the menus of `filled` come from those of `sketch` without a walk of the whole sketch
        (as `apply` does). For callers that go through a log of sketches in order: the menus
        of each then cost what a step costs, not what the sketch's size does."""
        found = self._collected.get(id(filled))
        if found is not None and found[0] is filled:
            return
        self._collected_of(sketch)
        self._collect_after(sketch, hole_id, filled)

    def _keep_collected(self, sketch: Sketch, collected: "_Collected") -> None:
        if len(self._collected) > MENUS_KEPT:
            self._collected.clear()
        self._collected[id(sketch)] = (sketch, collected)

    def _collect_after(self, sketch: Sketch, hole_id: int, filled: Sketch) -> None:
        """What `_collect` would find of `filled`, from what it found of `sketch` (when known):
        a step changes the analysis of two applications only, the new one and its parent (whose
        child went from a hole to an application; the ancestors above see the same metadata).
        Every other group keeps its holes and their slots. Anything unusual (the root, an
        analysis that blocks) is left to a whole walk."""
        before = self._collected.get(id(sketch))
        step = filled.last_step
        if before is None or before[0] is not sketch or before[1].blocked is not None \
                or step is None or step[2] is None:  # (no parent: the root was the hole)
            return
        positions, node, parent = step
        old = before[1]
        collected = _Collected(dict(old.entries), dict(old.parents), dict(old.holes), None, dict(old.group_of),
                               old.product, old.zeros, old.unbounded)
        del collected.parents[hole_id]
        del collected.holes[hole_id]
        # (the parent, by its positions; the new application, by the hole's)
        changed = [(positions[:-1], parent), (positions, node)]
        for where, app in changed:
            groups = self._analyze(app)
            if groups.__class__ is str:
                return   # the whole walk names the first problem
            holes_by_slot = {}
            for position, (param, child) in enumerate(app.args, start=1):
                if child.__class__ is Hole:
                    holes_by_slot[position] = child.id  # type: ignore[union-attr]
                    collected.parents[child.id] = (app.function, param)  # type: ignore[union-attr]
                    collected.holes[child.id] = child  # type: ignore[assignment,union-attr]
            entries = [(group, {holes_by_slot[s]: s for s in group.slots}) for group in groups]  # type: ignore
            collected.remove(collected.entries.pop(where, []))
            if entries:
                collected.entries[where] = entries
                collected.add(entries)
        self._keep_collected(filled, collected)

    def _collect(self, sketch: Sketch, entries: dict[tuple[int, ...], list[tuple[_Group, dict[int, int]]]],
                 parents: dict[int, tuple[str | None, str | None]],
                 holes: dict[int, Hole]) -> str | None:
        """Fill `entries` with, per application (by its argument positions from the root), one
        entry per hole group (the group and its holes' slots), and `holes` with the open holes;
        return why the sketch is blocked, if it is."""
        goal = self.facts.goal
        root = sketch.root
        if isinstance(root, Hole):
            parents[root.id] = (None, None)
            holes[root.id] = root
            if root.type != goal.type:
                return f"the root hole has type {root.type}, the goal is {goal.type}"
            if not self.goal_metadata:
                if not self.library.functions_returning(goal.type):
                    return f"no function of the library returns the goal type {goal.type}"
                if goal.type not in self._type_heights:
                    return (f"no program of the goal type {goal.type} can be built at all: every function "
                            "building it needs, at some depth, a type that no function builds without "
                            "that type itself (a recursion with no base case)")
                return f"no complete program of goal type {goal.type} satisfies the goal"
            group = self._root_group
            if group is None:
                weights: dict[Meta, int | None] = {m: 1 for m in self.goal_metadata}
                group_total: int | None = 0
                for m in self.goal_metadata:
                    n = self.counts.raw(goal.type, m)
                    group_total = None if n is None or group_total is None else group_total + n
                group = self._root_group = _Group((1,), group_total, {1: weights}, types=(goal.type,),
                                                  solutions=[((), (m,)) for m in self.goal_metadata])
            entries[()] = [(group, {root.id: 1})]
            return None
        if root.type != goal.type:
            return f"the root {root.function} returns {root.type}, the goal is {goal.type}"
        for name, value in goal.args:
            got = root.metadata_dict().get(name)
            if not same_value(got, value):
                return (f"the root {option_id(root.function, root.metadata)} does not meet the "
                        f"goal's {name} = {format_value(value)}")
        stack: list[tuple[App, tuple[int, ...]]] = [(root, ())]
        analyze = self._analyze
        while stack:
            app, where = stack.pop()
            groups = analyze(app)
            if groups.__class__ is str:
                return f"{option_id(app.function, app.metadata)}: {groups}"
            holes_by_slot = {}
            function = app.function
            position = 0
            for param, child in app.args:
                position += 1
                if child.__class__ is Hole:
                    holes_by_slot[position] = child.id
                    parents[child.id] = (function, param)
                    holes[child.id] = child  # type: ignore[index,assignment]
                else:
                    stack.append((child, where + (position - 1,)))  # type: ignore[arg-type]
            if groups:
                entries[where] = [(group, {holes_by_slot[s]: s for s in group.slots})  # type: ignore[union-attr]
                                  for group in groups]  # type: ignore[union-attr]
        return None

    def _analyze(self, app: App) -> list[_Group] | str:
        # Applications are immutable and shared between a sketch and the next, so most are
        # found by identity; a new one (the step's node and its ancestors) by its content.
        hit = self._by_app.get(id(app))
        if hit is not None and hit[0] is app:
            return hit[1]
        cf = self._by_name.get(app.function)
        if cf is None:
            return "unknown function"
        children = tuple(None if child.__class__ is Hole else child.metadata  # type: ignore[union-attr]
                         for _, child in app.args)
        key = (cf.index, app.metadata, children)
        cached = self._analysis_cache.get(key)
        if cached is None:
            cached = self._analyze_uncached(cf, app, children)
            if cached.__class__ is str and self._shape_problem(cf, app):
                # (not cached: True and 1 are equal keys, only valid shapes may share one)
                return cached
            self._analysis_cache[key] = cached
        if len(self._by_app) > 100_000:
            self._by_app.clear()
        self._by_app[id(app)] = (app, cached)
        return cached  # type: ignore[return-value]

    def _analyze_uncached(self, cf, app: App, children) -> list[_Group] | str:
        problem = self._shape_problem(cf, app)
        if problem:
            return problem
        metas = tuple(None if c is None else tuple(v for _, v in c) for c in children)
        slots = tuple(i + 1 for i, meta in enumerate(metas) if meta is not None)
        plan = self.tables.plan(cf, self.tables.full_positions[cf.ret_type], slots)
        components = plan.run(app.meta, {s: metas[s - 1] for s in slots}, self.tables.lookup)
        if components is None:
            if all(meta is not None for meta in metas):
                return "its condition does not hold"
            return "its condition cannot hold for any completion of its holes"
        groups = []
        for comp in components:
            types = tuple(cf.slot_types[s] for s in comp.param_slots)
            weights, group_total = _component_weights(comp, types, self.counts.raw)
            with_aliases = None
            if self._has_aliases:  # a run of defaults may take aliases: bound what they build
                with_aliases = _component_weights(comp, types, self.counts.raw_with_aliases)[0]
            groups.append(_Group(comp.param_slots, group_total, weights, with_aliases, types=types,
                                 solutions=comp.solutions, parent=(cf.index, app.meta)))
        return groups

    def _shape_problem(self, cf, app: App) -> str | None:
        """Checks a sketch built by hand or from JSON may fail; offered steps never do."""
        decl = self.library.functions[app.function]
        ret = self.library.types[decl.ret]
        if app.type != decl.ret:
            return f"returns {decl.ret}, but sits where a {app.type} is needed"
        if tuple(n for n, _ in app.metadata) != ret.field_names:
            return f"metadata must give exactly the fields {', '.join(ret.field_names) or '(none)'}"
        for (name, value), fdecl in zip(app.metadata, ret.fields):
            if value_type_of(value) != fdecl.type or not self.domain.contains(fdecl.type, value):
                return (f"metadata {name} = {format_value(value)} is outside the domain of "
                        f"{fdecl.type} values (the literals of the library and facts)")
        if tuple(p for p, _ in app.args) != decl.param_names:
            return f"arguments must be exactly {', '.join(decl.param_names) or '(none)'}"
        for (param, child), pdecl in zip(app.args, decl.params):
            if child.type != pdecl.type:
                return f"argument {param} must be a {pdecl.type}, got a {child.type}"
        return None


def _component_weights(comp, types: tuple[str, ...], count) -> tuple[dict[int, dict[Meta, int | None]], int | None]:
    """For each slot of a component of holes, allowed metadata -> the ways to complete the
    other holes (`count(type, meta)` per hole), and the component's completions."""
    weights: dict[int, dict[Meta, int | None]] = {s: {} for s in comp.param_slots}
    total: int | None = 0
    for _, solution in comp.solutions:
        ns = [count(t, m) for t, m in zip(types, solution)]
        term: int | None = 1
        for n in ns:
            term = _mul(term, n)
        total = None if term is None or total is None else total + term
        for i, slot in enumerate(comp.param_slots):
            rest: int | None = 1
            for j, n in enumerate(ns):
                if j != i:
                    rest = _mul(rest, n)
            bucket = weights[slot]
            meta = solution[i]
            if meta in bucket:
                previous = bucket[meta]
                bucket[meta] = None if previous is None or rest is None else previous + rest
            else:
                bucket[meta] = rest
    return weights, total


def _check_goal_depth(library: Library, goal_type: str, heights: Mapping[str, int]) -> None:
    """Refuse up front a goal whose every program nests deeper than a sketch may."""
    height = heights.get(goal_type)
    if height is None or height <= MAX_SKETCH_DEPTH:
        return
    chain = " <- ".join(shortest_chain(library, goal_type, heights))
    raise LibraryError(
        f"every program of the goal type {goal_type} nests at least {height} applications deep "
        f"({chain} ...), more than the {MAX_SKETCH_DEPTH} a sketch may nest",
        where=", ".join(library.sources) or "the library",
        fix="shorten the chain of types that builds the goal")


def _hole_id(hole: Hole) -> int:
    return hole.id


def _meta_key(meta: Meta) -> tuple:
    return tuple((type(v).__name__, v) for v in meta)


class _InhabitedView(Mapping):
    """`type name -> inhabited metadata`, computed per type when first read."""

    def __init__(self, tables: Tables, type_names: tuple[str, ...]):
        self._tables = tables
        self._names = type_names

    def __getitem__(self, type_name: str) -> list[Meta]:
        if type_name not in self._names:
            raise KeyError(type_name)
        with self._tables.budget.operation():
            return list(self._tables.all_of(type_name))

    def __iter__(self) -> Iterator[str]:
        return iter(self._names)

    def __len__(self) -> int:
        return len(self._names)
