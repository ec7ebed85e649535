"""Find programs: a path on disk, or the name of a program shipped in fuseflow.programs."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from fuseflow.errors import ProgramError
from fuseflow.frontend import load_program, parse_program
from fuseflow.ir import Program


def bundled_program_names() -> list[str]:
    return sorted(p.name[:-5] for p in resources.files("fuseflow.programs").iterdir()
                  if p.name.endswith(".toml"))


def bundled_program_text(name: str) -> str:
    return resources.files("fuseflow.programs").joinpath(f"{name}.toml").read_text(encoding="utf-8")


def resolve_program(spec: str) -> Program:
    """A path to a .toml file, or a bundled program's name."""
    if spec in bundled_program_names() and not Path(spec).exists():
        return parse_program(bundled_program_text(spec), f"{spec}.toml (bundled)")
    path = Path(spec)
    if path.suffix == ".toml" or path.exists():
        return load_program(path)
    raise ProgramError(f"unknown program {spec!r}", where="PROGRAM",
                       fix=f"give a .toml path or one of: {', '.join(bundled_program_names())}")
