"""What a burst of connections costs everyone else, against the floor: the app and a server
that does nothing with them, under the same burst, in one run (#20).

    .venv/bin/python -m bench.burst_floor [--sockets 2000] [--rounds 3]

The attack bench's 2,000-socket phase (`bench.attack --only slow`) opens its sockets in one
burst, and its probe's slowest answers come in that phase's first fraction of a second. This
bench asks how much of that a server can avoid at all. It runs the same burst against two
servers on 127.0.0.1. The floor is uvloop with a protocol that reads and drops what every
attacking connection sends and answers everyone else `200 ok`, in two processes on one
listening socket (as the app's workers share theirs): the least a server can do per
connection. The app is `python -m app serve` with 2 workers and default settings. In each
round a probe asks every 5 ms, over a kept-alive connection and a new one in turn; after 1 s
the burst opens `--sockets` non-reading connections from 127.0.0.2 (`SO_RCVBUF` 4096) and,
0.3 s later, sends on each 120 pipelined `GET /search-index.json`. The table gives the
probe's answers before the burst and in its first second, and the CPU the server's processes
spent per connection: on opening them (until the requests are sent), on the requests (until
the window ends) and on closing them (in the second after). The CPU is the steadier measure:
the probe's slowest answers vary from round to round with what else the two cores run.
Every loop is bounded; only 127.0.0.1 is contacted.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import resource
import socket
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from http.client import HTTPConnection
from pathlib import Path
from typing import cast

from bench import figures
from bench.attack_phases import ATTACKER_ADDRESS, ask, index_burst, non_reader
from bench.server import child_pids, cpu_seconds, running_server, serve_command
from bench.stats import percentile

#: Seconds of probing before the burst, from the burst's start after it, and between the
#: connections and their requests.
BEFORE, AFTER, SEND_AFTER = 1.0, 1.0, 0.3
#: The probe's pause between two requests, and its timeout for one.
PROBE_GAP, PROBE_TIMEOUT = 0.005, 10.0
#: Seconds between rounds: the app's workers close the burst's connections and settle; the
#: first `CLOSE_SETTLE` of them count as the closing's CPU.
SETTLE, CLOSE_SETTLE = 5.0, 1.0
#: The most sockets a round opens (the process's file limit must hold them).
MOST_SOCKETS = 4000


# --- the floor: a server that does nothing with the attacking connections ---------------------

_OK = b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\ncontent-type: text/plain\r\n\r\nok"


class _FloorProtocol(asyncio.Protocol):
    """Reads and drops what a connection from the attacker's address sends; answers every
    request head of any other `200 ok`, kept alive."""

    def __init__(self) -> None:
        self._transport: asyncio.Transport | None = None
        self._buffer = b""
        self._attacker = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # uvloop's transports are not `asyncio.Transport` subclasses, but have its methods.
        self._transport = cast(asyncio.Transport, transport)
        peer = transport.get_extra_info("peername")
        self._attacker = peer is not None and peer[0] == ATTACKER_ADDRESS

    def data_received(self, data: bytes) -> None:
        if self._attacker:
            return  # read and dropped: nothing of it stays, in the kernel or here
        self._buffer += data
        while self._transport is not None and b"\r\n\r\n" in self._buffer:
            _, self._buffer = self._buffer.split(b"\r\n\r\n", 1)
            self._transport.write(_OK)


async def _serve_floor(sock: socket.socket, parent: int | None) -> None:
    loop = asyncio.get_running_loop()
    await loop.create_server(_FloorProtocol, sock=sock)
    # A forked worker ends with the process that was started (the bench stops only that one).
    while parent is None or os.getppid() == parent:
        await asyncio.sleep(0.2)


def serve_floor(port: int, workers: int = 2) -> None:
    """The floor on `port`: `workers` processes on one listening socket, as uvicorn's workers
    share theirs, with uvicorn's backlog (the same accept queue as the app's)."""
    import uvloop

    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", port))
    sock.listen(2048)
    parent = None
    for _ in range(workers - 1):
        started = os.getpid()
        if os.fork() == 0:
            parent = started
            break
    uvloop.run(_serve_floor(sock, parent))


# --- one round: a probe, and a burst from the attacker's address -------------------------------

@dataclass
class Round:
    #: (seconds from the burst's start, "kept" or "new", milliseconds), before and after.
    before: list[float] = field(default_factory=list)
    during: list[tuple[float, str, float]] = field(default_factory=list)
    connect_ms: float = 0.0
    #: The server's CPU seconds (all its processes) from the burst's start to its requests,
    #: from the requests to the window's end, and for the closing of its connections.
    cpu: tuple[float, float, float] = (0.0, 0.0, 0.0)
    sockets: int = 0


def _probe(port: int, stop: threading.Event, times: list[tuple[float, str, float]],
           start: float) -> None:
    kept = HTTPConnection("127.0.0.1", port, timeout=PROBE_TIMEOUT)
    try:
        n = 0
        while not stop.is_set():
            n += 1
            t0 = time.perf_counter()
            if n % 2:
                ask(kept, "/healthz")
                kind = "kept"
            else:
                new = HTTPConnection("127.0.0.1", port, timeout=PROBE_TIMEOUT)
                try:
                    ask(new, "/healthz")
                finally:
                    new.close()
                kind = "new"
            times.append((time.monotonic() - start, kind, (time.perf_counter() - t0) * 1000))
            time.sleep(PROBE_GAP)
    finally:
        kept.close()


@contextlib.contextmanager
def _sockets(count: int) -> Iterator[list[socket.socket]]:
    opened: list[socket.socket] = []
    try:
        yield opened
    finally:
        for sock in opened:
            sock.close()


def burst_round(port: int, count: int, pids: Sequence[int] = ()) -> Round:
    """One probe run with one burst of `count` non-reading connections in its middle; with
    the server's `pids`, the CPU they used on the burst (the probe's few requests included)."""
    times: list[tuple[float, str, float]] = []
    stop = threading.Event()
    start = time.monotonic()
    thread = threading.Thread(target=_probe, args=(port, stop, times, start), daemon=True)
    thread.start()
    result = Round()
    try:
        time.sleep(BEFORE)
        with _sockets(count) as opened:
            cpu = [cpu_seconds(pids)]
            at = time.monotonic() - start
            for _ in range(count):
                sock = non_reader(port, b"")
                if sock is not None:
                    opened.append(sock)
            result.connect_ms = (time.monotonic() - start - at) * 1000
            result.sockets = len(opened)
            time.sleep(SEND_AFTER)
            cpu.append(cpu_seconds(pids))
            payload = index_burst(0)
            for sock in opened:
                with contextlib.suppress(OSError):
                    sock.send(payload)
            time.sleep(max(0.0, at + AFTER - (time.monotonic() - start)))
            cpu.append(cpu_seconds(pids))
    finally:
        stop.set()
        thread.join(timeout=PROBE_TIMEOUT + 5)
    time.sleep(CLOSE_SETTLE)
    cpu.append(cpu_seconds(pids))
    result.cpu = (cpu[1] - cpu[0], cpu[2] - cpu[1], cpu[3] - cpu[2])
    result.before = [ms for t, _, ms in times if t < at]
    result.during = [(t - at, kind, ms) for t, kind, ms in times if at <= t < at + AFTER]
    return result


# --- the table ---------------------------------------------------------------------------------

COLUMNS = ("server", "round", "connects, ms", "probe before: p50 / max ms",
           "probe answers in the burst's first second", "their p50 / p99 / max ms",
           "slowest (s after the burst's start, connection, ms)",
           "server CPU per connection: opening / requests / closing, µs")


def rows(name: str, rounds: Sequence[Round]) -> list[list[str]]:
    """One row per round of the server `name`."""
    out = []
    for n, one in enumerate(rounds, 1):
        during = [ms for _, _, ms in one.during]
        before = one.before or [float("nan")]
        slowest = sorted(one.during, key=lambda x: -x[2])[:3]
        out.append([
            name, str(n), f"{one.connect_ms:.0f}",
            f"{statistics.median(before):.2f} / {max(before):.2f}", str(len(during)),
            f"{percentile(during, 50):.2f} / {percentile(during, 99):.1f} / "
            f"{max(during, default=0.0):.1f}",
            "; ".join(f"{t:.2f} s {kind} {ms:.1f}" for t, kind, ms in slowest),
            " / ".join(f"{seconds / max(one.sockets, 1) * 1e6:.0f}" for seconds in one.cpu)])
    return out


def floor_command(port: int) -> list[str]:
    """The floor server on `port`, as a process of its own."""
    return [sys.executable, "-m", "bench.burst_floor", "--floor-server", str(port)]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sockets", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--record", action="store_true",
                        help="write the table to docs/figures.md (bench/figures.py)")
    parser.add_argument("--floor-server", type=int, metavar="PORT", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.floor_server:
        serve_floor(args.floor_server)
        return 0
    count = max(1, min(args.sockets, MOST_SOCKETS))
    rounds = max(1, min(args.rounds, 10))
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(max(soft, count + 256), hard), hard))
    table: list[list[str]] = []
    with tempfile.TemporaryDirectory(prefix="bench-burst-") as tmp:
        servers: tuple[tuple[str, dict[str, str], Callable[[int], list[str]]], ...] = (
            ("floor (uvloop, drops the attacker's bytes, 2 processes)", {}, floor_command),
            ("the app (python -m app serve, 2 workers)",
             {"RULES_WORKERS": "2", "RULES_INDEX_DIR": str(Path(tmp) / "index"),
              "RULES_STATE_DIR": str(Path(tmp) / "state")}, serve_command),
        )
        for name, env, command in servers:
            with running_server(env, timeout=300, command=command) as (base, process):
                port = int(base.rsplit(":", 1)[1])
                pids = [process.pid, *child_pids(process.pid)]
                done = []
                for n in range(rounds):
                    if n:
                        time.sleep(SETTLE)
                    done.append(burst_round(port, count, pids))
                table += rows(name, done)
    title = (f"{count} non-reading connections from {ATTACKER_ADDRESS} at once, then 120 "
             f"pipelined /search-index.json on each; probe /healthz every "
             f"{PROBE_GAP * 1000:.0f} ms, kept-alive and new in turn; {rounds} round(s) per "
             "server")
    print(f"룰사전 burst floor: {title}")
    print()
    print("| " + " | ".join(COLUMNS) + " |")
    print("|" + "---|" * len(COLUMNS))
    for row in table:
        print("| " + " | ".join(row) + " |")
    if args.record:
        print("recorded in", figures.record("burst floor", figures.Table(
            title="A burst of connections: the app against a server that does the least",
            command=figures.command("python -m bench.burst_floor", argv),
            columns=COLUMNS, rows=table, notes=[title])))
    return 0


if __name__ == "__main__":
    sys.exit(main())
