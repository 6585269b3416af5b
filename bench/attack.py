"""Attack bench: the production configuration under floods, slow readers and reloads.

    .venv/bin/python -m bench.attack [--flood-seconds 30] [--bust-requests 100000] [--quick]
        [--only issue8|issue20|slow|heavy|reload] [--phase-seconds 20] [--before REV] [--record]

Starts `python -m app serve` with RULES_WORKERS=2 and otherwise default settings on 127.0.0.1
(`bench.server.running_server`, the index built once in a temporary folder; a fresh server per
phase so each phase starts from an empty response cache) and runs six phases, each bounded
in time (4-6 are #20's, described in `bench.attack_phases`; `--before REV` runs them on the
code at REV first, in a temporary git worktree):

1. **Typo flood**: 20 wrk connections send unique worst-case queries (`bench.hostile_queries.
   generate`, percent-encoded, never one URL twice, so the response cache never answers)
   round-robin to `/api/search?q=`, `/search?q=`, `/api/suggest?q=`, `/go/<q>` and the 404 page
   `/rules/<q>`, read by `bench/attack.lua` from a pregenerated file. Meanwhile a probe thread
   (its own keep-alive connections, one request every 50 ms) alternates `/healthz` and the
   cached `/rules/Attack_of_Opportunity`. Targets: probe p99 ≤ 50 ms and always 200, no 5xx
   but 503 (admission control) to the attackers.
2. **Cache busting**: wrk sends `--bust-requests` requests built by `bench/attack.lua` with
   random long values of the parameters the cached routes read (stored), unknown parameters
   and ~16,000 characters of padding (answered, not stored), random `owned` cookies and odd
   spellings of it, with and without gzip. Idle RSS is read after 2,000 such requests and 2 s
   of rest; then each worker's VmRSS is sampled every second (printed at each tenth).
   Targets: no 5xx; RSS growth ≤ cache cap + 64 MiB and RSS ≤ cache cap + 64 MiB per worker
   (the cap is RULES_CACHE_MB, 32 by default); RSS plateaus (the max over the last third of
   the samples is within 2 MiB of the max over the middle third).
3. **Worst single query in-process**: `bench.hostile_queries.main` (its own measurement), the
   max per path (search, suggest, closest_entries) against its 20 ms target.
4. **Slow readers**: 16, then 2,000 sockets (SO_RCVBUF 4096) that pipeline 120 requests each
   (searches, then `/search-index.json`) and never read, each replaced at once when the server
   closes it, for `--phase-seconds`.
5. **Heavy answers busted**: `wrk -c50` on `/search-index.json?z=<random>`,
   `/search-texts.json` and `/timing?z=<random>`.
6. **A reload under load**: two SIGHUP reloads (a new data version each) under `wrk -c20`
   readers, with the index in memory (an index folder others may write), each waited for.

wrk counts answers per status in Lua (503 apart from other 5xx). One table per phase and a
summary are printed; a missed target says **FAIL**; the exit status is 0 either way (a bench).
`--quick` shortens every phase for a smoke run. Only 127.0.0.1 is contacted.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.client import HTTPConnection, HTTPException
from pathlib import Path
from urllib.parse import quote, urlsplit

from app.settings import Settings
from bench import attack_phases as phases
from bench import hostile_queries
from bench.server import ROOT, cpu_seconds, rss_kib, running_server, serving_pids, worktree
from bench.stats import percentile

LUA = Path(__file__).with_name("attack.lua")
SEED = 20261201
CONNECTIONS = 20
FLOOD_ROUTES = ("/api/search?q={}", "/search?q={}", "/api/suggest?q={}", "/go/{}", "/rules/{}")
PROBE_PATHS = ("/healthz", "/rules/Attack_of_Opportunity")
PROBE_INTERVAL = 0.05
PROBE_CONNECTIONS = 4
#: Unique flood URLs generated per second of flood (the attackers stop if they run out).
POOL_RATE = 2_000
TARGET_PROBE_P99_MS = 50.0
HEADROOM_MIB = 64.0
PLATEAU_MIB = 2.0

Row = tuple[str, str, str, str]


@dataclass
class WrkResult:
    """What one wrk run answered."""

    requests: int
    seconds: float
    statuses: dict[int, int]
    transport: dict[str, int]
    exhausted: bool

    @property
    def rps(self) -> float:
        return self.requests / self.seconds if self.seconds else 0.0

    def count(self, test: Callable[[int], bool]) -> int:
        return sum(n for status, n in self.statuses.items() if test(status))


@dataclass
class _ProbeLog:
    latencies: dict[str, list[float]] = field(default_factory=lambda: {p: [] for p in PROBE_PATHS})
    failures: list[str] = field(default_factory=list)


@dataclass
class _Server:
    base: str
    port: int
    pid: int
    log: Path


# --- helpers --------------------------------------------------------------------------------

@contextlib.contextmanager
def _server(work: Path, name: str, code: Path = ROOT, **extra: str) -> Iterator[_Server]:
    env = {"RULES_WORKERS": "2", "RULES_INDEX_DIR": str(work / "index"),
           "RULES_STATE_DIR": str(work / f"state-{name}"), **extra}
    log = work / f"server-{name}.log"
    workers: set[int] = set()
    try:
        with running_server(env, timeout=300, log_path=log, cwd=code) as (base, process):
            try:
                yield _Server(base, urlsplit(base).port or 80, process.pid, log)
            finally:
                workers = set(serving_pids(process.pid)) - {process.pid}
    finally:
        # A server that drowned (the code before #20) may leave workers the supervisor could
        # not stop: end them, by their own pid.
        for pid in workers:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)


def _run_wrk(server: _Server, seconds: int, *script_args: str,
             connections: int = CONNECTIONS, stop: threading.Event | None = None) -> WrkResult:
    """One wrk run of `bench/attack.lua`, ended early (SIGINT) when the script says "stop"
    or `stop` is set."""
    wrk = shutil.which("wrk")
    if wrk is None:
        raise RuntimeError("wrk is not installed (apt-get install wrk)")
    proc = subprocess.Popen(
        [wrk, "-t1", f"-c{connections}", f"-d{seconds}s", "--timeout", "10s", "-s", str(LUA),
         server.base, "--", *script_args],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    killer = threading.Timer(seconds + 60, proc.kill)
    killer.start()

    def interrupt() -> None:
        if stop is not None and not stop.wait(seconds + 60):
            return
        with contextlib.suppress(ProcessLookupError):
            proc.send_signal(signal.SIGINT)

    if stop is not None:
        threading.Thread(target=interrupt, daemon=True).start()
    try:
        assert proc.stdout is not None
        lines = []
        for line in proc.stdout:
            if line.strip() == "stop":
                with contextlib.suppress(ProcessLookupError):
                    proc.send_signal(signal.SIGINT)
            lines.append(line)
        proc.wait()
    finally:
        killer.cancel()
    found = next((x for x in lines if x.startswith("{")), None)
    if proc.returncode != 0 or found is None:
        raise RuntimeError(f"wrk failed ({proc.returncode}): {''.join(lines).strip()[:500]}")
    data = json.loads(found)
    return WrkResult(
        requests=data["requests"], seconds=data["duration_us"] / 1e6,
        statuses={int(k): v for k, v in data["statuses"].items()},
        transport={k: data[k] for k in ("connect", "read", "write", "timeout") if data[k]},
        exhausted=bool(data["exhausted"]))


@contextlib.contextmanager
def _in_background(target: Callable[[threading.Event], None]) -> Iterator[None]:
    """Run `target(stop)` in a thread for the duration of the block."""
    stop = threading.Event()
    thread = threading.Thread(target=target, args=(stop,), daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join(timeout=15)


def _verdict(ok: bool) -> str:
    return "ok" if ok else "**FAIL**"


# --- phase 1: typo flood with a probe ---------------------------------------------------------

def _flood_paths(n: int, seed: int) -> list[str]:
    """`n` unique URLs: generated queries in turn on each flood route."""
    return [FLOOD_ROUTES[i % len(FLOOD_ROUTES)].format(quote(q, safe=""))
            for i, q in enumerate(hostile_queries.generate(n, seed))]


def _probe_get(conns: list[HTTPConnection], k: int, port: int) -> tuple[str, float, str]:
    """Request number `k`: its path, seconds taken and "" or what went wrong."""
    path, at = PROBE_PATHS[k % 2], (k // 2) % len(conns)
    start = time.perf_counter()
    try:
        conns[at].request("GET", path, headers={"Accept-Encoding": "gzip"})
        response = conns[at].getresponse()
        response.read()
        problem = "" if response.status == 200 else f"{path}: status {response.status}"
    except (OSError, HTTPException) as exc:
        conns[at].close()
        conns[at] = HTTPConnection("127.0.0.1", port, timeout=10)
        problem = f"{path}: {type(exc).__name__}"
    return path, time.perf_counter() - start, problem


def _probe(port: int, stop: threading.Event, log: _ProbeLog) -> None:
    conns = [HTTPConnection("127.0.0.1", port, timeout=10) for _ in range(PROBE_CONNECTIONS)]
    next_at, k = time.monotonic(), 0
    while not stop.is_set():
        path, seconds, problem = _probe_get(conns, k, port)
        log.latencies[path].append(seconds * 1000)
        if problem:
            log.failures.append(problem)
        k += 1
        next_at = max(next_at + PROBE_INTERVAL, time.monotonic())
        stop.wait(next_at - time.monotonic())
    for conn in conns:
        conn.close()


def _warm_probe_target(port: int) -> None:
    """Ask for the cached page on many fresh connections, twice each, so every worker has it
    stored and promoted before the flood."""
    for _ in range(16):
        conn = HTTPConnection("127.0.0.1", port, timeout=10)
        for _ in range(2):
            conn.request("GET", PROBE_PATHS[1], headers={"Accept-Encoding": "gzip"})
            conn.getresponse().read()
        conn.close()


def _flood(server: _Server, seconds: int, paths_file: Path) -> tuple[WrkResult, _ProbeLog, bool]:
    _warm_probe_target(server.port)
    workers, log = serving_pids(server.pid), _ProbeLog()
    with _in_background(lambda stop: _probe(server.port, stop, log)):
        result = _run_wrk(server, seconds, "flood", str(paths_file), "1")
    return result, log, serving_pids(server.pid) != workers


def _flood_rows(result: WrkResult, log: _ProbeLog, restarted: bool) -> list[Row]:
    other_5xx = result.count(lambda s: s >= 500 and s != 503)
    rows: list[Row] = [
        ("attacker requests/s", f"{result.rps:,.0f} ({result.requests:,} in "
         f"{result.seconds:.1f} s{', ran out of unique URLs' if result.exhausted else ''})",
         "", ""),
        ("attacker statuses", json.dumps({str(s): n for s, n in sorted(
            result.statuses.items())}), "", ""),
        ("attacker 503 (admission)", f"{result.statuses.get(503, 0):,}", "", ""),
        ("attacker 5xx other than 503", f"{other_5xx:,}", "0", _verdict(other_5xx == 0)),
        ("attacker transport errors", json.dumps(result.transport), "", ""),
    ]
    for path, values in log.latencies.items():
        p99 = percentile(values, 99)
        rows.append((f"probe {path} p50 / p95 / p99 / max ({len(values)} requests)",
                     " / ".join(f"{percentile(values, p):.1f}" for p in (50, 95)) +
                     f" / {p99:.1f} / {max(values, default=0.0):.1f} ms",
                     f"p99 ≤ {TARGET_PROBE_P99_MS:.0f} ms", _verdict(p99 <= TARGET_PROBE_P99_MS)))
    failures = ", ".join(sorted(set(log.failures))[:5])
    rows.append(("probe failures (not 200)", f"{len(log.failures)}" +
                 (f" ({failures})" if failures else ""), "0", _verdict(not log.failures)))
    if restarted:
        rows.append(("worker processes", "changed (a worker restarted)", "stable", "**FAIL**"))
    return rows


# --- phase 2: cache busting with RSS samples --------------------------------------------------

@dataclass
class _Memory:
    idle: dict[int, float]
    samples: dict[int, list[float]] = field(default_factory=dict)
    cpu: dict[int, float] = field(default_factory=dict)


def _sample_rss(server_pid: int, stop: threading.Event, samples: dict[int, list[float]]) -> None:
    while not stop.wait(1.0):
        for pid in serving_pids(server_pid):
            with contextlib.suppress(OSError, RuntimeError):
                samples.setdefault(pid, []).append(rss_kib(pid) / 1024)


def _bust(server: _Server, budget: int, max_seconds: int,
          warmup: int) -> tuple[WrkResult, _Memory]:
    _run_wrk(server, max_seconds, "bust", str(warmup), str(SEED + 1))
    time.sleep(2)
    workers = serving_pids(server.pid)
    memory = _Memory({pid: rss_kib(pid) / 1024 for pid in workers})
    cpu0 = {pid: cpu_seconds([pid]) for pid in workers}
    with _in_background(lambda stop: _sample_rss(server.pid, stop, memory.samples)):
        result = _run_wrk(server, max_seconds, "bust", str(budget), str(SEED))
    memory.cpu = {pid: cpu_seconds([pid]) - cpu0.get(pid, 0.0) for pid in memory.samples}
    return result, memory


def _bust_rows(result: WrkResult, memory: _Memory, cap_mib: float) -> list[Row]:
    errors = result.count(lambda s: s >= 500)
    limit = cap_mib + HEADROOM_MIB
    rows: list[Row] = [
        ("requests/s", f"{result.rps:,.0f} ({result.requests:,} in {result.seconds:.1f} s)",
         "", ""),
        ("statuses", json.dumps({str(s): n for s, n in sorted(result.statuses.items())}), "", ""),
        ("5xx answers", f"{errors:,}", "0", _verdict(errors == 0)),
        ("transport errors", json.dumps(result.transport), "{}", _verdict(not result.transport)),
    ]
    if set(memory.samples) != set(memory.idle):
        rows.append(("worker processes", f"{sorted(memory.idle)} → {sorted(memory.samples)}",
                     "stable", "**FAIL**"))
    for pid, values in sorted(memory.samples.items()):
        rows += _worker_rows(pid, memory.idle.get(pid, values[0]), values, memory.cpu[pid],
                             limit)
    return rows


def _worker_rows(pid: int, idle: float, values: list[float], cpu: float,
                 limit: float) -> list[Row]:
    top, third = max(values), max(1, len(values) // 3)
    mid, last = max(values[third:2 * third] or values), max(values[2 * third:] or values)
    tenths = " ".join(f"{values[round(i * (len(values) - 1) / 10)]:.0f}" for i in range(11))
    return [
        (f"worker {pid} RSS idle / max / end (CPU in the run)",
         f"{idle:.1f} / {top:.1f} / {values[-1]:.1f} MiB ({cpu:.0f} s)", "", ""),
        (f"worker {pid} RSS at each tenth of the run", f"{tenths} MiB", "", ""),
        (f"worker {pid} RSS growth (max − idle)", f"{top - idle:+.1f} MiB",
         f"≤ {limit:.0f} MiB", _verdict(top - idle <= limit)),
        (f"worker {pid} RSS max (absolute)", f"{top:.1f} MiB", f"≤ {limit:.0f} MiB",
         _verdict(top <= limit)),
        (f"worker {pid} RSS plateau (max last third − max middle third)",
         f"{last:.1f} − {mid:.1f} = {last - mid:+.1f} MiB", f"≤ {PLATEAU_MIB:.0f} MiB",
         _verdict(last - mid <= PLATEAU_MIB)),
    ]


# --- phase 3: the worst single query in-process ---------------------------------------------

def _hostile(quick: bool) -> tuple[dict[str, float], str]:
    """Max ms per path, read from `bench.hostile_queries.main`'s own table, and that table."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        hostile_queries.main(["-n", "60", "--rounds", "1"] if quick else [])
    lines = out.getvalue().splitlines()
    names = next(x for x in lines if x.startswith("kind")).split()[1:]
    worst = dict.fromkeys(names, 0.0)
    for line in lines:
        if line.split(" ", 1)[0] in hostile_queries.KINDS:
            cells = re.findall(r"([\d.]+) / ([\d.]+) / ([\d.]+)", line)
            for name, (_, _, top) in zip(names, cells, strict=False):
                worst[name] = max(worst[name], float(top))
    return worst, out.getvalue()


