"""Repeated blocks in the program format: tensors and ops written once in a `[[repeat]]`
table and expanded, at parse time, as many times as a dimension says.

    [dims]
    layers = 2                     # the repeat count: --dim layers=64 makes 64 blocks
    [[repeat]]
    times = "layers"               # a dimension's name, or a whole number
    index = "l"                    # {l} is 1, 2, ... in names and expressions
    [repeat.tensors]
    "W{l}" = { shape = ["F", "F"], source = "random" }
    [[repeat.ops]]
    name = "aggregate{l}"
    expr = "AH{l}(i,f) = A(i,k) * H{l-1}(k,f)"      # {l-1} is 0 in block 1

A placeholder is `{NAME}`, `{NAME-K}` or `{NAME+K}`: NAME is the block's index (only inside
its own `[[repeat]]`) or a dimension some `[[repeat]]` counts with (anywhere in an op's name
or expression: `H{layers}` names the last block's output). Every placeholder names a block,
so its value must lie from 0 (what comes before block 1) to the count. This module reads the
`[[repeat]]` tables, refuses every mistake (and a count whose expansion would pass the
program's limits) before it expands anything, substitutes the placeholders, and places each
expanded block among the top-level ops. Checking the expanded names and statements is the
frontend's job, which reports them at the template's line with the block they came from.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable, Mapping

from fuseflow.support.errors import show_value as show

REPEAT_KEYS = {"times", "index", "tensors", "ops"}

_FORM_FIX = "write {NAME}, {NAME-1} or {NAME+1}, NAME being the block's index or a repeat count"
_PLACEHOLDER = re.compile(r"\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*(?:([+-])\s*([0-9]{1,6}))?\s*\}")
_BRACE = re.compile(r"[{}]")
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
#: the output tensor's name in a statement's text: everything before its first '(' or '='
_OUTPUT = re.compile(r"\s*([^(=]*)")


class BlockMark(str):
    """The block an expanded tensor or op comes from (`l=3`), as the last part of its key
    path: the frontend's messages show it after the key, and finding the line ignores it."""


@dataclass(frozen=True)
class Entry:
    """One tensor (`name`, `spec`) or op (`spec` is its table) as the frontend parses it,
    with the key path it was written at (the template's, for an expanded one)."""

    name: str | None
    spec: object
    at: tuple

    @property
    def block(self) -> BlockMark | None:
        return self.at[-1] if self.at and isinstance(self.at[-1], BlockMark) else None


@dataclass(frozen=True)
class Repeat:
    """One `[[repeat]]` table, checked: its count and where the count came from."""

    number: int                      # its position among the [[repeat]] tables
    index: str
    count: int
    count_dim: str | None            # the dimension giving the count; None for a literal
    tensors: dict
    ops: list

    @property
    def label(self) -> str:
        return self.count_dim or str(self.count)


@dataclass(frozen=True)
class Repeats:
    """Every `[[repeat]]` of a program, with the counts it was read with."""

    blocks: tuple[Repeat, ...]

    @property
    def counts(self) -> dict[str, int]:
        """Repeat-count dimension -> the count used (the program's extent for it)."""
        return {r.count_dim: r.count for r in self.blocks if r.count_dim is not None}


Fail = Callable[..., None]  # the frontend's checker: fail(message, *key_path, fix=...)


def read_repeats(table, dims: Mapping[str, int | str], overrides: Mapping[str, int], fail: Fail, *,
                 top_ops: int, top_tensors: int, max_ops: int, max_tensors: int) -> Repeats:
    """Check the `[[repeat]]` tables and their counts (command-line overrides win), and refuse
    a count whose expansion would exceed `max_ops` or `max_tensors`, all before expanding.
    Every location is given to `fail` as a key path (("dims", "L"), ("repeat", 3, "times")),
    which the frontend turns into `file:line [key.path]`; never a formatted location."""
    if table is None:
        return Repeats(())
    if not isinstance(table, list) or not all(isinstance(item, dict) for item in table):
        fail("must be an array of tables, one [[repeat]] entry per repeated block", "repeat",
             fix="write [[repeat]] with times, index, [repeat.tensors] and [[repeat.ops]] (docs/program-format.md)")
    blocks = tuple(_read_repeat(number, item, dims, overrides, fail) for number, item in enumerate(table))
    _check_expansion_size(blocks, "ops", top_ops, max_ops, overrides, fail)
    _check_expansion_size(blocks, "tensors", top_tensors, max_tensors, overrides, fail)
    return Repeats(blocks)


