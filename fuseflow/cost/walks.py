"""How a region's reads walk DRAM, and which of its state stays on chip: read off the plan.

Nothing here looks at data. For every op, this names the *projections* the memory model needs
(`Projection`): points of one of the op's streams, projected on some of its loop depths and
counted per group, which both executors measure alike (`RegionRun.groups`: a histogram
{group size: number of groups}). `simulator.traffic` turns them into lines, gathers and the
on-chip state (docs/simulator.md, "Bytes and counters").

* **Reads** (`Reader`, `Stream`): each memory operand an op reads is read as streams: its
  values at its deepest level, and per compressed level scanned its coordinates and its
  positions (two per fiber). Each stream is projected on the loops that re-read it: with a
  fiber buffer, the loops above the operand's first level and its own (as `Visits` counts);
  without, every loop above the read.
* **Runs** (`Split`): the innermost loops of a stream that walk the operand's storage in
  order (a dense level under a dense loop, a compressed level whose every child is visited)
  walk consecutive addresses; the loops above them start a new run. A run is a *gather* when
  its start depends on a coordinate just read: some level above it is reached through another
  operand's coordinates (a locate or an intersection). When not even the innermost loop walks
  in order, each access is its own: *strided* (a dense loop over a level that is not the
  innermost one: a column of a row-major matrix) or *scattered* (a coordinate from another
  operand; a gather each).
* **State** (`Span`): a sparse accumulator holds the kept part of its result below the
  outermost reduced loop; a buffer between fused ops holds, when its consumer re-reads it (a
  loop of the consumer's own above one of the buffer's), the part below that loop; a fiber
  buffer holds an operand's fiber below a loop of another op between the operand's levels.
  Each is measured at its peak: the largest group of its entries under the loops above it.
"""

from __future__ import annotations

from dataclasses import dataclass

from fuseflow.analysis.level_support import ALL, leaves
from fuseflow.lower.inputs import Input
from fuseflow.lower.plan import OpPlan, RegionPlan
from fuseflow.lower.plan import block_edges


@dataclass(frozen=True)
class Projection:
    """Distinct points of one stream projected on chain depths `keep` (ascending, coordinates
    divided by `coarsen`), counted per group of their first `group` depths."""

    source: tuple                 # ("values", key) | ("coords", key, level) | ("fibers", key, level) | ("leaf",)
    keep: tuple[int, ...]
    group: int
    coarsen: tuple[int, ...]


@dataclass(frozen=True)
class Split:
    """How a walk breaks into DRAM accesses (see the module docstring)."""

    kind: str                     # "runs" | "strided" | "scattered"
    dependent: bool               # each run (or access) is a gather
    stride: int = 1               # strided: elements between two accesses


@dataclass(frozen=True)
class Stream:
    """One array of an operand as one op walks it."""

    what: str                     # "values" | "coords" | "fibers"
    level: int                    # storage level (values: the last)
    volume: int                   # entries per access: the elements of a block for values, 1 otherwise
    buffered: str                 # projection: the walk with a fiber buffer
    split: Split
    unbuffered: str | None = None  # projection: the walk without it (None: the same)
    split_unbuffered: Split | None = None


@dataclass(frozen=True)
class Span:
    """State a region holds on chip: its peak is the largest group of projection `span`, each
    entry `values` values and `indices` coordinates; `passes` names what a spill moves."""

    kind: str                     # "accumulator" | "intermediate" | "fiber"
    name: str
    op: str
    span: str
    values: int
    indices: int
    passes: str | None = None     # accumulator: its points down to its last kept loop; intermediate: its reads


@dataclass
class Reader:
    """A memory operand (or a demand filter's levels of one) as one op reads it."""

    op: str
    key: str
    inp: Input
    streams: list[Stream]
    edges: tuple[int, ...] | None   # block storage (simulator.blocks)
    fiber: Span | None = None


@dataclass
class RegionWalks:
    readers: list[Reader]
    spans: list[Span]                           # accumulators and intermediates, in plan order
    projections: dict[tuple[str, str], Projection]


def buffered_depths(own: list[int], upto: int) -> tuple[int, ...]:
    """The loop depths, up to `upto`, that re-read an input whose own levels sit at depths `own`
    when a fiber buffer serves the rest: the loops above its first level and its own (a loop of
    another op between them repeats the stream on chip). What `Visits` counts."""
    first = min(own) if own else 0
    return tuple(k for k in range(upto + 1) if k < first or k in own)


