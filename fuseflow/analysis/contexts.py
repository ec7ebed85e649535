"""Where each op of a fused region runs: its loop context, as an ordered chain of variables.

This follows docs/cost-model.md ("Execution model"): an op runs under every loop above its
innermost own variable, except the reductions it waits for. Two policies decide when a
consumer waits:

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
from fuseflow.analysis.policies import DEFAULT_POLICY, POLICIES


@dataclass(frozen=True)
class Contexts:
    chain: dict[str, tuple[str, ...]]        # op -> its loop variables, outermost first
    pending: dict[str, frozenset[str]]       # op -> sum reductions still open in its output
    max_vars: dict[str, frozenset[str]]      # op -> its own max-reduction variables


def region_contexts(program: Program, region: Region, order: tuple[str, ...],
                    policy: str = DEFAULT_POLICY) -> Contexts:
    if policy not in POLICIES:
        raise ValueError(f"unknown policy {policy!r}")
    position = {v: i for i, v in enumerate(order)}
    members = set(region.ops)
    pending: dict[str, frozenset[str]] = {}
    max_vars: dict[str, frozenset[str]] = {}
    closed_by: dict[str, frozenset[str]] = {}
    chain: dict[str, tuple[str, ...]] = {}
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
        depth = max(position[v] for v in own)
        context = (set(order[: depth + 1]) - closed) | own
        chain[name] = tuple(sorted(context, key=position.__getitem__))
        pending[name] = frozenset(carry)
        max_vars[name] = frozenset(own_reduced) if op.reduce == "max" else frozenset()
        closed_by[name] = frozenset(closed - own)
    return Contexts(chain, pending, max_vars)


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
