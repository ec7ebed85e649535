"""The FuseFlow scheduling library that ships with Navigator (navigator/library/fuseflow.hblib.toml), and
the choice between it and a user's library file."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from navigator.lang import Library, load_library_file, parse_library

DEFAULT_LIBRARY = "fuseflow.hblib.toml"


def bundled_library_text(name: str = DEFAULT_LIBRARY) -> str:
    return resources.files("navigator.library").joinpath(name).read_text(encoding="utf-8")


def load_scheduling_library(path: str | Path | None = None) -> tuple[Library, str]:
    """The library at `path`, or the bundled FuseFlow library; also returns its text."""
    if path is None:
        text = bundled_library_text()
        return parse_library(text, f"{DEFAULT_LIBRARY} (bundled)"), text
    return load_library_file(path)
