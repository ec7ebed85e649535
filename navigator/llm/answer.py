"""The model's answer: its JSON schema, tolerant parsing, and validation against the menus.

The model answers with ranked proposals, each naming one option id per hole it fills
(`"3.2"`: option 2 of ?3, as `navigator fill ?3 2`), with a rationale, an estimated
intensity and the fusion groups it has in mind (the published proposal schema: rank, score,
estimated intensity, fusion groups with their ops and dataflow order). Servers that support
`response_format` get the schema; the others are parsed tolerantly: plain JSON, a fenced code
block, or the first JSON object inside prose.

Validation names every problem exactly (an id that is not offered, an id of a hole that was
not asked, a hole named twice), so the next round can ask again with the errors.
"""

from __future__ import annotations

import json
import re
import unicodedata
from dataclasses import dataclass, field
from typing import Any, Mapping

#: one option id: hole number, a dot, the option's number in that hole's menu
OPTION_ID = re.compile(r"^\??(\d+)\.(\d+)$")
SCHEMA_NAME = "navigator_proposals"
#: proposals read from one answer at most (a model that lists more is cut, and told)
MAX_PROPOSALS = 16
#: characters of an answer quoted in an error
QUOTE = 120
#: what is kept of a rationale, an op name or an order (the rest of a runaway answer is cut)
RATIONALE_CHARACTERS, NAME_CHARACTERS, MAX_GROUPS = 1000, 100, 64

ANSWER_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "proposals": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "rank": {"type": "integer", "description": "1 is the proposal you expect to be fastest"},
                    "choices": {"type": "array", "items": {"type": "string"},
                                "description": "one option id per hole you fill, e.g. \"3.2\""},
                    "rationale": {"type": "string", "description": "why, in one or two sentences"},
                    "score": {"type": "number", "description": "your confidence, 0 to 1"},
                    "estimated_intensity": {"type": "number",
                                            "description": "FLOPs per DRAM byte you expect"},
                    "fusion_groups": {
                        "type": "array",
                        "items": {"type": "object",
                                  "properties": {"ops": {"type": "array", "items": {"type": "string"}},
                                                 "order": {"type": "string"}},
                                  "required": ["ops", "order"], "additionalProperties": False}},
                },
                "required": ["rank", "choices", "rationale", "score", "estimated_intensity", "fusion_groups"],
                "additionalProperties": False,
            },
        },
    },
    "required": ["proposals"],
    "additionalProperties": False,
}


class AnswerError(Exception):
    """The answer cannot be read at all (not JSON, cut off, no proposals); the message is what
    the next round tells the model."""


@dataclass(frozen=True)
class Proposal:
    """One valid proposal: the options it takes, hole by hole, and what the model said."""

    rank: int
    choices: tuple[tuple[int, str], ...]     # (hole, session option id), holes ascending
    ids: tuple[str, ...]                      # the ids as the model gave them, normalized
    rationale: str
    score: float | None = None
    estimated_intensity: float | None = None
    fusion_groups: tuple[dict, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"rank": self.rank, "choices": list(self.ids), "rationale": self.rationale, "score": self.score,
                "estimated_intensity": self.estimated_intensity, "fusion_groups": list(self.fusion_groups)}


@dataclass
class Validated:
    """What one answer gave: its valid proposals and an exact error per problem."""

    proposals: list[Proposal] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


def parse_answer(text: str, finish_reason: str | None = None) -> list[Any]:
    """The raw proposals of an answer (a list of whatever the model wrote for each).

    An answer cut at the token limit whose outermost JSON did not end is reported as cut off,
    not read for the lists inside it (a cut `{"proposals": [{"choices": ["1.2"], ...` would
    otherwise be taken for the list ["1.2"])."""
    if finish_reason == "length" and not _outer_json_ends(text):
        raise AnswerError("the answer was cut off at the token limit (finish_reason \"length\") before its "
                          "JSON ended: answer with fewer proposals and shorter rationales")
    document = _json_of(text)
    if document is None:
        raise AnswerError(f"the answer is not JSON (nor a fenced JSON block, nor a JSON object in the text): "
                          f"{_quote(text)}")
    if isinstance(document, list):
        proposals = document
    elif isinstance(document, dict) and isinstance(document.get("proposals"), list):
        proposals = document["proposals"]
    elif isinstance(document, dict) and "choices" in document:
        proposals = [document]
    else:
        raise AnswerError('the answer\'s JSON has no "proposals" list: answer {"proposals": [...]}')
    if not proposals:
        raise AnswerError('the "proposals" list is empty: give at least one proposal')
    return proposals


def validate(raw: list[Any], offered: Mapping[str, tuple[int, str]], holes: tuple[int, ...]) -> Validated:
    """Check every raw proposal against the ids offered for `holes` (`offered`: id ->
    (hole, session option id), every offered option, listed in the prompt or not)."""
    result = Validated()
    asked = set(holes)
    if len(raw) > MAX_PROPOSALS:
        result.errors.append(f"{len(raw)} proposals is too many: only the first {MAX_PROPOSALS} were read")
        raw = raw[:MAX_PROPOSALS]
    for position, item in enumerate(raw, start=1):
        problems: list[str] = []
        proposal = _proposal(item, position, offered, asked, problems)
        if problems:
            result.errors.extend(problems)
        elif proposal is not None:
            result.proposals.append(proposal)
    result.proposals.sort(key=lambda p: p.rank)
    return result


