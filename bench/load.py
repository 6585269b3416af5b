"""Load bench: the production configuration under a realistic mix, beside the floor.

    .venv/bin/python -m bench.load [--duration 20] [--clients 50] [--workers 2] [--warmup 5]
                                   [--client wrk|httpx] [--skip PART] [--no-cache] [--record]
                                   [--cold-cache]

One run, one server at a time, each on 127.0.0.1 and a free port, every load for `--duration`
seconds after `--warmup` seconds, `--clients` keep-alive connections:

1. **The floor** (`bench.floor_app`): a bare ASGI app answering 4 KB, on the same uvicorn,
   httptools and uvloop and the same number of workers, first and again after the app (step
   4). Every requests/s figure is printed as a share of the two floors' mean, and every p99 as
   a multiple of their mean p99: a noisy neighbour slows both, so the shares hold better than
   absolute numbers do (the two floors say how much the neighbours moved during the run).
2. **The app, response cache on** (`python -m app serve`, RULES_WORKERS=`--workers`, its own
   temporary index folder): the load mix below, once the cache is warm (every distinct URL of
   the draw asked for `WARM_PASSES` times first; `--cold-cache` leaves that out); then
   `/healthz`, the hashed static files and the (cached) entry pages, each kind alone, for half
   the duration each.
3. **The app, response cache off** (`RULES_CACHE_MB=0`): the same mix; then the time each kind
   takes one at a time (p50 over 40 requests).
4. The floor again.
5. **The static export behind nginx** (made with `--gzip`, the shipped
   deploy/nginx/static-site.conf), under the page part of the same draw (`bench.static_load`),
   when nginx is installed: what a page of this reference can cost.

The mix, drawn at random (fixed seed):

    60 %  entry pages      /rules/{id} over every entry id listed by /api/sources/{id}
    15 %  search page      /search?q=…      Korean queries from bench/search-queries.dev.json
    15 %  search API       /api/search?q=…  the same queries
     6 %  suggest          /api/suggest?q=… every prefix of those queries
     4 %  static files     the /static/… URLs found in the HTML of a few pages (hashed names)

Per load it prints requests/s, p50/p99 latency, errors (non-2xx/3xx answers and transport
errors), CPU used by the server (also per request, with the floor's per-request CPU as a share
of it: the figure that holds best when neighbours take the cores) and by the load generator,
and each worker's resident memory
(VmRSS from /proc) after the warm-up, halfway through and at the end. Targets
(issue #24, as shares of the floor) missed are marked MISS; the exit status is 0 either way (it
is a bench). Each server is stopped at the end (its whole process group, which only it is in).
Only 127.0.0.1 is contacted; every loop is bounded by a deadline. `--record` writes the table
into docs/figures.md (`bench.figures`).

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
import contextlib
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from http.client import HTTPConnection
from pathlib import Path

from bench.drive import (
    HOST,
    MIX,
    ROOT,
    SEED,
    LoadResult,
    bounded,
    collect_paths,
    draw_plan,
    get,
    run_httpx,
    run_wrk,
    start_server,
    stop_server,
    wait_ready,
)
from bench.server import child_pids, cpu_seconds, free_port, rss_mib, serving_pids
from bench.static_load import BASE_URL, PAGE_MIX, static_paths
from bench.stats import percentile

#: Before the cached mix is measured, every distinct URL of its draw is asked for this many
#: times (in a new order each time, on the load generator's connections, so on either worker):
#: what the measure is for is a warm cache, and one pass leaves a worker without each URL the
#: other worker happened to get.
WARM_PASSES = 4
#: Seconds per load-generator run of that warm-up, and at most in all.
WARM_SLICE = 5
WARM_CAP = 180
#: Memory growth of a worker over a run (after the warm-up).
TARGET_GROWTH = 0.10
#: … and over the second half of the run: flat, once the allocator has reached its plateau.
TARGET_LATE_GROWTH = 0.02


# --- one request at a time ------------------------------------------------------------------

def service_times(port: int, paths: dict[str, list[str]], per_kind: int,
                  gzip: bool) -> dict[str, float]:
    """Median time per kind of request, one at a time on one connection, after the load.

    Run on the server with the response cache off (`RULES_CACHE_MB=0`): a parameter the
    route does not read (such as `_probe=N`) is left out of the cache key, so it would not
    bypass the cache. Each path still gets a unique `_probe=N`, for shared caches in front.
    This is the time the handler itself takes.
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
            medians[kind] = percentile(times, 50) * 1000
    finally:
        conn.close()
    return medians


