"""Program counts: an exact (arbitrarily large) integer, or unbounded."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Count:
    """How many complete programs lie beneath something. `value` None means unbounded."""

    value: int | None

    @property
    def unbounded(self) -> bool:
        return self.value is None

    @property
    def finite(self) -> bool:
        return self.value is not None

    def __bool__(self) -> bool:
        return self.value is None or self.value > 0

    def __add__(self, other: "Count") -> "Count":
        if self.value is None or other.value is None:
            return UNBOUNDED
        return Count(self.value + other.value)

    def __mul__(self, other: "Count") -> "Count":
        # Zero wins over unbounded: no completion times anything is still none.
        if self.value == 0 or other.value == 0:
            return ZERO
        if self.value is None or other.value is None:
            return UNBOUNDED
        return Count(self.value * other.value)

    def __str__(self) -> str:
        return "unbounded" if self.value is None else str(self.value)

    def to_json(self) -> int | str:
        return "unbounded" if self.value is None else self.value

    @staticmethod
    def from_json(data: int | str) -> "Count":
        if data == "unbounded":
            return UNBOUNDED
        if isinstance(data, int) and not isinstance(data, bool) and data >= 0:
            return Count(data)
        raise ValueError(f"not a count: {data!r}")


ZERO = Count(0)
ONE = Count(1)
UNBOUNDED = Count(None)


def product(counts) -> Count:
    result = ONE
    for c in counts:
        result = result * c
        if result.value == 0:
            return ZERO
    return result


def total(counts) -> Count:
    result = ZERO
    for c in counts:
        result = result + c
    return result
