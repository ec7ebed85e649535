"""The keys results are filed under: the SHA-256 of a schedule's canonical JSON (a rerun skips
the keys already evaluated), and of an evaluation's configuration."""

from __future__ import annotations

import hashlib
from typing import Any

from fuseflow.support.readers import dumps_deep
from navigator.synth.sketch import SKETCH_JSON_NESTING


def canonical_json(data: Any) -> str:
    """Sorted keys, no spaces, UTF-8: equal data, equal text. The data may hold a sketch (a
    Honeybee problem's document is its expression), thousands of levels deep."""
    return dumps_deep(data, SKETCH_JSON_NESTING, sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                      allow_nan=False)


def schedule_key(schedule_json: Any) -> str:
    """SHA-256 (hex) of a schedule's canonical JSON: the key of its result.

    Strings that are not valid Unicode (a lone surrogate from a `\\ud800` escape) are hashed
    as their surrogate code points; every other text hashes as its UTF-8, as always."""
    return hashlib.sha256(canonical_json(schedule_json).encode("utf-8", "surrogatepass")).hexdigest()
