"""The model's answer: tolerant parsing and exact validation against the offered ids."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from navigator.llm.answer import ANSWER_SCHEMA, AnswerError, clean_text, parse_answer, validate

#: ?3 offers 3 options, ?5 offers 2
OFFERED = {"3.1": (3, "a"), "3.2": (3, "b"), "3.3": (3, "c"), "5.1": (5, "x"), "5.2": (5, "y")}
HOLES = (3, 5)
GOOD = {"proposals": [{"rank": 2, "choices": ["3.2", "5.1"], "rationale": "second", "score": 0.5,
                       "estimated_intensity": 1.0, "fusion_groups": []},
                      {"rank": 1, "choices": ["3.3"], "rationale": "first", "score": 0.9,
                       "estimated_intensity": 2.0, "fusion_groups": [{"ops": ["a"], "order": "i j"}]}]}


def _check(text: str, finish_reason: str | None = "stop"):
    return validate(parse_answer(text, finish_reason), OFFERED, HOLES)


@pytest.mark.parametrize("text", [
    json.dumps(GOOD),
    "Here is my plan:\n```json\n" + json.dumps(GOOD, indent=2) + "\n```\nGood luck.",
    "```\n" + json.dumps(GOOD) + "\n```",
    "I think " + json.dumps(GOOD) + " is best.",
    json.dumps(GOOD["proposals"]),
])
def test_plain_fenced_prose_and_bare_list_answers_are_read(text):
    checked = _check(text)
    assert checked.errors == []
    assert [p.rank for p in checked.proposals] == [1, 2]  # sorted by rank
    assert checked.proposals[0].choices == ((3, "c"),)
    assert checked.proposals[1].choices == ((3, "b"), (5, "x"))
    assert checked.proposals[0].fusion_groups == ({"ops": ["a"], "order": "i j"},)


@pytest.mark.parametrize("choices, message", [
    (["3.9"], "?3 has no option 9 (its options are 3.1 to 3.3)"),
    (["7.1"], "'7.1' is an option of ?7, which was not asked (asked: ?3, ?5)"),
    (["fuse"], "'fuse' is not an option id"),
    (["3.1", "3.2"], "?3 is named twice ('3.1' and '3.2')"),
    ([], "chooses nothing"),
    ("3.1", '"choices" must be a list of option ids'),
])
def test_every_violation_is_named_exactly(choices, message):
    checked = _check(json.dumps({"proposals": [{"rank": 1, "choices": choices, "rationale": "r"}]}))
    assert checked.proposals == []
    assert any(message in error for error in checked.errors), checked.errors
    assert all(error.startswith("proposal 1") for error in checked.errors)


def test_valid_proposals_survive_beside_invalid_ones():
    answer = {"proposals": [{"rank": 1, "choices": ["9.9"]}, {"rank": 2, "choices": ["?5.2"]}]}
    checked = _check(json.dumps(answer))
    assert [p.ids for p in checked.proposals] == [("5.2",)]
    assert len(checked.errors) == 1 and checked.errors[0].startswith("proposal 1")


@pytest.mark.parametrize("text, finish, message", [
    ('{"proposals": [{"rank": 1, "choices": ["3.1"', "length", "cut off at the token limit"),
    ("{proposals: [", "stop", "not JSON"),
    ("", "stop", "an empty answer"),
    ('{"plans": []}', "stop", 'no "proposals" list'),
    ('{"proposals": []}', "stop", "is empty"),
])
def test_unreadable_answers_say_why(text, finish, message):
    with pytest.raises(AnswerError, match=message):
        parse_answer(text, finish)


def test_hostile_text_is_made_safe_to_store_and_print():
    rationale = "fast\x1b[31m\nred\ud800" + "x" * 5000
    checked = _check(json.dumps({"proposals": [{"rank": 1, "choices": ["3.1"], "rationale": rationale}]}))
    said = checked.proposals[0].rationale
    assert "\x1b" not in said and "\n" not in said and "\ud800" not in said
    assert len(said) <= 1000
    said.encode("utf-8")  # valid UTF-8: a session file can hold it


def test_the_schema_is_strict():
    """Servers with strict structured output need every property required and no extras."""
    item = ANSWER_SCHEMA["properties"]["proposals"]["items"]
    assert set(item["required"]) == set(item["properties"]) and item["additionalProperties"] is False
    assert ANSWER_SCHEMA["additionalProperties"] is False


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.text(max_size=300),
                 st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=8),
                              lambda inner: st.lists(inner, max_size=4)
                              | st.dictionaries(st.sampled_from(["proposals", "choices", "rank", "rationale",
                                                                 "fusion_groups", "ops", "order", "x"]),
                                                inner, max_size=4)).map(json.dumps)))
def test_any_answer_is_read_or_refused_with_a_reason(text):
    try:
        raw = parse_answer(text, "stop")
    except AnswerError as exc:
        assert str(exc)
        return
    checked = validate(raw, OFFERED, HOLES)
    for proposal in checked.proposals:
        assert all(OFFERED[i][0] == hole for i, (hole, _) in zip(proposal.ids, proposal.choices))
    assert all(isinstance(e, str) and "\n" not in e for e in checked.errors)
    assert clean_text(text, 50) == clean_text(clean_text(text, 50), 50)
