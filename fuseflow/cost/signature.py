"""What a region's estimate depends on, as one string: two regions with the same signature get
the same estimate under the same schedule, so the hints cost it once (a transformer's twelve
layers have the same regions, named apart).

A region's estimate (fuseflow.cost.estimate.region_cost) reads its ops' statements, which of
their inputs are produced inside it, its loop variables and their extents, the declarations of
the tensors it touches (dimensions, formats, source, density, block), the binding's assumed
statistics of them, and, for a tensor stored compressed, the data's statistics, which are kept
per tensor name (fuseflow.cost.statistics). So the signature renames the tensors by where they
first appear, but keeps the names of the compressed inputs (and of the inputs whose pattern a
computed tensor keeps); op names do not appear at all. Where the rules break ties by name (the
order of operands, of spills), the signature holds the order the real names sort in.
"""

from __future__ import annotations

import hashlib

from fuseflow.analysis.unification import unify_region
from fuseflow.program.binding import Binding
from fuseflow.program.expr import Access, Statement, rename_tensors
from fuseflow.program.ir import Program
from fuseflow.support.memo import named_memo


def region_signature(program: Program, binding: Binding, ops: tuple[str, ...]) -> str:
    """A SHA-256 of everything the estimate of the region `ops` reads (memoized per program and binding)."""
    memo = named_memo(program.memo, "region_signature")
    key = (ops, id(binding))
    found = memo.get(key)
    if found is None or found[0] is not binding:
        found = memo[key] = (binding, hashlib.sha256(_describe(program, binding, ops).encode()).hexdigest())
    return found[1]


def _describe(program: Program, binding: Binding, ops: tuple[str, ...]) -> str:
    from fuseflow.cost.statistics import pattern_source

    region = unify_region(program, ops)
    names: dict[str, str] = {}

    def name_of(tensor: str) -> str:
        if tensor not in names:
            decl = program.tensors[tensor]
            names[tensor] = f"@{tensor}" if decl.is_sparse and decl.source is not None else f"t{len(names)}"
        return names[tensor]

    lines = [f"vars {[(v, region.var_dims[v], binding.extent(region.var_dims[v])) for v in region.vars]}"]
    for name in region.ops:
        op = program.op_by_name[name]
        output = Access(name_of(op.output.tensor), op.output.indices)
        statement = Statement(output, rename_tensors(op.expr, name_of))
        lines.append(f"op {op.reduce} {statement} {sorted(region.op_vars[name].items())}")
    for kind, operands in (("in", region.operands), ("out", region.results)):
        lines += [f"{kind} {name_of(o.tensor)} {o.vars} {o.formats}" for o in operands]
    for tensor, canonical in names.items():
        decl = program.tensors[tensor]
        stats = binding.stats.get(tensor)
        source = pattern_source(program, tensor)
        lines.append(f"tensor {canonical} {[(d, binding.extent(d)) for d in decl.dims]} {decl.formats} "
                     f"{decl.source} {decl.density} {decl.block} {decl.pattern!r} "
                     f"{stats.level_counts if stats else None} {stats.value_density if stats else None} "
                     f"{None if source is None else '@' + source}")
    lines.append(f"sorted {[names[t] for t in sorted(names)]}")
    return "\n".join(lines)
