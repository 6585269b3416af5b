"""Search benchmark: quality and speed of the project's search against two simple peers.

    .venv/bin/python -m bench.search [--data DIR] [--queries FILE] [--no-http] [--record]

Loads the corpus, builds the index in a temporary folder and evaluates the development query
set (relevance as its "about" says) for the project, a plain substring filter and SQLite FTS5
with the trigram tokenizer (both peers see each entry's title, its id as English text and its
body; FTS5 falls back to `LIKE` for terms under 3 characters). Quality is reported for all
queries and for two halves: inside each category, even positions are the half to tune on and
odd positions the held-out half, which has targets of its own. Also measures suggest latency,
start-up with a built index and resident memory after 1,000 queries (both in fresh
subprocesses), and HTTP latency over loopback through `uvicorn app.main:app` when the
`/api/search` route exists.
Prints one table (with `--record`, also written to docs/figures.md: `bench/figures.py`).
Every loop is bounded; only 127.0.0.1 is contacted.
"""

from __future__ import annotations

import argparse
import json
import re
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from http.client import HTTPConnection
from pathlib import Path
from urllib.parse import urlencode

from app import native
from app.corpus.build import load_corpus
from app.corpus.models import Corpus
from app.search import SearchIndex
from app.urls import Urls
from app.web.state import load_library
from bench import figures
from bench.server import running_server
from bench.stats import percentile

#: A percentile of no times (a row that did not run): printed as n/a.
_NONE = float("nan")

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


#: The two halves of the query set: inside each category, queries at even positions (0, 2, …)
#: are the half to tune on, those at odd positions the held-out half that checks the tuning.
TUNE, HELD_OUT = "tune", "held-out"
HALVES = (TUNE, HELD_OUT)


def half(position: int) -> str:
    """The half a query belongs to, from its position inside its category (from 0)."""
    return TUNE if position % 2 == 0 else HELD_OUT


def split(queries: Sequence[Query]) -> dict[str, list[Query]]:
    """The queries of each half, in order."""
    seen: dict[str, int] = {}
    halves: dict[str, list[Query]] = {h: [] for h in HALVES}
    for query in queries:
        position = seen[query.cat] = seen.get(query.cat, -1) + 1
        halves[half(position)].append(query)
    return halves


@dataclass
class Scores:
    """MRR@10, hit@1 and hit@5 overall and per category, each for all queries or one half
    (`TUNE`, `HELD_OUT`: by position inside the category, in the order evaluated), plus
    per-query latencies (ms)."""

    rr: dict[str, list[float]] = field(default_factory=dict)
    first: dict[str, list[float]] = field(default_factory=dict)
    top5: dict[str, list[float]] = field(default_factory=dict)
    latencies: list[float] = field(default_factory=list)
    #: The same latencies, one list per round over all the queries.
    rounds: list[list[float]] = field(default_factory=list)
    #: Queries not ranked first: (category, half, query, rank or None).
    misses: list[tuple[str, str, str, int | None]] = field(default_factory=list)
    #: Queries that returned no result at all.
    empty: list[str] = field(default_factory=list)

    def mrr(self, cat: str | None = None, part: str | None = None) -> float:
        return _mean(self.rr, cat, part)

    def hit1(self, cat: str | None = None, part: str | None = None) -> float:
        return _mean(self.first, cat, part)

    def hit5(self, cat: str | None = None, part: str | None = None) -> float:
        return _mean(self.top5, cat, part)

    def count(self, cat: str | None = None, part: str | None = None) -> int:
        return len(_values(self.rr, cat, part))


def _values(table: dict[str, list[float]], cat: str | None, part: str | None) -> list[float]:
    lists = [table.get(cat, [])] if cat else list(table.values())
    return [v for vs in lists for n, v in enumerate(vs) if part is None or half(n) == part]


def _mean(table: dict[str, list[float]], cat: str | None, part: str | None = None) -> float:
    values = _values(table, cat, part)
    return sum(values) / len(values) if values else 0.0


