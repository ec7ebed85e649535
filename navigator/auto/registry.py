"""Strategies by name.

Built-in strategies are listed in `_BUILTIN` as "module:attribute" so that naming one
imports only that one (an LLM strategy must not make `navigator fill` import openai).
`register_strategy` adds a factory at run time, for plug-ins and tests.
"""

from __future__ import annotations

import importlib
import inspect
from typing import Any, Callable

from navigator.auto.base import Strategy, StrategyError

StrategyFactory = Callable[..., Strategy]

# name -> ("module:factory", one-line description)
_BUILTIN: dict[str, tuple[str, str]] = {
    "default": ("navigator.auto.default:DefaultStrategy", "the library's default option at each hole"),
    "exhaustive": ("navigator.auto.exhaustive:ExhaustiveStrategy",
                   "every completion scored by the cost model, when there are at most --limit"),
    "beam": ("navigator.auto.beam:BeamStrategy",
             "beam search by the cost hints, best structures confirmed and tuned with the simulator (--budget)"),
    "anneal": ("navigator.auto.anneal:AnnealStrategy",
               "simulated annealing by the cost model, then by the simulator (--budget)"),
    "heuristic": ("navigator.auto.heuristic:HeuristicStrategy",
                  "Scorch-style rules: sparse filters outward, outer dense parallelism, widest vectors"),
    "llm": ("navigator.llm.strategy:LLMStrategy",
            "a language model proposes from the menus, the cost model ranks, the simulator confirms (docs/llm.md)"),
}
_REGISTERED: dict[str, tuple[StrategyFactory, str]] = {}


def register_strategy(name: str, factory: StrategyFactory, description: str = "") -> None:
    """Make `get_strategy(name)` return `factory(**options)`; replaces an earlier registration."""
    if not name or not all(c.isalnum() or c in "_.-" for c in name):
        raise ValueError(f"a strategy name uses letters, digits, '_', '.' or '-': {name!r}")
    _REGISTERED[name] = (factory, description)


def strategy_names() -> list[str]:
    return sorted(set(_BUILTIN) | set(_REGISTERED))


def describe_strategies() -> dict[str, str]:
    descriptions = {name: text for name, (_, text) in _BUILTIN.items()}
    descriptions.update({name: text for name, (_, text) in _REGISTERED.items()})
    return dict(sorted(descriptions.items()))


#: a strategy option's command-line spelling, for messages
_OPTION_FLAGS = {"limit": "--limit", "budget": "--budget", "jobs": "--jobs", "engine": "--engine",
                 "scheduler": "--scheduler", "base_url": "--base-url", "model": "--model", "timeout": "--timeout",
                 "retries": "--retries", "rounds": "--rounds", "iterations": "--iterations", "beam": "--beam",
                 "replay": "--replay-llm", "verbose": "--verbose", "chooser": "--top",
                 "response_format": "--response-format", "max_tokens": "--max-tokens"}


def get_strategy(name: str, ambient: dict[str, Any] | None = None, **options: Any) -> Strategy:
    """The strategy `name`, built with `options` (None values are left out); an option its
    factory does not take is a StrategyError naming the flag. `ambient` options (a reporter, a
    recording path, ...) are passed only to a factory that takes them."""
    factory = _factory(name)
    given = {key: value for key, value in options.items() if value is not None}
    try:
        parameters = inspect.signature(factory).parameters
    except (TypeError, ValueError):  # a builtin or C factory: pass everything
        parameters = None
    takes_all = parameters is None or any(p.kind is p.VAR_KEYWORD for p in parameters.values())
    if not takes_all:
        for key in given:
            if key not in parameters:
                flag = _OPTION_FLAGS.get(key, key)
                raise StrategyError(f"{flag} does not apply to the {name} strategy", where=flag,
                                    fix=f"leave out {flag}, or choose a strategy that takes it "
                                        "(docs/strategies.md)")
    for key, value in (ambient or {}).items():
        if value is not None and (takes_all or key in parameters):
            given.setdefault(key, value)
    return factory(**given)


def _factory(name: str) -> StrategyFactory:
    if name in _REGISTERED:
        factory = _REGISTERED[name][0]
    elif name in _BUILTIN:
        module, _, attribute = _BUILTIN[name][0].partition(":")
        factory = getattr(importlib.import_module(module), attribute)
    else:
        raise StrategyError(f"unknown strategy {name!r}", where="--auto",
                            fix=f"known strategies: {', '.join(strategy_names())}")
    return factory
