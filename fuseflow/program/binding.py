"""Bind a program to sizes: dimension extents and the stored structure of every tensor.

The symbolic cost model needs only extents and per-level counts of stored coordinates, so a
preset binds without generating its graph. A data file (`--data`) is loaded and measured.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from fuseflow.support.errors import DataError
from fuseflow.program.expr import Access, BinOp, Call, Const, Expr, Extent, FUNCTIONS, Neg, accesses
from fuseflow.program.ir import MAX_EXTENT, Program, TensorDecl

if TYPE_CHECKING:  # scipy, which the graph module needs, is loaded only with a graph
    from fuseflow.data.graph import GraphData


def check_extent(name: str, value, where: str, fix: str) -> int:
    """A dimension's extent, refused unless it is an integer in 1..MAX_EXTENT."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise DataError(f"dimension {name} must be a whole number, got {value!r}", where=where, fix=fix)
    if value <= 0:
        raise DataError(f"dimension {name} must be positive, got {value}", where=where, fix=fix)
    if value > MAX_EXTENT:
        raise DataError(f"dimension {name} = {value:,} is larger than the {MAX_EXTENT:,} Navigator allows",
                        where=where, fix=fix)
    return int(value)


@dataclass(frozen=True)
class TensorStats:
    """Stored coordinates at each level (level ℓ's count includes all fibers above it)."""

    level_counts: tuple[int, ...]
    value_density: float                  # fraction of the dense index space that is nonzero

    @property
    def stored(self) -> int:
        return self.level_counts[-1] if self.level_counts else 1


@dataclass
class Binding:
    extents: dict[str, int]
    stats: dict[str, TensorStats]
    data_source: str
    graph: GraphData | None = field(default=None, repr=False)

    def extent(self, dim: str) -> int:
        return self.extents[dim]


def level_counts(decl: TensorDecl, extents: dict[str, int], density: float) -> tuple[int, ...]:
    """Expected stored coordinates per level for a uniformly random pattern of `density`."""
    sizes = [extents[d] for d in decl.dims]
    counts: list[int] = []
    for level, fmt in enumerate(decl.formats):
        parent = counts[-1] if counts else 1
        if fmt == "dense":
            counts.append(parent * sizes[level])
            continue
        points = float(np.prod(sizes[: level + 1], dtype=np.float64))
        below = float(np.prod(sizes[level + 1:], dtype=np.float64))
        occupied = -np.expm1(below * np.log1p(-density)) if density < 1 else 1.0
        counts.append(int(min(parent * sizes[level], round(points * occupied))))
    return tuple(counts)


def measured_level_counts(decl: TensorDecl, matrix) -> tuple[int, ...]:
    """Exact per-level counts of a two-level tensor stored from a scipy CSR matrix."""
    rows = matrix.shape[0]
    nonempty = int(np.count_nonzero(np.diff(matrix.indptr)))
    first = rows if decl.formats[0] == "dense" else nonempty
    second = matrix.nnz if decl.formats[1] == "compressed" else first * matrix.shape[1]
    return (first, second)


def expression_density(expr: Expr, density: dict[str, float]) -> float:
    """Expected nonzero fraction of an expression, assuming independent patterns."""
    if isinstance(expr, Access):
        return density[expr.tensor]
    if isinstance(expr, Const):
        return 0.0 if expr.value == 0 else 1.0
    if isinstance(expr, Extent):
        return 1.0
    if isinstance(expr, Call):
        return expression_density(expr.arg, density) if FUNCTIONS[expr.func] else 1.0
    if isinstance(expr, Neg):
        return expression_density(expr.arg, density)
    lhs, rhs = expression_density(expr.lhs, density), expression_density(expr.rhs, density)
    if expr.op == "*":
        return lhs * rhs
    if expr.op == "/":
        return lhs
    return 1.0 - (1.0 - lhs) * (1.0 - rhs)


def reduced_density(expr: Expr, density: dict[str, float], reduced_vars: set[str], reduced: int) -> float:
    """Expected nonzero fraction of a reduction's result: a point of the result is nonzero when
    some reduced coordinate makes the expression nonzero. Factors of a product that do not
    depend on the reduced variables (the mask in `M(i,j) * Q(i,d) * K(j,d)`) are the same for
    every reduced coordinate, so only the others are tried `reduced` times."""
    factors = product_factors(expr)
    fixed, varying = 1.0, 1.0
    for factor in factors:
        part = expression_density(factor, density)
        if any(v in reduced_vars for a in accesses(factor) for v in a.indices):
            varying *= part
        else:
            fixed *= part
    return fixed * (1.0 - (1.0 - varying) ** reduced)


def product_factors(expr: Expr, divisions: bool = False) -> list[Expr]:
    """The factors of a product (`divisions`: a quotient's dividend counts as one, since only
    it can make the quotient zero)."""
    if isinstance(expr, BinOp) and expr.op == "*":
        return product_factors(expr.lhs, divisions) + product_factors(expr.rhs, divisions)
    if divisions and isinstance(expr, BinOp) and expr.op == "/":
        return product_factors(expr.lhs, divisions)
    return [expr]


def _preset_source(program: Program, preset, extents: dict[str, int]) -> str:
    """The preset as bound: its own size, or the size a --dim override of the vertex dimension gave it."""
    loops = ", plus self loops" if program.data.self_loops else ""
    vertex_dims = [name for name, value in program.dims.items() if value == "graph.vertices"]
    adjacency_dims = [d.dims[0] for d in program.tensors.values() if d.source == "graph.adjacency"]
    dim = (adjacency_dims or vertex_dims or [None])[0]
    if dim is None or extents[dim] == preset.n_vertices:
        return f"preset {preset.name} (synthetic, {preset.n_vertices} vertices, {preset.n_edges} edges{loops})"
    return (f"preset {preset.name} scaled to {dim}={extents[dim]} vertices (synthetic, keeping the mean degree of "
            f"its {preset.n_vertices} vertices and {preset.n_edges} edges{loops})")


