"""Materialize a program's input tensors: graphs, features, seeded random tensors, ones.

* `graph.adjacency`: the `--data` graph (already preprocessed by `bind`), or the program's
  preset generated at the bound vertex count (a `--dim` override rescales the preset, keeping
  its mean degree), then the program's [data] preprocessing (symmetrize, self loops, normalize).
* `graph.features`: the file's features, or synthetic ones with the preset's density.
* `random`: uniform values in [-1, 1) (so relu and max have something to do); with `density`
  a Bernoulli pattern, with `block` a pattern of whole `block x block` blocks.
* `ones`: all ones.
* `bigbird`: a BigBird block mask of ones (fuseflow.program.block_masks), its random blocks drawn from
  the tensor's generator.

Each tensor draws from its own generator, seeded by (seed, crc32(name)), so adding a tensor
to a program does not change the others.

Before anything is generated, `input_allocations` estimates the bytes each input needs (the
graph generation, the tensor itself and the simulator's stored copy of it) and
`check_inputs_fit` refuses the whole plan against the memory budget: `--dim J=10^12` asks for
petabytes, and the refusal names the largest tensor and the dimensions to shrink.
"""

from __future__ import annotations

import math
import zlib
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from fuseflow.program.binding import Binding
from fuseflow.data.graph import GraphData
from fuseflow.data.graph_limits import clamp_bytes
from fuseflow.data.preprocessing import preprocess_bytes, preprocess_graph
from fuseflow.data.synthetic import (feature_bytes, generation_bytes, get_preset, make_preset_graph, power_law_graph,
                                     synthetic_features)
from fuseflow.support.errors import DataError
from fuseflow.program.ir import Program, TensorDecl
from fuseflow.support.memory import check_memory

Array = np.ndarray | sp.csr_matrix


@dataclass
class ProgramData:
    arrays: dict[str, Array]      # input tensors: dense arrays, or CSR for two-level sparse ones
    seed: int
    graph: GraphData | None


def tensor_rng(seed: int, name: str) -> np.random.Generator:
    return np.random.default_rng([seed, zlib.crc32(name.encode())])


@dataclass(frozen=True)
class PresetPlan:
    """The synthetic graph materialize generates when the program reads graph data but no
    file was given: its vertex and (directed, even) edge counts, and whether it has features."""

    n_vertices: int
    n_edges: int
    with_features: bool


def preset_plan(program: Program, binding: Binding) -> PresetPlan | None:
    """What `materialize` will generate for the program's preset (None: no graph to generate)."""
    uses_graph = any((d.source or "").startswith("graph.") for d in program.tensors.values())
    if not uses_graph or binding.graph is not None:
        return None
    if not program.data.preset:
        raise DataError("the program reads graph data but names no preset", where=program.path or program.name,
                        fix="set [data] preset or pass --data FILE")
    extents = binding.extents
    adjacency_dims = [d.dims[0] for d in program.tensors.values() if d.source == "graph.adjacency"]
    feature_dims = [d.dims for d in program.tensors.values() if d.source == "graph.features"]
    n = extents[adjacency_dims[0]] if adjacency_dims else extents[feature_dims[0][0]]
    preset = get_preset(program.data.preset)
    if n == preset.n_vertices:
        return PresetPlan(n, preset.n_edges, any(extents[d[1]] == preset.n_features for d in feature_dims))
    # Keep the preset's mean degree at the overridden size.
    m = int(round(preset.n_edges * n / preset.n_vertices))
    return PresetPlan(n, max(0, min(m - m % 2, n * (n - 1))), False)


def _preset_graph(program: Program, plan: PresetPlan, seed: int) -> GraphData:
    preset = get_preset(program.data.preset)
    if plan.n_vertices == preset.n_vertices:
        graph = make_preset_graph(preset.name, seed=seed, with_features=plan.with_features)
    else:
        label = f"{preset.name}@{plan.n_vertices}"
        adjacency = power_law_graph(plan.n_vertices, plan.n_edges, seed=seed, symmetric=True, name=label)
        graph = GraphData(name=label, adjacency=adjacency)
    return preprocess_graph(graph, symmetrize=program.data.symmetrize, self_loops=program.data.self_loops,
                            normalize=program.data.normalize)


# ------------------------------------------------------------------------ the memory estimate

@dataclass(frozen=True)
class Allocation:
    what: str
    bytes: int
    dims: tuple[str, ...] = ()       # the dimensions that size it, for the advice


def _stored(cells: int, density: float) -> int:
    return round(cells * min(max(density, 0.0), 1.0))


