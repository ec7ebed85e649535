"""Fusion chosen one region at a time: the states and steps the navigator offers.

A grouping is built by repeatedly placing *the region that holds the first op not yet placed*
(first in program order, a topological order). So every grouping has exactly one derivation:
the sequence of its regions ordered by their first ops. A step is offered only when it can
still be completed into a legal grouping, and every legal grouping is reached
(docs/fusion-steps.md proves both):

* the region must be legal on its own (`fusion.region_problem`: connected, convex, unifiable,
  at most MAX_VARS loop variables, one streaming pass);
* placing it must not close a cycle among the regions. The regions placed so far only matter
  through *links*: op a (not placed) feeds a placed region from which, through placed regions
  only, op b (not placed) is reached; a and b then may never share a region, nor may any
  region reached from b feed a's. With the ops left as single-op regions the contracted graph
  is acyclic after every offered step, so a completion always exists.

A state is the set of ops not placed and those links; two derivations that reach the same
state have the same completions, which keeps the number of states polynomial for graphs of
bounded width (a chain with residual skips has one state per op).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from fuseflow.support.work_budget import StepBudget
from fuseflow.analysis.fusion import grown_region_legal
from fuseflow.program.ir import Program
from fuseflow.analysis.unification import Unification, unify_grow
from fuseflow.support.memo import BoundedMemo
from fuseflow.analysis.op_masks import bits as _bits, op_masks

#: Work while exploring the fusion states of one program, in ops of the candidate regions examined
#: (a few µs each). A 12-block transformer uses about 10% of it; an element-wise chain of 1,000
#: ops, where every interval fuses, runs out in a few seconds.
MAX_STEP_WORK = 1_000_000
#: Unifications kept for regions not examined yet (a few KB each).
MAX_PENDING = 4096
_FIX = ("split the program into smaller programs: the ways to fuse grow with the number of ops that "
        "can run side by side")

DONE = "all placed"
_NOT_GROWN = object()  # a region whose unification was not grown from a smaller one


@dataclass(frozen=True)
class FusionState:
    """Ops not placed yet (a bit mask over program positions) and the links between them that
    placed regions make: (op position, mask of positions it reaches through placed regions)."""

    unplaced: int
    links: tuple[tuple[int, int], ...] = ()

    @property
    def done(self) -> bool:
        return self.unplaced == 0

    @property
    def first(self) -> int:
        """Position of the first op not placed."""
        return (self.unplaced & -self.unplaced).bit_length() - 1


@dataclass(frozen=True)
class FusionStep:
    region: tuple[str, ...]  # ops in program order
    next: FusionState


@dataclass
class FusionSteps:
    """The fusion state machine of one program: states, their offered steps, their names."""

    program: Program
    budget: StepBudget | None = None
    _steps: dict[FusionState, tuple[FusionStep, ...]] = field(default_factory=dict, repr=False)
    _facts: dict[int, tuple[bool, tuple[int, ...]] | None] = field(default_factory=dict, repr=False)
    # bounded: on a long fusable chain many are never examined; a dropped one is grown from scratch
    _pending: dict[int, Unification | None] = field(default_factory=lambda: BoundedMemo(MAX_PENDING),
                                                    repr=False)

    def __post_init__(self) -> None:
        self.names = [op.name for op in self.program.ops]
        self.position = self.program.op_position
        self.masks = op_masks(self.program)
        self.succ = self.masks.succ
        if self.budget is None:
            self.budget = StepBudget(MAX_STEP_WORK, "steps exploring fusion regions",
                                     self.program.path or self.program.name, _FIX)

    # ---- states ----

    def start(self) -> FusionState:
        return FusionState((1 << len(self.names)) - 1)

    def state_id(self, state: FusionState) -> str:
        """A readable, unique name: `from OP` (every op before OP is placed), then the ops after
        OP already placed, then the links (`a->b+c`: b and c must come after a's region)."""
        if state.done:
            return DONE
        first = state.first
        parts = [f"from {self.names[first]}"]
        placed_after = ~state.unplaced & ((1 << len(self.names)) - 1) & ~((1 << first) - 1)
        if placed_after:
            parts.append("placed " + "+".join(self.names[i] for i in _bits(placed_after)))
        for a, targets in state.links:
            parts.append(f"{self.names[a]}->" + "+".join(self.names[i] for i in _bits(targets)))
        return "; ".join(parts)

    def steps(self, state: FusionState) -> tuple[FusionStep, ...]:
        """The regions offered at `state`, ordered by their ops' positions read as a binary
        number (the order fusion.legal_groupings lists groupings in): the singleton first."""
        found = self._steps.get(state)
        if found is None and state.done:
            return ()
        if found is None:
            found = self._steps[state] = tuple(
                FusionStep(self._ops(region), self._advance(state, region))
                for region in sorted(self._regions(state)))
        return found

    def step(self, state: FusionState, region) -> FusionStep | None:
        """The offered step that places exactly these ops, or None."""
        mask = sum(1 << self.position[op] for op in region)
        for step in self.steps(state):
            if sum(1 << self.position[op] for op in step.region) == mask:
                return step
        return None

    def reachable(self) -> list[FusionState]:
        """Every state some derivation passes through, start first (the facts list them all)."""
        start = self.start()
        seen = {start}
        order = [start]
        stack = [start]
        while stack:
            state = stack.pop()
            for step in self.steps(state):
                if step.next not in seen:
                    seen.add(step.next)
                    order.append(step.next)
                    stack.append(step.next)
        return order

    def count(self, weight=None) -> int:
        """How many legal groupings there are (each has one derivation), or with `weight` (a
        region's ops -> a number) the sum over them of the product of their regions' weights:
        dynamic programming over the states, ends first."""
        total: dict[FusionState, int] = {}
        for state in reversed(self._topological()):
            if state.done:
                total[state] = 1
                continue
            total[state] = sum((1 if weight is None else weight(step.region)) * total[step.next]
                               for step in self.steps(state))
        return total[self.start()]

    def _topological(self) -> list[FusionState]:
        """Reachable states, each before every state a step from it leads to (every step places
        ops, so fewer unplaced ops come later)."""
        return sorted(self.reachable(), key=lambda state: -state.unplaced.bit_count())

    def regions(self) -> list[tuple[str, ...]]:
        """Every region some legal grouping has (each is offered at some reachable state), in
        program order of their first ops, then by size and positions."""
        found = {step.region for state in self.reachable() for step in self.steps(state)}
        position = self.position
        return sorted(found, key=lambda ops: (position[ops[0]], len(ops), [position[o] for o in ops]))

    def derivation(self, grouping) -> list[tuple[FusionState, FusionStep]] | None:
        """The steps that build `grouping` (any order of regions and ops), or None when some
        region of it is not offered where it would be placed (the grouping is illegal)."""
        group_of = {op: tuple(group) for group in grouping for op in group}
        state = self.start()
        out = []
        while not state.done:
            group = group_of.get(self.names[state.first])
            step = None if group is None else self.step(state, group)
            if step is None:
                return None
            out.append((state, step))
            state = step.next
        return out

    # ---- one state ----

    def _regions(self, state: FusionState) -> list[int]:
        """Legal regions holding the first unplaced op that close no cycle, as masks.

        Grown from that op one neighbour at a time, each time closed under convexity (every op
        on a path between two members joins: a legal region holding these ops holds those too).
        A set whose closure takes a placed op, or whose unification fails, has no legal superset,
        so it is not grown; every legal region is reached, as it is connected and convex."""
        unplaced = state.unplaced
        links = dict(state.links)
        start = 1 << state.first
        seen = {start}
        stack = [start]
        found = []
        while stack:
            region = stack.pop()
            self.budget.spend(region.bit_count())
            facts = self._region_facts(region)
            if facts is None:
                continue
            legal, children = facts
            if legal and not self._closes_cycle(region, unplaced, links):
                found.append(region)
            for grown in children:
                if grown & ~unplaced or grown in seen:
                    continue
                seen.add(grown)
                stack.append(grown)
        return found

    def _region_facts(self, region: int) -> tuple[bool, tuple[int, ...]] | None:
        """What does not depend on the state, memoized per region (regions recur across states):
        None when the region cannot grow (fusion.region_cannot_grow), else whether it is legal
        (fusion.region_problem is None) and the convex closures of it plus one neighbour (a state
        keeps those holding no placed op). A region's unification is grown from the one it was
        reached from, kept until the region is examined."""
        if region in self._facts:
            return self._facts[region]
        unification = self._pending.pop(region, _NOT_GROWN)
        if unification is _NOT_GROWN:
            unification = unify_grow(self.program, region)
        facts = None
        if unification is not None:
            children = tuple(self.masks.grown_closures(region))
            facts = (grown_region_legal(self.program, unification), children)
            for child in children:
                if child not in self._facts and child not in self._pending:
                    self._pending[child] = unify_grow(self.program, child, unification)
        self._facts[region] = facts
        return facts

    def _out(self, i: int, unplaced: int, links: dict[int, int]) -> int:
        """Where op i leads among the unplaced ops: its consumers, and what it reaches through
        placed regions."""
        return (self.succ[i] & unplaced) | links.get(i, 0)

    def _closes_cycle(self, region: int, unplaced: int, links: dict[int, int]) -> bool:
        """Whether, with `region` contracted and the other unplaced ops single, some path leaves
        the region and comes back (only links can make one: the region is convex)."""
        if not links:
            return False
        reached = 0
        frontier = 0
        for i in _bits(region):
            out = self._out(i, unplaced, links)
            if links.get(i, 0) & region:
                return True
            frontier |= out & ~region
        while frontier:
            reached |= frontier
            new = 0
            for i in _bits(frontier):
                out = self._out(i, unplaced, links)
                if out & region:
                    return True
                new |= out
            frontier = new & ~reached & ~region
        return False

    def _advance(self, state: FusionState, region: int) -> FusionState:
        unplaced = state.unplaced & ~region
        links = dict(state.links)
        exits = 0
        for i in _bits(region):
            exits |= self._out(i, state.unplaced, links)
        exits &= unplaced
        # Only the ops that feed the region, or had links, can have links now.
        feeders = 0
        for i in _bits(region):
            feeders |= self.masks.pred[i]
        new_links: dict[int, int] = {}
        for i, targets in links.items():
            if unplaced >> i & 1:
                new_links[i] = (targets | exits if targets & region else targets) & unplaced
        for i in _bits(feeders & unplaced):
            new_links[i] = (new_links.get(i, 0) | exits) & unplaced
        return FusionState(unplaced, tuple(sorted((i, t) for i, t in new_links.items() if t)))

    def _ops(self, region: int) -> tuple[str, ...]:
        return tuple(self.names[i] for i in _bits(region))


def fusion_steps(program: Program) -> FusionSteps:
    """The program's fusion state machine, built once per program (its steps are memoised)."""
    steps = program.memo.get("fusion_steps")
    if steps is None:
        steps = program.memo["fusion_steps"] = FusionSteps(program)
    return steps


def count_groupings(program: Program) -> int:
    """How many legal groupings there are, counted over the region-by-region fusion states
    without listing them; fuseflow.analysis.fusion_count counts them another way, by
    inclusion-exclusion, and the tests hold the two equal."""
    return fusion_steps(program).count()