def _hostile_rows(worst: dict[str, float]) -> list[Row]:
    target = hostile_queries.TARGET_MS
    return [(f"{name}, slowest query", f"{ms:.2f} ms", f"≤ {target:.0f} ms",
             _verdict(ms <= target)) for name, ms in worst.items()]


# --- the report and the run -----------------------------------------------------------------

def _table(title: str, rows: list[Row]) -> str:
    lines = [title, "", "| metric | value | target | |", "|---|---|---|---|"]
    return "\n".join(lines + [f"| {a} | {b} | {c} | {d} |" for a, b, c, d in rows]) + "\n"


def _log_rows(log: Path) -> list[Row]:
    text = log.read_text(encoding="utf-8", errors="replace")
    errors = [x for x in text.splitlines() if re.search(r"\b(ERROR|CRITICAL)\b|Traceback", x)]
    for line in errors[:5]:
        print(f"server: {line}")
    return [("server log", f"{len(errors)} error line(s)", "0", _verdict(not errors))]


def _report(phase: str, title: str, rows: list[Row], summary: list[Row]) -> None:
    """Print a phase's table now; keep its targets, named by phase, for the summary."""
    print(_table(f"룰사전 attack, {phase}: {title}", rows), flush=True)
    summary += [(f"{phase}: {a}", b, c, d) for a, b, c, d in rows if d]


