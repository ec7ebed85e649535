"""Cost hints on menu options: for each offered step, the best estimated cost of the schedules
beneath it (fuseflow.cost.hints holds the rule and docs/cost-model.md#cost-hints the meaning).

This module only reads a partial sketch the way ScheduleSpace.schedule_of reads a complete one
(navigator.fuseflow.library_interface): the regions placed so far, each with its order when chosen, then
what is still open. A sketch it cannot read that way (a library that names things otherwise, a
Honeybee problem) gets no hint: None, never an error.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from fuseflow.support.errors import UserError
from navigator.synth import App, Hole, Menus, Sketch

if TYPE_CHECKING:
    from fuseflow.cost.hints import CostHint, CostHints
    from fuseflow.cost.hardware import Hardware
    from navigator.fuseflow.schedule_space import ScheduleSpace


class SketchHints:
    """Hints for the sketches of one schedule space; keeps fuseflow's memo between calls."""

    def __init__(self, space: "ScheduleSpace", hardware: "Hardware | None" = None):
        from fuseflow.cost.hints import CostHints
        from fuseflow.analysis.fusion_shortcuts import offered_shortcuts
        from fuseflow.cost.hardware import load_hardware

        self.space = space
        self.costs: CostHints = CostHints(space.program, space.binding, hardware or load_hardware())
        #: shortcut function -> its grouping (the FuseFlow library names them so)
        self.shortcuts = offered_shortcuts(space.program)

    def of_menus(self, sketch: Sketch, menus: Menus) -> dict[tuple[int, str], "CostHint | None"]:
        """(hole, option id) -> the hint of that step, for every option of every open hole."""
        oracle = self.space.oracle
        return {(option.hole, option.id): self.of_sketch(oracle.apply(sketch, option))
                for option in menus.options()}

    def of_sketch(self, sketch: Sketch) -> "CostHint | None":
        """The best estimated cost of the complete schedules extending `sketch`."""
        try:
            return self._read(sketch.root)
        except (_Unreadable, KeyError, UserError):  # not the bundled library's shape: no hint
            return None

    def _read(self, root) -> "CostHint | None":
        costs = self.costs
        if isinstance(root, Hole):
            return costs.best()
        if not any(param == "fusion" for param, _ in root.args):
            return costs.default_schedule()  # the compiler-default shortcut
        fusion = root.arg("fusion")
        if isinstance(fusion, Hole):
            return costs.best()
        grouping = self.shortcuts.get(fusion.function)
        placed: list[tuple[tuple[str, ...], tuple[str, ...] | None]] = []
        node = fusion.arg("regions")
        while isinstance(node, App) and any(param == "rest" for param, _ in node.args):
            placed.append(self._region(node, grouping, len(placed)))
            node = node.arg("rest")
        if isinstance(node, App):   # the end of the list
            return costs.partial(placed, None)
        if grouping is not None:
            return costs.partial(placed, grouping[len(placed):])
        state = costs.state_after(ops for ops, _ in placed)
        if state is None:
            raise _Unreadable
        return costs.partial(placed, state)

    def _region(self, node: App, grouping, index: int) -> tuple[tuple[str, ...], tuple[str, ...] | None]:
        """The ops of one element of the regions list and its order, when chosen."""
        schedule = node.arg("schedule")
        order_node = schedule.arg("order") if isinstance(schedule, App) else None
        if isinstance(order_node, App):
            meta = order_node.metadata_dict()
            return tuple(str(meta["region"]).split("+")), tuple(str(meta["order"]).split())
        if grouping is not None:
            return tuple(grouping[index]), None
        region = node.metadata_dict().get("region")
        if not isinstance(region, str) or not region:
            raise _Unreadable
        return tuple(region.split("+")), None


class _Unreadable(Exception):
    """The sketch does not say which regions it places."""
