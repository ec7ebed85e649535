"""Candidates as decisions: which option each kind of choice takes, replayable on any sketch.

A menu's *decision* is named by what its options share: the hole's type and parameter, their
functions, and the metadata fields equal across all of them (a par menu: its region and
variable; an order menu: its region; a fusion step: its state). What differs between the
options is the choice. A candidate maps decisions to chosen option ids. Replaying it walks the
scope lowest hole first and, at each hole, takes the mapped option when it is offered and asks
a base policy otherwise. So a variant that changes one decision re-derives what lies beneath
it consistently, whatever hole numbers the walk meets, and every step is an offered option.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Mapping

from navigator.auto.base import PlannedStep
from navigator.auto.scope import ScopeWalk, candidate_options

if TYPE_CHECKING:
    from navigator.synth import HoleMenu, MenuOption, Oracle, Sketch

#: (hole type, parameter, functions, shared metadata fields as (name, text) pairs)
Decision = tuple
#: chooses an offered option of a menu when the candidate does not say
Policy = Callable[["Sketch", "HoleMenu"], "MenuOption"]


def decision_of(menu: "HoleMenu") -> Decision:
    options = candidate_options(menu)
    metadata = [o.metadata_dict() for o in options]
    shared = {name: value for name, value in metadata[0].items()
              if all(name in other and other[name] == value for other in metadata[1:])} if metadata else {}
    return (menu.type, menu.param, tuple(sorted({o.function for o in options})),
            tuple(sorted((name, str(value)) for name, value in shared.items())))


def region_of(decision: Decision) -> str | None:
    """The region a decision belongs to (its options share a `region` field), else None."""
    return dict(decision[3]).get("region")


@dataclass(frozen=True)
class Met:
    """A decision as the walk met it: the sketch before the step, the menu, and the choice."""

    decision: Decision
    sketch: "Sketch"
    menu: "HoleMenu"
    option: "MenuOption"

    @property
    def alternatives(self) -> tuple["MenuOption", ...]:
        return candidate_options(self.menu)


@dataclass(frozen=True)
class Candidate:
    """A walk of the scope: its steps, the decisions it met (those with a choice), and the
    sketch it ends with (holes outside the scope still open)."""

    steps: tuple[PlannedStep, ...]
    met: tuple[Met, ...]
    sketch: "Sketch"

    @property
    def choices(self) -> dict[Decision, str]:
        return {m.decision: m.option.id for m in self.met}

    def regions(self) -> set[str]:
        return {region for m in self.met if (region := region_of(m.decision)) is not None}


def realize(oracle: "Oracle", start: ScopeWalk, overrides: Mapping[Decision, str], policy: Policy) -> Candidate:
    """Walk the scope from `start`, taking the overridden option where it is offered and the
    policy's choice elsewhere."""
    walk = start
    steps: list[PlannedStep] = []
    met: list[Met] = []
    while not walk.done:
        current = min(walk.pending)
        menu = oracle.menus(walk.sketch).for_hole(current)
        options = candidate_options(menu)
        if len(options) == 1:
            option = options[0]
        else:
            decision = decision_of(menu)
            wanted = overrides.get(decision)
            option = next((o for o in options if o.id == wanted), None) if wanted is not None else None
            if option is None:
                option = policy(walk.sketch, menu)
            met.append(Met(decision, walk.sketch, menu, option))
        steps.append(PlannedStep(current, option.id))
        walk = walk.take(oracle, option)
    return Candidate(tuple(steps), tuple(met), walk.sketch)


def changed(candidate: Candidate, changes: Mapping[Decision, str]) -> dict[Decision, str]:
    """The candidate's choices with `changes` made; the choices met after a changed decision in
    its region are dropped (they may depend on it: a par factor on the loop order), so the
    policy makes them again."""
    overrides: dict[Decision, str] = {}
    stale: set[str] = set()
    for m in candidate.met:
        region = region_of(m.decision)
        if m.decision in changes:
            overrides[m.decision] = changes[m.decision]
            if region is not None:
                stale.add(region)
        elif region is None or region not in stale:
            overrides[m.decision] = m.option.id
    return overrides
