"""Load bench: the production configuration under a realistic mix of requests.

    .venv/bin/python -m bench.load [--duration 60] [--clients 50] [--workers 2]
                                   [--client wrk|httpx] [--warmup 5]

Starts `python -m app serve` with RULES_WORKERS=2 on 127.0.0.1 and a free port (its own
temporary index folder), waits for /readyz, warms up, then drives `--clients` concurrent
keep-alive connections for `--duration` seconds with this mix, drawn at random (fixed seed):

    60 %  entry pages      /rules/{id} over every entry id listed by /api/sources/{id}
    15 %  search page      /search?q=…      Korean queries from bench/search-queries.dev.json
    15 %  search API       /api/search?q=…  the same queries
     6 %  suggest          /api/suggest?q=… every prefix of those queries
     4 %  static files     the /static/… URLs found in the HTML of a few pages (hashed names)

It prints one table: requests/s, p50/p99 latency, errors (non-2xx/3xx answers and transport
errors), each worker's resident memory (VmRSS from /proc) after the warm-up and at the end with
its growth, CPU used by the server and by the load generator, and the time each kind of request
takes one at a time afterwards, with a unique `_probe=N` parameter so that the response cache
is bypassed (to say which handler is slow; `--no-cache` runs the whole load uncached).
Targets missed are marked MISS; the exit status is 0 either way (it is a bench). The server is
stopped at the end (its whole process group, which only it is in). Only 127.0.0.1 is
contacted; every loop is bounded by a deadline.

Choice of load generator (measured here, 2 cores, 50 connections, same server and mix, 20 s):
`wrk` (Debian package, C, one thread, a Lua script cycling through a pre-drawn path list) used
about 2.5 % of one core per 1,000 requests/s (23 % of a core at 9,200 requests/s); an asyncio
driver on `httpx2` used 78 % of a core to reach only 711 requests/s (about 110 % of a core per
1,000 requests/s): the client, not the server, was the bottleneck (the server used 36 % of a
core), so it cannot measure the targets on this box. `wrk` is therefore the default;
`--client httpx` stays as a fallback for machines without it (`apt-get install wrk`). wrk's
latency runs from sending a request on a connection to its answer (no coordinated-omission
correction), which is what the target means here: 50 clients that each wait for their answer.
Both clients send `Accept-Encoding: gzip` as browsers do (`--no-gzip` to turn it off).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import re
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from http.client import HTTPConnection
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlencode

from bench.server import free_port, rss_kib, serving_pids

ROOT = Path(__file__).resolve().parents[1]
QUERIES = Path(__file__).with_name("search-queries.dev.json")
HOST = "127.0.0.1"
SEED = 20261130

#: (kind, share of requests)
MIX: tuple[tuple[str, float], ...] = (
    ("entry", 0.60), ("search", 0.15), ("api_search", 0.15), ("suggest", 0.06), ("static", 0.04),
)
#: Targets on a 2-core machine.
TARGET_RPS = 800.0
TARGET_P99_MS = 100.0
TARGET_GROWTH = 0.10

_LUA = r"""
-- Cycles through a pre-drawn random path list; each thread starts at its own offset.
local paths = {}
local i = 0
local threads = {}
local counter = 0
-- Browsers always ask for compressed answers.
if os.getenv("LOAD_GZIP") == "1" then wrk.headers["Accept-Encoding"] = "gzip" end

setup = function(thread)
  thread:set("offset", counter)
  counter = counter + 1
  table.insert(threads, thread)
end

init = function(args)
  for line in io.lines(args[1]) do paths[#paths + 1] = line end
  i = (offset or 0) * 7919 % #paths
end

request = function()
  i = i % #paths + 1
  return wrk.format("GET", paths[i])
end

done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    '{"requests": %d, "duration_us": %d, "bytes": %d, "p50_us": %d, "p90_us": %d, '
    .. '"p99_us": %d, "max_us": %d, "connect": %d, "read": %d, "write": %d, "status": %d, '
    .. '"timeout": %d}\n',
    summary.requests, summary.duration, summary.bytes, latency:percentile(50),
    latency:percentile(90), latency:percentile(99), latency.max, e.connect, e.read, e.write,
    e.status, e.timeout))
