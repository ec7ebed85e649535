"""Program facts for the navigator: the Honeybee fact program (`*.hb.toml`) of a tensor program.

The facts state what fuseflow.schedule allows for this program and binding: the fusion
steps (fuseflow.analysis.fusion_steps: at each state, the regions that can hold the first op not yet
placed), the named groupings offered as shortcuts (fuseflow.analysis.fusion_shortcuts), each region's
loop variables and legal orders, the parallel factors and stream shapes each loop variable
admits, and where block-sparse mode is possible.
The scheduling library (navigator/library/fuseflow.hblib.toml) reads only these facts, so the
navigator never restates a rule of its own.

A region's legal orders are listed one fact each, and their number grows factorially with
its loop variables, so the facts of one program are bounded by MAX_FACTS.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from fuseflow.program.binding import Binding
from fuseflow.support.work_budget import StepBudget
from fuseflow.analysis.fusion_shortcuts import is_default_step, offered_shortcuts
from fuseflow.analysis.fusion_steps import fusion_steps
from fuseflow.program.ir import Program, Region
from fuseflow.analysis.unification import unify_region
from fuseflow.analysis.orders import OrderSpace, default_order
from fuseflow.schedule import Level, allowed_par_factors, allowed_stream_shapes, block_sparse_choices

GOAL_TYPE = "Schedule"

#: Facts of one program; the bundled programs have at most about 18,000 (graphsage).
MAX_FACTS = 100_000
_FACTS_FIX = ("split the program into smaller programs: the facts grow with the fusion groupings and "
              "factorially with the loop variables of a region that no sparse operand orders")


def region_id(ops) -> str:
    return "+".join(ops)


def grouping_id(grouping) -> str:
    return " | ".join(region_id(g) for g in grouping)


def order_id(order) -> str:
    return " ".join(order)


@dataclass
class GeneratedFacts:
    """The facts generated for one program, as (prop, args) records in order, plus the goal:
    what navigator.lang.facts_loader turns into the engine's FactProgram, or `to_toml` into a
    `*.hb.toml` file."""

    facts: list[tuple[str, dict]] = field(default_factory=list)
    goal: tuple[str, dict] = (GOAL_TYPE, {})
    budget: StepBudget | None = field(default=None, repr=False, compare=False)

    def add(self, prop: str, **args) -> None:
        if self.budget is not None:
            self.budget.spend()
        self.facts.append((prop, args))

    def to_toml(self, header: str = "") -> str:
        # A comment may hold no control character; the header can quote a user's file path.
        lines = ["# " + "".join(c if c >= " " and c != "\x7f" else "?" for c in line)
                 for line in header.splitlines()]
        for prop, args in self.facts:
            inline = ", ".join(f"{key} = {_toml_value(value)}" for key, value in args.items())
            lines += ["[[Prop]]", f"name = {_toml_value(prop)}", f"args = {{ {inline} }}"]
        goal_args = ", ".join(f"{k} = {_toml_value(v)}" for k, v in self.goal[1].items())
        lines += ["[Goal]", f"name = {_toml_value(self.goal[0])}", f"args = {{ {goal_args} }}", ""]
        return "\n".join(lines)


def _toml_value(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    return toml_string(str(value))


def toml_string(text: str) -> str:
    """A TOML basic string: quote, backslash and every control character escaped, so no name
    can end the string or the line early."""
    escaped = []
    for char in text:
        if char in '"\\':
            escaped.append("\\" + char)
        elif char < " " or char == "\x7f":
            escaped.append(f"\\u{ord(char):04x}")
        else:
            escaped.append(char)
    return '"' + "".join(escaped) + '"'


def region_facts(facts: GeneratedFacts, region: Region, binding: Binding) -> None:
    rid = region_id(region.ops)
    space = OrderSpace.of_region(region)
    default = default_order(region)
    compressed = region.compressed_vars()
    for index, var in enumerate(region.vars):
        facts.add("RegionVar", region=rid, index=index, var=var)
        level = Level(0, var, binding.extent(region.var_dims[var]), var in compressed)
        for factor in allowed_par_factors(level.extent, level.compressed):
            facts.add("ParFactor", region=rid, var=var, factor=factor)
        for shape in allowed_stream_shapes(level):
            facts.add("StreamShape", region=rid, var=var, shape=shape)
    facts.add("RegionVarCount", region=rid, count=len(region.vars))
    for enabled in block_sparse_choices(region):
        facts.add("BlockSparse", region=rid, enabled=enabled)
    for order in space.listed():
        oid = order_id(order)
        facts.add("LegalOrder", region=rid, order=oid, levels=len(order), inner=order[-1],
                  is_default=order == default)


def program_facts(program: Program, binding: Binding) -> GeneratedFacts:
    budget = StepBudget(MAX_FACTS, "facts for the navigator", program.path or program.name, _FACTS_FIX)
    facts = GeneratedFacts(goal=(GOAL_TYPE, {"program": program.name}), budget=budget)
    facts.add("Program", name=program.name)
    regions: dict[tuple[str, ...], None] = {}
    fusion_facts(facts, program, regions)
    most = 0
    for name, grouping in offered_shortcuts(program).items():
        gid = grouping_id(grouping)
        facts.add("Shortcut", program=program.name, name=name, grouping=gid, regions=len(grouping))
        for index, group in enumerate(grouping):
            facts.add("GroupRegion", grouping=gid, index=index, region=region_id(group))
            regions.setdefault(group, None)
        most = max(most, len(grouping))
    for group in regions:
        region = unify_region(program, group)
        most = max(most, len(region.vars))
        region_facts(facts, region, binding)
    for n in range(most):
        facts.add("Succ", n=n, next=n + 1)
    return facts


def fusion_facts(facts: GeneratedFacts, program: Program, regions: dict[tuple[str, ...], None]) -> None:
    """FusionStart, one FusionStep per region offered at each reachable state, and FusionEnd;
    adds the regions to `regions`."""
    steps = fusion_steps(program)
    states = steps.reachable()
    facts.add("FusionStart", program=program.name, state=steps.state_id(states[0]))
    for state in states:
        sid = steps.state_id(state)
        if state.done:
            facts.add("FusionEnd", state=sid)
            continue
        for step in steps.steps(state):
            facts.add("FusionStep", state=sid, region=region_id(step.region), next=steps.state_id(step.next),
                      is_default=is_default_step(program, steps, state, step))
            regions.setdefault(step.region, None)
