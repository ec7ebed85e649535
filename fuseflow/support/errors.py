"""The one exception type for mistakes a user can make.

Every message names where the problem is (file, line, key or field) and what would fix it.
The CLI turns a UserError into a one-line message on stderr and exit code 2.
"""

from __future__ import annotations

import re


class UserError(Exception):
    """A problem in user input: a file, a name, a schedule or a command line."""

    def __init__(self, message: str, *, where: str | None = None, fix: str | None = None):
        self.where = where
        self.fix = fix
        self.bare_message = message
        if where is not None and not str(where).strip():
            where = repr(str(where))  # an empty or blank path still shows where: ''
        text = f"{where}: {message}" if where is not None else message
        if fix:
            text = f"{text} ({fix})"
        super().__init__(text)


def show_value(value, limit: int = 60) -> str:
    """A user's value as it may appear in a one-line message: repr'd, so no raw newline or
    escape character reaches the terminal, and cut to `limit` characters."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


_NAMED_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
#: the characters `_is_control` names, as one pattern
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def one_line(text: str) -> str:
    """`text` safe to print as one terminal line: every control character (C0, DEL, C1, and
    the Unicode line and paragraph separators) becomes a visible escape, so a name taken from
    a user's file can neither break the line nor send escape sequences to the terminal."""
    if _CONTROL.search(text) is None:  # the common case, without a loop over the characters
        return text
    return "".join(_NAMED_ESCAPES.get(c, f"\\x{ord(c):02x}" if ord(c) < 0x100 else f"\\u{ord(c):04x}")
                   if _is_control(c) else c for c in text)


def _is_control(c: str) -> bool:
    code = ord(c)
    return code < 0x20 or 0x7F <= code < 0xA0 or code in (0x2028, 0x2029)


class ProgramError(UserError):
    """A tensor program (fuseflow/programs/*.toml) is malformed."""


class ScheduleError(UserError):
    """A schedule breaks a legality rule; `field` names the schedule key at fault."""

    def __init__(self, message: str, *, field: str, rule: str, where: str | None = None,
                 fix: str | None = None):
        self.field = field
        self.rule = rule
        #: the rule's message alone, without field, rule or location
        self.detail = message
        super().__init__(f"{field}: {message} [rule: {rule}]", where=where, fix=fix)


class DataError(UserError):
    """A data file is missing, malformed, or does not fit the program."""


class HardwareError(UserError):
    """A hardware description file is malformed."""
