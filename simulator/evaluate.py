"""Simulate a schedule: lower each region, run an executor, time it, and check the numbers.

    report = evaluate(program, binding, schedule, hardware)          # fast executor
    report = evaluate(..., executor="exact")                        # token by token (small inputs)
    report.to_dict()  # flops, bytes, intensity, roofline, cycles, regions, counters, check

Both executors return the same per-primitive counts (`simulator.counts`); `run_schedule`
exposes them for tests.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from fuseflow.program.binding import Binding
from fuseflow.cost.bounds import ScheduleBound, schedule_bound
from fuseflow.cost.hardware import Hardware, load_hardware, operational_intensity
from fuseflow.program.ir import Program
from fuseflow.lower import lower_region
from fuseflow.lower.plan import RegionPlan
from fuseflow.schedule import Schedule, check_schedule
from simulator import exact, fast
from simulator.counts import RegionRun
from simulator.program_data import ProgramData, describe_inputs, materialize
from simulator.fibertree import FiberTree
from simulator.order import execution_order
from simulator.reference import evaluate_program
from simulator.values import region_values
from simulator.timing import Timing, region_timing, steps_fit
from fuseflow.cost.statistics import DataStatistics
from fuseflow.cost.traffic import Traffic
from simulator.traffic import measured_traffic, region_counters

EXECUTORS = ("fast", "exact")
COUNTERS = ("ops", "reductions", "value_reads", "coord_reads", "value_writes", "coord_writes")


@dataclass
class RegionResult:
    plan: RegionPlan
    run: RegionRun
    written: dict[str, FiberTree]
    traffic: Traffic
    counters: dict[str, int]
    timing: Timing

    @property
    def flops(self) -> int:
        return self.counters["ops"] + self.counters["reductions"]

    def to_dict(self) -> dict:
        rs = self.plan.schedule
        return {"ops": list(rs.ops), "order": " ".join(rs.order), "par_factors": list(rs.par_factors),
                "stream_shape": rs.stream_shape, "block_sparse": rs.block_sparse,
                "flops": self.flops, **self.traffic.to_dict(), **self.timing.to_dict(),
                "counters": dict(self.counters), "primitives": len(self.plan.primitives)}


@dataclass
class Check:
    passed: bool
    max_relative_error: float
    tensors: dict[str, bool] = field(default_factory=dict)
    skipped: str | None = None

    def to_dict(self) -> dict:
        return {"passed": self.passed, "max_relative_error": self.max_relative_error, "tensors": self.tensors,
                **({"skipped": self.skipped} if self.skipped else {})}


@dataclass
class Report:
    program: str
    executor: str
    policy: str
    hardware: Hardware
    regions: list[RegionResult]
    check: Check | None
    #: which data it ran on (simulator.program_data.describe_inputs)
    data: str = ""

    @property
    def flops(self) -> int:
        return sum(r.flops for r in self.regions)

    @property
    def bytes(self) -> float:
        return sum(r.traffic.bytes for r in self.regions)

    @property
    def compulsory_bytes(self) -> float:
        return sum(r.traffic.compulsory_bytes for r in self.regions)

    @property
    def logical_bytes(self) -> float:
        """The values and coordinates moved (the cost model's figure), before lines and spills."""
        return sum(r.traffic.logical_bytes for r in self.regions)

    @property
    def spill_bytes(self) -> float:
        return sum(r.traffic.spill_bytes for r in self.regions)

    @property
    def cycles(self) -> float:
        return sum(r.timing.cycles for r in self.regions)

    @property
    def intensity(self) -> float:
        return operational_intensity(self.flops, self.bytes)

    @property
    def bound(self) -> ScheduleBound:
        return schedule_bound((r.timing.roofline, r.timing.cycles) for r in self.regions)

    @property
    def roofline(self) -> str:
        return self.bound.roofline

    @property
    def counters(self) -> dict[str, int]:
        return {k: sum(r.counters[k] for r in self.regions) for k in COUNTERS}

    def to_dict(self) -> dict:
        bound = self.bound
        return {"kind": "simulated", "program": self.program, "data": self.data, "executor": self.executor,
                "policy": self.policy, "hardware": self.hardware.source, "flops": self.flops, "bytes": self.bytes,
                "compulsory_bytes": self.compulsory_bytes, "logical_bytes": self.logical_bytes,
                "spill_bytes": self.spill_bytes, "intensity": self.intensity,
                "ridge_intensity": self.hardware.ridge_intensity, "roofline": bound.roofline,
                "roofline_share": bound.share, "cycles": self.cycles,
                "seconds": self.cycles / (self.hardware.clock_ghz * 1e9), "counters": self.counters,
                "regions": [r.to_dict() for r in self.regions],
                "check": self.check.to_dict() if self.check else None}


def input_trees(program: Program, data: ProgramData) -> dict[str, FiberTree]:
    trees = {}
    for name, array in data.arrays.items():
        formats = program.tensors[name].formats
        trees[name] = FiberTree.from_sparse(array, formats) if sp.issparse(array) else \
            FiberTree.from_dense(array, formats)
    return trees


def _as_value(tree: FiberTree):
    if tree.nlevels == 2 and "compressed" in tree.formats:
        coords, ref = tree.coordinates()
        return sp.csr_matrix((tree.values[ref], (coords[0], coords[1])), shape=tree.extents)
    return tree.to_dense()


class Machine:
    """Memory state between regions: stored tensors (and their values, when computed)."""

    def __init__(self, program: Program, binding: Binding, data: ProgramData, hw: Hardware, policy: str,
                 numerics: bool = True):
        self.program, self.binding, self.hw, self.policy, self.numerics = program, binding, hw, policy, numerics
        self.memory = input_trees(program, data)
        self.values = dict(data.arrays)
        #: the data's statistics, for the estimate that picks what to simulate (baselines' shortlists)
        self.statistics = DataStatistics(program, binding, data.arrays)

    def simulate(self, rs, executor: str = "fast") -> RegionResult:
        """Run one region on the current memory without committing its writes."""
        plan = lower_region(self.program, self.binding, rs, self.policy, self.hw.block_size)
        if executor == "exact":
            run = exact.run_region(plan, self.memory, steps=self.hw.queue_depth > 0)
            written = run.written
        else:
            run, structure = fast.run_region(plan, self.memory)
            written = _fast_values(self.program, self.binding, plan, self.values, structure, self.numerics)
            if steps_fit(self.hw, run.counts):
                run.firings = exact.run_region(plan, self.memory, steps=True).firings
        traffic = measured_traffic(plan, run, self.memory, written, self.hw)
        counters = region_counters(plan, run, written)
        timing = region_timing(plan, run.counts, traffic.memory_cycles, self.hw, run.firings)
        return RegionResult(plan, run, written, traffic, counters, timing)

    def commit(self, result: RegionResult) -> None:
        self.memory.update(result.written)
        if self.numerics:
            for tensor, tree in result.written.items():
                self.values[tensor] = _as_value(tree)


def run_schedule(program: Program, binding: Binding, schedule: Schedule, executor: str = "fast",
                 policy: str = "accumulate", data: ProgramData | None = None, hardware: Hardware | None = None,
                 numerics: bool = True):
    """(region results, values of every tensor written to memory) for a legal schedule."""
    hw = hardware or load_hardware()
    machine = Machine(program, binding, data or materialize(program, binding), hw, policy, numerics)
    results: list[RegionResult] = []
    for rs in execution_order(program, schedule):
        result = machine.simulate(rs, executor)
        machine.commit(result)
        results.append(result)
    return results, machine.values


def _fast_values(program: Program, binding: Binding, plan: RegionPlan, values: dict, structure: fast.Structure,
                 numerics: bool = True) -> dict:
    """The fast executor's results, stored in their declared formats: values computed through
    each op's loops (simulator.values), or, without numerics, only the structure."""
    if numerics:
        return region_values(plan, values, structure.leaves, structure.results)
    written = {}
    for tensor, (edge, leaf) in structure.results.items():
        coords = fast.result_coordinates(edge, leaf)
        written[tensor] = FiberTree.dense_pattern(edge.extents) if coords is None else \
            FiberTree.from_coo(edge.formats, edge.extents, coords)
    return written


def compare(values: dict, reference: dict, tensors) -> Check:
    worst, passed, per = 0.0, True, {}
    for tensor in tensors:
        got = values[tensor]
        got = got.toarray() if sp.issparse(got) else np.asarray(got, dtype=np.float64)
        want = reference[tensor]
        if not want.size:
            per[tensor] = True
            continue
        # The scale comes from the finite values: an infinity would make every error tolerable.
        scale = float(np.max(np.abs(want), where=np.isfinite(want), initial=0.0))
        atol = 1e-12 * max(scale, 1.0)
        with np.errstate(all="ignore"):
            diff = np.subtract(got, want)
            np.abs(diff, out=diff)
            # Equal infinities and NaN where the reference has NaN (sqrt(-1), log(-1)) agree.
            diff[(got == want) | (np.isnan(got) & np.isnan(want))] = 0.0
            largest = float(np.max(diff))
            err = largest / max(scale, 1e-300)
        # Every element within atol already satisfies allclose; the full test (with its
        # relative term and NaN handling) runs only when some element is not.
        ok = largest <= atol or bool(np.allclose(got, want, rtol=1e-9, atol=atol, equal_nan=True))
        worst = max(worst, err if np.isfinite(err) else float("inf"))
        per[tensor] = ok
        passed &= ok
    return Check(passed, worst, per)


def evaluate(program: Program, binding: Binding, schedule: Schedule, hardware: Hardware | None = None, *,
             executor: str = "fast", policy: str = "accumulate", seed: int | None = None, check: bool = True,
             data: ProgramData | None = None, reference: dict | None = None) -> Report:
    """Simulate `schedule` and check its result against the numpy reference (`reference`, when
    given, is `evaluate_program` of the same program and data: a batch computes it once).
    Without the check no values are computed: counts and cycles do not depend on them."""
    if executor not in EXECUTORS:
        raise ValueError(f"unknown executor {executor!r}")
    hw = hardware or load_hardware()
    check_schedule(program, binding, schedule)
    data = data or materialize(program, binding, seed)
    regions, values = run_schedule(program, binding, schedule, executor, policy, data, hw, numerics=check)
    verdict = None
    if check:
        if reference is None:
            reference = evaluate_program(program, data.arrays, binding.extents)
        written = [t for r in regions for t in r.written]
        verdict = compare(values, reference, written)
    return Report(program.name, executor, policy, hw, regions, verdict, describe_inputs(program, binding, data))
