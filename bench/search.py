"""Search benchmark: quality and speed of the project's search against two simple peers.

    .venv/bin/python -m bench.search [--data DIR] [--queries FILE] [--no-http]

Loads the corpus, builds the index in a temporary folder and evaluates the development query
set (relevance as its "about" says) for the project, a plain substring filter and SQLite FTS5
with the trigram tokenizer. Also measures suggest latency, start-up with a built index and
resident memory after 1,000 queries (both in fresh subprocesses), and HTTP latency over
loopback through `uvicorn app.main:app` when the `/api/search` route exists.
Prints one table. Every loop is bounded; only 127.0.0.1 is contacted.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from http.client import HTTPConnection
from pathlib import Path
from urllib.parse import urlencode

from app.corpus.build import load_corpus
from app.corpus.models import Corpus
from app.search import SearchIndex
from bench.server import running_server

ROOT = Path(__file__).resolve().parents[1]
QUERIES = Path(__file__).with_name("search-queries.dev.json")
K = 10

#: A system under test: (query, game filter) → ranked entry ids.
Search = Callable[[str, str | None], Sequence[str]]


@dataclass(frozen=True)
class Query:
    cat: str
    q: str
    ids: tuple[str, ...] = ()
    phrases: tuple[str, ...] = ()
    game: str | None = None


@dataclass
class Scores:
    """MRR@10, hit@1 and hit@5 overall and per category, plus per-query latencies (ms)."""

    rr: dict[str, list[float]] = field(default_factory=dict)
    first: dict[str, list[float]] = field(default_factory=dict)
    top5: dict[str, list[float]] = field(default_factory=dict)
    latencies: list[float] = field(default_factory=list)
    misses: list[tuple[str, int | None]] = field(default_factory=list)

    def mrr(self, cat: str | None = None) -> float:
        return _mean(self.rr, cat)

    def hit1(self, cat: str | None = None) -> float:
        return _mean(self.first, cat)

    def hit5(self, cat: str | None = None) -> float:
        return _mean(self.top5, cat)


def _mean(table: dict[str, list[float]], cat: str | None) -> float:
    values = table.get(cat, []) if cat else [v for vs in table.values() for v in vs]
    return sum(values) / len(values) if values else 0.0


def load_queries(path: Path = QUERIES) -> list[Query]:
    data = json.loads(path.read_text(encoding="utf-8"))
    return [Query(q["cat"], q["q"], tuple(q.get("ids", ())), tuple(q.get("phrases", ())),
                  q.get("game")) for q in data["queries"]]


def _squash(text: str) -> str:
    return "".join(text.split())


def relevant(corpus: Corpus, query: Query, entry_id: str) -> bool:
    """The dev set's rule: the id is listed, or the squashed text holds a squashed phrase."""
    if entry_id in query.ids:
        return True
    entry = corpus.get(entry_id)
    if entry is None or not query.phrases:
        return False
    text = _squash(entry.text)
    return any(_squash(p) in text for p in query.phrases)


def evaluate(search: Search, corpus: Corpus, queries: Sequence[Query], *,
             rounds: int = 1) -> Scores:
    """Score `search` on `queries`; latencies from `rounds` timed runs of each query."""
    scores = Scores()
    for query in queries:
        ranked: Sequence[str] = ()
        for _ in range(max(1, rounds)):
            start = time.perf_counter()
            ranked = search(query.q, query.game)
            scores.latencies.append((time.perf_counter() - start) * 1000)
        rank = next((n for n, i in enumerate(ranked[:K], 1) if relevant(corpus, query, i)),
                    None)
        scores.rr.setdefault(query.cat, []).append(1 / rank if rank else 0.0)
        scores.first.setdefault(query.cat, []).append(1.0 if rank == 1 else 0.0)
        scores.top5.setdefault(query.cat, []).append(1.0 if rank and rank <= 5 else 0.0)
        if rank != 1:
            scores.misses.append((query.q, rank))
    return scores


def project_search(index: SearchIndex) -> Search:
    def run(q: str, game: str | None) -> list[str]:
        return [h.id for h in index.search(q, game=game, limit=K).hits]
    return run


def substring_peer(corpus: Corpus) -> Search:
    """ArkhamCards-style `LIKE '%q%'`: title hits first, then body hits, in reading order."""
    rows = [(e.id, e.game, e.title.casefold(), e.text.casefold()) for e in corpus]

    def run(q: str, game: str | None) -> list[str]:
        needle = q.strip().casefold()
        if not needle:
            return []
        titles = [i for i, g, t, _ in rows if (game is None or g == game) and needle in t]
        bodies = [i for i, g, t, b in rows
                  if (game is None or g == game) and needle not in t and needle in b]
        return (titles + bodies)[:K]
    return run


