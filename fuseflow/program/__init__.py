"""What a user writes: a tensor program and its binding to data.

    ir          Program, TensorDecl, Op, Region: the data model
    expr        index expressions (`T(i,j) = A(i,k) * X(k,j)`)
    frontend    a program .toml becomes a Program (docs/program-format.md)
    repeats     a program's [[repeat]] blocks, expanded
    bundled     the programs that ship with Navigator, by name
    binding     extents and data statistics of a program bound to its data
    block_masks BigBird block patterns

Names are imported on first use: parsing a program loads no numpy; binding it does.
"""

from fuseflow.support.lazy_exports import lazy_exports

__getattr__, __dir__, __all__ = lazy_exports(__name__, {
    "fuseflow.program.ir": ["MAX_VARS", "Op", "Operand", "Program", "Region", "TensorDecl"],
    "fuseflow.program.frontend": ["load_program", "parse_program"],
    "fuseflow.program.bundled": ["bundled_program_names", "resolve_program"],
    "fuseflow.program.binding": ["Binding", "bind"],
})
