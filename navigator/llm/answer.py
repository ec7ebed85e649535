"""The model's answer: its JSON schema, tolerant parsing, and validation against the menus.

The model answers with ranked proposals, each naming one option id per hole it fills
(`"3.2"`: option 2 of ?3, as `navigator fill ?3 2`), with a rationale, an estimated
intensity and the fusion groups it has in mind (the published proposal schema: rank, score,
estimated intensity, fusion groups with their ops and dataflow order). Servers that support
`response_format` get the schema; the others are parsed tolerantly: plain JSON, a fenced code
block, or the first JSON object inside prose.

An answer is data from outside: at most ANSWER_CHARACTERS long, its JSON spans found in one
pass over it and at most CANDIDATES of them decoded, each through the bounded JSON reader
(fuseflow.support.readers: nesting, finite numbers, integer length), so no answer costs more
than time linear in its length, and none can exhaust the recursion limit or carry NaN into a
recording. Every text kept from it goes through navigator.process.foreign_text.clean_text.

Validation names every problem exactly (an id that is not offered, an id of a hole that was
not asked, a hole named twice), so the next round can ask again with the errors.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any, Mapping

from fuseflow.support.errors import UserError
from fuseflow.support.readers import parse_json_text
from navigator.process.foreign_text import clean_text

#: one option id: hole number, a dot, the option's number in that hole's menu
OPTION_ID = re.compile(r"^\??(\d+)\.(\d+)$")
SCHEMA_NAME = "navigator_proposals"
#: proposals read from one answer at most (a model that lists more is cut, and told)
MAX_PROPOSALS = 16
#: characters of an answer quoted in an error
QUOTE = 120
#: what is kept of a rationale, an op name or an order (the rest of a runaway answer is cut)
RATIONALE_CHARACTERS, NAME_CHARACTERS, MAX_GROUPS = 1000, 100, 64
#: characters of an answer read at most: 16 proposals with long rationales take ~25,000; a longer
#: answer is refused before it is parsed (and parsing is linear in the length anyway)
ANSWER_CHARACTERS = 500_000
#: JSON spans of one answer decoded at most (the whole text first, then the spans in prose)
CANDIDATES = 16
#: a rank or a number further from 0 than this is not one a model meant
LARGEST = 1e15

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
    if len(text) > ANSWER_CHARACTERS:
        raise AnswerError(f"the answer is {len(text):,} characters long, more than the {ANSWER_CHARACTERS:,} "
                          "Navigator reads: answer with fewer proposals and shorter rationales")
    if finish_reason == "length" and not _outer_json_ends(text):
        raise AnswerError("the answer was cut off at the token limit (finish_reason \"length\") before its "
                          "JSON ended: answer with fewer proposals and shorter rationales")
    document, problem = _json_of(text)
    if document is None:
        if problem is not None:
            raise AnswerError(f"the answer's JSON {problem}: answer with the JSON object asked for, its numbers "
                              "finite and short, nested no deeper than the schema")
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
        rank=_rank(rank, position),
        choices=tuple((hole, option) for hole, (_, option) in sorted(chosen.items())),
        ids=tuple(normalized for _, (normalized, _) in sorted(chosen.items())),
        rationale=clean_text(item.get("rationale"), RATIONALE_CHARACTERS),
        score=_number(item.get("score")),
        estimated_intensity=_number(item.get("estimated_intensity")),
        fusion_groups=_groups(item.get("fusion_groups")))


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


_NAMES_PROPOSALS = re.compile(r'"(?:proposals|choices)"')


class _Unreadable(UserError):
    """A JSON span of an answer that the bounded reader refuses."""


def _json_of(text: str) -> tuple[Any, str | None]:
    """The JSON an answer holds: the whole text, else the first of its JSON spans (a fenced
    block's, or an object or list inside prose) that holds proposals; with the reader's
    complaint about a span that looked like the answer but could not be read, if any."""
    stripped = text.strip()
    problem = None
    for attempt, (start, end) in enumerate(_candidates(stripped)):
        if attempt >= CANDIDATES:
            break
        try:
            value = parse_json_text(stripped[start:end], "the answer", _Unreadable, "an answer", surrogates=True)
        except _Unreadable as exc:
            if problem is None and not exc.bare_message.startswith("invalid JSON"):
                problem = exc.bare_message  # deep nesting, NaN, a huge number, a key twice: say so
            continue
        if attempt == 0 and (start, end) == (0, len(stripped)) or _holds_proposals(value):
            return value, None
    return None, problem


def _holds_proposals(value: Any) -> bool:
    return isinstance(value, dict) and ("proposals" in value or "choices" in value) \
        or isinstance(value, list) and bool(value)


def _candidates(text: str):
    """(start, end) of the whole text, then of the outermost balanced {...} and [...] in it
    that name "proposals" or "choices", in order. Two passes find them: one that skips the
    strings inside brackets (a "]" in a rationale), one that ignores quotes (a stray '"' in the
    prose before the JSON); each is linear, and so is looking into the disjoint spans it gives."""
    yield 0, len(text)
    if _NAMES_PROPOSALS.search(text) is None:  # no span can name them: nothing to scan for
        return
    seen = {(0, len(text))}
    for strings in (True, False):
        for start, end in _outermost_spans(text, strings):
            if (start, end) not in seen and _NAMES_PROPOSALS.search(text, start, end):
                seen.add((start, end))
                yield start, end


_BRACKET_OR_QUOTE = re.compile(r'[\[\]{}"]')
_BRACKET = re.compile(r"[\[\]{}]")
#: what ends a JSON string or escapes the next character
_QUOTE_OR_ESCAPE = re.compile(r'["\\]')
_CLOSING = {"{": "}", "[": "]"}


def _string_end(text: str, start: int) -> int | None:
    """Where the JSON string whose characters begin at `start` ends (after its closing quote),
    or None if it never does; one pass, each escape skipping the character after it."""
    position = start
    while (match := _QUOTE_OR_ESCAPE.search(text, position)) is not None:
        if match.group() == '"':
            return match.end()
        position = match.end() + 1
    return None


def _outermost_spans(text: str, strings: bool) -> list[tuple[int, int]]:
    """The outermost balanced bracket spans of `text`, in one pass (strings inside brackets
    skipped whole when `strings`); a mismatched bracket drops what is open, and quotes outside
    brackets are prose."""
    spans: list[tuple[int, int]] = []
    stack: list[tuple[str, int]] = []
    special = _BRACKET_OR_QUOTE if strings else _BRACKET
    position = 0  # where the text after a skipped string resumes
    for match in special.finditer(text):
        index = match.start()
        if index < position:
            continue
        char = match.group()
        if char in _CLOSING:
            stack.append((_CLOSING[char], index))
        elif not stack:
            continue
        elif char == '"':
            end = _string_end(text, index + 1)
            if end is None:  # a string that never ends: nothing after it closes
                break
            position = end
        else:
            expected, start = stack.pop()
            if char != expected:
                stack.clear()  # prose, not JSON: start afresh after it
                continue
            while spans and spans[-1][0] > start:  # spans inside this one give way to it
                spans.pop()
            spans.append((start, index + 1))
    return spans


def _outer_json_ends(text: str) -> bool:
    """Whether the answer's first JSON value (bare, or in a fenced block) is complete: its
    first bracket opens one of the outermost balanced spans (one linear pass)."""
    stripped = text.strip()
    first = _FIRST_BRACKET.search(stripped)
    if first is None:
        return False
    return any(start == first.start() for start, _ in _outermost_spans(stripped, True))


_FIRST_BRACKET = re.compile(r"[\[{]")


def _number(value: Any) -> float | None:
    """A finite number of a sensible size, or None (a bool, a string, 10**400)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    if isinstance(value, int) and abs(value) > LARGEST:
        return None
    number = float(value)
    return number if math.isfinite(number) and abs(number) <= LARGEST else None


def _rank(value: Any, position: int) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and abs(value) <= LARGEST else position


def _holes(holes: set[int]) -> str:
    return ", ".join(f"?{h}" for h in sorted(holes))


def _quote(text: str) -> str:
    flat = clean_text(text, QUOTE)
    return repr(flat) if flat else "an empty answer"
