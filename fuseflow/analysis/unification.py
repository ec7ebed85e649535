"""Region unification: a group of ops fused into one region, with one set of loop variables.

`unify_region` merges the index variables along every producer/consumer edge inside the
group and names the region's variables; `unify_grow` keeps only the variable classes, grown
op by op, for the fusion analyses that examine thousands of groups; `orders_exist` says
whether the classes can be ordered. `region_signature` says when two groups compute the same
thing up to names, so that analyses of one serve the other.
"""

from __future__ import annotations

from dataclasses import dataclass

from fuseflow.program.expr import rename_tensors
from fuseflow.program.ir import Operand, Program, Region
from fuseflow.support.memo import named_memo


def region_signature(program: Program, ops) -> tuple:
    """What a group of ops computes, up to the names of its ops and tensors: each op's statement
    (in program order) with tensors renamed by first appearance, its reduction, and each
    tensor's formats and dimensions. Two groups with one signature unify, order and lower
    alike (a deep model's repeated blocks give the same regions again), so analyses that read
    only the ops' statements may be shared between them."""
    canonical: dict[str, str] = {}

    def name_of(tensor: str) -> str:
        return canonical.setdefault(tensor, f"t{len(canonical)}")

    position = program.op_position
    statements = []
    for name in sorted(set(ops), key=position.__getitem__):
        op = program.op_by_name[name]
        expr = rename_tensors(op.expr, name_of)  # inputs first, as they are read
        statements.append((str(rename_tensors(op.output, name_of)), str(expr), op.reduce))
    tensors = tuple((program.tensors[t].formats, program.tensors[t].dims) for t in canonical)
    return tuple(statements), tensors


class UnificationError(ValueError):
    """Fusing these ops would identify two different index variables of one op."""


def unify_region(program: Program, ops: list[str] | tuple[str, ...]) -> Region:
    """Merge index variables along producer/consumer edges inside the group of ops."""
    cache = named_memo(program.memo, "regions")
    key = frozenset(ops)
    if key not in cache:
        try:
            cache[key] = _unify_region(program, ops)
        except UnificationError as exc:
            cache[key] = exc
    if isinstance(cache[key], UnificationError):
        raise cache[key]
    return cache[key]


@dataclass(frozen=True)
class _UnifyPlan:
    """A program's op graph as small ints for unification: op i's variables are the ids
    base[i] .. base[i] + len(op.vars) - 1, and every producer/consumer edge is a list of id pairs
    to merge, so unifying a group is a union-find over ints (it runs on thousands of groups)."""

    base: tuple[int, ...]
    edges: tuple[tuple[tuple[int, tuple[tuple[int, int], ...]], ...], ...]  # op i: (producer j, pairs)
    dims: tuple[tuple[str, ...], ...]        # op i: the dimension of each of its variables
    consumers: tuple[int, ...]               # op i: a bit mask of the ops that read its output
    touching: tuple[tuple[tuple[int, tuple[tuple[int, int], ...]], ...], ...]  # op i: edges at either end
    op_of: tuple[int, ...]                   # variable id -> its op
    reduced: tuple[tuple[int, ...], ...]     # op i: the ids of its reduction variables
    #: op i: (producer position, or -1 for a program input; the ids of its variables per storage
    #: level) for each tensor it reads that has a compressed level: read from memory, such a
    #: tensor orders its levels' variables (fuseflow.analysis.orders.precedence_pairs)
    ordered_reads: tuple[tuple[tuple[int, tuple[int, ...]], ...], ...]


