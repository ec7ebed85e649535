"""A memory budget: estimate what an allocation needs before making it, and refuse it
with the sizes and the fix when it does not fit.

A graph file can declare sizes far beyond the bytes it holds (a 76-byte Matrix Market
header saying 200,000,000 x 200,000,000), and `--dim J=10^12` asks for a dense tensor of
petabytes. Allocating first and catching MemoryError is too late: the machine may swap
or the kernel may kill the process. So code that allocates in proportion to a size it
read calls `check_memory(bytes, what, where)` first.

The limit is `--max-memory` (any command), else $NAVIGATOR_MAX_MEMORY, else half of the
memory available when the check runs.
"""

from __future__ import annotations

import os
import re

from fuseflow.support.errors import UserError
from fuseflow.support.files import format_size

MAX_MEMORY_ENV = "NAVIGATOR_MAX_MEMORY"
#: the share of available memory a single allocation plan may use by default
DEFAULT_SHARE = 0.5

_limit: int | None = None  # set by --max-memory


class ResourceError(UserError):
    """A computation would need more memory (or time) than it is allowed."""


_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([kmgtp]?)(i?b?)\s*$", re.I)
_UNITS = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40, "p": 1 << 50}


def parse_size(text: str, where: str = "--max-memory") -> int:
    """'512M', '4G', '1.5GiB', '1000000' (bytes) -> bytes; units are powers of 1024."""
    match = _SIZE.match(text or "")
    if not match or (match.group(3) and match.group(3).lower() == "i"):
        raise UserError(f"cannot read the size {text!r}", where=where,
                        fix="write a number of bytes with an optional unit, e.g. 512M, 4G or 1.5GiB")
    value = float(match.group(1)) * _UNITS[match.group(2).lower()]
    if value < 1 << 20:
        raise UserError(f"{text!r} is less than 1 MiB", where=where, fix="give at least 1M")
    return int(value)


def set_max_memory(limit: int | None) -> None:
    """Set (or with None, reset) the limit for this process and the workers it forks."""
    global _limit
    _limit = limit


def available_memory() -> int | None:
    """Bytes the system could give us now (MemAvailable), or None when unknown."""
    try:
        with open("/proc/meminfo", encoding="ascii") as handle:
            for line in handle:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None


def max_memory() -> tuple[int, str]:
    """The limit in bytes, and where it comes from (for messages)."""
    if _limit is not None:
        return _limit, "--max-memory"
    env = os.environ.get(MAX_MEMORY_ENV)
    if env:
        return parse_size(env, f"${MAX_MEMORY_ENV}"), f"${MAX_MEMORY_ENV}"
    available = available_memory()
    if available is None:
        return 8 << 30, "the default"
    return int(available * DEFAULT_SHARE), "half the memory available now"


def check_memory(needed: float, what: str, where: str | None = None, fix: str | None = None) -> None:
    """Refuse, before allocating, anything estimated to need more than the limit."""
    limit, source = max_memory()
    if needed <= limit:
        return
    advice = fix or "use smaller sizes (--dim, a smaller graph)"
    raise ResourceError(f"{what} would need about {format_size(needed)}, more than the {format_size(limit)} "
                        f"allowed ({source})", where=where,
                        fix=f"{advice}, or raise the limit with --max-memory if the machine has the memory")
