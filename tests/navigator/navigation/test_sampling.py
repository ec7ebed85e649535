"""sample: uniform draws over the valid schedules, from the counts."""

from __future__ import annotations

import json
import random
from collections import Counter

from tests.cli import SMALL_SPMM


def _space(name: str, dims: dict):
    from fuseflow.program.binding import bind
    from fuseflow.program.bundled import resolve_program
    from navigator.fuseflow.schedule_space import ScheduleSpace

    program = resolve_program(name)
    return ScheduleSpace.build(program, bind(program, None, dims))


def test_samples_are_uniform_chi_square():
    from scipy.stats import chisquare

    from fuseflow.schedule import schedule_problems
    from navigator.navigation.sampling import UniformSampler

    space = _space("spmm", {"N": 2, "J": 2})
    sampler = UniformSampler(space.oracle)
    assert sampler.size() == 32 == space.oracle.count(space.initial_sketch()).value
    assert space.oracle.count_with_aliases().value == 33  # the default_schedule shortcut, never drawn
    rng = random.Random(20240601)
    draws = Counter(space.schedule_of(sampler.sample(rng)) for _ in range(1600))
    assert len(draws) == 32  # every schedule of the space is drawn
    for schedule in draws:
        assert schedule_problems(space.program, space.binding, schedule) == []
    statistic, p_value = chisquare(list(draws.values()))  # expected 50 per schedule
    assert p_value > 0.001, (statistic, sorted(draws.values()))


def test_sample_command(nav, cli, tmp_path):
    data = nav.json("sample", "spmm", "6", "--out", "one", "--seed", "7", *SMALL_SPMM, schema="sample")
    assert data["space"] == 32 and data["count"] == 6 and data["seed"] == 7
    files = sorted((tmp_path / "one").glob("*.json"))
    assert [f.name for f in files] == [f"spmm-{i:03d}.json" for i in range(1, 7)]
    for path in files:
        assert cli.json("validate", str(path), "--program", "spmm", *SMALL_SPMM, schema="validate")["valid"]
    # the same seed gives the same files
    cli("sample", "spmm", "6", "--out", "two", "--seed", "7", *SMALL_SPMM, ok=True)
    assert [p.read_bytes() for p in files] == [p.read_bytes() for p in sorted((tmp_path / "two").glob("*.json"))]
    assert len({json.dumps(json.loads(p.read_text())) for p in files}) == data["unique"]
