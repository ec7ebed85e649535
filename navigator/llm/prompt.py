"""The prompt of an LLM fill-in: what the language model is told (docs/llm.md, "What the model is told").

It describes, in this order: the program, its data and the hardware (navigator.llm.describe,
built once per schedule space), the current sketch, each region's roofline class under the
sketch completed with its defaults, the menu of every hole to fill, then the caller's feedback
and answer instructions. A Honeybee problem (no schedule space) gets its goal and facts, the
sketch and the menus only.

Options are named `"<hole>.<number>"`, the number being the option's place in the menu as
`navigator show` numbers it from 1 ("3.2" is `navigator fill ?3 2`). A long menu lists at most
`max_options` of them (its default, then the best by cost hint) and says how many it leaves
out; `option_ids` resolves every offered id, listed or not.

The same session state gives the same bytes: holes in ascending order, options in a fixed
order, figures with three significant digits, nothing timed. Recordings of exchanges are
matched by a hash of the prompt.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Iterable, Mapping

from navigator.lang.formula import format_value
from navigator.llm.describe import ProgramBrief, count_text, figure
from navigator.llm.tokens import estimate_tokens

if TYPE_CHECKING:
    from fuseflow.cost.hints import CostHint
    from fuseflow.cost.hardware import Hardware
    from navigator.auto.base import StrategyContext
    from navigator.synth import Count, HoleMenu, Menus, Sketch

#: options a menu lists before it says how many it leaves out
MAX_OPTIONS = 20
#: a sketch longer than this (lines) is shown as the regions of the holes to fill only
SKETCH_LINES = 120
#: facts of a Honeybee problem listed one by one; beyond, only their count per prop
FACTS_LISTED = 40


@dataclass(frozen=True)
class MenuEntry:
    """One listed option of a hole's menu."""

    id: str                 # "3.2": hole 3, menu number 2
    hole: int
    number: int             # 1-based menu number, as `navigator show` prints it
    option_id: str          # the session's option id (MenuOption.id), what session.apply takes
    function: str
    metadata: tuple[tuple[str, Any], ...]
    title: str | None
    count: "Count"
    default: bool
    shortcut: bool
    hint: "CostHint | None"


@dataclass(frozen=True)
class Prompt:
    #: [{"role": "system", ...}, {"role": "user", ...}] for chat.completions
    messages: list[dict]
    #: the user message (what --verbose shows)
    text: str
    #: the messages' tokens as navigator.llm.tokens estimates them (within ESTIMATE_ERROR)
    estimated_tokens: int
    #: every LISTED id -> its entry (option_ids has every offered one)
    entries: dict[str, MenuEntry]
    holes: tuple[int, ...]


def option_ids(menus: "Menus", holes: Iterable[int]) -> dict[str, tuple[int, str]]:
    """Every offered id "h.n" of the `holes` -> (hole, the session's option id)."""
    return {f"{hole}.{number}": (hole, option.id)
            for hole in sorted(set(holes))
            for number, option in enumerate(menus.for_hole(hole).options, 1)}


def build_prompt(context: "StrategyContext", holes: Iterable[int], *, instructions: str, system: str,
                 feedback: str | None = None, hardware: "Hardware | None" = None,
                 max_options: int = MAX_OPTIONS) -> Prompt:
    """The prompt for filling `holes` (open holes of the context's sketch), with the caller's
    `system` message, answer `instructions` and, on later rounds, `feedback`."""
    if max_options < 1:
        raise ValueError("max_options must be at least 1")
    holes = tuple(sorted(set(holes)))
    space = context.space
    if space is not None and hardware is None:
        from fuseflow.cost.hardware import load_hardware

        hardware = load_hardware()
    state = _state_text(context, holes, hardware, max_options)
    sections = [state.text]
    if feedback:
        sections.append("## Feedback on the previous round\n" + feedback.strip())
    sections.append("## Answer\n" + instructions.strip())
    text = "\n\n".join(sections) + "\n"
    messages = [{"role": "system", "content": system}, {"role": "user", "content": text}]
    return Prompt(messages, text, estimate_tokens(messages), dict(state.entries), holes)


# ---------------------------------------------------------------- the state (cached per round)

@dataclass(frozen=True)
class _State:
    text: str
    entries: tuple[tuple[str, MenuEntry], ...]
    #: the space (or session) it describes: an id is reused once its object is gone
    owner: "weakref.ref"


#: (id(space or session), sketch, holes, hardware, max_options, seed) -> state; a fill asks
#: again for the same state each round, with new feedback only
_STATES: dict[tuple, _State] = {}
_STATES_KEPT = 8


