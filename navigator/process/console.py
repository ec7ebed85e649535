"""Lines on stderr: the only way commands talk to the user outside their output.

Every line goes through fuseflow.support.errors.one_line, so text taken from a user's file (a
name, a path, an op) can neither split a message over several lines nor send escape
sequences to the terminal; and through navigator.process.secrets.scrub, so no line shows a
secret of the process (the model's key) in any form."""

from __future__ import annotations

import sys

from fuseflow.support.errors import one_line
from navigator.process.secrets import scrub


def say(text: str) -> None:
    """Print one line on stderr."""
    print(scrub(one_line(scrub(str(text)))), file=sys.stderr)


def say_lines(text: str) -> None:
    """Print a block of lines on stderr, each made safe as `say` makes one."""
    for line in str(text).split("\n"):
        say(line)


def say_error(text: object) -> None:
    """Print a user error as `navigator: error: ...`."""
    say(f"navigator: error: {text}")


def report_progress(what: str, where: str, fraction: float) -> None:
    """A long computation's progress (fuseflow.support.work_budget's hook): one line every few seconds."""
    say(f"navigator: still working on {where}: {what}, {fraction:.0%} of the most Navigator works through")
