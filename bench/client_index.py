"""How the browser engine's files grow with the corpus, and how the engine answers.

Builds the client index and texts (`app/search/client_index.py`) over the first 25, 50, 75
and 100% of every source's entries (reading order, so parents come with their children) and
prints, per size: entries, documents, raw and gzip KB of each file, the build time, and, when
`node` is installed, how long static/engine.js takes to load both files (parse, decode, derive
the body postings) and its median query time over the development queries. Over the whole
corpus it also scores the browser engine on the development queries (MRR@10, hit@1, hit@5, as
`bench.search` scores the server) and counts the top-5 lists identical to the server's.

    .venv/bin/python -m bench.client_index [--record]

`--record` writes the tables to docs/figures.md (`bench/figures.py`).
"""

from __future__ import annotations

import argparse
import dataclasses
import gzip
import json
import shutil
import statistics
import subprocess
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from app.corpus.build import load_corpus
from app.corpus.models import Corpus
from app.search import SearchIndex, client_index
from app.search.documents import documents
from app.search.index import load_index
from app.urls import Urls
from bench import figures
from bench.search import K, Query, evaluate, load_queries

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "data"
QUERIES = ROOT / "bench" / "search-queries.dev.json"
SHARES = (0.25, 0.5, 0.75, 1.0)

#: Loads the two files into the engine (as a page would, expecting the index's analysis),
#: then answers each development query twice: a first pass (the engine's first queries, as
#: a page meets them) and a second, timed one; prints JSON.
_NODE = """
const fs = require("fs");
const { RulesEngine: Engine } = require(process.argv[1]).loadEngine();
const [index, texts, queries] = process.argv.slice(2, 5).map((f) => fs.readFileSync(f, "utf-8"));
let start = process.hrtime.bigint();
const parsed = JSON.parse(index);
const engine = new Engine(parsed, parsed.analysis);
engine.addTexts(JSON.parse(texts));
const load = Number(process.hrtime.bigint() - start) / 1e6;
const run = () => JSON.parse(queries).queries.map((q) => {
  start = process.hrtime.bigint();
  const found = engine.search(q.q, { game: q.game || "", limit: Number(process.argv[5]) });
  return { ms: Number(process.hrtime.bigint() - start) / 1e6, ids: found.hits.map((h) => h.id) };
});
const first = run(), second = run();
process.stdout.write(JSON.stringify({ load, first: first.map((r) => r.ms),
  times: second.map((r) => r.ms), ids: second.map((r) => r.ids) }));
"""


def subset(corpus: Corpus, share: float) -> Corpus:
    """`corpus` cut to the first `share` of each source's entries; translations pointing at
    an entry that was cut are dropped with it."""
    sources = tuple(dataclasses.replace(s, entry_ids=s.entry_ids[: max(1, round(
        len(s.entry_ids) * share))]) for s in corpus.sources)
    kept = {i for s in sources for i in s.entry_ids}
    entries = {i: dataclasses.replace(
        e, translations={k: v for k, v in e.translations.items() if v in kept})
        for i, e in corpus.entries.items() if i in kept}
    return dataclasses.replace(corpus, sources=sources, entries=entries)


def _sizes(data: object) -> tuple[float, float]:
    raw = json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    return len(raw) / 1024, len(gzip.compress(raw, 9, mtime=0)) / 1024


def _engine(index: object, texts: object) -> dict[str, Any] | None:
    """The engine's load time, first-pass and timed query times and answers, or None
    without node."""
    node = shutil.which("node")
    if node is None:
        return None
    with tempfile.TemporaryDirectory() as folder:
        paths = [Path(folder) / "index.json", Path(folder) / "texts.json"]
        for path, data in zip(paths, (index, texts), strict=True):
            path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
        done = subprocess.run(
            [node, "-e", _NODE, str(ROOT / "tests" / "node" / "engine.js"), *map(str, paths),
             str(QUERIES), str(K)], capture_output=True, text=True, check=True, timeout=300)
    found: dict[str, Any] = json.loads(done.stdout)
    return found


