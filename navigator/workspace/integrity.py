"""Fingerprints of what a session file records, so hand edits and stale files are noticed.

`context.navigator.fingerprints` holds content hashes of the files a session depends on
(program, library, data, facts: see ProgramSpec.load) and, under `record`, hashes of what
the session file itself records: the program spec, the data path, the dims, the library
path, the step log, the redo stack, (since context version 3) the forced-steps setting and,
for a Honeybee problem, its `kind`. Opening a session recomputes the `record` hashes
from the file; one that differs names a part edited since navigator saved it. These are
checksums against accidents and stale copies, not signatures: whoever edits the file can
recompute them.
"""

from __future__ import annotations

import hashlib
from typing import Any, Mapping, Sequence

from fuseflow.support.readers import dumps_deep
from navigator.synth.sketch import SKETCH_JSON_NESTING
from navigator.workspace.spec import FINGERPRINT_KEYS

#: the parts of a session file that `record` covers, in the order edits are reported
RECORDED = ("program", "data", "dims", "library", "steps", "redo", "forced_steps")
#: the context version that added a part to `record` (older files lack its fingerprint)
_RECORDED_SINCE = {"forced_steps": 3}
_NAMES = {"program": "context.navigator.program", "data": "context.navigator.data",
          "dims": "context.navigator.dims", "library": "context.navigator.library",
          "steps": "the step log (steps)", "redo": "the redo stack (redo)",
          "forced_steps": "the forced-steps setting (forced_steps)", "kind": "context.navigator.kind"}
_FILE_NAMES = {"program": "the program", "library": "the library", "data": "the data file",
               "facts": "the facts"}


def fingerprint(value: Any) -> str:
    """First 16 hex digits of the SHA-256 of `value`'s canonical JSON (sorted keys, ASCII)."""
    # a session's parts nest as deep as its file may (SKETCH_JSON_NESTING): written with room
    text = dumps_deep(value, SKETCH_JSON_NESTING, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(text.encode("ascii")).hexdigest()[:16]


def record_fingerprints(context: Mapping[str, Any], steps: Sequence[Any], redo: Sequence[Any],
                        forced_steps: Any) -> dict[str, str]:
    """The `record` hashes of a spec (context.navigator's program, data, dims, library), of
    the step log and redo stack, and of the forced-steps setting, each as the session file
    writes it."""
    values = {key: context.get(key) for key in ("program", "data", "dims", "library")}
    values.update(steps=list(steps), redo=list(redo), forced_steps=forced_steps)
    record = {key: fingerprint(values[key]) for key in RECORDED}
    if context.get("kind") is not None:  # only Honeybee problems record one; tensor sessions stay as they were
        record["kind"] = fingerprint(context["kind"])
    return record


def integrity_problem(context: Mapping[str, Any], steps: Sequence[Any], redo: Sequence[Any],
                      forced_steps: Any, version: int) -> str | None:
    """Why the session's own content cannot be trusted as navigator saved it, or None.

    `context` is the file's context.navigator, `steps`, `redo` and `forced_steps` its raw
    values, and `version` that context's version (1: written before `record` existed).
    """
    saved = context.get("fingerprints")
    if not isinstance(saved, dict):
        return "it has no fingerprints (context.navigator.fingerprints)"
    record = saved.get("record")
    if version < 2 and record is None:
        return ("it was saved by an older navigator, without the fingerprints of its own settings and "
                "steps (context.navigator.version 1)")
    recorded = [key for key in RECORDED if version >= _RECORDED_SINCE.get(key, 0)]
    missing = [_FILE_NAMES[key] for key in FINGERPRINT_KEYS if key not in saved]
    if not isinstance(record, dict):
        missing.append("its settings and steps (record)")
    else:
        missing += [_NAMES[key] for key in recorded if key not in record]
    if missing:
        return "context.navigator.fingerprints lacks the fingerprints of " + ", ".join(missing)
    current = record_fingerprints(context, steps, redo, forced_steps)
    edited = [_NAMES[key] for key in (*recorded, "kind") if record.get(key) != current.get(key)]
    if edited:
        return "edited since navigator saved it: " + ", ".join(edited)
    return None


def spec_is_intact(context: Mapping[str, Any]) -> bool:
    """True when the file's `record` fingerprints vouch for its program, data, dims and
    library, so advice may repeat them (the steps may still have been edited)."""
    saved = context.get("fingerprints")
    record = saved.get("record") if isinstance(saved, dict) else None
    if not isinstance(record, dict):
        return False
    current = record_fingerprints(context, [], [], None)
    return all(record.get(key) == current[key] for key in ("program", "data", "dims", "library"))
