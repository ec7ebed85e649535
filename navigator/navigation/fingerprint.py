"""Content hashes: what a saved session keeps of the texts its space was made from (program,
library, facts), to notice when one of them changed."""

from __future__ import annotations

import hashlib


def content_hash(text: str) -> str:
    """The first 16 hex digits of the SHA-256 of the text's UTF-8 bytes."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]