def fts5_peer(corpus: Corpus) -> Search | None:
    """SQLite FTS5, trigram tokenizer, title weighted ×10; None when FTS5 is unavailable."""
    db = sqlite3.connect(":memory:", check_same_thread=False)
    try:
        db.execute("CREATE VIRTUAL TABLE rules USING fts5("
                   "id UNINDEXED, game UNINDEXED, title, body, tokenize='trigram')")
    except sqlite3.OperationalError:
        return None
    db.executemany("INSERT INTO rules VALUES (?, ?, ?, ?)",
                   [(e.id, e.game, e.title, e.text) for e in corpus])

    def run(q: str, game: str | None) -> list[str]:
        terms = [t for t in q.split() if len(t) >= 3]
        if not terms:
            return []
        match = " OR ".join('"' + t.replace('"', '""') + '"' for t in terms)
        sql = "SELECT id FROM rules WHERE rules MATCH ?"
        args: list[str] = [match]
        if game:
            sql += " AND game = ?"
            args.append(game)
        sql += " ORDER BY bm25(rules, 0, 0, 10.0, 1.0) LIMIT 10"
        try:
            return [row[0] for row in db.execute(sql, args)]
        except sqlite3.OperationalError:
            return []
    return run


def percentile(values: Sequence[float], pct: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(pct / 100 * (len(ordered) - 1)))]


_CHILD = """
import os, resource, sys, time
from pathlib import Path
from app.corpus.build import load_corpus
from app.search import SearchIndex
data, index_dir, queries = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3:]
index = SearchIndex.open_or_build(load_corpus(data), index_dir)
index.search(queries[0])
print("ANSWER", flush=True)
for n in range(1000):
    index.search(queries[n % len(queries)])
    index.suggest(queries[n % len(queries)][: 1 + n % 3])
rss = next(l for l in open("/proc/self/status") if l.startswith("VmRSS"))
print("RSS", int(rss.split()[1]) / 1024, flush=True)
"""


def startup_and_rss(data: Path, index_dir: Path, queries: Sequence[str]) -> tuple[float, float]:
    """Seconds from process start to the first answer, and MiB resident after 1,000 queries."""
    start = time.perf_counter()
    child = subprocess.Popen([sys.executable, "-c", _CHILD, str(data), str(index_dir), *queries],
                             cwd=ROOT, stdout=subprocess.PIPE, text=True)
    assert child.stdout is not None
    first = child.stdout.readline()
    startup = time.perf_counter() - start if first.startswith("ANSWER") else float("nan")
    try:
        out, _ = child.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        child.kill()
        return startup, float("nan")
    rss = next((float(line.split()[1]) for line in out.splitlines() if line.startswith("RSS")),
               float("nan"))
    return startup, rss


#: Each system over HTTP: the ASGI app uvicorn serves, and the path of its search.
HTTP_SYSTEMS = {
    "project": ("app.main:app", "/api/search"),
    "substring": ("bench.peers_app:app", "/peer/substring"),
    "fts5 trigram": ("bench.peers_app:app", "/peer/fts5"),
}


def http_latency(target: str, path: str, data: Path, index_dir: Path, queries: Sequence[Query],
                 rounds: int = 5) -> tuple[float, float] | None:
    """p50/p99 ms of `GET {path}?q=` through uvicorn (one worker) serving `target` on
    127.0.0.1; None when unavailable."""
    # The response cache off: every round must search, as the peers do.
    env = {"RULES_DATA_DIR": str(data), "RULES_INDEX_DIR": str(index_dir),
           "RULES_CACHE_MB": "0"}

    def command(port: int) -> list[str]:
        return [sys.executable, "-m", "uvicorn", target, "--host", "127.0.0.1",
                "--port", str(port), "--log-level", "warning"]

    try:
        with running_server(env, command=command, ready_path=f"{path}?q=%EB%8B%A8%EC%84%9C",
                            timeout=60) as (base, _):
            conn = HTTPConnection(base.removeprefix("http://"), timeout=10)
            times: list[float] = []
            for _ in range(rounds):
                for query in queries:
                    params = {"q": query.q, "limit": str(K)}
                    if query.game:
                        params["game"] = query.game
                    start = time.perf_counter()
                    conn.request("GET", f"{path}?" + urlencode(params))
                    response = conn.getresponse()
                    response.read()
                    times.append((time.perf_counter() - start) * 1000)
                    if response.status != 200:
                        return None
            conn.close()
    except RuntimeError:
        return None
    return percentile(times, 50), percentile(times, 99)


