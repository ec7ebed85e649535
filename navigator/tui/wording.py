"""Messages in the TUI's words: the library's errors and fixes name the command line's flags
(`--limit`, `--auto beam`, `navigator undo`), which mean nothing on the screen, so each is said
as the screen offers it (the auto dialog's fields and scopes, the keys)."""

from __future__ import annotations

import re

#: (pattern, what the screen calls it), applied in order
_SCREEN_WORDS: tuple[tuple[re.Pattern[str], str], ...] = tuple((re.compile(p), r) for p, r in (
    (r"\(no --all / --subtree\)", "(the scope 'hole')"),
    (r" or give --(model|base-url) [A-Z]+", ""),   # the TUI takes the model's settings from the environment
    (r"--auto (\w+)", r"the \1 strategy"),
    (r"--(limit|budget|jobs)\b", r"the \1"),
    (r"--all\b", "the scope 'all'"),
    (r"--subtree\b", "the scope 'subtree'"),
    (r"`?navigator undo`?", "u (undo)"),
    (r"`?navigator redo`?", "r (redo)"),
    (r"`?navigator history`?", "the history (h)"),
))


def for_screen(text: str) -> str:
    """`text` with the command line's flags and commands in the screen's words."""
    for pattern, words in _SCREEN_WORDS:
        text = pattern.sub(words, text)
    return text
