"""navigator.auto: the strategy registry and protocol, through `fill --auto`."""

from __future__ import annotations

import pytest

from navigator.auto import (Choice, Strategy, StrategyContext, StrategyError, describe_strategies, get_strategy,
                            register_strategy, strategy_names)
from tests.cli import SMALL_SPMM


class LastOption:
    """Picks the last option of every menu."""

    name = "last"
    provenance = "strategy:last"

    def choose(self, context: StrategyContext, hole: int) -> Choice:
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
    with pytest.raises(StrategyError, match=r"unknown strategy 'nope' \(known strategies: anneal, beam, broken, default, exhaustive, heuristic, last"):
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
    from fuseflow.program.binding import bind
    from fuseflow.program.bundled import resolve_program
    from navigator.auto import fill_with_strategy
    from navigator.navigation.session import Session
    from navigator.fuseflow.schedule_space import ScheduleSpace
    from navigator.fuseflow.bundled_library import bundled_library_text

    library = tmp_path / "lib.hblib.toml"
    library.write_text(bundled_library_text().replace("default = { factor = 1 }\n", ""), encoding="utf-8")
    program = resolve_program("spmm")
    space = ScheduleSpace.build(program, bind(program, None, {"N": 2, "J": 2}), library)
    session = Session(space.library, space.facts, oracle=space.oracle)
    with pytest.raises(StrategyError, match=r"\?8 \(Par\) has no default option .*navigator fill '\?8' NUMBER"):
        fill_with_strategy(session, 0, get_strategy("default"), subtree=True)


# ---------------------------------------------------------------- planning strategies

def test_heuristic_and_exhaustive_fill_with_their_figures(cli):
    cli("start", "spmm", *SMALL_SPMM, "--no-forced", ok=True)
    filled = cli.json("fill", "?0", "--auto", "exhaustive", "--all", schema="steps")
    assert filled["complete"] and {s["by"] for s in filled["steps"]} == {"strategy:exhaustive"}
    assert filled["steps"][0]["figures"]["evaluated"] == {"cost_model": 32, "simulator": 0}
    history = cli.json("history", schema="history")
    assert history["steps"][0]["figures"] == filled["steps"][0]["figures"]
    text = cli("history", ok=True).stdout
    assert "why: cheapest of 32 completions by the cost model" in text
    assert "weighed: 32 by the cost model, 0 simulated; completions 32; best cycles" in text
    cli("undo", ok=True)
    heuristic = cli.json("fill", "?0", "--auto", "heuristic", "--subtree", schema="steps")
    assert heuristic["complete"] and heuristic["steps"][0]["rationale"].startswith("rules: ")
    assert cli.json("show", schema="show")["complete"]


@pytest.mark.parametrize("args, fragments", [
    (["--auto", "nope"], ["--auto: unknown strategy 'nope'", "known strategies: anneal, beam, default, exhaustive, heuristic"]),
    (["--auto", "beam", "--budget", "0"], ["--budget", "at least 1"]),
    (["--auto", "anneal", "--budget", "-1"], ["--budget"]),
    (["--auto", "beam", "--limit", "4"], ["--limit does not apply to the beam strategy"]),
    (["--auto", "beam", "--scheduler", "tcp://127.0.0.1:1"], ["--scheduler is for --engine dask"]),
    (["--auto", "beam", "--engine", "dask"], ["--engine dask needs the scheduler's address"]),
    (["--auto", "heuristic", "--engine", "local"], ["--engine does not apply to the heuristic strategy"]),
    (["--auto", "heuristic", "--budget", "0"], ["--budget", "at least 1"]),
    (["--auto", "heuristic", "--budget", "-3"], ["--budget"]),
    (["--auto", "heuristic", "--budget", "4"], ["--budget does not apply to the heuristic strategy"]),
    (["--auto", "default", "--limit", "4"], ["--limit does not apply to the default strategy"]),
    (["--auto", "exhaustive", "--all", "--limit", "31"],
     ["exhaustive would evaluate 32 completions of every open hole from ?0, more than --limit 31"]),
    (["1", "--all"], ["--all works with --auto"]),
    (["--auto", "heuristic", "--all", "--subtree"], ["not allowed with argument"]),
])
def test_bad_strategy_input_is_one_line_and_exit_2(cli, tmp_path, args, fragments):
    from tests.cli import assert_user_error

    cli("start", "spmm", *SMALL_SPMM, "--no-forced", ok=True)
    before = (tmp_path / ".navigator" / "session.json").read_bytes()
    assert_user_error(cli("fill", "?0", *args), *fragments)
    assert (tmp_path / ".navigator" / "session.json").read_bytes() == before


def test_a_filled_hole_is_refused(cli):
    from tests.cli import assert_user_error

    cli("start", "spmm", *SMALL_SPMM, "--no-forced", ok=True)
    cli("fill", "?0", "1", ok=True)
    for strategy in ("heuristic", "exhaustive", "beam", "anneal"):
        assert_user_error(cli("fill", "?0", "--auto", strategy), "?0 is not an open hole", "step 1 filled it")


def test_ctrl_c_during_a_search_keeps_the_session(cli, tmp_path, monkeypatch):
    from navigator.auto.scoring import CostModelScorer

    cli("start", "spmm", *SMALL_SPMM, "--no-forced", ok=True)
    cli("fill", "?0", "1", ok=True)
    before = (tmp_path / ".navigator" / "session.json").read_bytes()
    calls = []

    def interrupted(self, sketch):
        calls.append(sketch)
        if len(calls) == 5:
            raise KeyboardInterrupt
        return (1.0, 1.0)

    monkeypatch.setattr(CostModelScorer, "score", interrupted)
    result = cli("fill", "?1", "--auto", "exhaustive", "--subtree")
    assert result.returncode != 0 and len(calls) == 5
    assert (tmp_path / ".navigator" / "session.json").read_bytes() == before


def test_beam_in_a_process_pool_records_what_it_simulated(cli):
    """--jobs runs the simulations through the batch engine's process pool; the figures say
    how many ran, and `history` shows them."""
    cli("start", "spmm", *SMALL_SPMM, ok=True)
    filled = cli.json("fill", "?0", "--auto", "beam", "--all", "--budget", "5", "--jobs", "2", schema="steps")
    assert filled["complete"]
    figures = filled["steps"][0]["figures"]
    assert 1 <= figures["evaluated"]["simulator"] <= 5
    assert figures["compared"]["best_simulated_cycles"] > 0
    text = cli("history", ok=True).stdout
    assert "by strategy:beam" in text and "simulated; best simulated cycles" in text


def test_anneal_on_a_dask_cluster(cli):
    distributed = pytest.importorskip("distributed")
    cli("start", "spmm", *SMALL_SPMM, ok=True)
    cluster = distributed.LocalCluster(host="127.0.0.1", protocol="tcp", n_workers=1, threads_per_worker=2,
                                       processes=False, dashboard_address=None)
    try:
        filled = cli.json("fill", "?0", "--auto", "anneal", "--all", "--budget", "4", "--engine", "dask",
                          "--scheduler", cluster.scheduler_address, schema="steps")
    finally:
        cluster.close()
    assert filled["complete"] and 1 <= filled["steps"][0]["figures"]["evaluated"]["simulator"] <= 4
