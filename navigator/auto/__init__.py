"""Fill-in strategies: given a session and an open hole, choose one offered option.

    from navigator.auto import Scope, fill, get_strategy
    steps = fill(session, 5, get_strategy("exhaustive", limit=1000), Scope.SUBTREE, space=space)

A strategy implements the `Strategy` protocol (one hole at a time) or the `PlanningStrategy`
protocol (a plan for a whole scope, with the figures it weighed) of navigator.auto.base. Strategies are found
by name in a registry (navigator.auto.registry): the built-in ones are listed there, and
`register_strategy` adds more at run time. The driver (navigator.auto.driver) applies the
choices through the session, so every step is checked against the menus and recorded
with its provenance ("default" or "strategy:<name>") and rationale.
"""

from navigator.auto.base import (Choice, Plan, PlannedStep, PlanningStrategy, Scope, Strategy, StrategyContext,
                                 StrategyError, StrategyFailure)
from navigator.auto.driver import apply_plan, fill, fill_open_holes, fill_with_strategy
from navigator.auto.registry import describe_strategies, get_strategy, register_strategy, strategy_names

__all__ = [
    "Choice", "Plan", "PlannedStep", "PlanningStrategy", "Scope", "Strategy", "StrategyContext", "StrategyError",
    "StrategyFailure", "apply_plan", "describe_strategies", "fill", "fill_open_holes", "fill_with_strategy", "get_strategy",
    "register_strategy", "strategy_names",
]
