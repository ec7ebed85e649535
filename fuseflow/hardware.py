"""Hardware description: a TOML file whose keys override the documented defaults."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, fields
from importlib import resources
from pathlib import Path

from fuseflow.files import read_user_text
from fuseflow.readers import parse_toml_text
from fuseflow.errors import HardwareError


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
    source: str = "default"

    @property
    def ridge_intensity(self) -> float:
        """Operational intensity (ops/byte) where the roofline turns from memory- to compute-bound."""
        return self.peak_ops_per_cycle / self.memory_bytes_per_cycle

    def roofline_class(self, intensity: float) -> str:
        return "compute-bound" if intensity >= self.ridge_intensity else "memory-bound"


def operational_intensity(flops: float, bytes_: float) -> float:
    return flops / bytes_ if bytes_ else float("inf")


_INT_KEYS = {"lanes", "onchip_buffer_bytes", "value_bytes", "index_bytes", "block_size", "pipeline_fill_cycles"}


def _defaults_text() -> str:
    return resources.files("fuseflow").joinpath("hardware.toml").read_text(encoding="utf-8")


def load_hardware(path: str | Path | None = None) -> Hardware:
    """The default hardware, with the keys of `path` (if given) overriding it."""
    values = tomllib.loads(_defaults_text())
    source = "default"
    if path is not None:
        where = str(path)
        text = read_user_text(path, HardwareError, "a hardware .toml file")
        user = parse_toml_text(text, where, HardwareError, "a hardware .toml file")
        known = {f.name for f in fields(Hardware)} - {"source"}
        for key, value in user.items():
            if key not in known:
                raise HardwareError(f"unknown key {key!r}", where=f"{where} [{key}]",
                                    fix=f"expected one of: {', '.join(sorted(known))}")
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise HardwareError(f"must be a number, got {value!r}", where=f"{where} [{key}]")
            if key in _INT_KEYS and not isinstance(value, int):
                raise HardwareError(f"must be an integer, got {value!r}", where=f"{where} [{key}]")
            if value <= 0 and key != "pipeline_fill_cycles" or value < 0:
                raise HardwareError(f"must be positive, got {value!r}", where=f"{where} [{key}]")
        values.update(user)
        source = where
    return Hardware(**values, source=source)
