"""What session commands print: the text people read and the JSON documents scripts read.

Every JSON document carries `format` and `version`; docs/session-json.md describes them and
tests/schemas/ holds their JSON Schemas. Within a version, fields are only ever added.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterable, Mapping

from fuseflow.support.errors import UserError, one_line, show_value
from fuseflow.support.numbers import figure
from navigator.lang import Library
from navigator.present.choice import compact_labels, count_text
from navigator.present.regions import RegionView, region_view
from navigator.workspace.session_workspace import Workspace
from navigator.navigation.step_log import StepRecord
from navigator.synth import Count, HoleMenu, MenuOption, Menus, format_sketch, sketch_to_json

if TYPE_CHECKING:
    from fuseflow.cost.hints import CostHint

#: (hole, option id) -> the option's cost hint (None: no hint)
Hints = Mapping[tuple[int, str], "CostHint | None"]

JSON_VERSION = 1
#: navigator-show: version 2 added each option's `hint` (docs/session-json.md)
SHOW_VERSION = 2
#: alternatives `history` prints per step before "and N more" (--json carries them all)
_ALTERNATIVES_SHOWN = 3


def _plural(count: Count, word: str) -> str:
    if count.unbounded:
        return f"unboundedly many {word}s"
    return f"{figure(count.value)} {word}" + ("" if count.value == 1 else "s")


# ---------------------------------------------------------------- show

def program_json(workspace: Workspace) -> dict[str, Any]:
    spec = workspace.spec
    return {"name": workspace.loaded.name, "spec": spec.program, "bundled": spec.bundled,
            "data": spec.data, "dims": spec.dims_dict, "library": spec.library, "kind": spec.kind}


def _info(library: Library, function: str) -> Mapping[str, Any]:
    """The library's free-form `info` table of a function (empty when it has none)."""
    decl = library.functions.get(function)
    return decl.info if decl is not None and isinstance(decl.info, Mapping) else {}


def _info_text(info: Mapping[str, Any], key: str) -> str | None:
    """A text of the library's `info`, trimmed; None when it is missing, empty or not text."""
    value = info.get(key)
    return value.strip() if isinstance(value, str) and value.strip() else None


def _title_line(title: str) -> str:
    """A title on one line with no escape sequence for the terminal (it is library text)."""
    return one_line(" ".join(title.split()))


def _json_safe(value: Any) -> Any:
    """TOML values as JSON: dates and times become their ISO text."""
    if isinstance(value, Mapping):
        return {str(k): _json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_safe(v) for v in value]
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    return value.isoformat() if hasattr(value, "isoformat") else str(value)


def menu_hints(workspace: Workspace, menus: Menus, shown: Iterable[HoleMenu]) -> Hints:
    """(hole, option id) -> cost hint of the options of the `shown` menus; empty for a Honeybee
    problem (its space has no cost model: every hint is then null)."""
    if not workspace.space.has_cost_model:
        return {}
    return workspace.space.hints(workspace.session.sketch, menus.only(menu.hole for menu in shown))


def _hint_text(hint: CostHint | None) -> str:
    return f", {hint.describe()}" if hint is not None else ""


def _simulated_text(found) -> str:
    """`, sim. 4,487,009 cycles` (this option, the current choices, the heuristic for the rest)."""
    if found is None:
        return ""
    if found.cycles is None:
        return f", sim. not run ({found.problem})" if found.problem else ", sim. cancelled"
    return f", sim. {figure(found.cycles)} cycles" + (" (cached)" if found.cached else "")


def simulated_cell(found) -> str:
    """The TUI's sim. cell of an option (navigator.actions.simulate_options.OptionSimulation)."""
    if found.cycles is None:
        return "too large" if found.problem else "cancelled"
    return figure(found.cycles)


def hole_json(menu: HoleMenu, library: Library | None = None, hints: Hints | None = None,
              simulated: Mapping | None = None) -> dict[str, Any]:
    default = next((i for i, o in enumerate(menu.options, 1) if o.is_default), None)
    hints = hints or {}
    simulated = simulated or {}
    return {
        "hole": menu.hole,
        "label": f"?{menu.hole}",
        "type": menu.type,
        "parent": menu.parent_function,
        "param": menu.param,
        "default": default,
        "options": [{"number": i, "id": o.id, "function": o.function, "metadata": o.metadata_dict(),
                     "count": o.count.to_json(), "subtree_count": o.subtree_count.to_json(),
                     "default": o.is_default, "alias": o.alias,
                     "hint": _hint_json(hints.get((menu.hole, o.id))),
                     **({"simulated": simulated[(menu.hole, o.id)].to_dict()} if (menu.hole, o.id) in simulated
                        else {}),
                     "info": _json_safe(_info(library, o.function)) if library is not None else {}}
                    for i, o in enumerate(menu.options, 1)],
    }


def _hint_json(hint: CostHint | None) -> dict[str, Any] | None:
    return hint.to_dict() if hint is not None else None