end
"""


@dataclass
class LoadResult:
    """What one load run measured."""

    client: str
    requests: int
    seconds: float
    p50_ms: float
    p99_ms: float
    errors: int
    error_detail: dict[str, int] = field(default_factory=dict)
    client_cpu_s: float = 0.0

    @property
    def rps(self) -> float:
        return self.requests / self.seconds if self.seconds else 0.0


# --- the server -----------------------------------------------------------------------------

def start_server(port: int, workers: int, index_dir: Path, log: Path,
                 extra_env: dict[str, str]) -> subprocess.Popen[bytes]:
    """`python -m app serve` in its own session (so its process group can be stopped)."""
    env = {
        **os.environ,
        **extra_env,
        "RULES_HOST": HOST,
        "RULES_PORT": str(port),
        "RULES_WORKERS": str(workers),
        "RULES_INDEX_DIR": str(index_dir),
        "PYTHONUNBUFFERED": "1",
    }
    with log.open("wb") as out:
        return subprocess.Popen(
            [sys.executable, "-m", "app", "serve"], cwd=ROOT, env=env, stdin=subprocess.DEVNULL,
            stdout=out, stderr=subprocess.STDOUT, start_new_session=True,
        )


def stop_server(proc: subprocess.Popen[bytes]) -> None:
    """SIGTERM to the server's process group, SIGKILL after 15 s."""
    if proc.poll() is not None:
        return
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=5)


def get(port: int, path: str, timeout: float = 10.0) -> tuple[int, bytes]:
    conn = HTTPConnection(HOST, port, timeout=timeout)
    try:
        conn.request("GET", path)
        response = conn.getresponse()
        return response.status, response.read()
    finally:
        conn.close()


def wait_ready(port: int, proc: subprocess.Popen[bytes], timeout: float) -> float:
    """Seconds until /readyz answered 200; raises if the server died or the deadline passed."""
    start = time.monotonic()
    while time.monotonic() - start < timeout:
        if proc.poll() is not None:
            raise RuntimeError(f"server exited with status {proc.returncode}")
        with contextlib.suppress(OSError):
            if get(port, "/readyz", timeout=2)[0] == 200:
                return time.monotonic() - start
        time.sleep(0.05)
    raise RuntimeError(f"/readyz did not answer within {timeout:.0f} s")


def rss_mib(pid: int) -> float | None:
    """`rss_kib` in MiB, or None once the process is gone."""
    try:
        return rss_kib(pid) / 1024
    except (OSError, RuntimeError):
        return None


def cpu_seconds(pids: Sequence[int]) -> float:
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for pid in pids:
        with contextlib.suppress(OSError):
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / ticks
    return total


# --- the request mix ------------------------------------------------------------------------

def collect_paths(port: int) -> dict[str, list[str]]:
    """Every path of each kind, from the running server and the development query set."""
    status, body = get(port, "/api/sources")
    if status != 200:
        raise RuntimeError(f"/api/sources answered {status}")
    entries: list[str] = []
    for source in json.loads(body):
        status, body = get(port, "/api/sources/" + quote(source["id"], safe=""))
        if status != 200:
            raise RuntimeError(f"/api/sources/{source['id']} answered {status}")
        entries += ["/rules/" + quote(e["id"], safe="") for e in json.loads(body)["entries"]]
    queries = [q["q"] for q in json.loads(QUERIES.read_text(encoding="utf-8"))["queries"]]
    prefixes = sorted({q[:n] for q in queries for n in range(1, len(q) + 1) if q[:n].strip()})
    static: set[str] = set()
    for page in ["/", entries[0], "/search?" + urlencode({"q": queries[0]})]:
        status, body = get(port, page)
        static.update(re.findall(r'(?:href|src)="(/static/[^"?#]+)', body.decode("utf-8")))
    if not static:
        raise RuntimeError("no /static/ URL found in the pages' HTML")
    return {
        "entry": entries,
        "search": ["/search?" + urlencode({"q": q}) for q in queries],
        "api_search": ["/api/search?" + urlencode({"q": q}) for q in queries],
        "suggest": ["/api/suggest?" + urlencode({"q": p}) for p in prefixes],
        "static": sorted(static),
    }