def load_queries(path: Path = QUERIES) -> list[Query]:
    data = json.loads(path.read_text(encoding="utf-8"))
    return [Query(q["cat"], q["q"], tuple(q.get("ids", ())), tuple(q.get("phrases", ())),
                  q.get("game")) for q in data["queries"]]


def _squash(text: str) -> str:
    return "".join(text.split())


def relevant(corpus: Corpus, query: Query, entry_id: str) -> bool:
    """The dev set's rule: the id is listed, or the squashed text holds a squashed phrase.

    A listed entry's translation is the same rule: an English page that pairs with a Korean
    one (`Entry.translations`) is searched as the Korean entry, which folds its text in."""
    if entry_id in query.ids:
        return True
    entry = corpus.get(entry_id)
    if entry is not None and any(i in query.ids for i in entry.translations.values()):
        return True
    if entry is None or not query.phrases:
        return False
    text = _squash(entry.text)
    return any(_squash(p) in text for p in query.phrases)


def evaluate(search: Search, corpus: Corpus, queries: Sequence[Query], *,
             rounds: int = 1) -> Scores:
    """Score `search` on `queries`; latencies from `rounds` timed runs over all the queries
    (round after round, so a burst of load on the machine falls into one round)."""
    scores = Scores()
    answers: list[Sequence[str]] = []
    for round_ in range(max(1, rounds)):
        times: list[float] = []
        for query in queries:
            start = time.perf_counter()
            ranked = search(query.q, query.game)
            times.append((time.perf_counter() - start) * 1000)
            if round_ == 0:
                answers.append(ranked)
        scores.rounds.append(times)
        scores.latencies.extend(times)
    for query, ranked in zip(queries, answers, strict=True):
        if not ranked:
            scores.empty.append(query.q)
        rank = next((n for n, i in enumerate(ranked[:K], 1) if relevant(corpus, query, i)),
                    None)
        position = len(scores.rr.setdefault(query.cat, []))
        scores.rr[query.cat].append(1 / rank if rank else 0.0)
        scores.first.setdefault(query.cat, []).append(1.0 if rank == 1 else 0.0)
        scores.top5.setdefault(query.cat, []).append(1.0 if rank and rank <= 5 else 0.0)
        if rank != 1:
            scores.misses.append((query.cat, half(position), query.q, rank))
    return scores


def project_search(index: SearchIndex) -> Search:
    def run(q: str, game: str | None) -> list[str]:
        return [h.id for h in index.search(q, game=game, limit=K).hits]
    return run


_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")


def id_words(entry_id: str) -> str:
    """An entry's id as English text: the part after any namespace ("en/"), underscores and
    hyphens as spaces, CamelCase split (`Attack_of_Opportunity` → "Attack of Opportunity",
    `SetAside` → "Set Aside")."""
    name = re.sub(r"[_\-]+", " ", entry_id.rsplit("/", 1)[-1])
    return " ".join(_CAMEL.sub(" ", name).split())


def substring_peer(corpus: Corpus) -> Search:
    """ArkhamCards-style `LIKE '%q%'`: name hits (title or id as English text) first, then
    body hits, in reading order."""
    rows = [(e.id, e.game, f"{e.title}\n{id_words(e.id)}".casefold(), e.text.casefold())
            for e in corpus]

    def run(q: str, game: str | None) -> list[str]:
        needle = q.strip().casefold()
        if not needle:
            return []
        names = [i for i, g, n, _ in rows if (game is None or g == game) and needle in n]
        bodies = [i for i, g, n, b in rows
                  if (game is None or g == game) and needle not in n and needle in b]
        return (names + bodies)[:K]
    return run


def _like(term: str) -> str:
    """`term` as a LIKE pattern matching it anywhere (with `\\` as the escape character)."""
    return "%" + re.sub(r"([\\%_])", r"\\\1", term) + "%"


