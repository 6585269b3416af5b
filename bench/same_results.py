"""Every answer the search gives the bench's queries, to prove a speed change changed none.

    .venv/bin/python -m bench.same_results --write FILE     # before the change
    .venv/bin/python -m bench.same_results --compare FILE   # after: exit 1 on any difference

For every query of the development and blind sets (with its game filter, then with each
other game's and with none), records the whole `Results` of a page of 10 and of 100 (hits in
order, snippets, shown entries, totals, notices, suggestion) and the suggestions for each of
its first 12 prefixes; also the same for the hostile queries (`bench.hostile_queries`, fixed
seed). A speed change must leave all of it byte-identical. Nothing is timed or contacted.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from app.corpus.build import load_corpus
from app.search import SearchIndex
from bench.hostile_queries import generate
from bench.search import QUERIES, load_queries

ROOT = Path(__file__).resolve().parents[1]
BLIND = QUERIES.with_name("search-queries.blind.json")
#: How many prefixes of each query are suggested (search-as-you-type).
PREFIXES = 12


def answers(index: SearchIndex, games: Sequence[str]) -> Iterator[tuple[str, Any]]:
    """(what was asked, what the search answered) for every query, in a fixed order."""
    asked: list[tuple[str, str | None]] = []
    for path in (QUERIES, BLIND):
        asked += [(q.q, q.game) for q in load_queries(path)]
    asked += [(q, None) for q in generate(120, 23)]
    seen: set[tuple[str, str | None, int]] = set()
    for text, game in asked:
        for filter_ in dict.fromkeys([game, None, *games]):
            for limit in (10, 100):
                if (text, filter_, limit) in seen:
                    continue
                seen.add((text, filter_, limit))
                results = index.search(text, game=filter_, limit=limit)
                yield f"search {text!r} game={filter_} limit={limit}", dataclasses.asdict(results)
        for end in range(1, min(len(text), PREFIXES) + 1):
            yield f"suggest {text[:end]!r}", index.suggest(text[:end])


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=ROOT / "data")
    what = parser.add_mutually_exclusive_group(required=True)
    what.add_argument("--write", type=Path, help="record the answers in this file")
    what.add_argument("--compare", type=Path, help="compare the answers with this file")
    args = parser.parse_args(argv)
    corpus = load_corpus(args.data)
    with tempfile.TemporaryDirectory(prefix="bench-same-") as tmp:
        index = SearchIndex.open_or_build(corpus, Path(tmp) / "index")
        got = [[key, value] for key, value in answers(index, [g.id for g in corpus.games])]
    # JSON's own round trip: tuples and lists compare alike on both sides.
    got = json.loads(json.dumps(got, ensure_ascii=False))
    if args.write:
        args.write.write_text(json.dumps(got, ensure_ascii=False, indent=0), encoding="utf-8")
        print(f"{len(got)} answers written to {args.write}")
        return 0
    expected = json.loads(args.compare.read_text(encoding="utf-8"))
    differ = [(e, g) for e, g in zip(expected, got, strict=False) if e != g]
    if len(expected) != len(got):
        print(f"{len(expected)} answers expected, {len(got)} given")
    for e, g in differ[:10]:
        print(f"differs: {e[0]}\n  expected {json.dumps(e[1], ensure_ascii=False)[:600]}"
              f"\n  given    {json.dumps(g[1], ensure_ascii=False)[:600]}")
    print(f"{len(got) - len(differ)} of {len(expected)} answers identical")
    return 1 if differ or len(expected) != len(got) else 0


if __name__ == "__main__":
    sys.exit(main())
