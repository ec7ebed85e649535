"""A session kept loaded (navigator.workspace.warm, what navigator.server keeps): opening it again
gives what opening from scratch gives, after steps, undos and redos saved by another process;
and it is not used once the program it was built from changed."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from navigator.navigation.session_format import sketch_to_json
from navigator.workspace import locked_workspace, open_workspace
from navigator.workspace.warm import forget_warm, keep_warm, warm_for


@pytest.fixture(autouse=True)
def _nothing_kept():
    forget_warm()
    yield
    forget_warm()


def _state(workspace) -> tuple:
    session = workspace.session
    return (session.steps, session.redo_steps, sketch_to_json(session.sketch), session.complete)


def _step(path: Path, rng: random.Random) -> None:
    """One random command saved by "another process": a step, an undo or a redo."""
    with locked_workspace(path) as workspace:
        session = workspace.session
        holes = session.sketch.holes()
        choice = rng.random()
        if session.can_redo and choice < 0.2:
            session.redo_command()
        elif session.can_undo and (choice < 0.45 or not holes):
            session.undo_command()
        elif holes:
            hole = rng.choice(holes)
            option = rng.choice(session.menus().for_hole(hole.id).options)
            session.apply(hole.id, option.id)
        workspace.save()


@pytest.mark.parametrize("seed", range(4))
def test_a_kept_session_opens_as_a_fresh_one_after_commands_of_another_process(cli, seed):
    cli("start", "gcn", "--dim", "N=16", "--dim", "F=4", "--dim", "H=4", "--dim", "C=3", ok=True)
    path = (cli.cwd / ".navigator" / "session.json").resolve()
    rng = random.Random(seed)
    kept = open_workspace(path)
    keep_warm(kept)
    assert open_workspace(path).session is kept.session  # unchanged: the very workspace
    for _ in range(12):
        _step(path, rng)
        warm = open_workspace(path)
        forget_warm()
        fresh = open_workspace(path)
        assert _state(warm) == _state(fresh)
        assert warm.loaded is kept.loaded and fresh.loaded is not kept.loaded
        keep_warm(warm)


def test_a_changed_program_file_is_not_served_from_what_was_kept(cli, tmp_path):
    program = tmp_path / "tiny.toml"
    from fuseflow.program.bundled import bundled_program_text

    program.write_text(bundled_program_text("spmm"), encoding="utf-8")
    cli("start", str(program), "--dim", "N=4", "--dim", "J=2", ok=True)
    path = (cli.cwd / ".navigator" / "session.json").resolve()
    keep_warm(open_workspace(path))
    assert warm_for(path) is not None
    program.write_text(bundled_program_text("spmm") + "\n# edited\n", encoding="utf-8")
    assert warm_for(path) is None
    result = cli("show")
    assert result.returncode == 2 and "changed since the session was saved" in result.stderr
