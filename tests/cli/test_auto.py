"""navigator.auto: the strategy registry and protocol, through `fill --auto`."""

from __future__ import annotations

import pytest

from navigator.auto import (Choice, Strategy, StrategyContext, StrategyError, describe_strategies, get_strategy,
                            register_strategy, strategy_names)
from tests.cli.conftest import SMALL_SPMM


class LastOption:
    """Picks the last option of every menu, and asks the cost hook about the current sketch."""

    name = "last"
    provenance = "strategy:last"

    def __init__(self):
        self.estimates = []

    def choose(self, context: StrategyContext, hole: int) -> Choice:
        self.estimates.append(context.estimate(context.sketch))
        return Choice(context.menu(hole).options[-1].id, "the last one")


class Broken:
    name = "broken"
    provenance = "strategy:broken"

    def choose(self, context, hole):
        return Choice("not_an_option")


@pytest.fixture
def extra_strategies():
    from navigator.auto import registry

    saved = dict(registry._REGISTERED)
    register_strategy("last", LastOption, "picks the last option")
    register_strategy("broken", Broken, "chooses something not offered")
    yield
    registry._REGISTERED.clear()
    registry._REGISTERED.update(saved)


def test_registry_lists_and_builds_strategies(extra_strategies):
    assert "default" in strategy_names() and "last" in strategy_names()
    assert describe_strategies()["default"].startswith("the library's default")
    assert isinstance(get_strategy("default"), Strategy) and isinstance(get_strategy("last"), Strategy)
    with pytest.raises(StrategyError, match=r"unknown strategy 'nope' \(known strategies: broken, default, exhaustive, heuristic, last"):
        get_strategy("nope")
    with pytest.raises(ValueError):
        register_strategy("bad name!", LastOption)


def test_registered_strategy_fills_with_its_provenance(cli, extra_strategies):
    cli("start", "spmm", *SMALL_SPMM, "--no-forced", ok=True)
    steps = cli.json("fill", "?0", "--auto", "last", schema="steps")["steps"]
    assert steps == [dict(steps[0], option='default_schedule{program="spmm"}', by="strategy:last",
                          rationale="the last one")]
    assert cli.json("show", schema="show")["complete"]
    cli("undo", ok=True)
    cli("fill", "?0", "1", ok=True)
    subtree = cli.json("fill", "?1", "--auto", "last", "--subtree", "--rationale", "mine", schema="steps")
    assert subtree["complete"] and {s["by"] for s in subtree["steps"]} == {"strategy:last"}
    assert {s["rationale"] for s in subtree["steps"]} == {"mine"}


def test_misbehaving_strategy_fails_the_work_with_exit_1(cli, extra_strategies, tmp_path):
    cli("start", "spmm", *SMALL_SPMM, "--no-forced", ok=True)
    before = (tmp_path / ".navigator" / "session.json").read_bytes()
    result = cli("fill", "?0", "--auto", "broken")
    assert result.returncode == 1 and "chose 'not_an_option', which is not offered at ?0" in result.stderr
    assert (tmp_path / ".navigator" / "session.json").read_bytes() == before


def test_default_strategy_without_a_default(tmp_path):
    """A hole whose library marks no default: the default strategy says so and names the fix."""
    from fuseflow.binding import bind
    from fuseflow.bundled import resolve_program
    from navigator.auto import fill_with_strategy
    from navigator.session import Session
    from navigator.space import ScheduleSpace, bundled_library_text

    library = tmp_path / "lib.hblib.toml"
    library.write_text(bundled_library_text().replace("default = { factor = 1 }\n", ""), encoding="utf-8")
    program = resolve_program("spmm")
    space = ScheduleSpace.build(program, bind(program, None, {"N": 2, "J": 2}), library)
    session = Session(space.library, space.facts, oracle=space.oracle)
    with pytest.raises(StrategyError, match=r"\?8 \(Par\) has no default option .*navigator fill '\?8' NUMBER"):
        fill_with_strategy(session, 0, get_strategy("default"), subtree=True)
