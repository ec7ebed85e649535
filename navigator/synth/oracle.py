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
Everything that depends only on library + facts (domain, inhabitation fixpoint, counts)
is computed once in the constructor; a menu then costs lookups plus one small solve per
application, cached by (function, metadata, filled children).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Mapping

from navigator.lang import FactProgram, Library
from navigator.lang.formula import Value, format_value, same_value, value_type_of
from navigator.synth.compiled import FactIndex, Meta, compile_library
from navigator.synth.cost import CostFunction
from navigator.synth.count import ONE, ZERO, Count, product, total
from navigator.synth.counting import DerivationCounts
from navigator.synth.domain import build_domain
from navigator.synth.inhabitation import compute_inhabited
from navigator.synth.menu import HoleMenu, MenuOption, Menus, option_id
from navigator.synth.sketch import App, Hole, Sketch
from navigator.synth.solver import solve


@dataclass
class _Group:
    """One component of an application's hole children."""

    slots: tuple[int, ...]
    total: Count
    #: per slot: allowed metadata -> number of ways to complete the other holes of the group
    weights: dict[int, dict[Meta, Count]] = field(default_factory=dict)


@dataclass
class _Factor:
    group: _Group
    #: hole id -> slot within the group
    holes: dict[int, int]


class Oracle:
    """Menus, counts and step checks for one library and fact program."""

    def __init__(self, library: Library, facts: FactProgram, *, cost: CostFunction | None = None):
        started = time.perf_counter()
        self.library = library
        self.facts = facts
        self.cost = cost
        self.domain = build_domain(library, facts)
        self.functions = compile_library(library)
        self._by_name = {cf.name: cf for cf in self.functions}
        self.fact_index = FactIndex(facts)
        self.inhabited = compute_inhabited(self.functions, library.types, self.domain,
                                           self.fact_index)
        self.counts = DerivationCounts(self.functions, self.inhabited, self.domain,
                                       self.fact_index)
        goal = facts.goal
        goal_fields = library.types[goal.type].field_names
        wanted = goal.args_dict()
        self.goal_metadata: list[Meta] = [
            m for m in self.inhabited[goal.type]
            if all(same_value(m[goal_fields.index(k)], v) for k, v in wanted.items())]
        self._analysis_cache: dict[tuple, list[_Group] | str] = {}
        self._menu_cache: dict[int, tuple[Sketch, Menus]] = {}
        self._default_order = self._default_priorities()
        self.startup_seconds = time.perf_counter() - started

    # -- public API -----------------------------------------------------------------

    def initial_sketch(self) -> Sketch:
        return Sketch.initial(self.facts.goal.type)

    def inhabited_metadata(self, type_name: str) -> list[dict[str, Value]]:
        """Every metadata a complete program of this type can produce."""
        names = self.library.types[type_name].field_names
        return [dict(zip(names, m)) for m in sorted(self.inhabited[type_name], key=_meta_key)]

    def count_programs(self, type_name: str, metadata: Mapping[str, Value]) -> Count:
        names = self.library.types[type_name].field_names
        return self.counts.value(type_name, tuple(metadata[n] for n in names))

    def menus(self, sketch: Sketch) -> Menus:
        # Keyed by identity: hashing a deep tree on every call would cost more than it saves,
        # and sessions and strategies keep passing the same sketch objects.
        cached = self._menu_cache.get(id(sketch))
        if cached is not None and cached[0] is sketch:
            return cached[1]
        menus = self._compute_menus(sketch)
        if len(self._menu_cache) > 64:
            self._menu_cache.clear()
        self._menu_cache[id(sketch)] = (sketch, menus)
        return menus

    def blocked(self, sketch: Sketch) -> str | None:
        """Why the sketch cannot be completed, or None if it can."""
        return self.menus(sketch).blocked

    def count(self, sketch: Sketch) -> Count:
        """Complete programs extending the sketch."""
        return self.menus(sketch).total

    def apply(self, sketch: Sketch, option: MenuOption) -> Sketch:
        """Take an offered step (no re-check: the option came from a menu of this sketch)."""
        decl = self.library.functions[option.function]
        return sketch.fill(option.hole, option.function, option.metadata,
                           tuple((p.name, p.type) for p in decl.params))

    def step(self, sketch: Sketch, hole: int, option_id_: str) -> Sketch:
        """Take the step (hole, option id); KeyError if it is not offered."""
        option = self.menus(sketch).option(hole, option_id_)
        if option is None:
            raise KeyError(f"?{hole} := {option_id_} is not offered")
        return self.apply(sketch, option)

    def fill_unchecked(self, sketch: Sketch, hole: int, function: str,
                       metadata: Mapping[str, Value]) -> Sketch:
        """Fill a hole without asking the oracle (e.g. to test a candidate step)."""
        decl = self.library.functions[function]
        names = self.library.types[decl.ret].field_names
        return sketch.fill(hole, function, tuple((n, metadata[n]) for n in names),
                           tuple((p.name, p.type) for p in decl.params))

    # -- menus ----------------------------------------------------------------------

    def _compute_menus(self, sketch: Sketch) -> Menus:
        factors: list[_Factor] = []
        parents: dict[int, tuple[str | None, str | None]] = {}
        blocked = self._collect(sketch, factors, parents)
        holes = sketch.holes()
        if blocked is not None:
            return Menus(tuple(HoleMenu(h.id, h.type, *parents.get(h.id, (None, None)), ())
                               for h in holes), ZERO, blocked)
        totals = [f.group.total for f in factors]
        prefix = [ONE]
        for t in totals:
            prefix.append(prefix[-1] * t)
        suffix = [ONE]
        for t in reversed(totals):
            suffix.append(suffix[-1] * t)
        suffix.reverse()
        where: dict[int, tuple[int, int]] = {}
        for fi, factor in enumerate(factors):
            for hole_id, slot in factor.holes.items():
                where[hole_id] = (fi, slot)
        menus = []
        for hole in holes:
            fi, slot = where[hole.id]
            others = prefix[fi] * suffix[fi + 1]
            weights = factors[fi].group.weights[slot]
            menus.append(self._hole_menu(hole, parents[hole.id], weights, others))
        return Menus(tuple(menus), product(totals))

    def _hole_menu(self, hole: Hole, parent: tuple[str | None, str | None],
                   weights: dict[Meta, Count], others: Count) -> HoleMenu:
        names = self.library.types[hole.type].field_names
        entries = []
        for meta, weight in weights.items():
            for fi in self.counts.derivers_of(hole.type, meta):
                subtree = self.counts.function(fi, meta)
                entries.append(((fi, _meta_key(meta)), fi, meta, subtree * weight * others,
                                subtree))
        entries.sort(key=lambda e: e[0])
        options = [MenuOption(hole.id, self.functions[fi].name, hole.type,
                              tuple(zip(names, meta)), count, subtree)
                   for _, fi, meta, count, subtree in entries]
        options = self._mark_default(options)
        allowed = tuple(tuple(zip(names, m)) for m in sorted(weights, key=_meta_key))
        return HoleMenu(hole.id, hole.type, parent[0], parent[1], tuple(options), allowed)

    def _default_priorities(self) -> dict[str, int]:
        return {name: i for i, (name, decl) in enumerate(self.library.functions.items())
                if decl.default is not None}

    def _mark_default(self, options: list[MenuOption]) -> list[MenuOption]:
        best = None
        for index, option in enumerate(options):
            rank = self._default_order.get(option.function)
            if rank is None:
                continue
            choice = self.library.functions[option.function].default.matches(option.metadata_dict())
            if choice is None:
                continue
            key = (rank, choice, index)
            if best is None or key < best[0]:
                best = (key, index)
        if best is None:
            return options
        chosen = options[best[1]]
        options[best[1]] = MenuOption(chosen.hole, chosen.function, chosen.type, chosen.metadata,
                                      chosen.count, chosen.subtree_count, True)
        return options

    # -- completability -------------------------------------------------------------

    def _collect(self, sketch: Sketch, factors: list[_Factor],
                 parents: dict[int, tuple[str | None, str | None]]) -> str | None:
        """Fill `factors` with one entry per hole group; return why it is blocked, if so."""
        goal = self.facts.goal
        root = sketch.root
        if isinstance(root, Hole):
            parents[root.id] = (None, None)
            if root.type != goal.type:
                return f"the root hole has type {root.type}, the goal is {goal.type}"
            weights = {m: ONE for m in self.goal_metadata}
            group_total = total(self.counts.value(goal.type, m) for m in self.goal_metadata)
            if not weights:
                return f"no complete program of goal type {goal.type} satisfies the goal"
            factors.append(_Factor(_Group((1,), group_total, {1: weights}), {root.id: 1}))
            return None
        if root.type != goal.type:
            return f"the root {root.function} returns {root.type}, the goal is {goal.type}"
        for name, value in goal.args:
            got = root.metadata_dict().get(name)
            if not same_value(got, value):
                return (f"the root {option_id(root.function, root.metadata)} does not meet the "
                        f"goal's {name} = {format_value(value)}")
        stack: list[App] = [root]
        while stack:
            app = stack.pop()
            groups = self._analyze(app)
            if isinstance(groups, str):
                return f"{option_id(app.function, app.metadata)}: {groups}"
            holes_by_slot = {}
            for position, (param, child) in enumerate(app.args):
                if isinstance(child, Hole):
                    holes_by_slot[position + 1] = child.id
                    parents[child.id] = (app.function, param)
                else:
                    stack.append(child)
            for group in groups:
                factors.append(_Factor(group, {holes_by_slot[s]: s for s in group.slots}))
        return None

    def _analyze(self, app: App) -> list[_Group] | str:
        cf = self._by_name.get(app.function)
        if cf is None:
            return "unknown function"
        children = tuple(None if isinstance(child, Hole) else child.meta for _, child in app.args)
        key = (cf.index, app.meta, children)
        cached = self._analysis_cache.get(key)
        if cached is None:
            cached = self._analyze_uncached(cf, app, children)
            self._analysis_cache[key] = cached
        return cached  # type: ignore[return-value]

    def _analyze_uncached(self, cf, app: App, children) -> list[_Group] | str:
        problem = self._shape_problem(cf, app)
        if problem:
            return problem
        fixed = {0: app.meta}
        fixed.update({i + 1: meta for i, meta in enumerate(children) if meta is not None})
        components = solve(cf, fixed, lambda s: self.inhabited[cf.slot_types[s]], self.domain,
                           self.fact_index)
        if components is None:
            if all(meta is not None for meta in children):
                return "its condition does not hold"
            return "its condition cannot hold for any completion of its holes"
        groups = []
        for comp in components:
            types = [cf.slot_types[s] for s in comp.param_slots]
            weights: dict[int, dict[Meta, Count]] = {s: {} for s in comp.param_slots}
            group_total = ZERO
            for _, metas in comp.solutions:
                ns = [self.counts.value(t, m) for t, m in zip(types, metas)]
                group_total = group_total + product(ns)
                for i, slot in enumerate(comp.param_slots):
                    rest = product(ns[:i] + ns[i + 1:])
                    bucket = weights[slot]
                    bucket[metas[i]] = bucket.get(metas[i], ZERO) + rest
            groups.append(_Group(comp.param_slots, group_total, weights))
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


def _meta_key(meta: Meta) -> tuple:
    return tuple((type(v).__name__, v) for v in meta)
