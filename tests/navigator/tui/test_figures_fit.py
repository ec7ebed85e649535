"""No count or figure on the screen is cut: every one goes through the one formatter
(fuseflow.support.numbers.figure: thousands separators below 10^9, then 2.04e23), which keeps
them short, and the screen shows each whole (issue 24: a completions column cut to
`20436294034243` where Details said `204362940342430800000000`)."""

from __future__ import annotations

import asyncio
import re

from harness.tui_apps import app, screen_text, settle

#: what the formatter writes: a whole number with separators, a short fraction, or an exponent form
FIGURE = re.compile(r"(>= )?(-?\d{1,3}(,\d{3})*|\d+(\.\d+)?|\d(\.\d{1,2})?e-?\d+)")
WIDEST = len("999,999,999")


def test_every_count_and_hint_is_a_whole_figure_on_a_program_of_hundreds_of_ops(here):
    async def scenario():
        state = app("transformer12", (1, 1), evaluate=False)
        async with state.run_test(size=(160, 45)) as pilot:
            await settle(pilot)
            nav = state.navigation
            shown = screen_text(state)
            for hole in nav.open_holes()[:6]:
                for row in nav.options(hole):
                    assert FIGURE.fullmatch(row.count) and len(row.count) <= WIDEST, row.count
            menu = state.query_one("#menu")
            for index in range(min(menu.row_count, 10)):
                hint, count = (str(menu.get_row_at(index)[column]) for column in (2, 5))
                assert hint in ("-",) or FIGURE.fullmatch(hint), hint
                assert count in shown, (count, "is not shown whole")
            status = str(state.query_one("#status").render())
            completions = re.search(r"([\d.,e]+) completions", status)
            assert completions and FIGURE.fullmatch(completions.group(1)), status
            await pilot.press("q")

    asyncio.run(scenario())
