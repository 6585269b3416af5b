"""What one request costs the app itself: in-process, one at a time, no network, no server.

    .venv/bin/python -m bench.inprocess [--rounds 200] [--blocks 1] [--profile KIND] [--cache]

Builds the app over the bundled data (response cache off unless `--cache`), sends each kind of
request straight into its ASGI interface (the whole middleware stack and the framework, as a
server's request would go), and prints the p50 and p90 per kind. Each request gets a unique
`_probe=N` parameter, which no route reads. Beside the search API it times the search itself
(`SearchIndex.search`, the same page size), both as a mean over the whole development query
set in the same order: the target is the API at most 1.5× the search. `--profile KIND` runs
that kind under cProfile afterwards and prints the 25 costliest functions (cumulative and own
time). Sync handlers run in the thread pool, which cProfile does not see: profile those with
py-spy under load (`py-spy record --threads -p WORKER`).

Every request is sent from one task that lives for the whole run, as a server's requests are
(uvicorn's serving task): anyio's thread pool stops its threads when the task that started them
ends, so one `run_until_complete` per request started a new thread for each sync handler
(0.1–0.2 ms and a cross-thread wake-up, a cost no server pays).
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import io
import json
import pstats
import random
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Mapping, MutableMapping
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlencode

from app.settings import Settings
from app.web.app import create_app, settle_app
from app.web.state import Library
from bench.stats import percentile

QUERIES = Path(__file__).with_name("search-queries.dev.json")
SEED = 20261202
#: Targets (issue #24): an uncached entry page, and the search API as a multiple of the search.
TARGET_ENTRY_MS = 0.4
TARGET_API_RATIO = 1.5


def _scope(path: str, query: str) -> dict[str, Any]:
    return {
        "type": "http", "asgi": {"version": "3.0", "spec_version": "2.4"},
        "http_version": "1.1", "method": "GET", "scheme": "http", "path": path,
        "raw_path": quote(path).encode(), "root_path": "", "query_string": query.encode(),
        "client": ("127.0.0.1", 50000), "server": ("127.0.0.1", 8000),
        "headers": [(b"host", b"localhost"), (b"accept-encoding", b"gzip, deflate, br"),
                    (b"user-agent", b"bench.inprocess")],
    }


async def call(app: Any, path: str, query: str = "") -> tuple[int, int]:
    """One GET through the app's ASGI interface: (status, body bytes)."""
    status = 0
    size = 0

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: MutableMapping[str, Any]) -> None:
        nonlocal status, size
        if message["type"] == "http.response.start":
            status = message["status"]
        elif message["type"] == "http.response.body":
            size += len(message.get("body", b""))

    await app(_scope(path, query), receive, send)
    return status, size


def requests(library: Library, names: Mapping[str, str]) -> dict[str, list[tuple[str, str]]]:
    """(path, query) per kind, as `bench.load` draws them (`names`: the static files' hashed
    names)."""
    queries = [q["q"] for q in json.loads(QUERIES.read_text(encoding="utf-8"))["queries"]]
    prefixes = sorted({q[:n] for q in queries for n in range(1, len(q) + 1) if q[:n].strip()})
    entries = sorted(library.corpus.entries)
    return {
        "healthz": [("/healthz", "")],
        "static": [("/static/" + hashed, "") for hashed in sorted(names.values())],
        "entry": [(f"/rules/{e}", "") for e in entries],
        "search": [("/search", urlencode({"q": q})) for q in queries],
        "api_search": [("/api/search", urlencode({"q": q})) for q in queries],
        "suggest": [("/api/suggest", urlencode({"q": p})) for p in prefixes],
    }


async def timed(run: Callable[[], Awaitable[object]], rounds: int) -> list[float]:
    times = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        await run()
        times.append((time.perf_counter() - t0) * 1000)
    return sorted(times)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.inprocess", description=__doc__)
    parser.add_argument("--rounds", type=int, default=200, help="requests per kind (max 5000)")
    parser.add_argument("--profile", choices=("healthz", "static", "entry", "search",
                                              "api_search", "suggest"),
                        help="cProfile this kind")
    parser.add_argument("--cache", action="store_true", help="keep the response cache on")
    parser.add_argument("--blocks", type=int, default=1,
                        help="measure each kind this many times (max 20) and print the median "
                             "block's p50 and p90 and the range of the blocks' p50s: on a box "
                             "whose speed drifts, run it alternately on two commits")
    args = parser.parse_args(argv)
    rounds = max(10, min(args.rounds, 5000))
    with tempfile.TemporaryDirectory(prefix="rules-inprocess-") as tmp:
        settings = Settings(index_dir=Path(tmp) / "index", cache_mb=32 if args.cache else 0)
        app = create_app(settings, build=False)
        settle_app(app)  # as a server's worker does before it serves
        return asyncio.run(measure(app, args, rounds))


