"""The last resort for errors nobody anticipated: a bug report instead of a traceback.

Every mistake a user can make is a UserError, converted where it arises. Anything else
that reaches the command line is a bug in Navigator: the user sees one line saying so,
and the traceback goes to a crash file whose path that line gives, for the bug report.
"""

from __future__ import annotations

import os
import sys
import tempfile
import traceback
from datetime import datetime, timezone
from pathlib import Path
from navigator.process.console import say
from navigator.process.secrets import scrub

CRASH_DIR_ENV = "NAVIGATOR_CRASH_DIR"


def crash_folder() -> Path:
    """$NAVIGATOR_CRASH_DIR, else $XDG_STATE_HOME/navigator/crashes, else ~/.local/state/..."""
    explicit = os.environ.get(CRASH_DIR_ENV)
    if explicit:
        return Path(explicit)
    state = os.environ.get("XDG_STATE_HOME", "")
    if not os.path.isabs(state):  # unset, empty or relative: ignored, as the XDG rule says
        state = os.path.join(os.path.expanduser("~"), ".local", "state")
    return Path(state) / "navigator" / "crashes"


def _report_text(exc: BaseException, argv: list[str]) -> str:
    from navigator.version import __version__

    when = datetime.now(timezone.utc).isoformat(timespec="seconds")
    lines = [f"navigator {__version__} crashed at {when}",
             f"python {sys.version.split()[0]} on {sys.platform}",
             "command: navigator " + " ".join(repr(a if len(a) <= 300 else a[:300] + "...") for a in argv),
             f"cwd: {os.getcwd()}", ""]
    body = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__, limit=60))
    return "\n".join(lines) + body


def write_crash_report(exc: BaseException, argv: list[str]) -> Path | None:
    """Write the report to the crash folder (or the temporary folder); None if neither works."""
    try:
        text = _report_text(exc, argv)
    except Exception:  # a report that cannot be formatted still deserves its one line
        text = f"{type(exc).__name__}: (the traceback could not be formatted)\n"
    text = scrub(text)  # an exception's message may quote a secret (an HTTP client shows its headers)
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    from fuseflow.support.files import make_folders

    for folder in (crash_folder(), Path(tempfile.gettempdir())):
        if not folder.is_absolute():  # no usable home: straight to the temporary folder
            continue
        try:
            make_folders(folder)  # iterative: a deep $NAVIGATOR_CRASH_DIR cannot exhaust the stack
            # mkstemp: a new file of its own (O_EXCL, O_NOFOLLOW), never one already there
            fd, name = tempfile.mkstemp(prefix=f"navigator-crash-{stamp}-", suffix=".txt", dir=folder)
            with os.fdopen(fd, "w", encoding="utf-8", errors="backslashreplace") as handle:
                handle.write(text)
            return Path(name)
        except (OSError, ValueError):
            continue
    return None


def describe(exc: BaseException) -> str:
    """`KeyError: 'fusion'`, shortened to fit one line."""
    message = scrub(str(exc)).replace("\n", " ")
    if len(message) > 200:
        message = message[:197] + "..."
    return f"{type(exc).__name__}: {message}" if message else type(exc).__name__


def report_bug(exc: BaseException, argv: list[str]) -> int:
    """Print the one line, write the crash file, and return exit code 1."""
    path = write_crash_report(exc, argv)
    where = f"the traceback is in {path}" if path else "the traceback could not be saved"
    say(f"navigator: internal error (a bug in navigator, not in your input): {describe(exc)}; {where}; "
        "please report it with that file")
    return 1
