"""Read a TOML file and turn syntax errors into user errors that keep line and column."""

from __future__ import annotations

import os
from typing import Any

from fuseflow.support.files import read_user_text
from fuseflow.support.readers import parse_toml_text
from fuseflow.support.errors import UserError
from navigator.lang.toml_fast import parse_simple_toml


def read_toml_text(path: str | os.PathLike, error_type: type[UserError], what: str = "a TOML file") -> str:
    return read_user_text(path, error_type, what)


def parse_toml(text: str, source: str, error_type: type[UserError], what: str = "a TOML file") -> dict[str, Any]:
    """Parse TOML text. tomllib's message already ends in '(at line L, column C)'.

    Fact files take a fast path (`toml_fast`) that gives the same dict; anything it does
    not handle, errors included, goes to the bounded reader (fuseflow.support.readers).
    """
    simple = parse_simple_toml(text)
    if simple is not None:
        return simple
    return parse_toml_text(text, source, error_type, what)
