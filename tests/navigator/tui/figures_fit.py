"""No count or figure on the screen is cut (checked on transformer12's snapshots, test_snapshots.py): every one goes through the one formatter
(fuseflow.support.numbers.figure: thousands separators below 10^9, then 2.04e23), which keeps
them short, and the screen shows each whole (issue 24: a completions column cut to
`20436294034243` where Details said `204362940342430800000000`)."""

from __future__ import annotations

import re

from harness.tui_apps import screen_text

#: what the formatter writes: a whole number with separators, a short fraction, or an exponent form
FIGURE = re.compile(r"(>= )?(-?\d{1,3}(,\d{3})*|\d+(\.\d+)?|\d(\.\d{1,2})?e-?\d+)")
WIDEST = len("999,999,999")


def check_figures_fit(app) -> None:
    """On the app's screen as it is: every count of the first menus' options is a whole figure
    of the one format; the menu's hints are too, and each count shown is on the screen whole;
    the status line's completions are a figure."""
    nav = app.navigation
    shown = screen_text(app)
    for hole in nav.open_holes()[:6]:
        for row in nav.options(hole):
            assert FIGURE.fullmatch(row.count) and len(row.count) <= WIDEST, row.count
    menu = app.query_one("#menu")
    for index in range(min(menu.row_count, 10)):
        hint, count = (str(menu.get_row_at(index)[column]) for column in (2, 5))
        assert hint == "-" or FIGURE.fullmatch(hint), hint
        if app.size.width >= 160:   # at 80 columns the completions column is scrolled off, not cut
            assert count in shown, (count, "is not shown whole")
    status = str(app.query_one("#status").render())
    completions = re.search(r"([\d.,e]+) completions", status)
    assert completions and FIGURE.fullmatch(completions.group(1)), status
