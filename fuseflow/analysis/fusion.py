"""Legal fusion groupings: partitions of the op graph into fused regions.

A grouping is legal when every region
  * is weakly connected in the op graph,
  * is convex: no path leaves the region and comes back into it,
  * unifies: fusing does not identify two different index variables of one op,
  * has at most ir.MAX_VARS loop variables, so its orders can be counted,
  * has some legal loop order (its sparse operands read from memory do not ask for opposite
    orders of two variables),
and the regions, contracted, still form an acyclic graph (so they can run one after another).

The number of groupings can double with every op, so enumerating them spends from two
budgets (MAX_GROUPINGS, MAX_FUSION_STEPS) and stops with a ResourceError past either.
"""

from __future__ import annotations

from collections.abc import Iterator

from fuseflow.support.work_budget import StepBudget
from fuseflow.program.ir import MAX_VARS, Program
from fuseflow.analysis.unification import Unification, UnificationError, orders_exist, unify_region
from fuseflow.analysis.orders import OrderSpace
from fuseflow.support.memo import named_memo
from fuseflow.analysis.op_masks import OpMasks, bits, mask_of, op_masks

Grouping = tuple[tuple[str, ...], ...]

#: Legal groupings one program may have; the bundled programs have at most a few hundred.
MAX_GROUPINGS = 10_000
#: Work while enumerating them, in ops touched: by each candidate region built and examined,
#: and by each grouping checked for cycles. About a microsecond each.
MAX_FUSION_STEPS = 2_000_000
_FUSION_FIX = ("split the program into smaller programs: the fusion groupings grow exponentially "
               "with the number of ops that can fuse")


def region_problem(program: Program, group: tuple[str, ...] | list[str]) -> str | None:
    """Why a set of ops cannot be one fused region, or None when it can."""
    cache = named_memo(program.memo, "region_problems")
    key = frozenset(group)
    if key not in cache:
        cache[key] = _region_problem(program, group)
    return cache[key]


def _region_problem(program: Program, group: tuple[str, ...] | list[str]) -> str | None:
    members = set(group)
    unknown = {m for m in members if m not in program.op_by_name}
    if unknown:
        return f"unknown op(s) {', '.join(sorted(unknown))}"
    if not members:
        return "a region must hold at least one op"
    masks = op_masks(program)
    mask = mask_of(program, members)
    if not masks.is_connected(mask):
        return f"ops {sorted(members)} are not connected"
    if masks.convex_closure(mask) != mask:
        return f"ops {sorted(members)} are not convex: a path leaves the region and re-enters it"
    try:
        region = unify_region(program, tuple(group))
    except UnificationError as exc:
        return str(exc)
    if len(region.vars) > MAX_VARS:
        return (f"the region would have {len(region.vars)} loop variables, more than the {MAX_VARS} "
                f"a region may have")
    if OrderSpace.of_region(region).count() == 0:
        return ("no loop order reads every sparse operand of the region in its storage order (two "
                "of its reads ask for opposite orders)")
    return _second_pass_problem(program, region, masks, mask)


def region_cannot_grow(program: Program, group: tuple[str, ...] | list[str]) -> bool:
    """True when no set of ops holding `group` can be a region: unification already merges two
    variables of one op, and adding ops only adds merges (fuseflow.analysis.fusion_count prunes with it)."""
    try:
        unify_region(program, tuple(group))
    except UnificationError:
        return True
    return False


def grown_region_legal(program: Program, unification: Unification) -> bool:
    """Whether a connected, convex group of ops is a legal region (region_problem is None for
    it), from its unification alone: fuseflow.analysis.fusion_steps grows only such groups, thousands of
    them, and building each Region would dominate. The same rules as region_problem's last
    ones: at most MAX_VARS loop variables, some legal loop order (unification.orders_exist), and no
    variable that an op reduces over is used by an op downstream of it (the single-pass rule of
    _second_pass_problem, per variable class)."""
    if unification.count > MAX_VARS or not orders_exist(program, unification):
        return False
    desc = op_masks(program).desc
    for root, reducers in unification.reducers.items():
        users = unification.users.get(root)
        if users is None:
            continue
        below = 0
        for p in bits(reducers):
            below |= desc[p]
        if below & users:
            return False
    return True


