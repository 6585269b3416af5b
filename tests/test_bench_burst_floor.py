"""bench.burst_floor: its floor server answers the probe and never the attacker, ends whole
when stopped, and a round measures the probe before and during a burst."""

from __future__ import annotations

import socket
import time

from bench.attack_phases import ATTACKER_ADDRESS
from bench.burst_floor import COLUMNS, burst_round, floor_command, rows
from bench.server import running_server


def _answers(port: int, source: str) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=2,
                                  source_address=(source, 0)) as sock:
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        sock.settimeout(0.5)
        try:
            return sock.recv(4096)
        except TimeoutError:
            return b""


def _refused(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
    except OSError:
        return True
    return False


def test_the_floor_answers_players_drops_the_attacker_and_a_round_measures_both_sides() -> None:
    with running_server({}, command=floor_command, timeout=30) as (base, _):
        port = int(base.rsplit(":", 1)[1])
        assert _answers(port, "127.0.0.1").startswith(b"HTTP/1.1 200 OK")
        assert _answers(port, ATTACKER_ADDRESS) == b""
        measured = burst_round(port, 50)
    assert measured.before and measured.during
    assert all(ms > 0 for _, _, ms in measured.during)
    (row,) = rows("floor", [measured])
    assert len(row) == len(COLUMNS)
    # Both of the floor's processes end with it: nothing listens on its port any more.
    deadline = time.monotonic() + 5
    while not _refused(port) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _refused(port)
