"""The MLIR Python bindings, loaded on first use, and parsing a model with them.

The bindings are upstream MLIR's, as the `torch-mlir` wheel ships them (`torch_mlir.ir`,
`torch_mlir.dialects.*`; no PyTorch needed). They are an optional extra: without them an
import says how to install them and stops, as any user error does.
"""

from __future__ import annotations

import re
from types import ModuleType

from fuseflow.support.errors import ProgramError

INSTALL_FIX = "install the MLIR Python bindings: pip install 'navigator-sched[mlir]' (or pip install torch-mlir)"

#: "-":12:5 in the parser's messages: the text was parsed from a string, so name the file instead
_STRING_SOURCE = re.compile(r'"-":(\d+):(\d+)')


def mlir_ir(where: str) -> ModuleType:
    """`torch_mlir.ir`, or a ProgramError naming `where` and how to install it."""
    try:
        from torch_mlir import ir
        from torch_mlir.dialects import sparse_tensor  # noqa: F401  (registers the encoding's Python class)
    except ImportError as exc:
        raise ProgramError(f"reading MLIR needs the MLIR Python bindings, which are not installed ({exc.name})",
                           where=where, fix=INSTALL_FIX) from None
    return ir


def parse_module(text: str, where: str):
    """The module the text holds, verified; the parser's first error, at its line, when it rejects it."""
    ir = mlir_ir(where)
    context = ir.Context()
    try:
        return ir.Module.parse(text, context)
    except ir.MLIRError as exc:
        line, message = _first_error(str(exc))
        raise ProgramError(message, where=f"{where}:{line}" if line else where,
                           fix="the file must be MLIR that mlir-opt accepts (the upstream dialects: func, "
                               "linalg, tensor, arith, math, sparse_tensor)") from None
    except (ValueError, RuntimeError) as exc:  # a string the bindings refuse before parsing
        raise ProgramError(f"not MLIR the parser accepts: {exc}", where=where) from None


def _first_error(text: str) -> tuple[str | None, str]:
    """(line, message) of the parser's first `error:` diagnostic, on one line."""
    for raw in text.splitlines():
        raw = raw.strip()
        if raw.startswith("error:"):
            found = _STRING_SOURCE.search(raw)
            message = raw[len("error:"):]
            if found:
                message = message.replace(found.group(0) + ":", "", 1)
            return (found.group(1) if found else None), " ".join(message.split())[:500]
    return None, " ".join(text.split())[:500] or "the MLIR parser rejected the file"


def line_of(operation) -> int | None:
    """The line of the source an operation was parsed from, if its location says."""
    try:
        return int(operation.location.start_line)
    except (AttributeError, ValueError, TypeError, RuntimeError):
        return None


_VALUE = re.compile(r"%([A-Za-z0-9_$.-]+)")
_RESULTS = re.compile(r"^\s*(%[A-Za-z0-9_$.-]+(?::\d+)?(?:\s*,\s*%[A-Za-z0-9_$.-]+(?::\d+)?)*)\s*=\s*$")


class SourceNames:
    """The names values have in the file (`%adj`, `%weights`), which the parser does not keep:
    read at the locations it does keep. A value whose name cannot be read gets the printer's."""

    def __init__(self, text: str):
        self.lines = text.splitlines()

    def argument(self, value) -> str:
        found = self._at(value.location)
        match = _VALUE.match(found) if found is not None else None
        return f"%{match.group(1)}" if match else value.get_name()

    def result(self, value) -> str:
        owner = value.owner
        found = self._before(owner.location)
        match = _RESULTS.match(found) if found is not None else None
        if match:
            names = []
            for part in match.group(1).split(","):
                name, _, count = part.strip().partition(":")
                names += [name] if not count else [f"{name}_{k}" for k in range(int(count))]
            if value.result_number < len(names):
                return names[value.result_number]
        return value.get_name()

    def _position(self, location) -> tuple[int, int] | None:
        try:
            return int(location.start_line), int(location.start_col)
        except (AttributeError, ValueError, TypeError, RuntimeError):
            return None

    def _at(self, location) -> str | None:
        position = self._position(location)
        if position is None or not 0 < position[0] <= len(self.lines):
            return None
        return self.lines[position[0] - 1][position[1] - 1:]

    def _before(self, location) -> str | None:
        position = self._position(location)
        if position is None or not 0 < position[0] <= len(self.lines):
            return None
        return self.lines[position[0] - 1][:position[1] - 1]
