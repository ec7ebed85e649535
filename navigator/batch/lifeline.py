"""Pool workers die with the process that started them.

A ProcessPoolExecutor worker waits on a pipe its parent holds, and the worker itself holds
a copy of that pipe from the fork, so when the coordinator is killed (SIGKILL, an OOM kill)
an idle worker waits forever and a busy one finishes its candidate and then waits forever.
Two mechanisms end them, both installed by `die_with_parent` in the worker's initializer:

- Linux's prctl(PR_SET_PDEATHSIG, SIGKILL): the kernel kills the worker the moment its
  parent goes, even while it runs a candidate in C code. The kernel ties it to the *thread*
  that forked the worker, so it is only set when that was the main thread (pools are
  started there); a pool started from another thread relies on the watchdog alone.
- A daemon thread that compares os.getppid() with the parent's pid every WATCH_SECONDS
  and calls os._exit when the worker has been reparented: portable, and it covers the
  moment before prctl took effect.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time

WATCH_SECONDS = 0.5
PR_SET_PDEATHSIG = 1  # from <linux/prctl.h>


def set_parent_death_signal(signum: int = signal.SIGKILL) -> bool:
    """Ask the kernel to send `signum` to this process when its parent's thread exits (Linux only)."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(PR_SET_PDEATHSIG, int(signum), 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def _watch(parent: int, interval: float) -> None:
    while True:
        if os.getppid() != parent:
            os._exit(1)  # no cleanup: the coordinator that wanted the result is gone
        time.sleep(interval)


def start_watchdog(parent: int, interval: float = WATCH_SECONDS) -> threading.Thread:
    thread = threading.Thread(target=_watch, args=(parent, interval), name="navigator-parent-watch", daemon=True)
    thread.start()
    return thread


def die_with_parent(parent: int, death_signal: bool = True) -> None:
    """In a freshly started worker: exit when process `parent` (the one that started us) dies."""
    if death_signal:
        set_parent_death_signal()
    if os.getppid() != parent:  # it died before the signal was armed
        os._exit(1)
    start_watchdog(parent)