def fts5_peer(corpus: Corpus) -> Search | None:
    """SQLite FTS5, trigram tokenizer over title, id as English text and body (title and id
    weighted ×10); None when FTS5 is unavailable.

    Trigrams cannot match a term under 3 characters (단서, 파멸), so such terms become
    `LIKE '%term%'` conditions on the same text, OR-combined with the MATCH of the longer terms.
    Rows the MATCH finds rank by bm25, the rest after them; ties by the number of query terms
    the row's text holds, then reading order.
    """
    db = sqlite3.connect(":memory:", check_same_thread=False)
    try:
        db.execute("CREATE VIRTUAL TABLE rules USING fts5("
                   "id UNINDEXED, game UNINDEXED, title, name, body, tokenize='trigram')")
    except sqlite3.OperationalError:
        return None
    db.executemany("INSERT INTO rules VALUES (?, ?, ?, ?, ?)",
                   [(e.id, e.game, e.title, id_words(e.id), e.text) for e in corpus])
    text = "(r.title || ' ' || r.name || ' ' || r.body)"

    def run(q: str, game: str | None) -> list[str]:
        terms = list(dict.fromkeys(q.split()))
        long = [t for t in terms if len(t) >= 3]
        short = [t for t in terms if len(t) < 3]
        if not terms:
            return []
        matched = " + ".join(f"({text} LIKE ? ESCAPE '\\')" for _ in terms)
        found = [f"{text} LIKE ? ESCAPE '\\'" for _ in short]
        args = [_like(t) for t in terms]
        join, score = "", "NULL"
        if long:
            join = ("LEFT JOIN (SELECT rowid AS rid, bm25(rules, 0, 0, 10.0, 10.0, 1.0) AS score"
                    " FROM rules WHERE rules MATCH ?) AS m ON m.rid = r.rowid")
            args.append(" OR ".join('"' + t.replace('"', '""') + '"' for t in long))
            found.insert(0, "m.rid IS NOT NULL")
            score = "m.score"
        args += [_like(t) for t in short]
        sql = (f"SELECT r.id, {matched} AS matched FROM rules AS r {join}"
               f" WHERE ({' OR '.join(found)})")
        if game:
            sql += " AND r.game = ?"
            args.append(game)
        sql += f" ORDER BY {score} IS NULL, {score}, matched DESC, r.rowid LIMIT {K}"
        try:
            return [row[0] for row in db.execute(sql, args)]
        except sqlite3.OperationalError:
            return []
    return run


def _per_round(scores: Scores, pct: float) -> float:
    """The median over rounds of each round's `pct` percentile."""
    return statistics.median(percentile(times, pct, empty=_NONE) for times in scores.rounds)


# What a server does at start (`app.web.state.load_library`: the corpus, the index and the
# rules' history kept with it), then its first search.
_CHILD = """
import os, resource, sys, time
from pathlib import Path
from app.urls import Urls
from app.web.state import load_library
data, index_dir, queries = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3:]
index = load_library(data, index_dir, Urls()).index
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
    return _p50_p99(times)


def _p50_p99(times: Sequence[float]) -> tuple[float, float]:
    return percentile(times, 50, empty=_NONE), percentile(times, 99, empty=_NONE)


def _fmt(value: float | None, digits: int = 2) -> str:
    if value is None or value != value:
        return "n/a"
    return f"{value:.{digits}f}"


#: Targets on the held-out half, for the project: overall MRR@10, every category's MRR@10,
#: and hit@1 of the categories named here (when the query set has them).
HELD_OUT_MRR = 0.96
HELD_OUT_CATEGORY_MRR = 0.85
HELD_OUT_HIT1 = {"community": 0.95, "question": 0.90, "situation": 0.80}
#: hit@5 targets on the held-out half, per category (#23).
HELD_OUT_HIT5 = {"situation": 0.95}
MISS = "✗"
_CATEGORY_HEAD = "MRR   h1    h5   "


def _missed(value: float, target: str) -> bool:
    """Whether `value` misses a target written "≥ 0.90 …" or "≤ 3 …"; a value that could not
    be measured (NaN) misses nothing, it is shown as n/a."""
    op, _, rest = target.partition(" ")
    if op not in ("≥", "≤") or value != value:
        return False
    goal = float(rest.split()[0])
    return value < goal - 1e-9 if op == "≥" else value > goal + 1e-9


def _mark(system: str, value: float, target: str) -> str:
    """The miss marker for the project's cell when `value` misses `target`."""
    return MISS if system == "project" and _missed(value, target) else ""