# --- the floor and the export ------------------------------------------------------------

def start_floor(port: int, workers: int, log: Path) -> subprocess.Popen[bytes]:
    """`bench.floor_app` on uvicorn with httptools and uvloop (as `python -m app serve` runs),
    `workers` processes, no access log, in its own session."""
    command = [sys.executable, "-m", "uvicorn", "bench.floor_app:app", "--host", HOST,
               "--port", str(port), "--http", "httptools", "--loop", "uvloop",
               "--lifespan", "off", "--no-access-log", "--log-level", "warning",
               "--workers", str(workers)]
    with log.open("wb") as out:
        return subprocess.Popen(command, cwd=ROOT, stdin=subprocess.DEVNULL, stdout=out,
                                stderr=subprocess.STDOUT, start_new_session=True)


def wait_answering(port: int, proc: subprocess.Popen[bytes], path: str, timeout: float) -> None:
    """Until `path` answers 200 (the floor has no /readyz)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"server exited with status {proc.returncode}")
        with contextlib.suppress(OSError):
            if get(port, path, timeout=2)[0] == 200:
                return
        time.sleep(0.05)
    raise RuntimeError(f"{path} did not answer within {timeout:.0f} s")


# --- the run --------------------------------------------------------------------------------

@dataclass
class Phase:
    """One load of one server: what it measured, the server's CPU and its workers' memory."""

    label: str
    result: LoadResult
    server_cpu_s: float = 0.0
    #: worker pid → (RSS after the warm-up, halfway through the load, at the end), MiB.
    rss: dict[int, tuple[float, float, float]] = field(default_factory=dict)
    restarted: bool = False


@dataclass
class Run:
    """Everything one `bench.load` run measured."""

    #: The floor measured first and last: neighbours change during a run.
    floors: list[Phase] = field(default_factory=list)
    phases: dict[str, Phase] = field(default_factory=dict)
    services: dict[str, float] = field(default_factory=dict)
    ready_s: float = 0.0
    log_errors: list[str] = field(default_factory=list)
    #: Answers from 400 up in the app servers' access logs, by status.
    refused: dict[int, int] = field(default_factory=dict)
    export: Phase | None = None
    notes: list[str] = field(default_factory=list)


def _write_plan(work: Path, name: str, plan: Sequence[str]) -> Path:
    path = work / f"{name}.txt"
    path.write_text("\n".join(plan) + "\n", encoding="utf-8")
    return path


def _drive(args: argparse.Namespace, port: int, plan_file: Path, seconds: int) -> LoadResult:
    if args.client == "wrk":
        return run_wrk(port, plan_file, args.clients, seconds, args.threads, args.gzip)
    plan = plan_file.read_text(encoding="utf-8").split()
    return run_httpx(port, plan, args.clients, seconds, args.gzip)


def _measured(args: argparse.Namespace, label: str, port: int, plan_file: Path,
              server: subprocess.Popen[bytes], seconds: int, *, warmup: int) -> Phase:
    """Warm up, then load for `seconds`, reading each worker's RSS halfway through too."""
    if warmup:
        _drive(args, port, plan_file, warmup)
    workers = serving_pids(server.pid)
    first = {pid: rss_mib(pid) or 0.0 for pid in workers}
    # The supervisor and the workers; with one worker the server is the worker (counted once).
    counted = sorted({server.pid, *workers})
    cpu0 = cpu_seconds(counted)
    with ThreadPoolExecutor(max_workers=1) as pool:
        future = pool.submit(_drive, args, port, plan_file, seconds)
        time.sleep(seconds / 2)
        middle = {pid: rss_mib(pid) or 0.0 for pid in workers}
        result = future.result()
    cpu1 = cpu_seconds(counted)
    rss = {pid: (first[pid], middle[pid], rss_mib(pid) or 0.0) for pid in workers}
    return Phase(label, result, cpu1 - cpu0, rss, serving_pids(server.pid) != workers)


