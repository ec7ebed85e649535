"""docs/tui.md stays true to the app: its key table is the KEYS table the help screen, the
footer and the command palette are built from, and its picture is the one the script draws."""

from __future__ import annotations

import re

from navigator.tui.keys import KEYS
from tests.paths import DOCS

ROW = re.compile(r"^\| `(?P<key>[^`]+)` \| (?P<command>[^|]+?) \| (?P<text>[^|]+?) \|$")


def doc_keys() -> list[tuple[str, str, str]]:
    section = (DOCS / "tui.md").read_text(encoding="utf-8").split("\n## Keys\n", 1)[1].split("\n## ", 1)[0]
    return [(m["key"], m["command"], m["text"]) for m in map(ROW.match, section.splitlines()) if m]


def test_the_key_table_is_keys():
    assert doc_keys() == list(KEYS)


def test_the_picture_is_embedded_and_drawn_by_the_script():
    text = (DOCS / "tui.md").read_text(encoding="utf-8")
    assert "](tui.svg)" in text
    svg = (DOCS / "tui.svg").read_text(encoding="utf-8")
    assert svg.startswith("<svg") and "navigator&#160;tui&#160;gcn" in svg  # its title
    assert "tui.md" in (DOCS.parent / "README.md").read_text(encoding="utf-8")
