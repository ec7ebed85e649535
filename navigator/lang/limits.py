"""The size limits of libraries and fact programs, in one place (docs/formula-language.md#limits).

Each limit keeps a later computation bounded rather than guarding one input: Int values are
signed 64-bit, as TOML and Honeybee read them (Python would accept integers of any length
and spend its time printing, hashing and comparing them); a function takes at most
MAX_PARAMS parameters (each step on a function's hole re-solves its condition with the
filled parameters given, so every step costs time in proportion to the arity); and a
condition's plan is compiled in time proportional to its fields and parameters times its
formulas, which MAX_FIELDS and MAX_FORMULAS bound.
"""

from __future__ import annotations

#: Int values (literals, facts, goals, default marks) are signed 64-bit integers
INT_MIN = -(1 << 63)
INT_MAX = (1 << 63) - 1
#: parameters of one function
MAX_PARAMS = 64
#: fields of one Type or Prop
MAX_FIELDS = 256
#: formulas in one function's condition
MAX_FORMULAS = 1024


def int_in_range(value: int) -> bool:
    return INT_MIN <= value <= INT_MAX


def int_range_problem(value: int) -> str | None:
    """Why an Int value cannot be used, or None."""
    if int_in_range(value):
        return None
    # Not printed: str() refuses integers of over 4,300 digits.
    digits = int(value.bit_length() * 0.30103) + 1
    return f"an integer of about {digits} digits is outside the 64-bit range of Int values"
