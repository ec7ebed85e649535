"""One check that a session survives its file and its step log: save, load, replay, equal.

As TVM's `verify_trace_roundtrip` does for a schedule's trace: the state must be a function
of the step log, and the file must hold everything the state is made of. Tests call it after
random navigations (tests/navigator/navigation/test_session_roundtrip.py).
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from fuseflow.support.readers import dumps_deep
from navigator.navigation.session import Session
from navigator.navigation.session_format import load_session, save_session
from navigator.synth import Sketch, sketch_to_json
from navigator.synth.sketch import SKETCH_JSON_NESTING

_BRIEF = 300  # characters of a differing value shown; a sketch can be megabytes


def verify_session_roundtrip(session: Session) -> Session:
    """Save `session` to a temporary file and load it back with its library, facts and oracle;
    replay its step log and redo stack on a fresh session. Both must equal `session` in sketch,
    steps, redo stack, forced_steps and context, and saving the loaded session must write the
    same bytes. Returns the loaded session; AssertionError names the first difference."""
    with tempfile.TemporaryDirectory(prefix="navigator-roundtrip-") as directory:
        path = Path(directory) / "session.json"
        save_session(session, path)
        saved = path.read_bytes()
        loaded = load_session(path, session.library, session.facts, oracle=session.oracle)
        _assert_same(session, loaded, "loaded from its file")
        save_session(loaded, path)
        if path.read_bytes() != saved:
            raise AssertionError("saving the session loaded from its file does not write the same file")
    replayed = Session.from_steps(session.library, session.facts, session.steps, oracle=session.oracle,
                                  context=session.context, forced_steps=session.forced_steps,
                                  redo=session.redo_steps)
    _assert_same(session, replayed, "replayed from its step log")
    return loaded


def _assert_same(expected: Session, actual: Session, how: str) -> None:
    # The step log first: a different step explains a different sketch.
    for part in ("steps", "redo_steps"):
        mine, theirs = getattr(expected, part), getattr(actual, part)
        for index, (want, got) in enumerate(zip(mine, theirs)):
            if want != got:
                raise AssertionError(f"the session {how} differs in {part}[{index}]: {_brief(got)} "
                                     f"instead of {_brief(want)}")
        if len(mine) != len(theirs):
            raise AssertionError(f"the session {how} has {len(theirs)} {part} instead of {len(mine)}")
    for part in ("sketch", "forced_steps", "context"):
        want, got = getattr(expected, part), getattr(actual, part)
        if want != got:
            raise AssertionError(f"the session {how} differs in {part}: {_brief(got)} instead of {_brief(want)}")


def _brief(value: Any) -> str:
    text = dumps_deep(sketch_to_json(value), SKETCH_JSON_NESTING) if isinstance(value, Sketch) else repr(value)
    return text if len(text) <= _BRIEF else text[:_BRIEF] + "…"
