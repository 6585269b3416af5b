"""Work that must not compete with serving: run at a lower CPU priority, in a thread of its own.

Preparing a new data version (the supervisor: copy, validate, index, built answers), a new
worker loading it, and a single worker's in-place reload each take one to several seconds of
CPU while the other workers serve. At the same priority they took a core from the workers
serving players, whose answers then waited (bench.attack's reload phase). On Linux a nice value
belongs to a thread, and a thread may only lower its own priority: so the work runs in a new
thread that lowers its own and ends with it, and the process keeps serving (and the workers it
starts keep the priority they should have).
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Callable
from typing import TypeVar

__all__ = ["NICENESS", "at_low_priority", "lower_priority"]

T = TypeVar("T")

#: How much lower: CFS weight 335 against 1024, so the work gets about a quarter of a core that
#: serving keeps busy. (10, a tenth, made a reload under wrk -c20 take 55 s, and a new worker's
#: load come close to the 20 s it has to be ready.)
NICENESS = 5


#: The threads that run work at the lower priority (`at_low_priority`).
_THREAD_NAME = "rulesajeon-background"


def at_low_priority(work: Callable[[], T]) -> T:
    """`work()` in a thread of its own at `NICENESS` lower priority; its result, or what it
    raised. The calling thread waits (it holds no lock the work needs). Called from such a
    thread (a worker loading its app, which makes the app at low priority too), `work()` runs
    right there: lowered once, not twice."""
    if threading.current_thread().name == _THREAD_NAME:
        return work()
    result: list[T] = []
    error: list[BaseException] = []

    def run() -> None:
        lower_priority()
        try:
            result.append(work())
        except BaseException as exc:  # re-raised in the caller
            error.append(exc)

    thread = threading.Thread(target=run, name=_THREAD_NAME)
    thread.start()
    thread.join()
    if error:
        raise error[0]
    return result[0]


def lower_priority() -> None:
    """Lower the calling thread's CPU priority by `NICENESS`, for good (where the system
    allows it)."""
    with contextlib.suppress(OSError, AttributeError):
        tid = threading.get_native_id()
        os.setpriority(os.PRIO_PROCESS, tid, os.getpriority(os.PRIO_PROCESS, tid) + NICENESS)
