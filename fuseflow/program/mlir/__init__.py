"""Open FuseFlow's MLIR models: linalg on tensors with sparse_tensor encodings, as torch-mlir emits.

    text = import_mlir_text(mlir_text, "gcn.mlir", dims={"D3": 32})   # a program's TOML text

The real MLIR parser reads the file (the upstream bindings in the torch-mlir wheel,
fuseflow.program.mlir.bindings); fuseflow.program.mlir.translate maps one function's ops to a
program's, and fuseflow.program.mlir.emit writes it. The program is then read like any other
(fuseflow.program.frontend), so every rule and limit of a program applies. docs/mlir.md
lists the supported subset.
"""

from __future__ import annotations

from pathlib import Path
from typing import Mapping

#: the density of the generated data of a compressed input, unless told otherwise
DEFAULT_DENSITY = 0.1
SUFFIX = ".mlir"


def is_mlir_path(path: str) -> bool:
    return Path(path).suffix.lower() == SUFFIX


def import_mlir_text(text: str, where: str, dims: Mapping[str, int] | None = None,
                     density: float = DEFAULT_DENSITY) -> str:
    """The program (TOML text) of the model in `text`, read from `where`; ProgramError naming the
    line and op for anything outside the supported subset."""
    from fuseflow.program.mlir.bindings import mlir_ir, parse_module
    from fuseflow.program.mlir.emit import program_name, program_toml
    from fuseflow.program.mlir.translate import Translator

    module = parse_module(text, where)
    imported = Translator(mlir_ir(where), module, text, where, dims or {}, density).run()
    return program_toml(imported, Path(where).name, program_name(Path(where).stem), density)
