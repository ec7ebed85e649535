"""Hardware description: a TOML file whose keys override the documented defaults."""

from __future__ import annotations

import math
import re
import tomllib
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import NoReturn

from fuseflow.support.errors import HardwareError, show_value
from fuseflow.support.files import read_user_text
from fuseflow.support.readers import parse_toml_text


@dataclass(frozen=True)
class Hardware:
    clock_ghz: float
    peak_ops_per_cycle: float
    memory_bytes_per_cycle: float
    lanes: int
    onchip_buffer_bytes: int
    value_bytes: int
    index_bytes: int
    block_size: int
    pipeline_fill_cycles: int
    queue_depth: int
    dram_line_bytes: int
    dram_latency_cycles: int
    source: str = "default"

    @property
    def ridge_intensity(self) -> float:
        """Operational intensity (ops/byte) where the roofline turns from memory- to compute-bound."""
        return self.peak_ops_per_cycle / self.memory_bytes_per_cycle


def operational_intensity(flops: float, bytes_: float) -> float:
    return flops / bytes_ if bytes_ else float("inf")


_INT_KEYS = {"lanes", "onchip_buffer_bytes", "value_bytes", "index_bytes", "block_size", "pipeline_fill_cycles",
             "queue_depth", "dram_line_bytes", "dram_latency_cycles"}

#: The range of each key. Beyond these, a value is a typo, and would make the simulator
#: allocate per lane or per block element, or the cost model's figures overflow.
LARGEST = 2**40
RANGES: dict[str, tuple[float, float]] = {
    "clock_ghz": (1e-6, LARGEST),
    "peak_ops_per_cycle": (1e-6, LARGEST),
    "memory_bytes_per_cycle": (1e-6, LARGEST),
    "lanes": (1, 4096),
    "onchip_buffer_bytes": (1, LARGEST),
    "value_bytes": (1, 64),
    "index_bytes": (1, 64),
    "block_size": (1, 4096),
    "pipeline_fill_cycles": (0, LARGEST),
    "queue_depth": (0, 4096),
    "dram_line_bytes": (1, 4096),
    "dram_latency_cycles": (0, 1_000_000),
}


def _defaults_text() -> str:
    return resources.files("fuseflow.cost").joinpath("hardware.toml").read_text(encoding="utf-8")


def load_hardware(path: str | Path | None = None) -> Hardware:
    """The default hardware, with the keys of `path` (if given) overriding it."""
    values = tomllib.loads(_defaults_text())
    source = "default"
    if path is not None:
        where = str(path)
        text = read_user_text(path, HardwareError, "a hardware .toml file")
        user = parse_toml_text(text, where, HardwareError, "a hardware .toml file")

        def fail(key: str, message: str, fix: str) -> NoReturn:
            label = key if re.fullmatch(r"[A-Za-z0-9_-]{1,40}", key) else show_value(key)
            raise HardwareError(message, where=f"{where} [{label}]", fix=fix)

        for key, value in user.items():
            if key not in RANGES:
                fail(key, f"unknown key {show_value(key)}", f"expected one of: {', '.join(sorted(RANGES))}")
            low, high = RANGES[key]
            example = f"e.g. {key} = {values[key]}"
            # TOML allows nan and inf; neither is a size or a rate.
            if isinstance(value, bool) or not isinstance(value, (int, float)) or \
                    isinstance(value, float) and not math.isfinite(value):
                fail(key, f"must be a number, got {show_value(value)}", example)
            if key in _INT_KEYS and not isinstance(value, int):
                fail(key, f"must be a whole number, got {show_value(value)}", example)
            if not low <= value <= high:
                fail(key, f"must be from {low:g} to {high:g}, got {show_value(value)}",
                     f"the default is {values[key]}; see docs/cost-model.md")
        values.update(user)
        source = where
    return Hardware(**values, source=source)
