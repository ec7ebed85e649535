"""Hardware .toml files: every error names the file and key and says how to fix it (exit 2)."""

import ast
from dataclasses import fields
from pathlib import Path

import pytest

import fuseflow.cost.hardware
from fuseflow.support.errors import HardwareError
from fuseflow.cost.hardware import RANGES, Hardware, load_hardware

BAD_HARDWARE = [
    ("unknown key", "bogus = 1", "[bogus]: unknown key 'bogus'"),
    ("unknown table", "[lanes_per_region]\nx = 1", "[lanes_per_region]: unknown key"),
    ("key with a newline", '"a\\nb" = 1', "['a\\nb']: unknown key"),
    ("string", "lanes = 'many'", "[lanes]: must be a number, got 'many'"),
    ("boolean", "lanes = true", "[lanes]: must be a number, got True"),
    ("nan", "clock_ghz = nan", "[clock_ghz]: must be a number, got nan"),
    ("inf", "peak_ops_per_cycle = inf", "[peak_ops_per_cycle]: must be a number, got inf"),
    ("fraction for a count", "lanes = 2.5", "[lanes]: must be a whole number, got 2.5"),
    ("zero", "memory_bytes_per_cycle = 0", "[memory_bytes_per_cycle]: must be from 1e-06"),
    ("negative", "pipeline_fill_cycles = -1", "[pipeline_fill_cycles]: must be from 0"),
    ("huge", f"lanes = {10**400}", "[lanes]: must be from 1 to 4096"),
    ("huge block", "block_size = 100000", "[block_size]: must be from 1 to 4096"),
    ("zero line", "dram_line_bytes = 0", "[dram_line_bytes]: must be from 1 to 4096, got 0"),
    ("fractional latency", "dram_latency_cycles = 0.5", "[dram_latency_cycles]: must be a whole number, got 0.5"),
]


@pytest.mark.parametrize("description,text,fragment", BAD_HARDWARE, ids=[b[0] for b in BAD_HARDWARE])
def test_bad_hardware_message(tmp_path, description, text, fragment):
    path = tmp_path / "hw.toml"
    path.write_text(text + "\n")
    with pytest.raises(HardwareError) as info:
        load_hardware(path)
    message = str(info.value)
    assert fragment in message and message.startswith(str(path)), message
    assert info.value.fix and "\n" not in message


def test_every_hardware_error_is_driven(tmp_path):
    source = str(Path(fuseflow.cost.hardware.__file__))
    reached = set()
    for _, text, _ in BAD_HARDWARE:
        (tmp_path / "hw.toml").write_text(text + "\n")
        with pytest.raises(HardwareError) as info:
            load_hardware(tmp_path / "hw.toml")
        tb = info.value.__traceback__
        while tb is not None:
            if tb.tb_frame.f_code.co_filename == source:
                reached.add(tb.tb_lineno)
            tb = tb.tb_next
    tree = ast.parse(Path(source).read_text(encoding="utf-8"))
    sites = {node.lineno: node.end_lineno for node in ast.walk(tree) if isinstance(node, ast.Call)
             and isinstance(node.func, ast.Name) and node.func.id == "fail"}
    missed = [line for line, end in sorted(sites.items()) if not any(line <= r <= end for r in reached)]
    assert len(sites) >= 4 and not missed, missed


def test_every_key_has_a_range_and_the_defaults_lie_in_them(tmp_path):
    assert set(RANGES) == {f.name for f in fields(Hardware)} - {"source"}
    defaults = load_hardware()
    for key, (low, high) in RANGES.items():
        assert low <= getattr(defaults, key) <= high, key
    (tmp_path / "edge.toml").write_text("".join(f"{key} = {high!r}\n" if isinstance(high, int) else
                                                f"{key} = {high:.1f}\n" for key, (_, high) in RANGES.items()))
    assert load_hardware(tmp_path / "edge.toml").lanes == 4096
