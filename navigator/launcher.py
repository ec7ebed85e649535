"""Start-up of the `navigator` command (console script and `python -m navigator`).

A Ctrl-C must print one line and exit 130 whenever it comes, including while the command
modules are still being imported, before navigator.cli.main's own handler exists. So this
module imports nothing of Navigator's until it is inside its `try`. Once a command has
finished, a late Ctrl-C (during the interpreter's final flush or its wait for threads) ends
the process at once with the same line, instead of a traceback "ignored" at shutdown.
"""

import os
import signal
import sys

#: the exit code of a command stopped by Ctrl-C (128 + SIGINT, as shells report it)
INTERRUPTED = 130
MESSAGE = "navigator: interrupted\n"


def interrupted() -> int:
    """Say so once and return the exit code; a second Ctrl-C while saying it is ignored."""
    _ignore_interrupts()
    try:
        sys.stderr.write(MESSAGE)
        sys.stderr.flush()
    except (OSError, ValueError, AttributeError):  # stderr closed or missing
        pass
    return INTERRUPTED


def main() -> int:
    """The command line in sys.argv: run by the session's server when one runs
    (navigator.process.served), else here, after which a session command starts one."""
    argv = sys.argv[1:]
    try:
        from navigator.process.served import run_in_server, start_server

        code = run_in_server(argv)
    except KeyboardInterrupt:
        code = interrupted()
        _leave_interrupted()
    if code is not None:
        return code
    code = run_here(argv)
    if code == 0:
        try:
            start_server(argv)
        except KeyboardInterrupt:
            code = interrupted()
            _leave_interrupted()
    return code


def run_here(argv: list[str]) -> int:
    """Run a command line in this process (also in a server's fork, navigator.server)."""
    try:
        from navigator.process.interrupts import mark_interrupts   # inside: a Ctrl-C may come while it loads

        mark_interrupts()
        from navigator.cli import main as run_command

        code = run_command(argv)
    except KeyboardInterrupt:
        code = interrupted()
    except Exception as exc:
        # a Ctrl-C during the command modules' import can surface wrapped (RuntimeError
        # "Error calling __set_name__" from a dataclass, numpy's ImportError)
        if not _came_from_interrupt(exc):
            raise
        code = interrupted()
    finally:  # also after SystemExit (`--version`, a usage error)
        _exit_on_interrupt()
    if code == INTERRUPTED:
        _leave_interrupted()
    return code


def _came_from_interrupt(exc: BaseException) -> bool:
    try:
        from navigator.process.interrupts import was_interrupted
    except BaseException:  # noqa: BLE001 - it could not load: only the chain itself can tell
        return isinstance(exc.__cause__ or exc.__context__, KeyboardInterrupt)
    return was_interrupted(exc)


def _leave_interrupted() -> None:
    """Exit with 130 now, after the atexit handlers and a flush.

    A normal shutdown could end the process with SIGINT (-2) instead: CPython remembers a
    KeyboardInterrupt that passed through a nested PyRun_String call (Cython modules make
    one while scipy is imported) even after it was caught, and at exit kills itself with
    the signal. Seen in about 1 of 20 Ctrl-Cs during `count`."""
    import atexit

    try:
        atexit._run_exitfuncs()
    except BaseException:  # noqa: BLE001 - leaving anyway; each handler already reported its error
        pass
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError, AttributeError):
            pass
    os._exit(INTERRUPTED)


def _ignore_interrupts() -> None:
    try:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    except (ValueError, OSError):  # not the main thread
        pass


def _exit_on_interrupt() -> None:
    def stop(signum, frame):
        interrupted()
        try:  # the command's output is complete: do not lose what is still buffered
            sys.stdout.flush()
        except (OSError, ValueError, AttributeError):
            pass
        os._exit(INTERRUPTED)

    try:
        signal.signal(signal.SIGINT, stop)
    except (ValueError, OSError):
        pass


if __name__ == "__main__":
    raise SystemExit(main())