def _read_repeat(number: int, item: dict, dims, overrides, fail: Fail) -> Repeat:
    at = ("repeat", number)
    if "repeat" in item:
        fail("a [[repeat]] inside a [[repeat]] is not supported", *at, "repeat",
             fix="repeat one block: write the inner ops out in the outer block, or make the inner count part of "
                 "the outer one")
    for key in item:
        if key not in REPEAT_KEYS:
            fail(f"unknown key {show(key)}", *at, key, fix=f"expected one of: {', '.join(sorted(REPEAT_KEYS))}")
    index = item.get("index")
    if index is None:
        fail("missing index: the name of the block number in placeholders", *at,
             fix='e.g. index = "l", then write {l} in names and {l-1} for the previous block')
    if not isinstance(index, str) or not _IDENTIFIER.fullmatch(index) or len(index) > 64:
        fail(f"{show(index)} is not a valid index name", *at, "index", fix='use a short identifier, e.g. index = "l"')
    if index in dims:
        fail(f"index {index!r} is also a dimension's name, so {{{index}}} would be ambiguous", *at, "index",
             fix='choose another index name, e.g. index = "l"')
    count, count_dim = _read_count(item.get("times"), at, dims, overrides, fail)
    tensors = item.get("tensors", {})
    if not isinstance(tensors, dict):
        fail("must be a table of tensors", *at, "tensors",
             fix='e.g. [repeat.tensors] then "W{l}" = { shape = ["F", "F"], source = "random" }')
    ops = item.get("ops")
    if not ops:
        fail("a [[repeat]] needs at least one op", *at,
             fix='add [[repeat.ops]] with expr = "H{l}(i,f) = ..." under it')
    if not isinstance(ops, list):
        fail("must be an array of tables, one [[repeat.ops]] entry per op", *at, "ops",
             fix='write each op as [[repeat.ops]] followed by expr = "..."')
    repeat = Repeat(number, index, count, count_dim, tensors, ops)
    _check_templates(repeat, fail)
    return repeat


def _read_count(times, at: tuple, dims, overrides, fail: Fail) -> tuple[int, str | None]:
    fix = 'give a dimension\'s name (times = "layers", set by --dim layers=N) or a whole number (times = 4)'
    if times is None:
        fail("missing times: how many blocks to make", *at, fix=fix)
    if isinstance(times, bool) or not isinstance(times, (int, str)):
        fail(f"times must be a dimension's name or a whole number, got {show(times)}", *at, "times", fix=fix)
    if isinstance(times, int):
        if times < 1:
            fail(f"a repeat count must be at least 1, got {times}", *at, "times", fix="e.g. times = 2")
        return times, None
    if times not in dims:
        fail(f"unknown dimension {show(times)}", *at, "times",
             fix=f"name a dimension of [dims] ({', '.join(list(dims)[:10])}) or give a whole number")
    if times in overrides:
        value = overrides[times]
        if value < 1:
            fail(f"{times} counts the blocks of a [[repeat]], and a repeat count must be at least 1, got {value}",
                 "--dim", fix=f"write --dim {times}=N with N, the number of blocks, at least 1")
        return value, times
    value = dims[times]
    if not isinstance(value, int):
        fail(f"dimension {times} = {show(value)} is bound to the data, but a repeat count must be a whole "
             "number", *at, "times", fix=f"set {times} to a whole number in [dims], e.g. {times} = 2")
    return value, times


