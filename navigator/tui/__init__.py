"""The terminal UI (`navigator`, `navigator tui`): one screen to navigate, auto-fill, ask the model, evaluate and export."""
