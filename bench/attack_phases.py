"""The attack bench's phases for issue #20: slow readers, heavy answers busted, a reload under load.

Each runs on a fresh `python -m app serve` (2 workers) with a probe that asks, every 50 ms in
turn, for `/healthz`, a cached entry page and an uncached search (a new query each time), each
in turn over its keep-alive connection and over a new connection, as a player's browser does
(its first request to the site, or after an idle connection was closed). The probe first runs
on the idle server (its unloaded p99, in the same run), then during each part of the phase.
Targets: each probe target's p99 during the phase ≤ 5 × its unloaded p99, no 503 to the probe,
and after the phase every worker serves one data version (`/readyz` and the service worker's
ETag, asked over connections each mapped to the worker that accepted it). The attackers run in
a process of their own, so that their Python does not delay the probe's, and the probe's
window opens once that process has started (its start-up is the bench's, not the attack).
Every loop is bounded in time; only 127.0.0.1 is contacted.
"""

from __future__ import annotations

import contextlib
import json
import multiprocessing
import os
import re
import resource
import select
import shutil
import signal
import socket
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.client import HTTPConnection, HTTPException
from pathlib import Path
from typing import Any

from bench.server import cpu_seconds
from bench.stats import percentile

PROBE_TARGETS = ("/healthz", "/rules/Attack_of_Opportunity", "/api/search?q=%EB%8B%A8%EC%84%9C+")
PROBE_MODES = ("keep-alive", "new connection")
PROBE_INTERVAL = 0.05
BASELINE_SECONDS = 10.0
TARGET_FACTOR = 5.0
#: Connections opened at once to ask every worker for its data version.
VERSION_CONNECTIONS = 24
VERSION_ROUNDS = 4
#: The version check gives up after this long (a server still drowning answers nothing).
VERSION_SECONDS = 40.0
#: The most an attacking process may take to start, and to be told to begin.
ATTACKER_START_SECONDS = 60.0

Row = tuple[str, str, str, str]


def _verdict(ok: bool) -> str:
    return "ok" if ok else "**FAIL**"


# --- the probe ----------------------------------------------------------------------------------

@dataclass
class ProbeLog:
    """Latencies (ms) per probe target, statuses per target, and transport errors."""

    latencies: dict[str, list[float]] = field(
        default_factory=lambda: {t: [] for t in PROBE_TARGETS})
    statuses: dict[str, dict[int, int]] = field(
        default_factory=lambda: {t: {} for t in PROBE_TARGETS})
    by_mode: dict[str, list[float]] = field(default_factory=lambda: {m: [] for m in PROBE_MODES})
    errors: list[str] = field(default_factory=list)
    #: (seconds into the window, target, mode, ms) of every request.
    timeline: list[tuple[float, str, str, float]] = field(default_factory=list)
    #: `time.perf_counter()` when the window began.
    began: float = 0.0

    def between(self, start: float, end: float) -> ProbeLog:
        """The requests made from `start` to `end` seconds into the window."""
        part = ProbeLog(began=self.began + start)
        for at, target, mode, ms in self.timeline:
            if start <= at < end:
                part.latencies[target].append(ms)
                part.by_mode[mode].append(ms)
                part.timeline.append((at - start, target, mode, ms))
        part.statuses = self.statuses
        return part


def ask(conn: HTTPConnection, path: str) -> int:
    """GET `path` on `conn` (gzip accepted), the answer read whole; its status."""
    conn.request("GET", path, headers={"Accept-Encoding": "gzip"})
    response = conn.getresponse()
    response.read()
    return response.status


