"""Regions run one after another, producers first."""

from __future__ import annotations

import networkx as nx

from fuseflow.program.ir import Program
from fuseflow.schedule import RegionSchedule, Schedule


def execution_order(program: Program, schedule: Schedule) -> list[RegionSchedule]:
    """The schedule's regions in a dependency order (stable: the listed order breaks ties)."""
    where = {op: i for i, rs in enumerate(schedule.regions) for op in rs.ops}
    graph = nx.DiGraph()
    graph.add_nodes_from(range(len(schedule.regions)))
    graph.add_edges_from((where[a], where[b]) for a, b in program.graph.edges if where[a] != where[b])
    return [schedule.regions[i] for i in nx.lexicographical_topological_sort(graph)]
