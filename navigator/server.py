"""A session's server: the session loaded once, each command run in a fork of it.

`python -m navigator.server SESSION` (started in the background by a session command,
navigator.process.served.start_server) loads the session's space and replays its steps, keeps
them (navigator.workspace.warm), and listens on a Unix socket in a folder only this user can
enter. For each command a client sends (its command line, working directory, environment and
standard streams), it forks: the child takes the client's streams, directory and environment
and runs the command as `navigator` would (navigator.launcher), opening the session from what
the server keeps, so it neither builds the space nor replays the steps; the server reports the
child's exit code and passes a Ctrl-C from the client on to it. A fork leaves the server's own
state as it was, whatever the command does.

After each command the server opens the session again from what it keeps (only the steps
after those both logs share are replayed), so the next command finds it current. It stops when
no command came for NAVIGATOR_SERVER_IDLE seconds (default 600), when the session can no
longer be opened (deleted, damaged, its program changed), or when a client of another version
connects. It never writes a file but its socket and that socket's lock, and keeps no log
(a command's environment, which may hold an API key, is never written anywhere).
"""

from __future__ import annotations

import os
import select
import signal
import socket
import struct
import sys
import threading

from navigator.process.served import INTERRUPT, MAX_MESSAGE, PROTOCOL, receive_message, send_message, socket_path

IDLE_ENV = "NAVIGATOR_SERVER_IDLE"
DEFAULT_IDLE = 600.0
#: what a client waits for, at most, before the server takes its request
ACCEPT_TIMEOUT = 5.0
#: seconds a command whose client went away has to end after SIGTERM, before SIGKILL
KILL_GRACE = 5.0


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        return 2
    session = argv[0]
    path = socket_path(session)
    if path is None:
        return 1
    lock = _lock(path + ".lock")
    if lock is None:
        return 0  # another server runs for this session
    try:
        return _serve(session, path)
    finally:
        try:
            os.unlink(path)
        except OSError:
            pass


def _lock(path: str):
    import fcntl

    try:
        handle = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        os.ftruncate(handle, 0)
        os.write(handle, f"{os.getpid()}\n".encode("ascii"))  # who serves: `kill $(cat ...lock)` stops it
    except OSError:
        return None
    return handle  # held until the process ends


def _serve(session: str, path: str) -> int:
    from pathlib import Path

    from navigator.cli import build_parser
    from navigator.version import __version__
    from navigator.workspace import open_workspace
    from navigator.workspace.warm import keep_warm

    build_parser()  # every command module imported once, here, not in each fork
    target = Path(session)
    try:
        keep_warm(open_workspace(target))
    except Exception:  # noqa: BLE001 - a session that does not open is served by no one
        return 1
    try:
        idle = float(os.environ.get(IDLE_ENV, DEFAULT_IDLE))
    except ValueError:
        idle = DEFAULT_IDLE
    try:
        os.unlink(path)  # a socket left by a server that died
    except FileNotFoundError:
        pass
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    os.chmod(path, 0o600)
    listener.listen(8)
    while True:
        ready, _, _ = select.select([listener], [], [], idle)
        if not ready:
            return 0
        connection, _ = listener.accept()
        with connection:
            outcome = _handle(connection, listener, session, __version__)
        if outcome == "stop" or not _refresh(target):
            return 0


def _refresh(target) -> bool:
    """Open the session again from what is kept, so the next command finds it current."""
    from navigator.workspace import open_workspace
    from navigator.workspace.warm import keep_warm

    try:
        keep_warm(open_workspace(target))
    except Exception:  # noqa: BLE001 - deleted, damaged, or its program changed: stop serving it
        return False
    return True


def _handle(connection, listener, session: str, version: str) -> str | None:
    connection.settimeout(ACCEPT_TIMEOUT)
    try:
        uid = struct.unpack("3i", connection.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED,
                                                        struct.calcsize("3i")))[1]
        if uid != os.getuid():
            return None
        request, streams = _receive_request(connection)
    except (OSError, ValueError):
        return None
    try:
        if request is None or len(streams) != 3:
            return None
        if request.get("protocol") != PROTOCOL or request.get("version") != version:
            send_message(connection, {"declined": "another version"})
            return "stop"  # a new navigator is installed: let it start its own server
        if request.get("session") != session or not _well_formed(request):
            send_message(connection, {"declined": "another session"})
            return None
        if threading.active_count() > 1:  # a fork would copy locks that threads hold: not safe
            send_message(connection, {"declined": "threads"})
            return "stop"
        connection.settimeout(None)
        child = os.fork()
        if child == 0:
            _child(connection, listener, request, streams)  # never returns
        try:
            os.setpgid(child, child)  # also here: a Ctrl-C may come before the child has set it
        except OSError:
            pass
        for stream in streams:
            os.close(stream)
        streams = []
        send_message(connection, {"exit": _wait(connection, child)})
    except OSError:
        return None
    finally:
        for stream in streams:
            os.close(stream)
    return None


