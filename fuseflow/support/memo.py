"""A memo with a bound on its entries, for facts derived from a program's op groups.

A program is analysed by asking about many groups of its ops (is this group a legal region,
what does it unify to); each answer is worth keeping, but a search over a large program can
ask about millions of groups, at about 1 KB each. The memo keeps the most recent answers and
drops the oldest past its bound, so memory stays bounded and a dropped answer is only
computed again.
"""

from __future__ import annotations

from typing import Any, Hashable

#: answers kept per memo (about 100 MB of unified regions at the most)
MAX_ENTRIES = 100_000


class BoundedMemo(dict):
    """A dict that forgets its oldest entries beyond `limit` (insertion order)."""

    def __init__(self, limit: int = MAX_ENTRIES):
        super().__init__()
        self.limit = limit

    def __setitem__(self, key: Hashable, value: Any) -> None:
        if key not in self:
            while self and len(self) >= self.limit:
                del self[next(iter(self))]
        super().__setitem__(key, value)


def named_memo(store: dict, name: str) -> BoundedMemo:
    """The memo called `name` in `store` (a program's `memo`), made on first use; never a new
    BoundedMemo per call, as `store.setdefault(name, BoundedMemo())` would build."""
    found = store.get(name)
    if found is None:
        found = store[name] = BoundedMemo()
    return found
