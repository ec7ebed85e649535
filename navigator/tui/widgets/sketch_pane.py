"""The sketch pane: the filled choices and the open holes, grouped by region, optionally
filtered by region or op name. Enter on an open hole selects it; enter on a filled choice asks
to reopen it (undo back to before the step that filled it).

Glyphs: `●` an open hole, `✓` a filled choice; a region's own `▶`/`▼` (Textual's) says
whether its group is folded."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual import on
from textual.message import Message
from textual.widgets import Tree

from navigator.tui.safe_text import plain
from navigator.tui.keys import pane_bindings
from navigator.tui.widgets.filter_box import FilterBox

if TYPE_CHECKING:
    from navigator.tui.controller import Navigation, SketchRow

OPEN = "●"
FILLED = "✓"


class SketchFilter(FilterBox):
    def __init__(self, **kwargs: Any) -> None:
        super().__init__("filter the sketch by region or op (escape clears)", **kwargs)


class SketchPane(Tree):
    ALLOW_MAXIMIZE = True
    BINDINGS = pane_bindings("sketch")

    class HoleSelected(Message):
        """An open hole was selected: its menu is wanted."""

        def __init__(self, hole: int) -> None:
            super().__init__()
            self.hole = hole

    class FilledSelected(Message):
        """A filled choice was selected: reopening it is offered."""

        def __init__(self, step: int) -> None:
            super().__init__()
            self.step = step

    def __init__(self, **kwargs: Any) -> None:
        super().__init__("sketch", **kwargs)
        self.filter_text = ""
        #: the region groups shown, in sketch order (their nodes), and the open holes' nodes
        self._regions: list[Any] = []
        self._holes: dict[int, Any] = {}
        #: every open hole's region ("aggregate1+transform1"; None: the schedule's own), filter or not
        self.hole_regions: dict[int, str | None] = {}

    def on_mount(self) -> None:
        self.border_title = "Sketch"

    def show(self, navigation: "Navigation", selected: int | None) -> None:
        """The sketch as it is now (what the filter keeps), the `selected` hole marked and under the cursor."""
        self.clear()
        self.root.expand()
        groups: dict[str | None, Any] = {}
        self._regions, self._holes = [], {}
        every = navigation.sketch_rows()
        self.hole_regions = {row.hole: row.group for row in every if row.hole is not None}
        rows = _kept(every, self.filter_text)
        for row in rows:
            parent = self.root
            if row.group is not None:
                parent = groups.get(row.group)
                if parent is None:
                    parent = groups[row.group] = self.root.add(plain(f"region {row.group}"), expand=True)
                    self._regions.append(parent)
            glyph = OPEN if row.hole is not None else FILLED
            label = plain(f"{glyph} {row.label}")
            if row.hole is not None:
                label.stylize("bold reverse" if row.hole == selected else "bold")
            node = parent.add_leaf(label, data=("hole", row.hole) if row.hole is not None else ("step", row.step))
            if row.hole is not None:
                self._holes[row.hole] = node
                if row.hole == selected:
                    self.move_cursor(node)
        shown = f"{len(rows)} rows match {self.filter_text!r}; " if self.filter_text else ""
        self.root.set_label(plain(f"sketch ({shown}{len(navigation.open_holes())} open)"))

    def region_of_cursor(self) -> int | None:
        """The index (in `_regions`) of the region the cursor is in, None when outside every one."""
        node = self.cursor_node
        while node is not None and node.parent is not None and node.parent is not self.root:
            node = node.parent
        return self._regions.index(node) if node in self._regions else None

    def region_step(self, step: int) -> tuple[int, int | None] | None:
        """The region `step` (+1 next, -1 previous) regions from the cursor's (its index), and
        the first open hole shown in it (None: all filled); None when there is no such region."""
        if not self._regions:
            return None
        here = self.region_of_cursor()
        index = (0 if step > 0 else len(self._regions) - 1) if here is None else here + step
        if not 0 <= index < len(self._regions):
            return None
        holes = [child.data[1] for child in self._regions[index].children if child.data and child.data[0] == "hole"]
        return index, (holes[0] if holes else None)

    def move_to_region(self, index: int) -> None:
        region = self._regions[index]
        region.expand()
        self.move_cursor(region)

    @on(Tree.NodeSelected)
    def _node_selected(self, event: Tree.NodeSelected) -> None:
        event.stop()
        kind, value = event.node.data or (None, None)
        if kind == "hole":
            self.post_message(self.HoleSelected(value))
        elif kind == "step" and value is not None:
            self.post_message(self.FilledSelected(value))


def _kept(rows: list["SketchRow"], text: str) -> list["SketchRow"]:
    """The rows the filter keeps: those whose region or own text contains it (any case), so a
    region's name keeps all of its rows."""
    if not text:
        return rows
    needle = text.lower()
    return [row for row in rows if needle in (row.group or "").lower() or needle in row.label.lower()]