def _proposal(item: Any, position: int, offered: Mapping[str, tuple[int, str]], asked: set[int],
              problems: list[str]) -> Proposal | None:
    where = f"proposal {position}"
    if not isinstance(item, dict):
        problems.append(f"{where} is not a JSON object")
        return None
    ids = _ids(item.get("choices"), where, problems)
    if ids is None:
        return None
    chosen: dict[int, tuple[str, str]] = {}
    for given in ids:
        match = OPTION_ID.match(given)
        if match is None:
            problems.append(f"{where}: {given!r} is not an option id (ids look like \"3.2\": option 2 of ?3)")
            continue
        normalized = f"{int(match.group(1))}.{int(match.group(2))}"
        hole = int(match.group(1))
        if hole not in asked:
            problems.append(f"{where}: {given!r} is an option of ?{hole}, which was not asked "
                            f"(asked: {_holes(asked)})")
            continue
        if normalized not in offered:
            count = sum(1 for h, _ in offered.values() if h == hole)
            problems.append(f"{where}: ?{hole} has no option {match.group(2)} (its options are {hole}.1 to "
                            f"{hole}.{count})")
            continue
        if hole in chosen:
            problems.append(f"{where}: ?{hole} is named twice ({chosen[hole][0]!r} and {given!r}); name one option "
                            "per hole")
            continue
        chosen[hole] = (normalized, offered[normalized][1])
    if not chosen and not problems:
        problems.append(f"{where} chooses nothing: name one option id for at least one asked hole")
    if problems:
        return None
    rank = item.get("rank")
    return Proposal(
        rank=rank if isinstance(rank, int) and not isinstance(rank, bool) else position,
        choices=tuple((hole, option) for hole, (_, option) in sorted(chosen.items())),
        ids=tuple(normalized for _, (normalized, _) in sorted(chosen.items())),
        rationale=clean_text(item.get("rationale"), RATIONALE_CHARACTERS),
        score=_number(item.get("score")),
        estimated_intensity=_number(item.get("estimated_intensity")),
        fusion_groups=_groups(item.get("fusion_groups")))


def clean_text(value: Any, limit: int) -> str:
    """A model's text made safe to store and print: one line, no control characters or lone
    surrogates (a session file must stay valid UTF-8), at most `limit` characters."""
    if not isinstance(value, str):
        return ""
    kept = "".join(" " if unicodedata.category(c) in ("Cc", "Cs", "Zl", "Zp") else c for c in value)
    flat = " ".join(kept.split())
    return flat if len(flat) <= limit else flat[:limit - 3] + "..."


def _groups(value: Any) -> tuple[dict, ...]:
    """The fusion groups the model had in mind, as plain names (kept for the record only)."""
    if not isinstance(value, list):
        return ()
    groups = []
    for group in value[:MAX_GROUPS]:
        if isinstance(group, dict):
            ops = group.get("ops") if isinstance(group.get("ops"), list) else []
            groups.append({"ops": [clean_text(op, NAME_CHARACTERS) for op in ops[:MAX_GROUPS] if isinstance(op, str)],
                           "order": clean_text(group.get("order"), NAME_CHARACTERS)})
    return tuple(groups)


def _ids(choices: Any, where: str, problems: list[str]) -> list[str] | None:
    """The ids a proposal names: a list of ids, or a {hole: id} object."""
    if isinstance(choices, dict):
        choices = list(choices.values())
    if not isinstance(choices, list) or not all(isinstance(c, (str, int, float)) for c in choices):
        problems.append(f'{where}: "choices" must be a list of option ids such as ["3.2"]')
        return None
    return [clean_text(str(c), NAME_CHARACTERS) for c in choices[:MAX_GROUPS]]


def _json_of(text: str) -> Any:
    """The JSON an answer holds: the whole text, a fenced block, or the first object in it."""
    stripped = text.strip()
    for candidate in (stripped, *_fenced(stripped)):
        try:
            return json.loads(candidate)
        except ValueError:
            continue
    decoder = json.JSONDecoder()
    for match in re.finditer(r"[\[{]", stripped):
        try:
            value, _ = decoder.raw_decode(stripped, match.start())
        except ValueError:
            continue
        if isinstance(value, dict) and ("proposals" in value or "choices" in value) or isinstance(value, list) and value:
            return value
    return None


def _outer_json_ends(text: str) -> bool:
    """Whether the answer's first JSON value (or a fenced block) is complete."""
    stripped = text.strip()
    for block in _fenced(stripped):
        try:
            json.loads(block)
            return True
        except ValueError:
            continue
    first = re.search(r"[\[{]", stripped)
    if first is None:
        return False
    try:
        json.JSONDecoder().raw_decode(stripped, first.start())
    except ValueError:
        return False
    return True


def _fenced(text: str) -> list[str]:
    return [block.strip() for block in re.findall(r"```[A-Za-z0-9_-]*\s*\n(.*?)```", text, flags=re.S)]


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _holes(holes: set[int]) -> str:
    return ", ".join(f"?{h}" for h in sorted(holes))


def _quote(text: str) -> str:
    flat = clean_text(text, QUOTE)
    return repr(flat) if flat else "an empty answer"