def region_walks(plan: RegionPlan) -> RegionWalks:
    walks = RegionWalks([], [], {})
    for op in plan.ops:
        _OpWalks(plan, op, walks).build()
    return walks


def projections(plan: RegionPlan) -> dict[str, dict[str, Projection]]:
    """op -> projection name -> Projection: what each executor measures after running an op."""
    out: dict[str, dict[str, Projection]] = {op.name: {} for op in plan.ops}
    for (op, name), projection in region_walks(plan).projections.items():
        out[op][name] = projection
    return out


def every_child(support, key: str) -> bool:
    """Whether a level with this support visits every child of `key`'s fiber (it is the fiber,
    or a union of it with others)."""
    if support == ("fiber", key):
        return True
    return support[0] == "or" and any(every_child(part, key) for part in support[1:])


class _OpWalks:
    def __init__(self, plan: RegionPlan, op: OpPlan, walks: RegionWalks):
        self.plan, self.op, self.walks = plan, op, walks
        self.position = {v: i for i, v in enumerate(op.chain)}

    def add(self, name: str, source: tuple, keep, group: int, coarsen: dict[str, int] | None = None) -> str:
        keep = tuple(keep)
        divisors = tuple((coarsen or {}).get(self.op.chain[k], 1) for k in keep)
        self.walks.projections[(self.op.name, name)] = Projection(source, keep, group, divisors)
        return name

    def build(self) -> None:
        for key, inp in self.op.inputs.items():
            if inp.kind == "buffer":
                self.intermediate(key, inp)
            else:
                self.reader(key, inp)
        for edge in self.op.edges:
            if edge.reduce_pid is not None and self.plan.primitives[edge.reduce_pid].kind == "spacc":
                self.accumulator(edge)

    # ---- reads of memory operands ----
    def own(self, inp: Input) -> list[int]:
        return [self.position[v] for v in inp.vars]

    def keep(self, inp: Input, upto: int, buffered: bool) -> tuple[int, ...]:
        return buffered_depths(self.own(inp), upto) if buffered else tuple(range(upto + 1))

    def in_order(self, key: str, inp: Input, t: int, whole: bool = False) -> bool:
        """Whether the loop over storage level `t` visits it in order and completely (a dense
        level under a dense loop; a compressed level whose every child is visited, or, for
        its own coordinates, `whole`: a scanner reads the whole fiber)."""
        support = self.op.levels[self.position[inp.vars[t]]].support
        if inp.formats[t] == "dense":
            return support == ALL
        return whole or every_child(support, key)

    def split(self, key: str, inp: Input, keep: tuple[int, ...], level: int, what: str,
              coarsen: dict[str, int] | None) -> tuple[int, Split]:
        """(group length, Split) of a walk of storage level `level` over loop depths `keep`."""
        chain = self.op.chain
        g, t = len(keep), level
        while g > 0 and t >= 0 and chain[keep[g - 1]] == inp.vars[t] and \
                self.in_order(key, inp, t, whole=(what == "coords" and t == level)):
            g, t = g - 1, t - 1
        if g < len(keep) or not keep:
            # Runs; each one is a gather when a level above it is reached through other data.
            return g, Split("runs", any(not self.in_order(key, inp, u) for u in range(t + 1)))
        innermost = chain[keep[-1]]
        if innermost in inp.vars:
            t_w = inp.vars.index(innermost)
            below = range(t_w + 1, level + 1)
            if inp.formats[t_w] == "dense" and self.in_order(key, inp, t_w) and \
                    all(inp.formats[u] == "dense" for u in below):
                stride = 1
                for u in below:
                    stride *= -(-inp.extents[u] // (coarsen or {}).get(inp.vars[u], 1))
                return len(keep) - 1, Split("strided", False, stride)
            return len(keep) - 1, Split("scattered", True)
        # The innermost loop is another op's: the same entry re-read at each of its coordinates.
        return len(keep) - 1, Split("scattered", False)

    def reader(self, key: str, inp: Input) -> None:
        op = self.op
        edges = block_edges(self.plan, inp)
        coarsen = {v: b for v, b in zip(inp.vars, edges)} if edges else None
        reader = Reader(op.name, key, inp, [], edges)
        own = self.own(inp)
        scanned = {s for s, fmt in enumerate(inp.formats)
                   if fmt == "compressed" and self._scanned(key, inp.vars[s])}
        deepest = None      # (source, depth, level) of the deepest stream: the fiber buffer's content
        if inp.kind != "filter" and own:
            depth = max(own)
            volume = 1
            for b in edges or ():
                volume *= b
            reader.streams.append(self.stream(key, inp, "values", len(inp.vars) - 1, depth, ("values", key), volume,
                                              coarsen))
            deepest = (("values", key), depth)
        for s in sorted(scanned):
            depth = self.position[inp.vars[s]]
            reader.streams.append(self.stream(key, inp, "coords", s, depth, ("coords", key, s), 1, coarsen))
            reader.streams.append(self.stream(key, inp, "fibers", s - 1, depth - 1, ("fibers", key, s), 1, coarsen,
                                              name=f"{key} fibers {s}"))
            if deepest is None or (inp.kind == "filter" and depth >= deepest[1]):
                deepest = (("coords", key, s), depth)
        if deepest is not None and own:
            reader.fiber = self.fiber(key, inp, deepest, coarsen)
        self.walks.readers.append(reader)

    def _scanned(self, key: str, var: str) -> bool:
        level = self.op.levels[self.position[var]]
        return key in leaves(level.support) or any(k == key for _, _, k in level.leftjoins)

    def stream(self, key, inp, what, level, depth, source, volume, coarsen, name=None) -> Stream:
        name = name or f"{key} {what}" + (f" {level}" if what == "coords" else "")
        keep1 = self.keep(inp, depth, True)
        g1, split1 = self.split(key, inp, keep1, level, what, coarsen)
        buffered = self.add(name, source, keep1, g1, coarsen)
        keep0 = self.keep(inp, depth, False)
        if keep0 == keep1:
            return Stream(what, level, volume, buffered, split1)
        g0, split0 = self.split(key, inp, keep0, level, what, coarsen)
        unbuffered = self.add(f"{name} unbuffered", source, keep0, g0, coarsen)
        return Stream(what, level, volume, buffered, split1, unbuffered, split0)

    def fiber(self, key: str, inp: Input, deepest, coarsen) -> Span | None:
        """The fiber buffer that serves the repeats of another op's loop between the operand's
        levels: below that loop, under the loops above it."""
        source, depth = deepest
        own = set(self.own(inp))
        first = min(own)
        between = [k for k in range(first, depth) if k not in own]
        if not between:
            return None
        r = between[0]
        keep = self.keep(inp, depth, True)
        name = self.add(f"{key} fiber buffer", source, keep, sum(1 for k in keep if k < r), coarsen)
        volume = 1
        for v in inp.vars:
            volume *= (coarsen or {}).get(v, 1)
        values = volume if source[0] == "values" else 0
        indices = sum(1 for s, fmt in enumerate(inp.formats) if fmt == "compressed" and self.position[inp.vars[s]] > r)
        return Span("fiber", f"fiber buffer of {inp.tensor} in {self.op.name}", self.op.name, name, values, indices)

    # ---- state between and inside ops ----
    def intermediate(self, key: str, inp: Input) -> None:
        own = self.own(inp)
        if not own:
            return
        depth = max(own)
        above = [k for k in range(depth) if k not in own]
        if not above:
            return      # read once, in the order it is written: it streams through
        r = above[0]
        keep = tuple(sorted(own))
        span = self.add(f"{key} buffer", ("values", key), keep, sum(1 for k in keep if k < r))
        passes = self.add(f"{key} buffer reads", ("values", key), range(depth + 1), 0)
        indices = sum(1 for s, fmt in enumerate(inp.formats) if fmt == "compressed" and self.position[inp.vars[s]] > r)
        self.walks.spans.append(Span("intermediate", f"{inp.tensor} buffered for {self.op.name}", self.op.name,
                                     span, 1, indices, passes))

    def accumulator(self, edge) -> None:
        kept = [self.position[v] for v in edge.chain]
        r = min(self.position[v] for v in edge.modes)
        name = f"{edge.tensor}->{edge.target} accumulator"
        span = self.add(name, ("leaf",), kept, sum(1 for k in kept if k < r))
        passes = self.add(f"{name} points", ("leaf",), range(max(kept) + 1), 0)
        fmt = dict(zip(edge.storage, edge.formats))
        indices = sum(1 for v in edge.chain if self.position[v] > r and fmt[v] == "compressed")
        self.walks.spans.append(Span("accumulator", f"accumulator of {edge.tensor} in {self.op.name}", self.op.name,
                                     span, 1, indices, passes))

