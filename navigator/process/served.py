"""The client side of navigator.server: run a session command in the session's server, if one runs.

A session command (`show`, `fill`, `undo`, `redo`, `history`, `export`) spends most of its time
building the program's space and replaying the session's steps, the same work for every
command. A server keeps them loaded (navigator.server) and runs each command in a fork of
itself, on this process's terminal: this module sends it the command line, the working
directory, the environment and this process's standard streams (file descriptors over a Unix
socket), passes a Ctrl-C on, and returns the command's exit code. The output is the command's
own, written by the fork straight to these streams.

It imports nothing of Navigator and little of Python, since every session command starts here.
The socket lives in a folder only this user can enter (`$XDG_RUNTIME_DIR/navigator`, else
`<tmp>/navigator-<uid>`), named after the session file's real path; the server checks that the
peer is this user. `NAVIGATOR_SERVER=off` runs every command in its own process, as does
`--no-cache` (the server's space came from the cache).
"""

from __future__ import annotations

import os
import stat
import sys

#: the commands a server runs (the TUI keeps its session loaded itself)
SERVED_COMMANDS = frozenset({"show", "fill", "undo", "redo", "history", "export"})
#: the commands after which a server is started for the session
STARTS_SERVER = SERVED_COMMANDS | {"start"}
SWITCH = "NAVIGATOR_SERVER"
OFF = frozenset({"off", "0", "no", "false"})
#: the protocol's version: a server that speaks another declines, and the command runs here
PROTOCOL = 1
#: a length-prefixed JSON message is at most this long (a command line and an environment)
MAX_MESSAGE = 4 * 1024 * 1024
INTERRUPT = b"I"
#: seconds a command has to end after a Ctrl-C before the client gives the terminal back
INTERRUPT_GRACE = 10.0
#: a Unix socket's path is at most 107 bytes on Linux (sun_path); a longer one is not used
MAX_SOCKET_PATH = 107


def switched_off(environ=os.environ) -> bool:
    return environ.get(SWITCH, "on").strip().lower() in OFF or environ.get("NAVIGATOR_CACHE", "").lower() == "off"


def session_argument(argv: list[str], environ=os.environ) -> str:
    """The session file a command line names: --session FILE, else $NAVIGATOR_SESSION, else
    .navigator/session.json (navigator.workspace.session_file.session_path's rule)."""
    for index, word in enumerate(argv):
        if word == "--session" and index + 1 < len(argv):
            return argv[index + 1]
        if word.startswith("--session="):
            return word.split("=", 1)[1]
    return environ.get("NAVIGATOR_SESSION") or os.path.join(".navigator", "session.json")


def wanted(argv: list[str], commands=SERVED_COMMANDS) -> bool:
    """Whether a command line is one a server may run."""
    if not argv or argv[0] not in commands or switched_off():
        return False
    return not any(word in ("-h", "--help", "--no-cache") for word in argv)


def socket_folder() -> str | None:
    """This user's folder for servers' sockets, created 0700; None when it is not this user's alone."""
    base = os.environ.get("XDG_RUNTIME_DIR") or os.environ.get("TMPDIR") or "/tmp"
    folder = os.path.join(base, "navigator" if os.environ.get("XDG_RUNTIME_DIR") else f"navigator-{os.getuid()}")
    try:
        os.mkdir(folder, 0o700)
    except FileExistsError:
        pass
    except OSError:
        return None
    try:
        info = os.lstat(folder)
    except OSError:
        return None
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid() or info.st_mode & 0o077:
        return None
    return folder


def socket_path(session: str) -> str | None:
    """Where the server of the session file `session` (a real path) listens; None when there is
    no private folder for it, or the path would be too long for a socket (then no server is used)."""
    import hashlib

    folder = socket_folder()
    if folder is None:
        return None
    path = os.path.join(folder, hashlib.sha256(os.fsencode(session)).hexdigest()[:24] + ".sock")
    return path if len(os.fsencode(path)) <= MAX_SOCKET_PATH else None


