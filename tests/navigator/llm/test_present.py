"""`--top K`: the plans are shown, and the user's pick is taken (from a terminal or --pick)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from fuseflow.support.errors import UserError
from navigator.llm.answer import Proposal
from navigator.llm.ranked_plans import chooser, format_ranked


def _plans(n: int):
    plans = []
    for number in range(1, n + 1):
        proposal = Proposal(rank=1, choices=((1, "x"),), ids=(f"1.{number}",), rationale=f"plan {number}",
                            estimated_intensity=2.0)
        branch = SimpleNamespace(proposals=(proposal,), by_model=1)
        plans.append(SimpleNamespace(simulated=1000.0 * number, cost=(900.0 * number, 10.0), branch=branch,
                                     steps=(1, 2, 3), rationale=f"plan {number}"))
    return plans


def test_the_plans_are_shown_with_figures_and_rationale():
    text = format_ranked(_plans(3), 2)
    assert "2 best plans (of 3 ranked)" in text
    assert "1. simulated 1,000 cycles, estimated 900 cycles, 10 bytes; the model expects intensity 2" in text
    assert "chose ?1 := x (1 of 3 steps)" in text and "1.2" not in text and "plan 3" not in text


def test_pick_takes_that_plan_and_refuses_one_not_shown():
    shown = []
    assert chooser(3, 2, shown.append, None)(_plans(3)) == 1
    assert shown and "best plans" in shown[0]
    with pytest.raises(UserError, match="only 2 plans were shown"):
        chooser(2, 3, shown.append, None)(_plans(3))


def test_a_terminal_is_asked_until_it_answers():
    answers = iter(["7", "x", "3"])
    shown = []
    assert chooser(3, None, shown.append, lambda prompt: next(answers))(_plans(3)) == 2
    assert shown.count("answer a number from 1 to 3, or q") == 2
    assert chooser(3, None, shown.append, lambda prompt: "")(_plans(3)) == 0
    with pytest.raises(UserError, match="no plan taken"):
        chooser(3, None, shown.append, lambda prompt: "q")(_plans(3))

    def end_of_input(prompt):
        raise EOFError

    with pytest.raises(UserError, match="no plan taken"):
        chooser(3, None, shown.append, end_of_input)(_plans(3))


def test_without_a_terminal_the_best_is_taken_and_said():
    shown = []
    assert chooser(3, None, shown.append, None)(_plans(3)) == 0
    assert "taking plan 1" in shown[-1]
