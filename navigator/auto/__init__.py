"""Fill-in strategies: given a session and an open hole, choose one offered option.

    from navigator.auto import get_strategy, fill_with_strategy
    steps = fill_with_strategy(session, hole=5, strategy=get_strategy("default"), subtree=True)

A strategy implements the `Strategy` protocol (navigator.auto.base). Strategies are found
by name in a registry (navigator.auto.registry): the built-in ones are listed there, and
`register_strategy` adds more at run time. The driver (navigator.auto.driver) applies the
choices through the session, so every step is checked against the menus and recorded
with its provenance ("default" or "strategy:<name>") and rationale.
"""

from navigator.auto.base import Choice, Strategy, StrategyContext, StrategyError, StrategyFailure
from navigator.auto.driver import fill_open_holes, fill_with_strategy
from navigator.auto.registry import describe_strategies, get_strategy, register_strategy, strategy_names

__all__ = [
    "Choice", "Strategy", "StrategyContext", "StrategyError", "StrategyFailure",
    "describe_strategies", "fill_open_holes", "fill_with_strategy", "get_strategy",
    "register_strategy", "strategy_names",
]
