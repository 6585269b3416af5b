"""The attack bench's phases for issue #20: slow readers, heavy answers busted, a reload under load.

Each runs on a fresh `python -m app serve` (2 workers) with a probe that asks, every 50 ms in
turn, for `/healthz`, a cached entry page and an uncached search (a new query each time). The
probe first runs on the idle server (its unloaded p99, in the same run), then during the phase.
Targets: each probe target's p99 during the phase ≤ 5 × its unloaded p99, no 503 to the probe,
and after the phase every worker serves one data version (`/readyz` and the service worker's
ETag over 20 fresh connections). Every loop is bounded in time; only 127.0.0.1 is contacted.
"""

from __future__ import annotations

import contextlib
import json
import os
import resource
import select
import shutil
import signal
import socket
import threading
import time
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.client import HTTPConnection, HTTPException
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PROBE_TARGETS = ("/healthz", "/rules/Attack_of_Opportunity", "/api/search?q=%EB%8B%A8%EC%84%9C+")
PROBE_INTERVAL = 0.05
BASELINE_SECONDS = 8.0
TARGET_FACTOR = 5.0

Row = tuple[str, str, str, str]


@dataclass
class ProbeLog:
    """Latencies (ms) and statuses per probe target."""

    latencies: dict[str, list[float]] = field(
        default_factory=lambda: {t: [] for t in PROBE_TARGETS})
    statuses: dict[str, dict[int, int]] = field(
        default_factory=lambda: {t: {} for t in PROBE_TARGETS})
    errors: list[str] = field(default_factory=list)


def percentile(values: list[float], pct: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(pct / 100 * (len(ordered) - 1)))] if values else 0.0


def probe(port: int, stop: threading.Event, log: ProbeLog) -> None:
    """Ask the three targets in turn every `PROBE_INTERVAL` until `stop` is set."""
    conn = HTTPConnection("127.0.0.1", port, timeout=10)
    k = 0
    next_at = time.monotonic()
    while not stop.is_set():
        target = PROBE_TARGETS[k % len(PROBE_TARGETS)]
        path = target + (f"{k}x{time.monotonic_ns()}" if target.endswith("+") else "")
        start = time.perf_counter()
        try:
            conn.request("GET", path, headers={"Accept-Encoding": "gzip"})
            response = conn.getresponse()
            response.read()
            status = response.status
        except (OSError, HTTPException) as exc:
            conn.close()
            conn = HTTPConnection("127.0.0.1", port, timeout=10)
            status = 0
            log.errors.append(f"{target}: {type(exc).__name__}")
        log.latencies[target].append((time.perf_counter() - start) * 1000)
        log.statuses[target][status] = log.statuses[target].get(status, 0) + 1
        k += 1
        next_at = max(next_at + PROBE_INTERVAL, time.monotonic())
        stop.wait(next_at - time.monotonic())
    conn.close()


@contextlib.contextmanager
def probing(port: int) -> Iterator[ProbeLog]:
    log = ProbeLog()
    stop = threading.Event()
    thread = threading.Thread(target=probe, args=(port, stop, log), daemon=True)
    thread.start()
    try:
        yield log
    finally:
        stop.set()
        thread.join(timeout=30)


def warm(port: int) -> None:
    """The cached entry page asked twice on fresh connections, so every worker keeps it."""
    for _ in range(16):
        conn = HTTPConnection("127.0.0.1", port, timeout=10)
        for _ in range(2):
            conn.request("GET", PROBE_TARGETS[1], headers={"Accept-Encoding": "gzip"})
            conn.getresponse().read()
        conn.close()


def baseline(port: int) -> ProbeLog:
    warm(port)
    with probing(port) as log:
        time.sleep(BASELINE_SECONDS)
    return log


def probe_rows(unloaded: ProbeLog, loaded: ProbeLog) -> list[Row]:
    rows: list[Row] = []
    for target in PROBE_TARGETS:
        base = percentile(unloaded.latencies[target], 99)
        values = loaded.latencies[target]
        p99 = percentile(values, 99)
        limit = TARGET_FACTOR * base
        name = target.rstrip("+") + ("<new query>" if target.endswith("+") else "")
        rows.append((f"probe {name} p50 / p99 / max ({len(values)} requests; unloaded p99 "
                     f"{base:.1f} ms)",
                     f"{percentile(values, 50):.1f} / {p99:.1f} / {max(values, default=0):.1f} ms",
                     f"p99 ≤ {limit:.1f} ms", "ok" if p99 <= limit and values else "**FAIL**"))
    busy = sum(s.get(503, 0) for s in loaded.statuses.values())
    other = {str(code): n for s in loaded.statuses.values() for code, n in s.items()
             if code not in (200, 503)}
    rows.append(("probe 503 answers", str(busy), "0", "ok" if busy == 0 else "**FAIL**"))
    rows.append(("probe other failures", json.dumps(other) + (
        f" ({', '.join(sorted(set(loaded.errors))[:3])})" if loaded.errors else ""), "", ""))
    return rows


