"""Every upstream translation, added the README's way, and what the reference makes of it (#26).

    .venv/bin/python -m bench.translations [--upstream DIR] [--rounds N] [--record]

Copies the bundled data into a temporary folder and declares each `rules.<lang>.json` of
`--upstream` (default: ../shared/upstream/translations: de, fr, ru, zh-cn as committed
upstream; es, it, pl or zh files dropped there are tried the same way) as a translation of
the Korean reference: a source with `lang` and `translation_of`, nothing else. Then, per
language:

* **as committed**: entries, `check` errors and warnings (the lines naming its file or its
  language), and the pages with raw markup (entries whose link or bold markup would show
  as written);
* **after the fixes `check` names**: each error message says what to write (`write
  [reaction]`, a link is `[label](/card/01234)`, rename a key to "rules"); the bench makes
  those edits, as a maintainer would, and checks again;
* **search**: whether the translation's own titles of Attack of Opportunity, Doom and Surge
  (read from its file) find that entry first, shown in that language (✓), and at which rank.

* **weight**: what a visitor's browser downloads for offline search (`/search-index.json` and
  `/search-texts.json`, and a language's own pair for a reader of it), raw and gzip KB, beside
  the bundled data's pair and every language's files together (what each visitor downloaded
  before the files were split per language).

In the same run: the Korean search bench's query sets scored with and without the
translations (MRR@10, hit@1, and how many top-10 lists differ at all), and the start-up
(process start to the first answer, with a built index; median of `--rounds` fresh
processes) of the bundled data and of the data with every translation.
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from app.corpus.build import Problem, check_data, load_corpus
from app.corpus.models import Corpus
from app.search import SearchIndex, analysis, client_index
from app.search.documents import documents
from app.urls import Urls
from bench import figures
from bench.search import K, evaluate, load_queries, project_search

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "data"
UPSTREAM = ROOT.parent / "shared" / "upstream" / "translations"
QUERY_SETS = (ROOT / "bench" / "search-queries.dev.json",
              ROOT / "bench" / "search-queries.blind.json")
#: The entries whose translated titles are searched for.
PROBES = ("Attack_of_Opportunity", "Doom", "Surge")
#: The Korean source the translations translate.
ORIGINAL = "ahlcg-reference"


@dataclass
class Language:
    lang: str
    file: str
    entries: int = 0
    errors: int = 0
    warnings: int = 0
    raw_pages: int = 0
    errors_after: int = -1
    probes: tuple[str, ...] = ()


def add_translations(data: Path, upstream: Path) -> list[Language]:
    """Declare every `rules.<lang>.json` of `upstream` in `data`, the README's way."""
    manifest = json.loads((data / "sources.json").read_text(encoding="utf-8"))
    found: list[Language] = []
    for path in sorted(upstream.glob("rules.*.json")):
        lang = path.name[len("rules."):-len(".json")]
        file = f"ahlcg-rules.{lang}.json"
        shutil.copy(path, data / file)
        manifest["sources"].append({
            "id": f"{ORIGINAL}-{lang}", "game": "ahlcg",
            "title": f"Arkham Horror: The Card Game Rules Reference ({lang})",
            "parser": "rules-json", "file": file, "lang": lang, "translation_of": ORIGINAL})
        found.append(Language(lang, file))
    (data / "sources.json").write_text(json.dumps(manifest, ensure_ascii=False, indent=1),
                                       encoding="utf-8")
    return found


def drop(data: Path, languages: Sequence[Language]) -> None:
    manifest = json.loads((data / "sources.json").read_text(encoding="utf-8"))
    files = {lang.file for lang in languages}
    manifest["sources"] = [s for s in manifest["sources"] if s["file"] not in files]
    (data / "sources.json").write_text(json.dumps(manifest, ensure_ascii=False, indent=1),
                                       encoding="utf-8")


def _mine(problem: Problem, language: Language) -> bool:
    return problem.file == language.file or f'"{language.lang}"' in problem.message