def _check_templates(repeat: Repeat, fail: Fail) -> None:
    """Every block must name its tensors and ops apart from the others': with the index in them."""
    at = ("repeat", repeat.number)
    for name in repeat.tensors:
        if not _uses_index(name, repeat.index):
            fail(f"tensor {show(name)} would have the same name in every block", *at, "tensors", name,
                 fix=f"put {{{repeat.index}}} in its name (e.g. \"{name}{{{repeat.index}}}\"), or declare it under "
                     "[tensors] to share one tensor between the blocks")
    for position, op in enumerate(repeat.ops):
        if not isinstance(op, dict):
            continue  # the frontend says what an op must be
        expr, name = op.get("expr"), op.get("name")
        if isinstance(expr, str):
            output = _OUTPUT.match(expr).group(1).strip()
            if output and not _uses_index(output, repeat.index):
                fail(f"the output {show(output)} would be computed again by every block", *at, "ops", position, "expr",
                     fix=f"put {{{repeat.index}}} in the output's name, e.g. {output}{{{repeat.index}}}(...)")
        if isinstance(name, str) and not _uses_index(name, repeat.index):
            fail(f"op name {show(name)} would be the same in every block", *at, "ops", position, "name",
                 fix=f"put {{{repeat.index}}} in it, e.g. name = \"{name}{{{repeat.index}}}\"")


def _uses_index(text: str, index: str) -> bool:
    return any(match.group(1) == index for match in _PLACEHOLDER.finditer(text))


def _check_expansion_size(blocks: tuple[Repeat, ...], what: str, top: int, limit: int, overrides,
                          fail: Fail) -> None:
    """Refuse, before expanding, a program that would have more than `limit` ops (or tensors),
    at the count of the `[[repeat]]` that contributes the most."""
    total = top + sum(r.count * len(getattr(r, what)) for r in blocks)
    if total <= limit:
        return
    largest = max(blocks, key=lambda r: r.count * len(getattr(r, what)))
    per_block = len(getattr(largest, what))
    room = (limit - (total - largest.count * per_block)) // per_block
    message = (f"{largest.label} = {largest.count:,} blocks of {per_block} {what} make {total:,} {what}, "
               f"more than the {limit:,} a program may have")
    split = "split the program into several programs"
    if largest.count_dim is None:
        fail(message, "repeat", largest.number, "times",
             fix=f"repeat at most {room:,} times" if room >= 1 else split)
    name = largest.count_dim
    if name in overrides:
        fail(message, "--dim", fix=f"use --dim {name}=N with N at most {room:,}" if room >= 1 else split)
    fail(message, "dims", name, fix=f"set {name} to at most {room:,}" if room >= 1 else split)


# ---------------------------------------------------------------- substitution

def substitute(text: str, values: Mapping[str, int], counts: Mapping[str, int], at: tuple, fail: Fail,
               index: str | None = None, block: int | None = None, other_indices: frozenset = frozenset()) -> str:
    """`text` with every placeholder replaced by its block number. `values` are the names a
    placeholder may use here (the block's index, the repeat counts), `counts` their upper
    bounds; a brace that is not part of a placeholder is refused."""
    out: list[str] = []
    pos = 0
    for match in _PLACEHOLDER.finditer(text):
        _no_stray_brace(text[pos:match.start()], text, at, fail)
        name, sign, offset = match.group(1), match.group(2), int(match.group(3) or 0)
        if name not in values:
            _unknown_placeholder(match.group(0), name, values, index, other_indices, at, fail)
        value = values[name] + (offset if sign == "+" else -offset)
        if not 0 <= value <= counts[name]:
            inside = f" in block {block}" if block is not None else ""
            fail(f"{match.group(0)} is {value}{inside}, which names no block (blocks are numbered 1 to "
                 f"{counts[name]:,}, and 0 is what comes before block 1)", *at,
                 fix=f"name a block from 0 to {counts[name]:,}: {{{index}}} is this block, {{{index}-1}} the one "
                     "before (0 in block 1)" if name == index
                 else f"name a block from 0 to {counts[name]:,}: {{{name}}} is the last block, {{{name}-1}} the one "
                      "before it")
        out.append(text[pos:match.start()] + str(value))
        pos = match.end()
    _no_stray_brace(text[pos:], text, at, fail)
    out.append(text[pos:])
    return "".join(out)


def _no_stray_brace(piece: str, text: str, at: tuple, fail: Fail) -> None:
    stray = _BRACE.search(piece)
    if stray:
        start = max(0, stray.start() - 1)
        fail(f"cannot read the placeholder near {show(piece[start:start + 12])} in {show(text)}", *at,
             fix=_FORM_FIX)


