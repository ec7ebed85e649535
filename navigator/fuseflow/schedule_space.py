"""The schedule space of one tensor program: the FuseFlow library, the program's facts, and
the engine's oracle over them, plus the translation between complete sketches and
fuseflow schedules.

The library and the facts state every rule; this module only reads finished expressions.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Mapping

from fuseflow.support.errors import UserError
from fuseflow.program.ir import Program
from fuseflow.analysis.unification import unify_region
from fuseflow.analysis.orders import default_order
from navigator.lang import FactProgram, Library, facts_from_records
from navigator.lang.facts_loader import facts_from_generator, facts_from_rows, facts_to_rows
from navigator.lang.load_errors import FactError, LibraryError
from navigator.fuseflow.bundled_library import load_scheduling_library
from navigator.fuseflow.library_interface import check_interface
from navigator.fuseflow.sketch_reading import PlacedRegion, read_sketch
from navigator.navigation.fingerprint import content_hash
from navigator.synth import Menus, Oracle, Sketch, sketch_from_json

if TYPE_CHECKING:  # imported where used: they load numpy, which a space made from cached facts may never need
    from navigator.navigation.space import ExportOrigin
    from fuseflow.program.binding import Binding
    from fuseflow.cost.hints import CostHint
    from fuseflow.schedule import RegionSchedule, Schedule


@dataclass
class ScheduleSpace:
    program: Program
    library: Library
    facts: FactProgram
    oracle: Oracle
    library_text: str
    #: the facts as navigator.fuseflow.facts generated them: (prop, args) records and the goal
    #: (None for a space made from kept facts: its fingerprint is kept with them)
    fact_records: list[tuple[str, dict[str, Any]]] | None
    goal_record: tuple[str, dict[str, Any]]
    #: check each schedule read from a sketch against the program's rules (a user's library
    #: may offer illegal ones; the bundled one cannot, its tests say so)
    check_schedules: bool = False
    #: makes the binding when it is first asked for (a space restored from its facts has none)
    bind_program: Callable[[], "Binding"] | None = field(default=None, repr=False)
    _binding: "Binding | None" = field(default=None, repr=False)
    #: navigator.fuseflow.sketch_hints.SketchHints, made when hints are first asked for (it keeps their memo)
    _hints: Any = field(default=None, repr=False)
    #: where the hints' region estimates outlive the process (sketch_hints.EstimateStore; the
    #: workspace gives a session's space the cache), or None
    estimate_store: Any = field(default=None, repr=False)

    @cached_property
    def facts_json(self) -> str:
        """The facts and the goal as compact JSON, `[records, goal]`: what the fingerprint hashes
        and the facts cache stores (written once for both)."""
        if self.fact_records is None:
            raise ValueError("a space made from kept facts has their fingerprint, not their records")
        return facts_json(self.fact_records, self.goal_record)

    @cached_property
    def facts_fingerprint(self) -> str:
        """A content hash of the facts, which saved sessions keep to notice a changed space."""
        return content_hash(self.facts_json)

    @property
    def binding(self) -> "Binding":
        if self._binding is None:
            assert self.bind_program is not None
            self._binding = self.bind_program()
        return self._binding

    @cached_property
    def statistics(self) -> "DataStatistics":
        """The data's statistics the estimate reads (measured once, when first needed)."""
        from navigator.fuseflow.data_statistics import data_statistics

        return data_statistics(self.program, self.binding)

    @classmethod
    def build(cls, program: Program, binding: "Binding", library_path: str | Path | None = None,
              library: tuple[Library, str] | None = None) -> "ScheduleSpace":
        """`library`: the library at `library_path`, already loaded, with its text."""
        from navigator.fuseflow.facts import program_facts

        generated = program_facts(program, binding)
        return cls.from_facts(program, generated.facts, generated.goal, library_path, library,
                              binding=binding, generated=True)

    @classmethod
    def from_facts(cls, program: Program, records: list[tuple[str, dict[str, Any]]], goal: tuple[str, dict],
                   library_path: str | Path | None = None, library: tuple[Library, str] | None = None, *,
                   binding: "Binding | None" = None,
                   bind_program: Callable[[], "Binding"] | None = None, generated: bool = False) -> "ScheduleSpace":
        """The space of the facts `navigator.fuseflow.facts.program_facts` generated for `program`, as
        (prop, args) records and the goal. Without `binding`, `bind_program` makes it when it is
        first asked for. `generated`: the records were just made by navigator.fuseflow.facts in
        this process, so each Prop's fields and value types are checked once, on its first fact."""
        library, library_text = library or load_scheduling_library(library_path)
        check_interface(library, goal[0])  # navigator.fuseflow.facts.GOAL_TYPE
        # Straight from the records: writing and re-reading their TOML would double start-up.
        load = facts_from_generator if generated else facts_from_records
        facts = _fitting(library, lambda: load(records, goal, library, f"{program.name}.hb.toml (generated)"))
        return cls(program, library, facts, Oracle(library, facts), library_text, list(records), goal,
                   check_schedules=library_path is not None, bind_program=bind_program, _binding=binding)

    @classmethod
    def from_kept(cls, program: Program, kept: Mapping[str, Any], library_path: str | Path | None = None,
                  library: tuple[Library, str] | None = None, *, bind_program: Callable[[], "Binding"] | None = None,
                  solved: Mapping[str, Any] | None = None) -> "ScheduleSpace":
        """The space of facts kept as `kept_facts` wrote them (navigator.workspace.cache keeps a
        program's), with the oracle's tables and counts as an earlier process `solved` them
        (`Oracle(solved=)`), if given. Any data of another shape raises."""
        library, library_text = library or load_scheduling_library(library_path)
        check_interface(library, kept["goal"][0])
        facts = _fitting(library, lambda: facts_from_rows(kept, library, f"{program.name}.hb.toml (generated)"))
        goal = (kept["goal"][0], dict(kept["goal"][1]))
        space = cls(program, library, facts, Oracle(library, facts, solved=solved), library_text, None, goal,
                    check_schedules=library_path is not None, bind_program=bind_program)
        space.facts_fingerprint = kept["fingerprint"]
        return space

    def kept_facts(self) -> dict[str, Any]:
        """The facts as `from_kept` reads them, with their fingerprint."""
        return {"fingerprint": self.facts_fingerprint, **facts_to_rows(self.facts, self.library)}

    def initial_sketch(self) -> Sketch:
        return self.oracle.initial_sketch()

    # ---- what it is, and its capabilities (navigator.navigation.space.Space) ----

    noun = "program"
    product = "schedule"
    has_cost_model = True

    @property
    def name(self) -> str:
        return self.program.name

    @property
    def tensor_program(self) -> Program:
        return self.program

    def require_tensor_program(self, command: str | None) -> Program:
        return self.program

    def option_details(self, option) -> list[str]:
        from navigator.fuseflow.option_details import region_details

        metadata = option.metadata_dict()
        region = metadata.get("region")
        return region_details(self.program, str(region), metadata) if region is not None else []

    def document_of(self, sketch: Sketch) -> dict:
        """The schedule JSON (fuseflow.schedule.schedule_to_json) of a complete sketch."""
        from fuseflow.schedule import schedule_to_json

        return schedule_to_json(self.program, self.schedule_of(sketch))

    def document_text(self, sketch: Sketch) -> str:
        return json.dumps(self.document_of(sketch), indent=2) + "\n"  # as fuseflow.schedule.save_schedule

    export_formats = ("json", "python", "fuseflow-pipeline", "fuseflow-mlir")

    def check_export(self, formats) -> None:
        if "notebook" in formats:
            raise UserError("--notebook writes the program of a Honeybee problem's expression, and this session "
                            "schedules a tensor program", where="--notebook",
                            fix="use --python F for a script that rebuilds the schedule")

    def export_file(self, sketch: Sketch, format: str, origin: "ExportOrigin") -> tuple[str, bool]:
        """The schedule JSON, (`python`) a script that rebuilds it with fuseflow's API, or
        (`fuseflow-pipeline`) the pass options FuseFlow's compiler takes it as, or (`fuseflow-mlir`)
        its fused regions as MLIR functions (fuseflow.schedule.fuseflow_pipeline)."""
        from fuseflow.schedule import schedule_problems, schedule_to_json
        from navigator.navigation.space import ExportFailure

        schedule = self.schedule_of(sketch)
        problems = schedule_problems(self.program, self.binding, schedule)
        if problems:
            raise ExportFailure("the completed sketch gives an invalid schedule: "
                                + "; ".join(str(p) for p in problems))
        if format == "python":
            from navigator.fuseflow.rebuild_script import schedule_python

            spec = origin.spec
            return schedule_python(schedule, program=spec.program, program_name=self.program.name, data=spec.data,
                                   dims=spec.dims_dict, output=origin.json_path, source=origin.session), True
        if format == "fuseflow-pipeline":
            from fuseflow.schedule.fuseflow_pipeline import pipeline_text

            return pipeline_text(self.program, self.binding, schedule), False
        if format == "fuseflow-mlir":
            from fuseflow.schedule.fuseflow_pipeline import regions_mlir

            return regions_mlir(self.program, self.binding, schedule), False
        return json.dumps(schedule_to_json(self.program, schedule), indent=2) + "\n", False

    # ---- cost hints ----

    def hints(self, sketch: Sketch, menus: "Menus | None" = None) -> dict[tuple[int, str], "CostHint | None"]:
        """(hole, option id) -> the best estimated cost beneath that option (None: no hint), for
        every option of every open hole of `sketch` (docs/cost-model.md#cost-hints)."""
        return self._sketch_hints().of_menus(sketch, menus or self.oracle.menus(sketch))

    def best_hint(self, sketch: Sketch) -> "CostHint | None":
        """The best estimated cost of the complete schedules extending `sketch`."""
        return self._sketch_hints().of_sketch(sketch)

    def _sketch_hints(self):
        if self._hints is None:
            from navigator.fuseflow.sketch_hints import SketchHints

            self._hints = SketchHints(self)
        return self._hints

    # ---- complete sketch -> schedule ----

    def schedule_of(self, sketch: Sketch) -> "Schedule":
        """The fuseflow schedule a complete sketch denotes (the library fits the interface:
        `check_interface`, when the space was built)."""
        if not sketch.complete:
            open_holes = " ".join(f"?{h.id}" for h in sketch.holes())
            raise UserError(f"the sketch still has open holes: {open_holes}",
                            fix="fill them, or export with --partial to take defaults")
        from fuseflow.schedule import Schedule, default_schedule, schedule_problems

        reading = read_sketch(sketch.root)
        if reading.default:
            return default_schedule(self.program)
        schedule = Schedule(tuple(self._region_schedule(region) for region in reading.placed))
        if self.check_schedules:
            problems = schedule_problems(self.program, self.binding, schedule)
            if problems:
                raise LibraryError(f"offers a schedule that breaks the rules of program {self.program.name}: "
                                   f"{problems[0]}", where=", ".join(self.library.sources),
                                   fix="the library's conditions must read the legal choices from the facts "
                                       "(`navigator facts PROGRAM` shows them), as the bundled library does")
        return schedule

    def _region_schedule(self, region: PlacedRegion) -> "RegionSchedule":
        from fuseflow.schedule import RegionSchedule

        order = region.order
        # Factors are chosen per loop variable; the schedule lists them per level of the order.
        factor_of = region.factors()
        missing = [v for v in order if v not in factor_of]
        if missing:
            raise LibraryError(f"its schedule of region {region.region_field} gives no parallel factor for the loop "
                               f"variable {missing[0]} of the order {region.order_field!r}",
                               where=", ".join(self.library.sources) or "the library",
                               fix="list one var_par per loop variable of the region, as "
                                   "the bundled library does")
        shape, block = region.vector()
        return RegionSchedule(region.ops, order, tuple(factor_of[v] for v in order), shape, block)

    # ---- schedule -> complete expression (a navigation target) ----

    def expression_of(self, schedule: "Schedule", where: str | None = None) -> dict:
        """Honeybee's JSON form of the complete sketch that denotes `schedule`.

        Only a legal schedule has one (navigation reaches nothing else), so an illegal one
        raises ScheduleError naming its first problem; `where` names the file it came from."""
        from navigator.fuseflow.facts import region_id
        from fuseflow.analysis.fusion_shortcuts import is_default_step
        from fuseflow.analysis.fusion_steps import DONE, fusion_steps
        from fuseflow.schedule import check_schedule

        check_schedule(self.program, self.binding, schedule, where)
        steps = fusion_steps(self.program)
        schedule_of = {rs.ops: rs for rs in schedule.regions}
        derivation = steps.derivation(tuple(schedule_of))
        assert derivation is not None, "check_schedule accepts only groupings the fusion steps reach"
        # Built from the end: the list is as long as the grouping has regions.
        regions = _app("no_more_regions", {"state": DONE, "region": "", "is_default": True}, {})
        for state, step in reversed(derivation):
            meta = {"state": steps.state_id(state), "region": region_id(step.region),
                    "is_default": is_default_step(self.program, steps, state, step)}
            regions = _app("region", meta, {"schedule": self._region_expression(schedule_of[step.region]),
                                            "rest": regions})
        fusion = _app("fuse", {"program": self.program.name}, {"regions": regions})
        return _app("schedule", {"program": self.program.name}, {"fusion": fusion})

    def _region_expression(self, rs: "RegionSchedule") -> dict:
        from navigator.fuseflow.facts import order_id, region_id

        rid, oid = region_id(rs.ops), order_id(rs.order)
        n = len(rs.order)
        region = unify_region(self.program, rs.ops)
        is_default = rs.order == default_order(region)
        region_vars = region.vars
        factor_of = dict(zip(rs.order, rs.par_factors))

        def pars_from(index: int) -> dict:
            meta = {"region": rid, "index": index, "count": n}
            if index == n:
                return _app("no_more_pars", meta, {})
            var = region_vars[index]
            par = _app("par", {"region": rid, "var": var, "factor": factor_of[var]}, {})
            return _app("var_par", meta, {"par": par, "rest": pars_from(index + 1)})

        block = _app("block_sparse", {"region": rid, "enabled": rs.block_sparse}, {})
        vector = _app("vectorize", {"region": rid, "var": rs.order[-1], "shape": rs.stream_shape}, {"block": block})
        order = _app("order", {"region": rid, "order": oid, "count": n, "inner": rs.order[-1],
                               "is_default": is_default}, {"vector": vector})
        return _app("dataflow", {"region": rid}, {"order": order, "pars": pars_from(0)})

    def sketch_of(self, schedule: Schedule) -> Sketch:
        return sketch_from_json(self.expression_of(schedule), self.library, self.facts.goal.type)


def _fitting(library: Library, load: Callable[[], FactProgram]) -> FactProgram:
    """`load()`, its FactError said as the library's problem (the facts are Navigator's own)."""
    try:
        return load()
    except FactError as exc:
        raise LibraryError(f"does not fit the facts Navigator generates for a program: {exc.bare_message}",
                           where=", ".join(library.sources), fix=exc.fix or "declare the Props and the goal "
                           "type as the bundled library does (`navigator facts PROGRAM` shows the facts)") from None


def facts_json(records: list[tuple[str, dict]], goal: tuple[str, dict]) -> str:
    """Compact JSON of generated facts and their goal (the same for records read back from JSON)."""
    return json.dumps([records, goal], separators=(",", ":"), ensure_ascii=False)


def _app(name: str, metadata: dict, args: dict) -> dict:
    return {"App": [{"name": name, "metadata": metadata, "arity": list(args)}, args]}
