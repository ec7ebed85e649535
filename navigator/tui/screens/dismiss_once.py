"""A screen is dismissed once: the second of two keys that both close it is ignored.

Two keys read together (enter and escape, a click and a key) can both reach a screen before
it is gone. Textual's `dismiss` calls the result callback and pops *the top screen*, whatever
it is by then: the second call popped the main screen (ScreenStackError: a crash) or the
screen the first call's callback had pushed, and could run the callback again (an export
written twice). Every screen of the TUI closes through this `dismiss`.
"""

from __future__ import annotations

from textual.await_complete import AwaitComplete


class DismissOnce:
    """A mixin before the Textual screen class (a plain class: Textual follows a widget's first
    DOM base for its styles, which must stay the screen's)."""

    _dismissed = False

    def dismiss(self, result=None) -> AwaitComplete:
        if self._dismissed or self.app.screen is not self:
            return AwaitComplete.nothing()
        self._dismissed = True
        return super().dismiss(result)