def _quality(corpus: Corpus, queries: Sequence[Query],
             browser_ids: Sequence[Sequence[str]]) -> list[list[str]]:
    """Rows scoring the browser engine's answers as `bench.search` scores the server's, and
    how many top-5 lists are the server's."""
    answers = {(q.q, q.game): list(ids) for q, ids in zip(queries, browser_ids, strict=True)}
    browser = evaluate(lambda q, game: answers[(q, game)], corpus, queries)
    index = SearchIndex(corpus, load_index(corpus, None))
    server = evaluate(lambda q, game: [h.id for h in index.search(q, game=game, limit=K).hits],
                      corpus, queries)
    identical = sum(
        [h.id for h in index.search(q.q, game=q.game, limit=5).hits] == list(ids[:5])
        for q, ids in zip(queries, browser_ids, strict=True))
    return [["MRR@10", f"{browser.mrr():.2f}", f"{server.mrr():.2f}"],
            ["hit@1", f"{browser.hit1():.2f}", f"{server.hit1():.2f}"],
            ["hit@5", f"{browser.hit5():.2f}", f"{server.hit5():.2f}"],
            ["top 5 identical to the server's", f"{identical}/{len(queries)}", ""]]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--record", action="store_true",
                        help="write the tables to docs/figures.md (bench/figures.py)")
    args = parser.parse_args(argv)
    corpus = load_corpus(DATA)
    queries = load_queries(QUERIES)
    urls = Urls()
    columns = ["entries", "documents", "index raw KB", "index gzip KB", "texts raw KB",
               "texts gzip KB", "build ms", "engine load ms (node)",
               "query median ms (node, first pass)", "query median ms (node)"]
    print("| " + " | ".join(columns) + " |")
    print("|" + "|".join("---:" for _ in columns) + "|")
    rows: list[list[str]] = []
    quality: list[list[str]] = []
    for share in SHARES:
        part = subset(corpus, share)
        start = time.perf_counter()
        index = client_index.index(part, urls)
        texts = client_index.texts(part)
        build = (time.perf_counter() - start) * 1000
        index_raw, index_gz = _sizes(index)
        texts_raw, texts_gz = _sizes(texts)
        engine = _engine(index, texts)
        timed = (f"{engine['load']:.0f}", f"{statistics.median(engine['first']):.2f}",
                 f"{statistics.median(engine['times']):.2f}") if engine else ("–", "–", "–")
        row = [str(len(part)), str(len(documents(part))), f"{index_raw:.0f}", f"{index_gz:.0f}",
               f"{texts_raw:.0f}", f"{texts_gz:.0f}", f"{build:.0f}", *timed]
        print("| " + " | ".join(row) + " |")
        rows.append(row)
        if share == 1.0 and engine:
            quality = _quality(corpus, queries, engine["ids"])
    if quality:
        print(f"\nthe browser engine on {QUERIES.name} (whole corpus), beside the server:")
        for label, browser, server in quality:
            print(f"  {label}: {browser}" + (f" (server {server})" if server else ""))
    if args.record:
        figures.record("client index", figures.Table(
            title="Browser engine: the client index's size and load", command=(
                "python -m bench.client_index"), columns=columns, rows=rows, notes=[
                "Over the first 25, 50, 75 and 100 % of every source's entries. Sizes as "
                "served (`/search-index.json`, `/search-texts.json`, gzip level 9); the engine "
                "in Node, loading both files and deriving the body postings, then the "
                "development queries twice (the first pass is what a page meets first)."]))
        if quality:
            figures.record("client index quality", figures.Table(
                title=f"Browser engine: quality on {QUERIES.name}",
                command="python -m bench.client_index",
                columns=["metric", "browser engine", "server"], rows=quality, notes=[
                    "The same relevance judgments as `bench.search`. A top-5 list may differ "
                    "from the server's only where the server uses a feature the browser does "
                    "not port (`tests/test_client_parity.py` names them and fails on any other "
                    "difference); the engine in Chromium, offline, is checked by "
                    "`tests/browser/test_offline_search.py` (hit@5 ≥ 0.85)."]))
        print("recorded in", figures.FIGURES_MD.relative_to(ROOT))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
