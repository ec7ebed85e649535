"""Replay a target expression through the menus, to show it is reachable.

Starting from `?0`, each round recomputes the menus and takes the offered step that
matches the target at the first open hole (in hole order) where one matches. The replay
succeeds when every application of the target is placed (holes in the target stay open).
It fails in the first round where no open hole offers its target node (other holes keep
progressing until then); the report names that round, the first such hole, its target
node (with its path in the target JSON), why, and the round it first got stuck.

By strong completeness, every valid target is reached in exactly as many rounds as it has
applications; a failure therefore pinpoints where a target is invalid (or a bug).
"""

from __future__ import annotations

import os
import statistics
import time
from dataclasses import dataclass
from typing import Any

from navigator.lang import FactProgram, Library
from navigator.lang.formula import Value, format_value, value_type_of
from navigator.synth import ExpressionError, Oracle, Sketch, option_id, sketch_to_json
from navigator.synth.json_form import EXPRESSION_FIX
from navigator.synth.sketch import MAX_SKETCH_DEPTH, SKETCH_JSON_NESTING
from navigator.synth.inhabitation import gc_paused


@dataclass(frozen=True)
class _TargetApp:
    function: str
    metadata: dict[str, Value]
    args: dict[str, Any]  # param -> _TargetApp | _TargetHole
    path: str

    def describe(self) -> str:
        return option_id(self.function, tuple(self.metadata.items()))


@dataclass(frozen=True)
class _TargetHole:
    number: int
    path: str


@dataclass(frozen=True)
class ReplayRound:
    round: int
    hole: int
    option: str
    seconds: float
    offered: int  # options offered over all holes this round

    def to_dict(self) -> dict[str, Any]:
        return {"round": self.round, "hole": self.hole, "option": self.option,
                "seconds": self.seconds, "offered": self.offered}


@dataclass(frozen=True)
class ReplayFailure:
    round: int
    hole: int
    hole_type: str
    target: str  # the target node as an option id, e.g. f{x=1}
    target_path: str  # where it sits in the target JSON, e.g. $.App[1].r0
    reason: str
    #: the first round in which this hole's target was seen not offered (once a step is
    #: not offered it never becomes offered again, as later sketches only extend this one)
    stuck_since_round: int

    def to_dict(self) -> dict[str, Any]:
        return {"round": self.round, "hole": self.hole, "hole_type": self.hole_type,
                "target": self.target, "target_path": self.target_path, "reason": self.reason,
                "stuck_since_round": self.stuck_since_round}


@dataclass
class ReplayReport:
    reached: bool
    rounds: list[ReplayRound]
    startup_seconds: float
    total_seconds: float
    final_sketch: Sketch
    failure: ReplayFailure | None = None

    def to_dict(self) -> dict[str, Any]:
        times = [r.seconds for r in self.rounds]
        return {
            "reached": self.reached,
            "rounds": len(self.rounds),
            "startup_seconds": self.startup_seconds,
            "total_seconds": self.total_seconds,
            "median_round_seconds": statistics.median(times) if times else 0.0,
            "p95_round_seconds": _percentile(times, 0.95),
            "max_round_seconds": max(times, default=0.0),
            "failure": self.failure.to_dict() if self.failure else None,
            "round_log": [r.to_dict() for r in self.rounds],
            "final": sketch_to_json(self.final_sketch),
        }


def _percentile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def load_target(path: str | os.PathLike) -> Any:
    """Read a target expression file (JSON)."""
    from fuseflow.support.readers import load_json_file

    return load_json_file(path, ExpressionError, "a target expression or schedule .json file",
                          nesting=SKETCH_JSON_NESTING)


