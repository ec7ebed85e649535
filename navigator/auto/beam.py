"""The `beam` strategy: a beam search over the scope ranked by the cost hints, then the best
structures confirmed and tuned with the simulator (navigator.auto.search).

At every step each partial candidate in the beam is extended by every option of its lowest
open hole and the `width` best children survive, ranked by the best estimated cost beneath
them (the cost hints, exact minima of the cost model: docs/cost-model.md#cost-hints). Where the
cost model cannot tell options apart (par factors, stream shapes, block mode) a child takes the
heuristic's choice. The finished candidates with distinct estimates are simulated, best first,
then the best one's choices are tuned region by region within `--budget` simulations.
"""

from __future__ import annotations

from dataclasses import dataclass

from navigator.auto.base import Plan, PlannedStep, Scope, StrategyContext, StrategyError
from navigator.auto.decisions import Candidate, Met, decision_of
from navigator.auto.scope import ScopeWalk, candidate_options
from navigator.auto.search import Search, Tuning, confirm, distinct_by_structure, search_plan, tune
from navigator.auto.simulation import DEFAULT_BUDGET, SimulatorEvaluator, check_budget

DEFAULT_WIDTH = 8
#: share of the budget spent on confirming distinct structures (the rest tunes the best one)
STRUCTURE_SHARE = 6


@dataclass(frozen=True)
class _Partial:
    walk: ScopeWalk
    steps: tuple
    met: tuple[Met, ...]


class BeamStrategy:
    name = "beam"
    provenance = "strategy:beam"

    def __init__(self, budget: int | None = None, jobs: int | None = None, engine: str = "local",
                 scheduler: str | None = None, width: int = DEFAULT_WIDTH):
        self.budget = check_budget(budget) or DEFAULT_BUDGET
        if width < 1:
            raise StrategyError(f"the beam width must be at least 1, not {width}", where="--auto beam")
        self.width, self.jobs, self.engine, self.scheduler = width, jobs, engine, scheduler

    def plan(self, context: StrategyContext, hole: int, scope: Scope) -> Plan:
        search = Search(context, hole, scope, self.name)
        finished = beam_candidates(search, self.width)
        structures = distinct_by_structure(search, finished, max(1, self.budget // STRUCTURE_SHARE))
        tuning = Tuning()
        with SimulatorEvaluator(search.space, context.evaluation, budget=self.budget, engine=self.engine,
                                jobs=self.jobs, scheduler=self.scheduler, numerics=False) as evaluator:
            confirm(search, evaluator, structures, tuning)
            tune(search, evaluator, tuning, parallel=self.jobs or 1)
        return search_plan(search, tuning, evaluator,
                           f"beam of {self.width} by the cost hints ({len(finished)} finished, "
                           f"{tuning.structures} structures simulated, {tuning.variants} tuning variants)",
                           {"beam_width": self.width, "finished_candidates": len(finished)})


def beam_candidates(search: Search, width: int) -> list[Candidate]:
    """The candidates a beam of `width` finishes, in the order they finish."""
    oracle = search.oracle
    frontier = [_Partial(search.start, (), ())]
    finished: list[Candidate] = []
    while frontier:
        children: list[tuple[tuple, int, _Partial]] = []
        for partial in frontier:
            walk = partial.walk
            if walk.done:
                finished.append(Candidate(partial.steps, partial.met, walk.sketch))
                continue
            current = min(walk.pending)
            menu = oracle.menus(walk.sketch).for_hole(current)
            options = candidate_options(menu)
            if len(options) == 1:
                children.append(((search.hint_key(walk.sketch),), 0, _advance(search, partial, current, options[0])))
                continue
            decision = decision_of(menu)
            for rank, (key, option) in enumerate(search.ranked_options(Met(decision, walk.sketch, menu, options[0]))):
                children.append(((key,), rank, _advance(search, partial, current, option,
                                                        Met(decision, walk.sketch, menu, option))))
        frontier = _survivors(children, width)
    return finished


def _survivors(children: list[tuple[tuple, int, _Partial]], width: int) -> list[_Partial]:
    """The `width` best children, one per estimate first: children that tie on the estimate are
    mostly the same structure (orders the cost model scores alike), and a beam of them would
    confirm one structure many times."""
    children.sort(key=lambda child: (child[0], child[1]))
    seen: set[tuple] = set()
    first, rest = [], []
    for key, _, partial in children:
        (rest if key in seen else first).append(partial)
        seen.add(key)
    return (first + rest)[:width]


def _advance(search: Search, partial: _Partial, hole: int, option, met: Met | None = None) -> _Partial:
    return _Partial(partial.walk.take(search.oracle, option), partial.steps + (PlannedStep(hole, option.id),),
                    partial.met + ((met,) if met is not None else ()))