def _menus_shown(menus: Menus, only_hole: int | None, view: RegionView | None = None,
                 region: str | None = None) -> tuple[HoleMenu, ...]:
    shown = menus.holes if only_hole is None else tuple(m for m in menus.holes if m.hole == only_hole)
    if region is not None and view is not None:
        shown = tuple(m for m in shown if view.hole_region.get(m.hole) == region)
    return shown


def check_region(workspace: Workspace, region: str) -> RegionView:
    """The sketch's regions, after checking that `region` is one of them."""
    view = region_view(workspace.session.sketch)
    if region not in view.roots:
        names = ", ".join(view.names) or "none yet (choose the fusion first)"
        raise UserError(f"the sketch has no region {show_value(region)}", where="--region",
                        fix=f"its regions: {names}")
    return view


def show_json(workspace: Workspace, menus: Menus, only_hole: int | None = None,
              region: str | None = None, with_hints: bool = False, simulated: Mapping | None = None
              ) -> dict[str, Any]:
    session = workspace.session
    view = region_view(session.sketch)
    shown = _menus_shown(menus, only_hole, view, region)
    hints = menu_hints(workspace, menus, shown) if with_hints else {}
    return {
        "format": "navigator-show",
        "version": SHOW_VERSION,
        "session": str(workspace.path),
        "program": program_json(workspace),
        "steps": len(session.steps),
        "can_undo": session.can_undo,
        "can_redo": session.can_redo,
        "complete": session.complete,
        "completions": menus.total.to_json(),
        "blocked": menus.blocked,
        "open_holes": [h.id for h in session.sketch.holes()],
        "sketch": {"text": format_sketch(session.sketch), "expression": sketch_to_json(session.sketch)},
        "holes": [{**hole_json(m, workspace.space.library, hints, simulated), "region": view.hole_region.get(m.hole)}
                  for m in shown],
    }


def format_menu(menu: HoleMenu, library: Library | None = None, verbose: bool = False,
                hints: Hints | None = None, simulated: Mapping | None = None) -> list[str]:
    """A hole's options, each with its function's `info.title` (and with `verbose`, its
    `info.description`) when the library gives one, and its count, cost hint (est.) and
    simulated figure (sim.: navigator.actions.simulate_options)."""
    hints = hints or {}
    simulated = simulated or {}
    where = f"{menu.parent_function}.{menu.param}" if menu.parent_function else "the goal"
    lines = [f"?{menu.hole} : {menu.type} ({where})"]
    width = len(str(len(menu.options)))
    for number, option in enumerate(menu.options, 1):
        info = _info(library, option.function) if library is not None else {}
        title = _info_text(info, "title")
        mark = ("   (default)" if option.is_default else "") + ("   (shortcut)" if option.alias else "")
        lines.append(f"  {number:>{width}}. {option.id}{mark}" + (f"   -- {_title_line(title)}" if title else ""))
        description = _info_text(info, "description") if verbose else None
        if description:
            lines.extend(f"  {'':>{width}}    {one_line(line.rstrip())}" for line in description.splitlines())
        lines.append(f"  {'':>{width}}    {_plural(option.count, 'completion')}"
                     f"{_hint_text(hints.get((menu.hole, option.id)))}"
                     f"{_simulated_text(simulated.get((menu.hole, option.id)))}")
    if not menu.options:
        lines.append("  (nothing is offered)")
    return lines


_NO_HEADING = object()


def _written(workspace: Workspace) -> str:
    return workspace.space.product


def format_show(workspace: Workspace, menus: Menus, only_hole: int | None = None, verbose: bool = False,
                region: str | None = None, open_only: bool = False, with_hints: bool = False,
                simulated: Mapping | None = None) -> str:
    """The session's header, its sketch and the menus of its open holes. `region` keeps the
    part of the sketch and the holes of one region; `open_only` leaves out the sketch and
    lists the open holes grouped by region (for sketches with hundreds of holes)."""
    session = workspace.session
    view = region_view(session.sketch)
    holes = session.sketch.holes()
    if session.complete:
        status = "complete"
    elif menus.blocked:
        status = f"blocked: {menus.blocked}"
    else:
        status = (f"{len(holes)} open hole{'s' if len(holes) != 1 else ''}, "
                  f"{_plural(menus.total, 'completion')}")
    lines = [
        f"session  {workspace.path}",
        f"{workspace.space.noun}  {workspace.spec.describe()}",
        f"steps    {len(session.steps)} (undo: {'yes' if session.can_undo else 'no'}, "
        f"redo: {'yes' if session.can_redo else 'no'})",
        f"status   {status}",
    ]
    if region is not None:
        lines += ["", f"region {region}:"] + [format_sketch(root) for root in view.roots[region]]
    elif not open_only:
        lines += ["", format_sketch(session.sketch)]
    heading: object = _NO_HEADING
    shown = _menus_shown(menus, only_hole, view, region)
    hints = menu_hints(workspace, menus, shown) if with_hints else {}
    if open_only and region is None:  # program-wide holes first, then each region's in sketch order
        order = {name: index for index, name in enumerate(view.names)}
        shown = tuple(sorted(shown, key=lambda m: (order.get(view.hole_region.get(m.hole), -1), m.hole)))
    for menu in shown:
        lines.append("")
        if open_only and region is None:
            named = view.hole_region.get(menu.hole)
            if named != heading:
                lines += [f"== {'region ' + named if named is not None else 'program-wide'}", ""]
                heading = named
        lines.extend(format_menu(menu, workspace.space.library, verbose, hints, simulated))
    if session.complete:
        what = _written(workspace)
        lines += ["", f"The sketch is complete: `navigator export --json {what}.json` writes its {what}."]
    elif holes and only_hole is None:
        lines += ["", f"Fill a hole: navigator fill '?{holes[0].id}' NUMBER   "
                      f"(or --auto default; see docs/cli.md)"]
    return "\n".join(lines)


