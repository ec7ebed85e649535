"""The data's statistics the estimate reads (fuseflow.cost.statistics), measured on the inputs
a simulation of the program runs on: the graph file, or the data generated from the program's
preset and seed. They are generated only when the estimate first asks about a sparse input,
and not at all when they would not fit in memory (the binding's assumptions are used then)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from fuseflow.support.errors import UserError

if TYPE_CHECKING:
    from fuseflow.cost.statistics import DataStatistics
    from fuseflow.program.binding import Binding
    from fuseflow.program.ir import Program


def data_statistics(program: "Program", binding: "Binding") -> "DataStatistics":
    from fuseflow.cost.statistics import DataStatistics

    def load() -> dict | None:
        from simulator.program_data import materialize

        try:
            return materialize(program, binding).arrays
        except UserError:   # too large to generate: the binding's assumptions stand in
            return None

    return DataStatistics(program, binding, load=load)
