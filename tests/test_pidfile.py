"""The running server's pid file: believed only while the server holds its lock."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from app.pidfile import holding_pid_file, running_server
from tests.conftest import ROOT

HOLD = ("import sys, time; from pathlib import Path; from app.pidfile import holding_pid_file\n"
        "with holding_pid_file(Path(sys.argv[1])):\n"
        "    print('held', flush=True); time.sleep(60)\n")


def test_a_live_server_is_found_and_a_stale_file_is_not(tmp_path: Path) -> None:
    path = tmp_path / "run" / "server.pid"
    assert running_server(path) is None  # no file
    holder = subprocess.Popen([sys.executable, "-c", HOLD, str(path)], cwd=ROOT,
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        assert running_server(path) == holder.pid
        # A second server leaves the first one's file alone.
        with holding_pid_file(path):
            assert running_server(path) == holder.pid
    finally:
        holder.kill()
        holder.wait()
        if holder.stdout is not None:
            holder.stdout.close()
    # Killed without cleaning up: the file is left behind, but nobody holds it.
    assert path.exists() and running_server(path) is None
    path.write_text(f"{os.getpid()}\n")
    assert running_server(path) is None  # a pid in an unlocked file is never believed


def test_the_file_is_removed_when_the_server_stops(tmp_path: Path) -> None:
    path = tmp_path / "server.pid"
    with holding_pid_file(path):
        assert path.read_text().strip() == str(os.getpid())
    assert not path.exists()
    (tmp_path / "a-file").write_text("")
    started = time.monotonic()
    with holding_pid_file(tmp_path / "a-file" / "server.pid"):  # cannot be written: serves on
        pass
    assert time.monotonic() - started < 1