def _log_errors(log: Path) -> list[str]:
    text = log.read_text(encoding="utf-8", errors="replace")
    return [x for x in text.splitlines() if re.search(r"\b(ERROR|CRITICAL)\b|Traceback", x)]


#: An access log line's status (uvicorn's format: `"GET /path HTTP/1.1" 503`).
_ACCESS_STATUS = re.compile(r'" (\d{3})$')


def refused_statuses(log: Path) -> dict[int, int]:
    """How many answers of each status from 400 up the server's access log holds (warm-ups
    included): wrk counts them only as "non-2xx or 3xx", and a 503 of admission control
    reads differently from a 404 of a stale path. `/readyz` is left out: the bench asks it
    until the server is ready, and its 503 until then is the answer meant."""
    counts: dict[int, int] = {}
    for line in log.read_text(encoding="utf-8", errors="replace").splitlines():
        found = _ACCESS_STATUS.search(line)
        if found and int(found.group(1)) >= 400 and '"GET /readyz ' not in line:
            counts[int(found.group(1))] = counts.get(int(found.group(1)), 0) + 1
    return dict(sorted(counts.items()))


def measure_floor(args: argparse.Namespace, work: Path, label: str) -> Phase:
    port = free_port()
    proc = start_floor(port, args.workers, work / "floor.log")
    try:
        wait_answering(port, proc, "/", timeout=60)
        plan = _write_plan(work, "floor", ["/"])
        return _measured(args, label, port, plan, proc, args.duration, warmup=args.warmup)
    finally:
        stop_server(proc)


