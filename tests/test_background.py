"""Work that must not compete with serving runs at a lower CPU priority (`app.web.background`)."""

from __future__ import annotations

import os
import threading

import pytest

from app.web.background import NICENESS, at_low_priority, lower_priority


def _own_priority() -> int:
    return os.getpriority(os.PRIO_PROCESS, threading.get_native_id())


def _in_thread(work: object) -> list[int]:
    seen: list[int] = []

    def run() -> None:
        seen.append(_own_priority())
        assert callable(work)
        work()
        seen.append(_own_priority())

    thread = threading.Thread(target=run)
    thread.start()
    thread.join()
    return seen


@pytest.mark.skipif(not hasattr(os, "setpriority"), reason="no thread priorities here")
def test_background_work_runs_lower_and_the_caller_keeps_its_priority() -> None:
    # A new worker's loading and the supervisor's preparation took a core from the workers
    # serving players at the same priority (bench.attack's reload phase).
    seen_inside: list[int] = []
    seen = _in_thread(lambda: seen_inside.append(at_low_priority(_own_priority)))
    before, after = seen
    assert seen_inside == [min(before + NICENESS, 19)]
    assert after == before


@pytest.mark.skipif(not hasattr(os, "setpriority"), reason="no thread priorities here")
def test_a_stopping_worker_lowers_its_own_priority_for_good() -> None:
    # A replaced worker's end (the interpreter freeing every object, about 0.2 s of CPU)
    # runs while the new workers serve.
    before, after = _in_thread(lower_priority)
    assert after == min(before + NICENESS, 19)
