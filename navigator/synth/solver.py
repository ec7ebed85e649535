"""Solving one function's condition as a conjunctive query, through compiled plans.

Each free parameter slot takes a metadata tuple from its type's inhabited set, each free
return field takes a domain value (or is bound through `=` or a fact), and the condition is
a conjunctive query over these. What is *given* varies: the inhabitation tables give some
return fields (a call pattern), counting gives the whole return metadata, and a menu gives
the return metadata and the filled children. For each such shape, `compile_plan` works out
once, ahead of any data:

- which comparisons and fact patterns only involve given values (checked up front, facts
  through a hash set);
- how the free slots split into connected components that no condition links (solved
  separately, so unrelated parameters never build a cross product; this is also what lets
  counts factorise);
- per component, the order of generators: fact patterns that share a known field first, so
  that facts bind return fields and parameter fields before any lookup; then parameter
  lookups, keyed by every field known at that point (directly or through `=`); free return
  fields are enumerated from the domain only when nothing else binds them. Each generator is
  a hash lookup on the fields already bound, and each comparison is checked as soon as its
  fields are bound.

A parameter lookup asks the caller for the inhabited metadata of the slot's type that agree
with the key (`lookup(group, spec, key)`), which is how the demand-driven inhabitation
tables (`inhabitation.Tables`) plug in.
"""

from __future__ import annotations

import operator
from collections import defaultdict
from dataclasses import dataclass
from typing import Callable, Iterator

from fuseflow.support.union_find import UnionFind
from navigator.synth.lookup_budget import WorkBudget
from navigator.synth.compiled import CompiledFunction, Const, FactIndex, Meta, Operand, Var
from navigator.synth.domain import Domain

_OPS = {"=": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le}

#: step kinds (ALIAS: a free return field that `=` ties to a known value takes that value;
#: conditions are type-checked and every fact, literal and inhabited value is in the
#: domain, so no domain check is needed)
FACT, PARAM, RET, ALIAS = 0, 1, 2, 3
#: run modes: every solution, or only the distinct return keys (stopping at the first
#: solution once a key is known)
FULL, PROJECT = 0, 1


class ComponentResult:
    """Solutions of one connected component of free slots.

    `ret_fields` are the free return fields in the component and `param_slots` the free
    parameter slots, both sorted. A solution is `(ret_key, metas)`: the values of the
    return fields, and one metadata tuple per parameter slot. In projection mode only the
    distinct `ret_key`s are kept (`keys`, a dict used as an ordered set).
    """

    __slots__ = ("ret_fields", "param_slots", "solutions", "keys")

    def __init__(self, ret_fields: tuple[int, ...], param_slots: tuple[int, ...],
                 solutions: list | None = None, keys: dict | None = None):
        self.ret_fields = ret_fields
        self.param_slots = param_slots
        self.solutions: list[tuple[tuple, tuple[Meta, ...]]] = [] if solutions is None else solutions
        self.keys: dict[tuple, None] = {} if keys is None else keys

    def __repr__(self) -> str:
        return (f"ComponentResult({self.ret_fields}, {self.param_slots}, "
                f"solutions={self.solutions!r}, keys={list(self.keys)!r})")


class _Step:
    __slots__ = ("kind", "index", "spec", "group", "key_src", "binds", "intra", "filters",
                 "slot")

    def __init__(self, kind, index, spec, group, key_src, binds, intra, filters, slot=None):
        self.kind = kind
        #: PARAM: the parameter slot whose metadata this step produces
        self.slot = slot
        #: FACT / RET: key -> rows
        self.index = index
        #: PARAM: (type name, key positions)
        self.spec = spec
        #: PARAM: the lookup's table group (key -> table), shared with the caller
        self.group = group
        #: per key position: (is_var, var id or constant)
        self.key_src = key_src
        #: (row position, var id) for the fields this step binds
        self.binds = binds
        #: row positions that must hold equal values (a variable repeated in a pattern)
        self.intra = intra
        #: (op, left is var, left, right is var, right)
        self.filters = filters


class _ComponentPlan:
    __slots__ = ("ret_fields", "param_slots", "steps", "ret_ids", "slot_ids", "prune_level")

    def __init__(self, ret_fields, param_slots, steps, ret_ids, slot_ids, prune_level):
        self.ret_fields = ret_fields
        self.param_slots = param_slots
        self.steps = steps
        self.ret_ids = ret_ids
        self.slot_ids = slot_ids
        #: the step after which every free return field is bound (projection prunes there)
        self.prune_level = prune_level


