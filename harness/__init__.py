"""Harnesses the tests and the benchmarks share: not part of Navigator, and not shipped (the
wheel holds the packages pyproject.toml lists, and this is not one of them).

    fuzz        the fuzz harness of docs/fuzzing.md: cases, the generators and mutations that
                make them, a fork server that runs each, and the judge (tests/harness runs a
                bounded run under pytest, benchmarks/fuzz.py a long one)
    tui_apps    the TUI in the states the snapshot tests, docs/tui.svg and the TUI benchmarks show
    llm_server  a scriptable OpenAI-compatible server on 127.0.0.1
    fake_model  a deterministic model that answers from the menus in the prompt
    honeybee_examples  the example problems (`sched` in data/, `recursive`) and the steps of one program
    data/       sched.hblib.toml and its facts; fuseflow/, a snapshot of the FuseFlow library and
                of small programs' facts with the menus the engine once offered (a regression suite)

Both import it from the repository's root: pytest runs there, and each benchmark puts the
root on sys.path.
"""
