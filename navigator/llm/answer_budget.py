"""How long an answer may be: the schema of one question, bounded, and the tokens it may take.

A model that never closes a string, or lists fusion groups forever, must stop well before the
end of its context. So the schema sent for a question bounds every string (maxLength) and
every list (maxItems: the proposals asked, one choice per asked hole, a few fusion groups),
which grammar-constrained servers (llama.cpp) enforce, and every request carries `max_tokens`,
by default sized from that schema (`answer_tokens`), which every server enforces. A cut answer
(finish_reason "length") is sent back saying so.
"""

from __future__ import annotations

import copy
import math
from typing import Any

from navigator.llm.answer import ANSWER_SCHEMA

#: the longest rationale asked for (the answer keeps up to answer.RATIONALE_CHARACTERS)
RATIONALE_LENGTH = 300
#: an op name or a loop order in a fusion group
NAME_LENGTH = 32
#: fusion groups per proposal, ops per group (they are for the record: the ids are what counts)
GROUPS, OPS_PER_GROUP = 3, 6
#: characters per token of the answer's strings, counted low so the budget is not short
STRING_CHARACTERS_PER_TOKEN = 3
#: tokens of a number (digits, a sign, a point) and of the JSON around a value (quotes, key, comma)
NUMBER_TOKENS, KEY_TOKENS = 6, 4
#: tokens on top, for whitespace and a model's preamble
SLACK_TOKENS = 64


def question_schema(holes: int, proposals: int) -> dict[str, Any]:
    """The answer schema of a question about `holes` holes, asking `proposals` proposals,
    with every string and list bounded."""
    schema = copy.deepcopy(ANSWER_SCHEMA)
    listed = schema["properties"]["proposals"]
    listed.update(minItems=1, maxItems=max(1, proposals))
    item = listed["items"]["properties"]
    item["choices"].update(minItems=1, maxItems=max(1, holes))
    item["choices"]["items"]["maxLength"] = 12  # "123.456"
    item["rationale"]["maxLength"] = RATIONALE_LENGTH
    groups = item["fusion_groups"]
    groups["maxItems"] = GROUPS
    group = groups["items"]["properties"]
    group["ops"].update(maxItems=OPS_PER_GROUP)
    group["ops"]["items"]["maxLength"] = NAME_LENGTH
    group["order"]["maxLength"] = NAME_LENGTH
    return schema


def answer_tokens(schema: dict[str, Any]) -> int:
    """The tokens of the longest answer `schema` allows (strings and lists at their bounds),
    plus slack: the default `max_tokens` of a question. An unbounded string or list counts
    as 64 characters or 8 items."""
    return _tokens(schema) + SLACK_TOKENS


def _tokens(schema: dict[str, Any]) -> int:
    kind = schema.get("type")
    if kind == "object":
        return 2 + sum(KEY_TOKENS + _tokens(value) for value in schema.get("properties", {}).values())
    if kind == "array":
        return 2 + schema.get("maxItems", 8) * (1 + _tokens(schema.get("items", {})))
    if kind == "string":
        return 2 + math.ceil(schema.get("maxLength", 64) / STRING_CHARACTERS_PER_TOKEN)
    return NUMBER_TOKENS