def _unify_plan(program: Program) -> _UnifyPlan:
    plan = program.memo.get("unify_plan")
    if plan is None:
        position = program.op_position
        base, count = [], 0
        for op in program.ops:
            base.append(count)
            count += len(op.vars)
        edges, consumers = [], [0] * len(program.ops)
        for i, op in enumerate(program.ops):
            own = []
            for access in op.inputs:
                source = program.producer.get(access.tensor)
                if source is None:
                    continue
                j = position[source]
                producer = program.ops[j]
                pairs = tuple((base[j] + producer.vars.index(p), base[i] + op.vars.index(c))
                              for p, c in zip(producer.output_vars, access.indices))
                own.append((j, pairs))
                consumers[j] |= 1 << i
            edges.append(tuple(own))
        dims = tuple(tuple(program.var_dim(op, v) for v in op.vars) for op in program.ops)
        touching: list[list] = [list(own) for own in edges]
        for i, own in enumerate(edges):
            for j, pairs in own:
                if j != i:
                    touching[j].append((i, pairs))
        op_of = tuple(i for i, op in enumerate(program.ops) for _ in op.vars)
        reduced = tuple(tuple(base[i] + op.vars.index(v) for v in op.reduction_vars)
                        for i, op in enumerate(program.ops))
        ordered_reads = tuple(
            tuple((position.get(program.producer.get(access.tensor), -1),
                   tuple(base[i] + op.vars.index(v) for v in access.indices))
                  for access in op.inputs if "compressed" in program.tensors[access.tensor].formats)
            for i, op in enumerate(program.ops))
        plan = program.memo["unify_plan"] = _UnifyPlan(tuple(base), tuple(edges), dims, tuple(consumers),
                                                       tuple(map(tuple, touching)), op_of, reduced,
                                                       ordered_reads)
    return plan


@dataclass(frozen=True)
class Unification:
    """The variable classes of a group of ops (a bit mask over program positions), without the
    Region's names: enough to decide legality, and grown from a smaller group's in the time of
    the ops added (fuseflow.analysis.fusion_steps examines thousands of regions, each a few ops more than
    one examined before). Classes are union-find roots over the plan's variable ids; a root
    missing from `users` is a class of one variable."""

    mask: int
    parent: dict[int, int]
    users: dict[int, int]        # root -> mask of the ops with a variable in the class
    reducers: dict[int, int]     # root -> mask of the ops reducing over the class (if any)
    count: int                   # number of classes: the region's loop variables


def orders_exist(program: Program, unification: Unification) -> bool:
    """Whether some loop order of the group's variable classes reads every sparse tensor it
    takes from memory concordantly (fuseflow.analysis.orders: no legal order when two such reads, or one
    read and a class merged across its levels, ask for opposite orders)."""
    plan = _unify_plan(program)
    parent = unification.parent
    mask = unification.mask

    def root(var: int) -> int:
        while var in parent:
            var = parent[var]
        return var

    after: dict[int, set[int]] = {}
    rest = mask
    while rest:
        low = rest & -rest
        rest ^= low
        for producer, ids in plan.ordered_reads[low.bit_length() - 1]:
            if producer >= 0 and mask >> producer & 1:
                continue  # made inside the group: streamed, not read from memory
            roots = [root(v) for v in ids]
            for outer, inner in zip(roots, roots[1:]):
                after.setdefault(outer, set()).add(inner)
    # a cycle among the classes (or a class before itself) leaves no order
    state: dict[int, int] = {}
    for start in after:
        if start in state:
            continue
        stack = [(start, iter(after.get(start, ())))]
        state[start] = 1
        while stack:
            node, children = stack[-1]
            child = next(children, None)
            if child is None:
                state[node] = 2
                stack.pop()
            elif state.get(child) == 1:
                return False
            elif child not in state:
                state[child] = 1
                stack.append((child, iter(after.get(child, ()))))
    return True