class Plan:
    """A compiled query for one function with some return fields and slots given."""

    def __init__(self, cf: CompiledFunction, fixed_ret: tuple[int, ...],
                 fixed_slots: tuple[int, ...], budget: WorkBudget):
        self.cf = cf
        self.budget = budget
        self.fixed_ret = fixed_ret
        self.fixed_slots = fixed_slots
        self.n_vars = 0
        #: (var id, index into the given return values)
        self.ret_inputs: list[tuple[int, int]] = []
        #: (var id, slot, field)
        self.slot_inputs: list[tuple[int, int, int]] = []
        #: comparisons over given values only: (op, left is var, left, right is var, right)
        self.checks: list[tuple] = []
        #: fact patterns over given values only: (set of rows, key sources)
        self.fact_checks: list[tuple[set, list[tuple[bool, object]]]] = []
        self.components: list[_ComponentPlan] = []
        self._compiled: list[Callable | None] = [None, None]
        self._runs = [0, 0]

    def run(self, ret_values: tuple, slot_metas: dict[int, Meta] | None,
            lookup: Callable, mode: int = FULL) -> list[ComponentResult] | None:
        """Solve; None if there is no solution, [] if nothing is free and the condition holds.

        `ret_values` are the given return fields' values (in `fixed_ret` order),
        `slot_metas` the given slots' metadata.
        """
        fn = self._compiled[mode]
        if fn is None:
            # Generating code costs about as much as 30 interpreted runs: only hot plans
            # get it (a large library has many plans that run a few times each).
            runs = self._runs[mode] = self._runs[mode] + 1
            if runs <= _INTERPRETED_RUNS:
                return self.interpret(ret_values, slot_metas, lookup, mode)
            fn = self._compiled[mode] = _generate(self, mode)
        return fn(ret_values, slot_metas, lookup)

    def interpret(self, ret_values: tuple, slot_metas: dict[int, Meta] | None,
                  lookup: Callable, mode: int = FULL) -> list[ComponentResult] | None:
        """`run` without code generation (the reference for the generated code)."""
        values: list = [None] * self.n_vars
        for i, j in self.ret_inputs:
            values[i] = ret_values[j]
        if self.slot_inputs:
            for i, slot, f in self.slot_inputs:
                values[i] = slot_metas[slot][f]  # type: ignore[index]
        for op, lv, la, rv, ra in self.checks:
            if not _OPS[op](values[la] if lv else la, values[ra] if rv else ra):
                return None
        for rows, key_src in self.fact_checks:
            if tuple([values[x] if v else x for v, x in key_src]) not in rows:
                return None
        results = []
        for comp in self.components:
            result = _run_component(comp, values, lookup, mode, self.budget, self.cf.name)
            if not (result.keys if mode == PROJECT else result.solutions):
                return None  # one component without solutions sinks the whole condition
            results.append(result)
        return results


def _run_component(comp: _ComponentPlan, values: list, lookup: Callable, mode: int,
                   budget: WorkBudget, name: str) -> ComponentResult:
    """Interpret one component: a depth-first search over its steps, without recursion (a
    component has a step per free parameter, fact pattern and free return field, and a
    library decides how many of those there are)."""
    result = ComponentResult(comp.ret_fields, comp.param_slots)
    steps = comp.steps
    depth = len(steps)
    ret_ids = comp.ret_ids
    slot_ids = comp.slot_ids

    def rows_of(step):
        key = tuple([values[x] if v else x for v, x in step.key_src])
        if step.kind == ALIAS:
            return (key,)
        if step.kind == PARAM:
            rows = step.group.get(key)
            if rows.__class__ is not tuple:  # not a finished table
                rows = lookup(step.group, step.spec, key)
        else:
            rows = step.index.get(key, ())
        budget.left -= len(rows)
        if budget.left < 0:
            budget.exhausted(name)
        return rows

    def bind_ok(step, row) -> bool:
        for pos, i in step.binds:
            values[i] = row[pos]
        for a, b in step.intra:
            if row[a] != row[b]:
                return False
        for op, lv, la, rv, ra in step.filters:
            if not _OPS[op](values[la] if lv else la, values[ra] if rv else ra):
                return False
        return True

    def assignments(start: int, stop: int) -> Iterator[None]:
        """Yield each time steps start..stop-1 have all bound `values` consistently."""
        if start == stop:
            yield None
            return
        level = start
        stack = [iter(rows_of(steps[start]))]
        while stack:
            step = steps[level]
            for row in stack[-1]:
                if bind_ok(step, row):
                    break
            else:
                stack.pop()
                level -= 1
                continue
            if level + 1 == stop:
                yield None
            else:
                level += 1
                stack.append(iter(rows_of(steps[level])))

    if mode == FULL:
        solutions = result.solutions
        for _ in assignments(0, depth):
            solutions.append((tuple([values[i] for i in ret_ids]),
                              tuple([tuple([values[i] for i in ids]) for ids in slot_ids])))
        return result

    keys = result.keys
    prune = comp.prune_level
    for _ in assignments(0, prune):
        key = tuple([values[i] for i in ret_ids])
        if key not in keys:
            for _ in assignments(prune, depth):
                keys[key] = None
                break
    return result


