"""Where each op of a fused region runs: its loop context, as an ordered chain of variables.

This follows docs/cost-model.md ("Execution model"): an op runs under every loop above its
innermost own variable, except the reductions it waits for and the foreign loops (loops of
other ops) it is hoisted out of: an op stays under a foreign loop only when every use of its
result runs under it too (`_hoist`; docs/simulator.md, "Foreign loops"). Two policies decide
when a consumer waits:

* ``accumulate`` (the default): every consumer waits, so a reduction always closes on chip
  before its result is used, as FuseFlow's kernels do. Under this policy the literature's
  fusion trends come out of the model (docs/trends.md).
* ``stream``: a consumer that is linear in a sum-reduced tensor lets partial sums stream
  through it (the multilinear form); any other consumer waits for an accumulator.

The cost model (`fuseflow.cost.estimate`) uses these contexts too, so the estimate and the simulator
place ops by one rule. Under either policy:

* a max reduction never streams partial results into a consumer (a sum of partial maxima is
  not the maximum), so its consumers always wait for it;
* a loop an op waited to close is closed for everything downstream of it too: the op's
  result only exists after that loop has finished, so its consumers cannot run inside it.
  (The cost model keeps such consumers inside the loop and counts the repeats as
  recomputation.) A consumer that would have to stream partial sums across a loop that
  another of its inputs closed waits for those partial sums instead.
"""

from __future__ import annotations

from dataclasses import dataclass

from fuseflow.program.expr import is_linear_in
from fuseflow.program.ir import Program, Region
from fuseflow.support.memo import named_memo
from fuseflow.analysis.policies import DEFAULT_POLICY, POLICIES


@dataclass(frozen=True)
class Contexts:
    chain: dict[str, tuple[str, ...]]        # op -> its loop variables, outermost first
    pending: dict[str, frozenset[str]]       # op -> sum reductions still open in its output
    max_vars: dict[str, frozenset[str]]      # op -> its own max-reduction variables


def region_contexts(program: Program, region: Region, order: tuple[str, ...],
                    policy: str = DEFAULT_POLICY) -> Contexts:
    static = _static(program, region, policy)
    position = {v: i for i, v in enumerate(order)}
    chain: dict[str, tuple[str, ...]] = {}
    for name in region.ops:
        own, closed = static.owned[name], static.closed[name]
        depth = max(position[v] for v in own)
        chain[name] = tuple(v for v in order[: depth + 1] if v in own or v not in closed)
    _hoist(program, region, chain, static.owned, static.pending)
    return Contexts(chain, static.pending, static.max_vars)


@dataclass(frozen=True)
class _Static:
    """What of the contexts does not depend on the order: per op, its own variables, the loops
    closed above it (the reductions it waits for), and the sums and maxima it leaves open."""

    owned: dict[str, frozenset[str]]
    closed: dict[str, frozenset[str]]
    pending: dict[str, frozenset[str]]
    max_vars: dict[str, frozenset[str]]


def _static(program: Program, region: Region, policy: str) -> _Static:
    if policy not in POLICIES:
        raise ValueError(f"unknown policy {policy!r}")
    memo = named_memo(program.memo, "region_contexts")
    found = memo.get((region.ops, policy))
    if found is not None and found[0] is region:
        return found[1]
    members = set(region.ops)
    pending: dict[str, frozenset[str]] = {}
    max_vars: dict[str, frozenset[str]] = {}
    closed_by: dict[str, frozenset[str]] = {}
    closed_of: dict[str, frozenset[str]] = {}
    owned: dict[str, frozenset[str]] = {}
    for name in region.ops:
        op = program.op_by_name[name]
        mapping = region.op_vars[name]
        own_reduced = {mapping[v] for v in op.reduction_vars}
        producers: list[list] = []
        for access in op.inputs:
            producer = program.producer.get(access.tensor)
            if producer in members and producer not in [p for p, _ in producers]:
                streams = (policy == "stream" and op.reduce == "sum" and not max_vars[producer]
                           and is_linear_in(op.expr, access.tensor))
                producers.append([producer, streams])
        while True:
            closed: set[str] = set()
            for producer, streams in producers:
                closed |= closed_by[producer]
                if not streams:
                    closed |= pending[producer] | max_vars[producer]
            conflict = [p for p in producers if p[1] and pending[p[0]] & closed]
            if not conflict:
                break
            for p in conflict:
                p[1] = False
        carry = set(own_reduced) if op.reduce == "sum" else set()
        for producer, streams in producers:
            if streams:
                carry |= pending[producer]
        own = set(mapping.values())
        pending[name] = frozenset(carry)
        max_vars[name] = frozenset(own_reduced) if op.reduce == "max" else frozenset()
        closed_by[name] = frozenset(closed - own)
        closed_of[name] = frozenset(closed)
        owned[name] = frozenset(own)
    found = memo[(region.ops, policy)] = (region, _Static(owned, closed_of, pending, max_vars))
    return found[1]


def foreign_loops(chain: tuple[str, ...], own: frozenset[str], pending: frozenset[str]) -> tuple[str, ...]:
    """The loops of other ops an op runs under: neither its own variables nor partial sums it carries."""
    return tuple(v for v in chain if v not in own and v not in pending)


def _hoist(program: Program, region: Region, chain: dict[str, tuple[str, ...]], own: dict[str, frozenset[str]],
           pending: dict[str, frozenset[str]]) -> None:
    """The one rule for foreign loops (docs/simulator.md, "Foreign loops"). An op stays under a
    loop of another op only when every use of its result runs under that loop too: then it is
    recomputed at each coordinate those uses visit. Otherwise it is hoisted out of the loop and
    runs once; a consumer under the loop gets its values repeated over the loop's coordinates.
    A use is an in-region consumer (its final chain) or the write to memory (which keeps no
    foreign loop). So an empty fiber of a foreign loop loses nothing: an op nested in it is
    needed only there. Consumers are decided first (reverse program order)."""
    users = _users(program, region)
    kept: dict[str, set[str]] = {}
    for name in reversed(region.ops):
        loops = chain[name]
        foreign = foreign_loops(loops, own[name], pending[name])
        if foreign:
            consumers, is_result = users[name]
            if is_result or not consumers:
                drop = set(foreign)
            else:
                drop = {v for v in foreign if not all(v in kept[c] for c in consumers)}
            if drop:
                chain[name] = loops = tuple(v for v in loops if v not in drop)
        kept[name] = set(loops)


def _users(program: Program, region: Region) -> dict[str, tuple[list[str], bool]]:
    """Op -> (its in-region consumers, whether its result leaves the region); memoized per region."""
    memo = named_memo(program.memo, "region_users")
    found = memo.get(region.ops)
    if found is None or found[0] is not region:
        results = {r.tensor for r in region.results}
        table = {}
        for name in region.ops:
            tensor = program.op_by_name[name].output.tensor
            table[name] = ([c for c in region.ops if c != name and any(
                a.tensor == tensor for a in program.op_by_name[c].inputs)], tensor in results)
        found = memo[region.ops] = (region, table)
    return found[1]


def eliminated_modes(contexts: Contexts, producer: str, keep: set[str]) -> dict[str, str]:
    """How each variable of the producer's chain that the target does not keep is removed:
    `sum` or `max` closes a reduction; `last` drops a recomputation copy (a variable of
    another op that the producer ran under: every copy holds the same values)."""
    modes = {}
    for var in contexts.chain[producer]:
        if var in keep:
            continue
        if var in contexts.pending[producer]:
            modes[var] = "sum"
        elif var in contexts.max_vars[producer]:
            modes[var] = "max"
        else:
            modes[var] = "last"
    return modes
