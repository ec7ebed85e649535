"""Lowering: a scheduled region becomes a SAM-style dataflow graph (see docs/simulator.md)."""

from fuseflow.analysis.contexts import POLICIES, Contexts, region_contexts
from fuseflow.lower.inputs import Input
from fuseflow.lower.plan import WRITE, Edge, Level, Node, OpPlan, Primitive, RegionPlan, lower_region
from fuseflow.lower.graph_text import format_graph, to_dot

__all__ = ["POLICIES", "WRITE", "Contexts", "Edge", "Input", "Level", "Node", "OpPlan", "Primitive", "RegionPlan",
           "format_graph", "lower_region", "region_contexts", "to_dot", "lower_schedule"]


def lower_schedule(program, binding, schedule, policy: str = "accumulate", block_size: int = 4) -> list[RegionPlan]:
    return [lower_region(program, binding, rs, policy, block_size) for rs in schedule.regions]
