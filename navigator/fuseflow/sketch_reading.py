"""Reading a sketch of the shape navigator.fuseflow.library_interface states, complete or partial.

Written once for its two readers: the schedule a complete sketch denotes
(ScheduleSpace.schedule_of) and the best cost beneath a partial one (SketchHints). A sketch is
read as far as it is filled: the compiler-default shortcut, or the function that chose the
fusion; the regions placed so far, each with its order when chosen; then whether the list of
regions has ended or is still open. What lies deeper in a region (its parallel factors, stream
shape and block-sparse switch) is read only when asked for.

A sketch of another shape raises KeyError (a parameter or field it lacks); the interface check
(check_interface) rules that out for the complete sketches of a space's library.
"""

from __future__ import annotations

from dataclasses import dataclass

from navigator.fuseflow.library_interface import DEFAULT_SCHEDULE
from navigator.synth import App, Hole, Node


def continues(node: Node) -> bool:
    """A list node that holds an element and the rest; any other application ends its list."""
    return isinstance(node, App) and any(param == "rest" for param, _ in node.args)


@dataclass(frozen=True)
class PlacedRegion:
    """One element of the list of regions."""

    element: App
    #: the region's order step (its `region` and `order` fields), None while its hole is open
    order_step: App | None

    @property
    def region_field(self) -> str | None:
        """The order step's `region`: the region's ops joined by `+`."""
        return None if self.order_step is None else self.order_step.metadata_dict()["region"]

    @property
    def order_field(self) -> str | None:
        """The order step's `order`: the loop variables separated by spaces."""
        return None if self.order_step is None else self.order_step.metadata_dict()["order"]

    @property
    def ops(self) -> tuple[str, ...] | None:
        region = self.region_field
        return None if region is None else tuple(str(region).split("+"))

    @property
    def order(self) -> tuple[str, ...] | None:
        order = self.order_field
        return None if order is None else tuple(str(order).split())

    @property
    def listed_ops(self) -> tuple[str, ...] | None:
        """The ops the element itself names in a `region` field (the FuseFlow library's
        region-by-region list does; a named grouping's list does not), None when it names none."""
        region = self.element.metadata_dict().get("region")
        if not isinstance(region, str) or not region:
            return None
        return tuple(region.split("+"))

    def factors(self) -> dict[str, int]:
        """Loop variable -> its parallel factor, for the factors chosen so far."""
        factor_of: dict[str, int] = {}
        schedule = self.element.arg("schedule")
        pars = schedule.arg("pars") if isinstance(schedule, App) else None
        while continues(pars):
            par = pars.arg("par")
            if isinstance(par, App):
                meta = par.metadata_dict()
                factor_of[meta["var"]] = meta["factor"]
            pars = pars.arg("rest")
        return factor_of

    def vector(self) -> tuple[int | None, bool | None]:
        """The stream shape and the block-sparse switch, each None while not chosen."""
        vector = self.order_step.arg("vector") if self.order_step is not None else None
        if not isinstance(vector, App):
            return None, None
        block = vector.arg("block")
        enabled = block.metadata_dict()["enabled"] if isinstance(block, App) else None
        return vector.metadata_dict()["shape"], enabled


@dataclass(frozen=True)
class SketchReading:
    """What a sketch says so far."""

    #: the goal is the compiler-default shortcut (every choice the compiler's default)
    default: bool = False
    #: the function that chose the fusion (a named grouping's, or region by region); None while open
    fusion: str | None = None
    #: the regions placed so far, in order
    placed: tuple[PlacedRegion, ...] = ()
    #: the list of regions has ended: nothing more is placed
    ended: bool = False


def read_sketch(root: Node) -> SketchReading:
    if isinstance(root, Hole):
        return SketchReading()
    if root.function == DEFAULT_SCHEDULE:
        return SketchReading(default=True)
    fusion = root.arg("fusion")
    if isinstance(fusion, Hole):
        return SketchReading()
    placed: list[PlacedRegion] = []
    node = fusion.arg("regions")
    while continues(node):
        schedule = node.arg("schedule")
        order_step = schedule.arg("order") if isinstance(schedule, App) else None
        placed.append(PlacedRegion(node, order_step if isinstance(order_step, App) else None))
        node = node.arg("rest")
    return SketchReading(fusion=fusion.function, placed=tuple(placed), ended=isinstance(node, App))
