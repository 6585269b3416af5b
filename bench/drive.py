"""Driving load at a server: the request mix and its paths, the load generators (wrk, or an
asyncio httpx client), and starting and stopping the production server. Shared by the load
bench (`bench.load`) and the static export's (`bench.static_load`).

The mix, drawn at random (fixed seed), is described with the load bench (`bench.load`).
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
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from http.client import HTTPConnection
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlencode

from bench.server import serve_command
from bench.stats import percentile

ROOT = Path(__file__).resolve().parents[1]
QUERIES = Path(__file__).with_name("search-queries.dev.json")
HOST = "127.0.0.1"
SEED = 20261130

#: (kind, share of requests)
MIX: tuple[tuple[str, float], ...] = (
    ("entry", 0.60), ("search", 0.15), ("api_search", 0.15), ("suggest", 0.06), ("static", 0.04),
)

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
            serve_command(port), cwd=ROOT, env=env, stdin=subprocess.DEVNULL,
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
        seconds=elapsed, p50_ms=percentile(latencies, 50) * 1000,
        p99_ms=percentile(latencies, 99) * 1000, errors=sum(detail.values()),
        error_detail=detail, client_cpu_s=time.process_time() - cpu0,
    )


def bounded(args: argparse.Namespace) -> argparse.Namespace:
    """The load benches' common options within their bounds: every run ends, and a typo
    cannot open a million connections."""
    args.duration = max(1, min(args.duration, 600))
    args.warmup = max(0, min(args.warmup, 60))
    args.clients = max(1, min(args.clients, 1000))
    return args