def tally(problems: Sequence[Problem], languages: Sequence[Language], *, after: bool) -> None:
    for language in languages:
        mine = [p for p in problems if _mine(p, language)]
        errors = sum(p.error for p in mine)
        if after:
            language.errors_after = errors
            continue
        language.errors, language.warnings = errors, len(mine) - errors
        language.raw_pages = len({p.entry for p in mine if "markup would show" in p.message})


# The edits each kind of error message asks for, as a maintainer would make them.
_ICON = re.compile(r"\[(\S+)\] is not an icon and would show as text: write \[(\w+)\]")
_KEY = re.compile(r'field "([^"]+)" holds \d+ rules? that would be lost')


def fix(data: Path, problems: Sequence[Problem]) -> list[str]:
    """Make the edits the errors describe; the edits made, one line each."""
    done: list[str] = []
    for problem in (p for p in problems if p.error):
        path = data / problem.file
        if not path.is_file() or path.parent != data:
            continue
        text = path.read_text(encoding="utf-8")
        icon, key = _ICON.search(problem.message), _KEY.search(problem.message)
        if icon:
            text = text.replace(f"[{icon[1]}]", f"[{icon[2]}]")
            done.append(f"{problem.file}: [{icon[1]}] → [{icon[2]}]")
        elif key:
            text = text.replace(f'"{key[1]}":', '"rules":')
            done.append(f'{problem.file}: "{key[1]}" → "rules"')
        elif problem.message.startswith("link markup"):
            # `[label]](/card/1)` → `[label](/card/1)`; `(/card/1, /card/2)` → `(/card/1)`.
            text = re.sub(r"\]\](\(/card/)", r"]\1", text)
            text = re.sub(r"\((/card/\d+[a-z]?)(?:, ?/card/\d+[a-z]?)+\)", r"(\1)", text)
            done.append(f"{problem.file}: {problem.entry}: link brackets")
        else:
            continue
        path.write_text(text, encoding="utf-8")
    return list(dict.fromkeys(done))


def probe(index: SearchIndex, corpus: Corpus, language: Language) -> tuple[str, ...]:
    """For each probe entry: ✓ rank when the translation's title finds it, shown in the
    translation's language; ✗ and what came first otherwise."""
    out: list[str] = []
    for entry_id in PROBES:
        translated = corpus.entries.get(f"{language.lang}/{entry_id}")
        if translated is None:
            out.append("(no such entry)")
            continue
        hits = index.search(translated.title, limit=K).hits
        rank = next((n for n, h in enumerate(hits, 1) if h.id == entry_id), None)
        first = hits[0] if hits else None
        ok = rank == 1 and first is not None and first.shown == translated.id
        out.append(f"{'✓' if ok else '✗'} {translated.title} ({rank or '-'})")
    return tuple(out)


_CHILD = """
import sys, time
from pathlib import Path
from app.corpus.build import load_corpus
from app.search import SearchIndex, analysis
index = SearchIndex.open_or_build(load_corpus(Path(sys.argv[1])), Path(sys.argv[2]))
index.search("틈새 공격")
print("ANSWER", flush=True)
"""


def startup(data: Path, index_dir: Path, rounds: int) -> tuple[float, float]:
    """(seconds to build the index in a fresh process, median seconds from process start to
    the first answer with it built)."""
    def once() -> float:
        start = time.perf_counter()
        done = subprocess.run([sys.executable, "-c", _CHILD, str(data), str(index_dir)],
                              cwd=ROOT, capture_output=True, text=True, timeout=600,
                              check=False)
        if "ANSWER" not in done.stdout:
            raise SystemExit(done.stderr[-2000:])
        return time.perf_counter() - start
    shutil.rmtree(index_dir, ignore_errors=True)
    build = once()
    return build, statistics.median(once() for _ in range(max(1, rounds)))


def _kb(*parts: object) -> tuple[float, float]:
    """Raw and gzip KB of `parts` as the server sends them (compact JSON, level 9)."""
    raw = [json.dumps(p, ensure_ascii=False, separators=(",", ":")).encode() for p in parts]
    return (sum(len(r) for r in raw) / 1024,
            sum(len(gzip.compress(r, 9, mtime=0)) for r in raw) / 1024)