def draw_plan(paths: dict[str, list[str]], count: int, seed: int = SEED,
              mix: Sequence[tuple[str, float]] = MIX) -> list[str]:
    """`count` paths drawn with the `mix`'s shares (a kind by weight, then a path uniformly)."""
    rng = random.Random(seed)
    kinds = [k for k, _ in mix]
    weights = [w for _, w in mix]
    return [rng.choice(paths[kind]) for kind in rng.choices(kinds, weights, k=count)]


# --- load generators ------------------------------------------------------------------------

def run_wrk(port: int, plan_file: Path, clients: int, seconds: int, threads: int,
            gzip: bool) -> LoadResult:
    wrk = shutil.which("wrk")
    if wrk is None:
        raise RuntimeError("wrk is not installed (apt-get install wrk), or use --client httpx")
    script = plan_file.with_suffix(".lua")
    script.write_text(_LUA, encoding="utf-8")
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(
        [wrk, f"-t{threads}", f"-c{clients}", f"-d{seconds}s", "--timeout", "5s",
         "-s", str(script), f"http://{HOST}:{port}", "--", str(plan_file)],
        capture_output=True, text=True, timeout=seconds + 60, check=False,
        env={**os.environ, "LOAD_GZIP": "1" if gzip else "0"},
    )
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    line = next((x for x in done.stdout.splitlines() if x.startswith("{")), None)
    if done.returncode != 0 or line is None:
        raise RuntimeError(f"wrk failed ({done.returncode}): {done.stderr.strip()[:500]}")
    data: dict[str, int] = json.loads(line)
    detail = {k: data[k] for k in ("connect", "read", "write", "status", "timeout") if data[k]}
    return LoadResult(
        client=f"wrk, {threads} thread(s)", requests=data["requests"],
        seconds=data["duration_us"] / 1e6, p50_ms=data["p50_us"] / 1000,
        p99_ms=data["p99_us"] / 1000, errors=sum(detail.values()), error_detail=detail,
        client_cpu_s=(after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime),
    )


def run_httpx(port: int, plan: list[str], clients: int, seconds: int, gzip: bool) -> LoadResult:
    return asyncio.run(_httpx_load(port, plan, clients, seconds, gzip))


async def _httpx_load(port: int, plan: list[str], clients: int, seconds: int,
                      gzip: bool) -> LoadResult:
    import httpx2

    latencies: list[float] = []
    detail: dict[str, int] = {}
    limits = httpx2.Limits(max_connections=clients, max_keepalive_connections=clients)
    cpu0 = time.process_time()
    start = time.perf_counter()
    deadline = start + seconds

    async def client(offset: int, http: Any) -> None:
        i = offset
        while time.perf_counter() < deadline:
            path = plan[i % len(plan)]
            i += 1
            t0 = time.perf_counter()
            try:
                response = await http.get(path)
                await response.aread()
            except httpx2.HTTPError as exc:
                key = type(exc).__name__
                detail[key] = detail.get(key, 0) + 1
                continue
            latencies.append(time.perf_counter() - t0)
            if not 200 <= response.status_code < 400:
                key = f"status {response.status_code}"
                detail[key] = detail.get(key, 0) + 1

    headers = {"accept-encoding": "gzip" if gzip else "identity"}
    async with httpx2.AsyncClient(base_url=f"http://{HOST}:{port}", limits=limits,
                                  timeout=5.0, headers=headers) as http:
        await asyncio.gather(*(client(k * 7919, http) for k in range(clients)))
    elapsed = time.perf_counter() - start
    latencies.sort()
    return LoadResult(
        client="httpx2 asyncio", requests=len(latencies) + sum(
            v for k, v in detail.items() if not k.startswith("status")),
        seconds=elapsed, p50_ms=_percentile(latencies, 50) * 1000,
        p99_ms=_percentile(latencies, 99) * 1000, errors=sum(detail.values()),
        error_detail=detail, client_cpu_s=time.process_time() - cpu0,
    )


