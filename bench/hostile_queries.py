"""Worst-case queries for the search's per-query budget, and a bench of their latency.

    .venv/bin/python -m bench.hostile_queries [--data DIR] [-n N] [--seed S] [--rounds R]
                                              [--worst N]

`generate(n, seed)` returns `n` queries of at most 200 characters, deterministic by seed, made
to cost the most per character: mostly words unknown to the index, each asking for a typo
correction, BM25 lookups for its variants and bigrams and a proximity test per word pair; or
the corpus's most frequent words, with the longest postings. Kinds (taken in turn):

* **typo** — words of the index's Hangul vocabulary with one syllable replaced by a random
  syllable (`틈새` → `틈뷁`), space-separated;
* **hangul** — random Hangul "words" of 2–4 syllables;
* **english** — random lowercase English-looking words (4–10 letters; half of them typo'd
  words of the index's English vocabulary);
* **unspaced** — typo'd vocabulary words run together without spaces (one 200-character word);
* **common** — the corpus's most frequent words, correctly spelled: no corrections, but the
  longest postings to score and the most candidates to re-rank;
* **mixed** — typo'd words with particles and endings, English, initial consonants and query
  syntax characters interleaved.

`main()` builds the index, warms up, then times `SearchIndex.search`, `SearchIndex.suggest`
and `search_context.closest_entries` (the 404 page's suggestions) on each query and prints
p50 / p99 / max per kind against the 20 ms target. Only in-process; nothing is contacted.
"""

from __future__ import annotations

import argparse
import random
import re
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from app.corpus.build import load_corpus
from app.corpus.models import Corpus
from app.search import SearchIndex, analysis
from app.search.query import MAX_QUERY
from app.urls import Urls
from app.web.search_context import closest_entries
from bench.stats import percentile

__all__ = ["KINDS", "TARGET_MS", "generate", "generate_kinds", "main"]

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "data"
#: The worst single query's in-process latency the search budget is sized for.
TARGET_MS = 20.0
KINDS = ("typo", "hangul", "english", "unspaced", "common", "mixed")
#: How many of the most frequent words the `common` kind draws from.
_COMMON = 300

_SYLLABLES = 11172
_LETTERS = "abcdefghijklmnopqrstuvwxyz"
_INITIALS = "ㄱㄴㄷㄹㅁㅂㅅㅇㅈㅊㅋㅌㅍㅎ"
_ENDINGS = ("가", "를", "에서", "하면", "되는", "으로", "받은", "입니다")
_SYNTAX = ("AND", "OR", "*", '"', "~2", "title:", "(", ")", "^3")


@dataclass(frozen=True)
class _Words:
    hangul: tuple[str, ...]
    english: tuple[str, ...]
    #: The most frequent Hangul words by number of entries, most frequent first.
    common: tuple[str, ...]


@lru_cache(maxsize=4)
def _vocabulary(data: Path) -> _Words:
    """The index's Hangul and English word vocabularies, computed from the corpus alone.

    Same terms as the index's (`title_w`, `body_w`, `alias` fields), sorted so a seed always
    picks the same words.
    """
    frequency: Counter[str] = Counter()
    english: set[str] = set()
    for entry in load_corpus(data):
        words = (analysis.index_words(entry.title) + analysis.title_parts(entry.title)
                 + analysis.index_words(entry.text) + analysis.alias_terms(entry.id))
        for word in set(words):
            if analysis.is_hangul(word) and len(word) >= 2:
                frequency[word] += 1
            elif word.isascii() and word.isalpha():
                english.add(word)
    common = sorted(frequency, key=lambda w: (-frequency[w], w))[:_COMMON]
    return _Words(tuple(sorted(frequency)), tuple(sorted(english)), tuple(common))


def _syllable(rng: random.Random) -> str:
    return chr(0xAC00 + rng.randrange(_SYLLABLES))


def _typo(rng: random.Random, word: str) -> str:
    """`word` with one syllable replaced by a random one."""
    at = rng.randrange(len(word))
    return word[:at] + _syllable(rng) + word[at + 1 :]


def _english_typo(rng: random.Random, word: str) -> str:
    at = rng.randrange(len(word))
    return word[:at] + rng.choice(_LETTERS) + word[at + 1 :]


def _fill(make: Callable[[], str], sep: str = " ") -> str:
    """Words from `make` joined by `sep` until the next one would pass `MAX_QUERY`."""
    text = make()[:MAX_QUERY]
    while True:
        word = make()
        if len(text) + len(sep) + len(word) > MAX_QUERY:
            return text
        text += sep + word