@dataclass
class _Generator:
    kind: int
    positions: list[tuple[int, Operand]]
    #: FACT: (prop, projected positions); PARAM: slot; RET: field
    source: object
    size: int


def compile_plan(cf: CompiledFunction, fixed_ret: tuple[int, ...], fixed_slots: tuple[int, ...],
                 domain: Domain, facts: FactIndex,
                 group_of: Callable[[str, tuple[int, ...]], dict],
                 budget: WorkBudget | None = None) -> Plan:
    """Compile `cf`'s condition for the given return fields and slots.

    `group_of(type, positions)` returns the table group a parameter lookup of that shape
    reads (see `inhabitation.Tables`); every row a run visits is paid from `budget`.
    """
    plan = Plan(cf, fixed_ret, fixed_slots, budget if budget is not None else WorkBudget())
    fixed_ret_set = set(fixed_ret)
    fixed_slot_set = set(fixed_slots)
    var_ids: dict[Var, int] = {}

    def vid(var: Var) -> int:
        if var not in var_ids:
            var_ids[var] = len(var_ids)
        return var_ids[var]

    def is_input(var: Var) -> bool:
        return var.field in fixed_ret_set if var.slot == 0 else var.slot in fixed_slot_set

    for j, f in enumerate(fixed_ret):
        plan.ret_inputs.append((vid(Var(0, f)), j))
    for slot in fixed_slots:
        for f in range(len(cf.slot_fields[slot])):
            plan.slot_inputs.append((vid(Var(slot, f)), slot, f))
    inputs = set(var_ids)

    def source(opd: Operand) -> tuple[bool, object]:
        return (False, opd.value) if isinstance(opd, Const) else (True, vid(opd))

    def free_vars(operands) -> list[Var]:
        return [o for o in operands if isinstance(o, Var) and not is_input(o)]

    conditions = []  # (kind, payload, free vars)
    for c in cf.comparisons:
        fv = free_vars((c.left, c.right))
        if fv:
            conditions.append(("cmp", (c.op, c.left, c.right), fv))
        else:
            plan.checks.append((c.op, *source(c.left), *source(c.right)))
    for p in cf.patterns:
        fv = free_vars(opd for _, opd in p.positions)
        if fv:
            conditions.append(("pat", (p.prop, p.positions), fv))
        else:
            positions = tuple(pos for pos, _ in p.positions)
            rows = facts.row_set(p.prop, positions)
            plan.fact_checks.append((rows, [source(opd) for _, opd in p.positions]))

    units: list[tuple[str, int]] = [("r", f) for f in range(len(cf.slot_fields[0]))
                                    if f not in fixed_ret_set]
    units += [("p", s) for s in range(1, cf.arity + 1) if s not in fixed_slot_set]

    def unit_of(var: Var) -> tuple[str, int]:
        return ("p", var.slot) if var.slot > 0 else ("r", var.field)

    uf = UnionFind(units)
    for _, _, fv in conditions:
        for var in fv[1:]:
            uf.union(unit_of(fv[0]), unit_of(var))
    groups: dict[tuple[str, int], list] = {}
    for u in units:
        groups.setdefault(uf.find(u), []).append(u)
    by_root: dict[tuple[str, int], list] = defaultdict(list)
    for condition in conditions:
        by_root[uf.find(unit_of(condition[2][0]))].append(condition)

    for root, comp_units in groups.items():
        plan.components.append(_compile_component(
            cf, comp_units, by_root.get(root, []), inputs, vid, source, domain, facts,
            group_of))
    plan.n_vars = len(var_ids)
    return plan


