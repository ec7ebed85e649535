"""The step log, a session's trace: one `StepRecord` per step taken, and its JSON form.

A step is recorded with its provenance (`by`: "user", "default", "forced" or
"strategy:<name>"), an optional rationale, a timestamp, the number of the command it
belonged to and, for a step a planning strategy took, the figures it weighed
(docs/strategies.md#provenance). The log is the source of truth: replaying it from `?0`
(`Session.from_steps`) always gives the same sketch, because hole numbers come from a
counter that only grows.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Mapping

from navigator.lang.formula import Value, value_type_of
from navigator.navigation.session_errors import DamagedSessionError
from navigator.synth import option_id

FORCED = "forced"
_BY = re.compile(r"^(user|default|forced|strategy:[A-Za-z0-9_.\-]+)$")
_BY_FIX = 'use "user", "default", "forced" or "strategy:<name>"'


def is_provenance(by: str) -> bool:
    """Whether `by` names who took a step: "user", "default", "forced" or "strategy:<name>"."""
    return _BY.match(by) is not None


@dataclass(frozen=True)
class StepRecord:
    """One step of the log."""

    hole: int
    option: str
    function: str
    metadata: tuple[tuple[str, Value], ...]
    by: str = "user"
    rationale: str | None = None
    timestamp: str = ""
    #: the command the step belonged to (steps of one command are undone together); None in
    #: files written before commands were recorded, where each step is its own command
    command: int | None = None
    #: what a strategy weighed to take the step (navigator.auto.base.Plan.figures): how many
    #: candidates it evaluated and the figures it compared; None for steps no strategy chose
    figures: Mapping[str, Any] | None = field(default=None, hash=False)

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "hole": self.hole,
            "option": self.option,
            "function": self.function,
            "metadata": dict(self.metadata),
            "by": self.by,
            "timestamp": self.timestamp,
        }
        if self.rationale is not None:
            data["rationale"] = self.rationale
        if self.command is not None:
            data["command"] = self.command
        if self.figures is not None:
            data["figures"] = dict(self.figures)
        return data

    @staticmethod
    def from_dict(data: Any, where: str) -> "StepRecord":
        if not isinstance(data, dict):
            raise DamagedSessionError("a step must be a JSON object", where=where)
        hole = data.get("hole")
        if not isinstance(hole, int) or isinstance(hole, bool) or hole < 0:
            raise DamagedSessionError("step has no valid hole number", where=f"{where}.hole")
        for key in ("option", "function", "by"):
            if not isinstance(data.get(key), str):
                raise DamagedSessionError(f"step has no {key} string", where=f"{where}.{key}")
        if not is_provenance(data["by"]):
            raise DamagedSessionError(f"unknown provenance {data['by']!r}", where=f"{where}.by", fix=_BY_FIX)
        metadata = data.get("metadata", {})
        if not isinstance(metadata, dict) or any(value_type_of(v) is None for v in metadata.values()):
            raise DamagedSessionError("step metadata must map fields to ints, strings or booleans",
                                      where=f"{where}.metadata")
        rationale = data.get("rationale")
        if rationale is not None and not isinstance(rationale, str):
            raise DamagedSessionError("rationale must be a string", where=f"{where}.rationale")
        timestamp = data.get("timestamp", "")
        if not isinstance(timestamp, str):
            raise DamagedSessionError("timestamp must be a string", where=f"{where}.timestamp")
        command = data.get("command")
        if command is not None and (not isinstance(command, int) or isinstance(command, bool) or command < 1):
            raise DamagedSessionError("command must be a positive whole number", where=f"{where}.command")
        figures = data.get("figures")
        if figures is not None and not _json_figures(figures):
            raise DamagedSessionError("figures must be a JSON object of numbers, strings and such objects",
                                      where=f"{where}.figures")
        record = StepRecord(hole, data["option"], data["function"], tuple(metadata.items()),
                            data["by"], rationale, timestamp, command, figures)
        if option_id(record.function, record.metadata) != record.option:
            raise DamagedSessionError(f"option {record.option!r} does not match its function and "
                                      "metadata", where=where, fix="the file was edited by hand or is corrupted")
        return record


def _json_figures(value: Any, depth: int = 0) -> bool:
    """A step's figures: an object of finite numbers, strings, booleans, null and such objects
    (three levels deep at most: {"compared": {"rules": {"widest stream shape": 2}}})."""
    if not isinstance(value, dict) or depth > 2:
        return False
    for key, item in value.items():
        if isinstance(item, dict):
            if not _json_figures(item, depth + 1):
                return False
        elif isinstance(item, float):
            if item != item or item in (float("inf"), float("-inf")):
                return False
        elif item is not None and not isinstance(item, (int, str, bool)):
            return False
    return True