def _receive_request(connection) -> tuple[dict | None, list[int]]:
    import array

    header, ancillary, _, _ = connection.recvmsg(4, socket.CMSG_SPACE(3 * array.array("i").itemsize))
    streams: list[int] = []
    for level, kind, data in ancillary:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            received = array.array("i")
            received.frombytes(data[:len(data) - len(data) % received.itemsize])
            streams.extend(received)
    if len(header) != 4:
        return None, streams
    (length,) = struct.unpack("!I", header)
    if length > MAX_MESSAGE:
        return None, streams
    body = b""
    while len(body) < length:
        chunk = connection.recv(length - len(body))
        if not chunk:
            return None, streams
        body += chunk
    import json

    try:
        request = json.loads(body.decode("utf-8", "surrogateescape"))
    except ValueError:
        return None, streams
    return (request if isinstance(request, dict) else None), streams


def _well_formed(request: dict) -> bool:
    argv, cwd, env = request.get("argv"), request.get("cwd"), request.get("env")
    return (isinstance(argv, list) and all(isinstance(a, str) for a in argv) and isinstance(cwd, str)
            and isinstance(env, dict) and all(isinstance(k, str) and isinstance(v, str) for k, v in env.items()))


def _wait(connection, child: int) -> int:
    """The child's exit code; the client's Ctrl-C is passed on to it, and a client gone ends it."""
    try:
        done = os.pidfd_open(child)
    except (AttributeError, OSError):
        done = None
    import time

    killed_at = None  # when the command was told to end because its client went away
    try:
        watched = [connection] + ([done] if done is not None else [])
        while True:
            ready, _, _ = select.select(watched, [], [], 0.05 if done is None or killed_at else None)
            if connection in ready:
                try:
                    data = connection.recv(64)
                except OSError:
                    data = b""
                if not data:  # the client is gone: so is its terminal
                    _signal(child, signal.SIGTERM)
                    killed_at = time.monotonic()
                    watched = [w for w in watched if w is not connection]
                elif INTERRUPT in data:
                    _signal(child, signal.SIGINT)
            if killed_at is not None and time.monotonic() - killed_at > KILL_GRACE:
                _signal(child, signal.SIGKILL)
                killed_at = float("inf")
            finished, status = os.waitpid(child, os.WNOHANG)
            if finished:
                code = os.waitstatus_to_exitcode(status)
                return code if code >= 0 else 128 - code
    finally:
        if done is not None:
            os.close(done)


def _signal(child: int, number: int) -> None:
    """To the command's process group, as a terminal signals its foreground job: the processes
    the command started (a strategy's workers) hear it too."""
    try:
        os.killpg(child, number)
    except ProcessLookupError:
        pass
    except PermissionError:
        try:
            os.kill(child, number)
        except ProcessLookupError:
            pass


def _child(connection, listener, request: dict, streams: list[int]) -> None:
    """Become the command: the client's streams, directory and environment; never returns."""
    code = 1
    try:
        os.setpgid(0, 0)  # a process group of its own, which Ctrl-C reaches as a terminal's would
        import atexit

        atexit._clear()  # the server's exit handlers are not the command's (they wait on the server's state)
        connection.close()
        listener.close()
        for target, stream in enumerate(streams):
            os.dup2(stream, target)
            if stream > 2:
                os.close(stream)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        os.environ.clear()
        os.environ.update(request["env"])
        os.chdir(request["cwd"])
        _reopen_streams()
        sys.argv = ["navigator", *request["argv"]]
        from navigator.launcher import run_here

        code = run_here(request["argv"])
    except SystemExit as exc:  # argparse: a usage error (2), --help (0)
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        if isinstance(exc.code, str):
            sys.stderr.write(exc.code + "\n")
    except BaseException:  # noqa: BLE001 - whatever happens, the fork must not return into the server
        try:
            os.write(2, b"navigator: error: the session's server could not run the command\n")
        except OSError:
            pass
    finally:
        try:  # what the command registered, as its own process would run them at its end
            import atexit

            atexit._run_exitfuncs()
        except BaseException:  # noqa: BLE001 - leaving anyway
            pass
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except BaseException:  # noqa: BLE001
                pass
        os._exit(code)


def _reopen_streams() -> None:
    """Text streams on the client's descriptors, buffered as Python buffers a terminal's."""
    import io

    for fd, name in ((0, "stdin"), (1, "stdout"), (2, "stderr")):
        old = getattr(sys, name)
        encoding = getattr(old, "encoding", None) or "utf-8"
        errors = getattr(old, "errors", None) or "strict"
        mode = "r" if fd == 0 else "w"
        raw = io.open(fd, mode + "b", closefd=False)
        interactive = os.isatty(fd)
        stream = io.TextIOWrapper(raw, encoding=encoding,
                                  errors="backslashreplace" if fd == 2 else errors,
                                  line_buffering=interactive or fd == 2, write_through=fd == 2)
        setattr(sys, name, stream)
        setattr(sys, f"__{name}__", stream)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
