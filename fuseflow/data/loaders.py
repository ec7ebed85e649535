"""Read graphs from files: NumPy .npz, Matrix Market, Planetoid pickles and edge lists.

Every loader returns a `GraphData` and turns every problem with the file (missing, not a
regular file, wrong keys, bad format, unparseable line, sizes beyond the limits or the
memory budget) into a `DataError` naming the file (and line, for text) and what to fix.
Adjacency matrices come back as float64 CSR in canonical form; stored zeros are dropped.
Each format has its own module; the size rules they share are in `fuseflow.data.graph_limits`.
"""

from __future__ import annotations

import os
from pathlib import Path

from fuseflow.data.edge_list import load_edge_list
from fuseflow.data.graph import GraphData
from fuseflow.data.mtx import load_mtx
from fuseflow.data.npz import load_npz
from fuseflow.data.planetoid import load_planetoid_graph

PathLike = str | os.PathLike

__all__ = ["load_edge_list", "load_graph", "load_mtx", "load_npz", "load_planetoid_graph"]


def load_graph(path: PathLike) -> GraphData:
    """Load a graph, choosing the reader by suffix.

    `.npz` -> `load_npz`, `.mtx` (also `.mtx.gz`, `.mtx.bz2`) -> `load_mtx`,
    `.graph` -> `load_planetoid_graph`, anything else -> `load_edge_list`.
    """
    name = Path(path).name.lower()
    if name.endswith(".npz"):
        return load_npz(path)
    if name.endswith((".mtx", ".mtx.gz", ".mtx.bz2")):
        return load_mtx(path)
    if name.endswith(".graph"):
        return load_planetoid_graph(path)
    return load_edge_list(path)