def _percentile(ordered: Sequence[float], pct: float) -> float:
    if not ordered:
        return 0.0
    return ordered[min(len(ordered) - 1, round(pct / 100 * (len(ordered) - 1)))]


def service_times(port: int, paths: dict[str, list[str]], per_kind: int,
                  gzip: bool) -> dict[str, float]:
    """Median time per kind of request, one at a time on one connection, after the load.

    Each path gets a unique `_probe=N` query parameter, which the handlers ignore but which
    makes it a response-cache miss: this is the time the handler itself takes.
    """
    rng = random.Random(SEED)
    medians: dict[str, float] = {}
    headers = {"Accept-Encoding": "gzip" if gzip else "identity"}
    conn = HTTPConnection(HOST, port, timeout=10)
    n = 0
    try:
        for kind, _ in MIX:
            times = []
            for path in (rng.choice(paths[kind]) for _ in range(per_kind)):
                n += 1
                probe = f"{path}{'&' if '?' in path else '?'}_probe={n}"
                t0 = time.perf_counter()
                conn.request("GET", probe, headers=headers)
                conn.getresponse().read()
                times.append(time.perf_counter() - t0)
            times.sort()
            medians[kind] = _percentile(times, 50) * 1000
    finally:
        conn.close()
    return medians


# --- the report -----------------------------------------------------------------------------

def _mark(ok: bool) -> str:
    return "ok" if ok else "**MISS**"


def report(args: argparse.Namespace, result: LoadResult, rss: dict[int, tuple[float, float]],
           restarted: bool, server_cpu_s: float, ready_s: float, services: dict[str, float],
           log_errors: list[str]) -> str:
    rows: list[tuple[str, str, str, str]] = [
        ("requests/s", f"{result.rps:,.0f} ({result.requests:,} in {result.seconds:.1f} s)",
         f"≥ {TARGET_RPS:.0f}", _mark(result.rps >= TARGET_RPS)),
        ("latency p50", f"{result.p50_ms:.1f} ms", "", ""),
        ("latency p99", f"{result.p99_ms:.1f} ms", f"≤ {TARGET_P99_MS:.0f} ms",
         _mark(result.p99_ms <= TARGET_P99_MS)),
        ("errors", f"{result.errors}" + (f" {result.error_detail}" if result.errors else ""),
         "0", _mark(result.errors == 0)),
    ]
    for pid, (first, last) in rss.items():
        growth = (last - first) / first if first else 0.0
        rows.append((f"worker {pid} RSS", f"{first:.1f} → {last:.1f} MiB ({growth:+.1%})",
                     f"≤ +{TARGET_GROWTH:.0%}", _mark(growth <= TARGET_GROWTH)))
    if restarted:
        rows.append(("worker processes", "changed during the run (a worker restarted)",
                     "stable", _mark(False)))
    rows += [
        ("server CPU", f"{server_cpu_s / result.seconds:.0%} of one core", "", ""),
        (f"load generator CPU ({result.client})",
         f"{result.client_cpu_s / result.seconds:.0%} of one core", "", ""),
        ("server log", f"{len(log_errors)} error line(s)", "0", _mark(not log_errors)),
        ("ready after start", f"{ready_s:.2f} s", "", ""),
    ]
    rows += [(f"handler time {kind} (p50, one at a time, cache bypassed)", f"{ms:.2f} ms", "", "")
             for kind, ms in services.items()]
    head = (f"룰사전 load: {args.workers} worker(s), {args.clients} clients, {args.duration} s, "
            f"{'gzip' if args.gzip else 'identity'}, "
            f"{'response cache off' if args.no_cache else 'response cache as configured'}, "
            f"mix " + ", ".join(f"{k} {w:.0%}" for k, w in MIX))
    lines = [head, "", "| metric | value | target | |", "|---|---|---|---|"]
    lines += [f"| {a} | {b} | {c} | {d} |" for a, b, c, d in rows]
    return "\n".join(lines)