def _tensor_allocation(program: Program, binding: Binding, plan: PresetPlan | None, name: str,
                       decl: TensorDecl) -> Allocation:
    """Bytes to build one input and the simulator's stored copy of it (FiberTree: values,
    plus 16 bytes of coordinates per stored entry of a compressed level)."""
    shape = tuple(binding.extents[d] for d in decl.dims)
    cells = math.prod(shape)
    compressed = "compressed" in decl.formats
    size = " x ".join(f"{s:,}" for s in shape) or "scalar"
    if decl.source == "graph.adjacency":
        graph = binding.graph
        nnz = graph.adjacency.nnz if graph is not None else plan.n_edges + (shape[0] if program.data.self_loops else 0)
        return Allocation(f"{name}, a {size} adjacency with {nnz:,} entries", nnz * 48 + (shape[0] + 1) * 16, decl.dims)
    if decl.source == "graph.features":
        rows, width = shape
        features = binding.graph.features if binding.graph is not None else None
        density = get_preset(program.data.preset).feature_density if program.data.preset else None
        made = 0 if features is not None and features.shape == shape else feature_bytes(rows, width, density)
        stored = features.nnz if sp.issparse(features) else _stored(cells, 1.0 if density is None else density)
        kept = stored * 40 if compressed else cells * 16
        return Allocation(f"{name}, {size} features", made + kept, decl.dims)
    if decl.source == "ones":
        return Allocation(f"{name}, {size} ones", cells * 16, decl.dims)
    if decl.source == "bigbird":
        from fuseflow.program.block_masks import stored_fraction

        # the block and token coordinates of every stored entry, the CSR and the stored copy
        stored = _stored(cells, stored_fraction(decl.pattern, shape[0], shape[1], decl.block))
        # a dense mask is also expanded to every cell
        dense = 0 if compressed else cells * 16
        return Allocation(f"{name}, a {size} bigbird mask", stored * 80 + (shape[0] + 1) * 16 + dense, decl.dims)
    # random: uniform values, then (with a density) a mask, the masked copy and its CSR
    if decl.density is None:
        return Allocation(f"{name}, {size} random values", cells * 16, decl.dims)
    stored = _stored(cells, decl.density)
    return Allocation(f"{name}, {size} random values of density {decl.density:g}",
                      cells * 33 + stored * (40 if compressed else 0), decl.dims)


def input_allocations(program: Program, binding: Binding) -> list[Allocation]:
    """Estimated peak bytes of materializing every input: a generated graph, each tensor, and
    the simulator's stored copy of each. Python ints throughout, so no size can overflow."""
    plan = preset_plan(program, binding)
    allocations = []
    if plan is not None:
        n, m = plan.n_vertices, plan.n_edges
        graph_dims = tuple(d.dims[0] for d in program.tensors.values() if (d.source or "").startswith("graph."))[:1]
        # its features, when generated, are counted with the tensor that reads them
        allocations.append(Allocation(f"the {program.data.preset} graph at {n:,} vertices and {m:,} edges",
                                      generation_bytes(n, m) + preprocess_bytes(n, m + n), graph_dims))
    for name, decl in program.tensors.items():
        if decl.source is not None:
            allocations.append(_tensor_allocation(program, binding, plan, name, decl))
    return allocations


def check_inputs_fit(program: Program, binding: Binding) -> None:
    """Refuse, before generating anything, inputs whose estimate exceeds the memory budget."""
    allocations = input_allocations(program, binding)
    if not allocations:
        return
    largest = max(allocations, key=lambda a: a.bytes)
    extents = binding.extents
    widest = max((extents[d] for d in largest.dims), default=0)
    shrink = " ".join(f"--dim {d}=<less than {extents[d]:,}>" for d in dict.fromkeys(largest.dims)
                      if extents[d] == widest)
    check_memory(clamp_bytes(sum(a.bytes for a in allocations)), f"the inputs (the largest: {largest.what})",
                 program.path or program.name,
                 fix=f"use smaller sizes ({shrink + ' ' if shrink else ''}or a smaller graph)")


