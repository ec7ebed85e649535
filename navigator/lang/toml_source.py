"""Read a TOML file and turn syntax errors into user errors that keep line and column."""

from __future__ import annotations

import os
import re
import tomllib
from pathlib import Path
from typing import Any

from fuseflow.atomic import read_user_text
from fuseflow.errors import UserError
from navigator.lang.toml_fast import parse_simple_toml


def read_toml_text(path: str | os.PathLike, error_type: type[UserError]) -> str:
    return read_user_text(path, error_type, "a TOML file")


def parse_toml(text: str, source: str, error_type: type[UserError]) -> dict[str, Any]:
    """Parse TOML text. tomllib's message already ends in '(at line L, column C)'.

    Fact files take a fast path (`toml_fast`) that gives the same dict; anything it does
    not handle, errors included, goes to tomllib.
    """
    simple = parse_simple_toml(text)
    if simple is not None:
        return simple
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        message = str(exc)
        declared = re.match(r"Cannot declare \((.*)\) twice (.*)$", message)
        if declared:
            key = ".".join(part.strip().strip("'\"") for part in declared.group(1).split(","))
            message = f"[{key}] is declared twice {declared.group(2)}"
        if "declared twice" in message or "Cannot overwrite" in message:
            raise error_type(f"duplicate name: {message}", where=source,
                             fix="each table and key may be declared once; rename or merge "
                                 "the two declarations") from None
        raise error_type(f"TOML syntax error: {message}", where=source,
                         fix="fix the TOML at that line and column") from None