# ---------------------------------------------------------------- steps (fill, undo, redo)

def step_line(record: StepRecord) -> str:
    return f"?{record.hole} := {record.option}"


def steps_json(workspace: Workspace, action: str, records: Iterable[StepRecord]) -> dict[str, Any]:
    session = workspace.session
    menus = session.menus()
    return {
        "format": "navigator-steps",
        "version": JSON_VERSION,
        "action": action,
        "session": str(workspace.path),
        "steps": [r.to_dict() for r in records],
        "history_length": len(session.steps),
        "complete": session.complete,
        "completions": menus.total.to_json(),
        "open_holes": [h.id for h in session.sketch.holes()],
    }


def format_steps(workspace: Workspace, action: str, records: Iterable[StepRecord]) -> str:
    verb = {"fill": "", "undo": "undid ", "redo": "redid "}[action]
    lines = [f"{verb}{step_line(r)}   [{r.by}]" for r in records]
    session = workspace.session
    if session.complete:
        what = _written(workspace)
        lines.append(f"complete: `navigator export --json {what}.json` writes the {what}")
    else:
        holes = " ".join(f"?{h.id}" for h in session.sketch.holes())
        lines.append(f"open holes: {holes}   ({_plural(session.menus().total, 'completion')})")
    return "\n".join(lines)


# ---------------------------------------------------------------- history

def _alternative_json(option: MenuOption) -> dict[str, Any]:
    return {"id": option.id, "count": option.count.to_json()}


def history_json(workspace: Workspace) -> dict[str, Any]:
    session = workspace.session
    return {
        "format": "navigator-history",
        "version": JSON_VERSION,
        "session": str(workspace.path),
        "program": program_json(workspace),
        "steps": [{"number": i, **r.to_dict(),
                   "alternatives": [_alternative_json(o) for o in session.alternatives(i - 1)]}
                  for i, r in enumerate(session.steps, 1)],
        "redo": [r.to_dict() for r in session.redo_steps],
    }


def _alternatives_line(alternatives: tuple[MenuOption, ...]) -> str:
    labels = compact_labels(alternatives)
    shown = ", ".join(f"{label} ({count_text(o)})"
                      for o, label in zip(alternatives[:_ALTERNATIVES_SHOWN], labels))
    more = len(alternatives) - _ALTERNATIVES_SHOWN
    return f"not taken: {shown}" + (f" and {more} more (`navigator history --json` lists them)" if more > 0 else "")


def _record_lines(prefix: str, record: StepRecord,
                  alternatives: tuple[MenuOption, ...] | None = None) -> list[str]:
    indent = " " * len(prefix)
    lines = [f"{prefix}{step_line(record)}",
             f"{indent}by {record.by} at {record.timestamp or '(unknown time)'}"
             + (f", command {record.command}" if record.command is not None else "")]
    if record.rationale:
        lines.append(f"{indent}why: {record.rationale}")
    if record.figures:
        lines.append(f"{indent}weighed: {_figures_text(record.figures)}")
    if alternatives:
        lines.append(indent + _alternatives_line(alternatives))
    return lines


def _figures_text(figures) -> str:
    """A strategy's figures on one line: evaluations, then what it compared."""
    evaluated = figures.get("evaluated") or {}
    parts = [f"{evaluated.get('cost_model', 0):,} by the cost model, {evaluated.get('simulator', 0):,} simulated"]
    for key, value in (figures.get("compared") or {}).items():
        if isinstance(value, dict):
            value = ", ".join(f"{k} {v}" for k, v in value.items())
        elif isinstance(value, float):
            value = f"{value:,.6g}"
        parts.append(f"{key.replace('_', ' ')} {value}")
    return "; ".join(parts)


def format_history(workspace: Workspace) -> str:
    session = workspace.session
    lines = [f"session  {workspace.path}",
             f"{workspace.space.noun}  {workspace.spec.describe()}", ""]
    if not session.steps:
        lines.append("no steps yet")
    width = len(str(len(session.steps)))
    for number, record in enumerate(session.steps, 1):
        lines.extend(_record_lines(f"{number:>{width}}. ", record, session.alternatives(number - 1)))
    if session.redo_steps:
        lines += ["", "undone (`navigator redo` re-takes them, next first):"]
        for record in session.redo_steps:
            lines.extend(_record_lines("  - ", record))
    return "\n".join(lines)