def materialize(program: Program, binding: Binding, seed: int | None = None) -> ProgramData:
    seed = program.data.seed if seed is None else seed
    check_inputs_fit(program, binding)
    extents = binding.extents
    arrays: dict[str, Array] = {}
    graph = binding.graph
    from_file = graph is not None
    plan = preset_plan(program, binding)
    if plan is not None:
        graph = _preset_graph(program, plan, seed)
    for name, decl in program.tensors.items():
        if decl.source is None:
            continue
        shape = tuple(extents[d] for d in decl.dims)
        where = f"{program.path or program.name} [tensors.{name}]"
        if decl.source == "graph.adjacency":
            if graph.n_vertices != shape[0]:
                raise DataError(f"the graph has {graph.n_vertices} vertices but {name} is {shape[0]} x {shape[1]} "
                                f"(dimension {decl.dims[0]} = {shape[0]})", where=where,
                                fix=f"drop the --dim override of {decl.dims[0]}, or pass a graph of that size")
            arrays[name] = sp.csr_matrix(graph.adjacency, dtype=np.float64)
        elif decl.source == "graph.features":
            arrays[name] = _features(program, graph, from_file, name, decl, shape, seed, where)
        elif decl.source == "ones":
            arrays[name] = np.ones(shape) if decl.density is None else _ones(name, decl, shape, seed)
        elif decl.source == "bigbird":
            from fuseflow.program.block_masks import bigbird_mask

            mask = bigbird_mask(decl.pattern, shape[0], shape[1], decl.block, tensor_rng(seed, name))
            arrays[name] = mask if "compressed" in decl.formats else mask.toarray()
        else:
            arrays[name] = _random(name, decl, shape, seed)
    return ProgramData(arrays, seed, graph)


def _features(program, graph: GraphData, from_file: bool, name, decl, shape, seed, where) -> Array:
    rows, width = shape
    if graph.features is not None and graph.features.shape[0] == rows and graph.n_features == width:
        features = graph.features
    elif graph.features is not None and from_file:
        raise DataError(f"the data file's features are {graph.features.shape[0]} x {graph.n_features} but {name} is "
                        f"{rows} x {width} (dimension {decl.dims[1]} = {width})", where=where,
                        fix=f"drop the --dim override of {decl.dims[1]}, or use features of that width")
    else:
        density = get_preset(program.data.preset).feature_density if program.data.preset else None
        features = synthetic_features(rows, width, density=density, seed=seed + 1)
    if "compressed" in decl.formats and len(shape) == 2:
        return sp.csr_matrix(features, dtype=np.float64)
    return features.toarray() if sp.issparse(features) else np.asarray(features, dtype=np.float64)


def _random(name, decl, shape, seed) -> Array:
    rng = tensor_rng(seed, name)
    values = rng.uniform(-1.0, 1.0, size=shape)
    values[values == 0.0] = 0.5       # a stored entry is never an explicit zero
    if decl.density is None:
        return values
    if decl.block and len(shape) >= 2:
        b = decl.block
        blocks = tuple(-(-s // b) for s in shape[-2:])
        keep = rng.random(shape[:-2] + blocks) < decl.density
        mask = np.repeat(np.repeat(keep, b, axis=-2), b, axis=-1)[..., :shape[-2], :shape[-1]]
    else:
        mask = rng.random(shape) < decl.density
    values = np.where(mask, values, 0.0)
    if len(shape) == 2 and "compressed" in decl.formats:
        return sp.csr_matrix(values)
    return values


def _ones(name, decl, shape, seed) -> Array:
    """Ones on a uniformly random pattern of the declared density (a mask)."""
    pattern = _random(name, decl, shape, seed)
    if sp.issparse(pattern):
        pattern.data[:] = 1.0
        return pattern
    return np.where(pattern != 0.0, 1.0, 0.0)


def describe_inputs(program: Program, binding: Binding, data: ProgramData) -> str:
    """Which data a simulation ran on, in one line: the graph (a file, or the synthetic preset
    with its size as generated) and the seed of everything generated."""
    sources = {decl.source for decl in program.tensors.values() if decl.source}
    generated = sources - {"graph.adjacency", "graph.features", "ones"}
    parts = []
    graph = data.graph
    if graph is not None and binding.graph is not None:
        parts.append(f"{binding.data_source}: {graph.n_vertices:,} vertices, {graph.adjacency.nnz:,} stored "
                     "adjacency entries after preprocessing")
    elif graph is not None:
        preset = get_preset(program.data.preset)
        scaled = "" if graph.n_vertices == preset.n_vertices else \
            f" scaled from {preset.n_vertices:,} vertices, keeping its mean degree"
        parts.append(f"synthetic preset {preset.name}{scaled}: {graph.n_vertices:,} vertices, "
                     f"{graph.adjacency.nnz:,} stored adjacency entries after preprocessing")
        generated.add("graph")
    if "graph.features" in sources and not (binding.graph is not None and binding.graph.features is not None):
        generated.add("features")
    if generated:
        parts.append(f"generated values with seed {data.seed}" if parts else f"generated inputs, seed {data.seed}")
    return "; ".join(parts) if parts else "constant inputs only"
