"""Text a user types that a session stores or prints must be valid Unicode.

Python turns command-line bytes that are not UTF-8 into lone surrogates (U+DC80..U+DCFF).
Such a string can be neither written to a UTF-8 file nor printed on a strict stdout, so it
is refused where it enters, naming the argument, instead of failing later while a session
is written or a line printed. Paths are also refused when they hold a NUL character, which
no operating system accepts in a file name.
"""

from __future__ import annotations

from navigator.navigation.session_errors import SessionError


def invalid_character(text: str) -> str | None:
    """The first character of `text` that UTF-8 cannot encode (a lone surrogate), if any."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        return text[exc.start:exc.end]
    return None


def check_text(text: str, where: str, fix: str = "type it again as plain UTF-8 text") -> str:
    """`text` itself, or a SessionError naming `where` when it is not valid Unicode."""
    bad = invalid_character(text)
    if bad is not None:
        raise SessionError(f"holds {bad!r}, which is not valid Unicode (bytes that are not UTF-8?)",
                           where=where, fix=fix)
    return text


def check_path_text(text: str, where: str) -> str:
    """A path a session records or prints: valid Unicode and no NUL character."""
    fix = "rename the file so that its name is UTF-8 text, or choose another path"
    check_text(text, where, fix)
    if "\0" in text:
        raise SessionError("holds a NUL character, which no file name can contain", where=where, fix=fix)
    return text
