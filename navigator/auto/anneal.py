"""The `anneal` strategy: simulated annealing over the scope's decisions, first by the cost
model, then by the simulator (navigator.auto.search).

A move changes one decision of the current candidate to another offered option and replays the
rest (navigator.auto.decisions), so every candidate is valid. Phase one anneals the structure
(fusion, orders: the decisions the cost model can tell apart) for `steps` moves from the cost
hints' greedy choice and keeps the best distinct structures it met. Phase two simulates the
heuristic's candidate and the best of them, then anneals every
decision, par factors and stream shapes included, by simulated cycles until `--budget`
simulations are spent. Temperatures fall geometrically; energies are log cycles, so a move that
is 10 % slower is accepted early on about as often as one that saves 10 % is anywhere.
"""

from __future__ import annotations

import math
import random

from navigator.auto.beam import beam_candidates
from navigator.auto.base import Plan, Scope, StrategyContext, StrategyError
from navigator.auto.decisions import Candidate, changed
from navigator.auto.search import MAX_ROUNDS, Search, Tuning, confirm, distinct_by_structure, search_plan
from navigator.auto.simulation import SimulatorEvaluator, check_budget

DEFAULT_STEPS = 200
DEFAULT_BUDGET = 60
#: distinct structures simulated before phase two
STRUCTURES = 3
#: temperatures (in log cycles) at the start and the end of each phase
COST_MODEL_TEMPERATURES = (0.5, 0.005)
SIMULATOR_TEMPERATURES = (0.1, 0.001)


class AnnealStrategy:
    name = "anneal"
    provenance = "strategy:anneal"

    def __init__(self, budget: int | None = None, jobs: int | None = None, engine: str = "local",
                 scheduler: str | None = None, steps: int = DEFAULT_STEPS, seed: int = 0):
        self.budget = check_budget(budget) or DEFAULT_BUDGET
        if steps < 0:
            raise StrategyError(f"anneal needs 0 or more steps, not {steps}", where="--auto anneal")
        self.jobs, self.engine, self.scheduler, self.steps, self.seed = jobs, engine, scheduler, steps, seed

    def plan(self, context: StrategyContext, hole: int, scope: Scope) -> Plan:
        search = Search(context, hole, scope, self.name)
        rng = random.Random(self.seed)
        pool, accepted = anneal_structure(search, rng, self.steps)
        # the rules' candidate is confirmed too: the cost model cannot see the vector width or
        # the lanes, and a structure it ranks low can be the fastest one simulated
        rules = search.realize({})
        limit = min(STRUCTURES, max(1, self.budget // 4))
        structures = [rules] + [c for c in distinct_by_structure(search, pool, limit)
                                if search.score(c) != search.score(rules)][:limit - 1]
        tuning = Tuning()
        with SimulatorEvaluator(search.space, context.evaluation, budget=self.budget, engine=self.engine,
                                jobs=self.jobs, scheduler=self.scheduler, numerics=False) as evaluator:
            confirm(search, evaluator, structures, tuning)
            moves = anneal_simulated(search, evaluator, tuning, rng, self.jobs or 1)
        return search_plan(search, tuning, evaluator,
                           f"annealed {self.steps} cost-model moves ({accepted} accepted), then "
                           f"{moves} simulated moves", {"cost_model_moves": self.steps, "seed": self.seed})


def _temperature(bounds: tuple[float, float], progress: float) -> float:
    start, end = bounds
    return start * (end / start) ** min(1.0, max(0.0, progress))


def _accept(rng: random.Random, energy: float, proposed: float, temperature: float) -> bool:
    return proposed <= energy or rng.random() < math.exp((energy - proposed) / temperature)


def _move(search: Search, rng: random.Random, current: Candidate, structural_only: bool) -> Candidate | None:
    decisions = [m for m in current.met if not (structural_only and search.is_blind(m))]
    if not decisions:
        return None
    met = rng.choice(decisions)
    others = [o for o in met.alternatives if o.id != met.option.id]
    return search.realize(changed(current, {met.decision: rng.choice(others).id})) if others else None


def anneal_structure(search: Search, rng: random.Random, steps: int) -> tuple[list[Candidate], int]:
    """Every candidate met annealing the structure by the cost model, and how many moves were
    accepted."""
    current = beam_candidates(search, 1)[0]  # the cost hints' greedy choice: the cost model's best
    energy = math.log(max(search.score(current)[0], 1.0))
    pool, accepted = [current], 0
    for step in range(steps):
        proposal = _move(search, rng, current, structural_only=True)
        if proposal is None:
            break
        pool.append(proposal)
        proposed = math.log(max(search.score(proposal)[0], 1.0))
        if _accept(rng, energy, proposed, _temperature(COST_MODEL_TEMPERATURES, step / max(1, steps))):
            current, energy, accepted = proposal, proposed, accepted + 1
    return pool, accepted


def anneal_simulated(search: Search, evaluator: SimulatorEvaluator, tuning: Tuning, rng: random.Random,
                     parallel: int) -> int:
    """Anneal every decision by simulated cycles from the best confirmed candidate, `parallel`
    proposals per move (the best of them is the move); returns the moves made."""
    if tuning.best is None:
        return 0
    current, energy = tuning.best, math.log(max(tuning.simulated.cycles, 1.0))
    budget = evaluator.budget or 1
    moves = 0
    for _ in range(MAX_ROUNDS):
        if evaluator.remaining < 1:
            break
        proposals = [p for p in (_move(search, rng, current, structural_only=False)
                                 for _ in range(int(min(parallel, evaluator.remaining)))) if p is not None]
        if not proposals:
            break
        before = evaluator.evaluations
        results = evaluator.evaluate([search.completed(p) for p in proposals])
        tuning.variants += evaluator.evaluations - before
        ranked = sorted(((r.cycles, p) for p, r in zip(proposals, results) if r is not None and r.ok),
                        key=lambda item: item[0])
        for proposal, result in zip(proposals, results):
            tuning.consider(proposal, result)
        moves += 1
        if not ranked:
            continue
        cycles, proposal = ranked[0]
        proposed = math.log(max(cycles, 1.0))
        if _accept(rng, energy, proposed, _temperature(SIMULATOR_TEMPERATURES, evaluator.evaluations / budget)):
            current, energy = proposal, proposed
    return moves