# --- phases 4-6 (#20): slow readers, heavy answers busted, a reload under load ---------------

def _slow_phase(server: _Server, seconds: int) -> list[Row]:
    """16 non-reading sockets pipelining searches, then 2,000 pipelining the biggest answer,
    each part with its own probe window against the same unloaded probe."""
    unloaded = phases.baseline(server.port)
    rows: list[Row] = []
    for count, payload, what in ((16, "search", "120 searches (limit=50)"),
                                 (2_000, "index", "120 × /search-index.json")):
        part = f"{count:,} sockets"
        workers = serving_pids(server.pid)
        with phases.slow_readers(server.port, count, payload, seconds) as attack, \
                phases.spending(lambda: serving_pids(server.pid)) as spend, \
                phases.probing(server.port) as loaded:
            stats = attack()
        rows.append((f"{count:,} non-reading sockets (SO_RCVBUF 4096) pipelining {what}, "
                     f"{seconds} s", ", ".join(f"{k} {v:,}" for k, v in stats.items()), "", ""))
        rows += spend.rows(part, seconds)
        rows += phases.probe_rows(unloaded, loaded, part)
        if serving_pids(server.pid) != workers:
            rows.append((f"{part}: worker processes", "changed (a worker restarted)", "stable",
                         "**FAIL**"))
    return rows + phases.version_rows(server.port, serving_pids(server.pid))


