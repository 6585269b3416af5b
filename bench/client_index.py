"""How the browser engine's files grow with the corpus.

Builds the client index and texts (`app/search/client_index.py`) over the first 25, 50, 75
and 100% of every source's entries (reading order, so parents come with their children) and
prints, per size: entries, documents, raw and gzip KB of each file, the build time, and, when
`node` is installed, how long static/engine.js takes to load both files (parse, decode, derive
the body postings) and its median query time over the development queries.

    .venv/bin/python -m bench.client_index
"""

from __future__ import annotations

import dataclasses
import gzip
import json
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from app.corpus.build import load_corpus
from app.corpus.models import Corpus
from app.search import client_index
from app.search.documents import documents
from app.urls import Urls

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "data"
QUERIES = ROOT / "bench" / "search-queries.dev.json"
SHARES = (0.25, 0.5, 0.75, 1.0)

#: Loads the two files into the engine, then times each development query (ms, JSON out).
_NODE = """
const fs = require("fs");
const { RulesEngine: Engine } = require(process.argv[1]).loadEngine();
const [index, texts, queries] = process.argv.slice(2).map((f) => fs.readFileSync(f, "utf-8"));
let start = process.hrtime.bigint();
const parsed = JSON.parse(index);
const engine = new Engine(parsed, parsed.analysis);
engine.addTexts(JSON.parse(texts));
const load = Number(process.hrtime.bigint() - start) / 1e6;
const times = JSON.parse(queries).queries.map((q) => {
  start = process.hrtime.bigint();
  engine.search(q.q, { game: q.game || "", limit: 10 });
  return Number(process.hrtime.bigint() - start) / 1e6;
});
process.stdout.write(JSON.stringify({ load, times }));
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


def _engine_times(index: object, texts: object) -> tuple[float, float] | None:
    node = shutil.which("node")
    if node is None:
        return None
    with tempfile.TemporaryDirectory() as folder:
        paths = [Path(folder) / "index.json", Path(folder) / "texts.json"]
        for path, data in zip(paths, (index, texts), strict=True):
            path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
        done = subprocess.run(
            [node, "-e", _NODE, str(ROOT / "tests" / "node" / "engine.js"), *map(str, paths),
             str(QUERIES)], capture_output=True, text=True, check=True, timeout=300)
    found = json.loads(done.stdout)
    return float(found["load"]), statistics.median(found["times"])


def main() -> None:
    corpus = load_corpus(DATA)
    urls = Urls()
    print("| entries | documents | index raw KB | index gzip KB | texts raw KB | texts gzip KB "
          "| build ms | engine load ms (node) | query median ms (node) |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for share in SHARES:
        part = subset(corpus, share)
        start = time.perf_counter()
        index = client_index.index(part, urls)
        texts = client_index.texts(part)
        build = (time.perf_counter() - start) * 1000
        index_raw, index_gz = _sizes(index)
        texts_raw, texts_gz = _sizes(texts)
        engine = _engine_times(index, texts)
        load, query = (f"{engine[0]:.0f}", f"{engine[1]:.2f}") if engine else ("–", "–")
        print(f"| {len(part)} | {len(documents(part))} | {index_raw:.0f} | {index_gz:.0f} "
              f"| {texts_raw:.0f} | {texts_gz:.0f} | {build:.0f} | {load} | {query} |")


if __name__ == "__main__":
    main()
