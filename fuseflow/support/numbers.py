"""One number format for every screen: whole figures with thousands separators below 10**9
(85,631,509), then three significant digits and an exponent without `+` (1.23e12); fractions
below 100 keep three significant digits (0.5, 2.12). Counts of any size go through Decimal
(a count of completions can have hundreds of digits), so no digit string is ever cut."""

from __future__ import annotations

import math
from decimal import Decimal

#: figures from here on take the exponent form
EXPONENT_FROM = 10 ** 9


def figure(value: float | int) -> str:
    """`value` in the one format (see the module)."""
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if abs(value) >= EXPONENT_FROM:
        mantissa, exponent = format(Decimal(value), ".2e").split("e")
        mantissa = mantissa.rstrip("0").rstrip(".")
        return f"{mantissa}e{int(exponent)}"
    if isinstance(value, int) or float(value).is_integer() or abs(value) >= 100:
        return f"{round(value):,}"
    text = f"{value:.3g}"
    if "e" in text:   # a small fraction (1e-05)
        mantissa, exponent = text.split("e")
        text = f"{mantissa}e{int(exponent)}"
    return text