def _heavy_phase(server: _Server, seconds: int) -> list[Row]:
    unloaded = phases.baseline(server.port)
    with phases.spending(lambda: serving_pids(server.pid)) as spend, \
            phases.probing(server.port) as loaded:
        result = _run_wrk(server, seconds, "heavy", str(SEED), connections=50)
    errors = result.count(lambda s: s >= 500)
    rows = [("wrk -c50: /search-index.json?z=<random>, /search-texts.json, /timing?z=<random>",
             f"{result.rps:,.0f} answers/s ({result.requests:,} in {result.seconds:.1f} s), "
             f"statuses {json.dumps(result.statuses)}", "", ""),
            ("5xx answers to the attacker", f"{errors:,}", "0", _verdict(errors == 0))]
    rows += spend.rows("wrk -c50", seconds)
    return (rows + phases.probe_rows(unloaded, loaded)
            + phases.version_rows(server.port, serving_pids(server.pid)))


#: The heavy answers wrk asks for (`attack.lua`'s `heavy`), by path: what the floor stores.
HEAVY_PATHS = ("/search-index.json", "/search-texts.json", "/timing")


def _stored_answers(server: _Server, folder: Path) -> None:
    """The heavy answers as `server` sends them, identity and gzip, written to `folder` for
    the floor (`floor_app.StoredAnswers`)."""
    folder.mkdir()
    for path in HEAVY_PATHS:
        for gzip in (False, True):
            conn = HTTPConnection("127.0.0.1", server.port, timeout=30)
            conn.request("GET", path, headers={"Accept-Encoding": "gzip"} if gzip else {})
            response = conn.getresponse()
            body = response.read()
            conn.close()
            if response.status != 200 or (response.getheader("Content-Encoding") == "gzip"
                                          ) != gzip:
                raise RuntimeError(f"{path} answered {response.status}, not as asked")
            (folder / (path.lstrip("/") + (".gz" if gzip else ""))).write_bytes(body)