def _category_cell(project: bool, scores: Scores, cat: str) -> str:
    """"MRR h1 h5 | MRR h1 h5" for all of `cat` and its held-out half; the project's misses
    marked (all: MRR ≥ 0.80; held-out: MRR and, for some categories, hit@1)."""
    def three(part: str | None, mrr_goal: float, hit1_goal: float | None) -> str:
        if not scores.count(cat, part):
            return "-".ljust(len(_CATEGORY_HEAD))
        mrr, hit1 = scores.mrr(cat, part), scores.hit1(cat, part)
        hit1_missed = hit1_goal is not None and hit1 < hit1_goal - 1e-9
        hit5 = scores.hit5(cat, part)
        hit5_goal = HELD_OUT_HIT5.get(cat)
        hit5_missed = part == HELD_OUT and hit5_goal is not None and hit5 < hit5_goal - 1e-9
        cells = [f"{mrr:.2f}" + (MISS if project and mrr < mrr_goal - 1e-9 else " "),
                 f"{hit1:.2f}" + (MISS if project and hit1_missed else " "),
                 f"{hit5:.2f}" + (MISS if project and hit5_missed else " ")]
        return " ".join(cells)
    return (three(None, 0.80, None) + " | "
            + three(HELD_OUT, HELD_OUT_CATEGORY_MRR, HELD_OUT_HIT1.get(cat)))


def held_out_check(scores: Scores, cats: Sequence[str]) -> list[str]:
    """Each held-out target with the project's value: met, missed or not measurable."""
    def check(label: str, value: float, goal: float, count: int) -> str:
        if not count:
            return f"{label} n/a (no held-out queries)"
        return f"{label} {value:.2f} {'ok' if value >= goal - 1e-9 else MISS}"
    out = [check("MRR@10", scores.mrr(None, HELD_OUT), HELD_OUT_MRR, scores.count(None, HELD_OUT))]
    out += [check(f"{cat} hit@1", scores.hit1(cat, HELD_OUT), goal, scores.count(cat, HELD_OUT))
            for cat, goal in HELD_OUT_HIT1.items()]
    out += [check(f"{cat} hit@5", scores.hit5(cat, HELD_OUT), goal, scores.count(cat, HELD_OUT))
            for cat, goal in HELD_OUT_HIT5.items()]
    low = [f"{cat} {scores.mrr(cat, HELD_OUT):.2f}" for cat in cats
           if scores.count(cat, HELD_OUT)
           and scores.mrr(cat, HELD_OUT) < HELD_OUT_CATEGORY_MRR - 1e-9]
    empty = [cat for cat in cats if not scores.count(cat, HELD_OUT)]
    out.append(f"categories below {HELD_OUT_CATEGORY_MRR:.2f} MRR@10: "
               + (", ".join(low) + f" {MISS}" if low else "none"))
    if empty:
        out.append("no held-out queries: " + ", ".join(empty))
    return out


def unreachable(corpus: Corpus, queries: Sequence[Query]) -> list[Query]:
    """Queries nothing can be relevant to: no phrases, and no listed id in the corpus."""
    return [q for q in queries if not q.phrases and not any(corpus.get(i) for i in q.ids)]


