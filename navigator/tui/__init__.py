"""The terminal UI (`navigator`, `navigator tui`): one screen to navigate, auto-fill, ask the model, evaluate and export."""

import os

# Textual repaints on a timer of 1/TEXTUAL_FPS seconds (60 unless set): a key's effect waited up
# to 16.7 ms for the next tick, a third of gcn's latency budget. At 240 it waits at most 4 ms; the
# timer runs only while something on the screen changes. Set before Textual is first imported.
os.environ.setdefault("TEXTUAL_FPS", "240")
