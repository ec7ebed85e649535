"""Honeybee problems: a library and a `*.hb.toml` of facts and a goal, navigated with no tensor program.

    from navigator.honeybee.problem import ProblemSpace
    space = ProblemSpace.build("sched.hb.toml", "sched.hblib.toml")   # a navigator.navigation.space.Space

problem        the problem's space: its facts, its oracle, and its expression as what it exports
codegen        a Python program or notebook assembled from the library's code (never run)
library_check  `navigator library check`: every problem of a library, with a problem file or without
"""
