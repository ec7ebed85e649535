"""Whether the user pressed Ctrl-C: a KeyboardInterrupt is not always what arrives.

An interrupt that lands inside an import can come out as another exception: numpy turns it
into an ImportError, and Python 3.11 wraps one raised in a class body as "Error calling
__set_name__". The command line must still say `navigator: interrupted` (exit 130) rather than
report a bug, so the launcher marks every SIGINT it receives, and `was_interrupted` also reads
an exception's cause chain.
"""

from __future__ import annotations

import signal

_seen = False


def mark_interrupts() -> None:
    """Keep Python's behaviour (raise KeyboardInterrupt), and remember that it happened."""
    def on_interrupt(signum, frame):
        global _seen
        _seen = True
        if frame is not None and frame.f_code.co_filename.startswith("<frozen importlib"):
            # inside the import machinery's own callbacks an exception is printed and dropped
            # ("Exception ignored in ..."): deliver the interrupt again a moment later instead
            _redeliver(signum)
            return
        raise KeyboardInterrupt

    try:
        signal.signal(signal.SIGINT, on_interrupt)
    except (ValueError, OSError):  # not the main thread
        pass


def _redeliver(signum: int) -> None:
    import os
    import threading

    timer = threading.Timer(0.005, os.kill, (os.getpid(), signum))
    timer.daemon = True
    timer.start()


def was_interrupted(exc: BaseException) -> bool:
    """Whether `exc` is how a Ctrl-C surfaced: one was received, or the exception's causes hold
    a KeyboardInterrupt."""
    if _seen:
        return True
    seen: set[int] = set()
    node: BaseException | None = exc
    while node is not None and id(node) not in seen:  # a chain can loop
        if isinstance(node, KeyboardInterrupt):
            return True
        seen.add(id(node))
        node = node.__cause__ or node.__context__
    return False