def _second_pass_problem(program: Program, region, masks: OpMasks, mask: int) -> str | None:
    """A single streaming pass cannot use a reduction's result inside that reduction's own loop
    (softmax's `exp(S(i,j) - max_j S(i,j))`): the consumer would need a second pass over j."""
    names = [op.name for op in program.ops]
    position = program.op_position
    # Variables reduced by some op upstream of each op, in one pass in program order.
    reduced_above: dict[str, set[str]] = {}
    for name in region.ops:
        above: set[str] = set()
        for i in bits(masks.pred[position[name]] & mask):
            pred = names[i]
            above |= reduced_above[pred]
            above |= {region.op_vars[pred][v] for v in program.op_by_name[pred].reduction_vars}
        reduced_above[name] = above
    for consumer in region.ops:
        used = region.op_region_vars(consumer)
        if not used & reduced_above[consumer]:
            continue
        for producer in (names[i] for i in bits(masks.anc[position[consumer]] & mask)):
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
    """Every legal grouping, each once, in canonical form.

    Depth first: the group holding the first remaining op (each connected candidate, in the
    order of its bit mask over the remaining ops), then the groupings of the ops left. An
    explicit stack, as a grouping of a long program nests as deep as it has regions."""
    where = program.path or program.name
    found = StepBudget(MAX_GROUPINGS, "legal fusion groupings", where, _FUSION_FIX)
    steps = StepBudget(MAX_FUSION_STEPS, "steps enumerating fusion groupings", where, _FUSION_FIX)
    graph = program.graph
    neighbours = {n: set(graph.predecessors(n)) | set(graph.successors(n)) for n in graph.nodes}

    def choices(remaining: tuple[str, ...]) -> Iterator[tuple[tuple[str, ...], tuple[str, ...]]]:
        """(legal group holding remaining[0], the ops left) pairs."""
        first, rest = remaining[0], remaining[1:]
        bit = {op: 1 << index for index, op in enumerate(rest)}
        for members in sorted(_connected_sets(first, set(rest), neighbours, steps),
                              key=lambda m: sum(bit[op] for op in m if op != first)):
            group = (first,) + tuple(op for op in rest if op in members)
            steps.spend(len(group))
            if region_problem(program, group) is None:
                yield group, tuple(op for op in rest if op not in members)

    stack = [(choices(tuple(op.name for op in program.ops)), [])]
    while stack:
        pending, groups = stack[-1]
        choice = next(pending, None)
        if choice is None:
            stack.pop()
            continue
        group, left = choice
        if left:
            stack.append((choices(left), groups + [group]))
            continue
        grouping = tuple(groups + [group])
        steps.spend(len(program.ops))
        if cyclic_groups_problem(program, grouping) is None:
            found.spend()
            yield grouping


def _connected_sets(first: str, allowed: set[str], neighbours: dict[str, set[str]],
                    steps: StepBudget) -> list[frozenset[str]]:
    """Every set of ops holding `first` and some of `allowed` that is connected in the op graph
    (edges taken in either direction), each once: a set is grown by one neighbour at a time,
    and a neighbour passed over is banned from the rest of that branch."""
    found: list[frozenset[str]] = []
    stack = [(frozenset([first]), [n for n in neighbours[first] if n in allowed], frozenset())]
    while stack:
        members, candidates, banned = stack.pop()
        steps.spend(len(members) + len(candidates))  # what building this set and its children costs
        found.append(members)
        passed = set(banned)
        offered = set(candidates)
        for index, op in enumerate(candidates):
            later = candidates[index + 1:]
            new = [n for n in neighbours[op] if n in allowed and n not in members and n not in passed
                   and n not in offered]
            stack.append((members | {op}, later + new, frozenset(passed)))
            passed.add(op)
    return found


def cyclic_groups_problem(program: Program, grouping) -> str | None:
    """Regions must run one after another: the contracted op graph must stay acyclic."""
    import networkx as nx  # only the validator and the brute force get here, not the navigator's start

    where = {op: i for i, group in enumerate(grouping) for op in group}
    quotient = nx.DiGraph()
    quotient.add_nodes_from(range(len(grouping)))
    quotient.add_edges_from((where[a], where[b]) for a, b in program.graph.edges if where[a] != where[b])
    if nx.is_directed_acyclic_graph(quotient):
        return None
    return "the groups depend on each other in a cycle, so no region can run first"


def enumerated_count(program: Program) -> int:
    """How many legal groupings there are, by listing every one: the brute force that
    fuseflow.analysis.fusion_steps.count_groupings is tested against."""
    return sum(1 for _ in legal_groupings(program))


def unfused(program: Program) -> Grouping:
    return tuple((op.name,) for op in program.ops)


def fully_fused(program: Program) -> Grouping | None:
    """All ops in one region, or None when that region is illegal."""
    group = tuple(op.name for op in program.ops)
    return (group,) if region_problem(program, group) is None else None
