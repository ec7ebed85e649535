"""Solve one function's condition: which metadata can its slots take?

Some slots are fixed (their metadata is known), the rest are free. A free parameter takes a
metadata tuple from a candidate list (the inhabited values of its type); a free return
field takes a value from the domain. Conditions are a conjunctive query over these, solved
as a join: generators (parameter candidates, fact rows, domain values) are ordered greedily
so that each one is looked up through a hash index on the fields already known, and every
comparison is checked as soon as its fields are bound.

Free slots that no condition links are independent, so the query splits into connected
components solved separately. This keeps `f(a: A, b: B)` with unrelated `a` and `b` from
materialising the product of their candidates, and is what lets counts factorise.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Callable, Mapping, Sequence

from navigator.synth.compiled import (
    CompiledFunction,
    Const,
    FactIndex,
    Meta,
    Operand,
    Var,
    compare,
)
from navigator.synth.domain import Domain


@dataclass
class ComponentResult:
    """Solutions of one connected component of free slots.

    `ret_fields` are the free return fields in the component and `param_slots` the free
    parameter slots, both sorted. A solution is `(ret_key, metas)`: the values of the
    return fields, and one metadata tuple per parameter slot. In projection mode only the
    set of distinct `ret_key`s is kept (`keys`).
    """

    ret_fields: tuple[int, ...]
    param_slots: tuple[int, ...]
    solutions: list[tuple[tuple, tuple[Meta, ...]]] = field(default_factory=list)
    keys: set[tuple] = field(default_factory=set)


@dataclass
class _Generator:
    kind: str  # "param" | "ret" | "pattern"
    positions: list[tuple[int, Operand]]
    rows: Sequence[tuple]


@dataclass
class _Step:
    index: dict[tuple, list[tuple]]
    key_spec: list[tuple[bool, object]]  # (is_var, var id or constant)
    binds: list[tuple[int, int]]  # (row position, var id)
    intra: list[tuple[int, int]]  # row positions that must hold equal values
    filters: list[tuple[str, bool, object, bool, object]]


class _UnionFind:
    def __init__(self, items):
        self.parent = {item: item for item in items}

    def find(self, item):
        while self.parent[item] != item:
            self.parent[item] = self.parent[self.parent[item]]
            item = self.parent[item]
        return item

    def union(self, a, b):
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[rb] = ra


def solve(cf: CompiledFunction, fixed: Mapping[int, Meta],
          candidates: Callable[[int], Sequence[Meta]], domain: Domain, facts: FactIndex,
          *, project: bool = False) -> list[ComponentResult] | None:
    """Solve `cf`'s condition with `fixed` slots given; None if it has no solution.

    An empty list means every slot is fixed and the condition holds.
    """

    def resolve(opd: Operand) -> Operand:
        if isinstance(opd, Var) and opd.slot in fixed:
            return Const(fixed[opd.slot][opd.field])
        return opd

    comparisons = []
    for c in cf.comparisons:
        left, right = resolve(c.left), resolve(c.right)
        if isinstance(left, Const) and isinstance(right, Const):
            if not compare(c.op, left.value, right.value):
                return None
        else:
            comparisons.append((c.op, left, right))
    patterns = []
    for p in cf.patterns:
        positions = tuple((pos, resolve(opd)) for pos, opd in p.positions)
        if all(isinstance(opd, Const) for _, opd in positions):
            if not any(all(row[pos] == opd.value for pos, opd in positions)  # type: ignore[union-attr]
                       for row in facts.rows(p.prop)):
                return None
        else:
            patterns.append((p.prop, positions))

    units: list[tuple[str, int]] = []
    if 0 not in fixed:
        units += [("r", f) for f in range(len(cf.slot_fields[0]))]
    units += [("p", s) for s in range(1, cf.arity + 1) if s not in fixed]
    if not units:
        return []

    def unit_of(var: Var) -> tuple[str, int]:
        return ("p", var.slot) if var.slot > 0 else ("r", var.field)

    def vars_of(operands) -> list[Var]:
        return [o for o in operands if isinstance(o, Var)]

    uf = _UnionFind(units)
    conditions = [("cmp", c, vars_of(c[1:])) for c in comparisons]
    conditions += [("pat", p, vars_of(opd for _, opd in p[1])) for p in patterns]
    for _, _, cvars in conditions:
        for var in cvars[1:]:
            uf.union(unit_of(cvars[0]), unit_of(var))

    groups: dict[tuple[str, int], list] = {}
    for u in units:
        groups.setdefault(uf.find(u), [])
    by_root_conditions: dict[tuple[str, int], list] = defaultdict(list)
    for condition in conditions:
        by_root_conditions[uf.find(unit_of(condition[2][0]))].append(condition)
    for u in units:
        groups[uf.find(u)].append(u)

    results = []
    for root, comp_units in groups.items():
        result = _solve_component(cf, comp_units, by_root_conditions.get(root, []), candidates,
                                  domain, facts, project)
        if not (result.keys if project else result.solutions):
            return None  # one component without solutions sinks the whole condition
        results.append(result)
    return results


def _solve_component(cf, comp_units, conditions, candidates, domain, facts, project):
    ret_fields = tuple(sorted(u[1] for u in comp_units if u[0] == "r"))
    param_slots = tuple(sorted(u[1] for u in comp_units if u[0] == "p"))
    result = ComponentResult(ret_fields, param_slots)

    generators: list[_Generator] = []
    for slot in param_slots:
        generators.append(_Generator(
            "param", [(i, Var(slot, i)) for i in range(len(cf.slot_fields[slot]))],
            candidates(slot)))
    for f in ret_fields:
        generators.append(_Generator(
            "ret", [(0, Var(0, f))], [(v,) for v in domain.of(cf.slot_fields[0][f])]))
    comparisons = []
    for kind, payload, _ in conditions:
        if kind == "cmp":
            comparisons.append(payload)
        else:
            prop, positions = payload
            rows = facts.projected(prop, tuple(pos for pos, _ in positions))
            generators.append(_Generator(
                "pattern", [(j, opd) for j, (_, opd) in enumerate(positions)], rows))

    # Which variables an equality ties to which operands: lets a generator be looked up by
    # a field it does not share directly with what is already bound.
    eq_links: dict[Var, list[Operand]] = defaultdict(list)
    for op, left, right in comparisons:
        if op == "=":
            if isinstance(left, Var):
                eq_links[left].append(right)
            if isinstance(right, Var):
                eq_links[right].append(left)

    var_ids: dict[Var, int] = {}

    def vid(var: Var) -> int:
        if var not in var_ids:
            var_ids[var] = len(var_ids)
        return var_ids[var]

    bound: set[Var] = set()

    def known(opd: Operand) -> Operand | None:
        if isinstance(opd, Const) or opd in bound:
            return opd
        for other in eq_links.get(opd, ()):
            if isinstance(other, Const) or other in bound:
                return other
        return None

    def score(gen: _Generator):
        keyed = sum(1 for _, opd in gen.positions if known(opd) is not None)
        if keyed == len(gen.positions):
            priority = 0
        elif keyed:
            priority = 1
        else:
            priority = 3 if gen.kind == "ret" else 2
        return (priority, len(gen.rows))

    def source(opd: Operand) -> tuple[bool, object]:
        return (False, opd.value) if isinstance(opd, Const) else (True, vid(opd))

    pending = list(comparisons)
    steps: list[_Step] = []
    remaining = list(generators)
    while remaining:
        gen = min(remaining, key=score)
        remaining.remove(gen)
        key_positions, key_spec, binds, intra = [], [], [], []
        newly: dict[Var, int] = {}
        for pos, opd in gen.positions:
            if isinstance(opd, Var) and opd in newly:
                intra.append((newly[opd], pos))
                continue
            src = known(opd)
            if src is not None:
                key_positions.append(pos)
                key_spec.append(source(src))
            if isinstance(opd, Var) and opd not in bound:
                binds.append((pos, vid(opd)))
                newly[opd] = pos
        bound.update(newly)
        filters = []
        for c in list(pending):
            op, left, right = c
            if all(not isinstance(o, Var) or o in bound for o in (left, right)):
                pending.remove(c)
                filters.append((op, *source(left), *source(right)))
        index: dict[tuple, list[tuple]] = defaultdict(list)
        for row in gen.rows:
            index[tuple(row[p] for p in key_positions)].append(row)
        steps.append(_Step(dict(index), key_spec, binds, intra, filters))

    values: list = [None] * len(var_ids)
    ret_ids = [var_ids[Var(0, f)] for f in ret_fields]
    slot_ids = [[var_ids[Var(s, i)] for i in range(len(cf.slot_fields[s]))] for s in param_slots]
    stop_at_first = project and not ret_fields
    depth = len(steps)

    def emit() -> bool:
        if project:
            result.keys.add(tuple(values[i] for i in ret_ids))
            return stop_at_first
        result.solutions.append((tuple(values[i] for i in ret_ids),
                                 tuple(tuple(values[i] for i in ids) for ids in slot_ids)))
        return False

    def run(level: int) -> bool:
        if level == depth:
            return emit()
        step = steps[level]
        key = tuple(values[x] if is_var else x for is_var, x in step.key_spec)
        for row in step.index.get(key, ()):
            for pos, i in step.binds:
                values[i] = row[pos]
            if any(row[a] != row[b] for a, b in step.intra):
                continue
            ok = True
            for op, lv, la, rv, ra in step.filters:
                if not compare(op, values[la] if lv else la, values[ra] if rv else ra):
                    ok = False
                    break
            if ok and run(level + 1):
                return True
        return False

    run(0)
    return result