def measure_app(args: argparse.Namespace, work: Path, run: Run, *, cached: bool,
                alone: bool) -> dict[str, list[str]]:
    """The mix on the production server (response cache as configured, or off), and with the
    cache, `/healthz`, static files and cached entry pages each alone."""
    name = "cached" if cached else "uncached"
    port = free_port()
    log = work / f"server-{name}.log"
    extra = dict(item.split("=", 1) for item in args.env if "=" in item)
    if not cached:
        extra["RULES_CACHE_MB"] = "0"
    t0 = time.monotonic()
    proc = start_server(port, args.workers, work / "index", log, extra)
    try:
        wait_ready(port, proc, timeout=120)
        run.ready_s = run.ready_s or time.monotonic() - t0
        paths = collect_paths(port)
        drawn = draw_plan(paths, 20_000)
        plan = _write_plan(work, f"mix-{name}", drawn)
        if cached and not args.cold_cache:
            run.notes.append(_warm_cache(args, port, work, drawn))
        label = ("load mix, response cache on" if cached
                 else "load mix, response cache off (RULES_CACHE_MB=0)")
        run.phases[f"mix {name}"] = _measured(args, label, port, plan, proc, args.duration,
                                              warmup=args.warmup)
        if cached and alone:
            seconds = max(5, args.duration // 2)
            for kind, listed in (("healthz", ["/healthz"]), ("static", paths["static"]),
                                 ("entry", paths["entry"])):
                alone_plan = _write_plan(work, f"alone-{kind}", listed)
                run.phases[f"alone {kind}"] = _measured(
                    args, f"{kind} alone" + (" (cached)" if kind == "entry" else ""), port,
                    alone_plan, proc, seconds, warmup=min(args.warmup, 3))
        if not cached:
            run.services = service_times(port, paths, per_kind=40, gzip=args.gzip)
    finally:
        stop_server(proc)
    run.log_errors += _log_errors(log)
    for status, count in refused_statuses(log).items():
        run.refused[status] = run.refused.get(status, 0) + count
    return paths


def _warm_cache(args: argparse.Namespace, port: int, work: Path, drawn: Sequence[str]) -> str:
    """Ask for every distinct URL of the draw `WARM_PASSES` times; the note saying so.

    The draw has about 2,200 distinct URLs (every entry, the 420 development queries twice,
    about 1,100 of their 8,015 prefixes): with the 5 s warm-up alone, most of the searches and
    suggestions measured were still first-time work, on one worker or the other, so the
    figure was the tail's computing, not the cache's answers.
    """
    distinct = sorted(set(drawn))
    rng = random.Random(SEED)
    left: list[str] = []
    for _ in range(WARM_PASSES):
        rng.shuffle(distinct)
        left += distinct
    start = time.monotonic()
    sent = 0
    while left and time.monotonic() - start < WARM_CAP:
        # Each run of the load generator starts at the top of its list: go on from where the
        # last one stopped.
        result = _drive(args, port, _write_plan(work, "warm", left), WARM_SLICE)
        sent += result.requests
        left = left[result.requests:]
    done = "" if not left else f", stopped after {WARM_CAP} s with {len(left):,} left"
    return (f"cached mix: every one of its {len(distinct):,} distinct URLs asked for "
            f"{WARM_PASSES} times first ({sent:,} requests in {time.monotonic() - start:.0f} s"
            f"{done}), then {args.warmup} s of the mix itself before measuring")


def measure_export(args: argparse.Namespace, work: Path, paths: dict[str, list[str]],
                   run: Run) -> None:
    """The static export made with `--gzip`, behind nginx and the shipped config, under the
    page part of the same mix (`bench.static_load`); skipped, with a note, without nginx."""
    from app.export import export_site
    from app.settings import Settings
    from app.urls import Urls
    from bench.static_server import SUB_PATH, nginx_binary, nginx_serving

    if nginx_binary() is None:
        run.notes.append("nginx is not installed: no export row (apt-get install nginx)")
        return
    work.chmod(0o755)  # as root, nginx's workers (`nobody`) read the export from here
    www = work / "www"
    export_site(Settings(index_dir=work / "index"), www / SUB_PATH.strip("/"), BASE_URL,
                precompress=True)
    www.chmod(0o755)
    urls = Urls(root_path=SUB_PATH.rstrip("/"), public_base_url=BASE_URL.rstrip("/"),
                static_site=True)
    mapped = static_paths(paths, urls)
    plan = _write_plan(work, "export", [mapped[p] for p in draw_plan(paths, 20_000,
                                                                      mix=PAGE_MIX)])
    with nginx_serving(www, workers=args.workers) as (base, master):
        port = int(base.rsplit(":", 1)[1])
        if args.warmup:
            _drive(args, port, plan, args.warmup)
        pids = [master, *child_pids(master)]
        cpu0 = cpu_seconds(pids)
        result = _drive(args, port, plan, args.duration)
        run.export = Phase("nginx, export --gzip, page mix", result, cpu_seconds(pids) - cpu0)


# --- the report -----------------------------------------------------------------------------

#: Targets, as shares of the floor measured in the same run (issue #24).
TARGET_CACHED_SHARE = 0.50
TARGET_ALONE_SHARE = 0.70
TARGET_UNCACHED_SHARE = 0.08
TARGET_UNCACHED_P99 = 10.0


def _mark(ok: bool) -> str:
    return "ok" if ok else "**MISS**"


def _share(value: float, floor: float) -> str:
    return f"{value / floor:.0%}" if floor else "n/a"


def report(args: argparse.Namespace, run: Run) -> str:
    floors = run.floors
    # Every share is of the mean of the floor's two runs (before and after the app's).
    floor_rps = sum(f.result.rps for f in floors) / len(floors) if floors else 0.0
    floor_p99 = sum(f.result.p99_ms for f in floors) / len(floors) if floors else 0.0
    floor_cpu = (sum(f.server_cpu_s for f in floors) / sum(f.result.requests for f in floors)
                 * 1e6 if floors and all(f.result.requests for f in floors) else 0.0)
    rows: list[tuple[str, str, str, str, str]] = []

    def load_rows(phase: Phase, share_target: float | None, p99_times: float | None) -> None:
        r = phase.result
        ok = share_target is None or not floor_rps or r.rps >= share_target * floor_rps
        rows.append((f"{phase.label}: requests/s",
                     f"{r.rps:,.0f} ({r.requests:,} in {r.seconds:.1f} s)",
                     _share(r.rps, floor_rps),
                     f"≥ {share_target:.0%} of the floor" if share_target is not None else "",
                     _mark(ok) if share_target is not None and floor_rps else ""))
        p99_ok = p99_times is None or not floor_p99 or r.p99_ms <= p99_times * floor_p99
        rows.append((f"{phase.label}: latency p50 / p99",
                     f"{r.p50_ms:.1f} / {r.p99_ms:.1f} ms",
                     f"p99 {r.p99_ms / floor_p99:.1f}×" if floor_p99 else "",
                     f"p99 ≤ {p99_times:.0f}× the floor's" if p99_times is not None else "",
                     _mark(p99_ok) if p99_times is not None and floor_p99 else ""))
        if not any(phase is f for f in floors):
            rows.append((f"{phase.label}: errors",
                         f"{r.errors}" + (f" {r.error_detail}" if r.errors else ""), "", "0",
                         _mark(r.errors == 0)))
        if phase.server_cpu_s and r.requests:
            # CPU per request holds better than requests/s when neighbours take the cores.
            each = phase.server_cpu_s / r.requests * 1e6
            rows.append((f"{phase.label}: server CPU",
                         f"{phase.server_cpu_s / r.seconds:.0%} of one core, {each:,.0f} µs per "
                         f"request (load generator {r.client_cpu_s / r.seconds:.0%})",
                         f"CPU {floor_cpu / each:.0%}" if floor_cpu else "", "", ""))
        for pid, (first, middle, last) in phase.rss.items():
            growth = (last - first) / first if first else 0.0
            late = (last - middle) / middle if middle else 0.0
            rows.append((f"{phase.label}: worker {pid} RSS",
                         f"{first:.1f} → {middle:.1f} → {last:.1f} MiB ({growth:+.1%}; "
                         f"second half {late:+.1%})", "",
                         f"≤ +{TARGET_GROWTH:.0%}, second half ≤ +{TARGET_LATE_GROWTH:.0%}",
                         _mark(growth <= TARGET_GROWTH and late <= TARGET_LATE_GROWTH)))
        if phase.restarted:
            rows.append((phase.label, "worker processes changed during the run", "", "stable",
                         _mark(False)))

    for floor in floors[:1]:
        load_rows(floor, None, None)
    targets = {"mix cached": (TARGET_CACHED_SHARE, None),
               "alone healthz": (TARGET_ALONE_SHARE, None),
               "alone static": (TARGET_ALONE_SHARE, None),
               "alone entry": (TARGET_ALONE_SHARE, None),
               "mix uncached": (TARGET_UNCACHED_SHARE, TARGET_UNCACHED_P99)}
    for key, phase in run.phases.items():
        load_rows(phase, *targets.get(key, (None, None)))
    for floor in floors[1:]:
        load_rows(floor, None, None)
    if run.export:
        load_rows(run.export, None, None)
    rows += [
        ("server log", f"{len(run.log_errors)} error line(s)", "", "0",
         _mark(not run.log_errors)),
        ("server log: answers from 400 up, by status (the app's runs, warm-ups included, "
         "/readyz aside)",
         ", ".join(f"{status}: {count:,}" for status, count in run.refused.items()) or "none",
         "", "", ""),
        ("ready after start", f"{run.ready_s:.2f} s", "", "", ""),
    ]
    rows += [(f"handler time {kind} (p50, one at a time, cache off)", f"{ms:.2f} ms", "",
              "", "") for kind, ms in run.services.items()]
    head = (f"룰사전 load: {args.workers} worker(s), {args.clients} clients, {args.duration} s "
            f"per mix ({max(5, args.duration // 2)} s per kind alone) after {args.warmup} s "
            f"warm-up, {'gzip' if args.gzip else 'identity'}, {args.client}; mix "
            + ", ".join(f"{k} {w:.0%}" for k, w in MIX))
    lines = [head, "", "| metric | value | share of the floor | target | |",
             "|---|---|---|---|---|"]
    lines += [f"| {a} | {b} | {c} | {d} | {e} |" for a, b, c, d, e in rows]
    lines += ["", f"load average (1 min) at the end: {os.getloadavg()[0]:.2f} on "
              f"{os.cpu_count()} cores", *run.notes]
    return "\n".join(lines)




PARTS = ("floor", "cached", "alone", "uncached", "export")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench.load", description="Load bench of the production configuration.")
    parser.add_argument("--duration", type=int, default=20, help="seconds per mix (max 600)")
    parser.add_argument("--clients", type=int, default=50, help="concurrent connections")
    parser.add_argument("--workers", type=int, default=2, help="RULES_WORKERS for the server")
    parser.add_argument("--warmup", type=int, default=5, help="seconds of load before measuring")
    parser.add_argument("--client", choices=("wrk", "httpx"),
                        default="wrk" if shutil.which("wrk") else "httpx")
    parser.add_argument("--threads", type=int, default=1, help="wrk threads")
    parser.add_argument("--no-gzip", dest="gzip", action="store_false",
                        help="do not send Accept-Encoding: gzip (browsers do)")
    parser.add_argument("--skip", action="append", default=[], choices=PARTS,
                        help="leave out a part of the run (repeatable): the floor, the cached "
                             "mix, the kinds alone, the uncached mix, the nginx export")
    parser.add_argument("--no-cache", action="store_true",
                        help="the uncached mix only (with the floor): --skip cached, alone, "
                             "export")
    parser.add_argument("--cold-cache", action="store_true",
                        help="measure the cached mix after the plain warm-up only, without "
                             "asking for each of its URLs first (most searches and "
                             "suggestions are then first-time work)")
    parser.add_argument("--env", action="append", default=[], metavar="KEY=VALUE",
                        help="extra environment for the server (repeatable)")
    parser.add_argument("--record", action="store_true",
                        help="write the table into docs/figures.json and docs/figures.md")
    args = bounded(parser.parse_args(argv))
    skip = set(args.skip) | ({"cached", "alone", "export"} if args.no_cache else set())
    run = Run()
    with tempfile.TemporaryDirectory(prefix="rules-load-") as tmp:
        work = Path(tmp)
        if "floor" not in skip:
            run.floors.append(measure_floor(args, work, "floor (first): bare ASGI app, 4 KB"))
        paths: dict[str, list[str]] = {}
        if "cached" not in skip:
            paths = measure_app(args, work, run, cached=True, alone="alone" not in skip)
        if "uncached" not in skip:
            paths = measure_app(args, work, run, cached=False, alone=False) or paths
        if "floor" not in skip:
            run.floors.append(measure_floor(args, work, "floor (again, last)"))
        if "export" not in skip and paths:
            measure_export(args, work, paths, run)
    text = report(args, run)
    print(text)
    for line in run.log_errors[:10]:
        print("server:", line)
    if args.record:
        _record(args, argv, text)
    return 0


def _record(args: argparse.Namespace, argv: list[str] | None, text: str) -> None:
    from bench import figures

    lines = text.splitlines()
    rows = [[c.strip() for c in line.strip("|").split(" | ")] for line in lines[4:]
            if line.startswith("| ")]
    notes = [lines[0], *(x for x in lines[4:] if x and not x.startswith("|"))]
    figures.record("load", figures.Table(
        title="Load: the app as a share of the floor, one run",
        command=figures.command("python -m bench.load", argv),
        columns=["metric", "value", "share of the floor", "target", ""], rows=rows,
        notes=notes))


if __name__ == "__main__":
    sys.exit(main())