def _unknown_placeholder(written: str, name: str, values, index, other_indices, at: tuple, fail: Fail) -> None:
    counts = [f"{{{n}}}" for n in values if n != index]
    known = ([f"{{{index}}} (this block; {{{index}-1}} is the one before)"] if index else []) + \
        ([f"{' and '.join(counts)} (the last block)"] if counts else [])
    if name in other_indices:
        fail(f"{written} is the index of a [[repeat]], and means something only inside its blocks", *at,
             fix=f"outside them, name a block through its count: {', '.join(known)}" if known
             else "outside them, name a block through a count dimension: times = \"NAME\", then {NAME}")
    fail(f"unknown placeholder {written}", *at,
         fix=f"the placeholders here are {', '.join(known)}" if known
         else "placeholders name the blocks of a [[repeat]] (docs/program-format.md, Repeated blocks)")


# ---------------------------------------------------------------- expansion

def expand_tensors(repeats: Repeats, fail: Fail) -> list[Entry]:
    """Every block's tensors, named for their block, in block order."""
    counts = repeats.counts
    entries: list[Entry] = []
    for repeat in repeats.blocks:
        bounds = {**counts, repeat.index: repeat.count}
        for block in range(1, repeat.count + 1):
            values = {**counts, repeat.index: block}
            mark = BlockMark(f"{repeat.index}={block}")
            for template, spec in repeat.tensors.items():
                at = ("repeat", repeat.number, "tensors", template, mark)
                name = substitute(str(template), values, bounds, at, fail, repeat.index, block)
                entries.append(Entry(name, spec, at))
    return entries


def expand_ops(repeats: Repeats, fail: Fail) -> list[list[Entry]]:
    """Each `[[repeat]]`'s ops, block after block, with their names and expressions substituted."""
    counts = repeats.counts
    groups: list[list[Entry]] = []
    for repeat in repeats.blocks:
        bounds = {**counts, repeat.index: repeat.count}
        group: list[Entry] = []
        for block in range(1, repeat.count + 1):
            values = {**counts, repeat.index: block}
            mark = BlockMark(f"{repeat.index}={block}")
            for position, op in enumerate(repeat.ops):
                at = ("repeat", repeat.number, "ops", position, mark)
                group.append(Entry(None, _substitute_op(op, values, bounds, at, fail, repeat.index, block), at))
        groups.append(group)
    return groups


def top_level_ops(items: list, repeats: Repeats, fail: Fail) -> list[Entry]:
    """The `[[ops]]` entries, with any repeat-count placeholder (`H{layers}`) substituted."""
    counts = repeats.counts
    indices = frozenset(r.index for r in repeats.blocks)
    return [Entry(None, _substitute_op(op, counts, counts, ("ops", position), fail, other_indices=indices),
                  ("ops", position)) for position, op in enumerate(items)]


def _substitute_op(op, values, bounds, at: tuple, fail: Fail, index: str | None = None, block: int | None = None,
                   other_indices: frozenset = frozenset()):
    if not isinstance(op, dict):
        return op  # the frontend says what an op must be
    out = dict(op)
    for key in ("name", "expr"):
        if isinstance(op.get(key), str):
            key_at = at[:-1] + (key, at[-1]) if isinstance(at[-1], BlockMark) else at + (key,)
            out[key] = substitute(op[key], values, bounds, key_at, fail, index, block, other_indices)
    return out


def block_order(top_reads: list[set[str]], block_outputs: list[set[str]]) -> list[tuple[str, int]]:
    """Where the expanded blocks go among the top-level ops: each `[[repeat]]` runs just
    before the first top-level op that reads a tensor its blocks compute (after them all when
    none does), and the `[[repeat]]` tables keep their order. Returns ("op", i) and
    ("repeat", r) items in program order."""
    first_reader = [next((i for i, reads in enumerate(top_reads) if reads & outputs), len(top_reads))
                    for outputs in block_outputs]
    for r in range(len(first_reader) - 2, -1, -1):  # a later [[repeat]] may not run before an earlier one
        first_reader[r] = min(first_reader[r], first_reader[r + 1])
    order: list[tuple[str, int]] = []
    for position in range(len(top_reads) + 1):
        order += [("repeat", r) for r, place in enumerate(first_reader) if place == position]
        if position < len(top_reads):
            order.append(("op", position))
    return order
