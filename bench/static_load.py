"""The scale story in one run: the app under its usual load, next to its static export served
by nginx under the same page requests.

    .venv/bin/python -m bench.static_load [--duration 20] [--clients 50] [--workers 2]

1. Exports the bundled data (`app.export`, under http://127.0.0.1/rules/), timing it.
2. Starts `python -m app serve` (RULES_WORKERS=--workers, response cache as configured) and
   drives it with `bench.load`'s mix (60 % entry pages, 15 % search page, 15 % search API,
   6 % suggest, 4 % static files), then with the page part of that mix alone (entry pages,
   search page, static files: 60:15:4), each after a warm-up. The app is then stopped.
3. Starts nginx with the shipped deploy/nginx/static-site.conf (`worker_processes` =
   --workers) over the export, and sends it the SAME page requests, each mapped to its static
   URL (`/rules/X` → `/rules/rules/X/`, `/search?q=…` → `/rules/search/?q=…`, the same hashed
   static files); then the same over an export made with `--gzip` (precompressed files).

The search API and suggestions have no static counterpart: in the export the browser searches
its own copy of the index, so those 21 % of the app's mix cost a static host nothing. The
servers run one after the other, never at once, on the same cores as the load generator (wrk),
and only 127.0.0.1 is contacted. It prints one table; the exit status is 0 (it is a bench).
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlsplit

from app.export import ExportResult, export_site
from app.settings import Settings
from app.urls import Urls
from bench.drive import (
    MIX,
    LoadResult,
    bounded,
    collect_paths,
    draw_plan,
    run_httpx,
    run_wrk,
    start_server,
    stop_server,
    wait_ready,
)
from bench.server import child_pids, cpu_seconds, free_port, rss_mib, serving_pids
from bench.static_server import SUB_PATH, nginx_serving

#: The kinds of request a static site answers (the rest of MIX is the live search API).
PAGE_KINDS = ("entry", "search", "static")
PAGE_MIX = tuple((kind, share) for kind, share in MIX if kind in PAGE_KINDS)
BASE_URL = "http://127.0.0.1" + SUB_PATH


@dataclass
class Measured:
    """One column of the table."""

    label: str
    result: LoadResult
    server_cpu_s: float
    rss_mib: float


def static_paths(paths: dict[str, list[str]], urls: Urls) -> dict[str, str]:
    """The app's page paths (from `bench.drive.collect_paths`) → the export's URL for each."""
    mapped: dict[str, str] = {}
    for path in paths["entry"]:
        mapped[path] = urls.entry(unquote(path.removeprefix("/rules/")))
    for path in paths["search"]:
        mapped[path] = urls.search(parse_qs(urlsplit(path).query)["q"][0])
    for path in paths["static"]:
        mapped[path] = urls.path(path)
    return mapped


def _load(args: argparse.Namespace, port: int, plan: list[str], work: Path,
          seconds: int) -> LoadResult:
    plan_file = work / f"plan-{port}-{len(plan)}.txt"
    plan_file.write_text("\n".join(plan) + "\n", encoding="utf-8")
    if args.client == "wrk":
        return run_wrk(port, plan_file, args.clients, seconds, 1, gzip=True)
    return run_httpx(port, plan, args.clients, seconds, gzip=True)


def _measure(args: argparse.Namespace, label: str, port: int, plan: list[str], work: Path,
             pids: list[int]) -> Measured:
    if args.warmup:
        _load(args, port, plan, work, args.warmup)
    cpu0 = cpu_seconds(pids)
    result = _load(args, port, plan, work, args.duration)
    cpu = cpu_seconds(pids) - cpu0
    rss = sum(rss_mib(pid) or 0.0 for pid in pids)
    return Measured(label, result, cpu, rss)


def report(args: argparse.Namespace, columns: list[Measured], exported: ExportResult,
           packed: ExportResult) -> str:
    head = (f"룰사전 app vs static export: {args.workers} worker(s) each, {args.clients} "
            f"clients, {args.duration} s per column after {args.warmup} s warm-up, gzip, "
            f"{columns[0].result.client}")
    rows: list[tuple[str, list[str]]] = [
        ("requests/s", [f"{c.result.rps:,.0f}" for c in columns]),
        ("latency p50", [f"{c.result.p50_ms:.1f} ms" for c in columns]),
        ("latency p99", [f"{c.result.p99_ms:.1f} ms" for c in columns]),
        ("errors", [str(c.result.errors) + (f" {c.result.error_detail}" if c.result.errors
                                            else "") for c in columns]),
        ("server CPU", [f"{c.server_cpu_s / c.result.seconds:.0%} of one core"
                        for c in columns]),
        ("server RSS (all processes)", [f"{c.rss_mib:.0f} MiB" for c in columns]),
        ("load generator CPU", [f"{c.result.client_cpu_s / c.result.seconds:.0%} of one core"
                                for c in columns]),
    ]
    lines = [head, "", "| metric | " + " | ".join(c.label for c in columns) + " |",
             "|---" * (len(columns) + 1) + "|"]
    lines += [f"| {name} | " + " | ".join(values) + " |" for name, values in rows]
    lines += [
        "",
        "full mix: " + ", ".join(f"{k} {w:.0%}" for k, w in MIX) + ". page mix: the same "
        "draw without the search API and suggestions (" + ", ".join(
            f"{k} {w / sum(s for _, s in PAGE_MIX):.0%}" for k, w in PAGE_MIX) + "), sent to "
        "both servers as the same requests. The search API and suggestions have no static "
        "counterpart: the export's search runs in the browser.",
        f"export: {exported.files} files, {exported.bytes / 1e6:.1f} MB, written in "
        f"{exported.seconds:.1f} s; with --gzip {packed.files} files, "
        f"{packed.bytes / 1e6:.1f} MB, {packed.seconds:.1f} s (index already built). nginx "
        "compresses pages on each request in the first export, and sends the .gz files "
        "`export --gzip` wrote in the second (gzip_static).",
        # Other work on the machine skews every column; the load average says how much.
        f"load average (1 min) at the end: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench.static_load",
        description="The app and its static export (nginx) under the same page requests.")
    parser.add_argument("--duration", type=int, default=20, help="seconds per column (max 600)")
    parser.add_argument("--clients", type=int, default=50, help="concurrent connections")
    parser.add_argument("--workers", type=int, default=2,
                        help="RULES_WORKERS for the app and worker_processes for nginx")
    parser.add_argument("--warmup", type=int, default=5, help="seconds of load before each")
    parser.add_argument("--client", choices=("wrk", "httpx"),
                        default="wrk" if shutil.which("wrk") else "httpx")
    args = bounded(parser.parse_args(argv))

    with tempfile.TemporaryDirectory(prefix="rules-static-load-") as tmp:
        work = Path(tmp)
        work.chmod(0o755)  # as root, nginx's workers (`nobody`) read the export from here
        index = work / "index"
        settings = Settings(index_dir=index)
        # The index first, so the export's time is the export's own.
        export_site(settings, work / "warm", BASE_URL)
        shutil.rmtree(work / "warm")
        exported = export_site(settings, work / "www" / SUB_PATH.strip("/"), BASE_URL)
        packed = export_site(settings, work / "www-gz" / SUB_PATH.strip("/"), BASE_URL,
                             precompress=True)
        for www in ("www", "www-gz"):
            (work / www).chmod(0o755)

        port = free_port()
        proc = start_server(port, args.workers, index, work / "server.log", {})
        try:
            wait_ready(port, proc, timeout=120)
            paths = collect_paths(port)
            full = draw_plan(paths, 20_000)
            pages = draw_plan(paths, 20_000, mix=PAGE_MIX)
            pids = [proc.pid, *serving_pids(proc.pid)]
            app_full = _measure(args, "app, full mix", port, full, work, pids)
            app_pages = _measure(args, "app, page mix", port, pages, work, pids)
        finally:
            stop_server(proc)

        urls = Urls(root_path=SUB_PATH.rstrip("/"), public_base_url=BASE_URL.rstrip("/"),
                    static_site=True)
        mapped = static_paths(paths, urls)
        static_plan = [mapped[p] for p in pages]
        columns = [app_full, app_pages]
        for www, label in (("www", "nginx, export, page mix"),
                           ("www-gz", "nginx, export --gzip, page mix")):
            with nginx_serving(work / www, workers=args.workers) as (base, master):
                nginx_port = int(base.rsplit(":", 1)[1])
                pids = [master, *child_pids(master)]
                columns.append(_measure(args, label, nginx_port, static_plan, work, pids))
    print(report(args, columns, exported, packed))
    return 0


if __name__ == "__main__":
    started = time.monotonic()
    status = main()
    print(f"(bench took {time.monotonic() - started:.0f} s)")
    sys.exit(status)
