"""Find programs: a path on disk, or the name of a program shipped in fuseflow.programs.

The rule, in one place (`program_location`): a bare name of a bundled program (`gcn`) always
means that program, even when a file or folder of that name is in the current directory;
write `./gcn` or `gcn.toml` for a file. Anything else is a path: a `.toml` path (read later,
so a missing file gets the reader's error), or an existing file of any name.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Mapping

from fuseflow.errors import ProgramError
from fuseflow.frontend import load_program, parse_program
from fuseflow.ir import Program


def bundled_program_names() -> list[str]:
    return sorted(p.name[:-5] for p in resources.files("fuseflow.programs").iterdir()
                  if p.name.endswith(".toml"))


def bundled_program_text(name: str) -> str:
    return resources.files("fuseflow.programs").joinpath(f"{name}.toml").read_text(encoding="utf-8")


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
    if Path(spec).suffix == ".toml" or os.path.exists(spec):
        return ProgramLocation(path=spec)
    raise ProgramError(f"unknown program {spec!r}", where="PROGRAM",
                       fix=f"give a .toml path or one of: {', '.join(names)}")


def resolve_program(spec: str, dims: Mapping[str, int] | None = None) -> Program:
    """A path to a .toml file, or a bundled program's name, read with the `--dim` overrides
    (they set the counts of its repeated blocks, fuseflow.repeats)."""
    location = program_location(spec)
    if location.bundled is not None:
        return parse_program(bundled_program_text(location.bundled), f"{location.bundled}.toml (bundled)", dims)
    return load_program(Path(location.path), dims=dims)
