"""The menu pane: the selected hole's options with their cost hints (est.) and, once `m` has
simulated them, their simulated cycles (sim.), filtered by the box above it and sorted as `s`
cycles; enter chooses the highlighted option."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from textual import on
from textual.message import Message
from textual.widgets import DataTable

from navigator.tui.controller import menu_context
from navigator.tui.safe_text import marked, plain
from fuseflow.support.numbers import figure
from navigator.tui.keys import pane_bindings
from navigator.tui.widgets.filter_box import FilterBox

if TYPE_CHECKING:
    from navigator.tui.controller import Navigation, OptionRow

#: menu rows drawn at most (a region may offer thousands of orders: `/` and `s` find the rest)
MENU_ROWS = 300
#: menu sort orders, in the order `s` cycles through them
SORTS = ("as listed", "by cost hint", "by count")


class MenuFilter(FilterBox):
    def __init__(self, **kwargs: Any) -> None:
        super().__init__("filter the menu (escape clears)", **kwargs)


class MenuPane(DataTable):
    ALLOW_MAXIMIZE = True
    BINDINGS = pane_bindings("menu")

    """The options of one hole; what the filter keeps, in the order chosen, and their cost hints
    (computed by the app's worker, `computing…` until they arrive)."""

    class OptionHighlighted(Message):
        """The cursor moved to another option (`highlighted_option` says which: the menu may
        have been rebuilt since)."""

    class OptionChosen(Message):
        """Enter (or a click) on an option of the hole shown: take it."""

        def __init__(self, hole: int | None, option_id: str) -> None:
            super().__init__()
            self.hole = hole
            self.option_id = option_id

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(cursor_type="row", zebra_stripes=True, **kwargs)
        self._sort = 0  # an index in SORTS (DataTable.sort is a method)
        self.filter_text = ""
        self._hints: dict[str, Any] = {}
        self._hints_for: tuple | None = None
        self._hints_pending: tuple | None = None
        #: option id -> the `sim.` cell, for the (hole, sketch) in _simulated_for
        self._simulated: dict[str, str] = {}
        self._simulated_for: tuple | None = None
        self.hole: int | None = None  # the hole whose menu is shown

    def on_mount(self) -> None:
        # the short columns first: labels and counts can be long, and the hint must stay in view at 80 columns
        self.add_columns("#", "", "est. cycles", "sim. cycles", "option", "completions")

    # ---- what the app tells it

    def wants_hints(self, hole: int, sketch) -> bool:
        """Whether this menu's hints are neither shown nor on their way; the caller computes them
        when it is (from then on they are on their way)."""
        key = (hole, sketch)
        if key in (self._hints_for, self._hints_pending):
            return False
        self._hints, self._hints_pending = {}, key
        return True

    def hints_arrived(self, hole: int, sketch, hints: dict[str, Any]) -> None:
        self._hints, self._hints_for = hints, (hole, sketch)

    def simulating(self, hole: int, sketch, option_ids: list[str]) -> None:
        """`m` started simulating these options of the menu."""
        if self._simulated_for != (hole, sketch):
            self._simulated, self._simulated_for = {}, (hole, sketch)
        for option_id in option_ids:
            self._simulated.setdefault(option_id, "simulating…")

    def simulated_arrived(self, hole: int, sketch, option_id: str, text: str) -> None:
        if self._simulated_for == (hole, sketch):
            self._simulated[option_id] = text

    def simulation_cancelled(self) -> None:
        self._simulated = {k: ("cancelled" if v == "simulating…" else v) for k, v in self._simulated.items()}

    def cycle_sort(self) -> None:
        self._sort = (self._sort + 1) % len(SORTS)

    @property
    def sorted_by(self) -> str | None:
        """The sort order, None when the options are as listed."""
        return SORTS[self._sort] if self._sort else None

    def highlighted_option(self) -> str | None:
        if self.row_count == 0:
            return None
        return self.coordinate_to_cell_key(self.cursor_coordinate).row_key.value

    # ---- showing it

    def show(self, navigation: "Navigation", hole: int | None) -> None:
        """The menu of `hole` (None: the sketch is complete), the cursor on its first row."""
        self.clear()
        self.hole = hole
        if hole is None:
            self.border_title = "Menu: the sketch is complete (e: export)"
            return
        menu = navigation.menu(hole)
        ready = self._hints_for == (hole, navigation.session.sketch)
        simulated = self._simulated if self._simulated_for == (hole, navigation.session.sketch) else {}
        rows = self._rows(navigation.options(hole))
        shared = menu_context(menu)
        shown = (f"{len(rows)} of {len(menu.options)} shown" if len(rows) <= MENU_ROWS
                 else f"first {MENU_ROWS} of {len(rows)} matching; / filters")
        self.border_title = marked(f"Menu ?{hole} : {menu.type}" + (f" [{shared}]" if shared else "")
                                   + f"  ({shown})")
        for row in rows[:MENU_ROWS]:
            mark = "default" if row.default else ("shortcut" if row.shortcut else "")
            hint = self._hints.get(row.id)
            hint_text = (figure(hint.cycles) if hint.exact else f">= {figure(hint.cycles)}") if hint is not None \
                else ("-" if ready else "computing…")
            self.add_row(plain(row.number), plain(mark), plain(hint_text), plain(simulated.get(row.id, "-")),
                         plain(row.label), plain(row.count), key=row.id)

    def _rows(self, rows: list["OptionRow"]) -> list["OptionRow"]:
        if self.filter_text:
            needle = self.filter_text.lower()
            rows = [r for r in rows if needle in r.label.lower() or needle in r.title.lower()]
        if SORTS[self._sort] == "by cost hint":
            rows.sort(key=lambda r: (self._hint_cycles(r.id), r.number))
        elif SORTS[self._sort] == "by count":
            rows.sort(key=lambda r: (-r.count_value, r.number))
        return rows

    def _hint_cycles(self, option_id: str) -> tuple[bool, float]:
        """Estimates before bounds, fewest cycles first, options without a hint last."""
        hint = self._hints.get(option_id)
        return (not hint.exact, hint.cycles) if hint is not None else (True, math.inf)

    # ---- what it tells the app

    @on(DataTable.RowHighlighted)
    def _row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        event.stop()
        self.post_message(self.OptionHighlighted())

    def action_select_cursor(self) -> None:
        """Enter: the highlighted option is chosen, told to the app at once (DataTable's own
        enter repaints the row and sends RowSelected, a frame and a message before the step)."""
        option = self.highlighted_option()
        if option is not None:
            self.post_message(self.OptionChosen(self.hole, option))

    @on(DataTable.RowSelected)
    def _row_selected(self, event: DataTable.RowSelected) -> None:   # a click on the cursor's row
        event.stop()
        self.post_message(self.OptionChosen(self.hole, event.row_key.value))
