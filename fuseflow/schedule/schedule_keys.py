"""The keys a schedule JSON may hold, level by level, and the suggestion for any other key.

A key the reader does not know would otherwise be ignored and leave a default in its place:
`"stream_shape": 16` instead of `"stream-shape": 16` ran with stream shape 1 and no word.
So every level has one table here, the reader (fuseflow.schedule.schedule_json) refuses any key outside
it, and the docs print the same tables. The tables hold every key that Navigator writes
(schedule_to_json) and every key that Honeybee's FuseFlow library writes.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass


@dataclass(frozen=True)
class Key:
    name: str
    kind: str        # the JSON type its value has: string, integer, boolean, list, object
    meaning: str


#: a region's schedule: the same keys in the single-region form and in each entry of `regions`
_REGION_SCHEDULE = (
    Key("dataflow-ordering", "string", 'the loop order; `""` is the default order'),
    Key("stream-parallelizer", "object", "the parallel factors"),
    Key("stream-vectorizer", "object", "stream shape and block-sparse mode"),
)
_SPARSE_ANNOTATIONS = Key("sparse-annotations", "object", "tensor name -> whether it is sparse (Honeybee); checked")

#: level -> its keys. Every schedule key is in one of these tables (docs/schedule-json.md prints them).
KNOWN_KEYS: dict[str, tuple[Key, ...]] = {
    "multi-region": (
        Key("format", "string", '`"navigator-schedule"`'),
        Key("version", "integer", "`1`"),
        Key("program", "string", "the program's name; checked"),
        Key("fusion", "list", "the fusion groups; equal to the regions' op lists when given"),
        Key("regions", "list", "one object per fused region"),
        _SPARSE_ANNOTATIONS,
    ),
    "single-region": (*_REGION_SCHEDULE, _SPARSE_ANNOTATIONS),
    "region": (Key("ops", "list", "the region's ops"), *_REGION_SCHEDULE),
    "stream-parallelizer": (
        Key("par_factors", "list", "one factor per loop level, outermost first"),
        Key("stream-level", "integer", "Honeybee's single-level form: a level (0 is the outermost) ..."),
        Key("par-factor", "integer", "... and its factor; every other level keeps factor 1"),
    ),
    "stream-vectorizer": (
        Key("stream-shape", "integer", "the vector width of the innermost streams"),
        Key("enable-block-sparse", "boolean", "stream blocks rather than scalars"),
    ),
}

#: How messages and docs name each level.
LEVEL_TITLES = {
    "multi-region": "the top level of the multi-region form",
    "single-region": "the top level of the single-region form",
    "region": "each entry of `regions`",
    "stream-parallelizer": "`stream-parallelizer`",
    "stream-vectorizer": "`stream-vectorizer`",
}


def json_kind(value) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "list"
    if isinstance(value, dict):
        return "object"
    return "null" if value is None else type(value).__name__


def _normal(name: str) -> str:
    # `_` for `-` (and case) is the commonest slip: FuseFlow mixes `par_factors` with `stream-shape`.
    return name.lower().replace("_", "-")


def closest_name(name: str, candidates, fuzzy: bool = True) -> str | None:
    """The candidate `name` was most likely meant as: the same but for case and `_` versus
    `-`, else (when `fuzzy`) difflib's closest, else None."""
    candidates = list(candidates)
    for candidate in candidates:
        if _normal(candidate) == _normal(name):
            return candidate
    if not fuzzy:
        return None
    by_normal = {_normal(c): c for c in candidates}
    matches = difflib.get_close_matches(_normal(name), list(by_normal), n=1, cutoff=0.6)
    return by_normal[matches[0]] if matches else None


def _key_names(level: str, kind: str | None = None) -> list[str]:
    return [k.name for k in KNOWN_KEYS[level] if kind is None or k.kind == kind]


def unknown_key_fix(name: str, value, level: str, also: tuple[str, ...] = ()) -> str:
    """What to write instead of the unknown key `name` (holding `value`) at `level`; `also`
    names levels a user may have meant to write instead (the other form's top level).

    A key whose value type fits `value` is preferred: `"par_factor": [4, 1]` means
    `par_factors`, not the single-level form's `par-factor`. A key that exists at another
    level is sent there rather than matched to a look-alike here."""
    fitting = _key_names(level, json_kind(value))
    exact = closest_name(name, fitting, fuzzy=False)
    if exact:
        return f"did you mean `{exact}`?"
    elsewhere = [other for other in KNOWN_KEYS
                 if other != level and closest_name(name, _key_names(other), fuzzy=False)]
    if elsewhere:
        home = closest_name(name, _key_names(elsewhere[0]), fuzzy=False)
        return f"`{home}` belongs in {' or in '.join(LEVEL_TITLES[o] for o in elsewhere)}"
    guess = (closest_name(name, fitting) or closest_name(name, _key_names(level))
             or closest_name(name, [k for other in also for k in _key_names(other)]))
    if guess:
        return f"did you mean `{guess}`?"
    return "the keys here are " + ", ".join(f"`{k}`" for k in _key_names(level))


def unknown_keys(data: dict, level: str) -> list[str]:
    """The keys of `data` that `level` does not know, in the order written."""
    names = set(_key_names(level))
    return [key for key in data if key not in names]