def probe(port: int, stop: threading.Event, log: ProbeLog) -> None:
    """Ask the three targets in turn every `PROBE_INTERVAL` until `stop` is set; each target
    alternately over the kept connection and over a new one."""
    kept = HTTPConnection("127.0.0.1", port, timeout=10)
    k = 0
    next_at = time.monotonic()
    began = log.began = time.perf_counter()
    while not stop.is_set():
        target = PROBE_TARGETS[k % len(PROBE_TARGETS)]
        mode = PROBE_MODES[(k // len(PROBE_TARGETS)) % len(PROBE_MODES)]
        path = target + (f"{k}x{time.monotonic_ns()}" if target.endswith("+") else "")
        fresh = mode != PROBE_MODES[0]
        conn = HTTPConnection("127.0.0.1", port, timeout=10) if fresh else kept
        start = time.perf_counter()
        try:
            status = ask(conn, path)
        except (OSError, HTTPException) as exc:
            status = 0
            log.errors.append(f"{target} ({mode}): {type(exc).__name__}")
            conn.close()
            if not fresh:
                kept = HTTPConnection("127.0.0.1", port, timeout=10)
        ms = (time.perf_counter() - start) * 1000
        if fresh:
            conn.close()
        log.latencies[target].append(ms)
        log.by_mode[mode].append(ms)
        log.timeline.append((start - began, target, mode, ms))
        log.statuses[target][status] = log.statuses[target].get(status, 0) + 1
        k += 1
        next_at = max(next_at + PROBE_INTERVAL, time.monotonic())
        stop.wait(next_at - time.monotonic())
    kept.close()


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
            ask(conn, PROBE_TARGETS[1])
        conn.close()


def baseline(port: int) -> ProbeLog:
    warm(port)
    with probing(port) as log:
        time.sleep(BASELINE_SECONDS)
    return log


def _name(target: str) -> str:
    return target.rstrip("+") + ("<new query>" if target.endswith("+") else "")


def probe_rows(unloaded: ProbeLog, loaded: ProbeLog, part: str = "") -> list[Row]:
    """The probe's p99 per target against 5 × its unloaded p99, and its 503s."""
    rows: list[Row] = []
    prefix = f"{part}: " if part else ""
    for target in PROBE_TARGETS:
        base = percentile(unloaded.latencies[target], 99)
        values = loaded.latencies[target]
        p99 = percentile(values, 99)
        limit = TARGET_FACTOR * base
        rows.append((f"{prefix}probe {_name(target)} p50 / p99 / max ({len(values)} requests; "
                     f"unloaded p99 {base:.1f} ms)",
                     f"{percentile(values, 50):.1f} / {p99:.1f} / {max(values, default=0):.1f} ms",
                     f"p99 ≤ {limit:.1f} ms", _verdict(p99 <= limit and bool(values))))
    modes = "; ".join(
        f"{mode} {percentile(unloaded.by_mode[mode], 99):.1f} → "
        f"{percentile(loaded.by_mode[mode], 99):.1f} ms" for mode in PROBE_MODES)
    rows.append((f"{prefix}probe p99 by connection, unloaded → loaded", modes, "", ""))
    slowest = sorted(loaded.timeline, key=lambda item: -item[3])[:4]
    rows.append((f"{prefix}probe's slowest requests (at s: target, connection, ms)", "; ".join(
        f"{at:.1f}: {_name(target)[:12]}, {mode}, {ms:.0f}" for at, target, mode, ms in slowest),
        "", ""))
    busy = sum(s.get(503, 0) for s in loaded.statuses.values())
    other = {str(code): n for s in loaded.statuses.values() for code, n in s.items()
             if code not in (200, 503)}
    rows.append((f"{prefix}probe 503 answers", str(busy), "0", _verdict(busy == 0)))
    rows.append((f"{prefix}probe other failures", json.dumps(other) + (
        f" ({', '.join(sorted(set(loaded.errors))[:3])})" if loaded.errors else ""), "", ""))
    return rows


def floor_probe_rows(unloaded: ProbeLog, loaded: ProbeLog) -> list[Row]:
    """The probe's p50 / p99 / max per target on the floor, with the multiple of its own
    unloaded p99 that the app's target allows 5 of: what the machine gives under the same
    flood, shown beside the app's rows (no target of its own)."""
    rows: list[Row] = []
    for target in PROBE_TARGETS:
        base = percentile(unloaded.latencies[target], 99)
        values = loaded.latencies[target]
        p99 = percentile(values, 99)
        rows.append((f"floor: probe {_name(target)} p50 / p99 / max ({len(values)} requests; "
                     f"unloaded p99 {base:.1f} ms)",
                     f"{percentile(values, 50):.1f} / {p99:.1f} / {max(values, default=0):.1f} "
                     f"ms (p99 {p99 / base if base else 0:.1f}× its unloaded)", "", ""))
    return rows


# --- one data version on every worker -----------------------------------------------------------

def _socket_inodes(pid: int) -> set[int]:
    inodes: set[int] = set()
    with contextlib.suppress(OSError):
        for fd in Path(f"/proc/{pid}/fd").iterdir():
            with contextlib.suppress(OSError):
                target = os.readlink(fd)
                if target.startswith("socket:["):
                    inodes.add(int(target[8:-1]))
    return inodes


def _server_side_inodes(port: int, clients: set[int]) -> dict[int, int]:
    """{client port: inode of the server's socket of that connection} from /proc/net/tcp."""
    found: dict[int, int] = {}
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with contextlib.suppress(OSError):
            for line in Path(table).read_text().splitlines()[1:]:
                cells = line.split()
                local, remote, inode = cells[1], cells[2], int(cells[9])
                if int(local.rsplit(":", 1)[1], 16) == port:
                    peer = int(remote.rsplit(":", 1)[1], 16)
                    if peer in clients and inode:
                        found[peer] = inode
    return found


def versions_by_worker(port: int, workers: list[int]) -> dict[int, set[tuple[str, str]]]:
    """{worker pid: the (data version, service-worker ETag) pairs it answered}: connections
    opened together (so the workers share them), each mapped to the worker that holds it."""
    seen: dict[int, set[tuple[str, str]]] = {}
    deadline = time.monotonic() + VERSION_SECONDS
    for _ in range(VERSION_ROUNDS):
        conns = [HTTPConnection("127.0.0.1", port, timeout=5)
                 for _ in range(VERSION_CONNECTIONS)]
        with contextlib.ExitStack() as stack:
            for conn in conns:
                stack.callback(conn.close)
                with contextlib.suppress(OSError):
                    conn.connect()
            conns = [conn for conn in conns if conn.sock is not None]
            ports = {conn.sock.getsockname()[1]: conn for conn in conns if conn.sock}
            time.sleep(0.2)  # accepted by now
            inodes = _server_side_inodes(port, set(ports))
            owners = {inode: pid for pid in workers for inode in _socket_inodes(pid)}
            for client, conn in ports.items():
                if time.monotonic() > deadline:
                    seen.setdefault(-1, set()).add(("(no answer in time)", ""))
                    break
                try:
                    conn.request("GET", "/readyz")
                    ready = conn.getresponse()
                    version = json.loads(ready.read()).get("version", "?")
                    conn.request("GET", "/sw.js", headers={"Accept-Encoding": "gzip"})
                    sw = conn.getresponse()
                    sw.read()
                    tag = sw.headers.get("etag", "?")
                except (OSError, HTTPException, ValueError):
                    seen.setdefault(-1, set()).add(("(no answer)", ""))
                    continue
                pid = owners.get(inodes.get(client, -1), -1)
                seen.setdefault(pid, set()).add((version, tag))
    return seen


def version_rows(port: int, workers: list[int]) -> list[Row]:
    seen = versions_by_worker(port, workers)
    pairs = set().union(*seen.values()) if seen else set()
    reached = sorted(pid for pid in seen if pid in workers)
    ok = len(pairs) == 1 and reached == sorted(workers)
    shown = ", ".join(f"{v[:10]}…/{t[:14]}…" for v, t in sorted(pairs))
    return [(f"after the phase: workers reached / (data version, service-worker ETag) pairs "
             f"over {VERSION_ROUNDS * VERSION_CONNECTIONS} connections",
             f"{len(reached)} of {len(workers)} / {len(pairs)} ({shown})", f"{len(workers)} / 1",
             _verdict(ok))]


# --- what the server spends -----------------------------------------------------------------------

def _rss_mib(pid: int) -> float:
    with contextlib.suppress(OSError):
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def _tcp_kernel_mib() -> float:
    """Memory the kernel's TCP stack holds (all sockets on the machine; pages of 4 KiB)."""
    text = Path("/proc/net/sockstat").read_text()
    found = re.search(r"TCP:.* mem (\d+)", text)
    return int(found.group(1)) * 4 / 1024 if found else 0.0


@dataclass
class Spend:
    """Sampled once a second: workers' RSS and the kernel's TCP memory; CPU over the window."""

    rss: list[float] = field(default_factory=list)
    kernel: list[float] = field(default_factory=list)
    cpu: float = 0.0

    def rows(self, part: str, seconds: float) -> list[Row]:
        return [(f"{part}: workers' CPU / RSS max (both) / kernel TCP memory max",
                 f"{self.cpu / seconds * 100:.0f} % of a core / {max(self.rss, default=0):.0f} "
                 f"MiB / {max(self.kernel, default=0):.0f} MiB", "", "")]


@contextlib.contextmanager
def spending(workers: Callable[[], list[int]]) -> Iterator[Spend]:
    spend = Spend()
    stop = threading.Event()
    start = {pid: cpu_seconds([pid]) for pid in workers()}
    last = dict(start)

    def sample() -> None:
        while not stop.wait(1.0):
            pids = workers()
            last.update({pid: cpu_seconds([pid]) for pid in pids})
            spend.rss.append(sum(_rss_mib(pid) for pid in pids))
            spend.kernel.append(_tcp_kernel_mib())

    thread = threading.Thread(target=sample, daemon=True)
    thread.start()
    try:
        yield spend
    finally:
        stop.set()
        thread.join(timeout=5)
        last.update({pid: cpu_seconds([pid]) for pid in workers()})
        # Workers that ended meanwhile count with their last sample.
        spend.cpu = sum(last.values()) - sum(start.values())


# --- slow readers -------------------------------------------------------------------------------

def _raise_file_limit(wanted: int) -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < wanted:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(wanted, hard), hard))


