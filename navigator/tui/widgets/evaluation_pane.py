"""The evaluation pane: the simulated figures of the sketch, its totals always in view above
every region as a bar, sorted by cycles (the bottleneck first) or in program order (`o`), the
selected hole's region marked; focusable and scrollable, so hundreds of regions can be read."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll

from fuseflow.support.numbers import figure
from navigator.tui.safe_text import block, plain
from navigator.tui.keys import pane_bindings
from navigator.tui.widgets.text_box import TextBox

if TYPE_CHECKING:
    from navigator.actions.evaluate_sketch import Evaluation

#: the widest bar, and the columns a row takes besides its bar and its region's name
BAR_WIDTH = 20
_ROW_TEXT = 28
ORDERS = ("by cycles", "in program order")
#: the border's note while a step's evaluation runs over the figures of the sketch before it
RUNNING = "evaluating… the figures are the sketch's before this step (x cancels)"


class EvaluationPane(VerticalScroll, can_focus=True):
    ALLOW_MAXIMIZE = True
    BINDINGS = [Binding("o", "toggle_order", "by cycles / program order"), *pane_bindings("evaluation")]

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._totals = TextBox(id="evaluation-totals")
        self._regions = TextBox(id="evaluation-regions")
        self._result: "Evaluation | None" = None
        #: the figures shown before the evaluation running now (dimmed until its own arrive)
        self._previous: "Evaluation | None" = None
        self._order = 0
        #: the region of the selected hole ("aggregate1+transform1"), marked in the list
        self.marked_region: str | None = None

    def compose(self) -> ComposeResult:
        yield self._totals
        yield self._regions

    def on_mount(self) -> None:
        self._title()

    def _title(self) -> None:
        self.border_title = f"Evaluation (regions {ORDERS[self._order]}; o: {ORDERS[1 - self._order]})"

    @property
    def text(self) -> str:
        """What the pane says, totals then regions (for tests and the status line)."""
        return f"{self._totals.render()}\n{self._regions.render()}"

    def _say(self, text: str) -> None:
        self._result = self._previous = None
        self.border_subtitle = ""
        self._totals.set_text(plain(text))
        self._regions.set_text("")

    def show_running(self) -> None:
        """The evaluation of a new sketch has started. The figures before it stay until its own
        arrive, dimmed, and the border says so: the pane keeps its lines and its height, so a
        step neither moves the panes above it nor repaints the rows twice."""
        previous = self._result or self._previous
        if previous is None:
            self._say("evaluating… (the simulator runs in the background; x cancels)")
            return
        self._result, self._previous = None, previous
        self.border_subtitle = RUNNING
        self._totals.set_text(self._totals_text(previous, dim=True))

    def show_cancelled(self) -> None:
        self._say("evaluation cancelled (v: evaluate again)")

    def show_failed(self) -> None:
        self._say("evaluation failed: the notification says why (v: evaluate again)")

    def show_no_simulator(self, what: str) -> None:
        self._say(f"a {what}: no simulator")

    def show_result(self, result: "Evaluation") -> None:
        self._result, self._previous = result, None
        self.border_subtitle = ""
        self._totals.set_text(self._totals_text(result))
        self._draw_regions()

    @staticmethod
    def _totals_text(result: "Evaluation", dim: bool = False) -> Text:
        text = block(
            f"{figure(result.cycles)} sim. cycles in {len(result.regions)} region(s)"
            + (f" · {result.speedup:.2f}x over {result.baseline} ({figure(result.unfused_cycles)})"
               if result.speedup else "")
            + (f" · {result.completed_with_defaults} open hole(s) at their defaults"
               if result.completed_with_defaults else "")
            + f"\n{figure(result.flops)} FLOPs · {figure(result.bytes)} bytes · intensity {figure(result.intensity)} · "
              f"{result.roofline} · check {result.check}")
        if dim:
            text.stylize("dim")
        return text

    def mark_region(self, region: str | None) -> None:
        """Mark the selected hole's region (None: no region) and bring it into view."""
        if region != self.marked_region:
            self.marked_region = region
            self._draw_regions()

    def on_resize(self) -> None:
        self._draw_regions()

    def action_toggle_order(self) -> None:
        self._order = 1 - self._order
        self._title()
        self._draw_regions()

    def _draw_regions(self) -> None:
        result = self._result or self._previous
        if result is None:
            return
        rows = list(enumerate(result.regions, start=1))
        if self._order == 0:
            rows.sort(key=lambda row: -row[1][1])
        total = sum(cycles for _, cycles in result.regions) or 1.0
        largest = max((cycles for _, cycles in result.regions), default=0.0) or 1.0
        width = len(str(len(rows)))
        # the bar gives way on a narrow pane, so a row's figures and name stay on its line
        names = max((len(ops) for ops, _ in result.regions), default=0)
        bar_width = max(3, min(BAR_WIDTH, (self.content_size.width or 60) - _ROW_TEXT - width - min(names, 24)))
        text = Text()
        marked_line = None
        for line, (number, (ops, cycles)) in enumerate(rows):
            bar = "█" * max(1, round(bar_width * cycles / largest))
            mark = "▸" if ops == self.marked_region else " "
            row = plain(f"{mark}{number:>{width}}. {bar:<{bar_width}} {figure(cycles):>11} {100 * cycles / total:5.1f}%  "
                        f"{ops}")
            if ops == self.marked_region:
                row.stylize("reverse")
                marked_line = line
            text.append_text(row)
            text.append("\n")
        self._regions.set_text(text)
        if marked_line is not None:
            self.call_after_refresh(self.scroll_to, y=max(0, marked_line - 1), animate=False)