def _heavy_floor(work: Path, answers: Path, seconds: int) -> list[Row]:
    """The heavy phase against the floor: a bare ASGI app (`floor_app.stored`) on the same
    uvicorn, httptools and uvloop with 2 workers, sending the same answers' bytes, under the
    same wrk and the same probe (every other path: 4 KB). The app's probe targets are 5 × its
    unloaded p99; this shows what the machine itself gives under the same flood."""
    def command(port: int) -> list[str]:
        return [sys.executable, "-m", "uvicorn", "bench.floor_app:stored", "--factory",
                "--host", "127.0.0.1", "--port", str(port), "--http", "httptools",
                "--loop", "uvloop", "--lifespan", "off", "--no-access-log",
                "--log-level", "warning", "--workers", "2"]

    log = work / "server-heavy-floor.log"
    with running_server({"BENCH_FLOOR_ANSWERS": str(answers)}, command=command,
                        ready_path="/healthz", log_path=log) as (base, process):
        floor = _Server(base, urlsplit(base).port or 80, process.pid, log)
        unloaded = phases.baseline(floor.port)
        with phases.probing(floor.port) as loaded:
            result = _run_wrk(floor, seconds, "heavy", str(SEED), connections=50)
    return [("floor: the same wrk on a bare ASGI app sending the same answers' bytes",
             f"{result.rps:,.0f} answers/s ({result.requests:,} in {result.seconds:.1f} s)",
             "", ""),
            *phases.floor_probe_rows(unloaded, loaded)]


