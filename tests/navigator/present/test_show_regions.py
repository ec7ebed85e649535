"""`show --region NAME` and `show --open`: sketches with many holes stay readable."""

from __future__ import annotations

import pytest

from navigator.present.regions import region_view
from navigator.synth import sketch_from_json
from tests.cli import assert_user_error


@pytest.fixture
def gcn_session(cli):
    cli("start", "gcn", ok=True)
    cli("fill", "?0", "1", ok=True)
    cli("fill", "?1", "unfused", ok=True)  # the shortcut: six regions in one step
    return cli


def test_open_lists_every_open_hole_once_grouped_by_region(gcn_session):
    cli = gcn_session
    shown = cli("show", "--open", ok=True).stdout
    data = cli.json("show", schema="show")
    assert "dataflow{" not in shown  # no sketch
    headings = [line[len("== region "):] for line in shown.splitlines() if line.startswith("== region ")]
    assert headings == sorted(set(headings), key=headings.index)  # each region once, in sketch order
    for hole in data["open_holes"]:
        assert shown.count(f"\n?{hole} : ") == 1
    regions = {h["hole"]: h["region"] for h in data["holes"]}
    for heading in headings:
        block = shown.split(f"== region {heading}\n", 1)[1].split("\n== ", 1)[0]
        holes = [int(line[1:].split(" ", 1)[0]) for line in block.splitlines() if line.startswith("?")]
        assert holes and all(regions[h] == heading for h in holes)


def test_region_shows_its_subtree_and_only_its_holes(gcn_session):
    cli = gcn_session
    data = cli.json("show", "--region", "transform2", schema="show")
    assert data["holes"] and all(h["region"] == "transform2" for h in data["holes"])
    text = cli("show", "--region", "transform2", ok=True).stdout
    assert "region transform2:\ndataflow{region=\"transform2\"}" in text and "aggregate1" not in text


def test_an_unknown_region_lists_the_regions(gcn_session):
    assert_user_error(gcn_session("show", "--region", "nope"), "--region: the sketch has no region 'nope'",
                      "its regions: aggregate1, transform1, activate1, aggregate2, transform2, bias2")


def test_before_the_fusion_is_chosen_there_are_no_regions(cli):
    cli("start", "gcn", ok=True)
    assert_user_error(cli("show", "--region", "aggregate1"), "none yet (choose the fusion first)")


def test_a_hole_belongs_to_the_nearest_enclosing_region():
    from navigator.fuseflow.bundled_library import load_scheduling_library

    library, _ = load_scheduling_library()
    expression = {"App": [{"name": "dataflow", "metadata": {"region": "r"}, "arity": ["order", "pars"]},
                          {"order": {"Hole": 1}, "pars": {"Hole": 2}}]}
    view = region_view(sketch_from_json(expression, library, "RegionSchedule"))
    assert view.hole_region == {1: "r", 2: "r"} and view.names == ["r"]