#: The attackers' own address: on the internet the attacker is another client than the
#: players, and the server tells them apart by address (`RULES_MAX_CLIENT_CONNECTIONS`); the
#: probe and wrk connect from 127.0.0.1.
ATTACKER_ADDRESS = "127.0.0.2"


def non_reader(port: int, payload: bytes) -> socket.socket | None:
    """A non-blocking socket from the attacker's address, connecting to the server on `port`,
    with a 4 KiB receive buffer: an attacker that never reads what it is sent."""
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.bind((ATTACKER_ADDRESS, 0))
    sock.setblocking(False)
    with contextlib.suppress(BlockingIOError):
        sock.connect(("127.0.0.1", port))
    return sock


def _attack(port: int, count: int, payload_name: str, seconds: float,
            results: multiprocessing.queues.Queue[dict[str, int]], ready: Any, go: Any) -> None:
    """`count` sockets that pipeline the payload and never read, for `seconds`; a socket the
    server closes is replaced at once (the attacker keeps trying). In a process of its own,
    which says `ready` once started and attacks when told to `go`."""
    payload: Callable[[int], bytes] = {"search": search_burst, "index": index_burst}[payload_name]
    _raise_file_limit(count + 256)
    ready.set()
    if not go.wait(timeout=ATTACKER_START_SECONDS):
        return
    sockets: dict[int, tuple[socket.socket, bytes]] = {}
    poller = select.poll()
    stats = {"connections made": 0, "closed by the server": 0}

    def connect() -> None:
        sock = non_reader(port, b"")
        if sock is None:
            return
        data = payload(stats["connections made"])
        stats["connections made"] += 1
        sockets[sock.fileno()] = (sock, data)
        # Writable once connected: then the burst is sent (as much as the server takes).
        poller.register(sock.fileno(), select.POLLOUT | select.POLLERR | select.POLLHUP
                        | select.POLLRDHUP)

    for _ in range(count):
        connect()
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        for fd, event in poller.poll(200):
            if fd not in sockets:
                continue
            sock, data = sockets[fd]
            if event & (select.POLLERR | select.POLLHUP | select.POLLRDHUP):
                poller.unregister(fd)
                sockets.pop(fd)
                sock.close()
                stats["closed by the server"] += 1
                if time.monotonic() < deadline:
                    connect()
            elif event & select.POLLOUT:
                try:
                    sent = sock.send(data)
                except BlockingIOError:
                    sent = 0
                except OSError:
                    sent = len(data)
                rest = data[sent:]
                sockets[fd] = (sock, rest)
                if not rest:  # all sent: from now on only the end of the connection counts
                    poller.modify(fd, select.POLLERR | select.POLLHUP | select.POLLRDHUP)
    stats["open at the end"] = len(sockets)
    # What the attacker itself took of the two cores it shares with the server and the probe
    # (a real attacker's costs the server nothing): 12-18 % of a core in the 2,000-socket part.
    usage = resource.getrusage(resource.RUSAGE_SELF)
    stats["attacker CPU ms"] = round((usage.ru_utime + usage.ru_stime) * 1000)
    for sock, _ in sockets.values():
        sock.close()
    results.put(stats)


