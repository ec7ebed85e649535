"""Which functions can never be applied with one fact program.

A function can be applied when some metadata for its parameters (each inhabited: built by
a complete program) and for its return value (in the domain) satisfies its condition with
these facts. Every function that some program for the goal uses applies (the oracle has
counted those programs already); for the others that is one solve of the condition with
nothing given, in projection mode, on the oracle's demand-driven inhabitation tables. The
library-only counterpart is `navigator.lang.applicability`.
"""

from __future__ import annotations

from dataclasses import dataclass

from navigator.lang import FactPattern
from navigator.synth.oracle import Oracle
from navigator.synth.solver import PROJECT


@dataclass(frozen=True)
class BlockedByFacts:
    """A function these facts never let apply, and the likeliest reason."""

    function: str
    reason: str


def blocked_by_facts(oracle: Oracle, skip: frozenset[str] = frozenset()) -> list[BlockedByFacts]:
    """The functions (other than `skip`) that no complete program with the oracle's facts
    uses, in declaration order."""
    # The oracle has counted every program for the goal: the functions those use apply,
    # and only the others need a solve of their own.
    applicable = {oracle.functions[i].name for i in oracle.counts.functions_counted()}
    for cf in oracle.functions:
        if cf.name in applicable:
            continue
        with oracle.budget.operation():
            plan = oracle.tables.plan(cf, ())
            if plan.run((), None, oracle.tables.lookup, PROJECT) is not None:
                applicable.add(cf.name)
    built = {oracle.library.functions[name].ret for name in applicable}
    blocked = []
    for decl in oracle.library.functions.values():
        if decl.name in applicable or decl.name in skip:
            continue
        missing_type = next((p for p in decl.params if p.type not in built), None)
        missing_facts = [f.prop for f in decl.condition
                         if isinstance(f, FactPattern) and not oracle.fact_index.rows(f.prop)]
        if missing_type is not None:
            reason = (f"parameter {missing_type.name} needs a value of type {missing_type.type}, "
                      "and these facts let no program build one")
        elif missing_facts:
            reason = f"its condition needs a fact of {missing_facts[0]}, and there is none"
        else:
            reason = "no values of its parameters and return satisfy its condition with these facts"
        blocked.append(BlockedByFacts(decl.name, reason))
    return blocked
