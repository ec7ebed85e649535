"""The `default` strategy: take the option the library marks as the hole's default."""

from __future__ import annotations

from navigator.auto.base import Choice, StrategyContext, StrategyError


class DefaultStrategy:
    name = "default"
    provenance = "default"  # the session's own word for a library default

    def choose(self, context: StrategyContext, hole: int) -> Choice:
        if context.menus.blocked:
            raise StrategyError(f"the sketch cannot be completed: {context.menus.blocked}",
                                fix="undo the step that blocked it (navigator undo), or check the library's "
                                    "conditions against the facts")
        menu = context.menu(hole)
        if menu.default is None:
            raise StrategyError(f"?{hole} ({menu.type}) has no default option",
                                fix=f"choose one by hand: navigator fill '?{hole}' NUMBER "
                                    f"(navigator show --hole {hole} lists them)")
        return Choice(menu.default.id, f"library default for {menu.type}")
