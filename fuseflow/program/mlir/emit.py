"""An imported function, written as a program (docs/program-format.md) a user can read and edit.

Each dimension, tensor and op carries a comment or an `origin` naming where in the model it
comes from, so an edited program can still be traced back to the MLIR.
"""

from __future__ import annotations

import json
import re

from fuseflow.program.mlir.translate import Imported

#: what a program's name may hold (fuseflow.program.frontend.PROGRAM_NAME)
_NAME_CHARACTERS = re.compile(r"[^A-Za-z0-9_.-]")


def program_name(stem: str) -> str:
    name = _NAME_CHARACTERS.sub("_", stem) or "imported"
    return name if re.match(r"[A-Za-z0-9_]", name) else f"m{name}"


def program_toml(imported: Imported, file: str, name: str, density: float) -> str:
    def string(text: str) -> str:
        return json.dumps(text, ensure_ascii=False)  # a TOML basic string

    lines = [f"# Imported from {file} (func.func @{imported.function}) by `navigator import`.",
             "# Inputs get generated data: edit each tensor's source (docs/program-format.md) to use real data.",
             f"name = {string(name)}",
             f"description = {string(f'{file}: func.func @{imported.function}, imported')}",
             "", "[dims]"]
    lines += [f"{dim} = {extent}  # {imported.dim_notes[dim]}" for dim, extent in imported.dims.items()]
    lines += ["", "[tensors]"]
    for tensor, shape, formats in imported.inputs:
        fields = [f"shape = {json.dumps(list(shape))}", f"format = {json.dumps(list(formats))}",
                  f"source = {string(tensor.source)}"]
        if "compressed" in formats or tensor.source == "ones":  # a mask: ones on a random pattern
            fields.append(f"density = {density}")
        where = f"{file}:{tensor.line}" if tensor.line else file
        lines.append(f"{tensor.name} = {{ {', '.join(fields)} }}  # {tensor.what} ({where}), {tensor.type.element}")
    for tensor, shape, formats in imported.declared:
        lines.append(f"{tensor.name} = {{ shape = {json.dumps(list(shape))}, format = {json.dumps(list(formats))} }}"
                     f"  # {tensor.what}, computed and stored sparse")
    for op in imported.ops:
        lines += ["", "[[ops]]", f"name = {string(op.name)}", f"expr = {string(str(op.statement))}"]
        if op.reduce != "sum":
            lines.append(f"reduce = {string(op.reduce)}")
        lines.append(f"origin = {string(op.origin)}")
    return "\n".join(lines) + "\n"