def _state_text(context: "StrategyContext", holes: tuple[int, ...], hardware, max_options: int) -> _State:
    space = context.space
    owner = space if space is not None else context.session
    key = (id(owner), context.sketch, holes, hardware, max_options, _seed(context))
    cached = _STATES.get(key)
    if cached is not None and cached.owner() is owner:
        return cached
    menus = [context.menu(h) for h in holes]
    hints = _hints(context, menus)
    library = context.session.library
    parts: list[str] = []
    if space is not None:
        brief = ProgramBrief.of(space, hardware, _seed(context))
        parts += [brief.program, brief.data, brief.hardware]
    else:
        parts.append(_problem_text(context))
    parts.append(_sketch_text(context.sketch, holes))
    if space is not None:
        parts.append(_regions_text(context, hardware))
    entries: dict[str, MenuEntry] = {}
    example = holes[0] if holes else 0
    menu_lines = ["## Menus of the holes to fill",
                  f'Each option is named HOLE.NUMBER: "{example}.2" is option 2 of hole ?{example}.']
    region_of = _hole_regions(context.sketch)
    for menu in menus:
        listed, lines = _menu_text(menu, library, hints, region_of.get(menu.hole), max_options)
        entries.update((e.id, e) for e in listed)
        menu_lines += [""] + lines
    parts.append("\n".join(menu_lines))
    state = _State("\n\n".join(parts), tuple(entries.items()), weakref.ref(owner))
    _STATES.pop(key, None)
    if len(_STATES) >= _STATES_KEPT:
        _STATES.pop(next(iter(_STATES)))
    _STATES[key] = state
    return state


def _seed(context: "StrategyContext") -> int | None:
    return context.evaluation.seed if context.evaluation is not None else None


def _hints(context: "StrategyContext", menus: list["HoleMenu"]) -> Mapping[tuple[int, str], "CostHint | None"]:
    if context.space is None or not menus:
        return {}
    return context.space.hints(context.sketch, context.menus.only(menu.hole for menu in menus))


# ---------------------------------------------------------------- a Honeybee problem

def _problem_text(context: "StrategyContext") -> str:
    session = context.session
    facts = session.facts
    goal = facts.goal
    args = ", ".join(f"{name}={format_value(value)}" for name, value in goal.args)
    # file names only: the prompt (and its recordings' hash) must not depend on where they lie
    lines = [f"# Honeybee problem {_file_name(facts.source)}".rstrip(),
             f"library: {', '.join(_file_name(s) for s in session.library.sources)}",
             f"goal: a {goal.type}" + (f" with {args}" if args else "")]
    if len(facts.facts) <= FACTS_LISTED:
        lines += ["facts:"] + [f"  {fact}" for fact in facts.facts]
    else:
        per_prop: dict[str, int] = {}
        for fact in facts.facts:
            per_prop[fact.prop] = per_prop.get(fact.prop, 0) + 1
        lines.append(f"facts ({len(facts.facts):,}): " + ", ".join(f"{p} x{n}" for p, n in per_prop.items()))
    return "\n".join(lines)


def _file_name(source: str | None) -> str:
    from pathlib import PurePath

    return PurePath(source).name if source else ""


# ---------------------------------------------------------------- the sketch and its regions

def _sketch_text(sketch: "Sketch", holes: tuple[int, ...]) -> str:
    from navigator.present.regions import region_view
    from navigator.synth import format_sketch

    open_holes = [h.id for h in sketch.holes()]
    heading = (f"## Current sketch ({len(open_holes)} open hole{'s' if len(open_holes) != 1 else ''}; "
               f"to fill: {' '.join(f'?{h}' for h in holes)})")
    text = format_sketch(sketch)
    if text.count("\n") < SKETCH_LINES:
        return f"{heading}\n{text}"
    # Too long to send whole: the parts of the regions whose holes are to be filled.
    view = region_view(sketch)
    wanted = [name for name in view.names if any(view.hole_region.get(h) == name for h in holes)]
    lines = [heading, f"(abbreviated: {text.count(chr(10)) + 1:,} lines; regions placed: {len(view.names):,}"
             + (f"; showing {', '.join(wanted)})" if wanted else ")")]
    for name in wanted:
        lines += [f"region {name}:"] + [format_sketch(root) for root in view.roots[name]]
    return "\n".join(lines)


def _hole_regions(sketch: "Sketch") -> dict[int, str | None]:
    from navigator.present.regions import region_view

    return region_view(sketch).hole_region


def _regions_text(context: "StrategyContext", hardware) -> str:
    """Each region's order, roofline class and figures once the open holes take their
    defaults (navigator.auto.scope.complete_for_scoring), by the cost model."""
    from fuseflow.cost.estimate import schedule_cost
    from fuseflow.support.errors import UserError
    from navigator.auto.scope import complete_for_scoring

    space = context.space
    heading = "## Regions if every open hole took its default (cost model estimates, not simulated)"
    try:
        schedule = space.schedule_of(complete_for_scoring(context.oracle, context.sketch))
        cost = schedule_cost(space.program, space.binding, schedule, hardware, stats=space.statistics)
    except UserError as exc:
        return f"{heading}\n(no estimate: {exc.bare_message})"
    lines = [heading]
    for region in cost.regions:
        cycles = cost.region_cycles(region)
        lines.append(f"{'+'.join(region.ops)} [order {' '.join(region.order)}]: {cost.region_roofline(region)}, "
                     f"est. {figure(cycles)} cycles ({_bound_by(region.timing)}), {figure(region.bytes)} bytes, "
                     f"{figure(region.flops)} FLOPs")
    lines.append(f"total: est. {figure(cost.cycles)} cycles, {figure(cost.bytes)} bytes, "
                 f"{figure(cost.flops)} FLOPs; {cost.bound.describe('estimated cycles')}")
    return "\n".join(lines)