@contextlib.contextmanager
def slow_readers(port: int, count: int, payload: str,
                 seconds: float) -> Iterator[Callable[[], dict[str, int]]]:
    """Start `_attack` in a process of its own and wait until it is ready; yield the call that
    lets it attack and returns its counts. The attacker's own start-up (a new interpreter
    importing the bench: about half a second of a core) is not the attack, and on the two
    cores it shares with the server it delayed the probe's first requests (31 and 28 ms at
    0.3-0.5 s into a 16-socket window, 2026-12-06): so the probe starts after it."""
    context = multiprocessing.get_context("spawn")
    results: multiprocessing.queues.Queue[dict[str, int]] = context.Queue()
    ready, go = context.Event(), context.Event()
    process = context.Process(target=_attack,
                              args=(port, count, payload, seconds, results, ready, go))
    process.start()

    def attack() -> dict[str, int]:
        go.set()
        stats: dict[str, int] = results.get(timeout=seconds + 60)
        return stats

    try:
        if not ready.wait(timeout=ATTACKER_START_SECONDS):
            raise RuntimeError("the attacking process did not start")
        yield attack
    finally:
        if not go.is_set():
            process.kill()
        process.join(timeout=30)
        if process.is_alive():
            process.kill()


def search_burst(i: int) -> bytes:
    return b"".join(f"GET /api/search?q=%EC%B9%B4%EB%93%9C%20s{i}r{k}&limit=50 HTTP/1.1\r\n"
                    "Host: 127.0.0.1\r\n\r\n".encode() for k in range(120))


