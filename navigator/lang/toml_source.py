"""Read a TOML file and turn syntax errors into user errors that keep line and column."""

from __future__ import annotations

import os
import re
import tomllib
from pathlib import Path
from typing import Any

from fuseflow.errors import UserError


def read_toml_text(path: str | os.PathLike, error_type: type[UserError]) -> str:
    try:
        return Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise error_type("file not found", where=str(path),
                         fix="check the path") from None
    except IsADirectoryError:
        raise error_type("is a directory, not a TOML file", where=str(path)) from None
    except UnicodeDecodeError as exc:
        raise error_type(f"not UTF-8 text ({exc.reason} at byte {exc.start})",
                         where=str(path)) from None
    except OSError as exc:
        raise error_type(f"cannot read: {exc.strerror}", where=str(path)) from None


def parse_toml(text: str, source: str, error_type: type[UserError]) -> dict[str, Any]:
    """Parse TOML text. tomllib's message already ends in '(at line L, column C)'."""
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
