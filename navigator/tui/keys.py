"""Every key of the main screen, once: the help screen, the footer, the command palette and the
docs' key table (checked by tests/navigator/tui/test_docs.py) are all read from here."""

from __future__ import annotations

from textual.binding import Binding

#: (key, command, what it does), in the order the help screen lists them
KEYS: tuple[tuple[str, str, str], ...] = (
    ("enter", "choose", "choose the highlighted option (in the sketch: select a hole, or reopen a filled choice)"),
    ("d", "default", "take the hole's default"),
    ("a", "auto", "auto: a strategy (heuristic, beam, anneal, exhaustive) over the hole, its subtree or all"),
    ("l", "model", "ask the model: ranked proposals with rationales and figures; accept one or dismiss"),
    ("u", "undo", "undo the last command"),
    ("r", "redo", "redo"),
    ("e", "export", "export the schedule JSON and the Python program"),
    ("/", "filter", "filter the menu (escape clears)"),
    ("s", "sort", "sort the menu: as listed, by cost hint, by count"),
    ("v", "evaluate", "evaluate the sketch again (open holes at their defaults)"),
    ("m", "simulate", "simulate the hole's options, best est. first (at most 16; each with the heuristic for the "
                      "rest): the sim. column"),
    ("x", "cancel", "cancel the running evaluation, simulations, strategy or model request"),
    ("n", "next hole", "select the next open hole (in the sketch's order)"),
    ("p", "previous hole", "select the previous open hole"),
    ("]", "next region", "go to the next region of the sketch (and its first open hole)"),
    ("[", "previous region", "go to the previous region of the sketch"),
    ("g", "go to hole", "go to a hole by its number"),
    ("f", "filter sketch", "filter the sketch by region or op name (escape clears)"),
    ("h", "history", "go to the history (enter there: undo or redo to that step)"),
    ("tab", "next panel", "move between the panes (the focused one has a bright border)"),
    ("f2", "focus sketch", "focus the sketch"),
    ("f3", "focus menu", "focus the menu"),
    ("f4", "focus details", "focus the details (scroll them with the arrows)"),
    ("f5", "focus evaluation", "focus the evaluation (o there: regions by cycles or in program order)"),
    ("f6", "focus history", "focus the history"),
    ("f10", "maximize", "maximize the focused pane, or restore the layout"),
    ("?", "help", "this help"),
    ("q", "quit", "quit, saving the session"),
)

#: the keys the app binds itself: enter belongs to the focused pane and tab to Textual's focus chain
APP_KEYS = tuple(entry for entry in KEYS if entry[0] not in ("enter", "tab"))

#: Textual's names of the keys that are punctuation
_KEY_NAMES = {"?": "question_mark", "/": "slash", "]": "right_square_bracket", "[": "left_square_bracket"}
#: the keys the footer shows whatever has the focus (the rest are in the help and the palette)
_IN_FOOTER = ("u", "e", "?", "q")
#: the keys the footer shows while a pane has the focus: what applies there
PANE_KEYS: dict[str, tuple[str, ...]] = {
    "menu": ("d", "a", "l", "/"),
    "sketch": ("n", "f"),
    "details": ("f3", "f10"),
    "evaluation": ("v", "x", "f10"),
    "history": ("r",),
}
#: the commands that act on an open hole: dimmed in the footer, and idle, once the sketch is complete
NEEDS_A_HOLE = ("default", "auto", "model", "simulate", "next hole", "previous hole", "go to hole")


def action_name(command: str) -> str:
    """The app's action a command runs (`action_<name>`)."""
    return command.replace(" ", "_")


APP_BINDINGS = [Binding(_KEY_NAMES.get(key, key), action_name(command), command, key_display=key,
                        show=key in _IN_FOOTER)
                for key, command, _ in APP_KEYS] + [
    Binding("ctrl+c", "quit", "quit", show=False, priority=True),
    Binding("escape", "clear_filter", "clear filter", show=False),
]


def pane_bindings(pane: str) -> list[Binding]:
    """The footer's keys for `pane` (PANE_KEYS), running the app's actions."""
    commands = {key: command for key, command, _ in KEYS}
    return [Binding(_KEY_NAMES.get(key, key), f"app.{action_name(commands[key])}", commands[key], key_display=key)
            for key in PANE_KEYS[pane]]