def bounded(args: argparse.Namespace) -> argparse.Namespace:
    """The load benches' common options within their bounds: every run ends, and a typo
    cannot open a million connections."""
    args.duration = max(1, min(args.duration, 600))
    args.warmup = max(0, min(args.warmup, 60))
    args.clients = max(1, min(args.clients, 1000))
    return args


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench.load", description="Load bench of the production configuration.")
    parser.add_argument("--duration", type=int, default=60, help="seconds of load (max 600)")
    parser.add_argument("--clients", type=int, default=50, help="concurrent connections")
    parser.add_argument("--workers", type=int, default=2, help="RULES_WORKERS for the server")
    parser.add_argument("--warmup", type=int, default=5, help="seconds of load before measuring")
    parser.add_argument("--client", choices=("wrk", "httpx"),
                        default="wrk" if shutil.which("wrk") else "httpx")
    parser.add_argument("--threads", type=int, default=1, help="wrk threads")
    parser.add_argument("--no-gzip", dest="gzip", action="store_false",
                        help="do not send Accept-Encoding: gzip (browsers do)")
    parser.add_argument("--no-cache", action="store_true",
                        help="RULES_CACHE_MB=0: measure the handlers, not the response cache")
    parser.add_argument("--env", action="append", default=[], metavar="KEY=VALUE",
                        help="extra environment for the server (repeatable)")
    args = bounded(parser.parse_args(argv))

    with tempfile.TemporaryDirectory(prefix="rules-load-") as tmp:
        work = Path(tmp)
        port = free_port()
        log = work / "server.log"
        t0 = time.monotonic()
        extra = dict(item.split("=", 1) for item in args.env if "=" in item)
        if args.no_cache:
            extra["RULES_CACHE_MB"] = "0"
        proc = start_server(port, args.workers, work / "index", log, extra)
        try:
            wait_ready(port, proc, timeout=120)
            ready_s = time.monotonic() - t0
            paths = collect_paths(port)
            plan = draw_plan(paths, 20_000)
            plan_file = work / "paths.txt"
            plan_file.write_text("\n".join(plan) + "\n", encoding="utf-8")

            def load(seconds: int) -> LoadResult:
                if args.client == "wrk":
                    return run_wrk(port, plan_file, args.clients, seconds, args.threads,
                                   args.gzip)
                return run_httpx(port, plan, args.clients, seconds, args.gzip)

            if args.warmup:
                load(args.warmup)
            workers = serving_pids(proc.pid)
            first = {pid: rss_mib(pid) or 0.0 for pid in workers}
            cpu0 = cpu_seconds([proc.pid, *workers])
            result = load(args.duration)
            cpu1 = cpu_seconds([proc.pid, *workers])
            after = serving_pids(proc.pid)
            rss = {pid: (first[pid], rss_mib(pid) or 0.0) for pid in workers}
            services = service_times(port, paths, per_kind=40, gzip=args.gzip)
        finally:
            stop_server(proc)
        text = log.read_text(encoding="utf-8", errors="replace")
        log_errors = [x for x in text.splitlines()
                      if re.search(r"\b(ERROR|CRITICAL)\b|Traceback", x)]
    print(report(args, result, rss, after != workers, cpu1 - cpu0, ready_s, services,
                 log_errors))
    for line in log_errors[:10]:
        print("server:", line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
