"""Programs with hundreds of ops open, show and navigate (issue 11), as a user runs them."""

from __future__ import annotations

import json

from fuseflow.program.binding import bind
from fuseflow.program.bundled import resolve_program
from fuseflow.schedule.space_size import schedule_space_size


def test_start_show_and_fill_transformer12(nav):
    """276 ops: the session opens, the fusion menu offers region-by-region fusion and the three
    shortcuts, a shortcut places every region in one step, and `show --open` groups the holes by
    region. The count is exact: the closed form computed another way agrees."""
    session = ("--session", "t.json")
    nav("start", "transformer12", *session, ok=True)
    assert 'schedule{program="transformer12"}' in nav("show", *session, ok=True).stdout
    nav("fill", "?0", "1", *session, ok=True)
    fusion = nav.json("show", *session, schema="show")["holes"][0]
    assert [o["function"] for o in fusion["options"]] == ["fuse", "unfused", "per_layer", "largest_fusion"]
    assert [o["alias"] for o in fusion["options"]] == [False, True, True, True]
    nav("fill", "?1", "largest_fusion", *session, ok=True)
    opened = nav("show", "--open", *session, ok=True).stdout
    assert opened.count("== region ") > 10
    counted = json.loads(nav("count", "transformer12", "--json", ok=True).stdout)
    program = resolve_program("transformer12")
    assert counted["schedules"] == schedule_space_size(program, bind(program))["schedules"]


def test_region_by_region_on_a_deep_gcn(nav):
    """64 layers (192 ops) through `--dim layers=64`: the first region menu offers the regions
    holding the first op, each with its exact number of completions."""
    session = ("--session", "d.json", "--dim", "layers=64")
    nav("start", "deep_gcn", *session, ok=True)
    nav("fill", "?0", "1", "--session", "d.json", ok=True)
    nav("fill", "?1", "fuse", "--session", "d.json", ok=True)
    regions = nav.json("show", "--session", "d.json", schema="show")["holes"][0]["options"]
    assert [o["metadata"]["region"] for o in regions][:2] == ["aggregate1", "aggregate1+transform1"]
    assert all(o["metadata"]["state"] == "from aggregate1" for o in regions)
    assert sum(int(o["count"]) for o in regions) == int(
        nav.json("show", "--session", "d.json", schema="show")["completions"])


def test_check_of_a_billion_token_transformer_answers_within_its_memory_budget(cli):
    """Issue 21: T = 2**30 (an extent well inside the allowed range) hung in the mask's density,
    quadratic in block rows x columns, and grew past several GB whatever --max-memory said."""
    result = cli("check", "transformer_block", "--dim", "T=1073741824", "--max-memory", "1G", "--json")
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout)
    assert summary["dims"]["T"] == 2**30
