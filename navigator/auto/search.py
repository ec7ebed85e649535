"""What the search strategies (`beam`, `anneal`) share: candidates of a scope, ranked by the
cost model, then confirmed and tuned with the simulator.

The cost model (fuseflow.cost.estimate) sees the fusion and the loop orders. Parallel factors, stream
shapes and block mode do not change its figures; the simulator measures them. So a search
ranks the structure by the cost model (cheap, thousands of candidates), lets the heuristic's
rules set the other choices, and spends its simulator budget on the best few structures and on
tuning their remaining choices (`tune`).

Tuning reads many regions off one simulation: the simulated cycles are a sum over regions and
each region's depend on its own choices only, so a variant that changes one choice in every
region at once tells, region by region, which changes pay. The schedule returned is always
one the simulator ran whole, never a prediction.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from navigator.auto.base import Plan, Scope, StrategyContext, StrategyError
from navigator.auto.decisions import Candidate, Decision, Met, changed, realize, region_of
from navigator.auto.scope import ScopeWalk, complete_for_scoring
from navigator.auto.scoring import CostModelScorer, Score, require_space
from navigator.auto.simulation import Simulated, SimulatorEvaluator
from fuseflow.support.numbers import figure

if TYPE_CHECKING:
    from navigator.synth import HoleMenu, MenuOption, Sketch


#: rounds of tuning at most, whatever the budget
MAX_ROUNDS = 10_000


class Search:
    """One plan's working state: the scope's start, the rules, and memoized scores."""

    def __init__(self, context: StrategyContext, hole: int, scope: Scope, strategy: str):
        from fuseflow.cost.hardware import load_hardware
        from navigator.auto.heuristic import HeuristicRules

        self.space = require_space(context.space, strategy)
        if context.menus.blocked:
            raise StrategyError(f"the sketch cannot be completed: {context.menus.blocked}",
                                fix="undo the step that blocked it (navigator undo)")
        if context.evaluation is None:
            raise StrategyError(f"the {strategy} strategy confirms its candidates with the simulator, which needs "
                                "the session's program, data and dims", where="--auto",
                                fix="run it through `navigator fill`, or pass evaluation=EvalConfig(spec) to fill()")
        self.context, self.strategy = context, strategy
        self.oracle = context.oracle
        hardware = load_hardware()
        self.rules = HeuristicRules(self.space, hardware)
        self.scorer = CostModelScorer(self.space, hardware)
        self.start = ScopeWalk.start(context.sketch, hole, scope)
        self._scores: dict[Any, Score] = {}
        self._blind: dict[Decision, bool] = {}
        self._completed: dict["Sketch", "Sketch"] = {}

    # ---- candidates

    def policy(self, sketch: "Sketch", menu: "HoleMenu") -> "MenuOption":
        return self.rules.choose(sketch, menu)[0]

    def realize(self, overrides: dict[Decision, str]) -> Candidate:
        return realize(self.oracle, self.start, overrides, self.policy)

    def completed(self, candidate: Candidate) -> "Sketch":
        """The candidate with holes outside the scope at their defaults (what is scored and
        simulated), memoized: ranking and simulating ask for the same candidates again."""
        done = self._completed.get(candidate.sketch)
        if done is None:
            done = self._completed[candidate.sketch] = complete_for_scoring(self.oracle, candidate.sketch)
        return done

    def score(self, candidate: Candidate) -> Score:
        """The cost model's (cycles, bytes) of the candidate, memoized by schedule."""
        sketch = self.completed(candidate)
        key = self.space.schedule_of(sketch)
        if key not in self._scores:
            self._scores[key] = self.scorer.score(sketch)
        return self._scores[key]

    def hint_key(self, sketch: "Sketch") -> tuple[float, ...]:
        """The best estimated cost beneath a partial sketch (cycles, bytes, FLOPs); infinite
        when the cost hints cannot read the sketch."""
        hint = self.space.best_hint(sketch)
        return hint.key if hint is not None else (math.inf, math.inf, math.inf)

    def ranked_options(self, met: Met) -> list[tuple[tuple[float, ...], "MenuOption"]]:
        """The decision's options by the best cost beneath each; a decision the cost model is
        blind to (every option the same) offers only the rules' choice."""
        scored = [(self.hint_key(self.oracle.apply(met.sketch, o)), o) for o in met.alternatives]
        blind = len({key for key, _ in scored}) == 1
        self._blind[met.decision] = blind
        if blind:
            return [(scored[0][0], self.policy(met.sketch, met.menu))]
        preferred = self.policy(met.sketch, met.menu).id
        return sorted(scored, key=lambda item: (item[0], item[1].id != preferred))

    def is_blind(self, met: Met) -> bool:
        if met.decision not in self._blind:
            self.ranked_options(met)
        return self._blind[met.decision]


