"""The `exhaustive` strategy: score every completion of the scope with the cost model and
take the best, when there are at most `limit` of them; otherwise refuse, giving the count.

The count comes from the menus' exact counts before anything is enumerated. Holes outside
the scope are completed with their defaults for scoring only (navigator.auto.scope)."""

from __future__ import annotations

from typing import Iterator

from navigator.auto.base import Plan, PlannedStep, Scope, StrategyContext, StrategyError
from navigator.auto.scope import ScopeWalk, candidate_options, complete_for_scoring
from navigator.auto.scoring import CostModelScorer, Score, require_space
from navigator.synth import Count
from fuseflow.support.numbers import figure

DEFAULT_LIMIT = 10_000
_SCOPE_WORDS = {Scope.HOLE: "at ", Scope.SUBTREE: "under ", Scope.ALL: "of every open hole from "}


def scope_count(context: StrategyContext, hole: int, scope: Scope) -> Count:
    """How many distinct completions the scope has (shortcut options add none)."""
    if scope is Scope.ALL:
        return context.menus.total
    options = candidate_options(context.menu(hole))
    if scope is Scope.HOLE:
        return Count(len(options))
    total = Count(0)
    for option in options:
        total = total + option.subtree_count
    return total


class ExhaustiveStrategy:
    name = "exhaustive"
    provenance = "strategy:exhaustive"

    def __init__(self, limit: int = DEFAULT_LIMIT):
        if limit < 1:
            raise StrategyError(f"--limit must be at least 1, not {limit}", where="--limit")
        self.limit = limit

    def plan(self, context: StrategyContext, hole: int, scope: Scope) -> Plan:
        space = require_space(context.space, self.name)
        if context.menus.blocked:
            raise StrategyError(f"the sketch cannot be completed: {context.menus.blocked}",
                                fix="undo the step that blocked it (navigator undo)")
        count = scope_count(context, hole, scope)
        if count.value is None or count.value > self.limit:
            what = "unbounded" if count.value is None else figure(count.value)
            raise StrategyError(f"exhaustive would evaluate {what} completions {_SCOPE_WORDS[scope]}?{hole}, "
                                f"more than --limit {self.limit:,}", where="--auto exhaustive",
                                fix="fill some holes first, narrow the scope (no --all / --subtree), raise "
                                    "--limit, or use --auto heuristic")
        scorer = CostModelScorer(space)
        ranked: list[tuple[Score, tuple[PlannedStep, ...]]] = []
        oracle = context.oracle

        # Depth first, in menu order, with an explicit stack: a scope can be a chain of
        # hundreds of steps (a deep recursive library), one level each.
        stack: list[tuple[ScopeWalk, tuple[PlannedStep, ...], int, Iterator]] = []
        walk, path = ScopeWalk.start(context.sketch, hole, scope), ()
        while True:
            if walk.done:
                score = scorer.score(complete_for_scoring(oracle, walk.sketch))
                ranked.append((score, path))
                ranked.sort(key=lambda item: item[0])  # stable: the first met wins a tie
                del ranked[2:]
            else:
                current = min(walk.pending)
                options = iter(candidate_options(oracle.menus(walk.sketch).for_hole(current)))
                stack.append((walk, path, current, options))
            while stack:
                parent, parent_path, current, options = stack[-1]
                option = next(options, None)
                if option is not None:
                    walk, path = parent.take(oracle, option), parent_path + (PlannedStep(current, option.id),)
                    break
                stack.pop()
            else:
                break
        (best, steps), runner_up = ranked[0], (ranked[1][0] if len(ranked) > 1 else None)
        compared = {"completions": scorer.evaluations, "best_cycles": best[0], "best_bytes": best[1]}
        if runner_up is not None:
            compared.update(runner_up_cycles=runner_up[0], runner_up_bytes=runner_up[1])
        return Plan(steps, f"cheapest of {scorer.evaluations:,} completions by the cost model "
                           f"({figure(best[0])} cycles, {figure(best[1])} bytes)",
                    cost_model_evaluations=scorer.evaluations, compared=compared)