async def measure(app: Any, args: argparse.Namespace, rounds: int) -> int:
    library: Library = app.state.library
    rng = random.Random(SEED)
    counter = 0

    def one(kind: str, paths: list[tuple[str, str]]) -> Callable[[], Awaitable[object]]:
        async def run() -> object:
            nonlocal counter
            counter += 1
            path, query = rng.choice(paths)
            probe = f"{query}&_probe={counter}" if query else f"_probe={counter}"
            status, _ = await call(app, path, probe)
            if status >= 400:
                raise RuntimeError(f"{kind} {path}?{query} answered {status}")
            return status
        return run

    kinds = requests(library, app.state.assets.names)
    for kind, paths in kinds.items():  # compiles templates, warms the searcher's caches
        await timed(one(kind, paths), 20)
    rows: list[tuple[str, float, float]] = []
    medians: dict[str, float] = {}
    spreads: list[str] = []
    blocks = max(1, min(args.blocks, 20))
    for kind, paths in kinds.items():
        measured = [await timed(one(kind, paths), rounds) for _ in range(blocks)]
        p50s = sorted(percentile(times, 50) for times in measured)
        medians[kind] = p50s[len(p50s) // 2]
        rows.append((kind, medians[kind],
                     sorted(percentile(times, 90) for times in measured)[len(p50s) // 2]))
        spreads.append(f"{kind} {p50s[0]:.3f}-{p50s[-1]:.3f}")
    # The API against the search itself on the same queries, in the same order: each round is
    # the mean over the whole query set (queries differ 10× in cost); the best of 5 rounds.
    queries = [q["q"] for q in json.loads(QUERIES.read_text(encoding="utf-8"))["queries"]]

    async def over_the_set(each: Callable[[str], Awaitable[object]]) -> float:
        best = float("inf")
        for _ in range(5):
            t0 = time.perf_counter()
            for q in queries:
                await each(q)
            best = min(best, (time.perf_counter() - t0) * 1000 / len(queries))
        return best

    probe = iter(range(10**9))

    async def api(q: str) -> object:
        return await call(app, "/api/search", urlencode({"q": q, "_probe": next(probe)}))

    async def search(q: str) -> object:
        return library.index.search(q, limit=10)

    api_mean = await over_the_set(api)
    search_mean = await over_the_set(search)
    medians["the search itself"] = search_mean
    rows.append(("api_search, mean over the query set", api_mean, float("nan")))
    rows.append(("the search itself (SearchIndex.search, limit 10), mean over the query set",
                 search_mean, float("nan")))
    print(f"룰사전 in-process: {rounds} requests per kind, one at a time, response cache "
          f"{'on' if args.cache else 'off'}, through the whole ASGI stack\n")
    print("| request | p50 ms | p90 ms | target | |\n|---|---|---|---|---|")
    for kind, p50, p90 in rows:
        target, ok = "", ""
        if args.cache:
            pass  # the targets are for answers computed, not replayed
        elif kind == "entry":
            target, ok = f"p50 ≤ {TARGET_ENTRY_MS} ms", _mark(p50 <= TARGET_ENTRY_MS)
        elif kind.startswith("api_search, mean"):
            ratio = p50 / medians["the search itself"]
            target = f"≤ {TARGET_API_RATIO}× the search ({ratio:.2f}×)"
            ok = _mark(ratio <= TARGET_API_RATIO)
        p90_text = "" if p90 != p90 else f"{p90:.3f}"  # NaN: a mean, no percentile
        print(f"| {kind} | {p50:.3f} | {p90_text} | {target} | {ok} |")
    if blocks > 1:
        print(f"\n{blocks} blocks of {rounds} per kind; the blocks' p50s, ms: "
              + "; ".join(spreads))
    if args.profile:
        profiler = cProfile.Profile()
        run = one(args.profile, kinds[args.profile])
        profiler.enable()
        for _ in range(rounds):
            await run()
        profiler.disable()
        for order in ("cumulative", "tottime"):
            out = io.StringIO()
            pstats.Stats(profiler, stream=out).sort_stats(order).print_stats(25)
            print(out.getvalue())
    return 0


def _mark(ok: bool) -> str:
    return "ok" if ok else "**MISS**"


if __name__ == "__main__":
    sys.exit(main())