RELOADS = 2


def _reload_phase(server: _Server, seconds: int, data: Path, source: Path) -> list[Row]:
    """wrk -c20 readers for at least `seconds`, and until `RELOADS` SIGHUP reloads (each
    `seconds / 4` after the previous one ended) have ended. The probe is judged over the
    whole run, and shown apart for wrk alone (before the first reload) and while reloading."""
    unloaded = phases.baseline(server.port)
    moments: list[tuple[float, float]] = []
    watch = phases.LogWatch(server.log)
    begun = watch.count(phases.RELOAD_BEGUN)
    with phases.spending(lambda: serving_pids(server.pid)) as spend, \
            phases.probing(server.port) as loaded:
        sender = threading.Thread(target=phases.reloads, args=(
            server.pid, data, source, watch, RELOADS, seconds / 4, threading.Event(),
            moments, loaded.began), daemon=True)
        sender.start()
        ended = threading.Event()

        def stopper() -> None:
            sender.join(timeout=RELOADS * 130 + seconds)
            time.sleep(seconds / 4)
            ended.set()

        threading.Thread(target=stopper, daemon=True).start()
        result = _run_wrk(server, RELOADS * 130 + 2 * seconds, "load", str(SEED),
                          connections=CONNECTIONS, stop=ended)
    begun = watch.count(phases.RELOAD_BEGUN) - begun
    done = watch.count(phases.RELOAD_DONE)
    failed = watch.count(phases.RELOAD_FAILED)
    errors = result.count(lambda s: s >= 500)
    timeline = ", ".join(f"{a:.0f}→{b:.0f} s" for a, b in moments)
    rows = [(f"wrk -c{CONNECTIONS} reader mix during {RELOADS} SIGHUP reloads (index in memory)",
             f"{result.rps:,.0f} answers/s over {result.seconds:.0f} s, statuses "
             f"{json.dumps(result.statuses)}", "", ""),
            ("reloads sent / completed / failed (sent → ended)",
             f"{begun} / {done} / {failed} ({timeline})", f"{RELOADS} / {RELOADS} / 0",
             _verdict(begun == RELOADS and done == RELOADS and failed == 0)),
            ("5xx answers to the readers", f"{errors:,}", "0", _verdict(errors == 0))]
    starts = phases.worker_starts(server.log)
    if starts:
        rows.append(("new workers' start, spawned → ready (under the load; the supervisor's "
                     "log)", f"median {statistics.median(starts):.1f} s, max {max(starts):.1f} "
                     f"s ({len(starts)} workers)", "", ""))
    rows += spend.rows("wrk and reloads", result.seconds)
    rows += phases.probe_rows(unloaded, loaded)
    if moments:
        # Not targets: where the probe's time went.
        windows = [("wrk alone, before the first reload", 0.0, moments[0][0]),
                   *((f"reload {n + 1}", a, b) for n, (a, b) in enumerate(moments))]
        for name, start, end in windows:
            part = loaded.between(start, end)
            rows.append((f"{name} ({end - start:.0f} s): probe p99 " + " / ".join(
                _name_of(t) for t in phases.PROBE_TARGETS),
                " / ".join(f"{percentile(part.latencies[t], 99):.1f}"
                           for t in phases.PROBE_TARGETS) + " ms", "", ""))
    return rows + phases.version_rows(server.port, serving_pids(server.pid))


