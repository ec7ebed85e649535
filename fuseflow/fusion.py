"""Legal fusion groupings: partitions of the op graph into fused regions.

A grouping is legal when every region
  * is weakly connected in the op graph,
  * is convex: no path leaves the region and comes back into it,
  * unifies: fusing does not identify two different index variables of one op,
and the regions, contracted, still form an acyclic graph (so they can run one after another).
"""

from __future__ import annotations

from collections.abc import Iterator

import networkx as nx

from fuseflow.ir import Program, UnificationError, unify_region

Grouping = tuple[tuple[str, ...], ...]


def region_problem(program: Program, group: tuple[str, ...] | list[str]) -> str | None:
    """Why a set of ops cannot be one fused region, or None when it can."""
    cache = program.memo.setdefault("region_problems", {})
    key = frozenset(group)
    if key not in cache:
        cache[key] = _region_problem(program, group)
    return cache[key]


def _region_problem(program: Program, group: tuple[str, ...] | list[str]) -> str | None:
    members = set(group)
    unknown = members - set(program.op_by_name)
    if unknown:
        return f"unknown op(s) {', '.join(sorted(unknown))}"
    if not members:
        return "a region must hold at least one op"
    sub = program.graph.subgraph(members)
    if not nx.is_weakly_connected(sub):
        return f"ops {sorted(members)} are not connected"
    # Convex: no node outside the group lies on a path between two members.
    outside_reachable = set()
    for node in members:
        for succ in program.graph.successors(node):
            if succ not in members:
                outside_reachable |= {succ} | nx.descendants(program.graph, succ)
    if outside_reachable & members:
        return f"ops {sorted(members)} are not convex: a path leaves the region and re-enters it"
    try:
        region = unify_region(program, tuple(group))
    except UnificationError as exc:
        return str(exc)
    return _second_pass_problem(program, region, sub)


def _second_pass_problem(program: Program, region, sub: nx.DiGraph) -> str | None:
    """A single streaming pass cannot use a reduction's result inside that reduction's own loop
    (softmax's `exp(S(i,j) - max_j S(i,j))`): the consumer would need a second pass over j."""
    for consumer in region.ops:
        used = region.op_region_vars(consumer)
        for producer in nx.ancestors(sub, consumer):
            op = program.op_by_name[producer]
            reduced = {region.op_vars[producer][v] for v in op.reduction_vars}
            clash = sorted(used & reduced)
            if clash:
                return (f"op {consumer!r} iterates {', '.join(clash)}, which op {producer!r} reduces over; "
                        f"using a reduction inside its own loop needs a second pass")
    return None


def grouping_problem(program: Program, grouping) -> str | None:
    """Why a grouping is illegal, or None when it is legal."""
    seen: dict[str, int] = {}
    for index, group in enumerate(grouping):
        for op in group:
            if op not in program.op_by_name:
                return f"unknown op {op!r} in group {index}"
            if op in seen:
                return f"op {op!r} appears in groups {seen[op]} and {index}"
            seen[op] = index
    missing = [op.name for op in program.ops if op.name not in seen]
    if missing:
        return f"op(s) {', '.join(missing)} belong to no group"
    for index, group in enumerate(grouping):
        problem = region_problem(program, tuple(group))
        if problem:
            return f"group {index}: {problem}"
    return cyclic_groups_problem(program, grouping)


def canonical(program: Program, grouping) -> Grouping:
    """Groups with ops in program order, groups ordered by their first op."""
    index = {op.name: i for i, op in enumerate(program.ops)}
    groups = [tuple(sorted(group, key=index.__getitem__)) for group in grouping]
    return tuple(sorted(groups, key=lambda g: index[g[0]]))


def legal_groupings(program: Program) -> Iterator[Grouping]:
    """Every legal grouping, each once, in canonical form."""
    names = [op.name for op in program.ops]

    def extend(remaining: tuple[str, ...], groups: list[tuple[str, ...]]) -> Iterator[Grouping]:
        if not remaining:
            grouping = tuple(groups)
            if cyclic_groups_problem(program, grouping) is None:
                yield grouping
            return
        first, rest = remaining[0], remaining[1:]
        # The group holding the first remaining op: that op plus any subset of the rest.
        for mask in range(1 << len(rest)):
            group = (first,) + tuple(op for bit, op in enumerate(rest) if mask >> bit & 1)
            if region_problem(program, group) is None:
                left = tuple(op for op in rest if op not in group)
                yield from extend(left, groups + [group])

    yield from extend(tuple(names), [])


def cyclic_groups_problem(program: Program, grouping) -> str | None:
    """Regions must run one after another: the contracted op graph must stay acyclic."""
    where = {op: i for i, group in enumerate(grouping) for op in group}
    quotient = nx.DiGraph()
    quotient.add_nodes_from(range(len(grouping)))
    quotient.add_edges_from((where[a], where[b]) for a, b in program.graph.edges if where[a] != where[b])
    if nx.is_directed_acyclic_graph(quotient):
        return None
    return "the groups depend on each other in a cycle, so no region can run first"


def count_groupings(program: Program) -> int:
    return sum(1 for _ in legal_groupings(program))


def unfused(program: Program) -> Grouping:
    return tuple((op.name,) for op in program.ops)


def fully_fused(program: Program) -> Grouping | None:
    """All ops in one region, or None when that region is illegal."""
    group = tuple(op.name for op in program.ops)
    return (group,) if region_problem(program, group) is None else None