def _one(kind: str, rng: random.Random, words: _Words) -> str:
    hangul = words.hangul
    long_english = [w for w in words.english if len(w) >= 4] or ["rule"]

    def typo() -> str:
        return _typo(rng, rng.choice(hangul))

    def random_hangul() -> str:
        return "".join(_syllable(rng) for _ in range(rng.randint(2, 4)))

    def english_word() -> str:
        if rng.random() < 0.5:
            return _english_typo(rng, rng.choice(long_english))
        return "".join(rng.choice(_LETTERS) for _ in range(rng.randint(4, 10)))

    def mixed() -> str:
        pick = rng.random()
        if pick < 0.5:
            return typo() + rng.choice(_ENDINGS)
        if pick < 0.7:
            return english_word()
        if pick < 0.85:
            return typo()[:1] + "".join(rng.choice(_INITIALS) for _ in range(rng.randint(1, 3)))
        return rng.choice(_SYNTAX)

    if kind == "typo":
        return _fill(typo)
    if kind == "hangul":
        return _fill(random_hangul)
    if kind == "english":
        return _fill(english_word)
    if kind == "unspaced":
        return _fill(typo, sep="")
    if kind == "common":
        return _fill(lambda: rng.choice(words.common))
    if kind == "mixed":
        return _fill(mixed)
    raise ValueError(f"unknown kind {kind!r}")


def generate_kinds(n: int, seed: int, *, data: Path = DATA) -> list[tuple[str, str]]:
    """`n` (kind, query) pairs, kinds taken in turn from `KINDS`; deterministic by `seed`."""
    words = _vocabulary(data.resolve())
    rng = random.Random(seed)
    return [(KINDS[i % len(KINDS)], _one(KINDS[i % len(KINDS)], rng, words))
            for i in range(max(0, n))]


def generate(n: int, seed: int) -> list[str]:
    """`n` worst-case queries of at most 200 characters (see the module docstring)."""
    return [query for _, query in generate_kinds(n, seed)]


def _time_round(index: SearchIndex, corpus: Corpus, timed: Sequence[tuple[str, str]],
                warm: Sequence[str]) -> dict[str, list[float]]:
    """One pass over `timed` on a fresh `index`: ms per path, in query order."""
    urls = Urls()
    paths: dict[str, Callable[[str], object]] = {
        "search": lambda q: index.search(q),
        "suggest": lambda q: index.suggest(q),
        "closest_entries": lambda q: closest_entries(corpus, index, urls, q),
    }
    # Compiled patterns of earlier rounds would make this one's queries look cheaper.
    re.purge()
    for query in warm:
        for run in paths.values():
            run(query)
    times: dict[str, list[float]] = {name: [] for name in paths}
    for _, query in timed:
        for name, run in paths.items():
            start = time.perf_counter()
            run(query)
            times[name].append((time.perf_counter() - start) * 1000)
    return times


def main(argv: Sequence[str] | None = None) -> int:
    """Build the index, warm up, time every generated query and print the table.

    Each round opens a fresh `SearchIndex` from the same folder (empty memos) and times
    every query once; a query's time is its fastest round, which removes pauses caused by
    other processes without ever timing a query the caches have already seen.
    """
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("-n", type=int, default=500, help="queries to time (after warm-up)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--worst", type=int, default=0, help="print the N slowest queries")
    args = parser.parse_args(argv)

    corpus = load_corpus(args.data)
    timed = generate_kinds(args.n, args.seed, data=args.data)
    warm = generate(min(100, args.n), args.seed + 1_000_003)
    rounds: list[dict[str, list[float]]] = []
    with tempfile.TemporaryDirectory(prefix="bench-hostile-") as tmp:
        for _ in range(max(1, args.rounds)):
            # Built the first time, opened from the folder afterwards.
            index = SearchIndex.open_or_build(corpus, Path(tmp) / "index")
            rounds.append(_time_round(index, corpus, timed, warm))
    names = list(rounds[0])
    best = {name: [min(r[name][i] for r in rounds) for i in range(len(timed))]
            for name in names}

    print(f"hostile queries: {len(timed)} timed (seed {args.seed}), {len(warm)} warm-up, "
          f"{len(corpus)} entries, best of {len(rounds)} fresh rounds; in-process ms, "
          "p50 / p99 / max")
    print("kind".ljust(10) + "".join(n.rjust(24) for n in names))
    print("-" * (10 + 24 * len(names)))
    for kind in KINDS:
        cells = []
        for name in names:
            values = [ms for ms, (k, _) in zip(best[name], timed, strict=True) if k == kind]
            cells.append(f"{percentile(values, 50):.2f} / {percentile(values, 99):.2f} / "
                         f"{max(values):.2f}" if values else "n/a")
        print(kind.ljust(10) + "".join(c.rjust(24) for c in cells))
    slowest = sorted(((best[name][i], name, timed[i][1]) for name in names
                      for i in range(len(timed))), reverse=True)
    worst = slowest[0] if slowest else (0.0, "", "")
    verdict = "within" if worst[0] <= TARGET_MS else "OVER"
    print(f"overall max {worst[0]:.2f} ms ({worst[1]}): {verdict} the {TARGET_MS:.0f} ms target")
    for ms, name, query in slowest[: args.worst]:
        print(f"  {ms:7.2f} ms {name:<16} {query!r}")
    return 0 if worst[0] <= TARGET_MS else 1


if __name__ == "__main__":
    raise SystemExit(main())