def one_version(base: str) -> tuple[set[str], set[str]]:
    """The data versions /readyz reports and the service worker's ETags, 20 fresh
    connections each (uvicorn's workers share the socket, so both are reached)."""
    versions: set[str] = set()
    tags: set[str] = set()
    for _ in range(20):
        with contextlib.suppress(OSError), urllib.request.urlopen(
                base + "/readyz", timeout=10) as response:
            versions.add(json.load(response)["version"])
        with contextlib.suppress(OSError), urllib.request.urlopen(
                base + "/sw.js", timeout=10) as response:
            tags.add(response.headers["etag"])
    return versions, tags


def version_rows(base: str) -> list[Row]:
    versions, tags = one_version(base)
    ok = len(versions) == 1 and len(tags) == 1
    return [("after the phase: data versions / service-worker ETags over 20 connections each",
             f"{len(versions)} / {len(tags)}", "1 / 1", "ok" if ok else "**FAIL**")]


# --- slow readers -----------------------------------------------------------------------------

def _raise_file_limit(wanted: int) -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < wanted:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(wanted, hard), hard))


def _non_reader(port: int, payload: bytes) -> socket.socket | None:
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.settimeout(2)
    try:
        sock.connect(("127.0.0.1", port))
        sock.setblocking(False)
        with contextlib.suppress(BlockingIOError):
            sock.send(payload)
    except OSError:
        sock.close()
        return None
    return sock


def slow_readers(port: int, count: int, payload: Callable[[int], bytes], seconds: float,
                 stats: dict[str, int]) -> None:
    """`count` sockets that pipeline `payload(i)` and never read, for `seconds`; a socket the
    server closes is replaced at once (the attacker keeps trying)."""
    _raise_file_limit(count + 256)
    sockets: dict[int, socket.socket] = {}
    poller = select.poll()
    made = 0

    def connect() -> None:
        nonlocal made
        sock = _non_reader(port, payload(made))
        made += 1
        if sock is not None:
            sockets[sock.fileno()] = sock
            poller.register(sock.fileno(), select.POLLERR | select.POLLHUP | select.POLLRDHUP)

    for _ in range(count):
        connect()
    deadline = time.monotonic() + seconds
    closed = 0
    while time.monotonic() < deadline:
        for fd, event in poller.poll(500):
            if event & (select.POLLERR | select.POLLHUP | select.POLLRDHUP) and fd in sockets:
                poller.unregister(fd)
                sockets.pop(fd).close()
                closed += 1
                if time.monotonic() < deadline:
                    connect()
    stats["connections made"] = made
    stats["closed by the server"] = closed
    stats["open at the end"] = len(sockets)
    for sock in sockets.values():
        sock.close()


def search_burst(i: int) -> bytes:
    return b"".join(f"GET /api/search?q=%EC%B9%B4%EB%93%9C%20s{i}r{k}&limit=50 HTTP/1.1\r\n"
                    "Host: 127.0.0.1\r\n\r\n".encode() for k in range(120))


def index_burst(i: int) -> bytes:
    return b"GET /search-index.json HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n" * 120


# --- a reload under load ----------------------------------------------------------------------

def revise(data: Path, label: str) -> None:
    """A new data version: one title changed in the Korean rules file."""
    text = (ROOT / "data" / "ahlcg-rules.json").read_text(encoding="utf-8")
    (data / "ahlcg-rules.json").write_text(text.replace("틈새 공격", f"틈새 공격 ({label})"),
                                           encoding="utf-8")


def reload_env(work: Path) -> dict[str, str]:
    """A data copy, and an index folder others may write to: the index is built in memory
    (the README's read-only case), the one that made reloads fail before #20."""
    data = work / "reload-data"
    shutil.copytree(ROOT / "data", data)
    shared = work / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    return {"RULES_DATA_DIR": str(data), "RULES_INDEX_DIR": str(shared / "index"),
            "RULES_STATE_DIR": str(work / "reload-state")}


def reloads(pid: int, data: Path, at: tuple[float, ...], started: float) -> list[float]:
    """Send SIGHUP with a new data version at each of the `at` seconds after `started`; the
    moments they were sent."""
    sent = []
    for n, moment in enumerate(at):
        time.sleep(max(0.0, started + moment - time.monotonic()))
        revise(data, f"bench {n}")
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGHUP)
        sent.append(time.monotonic() - started)
    return sent