def distinct_by_structure(search: Search, candidates: list[Candidate], limit: int) -> list[Candidate]:
    """The first `limit` candidates whose cost-model scores differ (equal scores: the same
    structure as far as the cost model can tell), best first."""
    chosen: list[Candidate] = []
    seen: set[Score] = set()
    for candidate in sorted(candidates, key=search.score):
        score = search.score(candidate)
        if score not in seen:
            seen.add(score)
            chosen.append(candidate)
            if len(chosen) == limit:
                break
    return chosen


@dataclass
class Tuning:
    """The simulator phase's outcome: the best schedule it ran, and how many simulations went to
    structures and to variants (answers from memory not counted)."""

    best: Candidate | None = None
    simulated: Simulated | None = None
    structures: int = 0
    variants: int = 0
    adopted: int = 0

    def consider(self, candidate: Candidate, result: Simulated | None) -> None:
        if result is not None and result.ok and (self.simulated is None or result.cycles < self.simulated.cycles):
            self.best, self.simulated = candidate, result


def confirm(search: Search, evaluator: SimulatorEvaluator, structures: list[Candidate], tuning: Tuning) -> None:
    """Simulate each structure (its other choices by the rules) while the budget lasts."""
    batch = structures[:max(0, int(min(len(structures), evaluator.remaining)))]
    before = evaluator.evaluations
    results = evaluator.evaluate([search.completed(c) for c in batch])
    tuning.structures += evaluator.evaluations - before
    for candidate, result in zip(batch, results):
        tuning.consider(candidate, result)


def tune(search: Search, evaluator: SimulatorEvaluator, tuning: Tuning, parallel: int = 1) -> None:
    """Region-parallel coordinate descent from the best simulated candidate, until the budget
    or the alternatives run out. Each variant takes the next untried alternative of one decision
    in every region at once; each region keeps the best variant's choices for it. One simulation
    is kept for confirming the combination at the end."""
    if tuning.best is None:
        return
    incumbent, regions = tuning.best, dict(tuning.simulated.regions)
    tried: set[tuple[str, frozenset]] = set()
    #: decision -> the direction (+1/-1 in menu order) of its last change that paid
    momentum: dict[Decision, int] = {}
    # Answers from memory cost nothing, so the budget alone need not end the loop.
    for _ in range(MAX_ROUNDS):
        if evaluator.remaining <= 1:
            break
        queues = _alternatives(search, incumbent, regions, tried, momentum)
        if not queues:
            break
        width = int(max(1, min(parallel, evaluator.remaining - 1, max(len(q) for q in queues.values()))))
        variants: list[tuple[Candidate, dict[str, tuple[Decision, str]]]] = []
        for index in range(width):
            changes = {region: queue[index] for region, queue in queues.items() if index < len(queue)}
            variant = search.realize(changed(incumbent, {d: o for d, o in changes.values()}))
            for region, (decision, option) in changes.items():
                tried.add((region, _region_choices(incumbent, region, {decision: option})))
            variants.append((variant, changes))
        before = evaluator.evaluations
        results = evaluator.evaluate([search.completed(v) for v, _ in variants])
        tuning.variants += evaluator.evaluations - before
        adopted: dict[str, tuple[Candidate, float]] = {}
        for (variant, changes), result in zip(variants, results):
            tuning.consider(variant, result)
            if result is None or not result.ok:
                continue
            for region in changes:
                cycles = result.regions.get(region)
                if cycles is None:
                    continue
                best = adopted[region][1] if region in adopted else regions.get(region, math.inf)
                if cycles < best:
                    adopted[region] = (variant, cycles)
        if adopted:
            for region, (variant, _) in adopted.items():
                decision, option = next(changes[region] for v, changes in variants if v is variant)
                _remember_direction(incumbent, decision, option, momentum)
            tuning.adopted += len(adopted)
            incumbent = _combine(search, incumbent, adopted)
            regions.update({region: cycles for region, (_, cycles) in adopted.items()})
    if incumbent is not tuning.best and evaluator.remaining >= 1:
        before = evaluator.evaluations
        result = evaluator.evaluate([search.completed(incumbent)])[0]
        tuning.variants += evaluator.evaluations - before
        tuning.consider(incumbent, result)


