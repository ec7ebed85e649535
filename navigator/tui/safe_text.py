"""Text from programs, libraries, files and models, made safe for the screen.

Names and rationales come from files and from a model that may be hostile: they must neither
be read as Textual/Rich markup (a "[" would break or restyle the screen) nor carry control
characters (escape sequences). Every widget gets them through one of these."""

from __future__ import annotations

from rich.markup import escape
from rich.text import Text

from fuseflow.support.errors import one_line


def plain(text: object) -> Text:
    """One line, shown as is (for cells, tree labels)."""
    return Text(one_line(str(text)))


def block(text: object) -> Text:
    """Several lines, each shown as is (for panels)."""
    return Text("\n".join(one_line(line) for line in str(text).split("\n")))


def marked(text: object) -> str:
    """One line, escaped, for the places that take markup strings (titles, notifications)."""
    return escape(one_line(str(text)))