def _name_of(target: str) -> str:
    return {"/healthz": "health", "/rules/Attack_of_Opportunity": "entry"}.get(target, "search")


def _arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench.attack",
                                     description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--flood-seconds", type=int, default=30, help="typo flood (max 600)")
    parser.add_argument("--bust-requests", type=int, default=100_000,
                        help="cache-busting requests")
    parser.add_argument("--bust-max-seconds", type=int, default=600,
                        help="bound on the cache-busting phase")
    parser.add_argument("--phase-seconds", type=int, default=20,
                        help="length of each #20 phase (slow readers, heavy answers, reload)")
    parser.add_argument("--only", choices=("issue8", "issue20", *ISSUE20), default=None,
                        help="run only the first three phases (#8), the last three (#20), or "
                        "one of the last three")
    parser.add_argument("--before", metavar="REVISION", default=None,
                        help="also run the #20 phases on the code at REVISION (a temporary git "
                        "worktree), first, e.g. 7d0f4d0 (the code #20 was filed against)")
    parser.add_argument("--quick", action="store_true", help="short phases (a smoke run)")
    parser.add_argument("--record", action="store_true",
                        help="write the summary to docs/figures.json and docs/figures.md")
    args = parser.parse_args(argv)
    if args.quick:
        args.flood_seconds, args.bust_requests = min(args.flood_seconds, 5), 3_000
        args.bust_max_seconds = min(args.bust_max_seconds, 60)
        args.phase_seconds = min(args.phase_seconds, 8)
    args.phase_seconds = max(4, min(args.phase_seconds, 120))
    args.flood_seconds = max(1, min(args.flood_seconds, 600))
    args.bust_max_seconds = max(1, min(args.bust_max_seconds, 3600))
    return args


def main(argv: list[str] | None = None) -> int:
    args = _arguments(argv)
    cap_mib = float(Settings().cache_mb)
    summary: list[Row] = []
    with tempfile.TemporaryDirectory(prefix="rules-attack-") as tmp:
        work = Path(tmp)
        if args.only in (None, "issue8"):
            _issue8_phases(args, work, cap_mib, summary)
        if args.only != "issue8":
            if args.before:
                with worktree(args.before) as old:
                    _issue20_phases(args, work, summary, old, f"before, {args.before}")
            _issue20_phases(args, work, summary)
    failed = sum(row[3] != "ok" for row in summary)
    title = (f"룰사전 attack summary: {len(summary) - failed} of {len(summary)} targets met"
             + (f", {failed} **FAIL**" if failed else ""))
    print(_table(title, summary))
    if args.record:
        _record(args, argv, title, summary)
    return 0


