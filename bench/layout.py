"""Wrong-layout typing (한/영): titles typed with the keyboard in English mode, and English
queries that must stay English.

    .venv/bin/python -m bench.layout [--record]

Two sets made from the data, never hand-picked:

* **typed in the wrong layout**: 50 Korean titles of the rules reference (every n-th in reading
  order, placeholders aside), each as a player would type it with the keyboard in English
  mode (`layout.to_qwerty`, spaces kept: `xmatorhdrur`). Found when the first result carries
  that title. The peer in the same run is the same search without the conversion
  (`typed=1`), which is what every rules site does;
* **typed key by key**: every prefix of those typed titles from the third key on, as the
  search box sends it while the player types. Suggested when the title's entry is among the
  suggestions. The reference in the same run is the text the same keys show in Korean mode
  (the input method's composition, `layout.typing_forms`' first form: 틈ㅅ, 틈색), suggested
  the same way;
* **English that must stay English**: up to 200 queries from the English rules' titles (each
  title, then its lower-case form, then its first two words, until 200). A false conversion
  is a query the search read as Hangul typed in the wrong layout; for suggestions, an English
  prefix (third character on) whose suggestions lose the title they had as typed in English.

Prints one table (with `--record`, also written to docs/figures.md).
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence
from pathlib import Path

from app.corpus.build import load_corpus
from app.search import SearchIndex, analysis
from app.search.layout import to_qwerty, typing_forms
from bench import figures

ROOT = Path(__file__).resolve().parents[1]
TYPED = 50
ENGLISH = 200
#: Suggestions are asked for from this many keys on (`static/search.js` asks from the first;
#: two keys are rarely a syllable).
KEYS_FROM = 3


def to_hangul(word: str) -> str:
    """A whole word typed in English mode, as Korean mode shows it."""
    shown = typing_forms(word)
    return shown[0] if shown else word


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--record", action="store_true")
    args = parser.parse_args(argv)
    corpus = load_corpus(ROOT / "data")
    index = SearchIndex.open_or_build(corpus, None)
    titles = [e for e in corpus if e.source == "ahlcg-reference" and not e.placeholder
              and analysis.is_hangul("".join(analysis.words(e.title)))]
    step = max(1, len(titles) // TYPED)
    chosen = titles[::step][:TYPED]
    found = {"project": 0, "no conversion": 0}
    missed: list[str] = []
    start = time.perf_counter()
    for entry in chosen:
        typed = to_qwerty(" ".join(analysis.words(entry.title)))
        for name, as_typed in (("project", False), ("no conversion", True)):
            hits = index.search(typed, limit=1, as_typed=as_typed).hits
            if hits and corpus.entries[hits[0].id].title == entry.title:
                found[name] += 1
            elif name == "project":
                missed.append(f"{typed!r} ({entry.title})")
    typed_ms = (time.perf_counter() - start) * 1000 / max(1, 2 * len(chosen))
    keys = {"project": 0, "korean mode": 0}
    prefixes = 0
    for entry in chosen:
        typed = to_qwerty(" ".join(analysis.words(entry.title)))
        for end in range(KEYS_FROM, len(typed) + 1):
            prefix = typed[:end].rstrip()
            shown = typing_forms(prefix.split(" ")[-1])
            prefixes += 1
            keys["project"] += entry.id in index.suggest(prefix)
            korean = " ".join([*(to_hangul(w) for w in prefix.split(" ")[:-1]),
                               shown[0] if shown else ""]).strip()
            keys["korean mode"] += bool(korean) and entry.id in index.suggest(korean)
    english = [e.title for e in corpus if e.source == "ahlcg-reference-en"]
    queries: list[str] = list(dict.fromkeys(english))
    for form in ([t.lower() for t in english], [" ".join(t.split()[:2]) for t in english]):
        queries += [q for q in dict.fromkeys(form) if q not in queries]
    queries = queries[:ENGLISH]
    false = [q for q in queries if index.search(q, limit=1).layout is not None]
    english_prefixes = sum(max(0, len(q) - KEYS_FROM + 1) for q in queries)
    lost = [q[:end] for q in queries for end in range(KEYS_FROM, len(q) + 1)
            if index.typing_layout(q[:end]) is not None]
    rows = [
        ["titles typed in the wrong layout, title first", f"{found['project']}/{len(chosen)}",
         f"{found['no conversion']}/{len(chosen)}", "≥ 95 %"],
        ["English queries read as the wrong layout (false conversions)",
         f"{len(false)}/{len(queries)}", "0", "≤ 1"],
        ["prefixes of those, key by key from the 3rd key, suggesting the title",
         f"{keys['project']}/{prefixes}", f"{keys['korean mode']}/{prefixes} Korean mode",
         "≥ Korean mode"],
        ["English prefixes (3rd character on) read as the wrong layout in suggestions",
         f"{len(lost)}/{english_prefixes}", "0", "≤ 1 %"],
        ["ms per search (wrong-layout set)", f"{typed_ms:.2f}", "", ""],
    ]
    columns = ["metric", "project", "no conversion (peer)", "target"]
    width = max(len(r[0]) for r in rows) + 2
    print(f"layout bench: {len(chosen)} titles of the rules reference typed on a QWERTY layout, "
          f"{len(queries)} English queries from the English rules' titles")
    print("".join(c.ljust(width if i == 0 else 22) for i, c in enumerate(columns)))
    for row in rows:
        print("".join(c.ljust(width if i == 0 else 22) for i, c in enumerate(row)))
    for q in false:
        print("false conversion:", repr(q))
    for q in lost[:20]:
        print("false conversion in suggestions:", repr(q))
    for q in missed:
        print("not first:", q)
    if args.record:
        print("recorded in", figures.record("layout", figures.Table(
            title="Wrong-layout typing (한/영)", command="python -m bench.layout",
            columns=columns, rows=rows,
            notes=["Titles typed with the keyboard in English mode (layout.to_qwerty of every "
                   "n-th Korean title of the rules reference), and English queries from the "
                   "English rules' titles that must not be converted."])).relative_to(ROOT))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
