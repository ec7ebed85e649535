"""Cost hints on menu options: for each offered step, the best estimated cost of the schedules
beneath it (fuseflow.cost.hints holds the rule and docs/cost-model.md#cost-hints the meaning).

This module reads a partial sketch with navigator.fuseflow.sketch_reading, as ScheduleSpace.schedule_of
reads a complete one: the regions placed so far, each with its order when chosen, then what is
still open. A sketch it cannot read that way (a library that names things otherwise, a
Honeybee problem) gets no hint: None, never an error.
"""

from __future__ import annotations

import hashlib
import weakref
from typing import TYPE_CHECKING, Protocol

from fuseflow.support.errors import UserError
from navigator.fuseflow.sketch_reading import PlacedRegion, read_sketch
from navigator.synth import Menus, Oracle, Sketch

if TYPE_CHECKING:
    from fuseflow.cost.hints import CostHint, CostHints
    from fuseflow.cost.hardware import Hardware
    from fuseflow.cost.statistics import DataStatistics
    from fuseflow.program.binding import Binding
    from fuseflow.program.ir import Program


class HintedSpace(Protocol):
    """What hints read of a schedule space (navigator.fuseflow.schedule_space.ScheduleSpace);
    an `estimate_store` attribute, when it has one, keeps the estimates between processes."""

    program: "Program"
    oracle: Oracle

    @property
    def binding(self) -> "Binding": ...

    @property
    def statistics(self) -> "DataStatistics": ...


class SketchHints:
    """Hints for the sketches of one schedule space; keeps fuseflow's memo between calls."""

    def __init__(self, space: HintedSpace, hardware: "Hardware | None" = None):
        from fuseflow.analysis.fusion_shortcuts import offered_shortcuts
        from fuseflow.cost.hardware import load_hardware

        self.space = space
        self.costs: CostHints = _shared_costs(space, hardware or load_hardware())
        #: shortcut function -> its grouping (the FuseFlow library names them so)
        self.shortcuts = offered_shortcuts(space.program)
        #: (element, index, grouping) ids -> (element, grouping, what `_region` read of it)
        self._read_regions: dict[tuple, tuple] = {}

    def of_menus(self, sketch: Sketch, menus: Menus) -> dict[tuple[int, str], "CostHint | None"]:
        """(hole, option id) -> the hint of that step, for every option of every open hole."""
        oracle = self.space.oracle
        found = {(option.hole, option.id): self._of_sketch(oracle.apply(sketch, option))
                 for option in menus.options()}
        _keep(self.costs)
        return found

    def of_sketch(self, sketch: Sketch) -> "CostHint | None":
        """The best estimated cost of the complete schedules extending `sketch`."""
        found = self._of_sketch(sketch)
        _keep(self.costs)
        return found

    def _of_sketch(self, sketch: Sketch) -> "CostHint | None":
        try:
            return self._read(sketch)
        except (_Unreadable, KeyError, UserError):  # not the bundled library's shape: no hint
            return None

    def _read(self, sketch: Sketch) -> "CostHint | None":
        costs = self.costs
        reading = read_sketch(sketch.root)
        if reading.default:
            return costs.default_schedule()  # the compiler-default shortcut
        if reading.fusion is None:
            return costs.best()
        grouping = self.shortcuts.get(reading.fusion)
        placed = [self._region_of(region, grouping, index) for index, region in enumerate(reading.placed)]
        if reading.ended:
            return costs.partial(placed, None)
        if grouping is not None:
            return costs.partial(placed, grouping[len(placed):])
        state = costs.state_after(ops for ops, _ in placed)
        if state is None:
            raise _Unreadable
        return costs.partial(placed, state)

    def _region_of(self, region: PlacedRegion, grouping, index: int):
        """`_region`, remembered per placed region: the options of one hole, and the steps after
        it, leave every other region's subtree as it was (a step rebuilds only the path to its
        hole, so the element above is new but its `schedule` subtree is the same object)."""
        schedule = region.element.arg("schedule")   # read_sketch found it
        key = (id(schedule), region.element.metadata, index, id(grouping))
        found = self._read_regions.get(key)
        if found is None or found[0] is not schedule or found[1] is not grouping:
            if len(self._read_regions) > _READ_REGIONS_KEPT:
                self._read_regions.clear()
            found = self._read_regions[key] = (schedule, grouping, self._region(region, grouping, index))
        return found[2]

    @staticmethod
    def _region(region: PlacedRegion, grouping, index: int):
        """The ops of one placed region and what is chosen of it (fuseflow.cost.hints.Choices)."""
        from fuseflow.cost.hints import Choices

        if region.order_step is not None:
            shape, block = region.vector()
            return region.ops, Choices.of(region.order, region.factors(), shape, block)
        if grouping is not None:
            return tuple(grouping[index]), None
        if region.listed_ops is None:
            raise _Unreadable
        return region.listed_ops, None


#: the cost hints' memo of the spaces this process opened, by what their estimates depend on: a
#: space opened again (a command run in-process, the TUI reopening a session) reuses it
_COSTS: dict[tuple, "CostHints"] = {}
_COSTS_KEPT = 8
#: placed regions' readings kept per SketchHints (a sketch of transformer12 places hundreds)
_READ_REGIONS_KEPT = 20_000
#: new region estimates (about 2 ms each) worth writing the memo's entry again for
_NEW_WORTH_KEEPING = 16
#: CostHints -> (its store, its key's parts, the estimates the store holds)
_KEPT: "weakref.WeakKeyDictionary[CostHints, tuple[EstimateStore, dict, int]]" = weakref.WeakKeyDictionary()


class EstimateStore(Protocol):
    """Where a memo's region estimates outlive the process (the workspace gives a session's
    space its cache, navigator.workspace.cache.CacheEntries): a later process on the same
    program, data and hardware starts from them."""

    def read(self, parts: dict) -> object | None: ...

    def write(self, parts: dict, payload: object) -> None: ...


def _shared_costs(space: HintedSpace, hardware: "Hardware") -> "CostHints":
    from dataclasses import asdict

    from fuseflow.cost.hints import CostHints

    binding = space.binding
    fingerprint = getattr(space, "facts_fingerprint", None)
    key = (fingerprint, repr(space.program), binding.data_source, tuple(sorted(binding.extents.items())),
           hardware) if fingerprint is not None else None
    found = _COSTS.get(key) if key is not None else None
    if found is None:
        found = CostHints(space.program, binding, hardware, stats=space.statistics)
        if key is not None:
            if len(_COSTS) >= _COSTS_KEPT:
                _COSTS.pop(next(iter(_COSTS)))
            _COSTS[key] = found
    store = getattr(space, "estimate_store", None)
    if key is not None and store is not None and found not in _KEPT:
        parts = {"facts": fingerprint, "program": hashlib.sha256(key[1].encode()).hexdigest(),
                 "data": binding.data_source, "extents": key[3], "hardware": asdict(hardware)}
        _KEPT[found] = (store, parts, found.absorb(store.read(parts)))
    return found


def _keep(costs: "CostHints") -> None:
    """Write the memo's region estimates to its store once enough are new."""
    kept = _KEPT.get(costs)
    if kept is None or costs.estimated - kept[2] < _NEW_WORTH_KEEPING:
        return
    store, parts, _ = kept
    _KEPT[costs] = (store, parts, costs.estimated)   # written or not: not again at once
    store.write(parts, costs.export())


class _Unreadable(Exception):
    """The sketch does not say which regions it places."""
