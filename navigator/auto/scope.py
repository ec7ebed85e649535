"""Walking a scope on a copy of the sketch: which open holes belong to it, and how to
complete everything else the way the driver would leave it, so a candidate can be scored.

A strategy that plans works on `Sketch` values (immutable) through the oracle; the session is
only touched when the driver applies the plan.
"""

from __future__ import annotations

from dataclasses import dataclass

from navigator.auto.base import Scope, StrategyError
from navigator.synth import HoleMenu, MenuOption, Oracle, Sketch


@dataclass(frozen=True)
class ScopeWalk:
    """A sketch part-way through a scope: the holes of the scope still open."""

    sketch: Sketch
    scope: Scope
    #: open holes of the scope (for Scope.ALL, every open hole)
    pending: frozenset[int]

    @staticmethod
    def start(sketch: Sketch, hole: int, scope: Scope) -> "ScopeWalk":
        pending = {h.id for h in sketch.holes()} if scope is Scope.ALL else {hole}
        return ScopeWalk(sketch, scope, frozenset(pending))

    @property
    def done(self) -> bool:
        return not self.pending

    def take(self, oracle: Oracle, option: MenuOption) -> "ScopeWalk":
        """The walk after filling `option.hole`; the holes it opens join the scope unless the
        scope is the hole alone."""
        after = oracle.apply(self.sketch, option)
        opened = set(range(self.sketch.next_hole, after.next_hole)) if self.scope is not Scope.HOLE else set()
        return ScopeWalk(after, self.scope, frozenset((self.pending - {option.hole}) | opened))


def candidate_options(menu: HoleMenu) -> tuple[MenuOption, ...]:
    """The options a search branches on: shortcuts (`alias`) build nothing the other options
    do not, so leaving them out loses no completion and counts none twice."""
    plain = tuple(o for o in menu.options if not o.alias)
    return plain or menu.options


def scoring_option(menu: HoleMenu) -> MenuOption:
    """What stands in for a hole outside the scope when a candidate is scored: the library's
    default (what `export --partial` takes), else the first option."""
    if not menu.options:
        raise StrategyError(f"nothing is offered at ?{menu.hole}", fix="undo the step that blocked the sketch")
    return menu.default or candidate_options(menu)[0]


def complete_for_scoring(oracle: Oracle, sketch: Sketch) -> Sketch:
    """`sketch` with every open hole filled by `scoring_option`, lowest hole first."""
    while not sketch.complete:
        menus = oracle.menus(sketch)
        if menus.blocked:
            raise StrategyError(f"the sketch cannot be completed: {menus.blocked}",
                                fix="undo the step that blocked it (navigator undo)")
        sketch = oracle.apply(sketch, scoring_option(menus.for_hole(sketch.lowest_hole().id)))
    return sketch