def _bound_by(timing) -> str:
    """What sets a region's estimated cycles, in a word or two: memory, arithmetic, or the kind
    of its slowest primitive (`sparse accumulator`)."""
    from fuseflow.lower.plan import PRIMITIVE_KINDS

    if timing.bound in ("memory", "arithmetic"):
        return timing.bound
    kinds = [k for k in PRIMITIVE_KINDS.values() if f"(the {k} " in timing.bottleneck]
    return max(kinds, key=len) if kinds else "a primitive"


# ---------------------------------------------------------------- one hole's menu

def _menu_text(menu: "HoleMenu", library, hints: Mapping, region: str | None,
               max_options: int) -> tuple[list[MenuEntry], list[str]]:
    options = menu.options
    entries = [_entry(menu.hole, number, option, library, hints) for number, option in enumerate(options, 1)]
    common = _common_metadata(entries)
    titles = {e.title for e in entries}
    where = f"{menu.parent_function}.{menu.param}" if menu.parent_function else "the goal"
    heading = f"### ?{menu.hole} : {menu.type} ({where})" + (f", region {region}" if region else "")
    lines = [heading + f": {len(entries):,} option{'s' if len(entries) != 1 else ''}"]
    if len(titles) == 1 and None not in titles:
        lines.append(f"every option: {titles.pop()}")
        per_option_title = False
    else:
        per_option_title = True
    if common:
        lines.append("common to every option: " + ", ".join(f"{k}={format_value(v)}" for k, v in common))
    listed = _listed(entries, max_options)
    common_keys = {k for k, _ in common}
    for entry in listed:
        lines.append(_entry_line(entry, common_keys, per_option_title))
    if not entries:
        lines.append("(nothing is offered)")
    elif len(listed) < len(entries):
        lines.append(f"showing {len(listed):,} of {len(entries):,} (the default, then the best by cost hint); "
                     f"other ids {menu.hole}.1 to {menu.hole}.{len(entries)} are valid too but not listed")
    return listed, lines


def _entry(hole: int, number: int, option, library, hints: Mapping) -> MenuEntry:
    decl = library.functions.get(option.function)
    info = decl.info if decl is not None and isinstance(decl.info, Mapping) else {}
    title = info.get("title")
    title = " ".join(title.split()) if isinstance(title, str) and title.strip() else None
    return MenuEntry(f"{hole}.{number}", hole, number, option.id, option.function, option.metadata, title,
                     option.count, option.is_default, option.alias, hints.get((hole, option.id)))


def _common_metadata(entries: list[MenuEntry]) -> tuple[tuple[str, Any], ...]:
    """(field, value) every option shares (said once for the hole), in the first's field order;
    is_default is said by the default mark instead."""
    if len(entries) < 2:
        return ()
    first = entries[0].metadata
    return tuple((k, v) for k, v in first if k != "is_default"
                 and all(dict(e.metadata).get(k, _MISSING) == v and type(dict(e.metadata)[k]) is type(v)
                         for e in entries[1:]))


_MISSING = object()


def _listed(entries: list[MenuEntry], max_options: int) -> list[MenuEntry]:
    """All entries in menu order when they fit; else the default, then the best by cost hint
    (estimates before bounds, no hint last, then menu order)."""
    if len(entries) <= max_options:
        return entries
    ranked = sorted(entries, key=lambda e: (not e.default, e.hint is None, e.hint is not None and not e.hint.exact,
                                            e.hint.key if e.hint is not None else (), e.number))
    return ranked[:max_options]


def _entry_line(entry: MenuEntry, common_keys: set[str], with_title: bool) -> str:
    shown = [(k, v) for k, v in entry.metadata if k not in common_keys and k != "is_default"]
    label = entry.function + ("{" + ", ".join(f"{k}={format_value(v)}" for k, v in shown) + "}" if shown else "")
    marks = "".join(mark for mark, on in ((" (default)", entry.default), (" (shortcut)", entry.shortcut)) if on)
    title = f" -- {entry.title}" if with_title and entry.title else ""
    count = entry.count
    completions = "unboundedly many completions" if count.unbounded else \
        f"{count_text(count.value)} completion{'s' if count.value != 1 else ''}"
    hint = f"; {entry.hint.describe()}" if entry.hint is not None else ""
    return f"{entry.id}  {label}{marks}{title}; {completions}{hint}"
