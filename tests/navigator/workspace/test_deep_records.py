"""A session file may nest as deep as a sketch's JSON (SKETCH_JSON_NESTING); what the
workspace computes from its parts must not recurse past Python's limit (found by the fuzz
harness: `eval`, `validate` and `redo` of a session whose step log was edited to nest deeply)."""

from navigator.synth.sketch import SKETCH_JSON_NESTING
from navigator.workspace import integrity, spec


def _nested(depth: int):
    value: list = []
    for _ in range(depth):
        value = [value]
    return value


def test_a_fingerprint_of_a_part_as_deep_as_a_session_may_be():
    deep = _nested(SKETCH_JSON_NESTING - 2)
    assert integrity.fingerprint({"steps": deep}) == integrity.fingerprint({"steps": _nested(SKETCH_JSON_NESTING - 2)})
    assert integrity.fingerprint(deep) != integrity.fingerprint(_nested(3))


def test_a_changed_record_that_is_no_fingerprint_is_named_by_its_type():
    assert spec._short(_nested(SKETCH_JSON_NESTING)) == "list"
    assert spec._short("0123456789abcdef") == "01234567"
    assert spec._short(None) == "none"