def _record(args: argparse.Namespace, argv: list[str] | None, title: str,
            summary: list[Row]) -> None:
    from bench import figures

    figures.record(f"attack: {args.only or 'all'}", figures.Table(
        title=f"Attacks on the real server, one run ({args.only or 'every phase'})",
        command=figures.command("python -m bench.attack", argv),
        columns=["metric", "value", "target", ""], rows=summary,
        notes=[title, "Each phase on a fresh 2-worker server; the probe asks every 50 ms for "
               "/healthz, a cached entry page and an uncached search, each over a kept and a "
               "new connection in turn, and its targets are 5 × its own unloaded p99 in the "
               "same run. The attackers connect from 127.0.0.2, the probe and wrk from "
               "127.0.0.1; all share the machine's cores with the server."]))


def _issue8_phases(args: argparse.Namespace, work: Path, cap_mib: float,
                   summary: list[Row]) -> None:
    paths = work / "flood.txt"
    pool = _flood_paths(args.flood_seconds * POOL_RATE, SEED)
    paths.write_text("\n".join(pool) + "\n", encoding="utf-8")
    with _server(work, "flood") as server:
        rows = _flood_rows(*_flood(server, args.flood_seconds, paths))
    _report("1/6 typo flood", f"2 workers, {CONNECTIONS} attacker connections, "
            f"{args.flood_seconds} s, {len(pool):,} unique URLs prepared, probe every "
            f"{PROBE_INTERVAL * 1000:.0f} ms", rows + _log_rows(server.log), summary)
    with _server(work, "bust") as server:
        result, memory = _bust(server, args.bust_requests, args.bust_max_seconds,
                               warmup=500 if args.quick else 2_000)
    _report("2/6 cache busting", f"2 workers, {CONNECTIONS} connections, "
            f"{args.bust_requests:,} requests (≤ {args.bust_max_seconds} s), cache cap "
            f"{cap_mib:.0f} MiB per worker, RSS sampled every 1 s",
            _bust_rows(result, memory, cap_mib) + _log_rows(server.log), summary)
    worst, text = _hostile(args.quick)
    print("bench.hostile_queries:\n" + text)
    _report("3/6 worst single query", "≤ 200 characters, in-process", _hostile_rows(worst),
            summary)


ISSUE20 = ("slow", "heavy", "reload")


def _issue20_phases(args: argparse.Namespace, work: Path, summary: list[Row],
                    code: Path = ROOT, label: str = "") -> None:
    seconds = args.phase_seconds
    chosen = ISSUE20 if args.only in (None, "issue20") else (args.only,)
    probe = (f"probe every {phases.PROBE_INTERVAL * 1000:.0f} ms: /healthz, a cached entry, "
             f"an uncached search, each over a kept and a new connection in turn; unloaded for "
             f"{phases.BASELINE_SECONDS:.0f} s first")
    tag = f"{label}-" if label else ""
    title = f" ({label})" if label else ""
    if "slow" in chosen:
        with _server(work, f"{tag}slow", code) as server:
            rows = _slow_phase(server, seconds)
        _report(f"4/6 slow readers{title}", f"2 workers; {probe}", rows + _log_rows(server.log),
                summary)
    if "heavy" in chosen:
        answers = work / f"{tag}heavy-answers"
        with _server(work, f"{tag}heavy", code) as server:
            rows = _heavy_phase(server, seconds)
            _stored_answers(server, answers)
        rows += _log_rows(server.log)
        if not label:  # the floor is the machine's, not the code's: once per run
            rows += _heavy_floor(work, answers, seconds)
        _report(f"5/6 heavy answers busted{title}", f"2 workers; {probe}", rows, summary)
    if "reload" in chosen:
        folder = work / f"{tag}reload"
        folder.mkdir()
        env = phases.reload_env(folder, code / "data")
        with _server(work, f"{tag}reload", code, **env) as server:
            rows = _reload_phase(server, 2 * seconds, Path(env["RULES_DATA_DIR"]), code / "data")
        _report(f"6/6 reload under load{title}", f"2 workers, index in memory; {probe}",
                rows + _log_rows(server.log), summary)


if __name__ == "__main__":
    raise SystemExit(main())
