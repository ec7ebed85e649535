"""Navigation over any space: the `Space` protocol, a session's state, its step log and its file,
replay and sampling. It knows no files of programs, no tensors, no strategies and no screens
(an import contract keeps it so).

    space           the Space protocol both kinds implement, and the capabilities callers ask for
    session         the state: sketch, step log, undo/redo, commands, forced steps
    step_log        the trace: one StepRecord per step, and its JSON form
    session_format  the session file: envelope, atomic save, checked load (replay, compare)
    session_errors  SessionError, DamagedSessionError
    roundtrip       verify_session_roundtrip: save, load, replay, equal (the tests' one helper)
    replay          replay a target expression through the menus, to show it is reachable
    sampling        complete sketches drawn uniformly, from the menus' exact counts
    fingerprint     content hashes that tell a changed space

    session = Session(space.library, space.facts, oracle=space.oracle, forced_steps=True)
    session.apply(0, session.menus().for_hole(0).options[0].id)
    save_session(session, "s.json"); load_session("s.json", space.library, space.facts)
"""