def _shown(path: Path) -> str:
    """`path` as the command line would name it from the project's folder."""
    path = path.resolve()
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=ROOT / "data")
    parser.add_argument("--queries", type=Path, default=QUERIES)
    parser.add_argument("--no-http", action="store_true")
    parser.add_argument("--misses", action="store_true", help="list queries not ranked first")
    parser.add_argument("--record", action="store_true",
                        help="write the table to docs/figures.md (bench/figures.py)")
    args = parser.parse_args(argv)

    corpus = load_corpus(args.data)
    queries = load_queries(args.queries)
    with tempfile.TemporaryDirectory(prefix="bench-search-") as tmp:
        index_dir = Path(tmp) / "index"
        start = time.perf_counter()
        index = SearchIndex.open_or_build(corpus, index_dir)
        build = time.perf_counter() - start
        load_library(args.data, index_dir, Urls())  # the start-up row opens what a server opens
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
        # A player whose game filter is remembered searches every query in one game: the
        # ranking inside it, and the check for a better answer in the other (`elsewhere`).
        games = [g.id for g in corpus.games]
        filtered_ms: list[float] = []
        for round_ in range(4):
            for game in games:
                for query in queries:
                    t0 = time.perf_counter()
                    index.search(query.q, game=game, limit=10)
                    if round_:  # the first round warms what the others time
                        filtered_ms.append((time.perf_counter() - t0) * 1000)
        startup, rss = startup_and_rss(args.data, index_dir, [q.q for q in queries])
        http = {name: None if args.no_http or systems[name] is None else http_latency(
                    target, path, args.data, Path(tmp) / "http-index", queries)
                for name, (target, path) in HTTP_SYSTEMS.items()}

    names = list(systems)
    rows: list[tuple[str, list[str], str]] = []
    halves = split(queries)

    def metric(label: str, fn: Callable[[Scores], float], target: str = "") -> None:
        rows.append((label, [_fmt(fn(r)) + _mark(name, fn(r), target) if r else "n/a"
                             for name, r in results.items()], target))

    sizes: dict[str | None, int] = {None: len(queries), **{h: len(halves[h]) for h in HALVES}}
    overall: list[tuple[str, Callable[[Scores, str | None, str | None], float],
                        dict[str | None, str]]] = [
        ("MRR@10", Scores.mrr, {None: "≥ 0.90", HELD_OUT: f"≥ {HELD_OUT_MRR:.2f} (held-out)"}),
        ("hit@1", Scores.hit1, {}),
        ("hit@5", Scores.hit5, {None: "≥ 0.95"}),
    ]
    for label, fn, goals in overall:
        for part in (None, *HALVES):
            def value(r: Scores, fn: Callable[[Scores, str | None, str | None], float] = fn,
                      part: str | None = part) -> float:
                return fn(r, None, part)
            metric(f"{label} {part or 'all'} ({sizes[part]})", value, goals.get(part, ""))
    cats = list(dict.fromkeys(q.cat for q in queries))
    rows.append(("per category (all | held-out):", [f"{_CATEGORY_HEAD} | {_CATEGORY_HEAD}"
                                                    for _ in names], ""))
    for cat in cats:
        held = sum(1 for q in halves[HELD_OUT] if q.cat == cat)
        hit1_goal = HELD_OUT_HIT1.get(cat)
        target = f"MRR ≥ 0.80 | MRR ≥ {HELD_OUT_CATEGORY_MRR:.2f}" + (
            f", h1 ≥ {hit1_goal:.2f}" if hit1_goal is not None else "") + (
            f", h5 ≥ {HELD_OUT_HIT5[cat]:.2f}" if cat in HELD_OUT_HIT5 else "")
        rows.append((f"  {cat} ({sum(1 for q in queries if q.cat == cat)} | {held})",
                     [_category_cell(name == "project", r, cat) if r else "n/a"
                      for name, r in results.items()], target))
    rows.append(("zero-result rate", [f"{len(r.empty) / max(1, len(queries)):.3f}"
                                      + _mark(name, len(r.empty), "≤ 0") if r else "n/a"
                                      for name, r in results.items()], "≤ 0"))
    # The speed budget of #10: p50 ≤ 1 ms, p99 ≤ 5 ms in-process, suggest ≤ 1 ms. Judged on
    # the median round: this 2-core VM's neighbours make single rounds slow now and then
    # (the same code's pooled p99 ranged 4.3–8.1 ms within an hour); the pooled figure
    # is shown below it.
    metric("p50 ms (in-process, median round)", lambda s: _per_round(s, 50), "≤ 1")
    metric("p99 ms (in-process, median round)", lambda s: _per_round(s, 99), "≤ 5")
    rows.append(("p50 / p99 ms, all rounds pooled", [
        "{:.2f} / {:.2f}".format(*_p50_p99(r.latencies)) if r else "n/a"
        for r in results.values()], ""))
    rows.append(("p50 / p99 ms, first run (cold)", [
        "{:.2f} / {:.2f}".format(*_p50_p99(r.latencies)) if r else "n/a"
        for r in cold.values()], ""))
    rows.append((f"p50 / p99 ms in one game's filter ({len(games)} games, 3 rounds pooled)",
                 ["{:.2f} / {:.2f}".format(*_p50_p99(filtered_ms)), "n/a", "n/a"], ""))
    suggest_p50 = percentile(suggest_ms, 50, empty=_NONE)
    rows.append(("suggest p50 ms", [_fmt(suggest_p50) + _mark("project", suggest_p50, "≤ 1"),
                                    "n/a", "n/a"], "≤ 1"))
    rows.append(("start-up s (built index)",
                 [_fmt(startup) + _mark("project", startup, "≤ 1.5"), "n/a", "n/a"], "≤ 1.5"))
    rows.append(("RSS MiB after 1,000 queries",
                 [_fmt(rss, 0) + _mark("project", rss, "≤ 200"), "n/a", "n/a"], "≤ 200"))
    rows.append(("HTTP p50 ms (uvicorn, loopback)",
                 [_fmt(h[0]) if h else "n/a" for h in http.values()], ""))
    rows.append(("HTTP p99 ms (uvicorn, loopback)",
                 [_fmt(h[1]) if h else "n/a" for h in http.values()], ""))

    width = max(len(r[0]) for r in rows) + 2
    cols = [max(len(n), 14, *(len(r[1][c]) for r in rows)) + 2 for c, n in enumerate(names)]
    head = [f"search bench: {len(corpus)} entries, {len(queries)} queries "
            f"({len(halves[TUNE])} tune | {len(halves[HELD_OUT])} held-out: even | odd positions "
            f"inside each category), index built in {build:.2f} s, "
            f"SQLite {sqlite3.sqlite_version}, the search "
            f"{'compiled (python -m app compile)' if native.compiled() else 'as Python'}",
            f"held-out targets (project column, held-out half): MRR@10 ≥ {HELD_OUT_MRR:.2f} "
            "overall" + "".join(f", {cat} hit@1 ≥ {goal:.2f}" for cat, goal in
                                HELD_OUT_HIT1.items())
            + "".join(f", {cat} hit@5 ≥ {goal:.2f}" for cat, goal in HELD_OUT_HIT5.items())
            + f", no category below {HELD_OUT_CATEGORY_MRR:.2f} MRR@10; {MISS} = target missed"]
    print("\n".join(head))
    print("metric".ljust(width) + "".join(n.rjust(c) for n, c in zip(names, cols, strict=True))
          + "  target")
    print("-" * (width + sum(cols) + 8))
    for label, cells, target in rows:
        print(label.ljust(width) + "".join(v.rjust(c) for v, c in zip(cells, cols, strict=True))
              + ("  " + target if target else ""))
    project = results["project"]
    assert project is not None
    check = "held-out check (project): " + "; ".join(held_out_check(project, cats))
    print(check)
    if args.record:
        command = "python -m bench.search" + (
            f" --queries {_shown(args.queries)}" if args.queries != QUERIES else "") + (
            " --no-http" if args.no_http else "")
        print("recorded in", figures.record(f"search: {args.queries.name}", figures.Table(
            title=f"Search quality and speed: {args.queries.name}", command=command,
            columns=["metric", *names, "target"],
            rows=[[label.strip(), *cells, target] for label, cells, target in rows],
            notes=[*head, check])).relative_to(ROOT))
    for query in unreachable(corpus, queries):
        print(f"warning: no entry can be relevant to {query.cat} query {query.q!r} "
              "(no phrases, and none of its ids is in the corpus)")
    for q in project.empty:
        print(f"no result: {q!r}")
    if args.misses:
        for cat, part, q, rank in project.misses:
            print(f"not first: [{cat}, {part}] {q!r} rank={rank}")
    return 0

if __name__ == "__main__":
    raise SystemExit(main())