def index_burst(i: int) -> bytes:
    return b"GET /search-index.json HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n" * 120


# --- a reload under load ------------------------------------------------------------------------

def revise(data: Path, source: Path, label: str) -> None:
    """A new data version: one title changed in the Korean rules file."""
    text = (source / "ahlcg-rules.json").read_text(encoding="utf-8")
    (data / "ahlcg-rules.json").write_text(text.replace("틈새 공격", f"틈새 공격 ({label})"),
                                           encoding="utf-8")


def reload_env(work: Path, source: Path) -> dict[str, str]:
    """A data copy, and an index folder others may write to: the index is built in memory
    (the README's read-only case), the one that made reloads fail before #20."""
    data = work / "reload-data"
    shutil.copytree(source, data)
    shared = work / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    return {"RULES_DATA_DIR": str(data), "RULES_INDEX_DIR": str(shared / "index"),
            "RULES_STATE_DIR": str(work / "reload-state")}


#: What the server logs when a reload of several workers begins, ends well, or fails
#: (`app.web.server`; the code before #20 logged uvicorn's own lines).
RELOAD_BEGUN = ("Received SIGHUP",)
RELOAD_DONE = ("every worker serves data version",)
RELOAD_FAILED = ("reload failed", "was not ready in time", "aborting the restart")


class LogWatch:
    """How often each of `needles` occurs in a growing log, read from where the last look
    ended. Reading the whole log at each look (every 0.2 s during a reload, with tens of MB of
    access lines at wrk's rate) held this process's GIL, and the probe's thread in it then
    measured its own waits: the probe's p99 rose 10× during every reload, in this process."""

    def __init__(self, log: Path, needles: tuple[str, ...] = (
            *RELOAD_BEGUN, *RELOAD_DONE, *RELOAD_FAILED)) -> None:
        self._log = log
        self._offset = 0
        self._counts = dict.fromkeys(needles, 0)

    def count(self, needles: tuple[str, ...]) -> int:
        with self._log.open("rb") as log:
            log.seek(self._offset)
            data = log.read()
        whole = data[:data.rfind(b"\n") + 1]  # a needle lies within one line
        self._offset += len(whole)
        for needle in self._counts:
            self._counts[needle] += whole.count(needle.encode())
        return sum(self._counts[n] for n in needles)


_WORKER_READY = re.compile(r"new worker \d+ ready in ([0-9.]+) s")


def worker_starts(log: Path) -> list[float]:
    """Seconds each new worker of a reload took from its spawn to ready (the supervisor logs
    it from the code of 2026-12-02 on)."""
    text = log.read_text(encoding="utf-8", errors="replace")
    return [float(m) for m in _WORKER_READY.findall(text)]


def reloads(pid: int, data: Path, source: Path, log: LogWatch, count: int, gap: float,
            stop: threading.Event, moments: list[tuple[float, float]], start: float) -> None:
    """`count` SIGHUPs, each with a new data version, `gap` seconds after the previous one
    ended (completed or failed, read from the server log, at most 120 s each); the moments
    (sent, ended) in seconds after `start` (a `time.perf_counter()`)."""
    for n in range(count):
        if stop.wait(gap):
            return
        done = log.count((*RELOAD_DONE, *RELOAD_FAILED))
        revise(data, source, f"bench {n}")
        sent = time.perf_counter() - start
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGHUP)
        deadline = time.monotonic() + 120
        while (time.monotonic() < deadline and not stop.is_set()
               and log.count((*RELOAD_DONE, *RELOAD_FAILED)) == done):
            time.sleep(0.2)
        moments.append((sent, time.perf_counter() - start))
