"""Find programs: a path on disk, or the name of a program shipped in fuseflow.programs.

The rule, in one place (`program_location`): a bare name of a bundled program (`gcn`) always
means that program, even when a file or folder of that name is in the current directory;
write `./gcn` or `gcn.toml` for a file. Anything else is a path: a `.toml` path (read later,
so a missing file gets the reader's error), or an existing file of any name.

A few bundled programs are *variants*: another bundled program with other default dimensions
(transformer12 is transformer_block with blocks = 12). They have no file of their own, so the
block is written once; their text is the base program's with its name, description and those
dimensions' lines replaced, and it is that whole text that sessions hash and cache.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Mapping

from fuseflow.support.errors import ProgramError
from fuseflow.program.frontend import load_program, parse_program
from fuseflow.program.ir import Program


@dataclass(frozen=True)
class Variant:
    """A bundled program made from another by changing the default extents in its [dims]."""

    base: str
    description: str
    dims: dict[str, int] = field(default_factory=dict)


VARIANTS: dict[str, Variant] = {
    "transformer12": Variant("transformer_block", "Twelve decoder blocks of transformer_block (BigBird-masked "
                                                  "attention, GELU FFN); --dim blocks=N for another depth",
                             {"blocks": 12}),
}


def bundled_program_names() -> list[str]:
    return sorted([p.name[:-5] for p in resources.files("fuseflow.programs").iterdir()
                   if p.name.endswith(".toml")] + list(VARIANTS))


def bundled_program_text(name: str) -> str:
    variant = VARIANTS.get(name)
    if variant is not None:
        return variant_text(name, variant, bundled_program_text(variant.base))
    return resources.files("fuseflow.programs").joinpath(f"{name}.toml").read_text(encoding="utf-8")


def variant_text(name: str, variant: Variant, base: str) -> str:
    """The base program's text with the variant's name and description (in the lines before the
    first table) and its [dims] values. Each line replaced must be there exactly once (a test
    reads every variant), so the text never silently keeps the base's value."""
    sections = re.split(r"(?m)^(?=\[)", base)  # the preamble, then one piece per table header
    dims = [i for i, piece in enumerate(sections) if piece.startswith("[dims]")]
    edits = [(0, r'^name = ".*"$', f'name = "{name}"'),
             (0, r'^description = ".*"$', f'description = "{variant.description}"')]
    edits += [(dims[0] if len(dims) == 1 else -1, rf"^{dim} = \d+(?=[ \t]*(#.*)?$)", f"{dim} = {value}")
              for dim, value in variant.dims.items()]
    for section, pattern, line in edits:
        sections[section], count = re.subn(pattern, line, sections[section], flags=re.M)
        if count != 1:
            raise RuntimeError(f"bundled variant {name}: {count} lines of {variant.base} match {pattern!r}")
    return "".join(sections)


@dataclass(frozen=True)
class ProgramLocation:
    """Where a PROGRAM argument points: exactly one of `bundled` (a name) and `path`."""

    bundled: str | None = None
    path: str | None = None


def program_location(spec: str) -> ProgramLocation:
    """A PROGRAM argument as a bundled name or a path (see the module's rule); an argument
    that is neither is refused, listing the bundled names."""
    names = bundled_program_names()
    if spec in names:  # bundled names have no directory part and no suffix
        return ProgramLocation(bundled=spec)
    # os.path.exists says False, not an exception, for a path it cannot look at
    if Path(spec).suffix in (".toml", ".mlir") or os.path.lexists(spec):  # a broken link too: reading it says why
        return ProgramLocation(path=spec)
    raise ProgramError(f"unknown program {spec!r}", where="PROGRAM",
                       fix=f"give a .toml or .mlir path or one of: {', '.join(names)}")


def resolve_program(spec: str, dims: Mapping[str, int] | None = None) -> Program:
    """A path to a .toml file, or a bundled program's name, read with the `--dim` overrides
    (they set the counts of its repeated blocks, fuseflow.program.repeats)."""
    location = program_location(spec)
    if location.bundled is not None:
        return parse_program(bundled_program_text(location.bundled), f"{location.bundled}.toml (bundled)", dims)
    return load_program(Path(location.path), dims=dims)
