"""Materialize a program's input tensors: graphs, features, seeded random tensors, ones.

* `graph.adjacency`: the `--data` graph (already preprocessed by `bind`), or the program's
  preset generated at the bound vertex count (a `--dim` override rescales the preset, keeping
  its mean degree), then the program's [data] preprocessing (symmetrize, self loops, normalize).
* `graph.features`: the file's features, or synthetic ones with the preset's density.
* `random`: uniform values in [-1, 1) (so relu and max have something to do); with `density`
  a Bernoulli pattern, with `block` a pattern of whole `block x block` blocks.
* `ones`: all ones.

Each tensor draws from its own generator, seeded by (seed, crc32(name)), so adding a tensor
to a program does not change the others.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from fuseflow.binding import Binding
from fuseflow.data.graph import GraphData
from fuseflow.data.preprocess import preprocess_graph
from fuseflow.data.synthetic import get_preset, make_preset_graph, power_law_graph, synthetic_features
from fuseflow.errors import DataError
from fuseflow.ir import Program

Array = np.ndarray | sp.csr_matrix


@dataclass
class ProgramData:
    arrays: dict[str, Array]      # input tensors: dense arrays, or CSR for two-level sparse ones
    seed: int
    graph: GraphData | None


def tensor_rng(seed: int, name: str) -> np.random.Generator:
    return np.random.default_rng([seed, zlib.crc32(name.encode())])


def _preset_graph(program: Program, n: int, seed: int, with_features: bool) -> GraphData:
    preset = get_preset(program.data.preset)
    if n == preset.n_vertices:
        graph = make_preset_graph(preset.name, seed=seed, with_features=with_features)
    else:
        # Keep the preset's mean degree at the overridden size.
        m = int(round(preset.n_edges * n / preset.n_vertices))
        m = max(0, min(m - m % 2, n * (n - 1)))
        adjacency = power_law_graph(n, m, seed=seed, symmetric=True, name=f"{preset.name}@{n}")
        graph = GraphData(name=f"{preset.name}@{n}", adjacency=adjacency)
    return preprocess_graph(graph, symmetrize=program.data.symmetrize, self_loops=program.data.self_loops,
                            normalize=program.data.normalize)


def materialize(program: Program, binding: Binding, seed: int | None = None) -> ProgramData:
    seed = program.data.seed if seed is None else seed
    extents = binding.extents
    arrays: dict[str, Array] = {}
    graph = binding.graph
    from_file = graph is not None
    uses_graph = any((d.source or "").startswith("graph.") for d in program.tensors.values())
    if uses_graph and graph is None:
        if not program.data.preset:
            raise DataError("the program reads graph data but names no preset", where=program.path or program.name,
                            fix="set [data] preset or pass --data FILE")
        adjacency_dims = [d.dims[0] for d in program.tensors.values() if d.source == "graph.adjacency"]
        feature_dims = [d.dims for d in program.tensors.values() if d.source == "graph.features"]
        n = extents[adjacency_dims[0]] if adjacency_dims else extents[feature_dims[0][0]]
        preset = get_preset(program.data.preset)
        want_features = any(extents[d[1]] == preset.n_features for d in feature_dims) and \
            n == preset.n_vertices
        graph = _preset_graph(program, n, seed, want_features)
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
            arrays[name] = np.ones(shape)
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
