"""Reading what the user typed for `fill HOLE [OPTION...]`.

HOLE is `?3`, `3` or `h3`. OPTION is one of:
  - a menu number, as `navigator show` prints it:        2
  - an option id, copied from `show`:                     'par{region="spmm", var="i", factor=4}'
  - a function and some of its metadata fields:           par factor=4      par(factor=4)
Fields left out may take any value, as long as exactly one offered option matches.
"""

from __future__ import annotations

import re
from typing import Sequence

from fuseflow.support.errors import UserError
from fuseflow.support.readers import parse_json_text
from navigator.lang.formula import Value, format_value
from navigator.synth import HoleMenu, MenuOption
from fuseflow.support.numbers import figure

# ASCII digits only, and few of them: int() refuses some Unicode digits ("²") and numbers
# of over 4,300 digits with a ValueError, and no hole or menu number is that large.
_HOLE = re.compile(r"""^\s*['"]?(?:\?|[hH])?([0-9]{1,18})['"]?\s*$""")
_NUMBER = re.compile(r"^\s*[0-9]{1,18}\s*$")
_HEAD = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*(?:([{(])(.*)([})]))?\s*$", re.S)
_INT = re.compile(r"^-?[0-9]{1,100}$")
_SHOWN = 10  # options listed in an error message before "and N more"


class ChoiceError(UserError):
    """A hole or an option the user typed does not name anything offered."""


def parse_hole(text: str) -> int:
    match = _HOLE.match(text)
    if not match:
        raise ChoiceError(f"cannot read hole {text!r}", where="HOLE",
                          fix="write ?3, 3 or h3; quote '?3' in the shell, where ? is a wildcard")
    return int(match.group(1))


def _literal(text: str) -> Value:
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] == '"':
        try:
            return parse_json_text(text, "OPTION", ChoiceError, "a quoted value")  # a JSON string
        except ChoiceError:
            return text[1:-1]
    if len(text) >= 2 and text[0] == text[-1] == "'":
        return text[1:-1]
    if text in ("true", "false"):
        return text == "true"
    if _INT.match(text):
        return int(text)
    return text


def _split_fields(inner: str) -> list[str]:
    """Split `a=1, b="x, y"` at commas outside double quotes."""
    parts, current, quoted, escaped = [], [], False, False
    for char in inner:
        if escaped:
            escaped = False
        elif char == "\\" and quoted:
            escaped = True
        elif char == '"':
            quoted = not quoted
        elif char == "," and not quoted:
            parts.append("".join(current))
            current = []
            continue
        current.append(char)
    parts.append("".join(current))
    return [p.strip() for p in parts if p.strip()]


def _parse_choice(tokens: Sequence[str]) -> tuple[str, dict[str, Value]]:
    head = _HEAD.match(tokens[0])
    if not head or (head.group(2) and {"{": "}", "(": ")"}[head.group(2)] != head.group(4)):
        raise ChoiceError(f"cannot read option {' '.join(tokens)!r}", where="OPTION",
                          fix="write a menu number, an option id, or FUNCTION FIELD=VALUE ...")
    function = head.group(1)
    pieces = _split_fields(head.group(3) or "") + [t.strip().rstrip(",") for t in tokens[1:] if t.strip(" ,")]
    fields: dict[str, Value] = {}
    for piece in pieces:
        name, sep, value = piece.partition("=")
        if not sep or not name.strip():
            raise ChoiceError(f"cannot read {piece!r} in option {' '.join(tokens)!r}", where="OPTION",
                              fix="write each field as FIELD=VALUE, e.g. factor=4")
        fields[name.strip()] = _literal(value)
    return function, fields


def _same(given: Value, actual: Value) -> bool:
    if isinstance(actual, bool) or isinstance(given, bool):
        return isinstance(actual, bool) and isinstance(given, bool) and given == actual
    if isinstance(actual, int):
        return isinstance(given, int) and given == actual
    return str(given) == actual


def compact_labels(options: Sequence[MenuOption]) -> list[str]:
    """Each option's id without the metadata fields all of `options` share (e.g.
    program="spmm"), `f{a=1}` as `f` when nothing is left: short labels for listings."""
    common = set.intersection(*(set(o.metadata) for o in options)) if len(options) > 1 else set()
    labels = []
    for option in options:
        fields = [(name, value) for name, value in option.metadata if (name, value) not in common]
        labels.append(option.function + ("{" + ", ".join(f"{name}={format_value(v)}" for name, v in fields) + "}"
                                         if fields else ""))
    return labels


def count_text(option: MenuOption) -> str:
    return count_figure(option.count)


def count_figure(count) -> str:
    """A completion count (navigator.synth.Count) in the one number format; `navigator count`
    prints the exact figure."""
    return "unbounded" if count.unbounded else figure(count.value)


def _listing(menu: HoleMenu, options: Sequence[MenuOption]) -> str:
    """`1. foo (12)  2. bar (3)  and 5 more: ...`: the menu number, the compact label and the
    completions of at most _SHOWN options (the numbers are what `fill` takes)."""
    numbers = {o.id: i for i, o in enumerate(menu.options, 1)}
    labels = compact_labels(options)
    shown = [f"{numbers[o.id]}. {label} ({count_text(o)})" for o, label in zip(options[:_SHOWN], labels)]
    more = len(options) - _SHOWN
    tail = f"  and {more} more: `navigator show --hole {menu.hole}`" if more > 0 else ""
    return "  ".join(shown) + tail


def resolve_option(menu: HoleMenu, tokens: Sequence[str]) -> MenuOption:
    """The one option of `menu` that `tokens` name; ChoiceError lists the valid ones otherwise."""
    hole = f"?{menu.hole}"
    if not menu.options:
        raise ChoiceError(f"nothing is offered at {hole}", where="OPTION",
                          fix="the sketch cannot be completed; undo the last step")
    typed = " ".join(tokens)
    if len(tokens) == 1 and _NUMBER.match(tokens[0]):
        number = int(tokens[0])
        if 1 <= number <= len(menu.options):
            return menu.options[number - 1]
        raise ChoiceError(f"{hole} has no option {number}", where="OPTION",
                          fix=f"choose 1 to {len(menu.options)}: {_listing(menu, menu.options)}")
    if len(tokens) == 1 and menu.option(tokens[0].strip()) is not None:
        return menu.option(tokens[0].strip())
    function, fields = _parse_choice(tokens)
    same_function = [o for o in menu.options if o.function == function]
    if not same_function:
        functions = sorted({o.function for o in menu.options})
        raise ChoiceError(f"{hole} offers no option with function {function!r}", where="OPTION",
                          fix=f"offered functions: {', '.join(functions)}; valid options: "
                              f"{_listing(menu, menu.options)}")
    known = [name for name, _ in same_function[0].metadata]
    unknown = [name for name in fields if name not in known]
    if unknown:
        raise ChoiceError(f"{function} has no field {unknown[0]!r}", where="OPTION",
                          fix=f"its fields are: {', '.join(known) or '(none)'}")
    matching = [o for o in same_function
                if all(_same(value, o.metadata_dict()[name]) for name, value in fields.items())]
    if len(matching) == 1:
        return matching[0]
    if not matching:
        wanted = ", ".join(f"{k}={format_value(v)}" for k, v in fields.items())
        raise ChoiceError(f"{hole} offers no {function} with {wanted} (you typed {typed!r})", where="OPTION",
                          fix=f"valid options: {_listing(menu, same_function)}")
    raise ChoiceError(f"{typed!r} matches {len(matching)} options at {hole}", where="OPTION",
                      fix=f"add fields or give the number: {_listing(menu, matching)}")