def _remember_direction(incumbent: Candidate, decision: Decision, option: str, momentum: dict) -> None:
    for met in incumbent.met:
        if met.decision == decision:
            ids = [o.id for o in met.alternatives]
            if met.option.id in ids and option in ids:
                momentum[decision] = 1 if ids.index(option) > ids.index(met.option.id) else -1
            return


def _region_choices(candidate: Candidate, region: str, changes: dict[Decision, str]) -> frozenset:
    choices = {m.decision: m.option.id for m in candidate.met if region_of(m.decision) == region}
    choices.update(changes)
    return frozenset(choices.items())


def _alternatives(search: Search, incumbent: Candidate, regions: dict[str, float], tried: set,
                  momentum: dict[Decision, int]) -> dict[str, list[tuple[Decision, str]]]:
    """For each region of the incumbent, the changes still to try: for each of its decisions
    the other options (structural ones by the cost beneath them, best first, at most three;
    others nearest the current choice first), interleaved decision by decision. A decision
    whose last change paid tries the next step the same way first (par 2 -> 4 after 1 -> 2)."""
    queues: dict[str, list[tuple[Decision, str]]] = {}
    for region in sorted(regions):
        per_decision: list[list[tuple[Decision, str]]] = []
        ahead: list[tuple[Decision, str]] = []
        for met in incumbent.met:
            if region_of(met.decision) != region:
                continue
            if search.is_blind(met):
                options = list(met.alternatives)
                here = next(i for i, o in enumerate(options) if o.id == met.option.id) \
                    if any(o.id == met.option.id for o in options) else 0
                others = sorted((o for o in options if o.id != met.option.id),
                                key=lambda o: (abs(options.index(o) - here), -options.index(o)))
                step = momentum.get(met.decision)
                if step is not None and 0 <= here + step < len(options):
                    ahead.append((met.decision, options[here + step].id))
            else:
                others = [o for _, o in search.ranked_options(met) if o.id != met.option.id][:3]
            per_decision.append([(met.decision, o.id) for o in others
                                 if (region, _region_choices(incumbent, region, {met.decision: o.id})) not in tried])
        ahead = [item for item in ahead
                 if (region, _region_choices(incumbent, region, {item[0]: item[1]})) not in tried]
        queue = ahead + [item for round_ in _interleave(per_decision) for item in round_ if item not in ahead]
        if queue:
            queues[region] = queue
    return queues


def _interleave(lists: list[list]) -> list[list]:
    rounds: list[list] = []
    for depth in range(max((len(each) for each in lists), default=0)):
        rounds.append([each[depth] for each in lists if depth < len(each)])
    return rounds


def _combine(search: Search, incumbent: Candidate, adopted: dict[str, tuple[Candidate, float]]) -> Candidate:
    """The incumbent with each adopted region's choices taken from its winning variant."""
    overrides = incumbent.choices
    for region, (variant, _) in adopted.items():
        overrides = {d: o for d, o in overrides.items() if region_of(d) != region}
        overrides.update({m.decision: m.option.id for m in variant.met if region_of(m.decision) == region})
    return search.realize(overrides)


def search_plan(search: Search, tuning: Tuning, evaluator: SimulatorEvaluator, rationale: str,
                compared: dict[str, Any]) -> Plan:
    if tuning.best is None:
        raise StrategyError(f"{search.strategy}: no candidate simulated successfully "
                            f"({evaluator.failures} failed)", where="--auto",
                            fix="check `navigator eval` on the default schedule, or use --auto heuristic")
    evaluator.verify(search.completed(tuning.best))
    figures = {"best_simulated_cycles": tuning.simulated.cycles, "structures_simulated": tuning.structures,
               "variants_simulated": tuning.variants, "region_changes_adopted": tuning.adopted,
               "cost_model_best_cycles": search.score(tuning.best)[0], **compared}
    if evaluator.failures:
        figures["failed_simulations"] = evaluator.failures
    if evaluator.checks:
        figures["choice_checked"] = True
    return Plan(tuning.best.steps, f"{rationale}; best simulated {figure(tuning.simulated.cycles)} cycles",
                cost_model_evaluations=search.scorer.evaluations,
                simulator_evaluations=evaluator.evaluations, compared=figures)
