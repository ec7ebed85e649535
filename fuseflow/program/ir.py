"""The program IR: dimensions, tensors with per-level formats, ops, and the op graph.

An op is one statement with its own local index names. A Region is a group of fused ops
with one set of loop variables; fuseflow.analysis.unification makes it, by merging the
index variables along every producer/consumer edge inside the group.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # imported where used: a program parses without loading networkx
    import networkx as nx

from fuseflow.program.expr import Access, Expr, Statement, accesses, flops_per_point

DENSE = "dense"
COMPRESSED = "compressed"
FORMATS = (DENSE, COMPRESSED)
REDUCTIONS = ("sum", "max")

#: Loop variables of one region, and so index variables of one op: legal orders are counted
#: by dynamic programming over subsets of them (fuseflow.analysis.orders), 2**MAX_VARS states at most.
MAX_VARS = 16
#: Ops in one program, counted after [[repeat]] blocks are expanded (fuseflow.program.frontend).
MAX_OPS = 1000
#: A dimension's extent. Products of MAX_VARS extents (dense sizes, loop points, FLOPs) stay
#: finite floats: 2**(40 * 16) is far below the float maximum of about 2**1024.
MAX_EXTENT = 2**40


@dataclass(frozen=True)
class TensorDecl:
    name: str
    dims: tuple[str, ...]            # dimension names, in storage order
    formats: tuple[str, ...]         # one of FORMATS per level, in storage order
    source: str | None               # where an input's data comes from; None for computed tensors
    density: float | None = None     # expected fraction of stored nonzeros (sparse random sources)
    block: int | None = None         # block edge of a block-sparse source
    line: int | None = None
    pattern: object | None = None    # a fuseflow.program.block_masks.BigBirdPattern, for source = "bigbird"

    @property
    def is_sparse(self) -> bool:
        return COMPRESSED in self.formats

    @property
    def order(self) -> int:
        return len(self.dims)


@dataclass(frozen=True)
class Op:
    name: str
    statement: Statement
    reduce: str = "sum"
    line: int | None = None
    #: where the op comes from, for a program imported from a model ("gcn.mlir:14 linalg.matmul")
    origin: str | None = None

    @property
    def output(self) -> Access:
        return self.statement.output

    @property
    def expr(self) -> Expr:
        return self.statement.expr

    @cached_property
    def inputs(self) -> tuple[Access, ...]:
        return tuple(accesses(self.statement.expr))

    @property
    def output_vars(self) -> tuple[str, ...]:
        return self.output.indices

    @cached_property
    def reduction_vars(self) -> tuple[str, ...]:
        seen: list[str] = []
        for access in self.inputs:
            for var in access.indices:
                if var not in self.output.indices and var not in seen:
                    seen.append(var)
        return tuple(seen)

    @cached_property
    def vars(self) -> tuple[str, ...]:
        return self.output_vars + self.reduction_vars

    @property
    def flops_per_point(self) -> int:
        # one accumulate per point when the op reduces
        return flops_per_point(self.expr) + (1 if self.reduction_vars else 0)


@dataclass
class DataSpec:
    """A program's default data: a graph preset plus preprocessing."""

    preset: str | None = None
    symmetrize: bool = False
    self_loops: bool = False
    normalize: str = "none"
    seed: int = 0


@dataclass
class Program:
    name: str
    description: str
    dims: dict[str, int | str]       # extent, or a data binding such as "graph.vertices"
    tensors: dict[str, TensorDecl]
    ops: list[Op]
    data: DataSpec = field(default_factory=DataSpec)
    path: str | None = None
    #: the dimensions that count a [[repeat]]'s blocks (fuseflow.program.repeats): the program was expanded with
    #: their extents in `dims`, so binding may not give them others
    repeat_dims: tuple[str, ...] = ()
    # Derived facts about op groups, memoized: a program does not change once loaded.
    memo: dict = field(default_factory=dict, repr=False, compare=False)

    @cached_property
    def op_by_name(self) -> dict[str, Op]:
        return {op.name: op for op in self.ops}

    @cached_property
    def producer(self) -> dict[str, str]:
        """Tensor name -> the op that computes it."""
        return {op.output.tensor: op.name for op in self.ops}

    @property
    def output_tensors(self) -> list[str]:
        """Computed tensors that no op consumes: the program's results."""
        consumed = {a.tensor for op in self.ops for a in op.inputs}
        return [op.output.tensor for op in self.ops if op.output.tensor not in consumed]

    @cached_property
    def graph(self) -> nx.DiGraph:
        """Op graph: an edge producer -> consumer, labelled with the tensor passed."""
        import networkx as nx

        graph = nx.DiGraph()
        for op in self.ops:
            graph.add_node(op.name)
        for op in self.ops:
            for access in op.inputs:
                source = self.producer.get(access.tensor)
                if source is not None:
                    tensors = graph.edges[source, op.name]["tensors"] if graph.has_edge(source, op.name) else []
                    graph.add_edge(source, op.name, tensors=sorted(set(tensors) | {access.tensor}))
        return graph

    @cached_property
    def op_position(self) -> dict[str, int]:
        """Op name -> its index in program order."""
        return {op.name: index for index, op in enumerate(self.ops)}

    def var_dim(self, op: Op, var: str) -> str:
        """The dimension an op's local index variable ranges over."""
        for access in [op.output, *op.inputs]:
            if var in access.indices:
                return self.tensors[access.tensor].dims[access.indices.index(var)]
        raise KeyError(var)


@dataclass(frozen=True)
class Operand:
    """A tensor a region reads from memory, with its levels named by region variables."""

    tensor: str
    vars: tuple[str, ...]            # region variable of each storage level
    formats: tuple[str, ...]


@dataclass(frozen=True)
class Region:
    """A fused group of ops with unified loop variables."""

    ops: tuple[str, ...]                         # in program order
    vars: tuple[str, ...]                        # canonical order: first appearance
    var_dims: dict[str, str]                     # region variable -> dimension name
    op_vars: dict[str, dict[str, str]]           # op -> (local variable -> region variable)
    operands: tuple[Operand, ...]                # tensors read from memory
    results: tuple[Operand, ...]                 # tensors written to memory

    def alias(self, var: str) -> str:
        """FuseFlow-style positional name `i<N>` of a region variable."""
        return f"i{self.vars.index(var)}"

    def resolve(self, name: str) -> str | None:
        """Accept a region variable by name or by its `i<N>` alias."""
        if name in self.vars:
            return name
        if name.startswith("i") and name[1:].isdigit() and int(name[1:]) < len(self.vars):
            return self.vars[int(name[1:])]
        return None

    def op_region_vars(self, op: str) -> set[str]:
        return set(self.op_vars[op].values())

    def compressed_vars(self) -> set[str]:
        """Variables some operand stores at a compressed level: their levels iterate fibers."""
        return {v for o in self.operands for v, f in zip(o.vars, o.formats) if f == "compressed"}
