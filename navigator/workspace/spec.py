"""What a session navigates: a tensor program (with its data and dimensions) and the
library, or a Honeybee problem (a `.hb.toml` of facts and a goal) and its library.

A `ProgramSpec` is what the session file records (bundled names stay names, files become
absolute paths so the session works from any directory). `ProgramSpec.load()` builds the
space (navigator.fuseflow.schedule_space.ScheduleSpace, or navigator.honeybee.problem.ProblemSpace) and the
content hashes that tell whether anything changed since.

This module is the one place that knows both kinds of space (`KINDS`): everything above it
asks the space it loaded for a capability (navigator.navigation.space.Space).
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Mapping

from fuseflow.support.errors import UserError

if TYPE_CHECKING:
    from navigator.navigation.space import Space

#: the keys of `fingerprints`, in the order changes are reported
FINGERPRINT_KEYS = ("program", "library", "data", "facts")
#: the kind of navigator.workspace.cache entry that holds a program's generated facts
FACTS_CACHE = "facts"
#: the oracle's solved tables and counts for those facts (navigator.synth.solved_state)
SOLVED_CACHE = "solved"
#: the cost hints' region estimates of a program, data and hardware (navigator.fuseflow.sketch_hints)
HINTS_CACHE = "hints"
#: what a session navigates: a tensor program, or a Honeybee problem (recorded as context.navigator.kind)
TENSOR, HONEYBEE = "tensor", "honeybee-problem"


@dataclass(frozen=True)
class ProgramSpec:
    #: a bundled program's name, or an absolute path to a program .toml
    program: str
    #: absolute path of the graph data file, or None for the program's preset
    data: str | None = None
    #: dimension overrides, sorted by name
    dims: tuple[tuple[str, int], ...] = ()
    #: absolute path of the scheduling library, or None for the bundled FuseFlow library
    library: str | None = None
    #: TENSOR, or HONEYBEE when `program` is a Honeybee problem file (recognised by its content)
    kind: str = TENSOR

    @classmethod
    def from_user(cls, program: str, data: str | None = None, dims: Mapping[str, int] | None = None,
                  library: str | None = None) -> "ProgramSpec":
        """Normalize command-line values: relative paths become absolute (symbolic links resolved).

        Everything recorded here is written to the session file and printed, so text that is
        not valid Unicode is refused now, naming the argument.
        """
        from fuseflow.program.bundled import program_location
        from navigator.workspace.user_text import check_path_text, check_text

        check_path_text(program, "PROGRAM")
        for name in dims or {}:
            check_text(name, "--dim")
        if program_location(program).path is not None:
            from navigator.honeybee.problem import is_honeybee_problem_file

            if os.path.isfile(program) and is_honeybee_problem_file(program):
                return cls._problem(program, data, dims, library)
            program = _absolute(program)
        return cls(program, _absolute(check_path_text(data, "--data")) if data else None,
                   tuple(sorted((dims or {}).items())),
                   _absolute(check_path_text(library, "--library")) if library else None)

    @classmethod
    def _problem(cls, problem: str, data: str | None, dims: Mapping[str, int] | None,
                 library: str | None) -> "ProgramSpec":
        from navigator.honeybee.problem import library_required
        from navigator.workspace.user_text import check_path_text

        for option, given in (("--data", data), ("--dim", dims)):
            if given:
                raise UserError(f"{option} applies to tensor programs, and {problem} is a Honeybee problem",
                                where=option, fix=f"leave out {option}: a problem's facts are its whole input")
        if not library:
            raise library_required(problem)
        return cls(_absolute(problem), None, (), _absolute(check_path_text(library, "--library")), HONEYBEE)

    @property
    def space_kind(self) -> "SpaceKind":
        return KINDS[self.kind]

    @property
    def bundled(self) -> bool:
        return not os.path.isabs(self.program)

    @property
    def dims_dict(self) -> dict[str, int]:
        return dict(self.dims)

    def describe(self) -> str:
        """One line for people: `spmm (dims N=8)`, `/abs/prog.toml (data /abs/g.npz)`,
        `/abs/P.hb.toml (Honeybee problem; library /abs/L.hblib.toml)`."""
        extras = [self.space_kind.label] if self.space_kind.label else []
        if self.dims:
            extras.append("dims " + " ".join(f"{k}={v}" for k, v in self.dims))
        if self.data:
            extras.append(f"data {self.data}")
        if self.library:
            extras.append(f"library {self.library}")
        return self.program + (f" ({'; '.join(extras)})" if extras else "")

    # ---- the session file's context ----

    def to_context(self) -> dict[str, Any]:
        context = {"program": self.program, "data": self.data, "dims": self.dims_dict, "library": self.library}
        if self.kind != TENSOR:  # tensor sessions are written as before
            context["kind"] = self.kind
        return context

    def summary_json(self) -> dict[str, Any]:
        """The spec as summaries such as `sample --json` name it (docs/session-json.md)."""
        summary: dict[str, Any] = {"spec": self.program}
        if self.kind != TENSOR:  # tensor summaries are written as before
            summary.update(kind=self.kind, library=self.library)
        return {**summary, "dims": self.dims_dict, "data": self.data}

    @classmethod
    def from_context(cls, data: Any, where: str) -> "ProgramSpec":
        from navigator.navigation.session_errors import DamagedSessionError

        if not isinstance(data, dict) or not isinstance(data.get("program"), str):
            raise DamagedSessionError("the session names no program (context.navigator.program)", where=where)
        dims = data.get("dims") or {}
        if not isinstance(dims, dict) or not all(isinstance(k, str) and isinstance(v, int)
                                                 and not isinstance(v, bool) for k, v in dims.items()):
            raise DamagedSessionError("context.navigator.dims must map dimension names to integers",
                                      where=where)
        for key in ("data", "library"):
            if data.get(key) is not None and not isinstance(data[key], str):
                raise DamagedSessionError(f"context.navigator.{key} must be a path or null", where=where)
        kind = data.get("kind", TENSOR)
        if kind not in KINDS:
            raise DamagedSessionError(f"context.navigator.kind must be one of {', '.join(KINDS)}", where=where)
        if KINDS[kind].needs_files and (data.get("library") is None or not os.path.isabs(data["program"])):
            raise DamagedSessionError(f"a {KINDS[kind].label}'s session must record the problem's and the "
                                      "library's paths", where=where)
        return cls(data["program"], data.get("data"), tuple(sorted(dims.items())), data.get("library"), kind)

    # ---- loading ----

    def program_text(self) -> tuple[str, str]:
        """(text, where) of the program file or the bundled program."""
        from fuseflow.program.bundled import bundled_program_names, bundled_program_text
        from fuseflow.program.frontend import read_program_text
        from fuseflow.support.errors import ProgramError

        if self.bundled:
            if self.program not in bundled_program_names():
                raise ProgramError(f"no bundled program {self.program!r} in this navigator",
                                   where="program", fix=f"bundled: {', '.join(bundled_program_names())}")
            return bundled_program_text(self.program), f"{self.program}.toml (bundled)"
        return read_program_text(self.program, self.dims_dict), self.program

    def load(self) -> "LoadedProgram":
        """The schedule space and the content hashes of what it is made from.

        The program's facts are generated once per content (navigator.workspace.cache keeps them, keyed
        by these hashes and the dimensions); a space made from cached facts binds its program
        only if a command asks for the binding, so opening a session loads no numerical library.
        """
        from navigator.process.heap import keep_loaded

        loaded = self.space_kind.load(self)
        keep_loaded()
        return loaded

    def _load_tensor_program(self) -> "LoadedProgram":
        from fuseflow.program.frontend import parse_program
        from navigator.fuseflow.bundled_library import load_scheduling_library
        from navigator.navigation.fingerprint import content_hash
        from navigator.workspace.cache import CacheEntries, cache_folder, write_entry

        text, where = self.program_text()
        program = parse_program(text, where, self.dims_dict)
        library = load_scheduling_library(self.library)
        fingerprints = {"program": content_hash(text), "library": content_hash(library[1]),
                        "data": file_hash(self.data) if self.data else None}
        key = {**fingerprints, "dims": self.dims_dict}

        def bind_program():
            from fuseflow.program.binding import bind

            return bind(program, self.data, self.dims_dict)

        space = _space_from_cache(program, self.library, library, key, bind_program)
        if space is None:
            from navigator.fuseflow.schedule_space import ScheduleSpace

            space = ScheduleSpace.build(program, bind_program(), self.library, library)
            write_entry(FACTS_CACHE, key, space.kept_facts())
        if not space.oracle.restored_solved and cache_folder() is not None:  # solved here: the next need not
            write_entry(SOLVED_CACHE, key, space.oracle.solved_state())
        space.estimate_store = CacheEntries(HINTS_CACHE)
        return LoadedProgram(self, space, {**fingerprints, "facts": space.facts_fingerprint})

    def _load_problem(self) -> "LoadedProgram":
        from navigator.honeybee.problem import ProblemSpace
        from navigator.navigation.fingerprint import content_hash

        space = ProblemSpace.build(self.program, self.library)
        fingerprints = {"program": content_hash(space.problem_text), "library": content_hash(space.library_text),
                        "data": None, "facts": space.facts_fingerprint}
        return LoadedProgram(self, space, fingerprints)

    def changes(self, saved: Mapping[str, Any], current: Mapping[str, Any]) -> list[str]:
        """What differs between two fingerprint sets, in words (empty when nothing did)."""
        names = {
            "program": f"the bundled program {self.program} (navigator was upgraded)" if self.bundled
            else f"the {self.space_kind.noun} file {self.program}",
            "library": f"the library file {self.library}" if self.library
            else "the bundled scheduling library (navigator was upgraded)",
            "data": f"the data file {self.data}",
            "facts": self.space_kind.facts,
        }
        changed = []
        for key in FINGERPRINT_KEYS:
            if key in saved and saved.get(key) != current.get(key):
                changed.append(f"{names[key]} (content {_short(saved.get(key))} -> {_short(current.get(key))})")
        return changed


def _space_from_cache(program, library_path: str | None, library, key: dict, bind_program):
    """The space made from the facts cached under `key`, or None (no entry, or one that does
    not make the space it claims to: it is then computed and written again)."""
    from navigator.workspace.cache import read_entry
    from navigator.fuseflow.schedule_space import ScheduleSpace

    entry = read_entry(FACTS_CACHE, key)
    try:
        if not isinstance(entry, dict) or not isinstance(entry["fingerprint"], str) \
                or not facts_fit_program(program, entry):
            return None
        return ScheduleSpace.from_kept(program, entry, library_path, library, bind_program=bind_program,
                                       solved=read_entry(SOLVED_CACHE, key))
    except Exception:  # noqa: BLE001 -- an entry that does not make a space is a miss, never an error
        return None


def facts_fit_program(program, kept: dict) -> bool:
    """A cheap check that kept facts (ScheduleSpace.kept_facts) were generated for `program`
    (the entry's signature says navigator wrote them for this key; this catches an entry of
    another program): the goal and every fact that names a program name this one, and every
    region is made of its ops."""
    if kept["goal"][1] != {"program": program.name}:
        return False
    named_at, region_at = [], []
    for prop, fields in kept["props"]:
        named = "name" if prop == "Program" else "program"
        named_at.append(fields.index(named) + 1 if named in fields else None)
        region_at.append(fields.index("region") + 1 if "region" in fields else None)
    ops = set(program.op_by_name)
    regions: set[str] = set()
    for row in kept["rows"]:
        i = row[0]
        at = named_at[i]
        if at is not None and row[at] != program.name:
            return False
        at = region_at[i]
        if at is not None:
            regions.add(row[at])
    return all(isinstance(region, str) and set(region.split("+")) <= ops for region in regions)


def _short(value: Any) -> str:
    """The first characters of a fingerprint; anything else (a hand-edited record may hold a
    list nested thousands deep, whose str() would recurse) is named by its type."""
    if not value:
        return "none"
    return str(value)[:8] if isinstance(value, (str, int, float)) else type(value).__name__


def _absolute(path: str) -> str:
    """The absolute path with symbolic links resolved; a loop of links is left for the read
    to report (os.path.realpath does not raise on one, unlike Path.resolve)."""
    return os.path.realpath(path)


def file_hash(path: str, what: str = "the data file") -> str:
    """SHA-256 of a regular file's bytes (first 16 hex digits, like navigator.navigation.fingerprint.content_hash).

    A FIFO or a device is refused rather than read forever."""
    from fuseflow.support.files import open_regular_file, os_error

    digest = hashlib.sha256()
    with open_regular_file(path, UserError, what) as handle:
        try:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
        except OSError as exc:
            raise os_error(exc, path, UserError, "read", what) from None
    return digest.hexdigest()[:16]


@dataclass
class LoadedProgram:
    spec: ProgramSpec
    space: "Space"
    fingerprints: dict[str, str | None]

    @property
    def name(self) -> str:
        """The program's name, or the problem file's name without `.hb.toml`."""
        return self.space.name

    @property
    def program(self):
        """The tensor program; a space without one refuses the command that asked."""
        return self.space.require_tensor_program(None)

    @property
    def binding(self):
        """The tensor program bound to its data (made when first asked for)."""
        self.space.require_tensor_program(None)
        return self.space.binding


@dataclass(frozen=True)
class SpaceKind:
    """One kind of space a session can navigate: how its spec loads, and how it is named."""

    #: what the user gave, in "the program file F" and "the problem of session S"
    noun: str
    #: what `describe()` adds, if anything
    label: str | None
    #: what the "facts" fingerprint covers, for `changes`
    facts: str
    #: the session must record the absolute paths of the file and the library
    needs_files: bool
    load: Callable[[ProgramSpec], LoadedProgram]


KINDS = {
    TENSOR: SpaceKind("program", None, "the facts generated from the program and its data (the schedule space)",
                      False, ProgramSpec._load_tensor_program),
    HONEYBEE: SpaceKind("problem", "Honeybee problem", "the problem's facts and goal", True,
                        ProgramSpec._load_problem),
}