def unify_grow(program: Program, mask: int, smaller: Unification | None = None) -> Unification | None:
    """The unification of the ops in `mask`, grown from that of a subset of them; None when it
    merges two variables of one op (as unify_region raises UnificationError)."""
    plan = _unify_plan(program)
    if smaller is None:
        parent, users, reducers, count, old = {}, {}, {}, 0, 0
    else:
        parent, users, reducers = dict(smaller.parent), dict(smaller.users), dict(smaller.reducers)
        count, old = smaller.count, smaller.mask
    op_of = plan.op_of
    added = mask & ~old
    rest = added
    while rest:
        low = rest & -rest
        rest ^= low
        i = low.bit_length() - 1
        count += len(program.ops[i].vars)
        for var in plan.reduced[i]:
            reducers[var] = low
    rest = added
    while rest:
        low = rest & -rest
        rest ^= low
        for j, pairs in plan.touching[low.bit_length() - 1]:
            if not mask >> j & 1:
                continue
            for produced, consumed in pairs:
                a = produced
                while a in parent:
                    a = parent[a]
                b = consumed
                while b in parent:
                    b = parent[b]
                if produced != a:
                    parent[produced] = a
                if consumed != b:
                    parent[consumed] = b
                if a == b:
                    continue
                users_a = users.pop(a, None) or 1 << op_of[a]
                users_b = users.get(b) or 1 << op_of[b]
                if users_a & users_b:  # some op has a variable on each side
                    return None
                parent[a] = b
                users[b] = users_a | users_b
                reduced = reducers.pop(a, 0)
                if reduced:
                    reducers[b] = reducers.get(b, 0) | reduced
                count -= 1
    return Unification(mask, parent, users, reducers, count)


def _unify_region(program: Program, ops: list[str] | tuple[str, ...]) -> Region:
    position = program.op_position
    members = sorted({position[name] for name in ops if name in position})
    plan = _unify_plan(program)
    mask = 0
    for i in members:
        mask |= 1 << i
    parent: dict[int, int] = {}  # union-find over variable ids; an id not in it is a root

    def find(x: int) -> int:
        root = x
        while root in parent:
            root = parent[root]
        while x != root:  # path compression
            parent[x], x = root, parent[x]
        return root

    for i in members:
        for j, pairs in plan.edges[i]:
            if mask >> j & 1:
                for produced, consumed in pairs:
                    a, b = find(produced), find(consumed)
                    if a != b:
                        parent[a] = b
    # One op's distinct variables must stay distinct, or fusion changed the computation.
    roots: list[list[int]] = []
    for i in members:
        first = plan.base[i]
        own = [find(x) for x in range(first, first + len(program.ops[i].vars))]
        if len(set(own)) != len(own):
            raise UnificationError(
                f"fusing would merge two index variables of op {program.ops[i].name!r} "
                f"(it reads a fused intermediate at two different index points)")
        roots.append(own)

    names: dict[int, str] = {}
    used: set[str] = set()
    region_vars: list[str] = []
    op_vars: dict[str, dict[str, str]] = {}
    var_dims: dict[str, str] = {}
    for i, own in zip(members, roots):
        op = program.ops[i]
        mapping: dict[str, str] = {}
        for var, root, dim in zip(op.vars, own, plan.dims[i]):
            if root not in names:
                candidate, suffix = var, 1
                while candidate in used:
                    suffix += 1
                    candidate = f"{var}{suffix}"
                names[root] = candidate
                used.add(candidate)
                region_vars.append(candidate)
                var_dims[candidate] = dim
            mapping[var] = names[root]
        op_vars[op.name] = mapping

    operands: list[Operand] = []
    seen_operands: set[tuple[str, tuple[str, ...]]] = set()
    results: list[Operand] = []
    for i in members:
        op = program.ops[i]
        mapping = op_vars[op.name]
        for access in op.inputs:
            source = program.producer.get(access.tensor)
            if source is not None and mask >> position[source] & 1:
                continue
            vars_ = tuple(mapping[v] for v in access.indices)
            if (access.tensor, vars_) not in seen_operands:
                seen_operands.add((access.tensor, vars_))
                operands.append(Operand(access.tensor, vars_, program.tensors[access.tensor].formats))
    for i in members:
        consumers = plan.consumers[i]
        if not consumers or consumers & ~mask:
            op = program.ops[i]
            results.append(Operand(op.output.tensor, tuple(op_vars[op.name][v] for v in op.output_vars),
                                   program.tensors[op.output.tensor].formats))
    return Region(tuple(program.ops[i].name for i in members), tuple(region_vars), var_dims, op_vars,
                  tuple(operands), tuple(results))