def _fmt(value: float | None, digits: int = 2) -> str:
    if value is None or value != value:
        return "n/a"
    return f"{value:.{digits}f}"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=ROOT / "data")
    parser.add_argument("--queries", type=Path, default=QUERIES)
    parser.add_argument("--no-http", action="store_true")
    parser.add_argument("--misses", action="store_true", help="list queries not ranked first")
    args = parser.parse_args(argv)

    corpus = load_corpus(args.data)
    queries = load_queries(args.queries)
    with tempfile.TemporaryDirectory(prefix="bench-search-") as tmp:
        index_dir = Path(tmp) / "index"
        start = time.perf_counter()
        index = SearchIndex.open_or_build(corpus, index_dir)
        build = time.perf_counter() - start
        systems: dict[str, Search | None] = {
            "project": project_search(index),
            "substring": substring_peer(corpus),
            "fts5 trigram": fts5_peer(corpus),
        }
        # The first round is also the cold-latency sample; the timed runs follow it.
        cold = {name: evaluate(s, corpus, queries, rounds=1) if s else None
                for name, s in systems.items()}
        results = {name: evaluate(s, corpus, queries, rounds=20) if s else None
                   for name, s in systems.items()}
        suggest_ms: list[float] = []
        for query in queries:
            for end in range(1, min(len(query.q), 6) + 1):
                t0 = time.perf_counter()
                index.suggest(query.q[:end])
                suggest_ms.append((time.perf_counter() - t0) * 1000)
        startup, rss = startup_and_rss(args.data, index_dir, [q.q for q in queries])
        http = {name: None if args.no_http or systems[name] is None else http_latency(
                    target, path, args.data, Path(tmp) / "http-index", queries)
                for name, (target, path) in HTTP_SYSTEMS.items()}

    names = list(systems)
    rows: list[tuple[str, list[str], str]] = []

    def metric(label: str, fn: Callable[[Scores], float], target: str = "") -> None:
        rows.append((label, [_fmt(fn(r)) if r else "n/a" for r in results.values()], target))

    metric("MRR@10", lambda s: s.mrr(), "≥ 0.90")
    metric("hit@1", lambda s: s.hit1())
    metric("hit@5", lambda s: s.hit5(), "≥ 0.95")
    cats = list(dict.fromkeys(q.cat for q in queries))
    for cat in cats:
        count = sum(1 for q in queries if q.cat == cat)
        rows.append((f"  {cat} ({count}) MRR/h1/h5", [
            f"{r.mrr(cat):.2f} {r.hit1(cat):.2f} {r.hit5(cat):.2f}" if r else "n/a"
            for r in results.values()], "≥ 0.80"))
    metric("p50 ms (in-process)", lambda s: percentile(s.latencies, 50), "≤ 3")
    metric("p99 ms (in-process)", lambda s: percentile(s.latencies, 99), "≤ 15")
    rows.append(("p50 / p99 ms, first run (cold)", [
        f"{percentile(r.latencies, 50):.2f} / {percentile(r.latencies, 99):.2f}" if r else "n/a"
        for r in cold.values()], ""))
    rows.append(("suggest p50 ms", [_fmt(percentile(suggest_ms, 50)), "n/a", "n/a"], "≤ 2"))
    rows.append(("start-up s (built index)", [_fmt(startup), "n/a", "n/a"], "≤ 1.5"))
    rows.append(("RSS MiB after 1,000 queries", [_fmt(rss, 0), "n/a", "n/a"], "≤ 200"))
    rows.append(("HTTP p50 ms (uvicorn, loopback)",
                 [_fmt(h[0]) if h else "n/a" for h in http.values()], ""))
    rows.append(("HTTP p99 ms (uvicorn, loopback)",
                 [_fmt(h[1]) if h else "n/a" for h in http.values()], ""))

    width = max(len(r[0]) for r in rows) + 2
    cols = [max(len(n), 14) + 2 for n in names]
    print(f"search bench: {len(corpus)} entries, {len(queries)} queries, "
          f"index built in {build:.2f} s, SQLite {sqlite3.sqlite_version}")
    print("metric".ljust(width) + "".join(n.rjust(c) for n, c in zip(names, cols, strict=True))
          + "  target")
    print("-" * (width + sum(cols) + 8))
    for label, cells, target in rows:
        print(label.ljust(width) + "".join(v.rjust(c) for v, c in zip(cells, cols, strict=True))
              + ("  " + target if target else ""))
    if args.misses:
        project = results["project"]
        assert project is not None
        for q, rank in project.misses:
            print(f"not first: {q!r} rank={rank}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