def _compile_component(cf, comp_units, conditions, inputs, vid, source, domain, facts,
                       group_of) -> _ComponentPlan:
    ret_fields = tuple(sorted(u[1] for u in comp_units if u[0] == "r"))
    param_slots = tuple(sorted(u[1] for u in comp_units if u[0] == "p"))

    generators: list[_Generator] = []
    for slot in param_slots:
        generators.append(_Generator(
            PARAM, [(i, Var(slot, i)) for i in range(len(cf.slot_fields[slot]))], slot, 0))
    for f in ret_fields:
        generators.append(_Generator(RET, [(0, Var(0, f))], f,
                                     len(domain.of(cf.slot_fields[0][f]))))
    comparisons = []
    for kind, payload, _ in conditions:
        if kind == "cmp":
            comparisons.append(payload)
        else:
            prop, positions = payload
            projected = tuple(pos for pos, _ in positions)
            generators.append(_Generator(
                FACT, [(j, opd) for j, (_, opd) in enumerate(positions)], (prop, projected),
                len(facts.projected(prop, projected))))

    # Which variables an equality ties to which operands: lets a generator be looked up by
    # a field it does not share directly with what is already bound.
    eq_links: dict[Var, list[Operand]] = defaultdict(list)
    for op, left, right in comparisons:
        if op == "=":
            if isinstance(left, Var):
                eq_links[left].append(right)
            if isinstance(right, Var):
                eq_links[right].append(left)

    bound: set[Var] = set(inputs)

    def known(opd: Operand) -> Operand | None:
        if isinstance(opd, Const) or opd in bound:
            return opd
        for other in eq_links.get(opd, ()):
            if isinstance(other, Const) or other in bound:
                return other
        return None

    def score(gen: _Generator):
        keyed = sum(1 for _, opd in gen.positions if known(opd) is not None)
        total = len(gen.positions)
        if keyed == total:
            # a lookup that only checks (or binds through =); aliases first
            return (0, -1 if gen.kind == RET else gen.kind, 0)
        if gen.kind == FACT:
            # Facts first: they bind fields (return fields included) from concrete rows,
            # so the parameter lookups after them are as narrow as possible.
            return (1, 0, gen.size) if keyed else (3, 0, gen.size)
        if gen.kind == PARAM:
            return (2, -keyed, 0) if keyed else (4, 0, 0)
        return (5, 0, gen.size)  # a free return field: enumerate the domain, last

    pending = list(comparisons)
    steps: list[_Step] = []
    remaining = list(generators)
    free_ret_vars = {Var(0, f) for f in ret_fields}
    prune_level = None
    if not free_ret_vars:
        prune_level = 0
    while remaining:
        # A return field a fact or a parameter already bound needs no generator.
        remaining = [g for g in remaining if not (g.kind == RET and g.positions[0][1] in bound)]
        if not remaining:
            break
        gen = min(remaining, key=score)
        remaining.remove(gen)
        key_positions, key_src, binds, intra = [], [], [], []
        newly: dict[Var, int] = {}
        implied = []
        for pos, opd in gen.positions:
            if isinstance(opd, Var) and opd in newly:
                intra.append((newly[opd], pos))
                continue
            src = known(opd)
            if src is not None:
                key_positions.append(pos)
                key_src.append(source(src))
                if src is not opd:
                    implied.append((opd, src))  # the lookup itself checks opd = src
            if isinstance(opd, Var) and opd not in bound:
                binds.append((pos, vid(opd)))
                newly[opd] = pos
        bound.update(newly)
        for opd, src in implied:
            for c in list(pending):
                if c[0] == "=" and ((c[1] == opd and c[2] == src) or
                                    (c[1] == src and c[2] == opd)):
                    pending.remove(c)
        filters = []
        for c in list(pending):
            op, left, right = c
            if all(not isinstance(o, Var) or o in bound for o in (left, right)):
                pending.remove(c)
                filters.append((op, *source(left), *source(right)))
        if gen.kind == PARAM:
            type_name = cf.slot_types[gen.source]  # type: ignore[index]
            spec = (type_name, tuple(key_positions))
            steps.append(_Step(PARAM, None, spec, group_of(*spec), key_src, binds, intra,
                               filters, gen.source))
        elif gen.kind == FACT:
            prop, projected = gen.source  # type: ignore[misc]
            index = facts.index(prop, projected, tuple(key_positions))
            steps.append(_Step(FACT, index, None, None, key_src, binds, intra, filters))
        elif key_positions:
            steps.append(_Step(ALIAS, None, None, None, key_src, binds, intra, filters))
        else:
            value_type = cf.slot_fields[0][gen.source]  # type: ignore[index]
            index = domain.index(value_type, False)
            steps.append(_Step(RET, index, None, None, key_src, binds, intra, filters))
        if prune_level is None and free_ret_vars <= bound:
            prune_level = len(steps)
    assert not pending, "every comparison mentions a bound variable by the last step"
    ret_ids = [vid(Var(0, f)) for f in ret_fields]
    slot_ids = [[vid(Var(s, i)) for i in range(len(cf.slot_fields[s]))] for s in param_slots]
    return _ComponentPlan(ret_fields, param_slots, steps, ret_ids, slot_ids,
                          prune_level if prune_level is not None else len(steps))