def session_of(argv: list[str]) -> str | None:
    """The real path of the session file the command line names, when there is one."""
    session = os.path.realpath(session_argument(argv))
    return session if os.path.isfile(session) else None


def run_in_server(argv: list[str]) -> int | None:
    """The exit code of `argv` run by the session's server; None when no server ran it (none
    runs, it declined, or the command is not one it runs): then run it here."""
    if not wanted(argv):
        return None
    session = session_of(argv)
    path = socket_path(session) if session else None
    if path is None:
        return None
    import socket

    connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        connection.connect(path)
        return _run(connection, argv, session)
    except OSError:
        return None
    finally:
        connection.close()


def _run(connection, argv: list[str], session: str) -> int | None:
    import array
    import json
    import socket
    import struct

    from navigator.version import __version__

    request = json.dumps({"protocol": PROTOCOL, "version": __version__, "session": session, "argv": argv,
                          "cwd": os.getcwd(), "env": dict(os.environ)}).encode("utf-8", "surrogateescape")
    streams = array.array("i", [0, 1, 2])
    connection.sendmsg([struct.pack("!I", len(request)) + request],
                       [(socket.SOL_SOCKET, socket.SCM_RIGHTS, streams.tobytes())])
    interrupted = False
    while True:
        try:
            reply = receive_message(connection)
            break
        except KeyboardInterrupt:  # the fork is not in this terminal's process group: pass it on
            interrupted = True
            try:
                connection.sendall(INTERRUPT)
            except OSError:
                pass
            # the command has this long to end; then this process ends, and with the connection
            # closed the server ends the command (a Ctrl-C always gives the terminal back)
            connection.settimeout(INTERRUPT_GRACE)
        except TimeoutError:
            sys.stderr.write("navigator: interrupted\n")
            return 130
    if reply is None:
        if interrupted:
            sys.stderr.write("navigator: interrupted\n")
            return 130
        sys.stderr.write("navigator: the session's server stopped while it ran the command\n")
        return 1
    if "exit" in reply and isinstance(reply["exit"], int):
        return reply["exit"]
    return None  # declined: run it here


def receive_message(connection) -> dict | None:
    """One length-prefixed JSON object; None at the end of the stream or on a malformed one."""
    import json
    import struct

    header = _receive_exactly(connection, 4)
    if header is None:
        return None
    (length,) = struct.unpack("!I", header)
    if length > MAX_MESSAGE:
        return None
    body = _receive_exactly(connection, length)
    if body is None:
        return None
    try:
        message = json.loads(body.decode("utf-8", "surrogateescape"))
    except ValueError:
        return None
    return message if isinstance(message, dict) else None


def send_message(connection, message: dict) -> None:
    import json
    import struct

    body = json.dumps(message).encode("utf-8", "surrogateescape")
    connection.sendall(struct.pack("!I", len(body)) + body)


def _receive_exactly(connection, size: int) -> bytes | None:
    chunks, left = [], size
    while left:
        chunk = connection.recv(min(left, 1 << 16))
        if not chunk:
            return None
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def start_server(argv: list[str]) -> None:
    """Start the session's server in the background after a command that leaves a session
    here, unless one runs; it loads the session and waits for the next command."""
    if not wanted(argv, STARTS_SERVER):
        return
    session = session_of(argv)
    path = socket_path(session) if session else None
    if path is None or listening(path):
        return
    import subprocess

    try:
        subprocess.Popen([sys.executable, "-m", "navigator.server", session], stdin=subprocess.DEVNULL,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, close_fds=True,
                         start_new_session=True)
    except OSError:
        pass


def listening(path: str) -> bool:
    """Whether a server accepts connections at `path`."""
    import socket

    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        probe.connect(path)
        return True
    except OSError:
        return False
    finally:
        probe.close()
