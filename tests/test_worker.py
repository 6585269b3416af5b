"""A worker of several starts light and loads at a lower priority (`app.web.worker`)."""

from __future__ import annotations

import json
import os
import pickle
import subprocess
import sys
import threading
from pathlib import Path

import pytest
import uvicorn

from app.settings import Settings
from app.web.background import NICENESS, at_low_priority
from app.web.server import config_args
from app.web.worker import Worker

ROOT = Path(__file__).resolve().parents[1]

#: What a fresh interpreter reports after unpickling what the supervisor hands a new worker.
_UNPICKLE = """
import json, pickle, sys
pickle.loads(sys.stdin.buffer.read())
print(json.dumps(sorted(sys.modules)))
"""


def test_a_new_worker_is_unpickled_without_the_app() -> None:
    # The supervisor pickles the worker (its config and its target) for the new process, which
    # unpickles it at full priority before anything can be lowered: the protocol, handed over
    # as a class, used to import the whole app there (half a second of CPU taken from the
    # workers serving during a reload).
    config = uvicorn.Config("app.main:app", workers=2, **config_args(Settings()))
    handed = pickle.dumps((config, Worker))
    done = subprocess.run([sys.executable, "-c", _UNPICKLE], input=handed, cwd=ROOT,
                          capture_output=True, check=True, timeout=60)
    imported = set(json.loads(done.stdout))
    assert "app.web.worker" in imported
    heavy = {"app.web.protocol", "app.web.app", "app.search", "fastapi", "whoosh"}
    assert not heavy & imported


@pytest.mark.skipif(not hasattr(os, "setpriority"), reason="no thread priorities here")
def test_low_priority_work_started_from_low_priority_work_is_lowered_once() -> None:
    # A worker loads its app at low priority, and the app makes itself at low priority too
    # (`app.main`): lowered twice, a loading worker took twice as long under load.
    def own() -> int:
        return os.getpriority(os.PRIO_PROCESS, threading.get_native_id())

    seen: list[int] = []

    def caller() -> None:
        before = own()
        seen.extend([before, at_low_priority(lambda: at_low_priority(own))])

    thread = threading.Thread(target=caller)
    thread.start()
    thread.join()
    before, inner = seen
    assert inner == min(before + NICENESS, 19)
