"""The sketch pane: the filled choices and the open holes, grouped by region; enter on a hole
selects it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual import on
from textual.message import Message
from textual.widgets import Tree

from navigator.tui.safe_text import plain

if TYPE_CHECKING:
    from navigator.tui.controller import Navigation


class SketchPane(Tree):
    class HoleSelected(Message):
        """An open hole was selected: its menu is wanted."""

        def __init__(self, hole: int) -> None:
            super().__init__()
            self.hole = hole

    def __init__(self, **kwargs: Any) -> None:
        super().__init__("sketch", **kwargs)

    def on_mount(self) -> None:
        self.border_title = "Sketch"

    def show(self, navigation: "Navigation", selected: int | None) -> None:
        """The sketch as it is now, the `selected` hole marked and under the cursor."""
        self.clear()
        self.root.expand()
        groups: dict[str | None, Any] = {}
        for row in navigation.sketch_rows():
            parent = self.root
            if row.group is not None:
                parent = groups.get(row.group)
                if parent is None:
                    parent = groups[row.group] = self.root.add(plain(f"region {row.group}"), expand=True)
            label = plain(f"▶ {row.label}") if row.hole is not None else plain(row.label)
            if row.hole is not None:
                label.stylize("bold reverse" if row.hole == selected else "bold")
            node = parent.add_leaf(label, data=row.hole)
            if row.hole is not None and row.hole == selected:
                self.move_cursor(node)
        self.root.set_label(plain(f"sketch ({len(navigation.open_holes())} open)"))

    @on(Tree.NodeSelected)
    def _node_selected(self, event: Tree.NodeSelected) -> None:
        event.stop()
        if event.node.data is not None:
            self.post_message(self.HoleSelected(event.node.data))