def bind(program: Program, data: str | Path | None = None, dims: dict[str, int] | None = None) -> Binding:
    """Extents and stored structure for `program`, from its preset or from a data file."""
    from fuseflow.data.presets import get_preset  # the graph generator (scipy) is not needed to bind

    graph: GraphData | None = None
    preset = get_preset(program.data.preset) if program.data.preset else None
    if data is not None:
        from fuseflow.data.loaders import load_graph
        from fuseflow.data.preprocessing import preprocess_graph

        graph = preprocess_graph(load_graph(data), symmetrize=program.data.symmetrize,
                                 self_loops=program.data.self_loops, normalize=program.data.normalize)
        source = f"file {data}"
    else:
        source = "generated (no graph)"

    bound_values = {}
    if preset is not None:
        bound_values = {"graph.vertices": preset.n_vertices, "graph.features": preset.n_features,
                        "graph.hidden": preset.n_hidden, "graph.classes": preset.n_classes}
    if graph is not None:
        bound_values["graph.vertices"] = graph.n_vertices
        if graph.features is not None:
            bound_values["graph.features"] = graph.n_features
        if graph.labels is not None and len(graph.labels):
            bound_values["graph.classes"] = int(np.max(graph.labels)) + 1
    overrides = dims or {}
    for name in overrides:
        if name not in program.dims:
            raise DataError(f"unknown dimension {name!r}", where="--dim",
                            fix=f"the program's dimensions are: {', '.join(program.dims)}")
        if name in program.repeat_dims and overrides[name] != program.dims[name]:
            # the blocks were expanded when the program was read: another count is another program
            raise DataError(f"dimension {name} counts the program's repeated blocks, and the program was read "
                            f"with {name}={program.dims[name]}, not {overrides[name]}", where="--dim",
                            fix=f"read the program with the same dimensions (parse_program(..., dims={{{name!r}: "
                                f"{overrides[name]}}}))")
    extents: dict[str, int] = {}
    program_where = program.path or program.name
    for name, value in program.dims.items():
        if name in overrides:  # replaces the program's value, whatever it was
            extents[name] = check_extent(name, overrides[name], "--dim",
                                         f"write --dim {name}=<extent> with an extent from 1 to {MAX_EXTENT:,}")
        elif isinstance(value, int):
            extents[name] = check_extent(name, value, f"{program_where} [dims] {name}",
                                         f"set {name} to a whole number from 1 to {MAX_EXTENT:,}")
        elif value in bound_values:
            extents[name] = check_extent(f"{name} = {value}", int(bound_values[value]), str(data or program_where),
                                         f"use data with at least one entry along {value}, or override it with "
                                         f"--dim {name}=<extent>")
        else:
            raise DataError(f"dimension {name} = {value!r} needs graph data", where=program_where,
                            fix="set [data] preset or pass --data FILE")

    if data is None and preset is not None:
        source = _preset_source(program, preset, extents)

    stats: dict[str, TensorStats] = {}
    densities: dict[str, float] = {}
    for name, decl in program.tensors.items():
        if decl.source is None:
            continue
        if decl.source == "graph.adjacency":
            n = extents[decl.dims[0]]
            if graph is not None and graph.n_vertices == n:
                nnz = graph.adjacency.nnz
                stats[name] = TensorStats(measured_level_counts(decl, graph.adjacency), nnz / (n * n))
                densities[name] = nnz / (n * n)
                continue
            edges = preset.n_edges if preset else 0
            vertices = preset.n_vertices if preset else n
            if graph is not None:
                edges, vertices = graph.adjacency.nnz, graph.n_vertices
            elif program.data.self_loops:
                edges += vertices
            # Keep the average degree when a dimension override shrinks the graph.
            nnz = min(n * n, max(1, round(edges / vertices * n)))
            density = nnz / (n * n)
        elif decl.source in ("random", "ones") and decl.density is not None:
            density = decl.density
        elif decl.source == "bigbird":
            from fuseflow.program.block_masks import stored_fraction

            density = stored_fraction(decl.pattern, extents[decl.dims[0]], extents[decl.dims[1]], decl.block)
        else:
            density = 1.0
        densities[name] = density
        stats[name] = TensorStats(level_counts(decl, extents, density), density)
    for op in program.ops:
        decl = program.tensors[op.output.tensor]
        point = expression_density(op.expr, densities)
        reduced = 1
        for var in op.reduction_vars:
            reduced *= extents[program.var_dim(op, var)]
        density = reduced_density(op.expr, densities, set(op.reduction_vars), reduced) if op.reduction_vars \
            else point
        densities[decl.name] = density
        stats[decl.name] = TensorStats(level_counts(decl, extents, density), density)
    return Binding(extents, stats, source, graph)


def load_bound_program(program: str, data: str | Path | None = None, dims: dict[str, int] | None = None, *,
                       preset: str | None = None) -> tuple[Program, Binding]:
    """A program named as users name it (a bundled name or a .toml path), read with its `--dim`
    overrides and bound to `data` (else to its preset's graph, or to `preset`'s instead)."""
    import dataclasses

    from fuseflow.program.bundled import resolve_program

    parsed = resolve_program(program, dims)
    if preset is not None:
        from fuseflow.data.presets import get_preset

        get_preset(preset)  # an unknown name is refused before anything is generated
        parsed = dataclasses.replace(parsed, data=dataclasses.replace(parsed.data, preset=preset))
    return parsed, bind(parsed, data, dims)
