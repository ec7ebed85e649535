"""How many tokens a prompt is: an estimate that needs no tokenizer, and its stated error.

The estimate counts what tokenizers split on rather than characters: each run of letters is a
token per LETTERS_PER_TOKEN letters (rounded up), each digit a token (Qwen's and Llama-2's
tokenizers split numbers into digits), each other non-space character a token, plus
TEMPLATE_TOKENS per message for the chat template's markers. Characters / 4, the usual rule of
thumb, was 1.47x low on the prompts Navigator writes (3 significant digits, ids, punctuation):
961 estimated, 1,411 counted by a llama.cpp server for gcn's first question; this estimate
gives 1,420 there. It is still only an estimate: tokenizers differ by ESTIMATE_ERROR either
way, so the server's own count (`OpenAIChat.count_tokens`, when it offers a tokenizer, and
the `usage` of every answer) is what to size a context by.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence

#: letters of a word per token (long words are split into pieces)
LETTERS_PER_TOKEN = 8
#: the chat template's tokens around each message (role markers, separators)
TEMPLATE_TOKENS = 4
#: how far the estimate may be from a real tokenizer's count, either way (a fraction)
ESTIMATE_ERROR = 0.25

_PIECES = re.compile(r"[A-Za-z]+|[0-9]|[^\sA-Za-z0-9]")


def estimate_text_tokens(text: str) -> int:
    """The estimated tokens of `text` (see the module doc)."""
    count = 0
    for match in _PIECES.finditer(text):
        piece = match.group()
        count += math.ceil(len(piece) / LETTERS_PER_TOKEN) if piece[0].isascii() and piece[0].isalpha() else 1
    return count


def estimate_tokens(messages: Sequence[Mapping[str, str]]) -> int:
    """The estimated prompt tokens of chat messages, the template's markers included."""
    return sum(estimate_text_tokens(m["content"]) + TEMPLATE_TOKENS for m in messages)


def describe_estimate(tokens: int) -> str:
    """`~1,420 tokens (estimated), ±25%`: an estimate said with its error."""
    return f"~{tokens:,} tokens (estimated), \u00b1{ESTIMATE_ERROR:.0%}"
