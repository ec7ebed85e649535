"""Named groupings: the baselines `navigator compare` runs and the menu offers as one-step
shortcuts (unfused, per_layer, largest_fusion).

Each is chosen by dynamic programming over the region-by-region fusion states
(fuseflow.analysis.fusion_steps), so it costs time in proportion to the states and their steps, not to
the groupings, and it is always a legal grouping (one the navigator can reach).

* unfused: every op in its own region (the compiler's default).
* per_layer: a layer starts at every op that reads a sparse operand from memory (in a GNN,
  each aggregation `A * ...`); ops before the first such op join the first layer. Each layer is
  split into the fewest legal regions that some order runs without recomputation (every op over
  its own variables only, under the policy); ties: larger regions first, then program order.
* largest_fusion: all ops in one region when that is legal, else the legal grouping with the
  fewest regions (ties: the one whose largest region is largest, and so on; then program order).
"""

from __future__ import annotations

from collections.abc import Callable

from fuseflow.analysis.fusion import Grouping, unfused
from fuseflow.analysis.fusion_steps import FusionState, FusionStep, FusionSteps, fusion_steps
from fuseflow.program.ir import Program
from fuseflow.analysis.unification import region_signature, unify_region
from fuseflow.support.memo import named_memo
from fuseflow.analysis.orders import OrderSpace

SHORTCUT_NAMES = ("unfused", "per_layer", "largest_fusion")


def is_default_step(program: Program, steps: FusionSteps, state: FusionState, step: FusionStep) -> bool:
    """Whether a step places the region the compiler's default grouping has there (a single op:
    defaults taken region by region build the unfused grouping)."""
    return step.region == (steps.names[state.first],)


def shortcut_groupings(program: Program, policy: str = "accumulate") -> dict[str, Grouping]:
    return {"unfused": unfused(program), "per_layer": per_layer_grouping(program, policy),
            "largest_fusion": largest_fusion(program)}


def offered_shortcuts(program: Program, policy: str = "accumulate") -> dict[str, Grouping]:
    """The shortcuts the menu offers: each named grouping unless an earlier name has the same
    one, and none when the program has a single legal grouping (then largest_fusion is
    unfused), where the one region-by-region path is all there is."""
    named = shortcut_groupings(program, policy)
    if named["largest_fusion"] == named["unfused"]:
        return {}
    offered: dict[str, Grouping] = {}
    for name, grouping in named.items():
        if grouping not in offered.values():
            offered[name] = grouping
    return offered


def largest_fusion(program: Program) -> Grouping:
    """The legal grouping with the fewest regions; ties: the larger regions, compared largest
    first; then the first in program order."""
    steps = fusion_steps(program)
    return _best(steps, lambda step: True, lambda region, rest: (1 + rest[0], _insert(rest[1], -len(region))),
                 (0, ()))


def per_layer_grouping(program: Program, policy: str = "accumulate", dense_fixed: bool = False) -> Grouping:
    layer_of = _layers(program)
    steps = fusion_steps(program)

    def allowed(step: FusionStep) -> bool:
        if len({layer_of[op] for op in step.region}) > 1:
            return False
        return len(step.region) == 1 or runs_without_recomputation(program, step.region, policy, dense_fixed)

    return _best(steps, allowed, lambda region, rest: (1 + rest[0],), (0,),
                 order=lambda step: (-len(step.region), 0))


def runs_without_recomputation(program: Program, ops: tuple[str, ...], policy: str,
                               dense_fixed: bool = False) -> bool:
    """Whether some legal order runs every op of the region over its own variables only (no
    loop of another op above it, no partial sums streamed through it)."""
    from fuseflow.analysis.contexts import region_contexts  # the lowering is only needed here

    # By signature: a deep model's repeated blocks ask the same question many times over.
    memo = named_memo(program.memo, "runs_without_recomputation")
    key = (region_signature(program, ops), policy, dense_fixed)
    if key not in memo:
        region = unify_region(program, tuple(ops))
        memo[key] = any(
            all(set(ctx.chain[n]) <= region.op_region_vars(n) for n in region.ops)
            for ctx in (region_contexts(program, region, order, policy)
                        for order in OrderSpace.of_region(region, dense_fixed)))
    return memo[key]


def _layers(program: Program) -> dict[str, int]:
    starts = set()
    for op in program.ops:
        if any(program.tensors[a.tensor].source is not None and program.tensors[a.tensor].is_sparse
               for a in op.inputs):
            starts.add(op.name)
    layer_of: dict[str, int] = {}
    layer, size = 0, 0
    for op in program.ops:
        if op.name in starts and size:
            layer, size = layer + 1, 0
        layer_of[op.name] = layer
        size += 1
    return layer_of


def _best(steps: FusionSteps, allowed: Callable[[FusionStep], bool], combine, done_key,
          order: Callable[[FusionStep], tuple] | None = None) -> Grouping:
    """The grouping whose derivation minimises a key built from the end backwards
    (`combine(region, key of the rest)`), over the steps `allowed` keeps; the first best step
    in `order` (stable over the menu order) wins ties. Iterative: derivations are as long as
    the program has ops."""
    best: dict[FusionState, tuple | None] = {}
    choice: dict[FusionState, FusionStep] = {}
    stack = [steps.start()]
    while stack:
        state = stack[-1]
        if state in best:
            stack.pop()
            continue
        if state.done:
            best[state] = done_key
            stack.pop()
            continue
        options = [s for s in steps.steps(state) if allowed(s)]
        if order is not None:
            options.sort(key=order)
        pending = [s.next for s in options if s.next not in best]
        if pending:
            stack.extend(pending)
            continue
        winner = None
        for step in options:
            rest = best[step.next]
            if rest is None:
                continue
            key = combine(step.region, rest)
            if winner is None or key < winner[0]:
                winner = (key, step)
        best[state] = None if winner is None else winner[0]
        if winner is not None:
            choice[state] = winner[1]
        stack.pop()
    state = steps.start()
    if best[state] is None:
        return unfused(steps.program)
    grouping = []
    while not state.done:
        step = choice[state]
        grouping.append(step.region)
        state = step.next
    return tuple(grouping)


def _insert(sizes: tuple[int, ...], size: int) -> tuple[int, ...]:
    """`sizes` (ascending) with `size` added, still ascending."""
    index = 0
    while index < len(sizes) and sizes[index] <= size:
        index += 1
    return sizes[:index] + (size,) + sizes[index:]