def _parse_target(data: Any, path: str, source: str):
    """Shape only: names and values are checked against the menus, not here. Read with an
    explicit stack (a target built in memory can be deeper than the recursion limit)."""
    def fail(message: str, at: str) -> ExpressionError:
        return ExpressionError(message, where=f"{source}: {at}", fix=EXPRESSION_FIX)

    def node(item: Any, at: str, depth: int):
        if not isinstance(item, dict) or len(item) != 1 or next(iter(item)) not in ("Hole", "App"):
            raise fail("an expression is {\"Hole\": n} or {\"App\": [function, arguments]}", at)
        if "Hole" in item:
            number = item["Hole"]
            if not isinstance(number, int) or isinstance(number, bool) or number < 0:
                raise fail("a hole number is a non-negative integer", f"{at}.Hole")
            return _TargetHole(number, at)
        if depth > MAX_SKETCH_DEPTH:
            raise fail(f"the target nests more than {MAX_SKETCH_DEPTH} applications deep", at)
        body = item["App"]
        if not (isinstance(body, list) and len(body) == 2 and isinstance(body[0], dict)
                and isinstance(body[1], dict)):
            raise fail("\"App\" holds [{\"name\", \"metadata\", \"arity\"}, {param: expression}]", f"{at}.App")
        head, args = body
        if not isinstance(head.get("name"), str):
            raise fail("the function needs a \"name\" string", f"{at}.App[0].name")
        metadata = head.get("metadata", {})
        if not isinstance(metadata, dict) or any(value_type_of(v) is None for v in metadata.values()):
            raise fail("metadata maps fields to ints, strings or booleans", f"{at}.App[0].metadata")
        app = _TargetApp(head["name"], dict(metadata), {}, at)
        for param, child in args.items():
            pending.append((app, param, child, f"{at}.App[1].{param}", depth + 1))
        return app

    pending: list[tuple[_TargetApp, str, Any, str, int]] = []
    root = node(data, path, 1)
    while pending:
        parent, param, child, at, depth = pending.pop()
        parent.args[param] = node(child, at, depth)
    return root


def replay(library: Library, facts: FactProgram, target: Any, *, oracle: Oracle | None = None,
           source: str = "target") -> ReplayReport:
    """Navigate toward `target` (Honeybee JSON, already parsed) using offered steps only."""
    with gc_paused():   # thousands of steps build trees, which hold no cycles
        return _replay(library, facts, target, oracle, source)


def _replay(library: Library, facts: FactProgram, target: Any, oracle: Oracle | None, source: str) -> ReplayReport:
    started = time.perf_counter()
    if oracle is None:
        oracle = Oracle(library, facts)
    startup = time.perf_counter() - started
    root = _parse_target(target, "$", source)
    sketch = oracle.initial_sketch()
    pending: dict[int, Any] = {0: root}
    rounds: list[ReplayRound] = []
    failure = None
    stuck: dict[int, int] = {}  # hole -> first round its target was not offered
    loop_start = time.perf_counter()
    while True:
        open_holes = [h for h in sketch.holes() if isinstance(pending.get(h.id), _TargetApp)]
        if not open_holes:
            break
        round_start = time.perf_counter()
        menus = oracle.menus(sketch)
        chosen = None
        for hole in open_holes:
            node = pending[hole.id]
            option = menus.find(hole.id, node.function, node.metadata)
            if option is not None and set(node.args) == set(library.functions[node.function].param_names):
                chosen = (hole, node, option)
                break
            stuck.setdefault(hole.id, len(rounds) + 1)
        if chosen is None:
            hole = open_holes[0]
            node = pending[hole.id]
            failure = ReplayFailure(len(rounds) + 1, hole.id, hole.type, node.describe(), node.path,
                                    _why_not(library, menus, hole, node), stuck[hole.id])
            break
        hole, node, option = chosen
        first_new = sketch.next_hole
        sketch = oracle.apply(sketch, option)
        del pending[hole.id]
        for i, param in enumerate(library.functions[node.function].param_names):
            pending[first_new + i] = node.args[param]
        rounds.append(ReplayRound(len(rounds) + 1, hole.id, option.id,
                                  time.perf_counter() - round_start, len(menus)))
    total = startup + (time.perf_counter() - loop_start)
    return ReplayReport(failure is None, rounds, startup, total, sketch, failure)


def _why_not(library: Library, menus, hole, node: _TargetApp) -> str:
    if menus.blocked:
        return f"the sketch cannot be completed: {menus.blocked}"
    decl = library.functions.get(node.function)
    if decl is None:
        return f"unknown function {node.function!r}"
    if decl.ret != hole.type:
        return f"{node.function} returns {decl.ret}, but ?{hole.id} needs a {hole.type}"
    if set(node.args) != set(decl.param_names):
        return (f"{node.function} takes arguments {list(decl.param_names)}, the target gives "
                f"{sorted(node.args)}")
    fields = library.types[decl.ret].field_names
    if set(node.metadata) != set(fields):
        return f"metadata must give exactly the fields {list(fields)}, got {sorted(node.metadata)}"
    same_function = [o.id for o in menus.for_hole(hole.id).options if o.function == node.function]
    if same_function:
        shown = ", ".join(same_function[:5]) + (" ..." if len(same_function) > 5 else "")
        return (f"not offered: no complete program extends the sketch with this step; "
                f"{node.function} is offered with {shown}")
    return (f"not offered: no complete program extends the sketch with {node.function} here "
            f"(metadata {', '.join(f'{k}={format_value(v)}' for k, v in node.metadata.items())})")