def weight(bundled: Corpus, translated: Corpus) -> list[list[str]]:
    """What a visitor downloads for offline search: the bundled data's pair, the reference's
    pair with the translations added (every visitor's), each language's reader's, and every
    file together."""
    urls = Urls()
    rows: list[list[str]] = []

    def row(label: str, sizes: tuple[float, float]) -> None:
        rows.append([label, f"{sizes[0]:,.0f}", f"{sizes[1]:,.0f}"])

    row("bundled data (ko, en)", _kb(client_index.index(bundled, urls),
                                     client_index.texts(bundled)))
    base = _kb(client_index.index(translated, urls), client_index.texts(translated))
    row("with the translations: a Korean or English reader", base)
    total = list(base)
    for lang in client_index.languages(translated, documents(translated)):
        own = _kb(client_index.language_index(translated, urls, lang),
                  client_index.language_texts(translated, lang))
        total = [total[0] + own[0], total[1] + own[1]]
        row(f"… a {lang} reader (its two files added)", (base[0] + own[0], base[1] + own[1]))
    row("every language's files together", (total[0], total[1]))
    return rows


def korean(bundled: SearchIndex, translated: SearchIndex) -> list[list[str]]:
    """Each query set's MRR@10 and hit@1 without and with the translations, and the queries
    whose top 10 differ."""
    rows: list[list[str]] = []
    for path in QUERY_SETS:
        queries = load_queries(path)
        one = evaluate(project_search(bundled), bundled.corpus, queries)
        two = evaluate(project_search(translated), translated.corpus, queries)
        differ = [q.q for q in queries
                  if [h.id for h in bundled.search(q.q, game=q.game, limit=K).hits]
                  != [h.id for h in translated.search(q.q, game=q.game, limit=K).hits]]
        korean_words = [q for q in differ if any(analysis.is_hangul(w)
                                                 for w in analysis.words(q))]
        rows.append([f"{path.name} ({len(queries)})", f"{one.mrr():.3f} / {one.hit1():.3f}",
                     f"{two.mrr():.3f} / {two.hit1():.3f}",
                     f"{len(korean_words)} Korean, {len(differ) - len(korean_words)} English"
                     + (f" ({', '.join(differ)})" if differ else "")])
    return rows


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.translations", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--upstream", type=Path, default=UPSTREAM)
    parser.add_argument("--rounds", type=int, default=3, help="start-ups timed per data")
    parser.add_argument("--record", action="store_true", help="write docs/figures.md")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="rules-translations-") as temp:
        data = Path(temp) / "data"
        shutil.copytree(DATA, data, ignore=shutil.ignore_patterns("history"))
        if (DATA / "history").is_dir():
            (data / "history").symlink_to(DATA / "history")
        languages = add_translations(data, args.upstream)
        if not languages:
            raise SystemExit(f"no rules.<lang>.json in {args.upstream}")
        problems = check_data(data)
        tally(problems, languages, after=False)
        for problem in problems:
            if problem.error:
                print(problem)
        edits = fix(data, problems)
        for edit in edits:
            print("fixed as check says:", edit)
        after = check_data(data)
        tally(after, languages, after=True)
        for problem in after:
            if problem.error:
                print("still:", problem)
        rows: list[list[str]] = []
        korean_rows: list[list[str]] = []
        weight_rows: list[list[str]] = []
        # A language whose errors the bench cannot fix (no icon labels) is left out.
        left_out = [lang for lang in languages if lang.errors_after]
        if left_out:
            drop(data, left_out)
            print("left out, with errors check names:", ", ".join(x.lang for x in left_out))
        if not any(p.error for p in check_data(data)):
            corpus = load_corpus(data)
            translated = SearchIndex.open_or_build(corpus, None)
            bundled = SearchIndex.open_or_build(load_corpus(DATA), None)
            for language in languages:
                source = corpus.source(f"{ORIGINAL}-{language.lang}")
                language.entries = len(source.entry_ids) if source else 0
                language.probes = probe(translated, corpus, language)
            korean_rows = korean(bundled, translated)
            weight_rows = weight(bundled.corpus, corpus)
        for language in languages:
            rows.append([language.lang, str(language.entries), str(language.errors),
                         str(language.warnings), str(language.raw_pages),
                         str(language.errors_after), *(language.probes or ("-",) * 3)])
        start_rows: list[list[str]] = []
        if korean_rows:
            kept = [lang.lang for lang in languages if lang not in left_out]
            for label, folder in (("bundled (ko, en)", DATA), ("with " + ", ".join(kept), data)):
                build, first = startup(folder, Path(temp) / "index", args.rounds)
                start_rows.append([label, f"{first:.2f}", f"{build:.2f}"])
    columns = ["lang", "entries", "check errors (as committed)", "warnings",
               "pages with raw markup", "errors after the fixes check names",
               "Attack of Opportunity", "Doom", "Surge"]
    _print(columns, rows)
    korean_columns = ["search bench query set", "MRR@10 / hit@1 (ko, en)",
                      "MRR@10 / hit@1 (with the translations)", "top-10 lists that differ"]
    start_columns = ["data", "start-up s (built index, median)", "first start with a new "
                     "index s"]
    weight_columns = ["offline search files downloaded", "raw KB", "gzip KB"]
    if korean_rows:
        print()
        _print(korean_columns, korean_rows)
        print()
        _print(start_columns, start_rows)
        print()
        _print(weight_columns, weight_rows)
    if args.record:
        command = "python -m bench.translations"
        figures.record("translations", figures.Table(
            title="Every upstream translation, added the README's way", command=command,
            columns=columns, rows=rows, notes=[
                "Each rules.<lang>.json of ../shared/upstream/translations declared as a "
                "translation of the Korean reference (a source with lang and translation_of), "
                "nothing else. Errors and warnings: check's lines naming the file or the "
                "language; pages with raw markup: entries whose link or bold markup would show "
                "as written. The bench then makes the edits the error messages name (as a "
                "maintainer would) and checks again. Search: each translation's own title of "
                "the entry, ✓ when it finds that entry first and shows it in that language "
                "(the rank in brackets)."]))
        if korean_rows:
            figures.record("translations: korean", figures.Table(
                title="Korean search with and without the translations", command=command,
                columns=korean_columns, rows=korean_rows, notes=[
                    "The search bench's query sets, scored in the same run on the bundled data "
                    "and on the data with every translation above; top-10 lists compared "
                    "query by query. A Korean query's words are never looked up in the "
                    "translations; an English one's are (the translations keep some English "
                    "words), which may reorder its lower results."]))
            figures.record("translations: start-up", figures.Table(
                title="Start-up with every translation", command=command,
                columns=start_columns, rows=start_rows, notes=[
                    f"From process start to the first answer, median of {args.rounds} fresh "
                    "processes, with the index built by the first start."]))
            figures.record("translations: weight", figures.Table(
                title="What a visitor downloads for offline search", command=command,
                columns=weight_columns, rows=weight_rows, notes=[
                    "The browser engine's files as the server sends them (compact JSON; gzip "
                    "level 9): /search-index.json and /search-texts.json for everyone, and "
                    "/search-index.{lang}.json and /search-texts.{lang}.json only for a browser "
                    "whose languages include that one (the offline page and the service worker "
                    "read navigator.languages). The last row is every file together: what each "
                    "visitor downloaded while one pair held every language."]))
        print("recorded in", figures.FIGURES_MD.relative_to(ROOT))
    return 0


def _print(columns: Sequence[str], rows: Sequence[Sequence[str]]) -> None:
    widths = [max(len(c), *(len(r[i]) for r in rows)) if rows else len(c)
              for i, c in enumerate(columns)]
    print("  ".join(c.ljust(w) for c, w in zip(columns, widths, strict=True)))
    for row in rows:
        print("  ".join(v.ljust(w) for v, w in zip(row, widths, strict=True)))


if __name__ == "__main__":
    raise SystemExit(main())