_SYMBOLS = {"=": "==", "!=": "!=", "<": "<", "<=": "<="}
#: runs of a plan (per mode) that are interpreted before its code is generated
_INTERPRETED_RUNS = 32
#: CPython allows 20 statically nested blocks; deeper plans are interpreted
_MAX_GENERATED_STEPS = 16


def _step_reads(step: _Step) -> set[int]:
    reads = {x for v, x in step.key_src if v}
    for _, lv, la, rv, ra in step.filters:
        if lv:
            reads.add(la)
        if rv:
            reads.add(ra)
    return reads


def _generate(plan: Plan, mode: int) -> Callable:
    """Compile a plan to a Python function: one nested loop per step, locals for fields.

    Same semantics as `Plan.interpret` (tests compare them), several times faster: no
    Python call or list indexing is left per candidate row, and fields nobody reads later
    are not stored.
    """
    if any(len(c.steps) > _MAX_GENERATED_STEPS for c in plan.components):
        return lambda rv, sm, lookup: plan.interpret(rv, sm, lookup, mode)
    env: dict[str, object] = {"CR": ComponentResult, "B": plan.budget, "NAME": plan.cf.name}
    consts: dict[int, str] = {}

    def const(value: object) -> str:
        name = consts.get(id(value))
        if name is None:
            name = consts[id(value)] = f"k{len(consts)}"
            env[name] = value
        return name

    def opd(is_var: bool, x: object) -> str:
        return f"v{x}" if is_var else const(x)

    def tup(items: list[str]) -> str:
        return "(" + "".join(f"{i}, " for i in items).rstrip(" ") + ")" if items else "()"

    def test(op: str, lv: bool, la: object, rv: bool, ra: object) -> str:
        return f"{opd(lv, la)} {_SYMBOLS[op]} {opd(rv, ra)}"

    out: list[str] = []

    def emit(depth: int, line: str) -> None:
        out.append("    " * depth + line)

    def emit_step(depth: int, level: int, step: _Step, needed: set[int]) -> int:
        """Emit one step; return the depth of its body. `needed`: vars read later."""
        key = tup([opd(v, x) for v, x in step.key_src])
        row = f"r{level}"
        if step.kind == ALIAS:
            for (pos, i), (v, x) in zip(step.binds, step.key_src):
                if i in needed or any(i in (la, ra) for _, _, la, _, ra in step.filters):
                    emit(depth, f"v{i} = {opd(v, x)}")
            if step.filters:
                emit(depth, "if " + " and ".join(test(*f) for f in step.filters) + ":")
                depth += 1
            return depth
        rows = f"t{level}"
        if step.kind == PARAM:
            group, spec = const(step.group), const(step.spec)
            emit(depth, f"q{level} = {key}")
            emit(depth, f"{rows} = {group}.get(q{level})")
            emit(depth, f"if {rows}.__class__ is not tuple: {rows} = lookup({group}, {spec}, q{level})")
        elif not step.key_src:
            emit(depth, f"{rows} = {const(step.index.get((), ()))}")
        else:
            emit(depth, f"{rows} = {const(step.index)}.get({key}, ())")
        # the work budget (see `budget`): pay for the rows before visiting them
        emit(depth, f"B.left -= len({rows})")
        emit(depth, "if B.left < 0: B.exhausted(NAME)")
        emit(depth, f"for {row} in {rows}:")
        depth += 1
        own = set()
        for _, lv, la, rv, ra in step.filters:
            own.update(x for v, x in ((lv, la), (rv, ra)) if v)
        for pos, i in step.binds:
            if i in needed or i in own:
                emit(depth, f"v{i} = {row}[{pos}]")
        for a, b in step.intra:
            emit(depth, f"if {row}[{a}] != {row}[{b}]: continue")
        for f in step.filters:
            emit(depth, f"if not ({test(*f)}): continue")
        return depth

    # Variables read after each step of each component (to skip dead stores).
    def reads_after(comp: _ComponentPlan) -> list[set[int]]:
        after = [set(comp.ret_ids)]
        for step in reversed(comp.steps):
            after.append(after[-1] | _step_reads(step))
        after.reverse()
        return after  # after[l]: read by steps l.. (and the output)

    all_reads: set[int] = set()
    for op, lv, la, rv, ra in plan.checks:
        all_reads.update(x for v, x in ((lv, la), (rv, ra)) if v)
    for _, key_src in plan.fact_checks:
        all_reads.update(x for v, x in key_src if v)
    for comp in plan.components:
        all_reads |= reads_after(comp)[0]

    exists_defs: list[list[str]] = []
    emit(0, "def run(rv, sm, lookup):")
    for i, j in plan.ret_inputs:
        if i in all_reads:
            emit(1, f"v{i} = rv[{j}]")
    for i, slot, f in plan.slot_inputs:
        if i in all_reads:
            emit(1, f"v{i} = sm[{slot}][{f}]")
    for check in plan.checks:
        emit(1, f"if not ({test(*check)}): return None")
    for rows, key_src in plan.fact_checks:
        emit(1, f"if {tup([opd(v, x) for v, x in key_src])} not in {const(rows)}: return None")
    emit(1, "res = []")
    for ci, comp in enumerate(plan.components):
        after = reads_after(comp)
        ret_vals = tup([f"v{i}" for i in comp.ret_ids])
        # the step producing each free parameter slot: its row is the slot's metadata
        producer = {step.slot: level for level, step in enumerate(comp.steps)
                    if step.kind == PARAM}
        metas = tup([f"r{producer[slot]}" for slot in comp.param_slots])
        if mode == FULL:
            emit(1, "sol = []")
            depth = 1
            for level, step in enumerate(comp.steps):
                depth = emit_step(depth, level, step, after[level + 1])
            emit(depth, f"sol.append(({ret_vals}, {metas}))")
            emit(1, "if not sol: return None")
            emit(1, f"res.append(CR({const(comp.ret_fields)}, {const(comp.param_slots)}, sol))")
            continue
        emit(1, "keys = {}")
        depth = 1
        prune = comp.prune_level
        bound_before = {i for i, _ in plan.ret_inputs} | {i for i, _, _ in plan.slot_inputs}
        for level, step in enumerate(comp.steps[:prune]):
            depth = emit_step(depth, level, step, after[level + 1])
            bound_before.update(i for _, i in step.binds)
        emit(depth, f"key = {ret_vals}")
        if prune == len(comp.steps):
            emit(depth, "keys[key] = None")
        else:
            later = set()
            for step in comp.steps[prune:]:
                later |= _step_reads(step)
            arglist = "".join(f", v{i}" for i in sorted(bound_before & later))
            emit(depth, f"if key not in keys and exists{ci}(lookup{arglist}): keys[key] = None")
            mark = len(out)
            emit(0, f"def exists{ci}(lookup{arglist}):")
            d = 1
            for level, step in enumerate(comp.steps[prune:], prune):
                d = emit_step(d, level, step, after[level + 1])
            emit(d, "return True")
            emit(1, "return False")
            exists_defs.append(out[mark:])
            del out[mark:]
        emit(1, "if not keys: return None")
        emit(1, f"res.append(CR({const(comp.ret_fields)}, {const(comp.param_slots)}, None, keys))")
    emit(1, "return res")
    source = "\n".join(line for block in exists_defs for line in block) + "\n" + "\n".join(out)
    code = compile(source, f"<plan {plan.cf.name} ret={plan.fixed_ret} "
                           f"slots={plan.fixed_slots} mode={mode}>", "exec")
    exec(code, env)
    run = env["run"]
    run.source = source  # type: ignore[attr-defined]
    return run  # type: ignore[return-value]
