"""Build the corpus from a data folder: parse every source, resolve links, render, add backlinks.

`load_corpus()` is what the app calls at start: it returns a complete corpus or raises one
`DataError` whose message is a single line. `check_data()` runs the same pipeline but collects
every problem (errors and warnings) for `python -m app check`.
"""

from __future__ import annotations

import dataclasses
import datetime
import hashlib
import re
from collections import defaultdict
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from app.corpus.history import History, compute_history
from app.corpus.ids import id_problem
from app.corpus.languages import Language, load_languages
from app.corpus.manifest import MANIFEST, Manifest, load_manifest, oversized_files
from app.corpus.models import (
    Corpus,
    Entry,
    GameSpec,
    RawEntry,
    Source,
    SourceSpec,
    TableRowView,
)
from app.corpus.normalize import compact, normalize_text
from app.corpus.parsers import parse_bytes
from app.corpus.renames import former_ids, revision_entries
from app.corpus.revisions import declared_files
from app.corpus.tables import anchor_explanations, resolve_table
from app.corpus.translations import pair_translations
from app.corpus.vocabulary import dictionary_stem, load_game
from app.corpus.words import load_words
from app.errors import DataError, printable
from app.render.icons import IconSet, load_icons
from app.render.markup import LinkTarget, Rendered, render, render_inline
from app.urls import Urls

_CARD = re.compile(r"/card/(\d{5}[a-z]?)")
# "[“I. 신화 단계”](#Mythos_Phase)를 참조하세요." and similar one-line pointers.
_PLACEHOLDER = re.compile(r"^\s*\[[^\]]*\]\([^)]*\)\s*(?:을|를)?\s*참조\S*\s*$")


@dataclass(frozen=True)
class Problem:
    """One finding about the data, printed as one line."""

    file: str
    entry: str
    message: str
    error: bool = False

    def __str__(self) -> str:
        level = "error" if self.error else "warning"
        where = f"{self.file}: {self.entry}" if self.entry else self.file
        return printable(f"{level}: {where}: {self.message}")


@dataclass
class _Draft:
    """An entry between parsing and freezing."""

    raw: RawEntry
    spec: SourceSpec
    children: list[str] = field(default_factory=list)
    rendered: Rendered | None = None
    title: Rendered | None = None


def load_corpus(data_dir: Path, urls: Urls | None = None) -> Corpus:
    """The complete corpus, or `DataError` naming the first fatal problem."""
    corpus, problems = _build(data_dir, urls or Urls())
    errors = [p for p in problems if p.error]
    if errors or corpus is None:
        first = errors[0]
        raise DataError(first.file, first.entry, first.message, more=len(errors) - 1)
    return corpus


def check_data(data_dir: Path, urls: Urls | None = None) -> list[Problem]:
    """Every problem found in the data folder: errors first, then warnings, in file order."""
    return inspect_data(data_dir, urls)[2]


def inspect_data(data_dir: Path, urls: Urls | None = None
                 ) -> tuple[Corpus | None, History | None, list[Problem]]:
    """The corpus and its history when the data loads, and every problem found (as
    `check_data`): what `python -m app check` and `data update` judge a data folder by."""
    try:
        corpus, problems = _build(data_dir, urls or Urls())
    except DataError as exc:
        return None, None, [Problem(exc.file, exc.entry, exc.problem, error=True)]
    history: History | None = None
    if corpus is not None and not any(p.error for p in problems):
        # The histories are read in full: a revision file that is missing or not the one its
        # index names is an error; one its parser refuses is left out, with a warning.
        notes: list[DataError] = []
        try:
            history = compute_history(data_dir, corpus, notes)
        except DataError as exc:
            problems.append(Problem(exc.file, exc.entry, exc.problem, error=True))
        problems.extend(Problem(n.file, n.entry, n.problem) for n in notes)
    return corpus, history, sorted(problems, key=lambda p: not p.error)


def data_version(data_dir: Path, files: Iterable[str]) -> str:
    """A content hash of the manifest and every file it declares (the histories' revisions
    too): the data's version."""
    digest = hashlib.sha256((data_dir / MANIFEST).read_bytes())
    for file in sorted(set(files)):
        digest.update(file.encode())
        try:
            digest.update((data_dir / file).read_bytes())
        except OSError:
            digest.update(b"\0missing")  # a missing revision is the history's error to report
    return digest.hexdigest()[:16]


def version_of(data_dir: Path) -> str | None:
    """The version `load_corpus` would give the data in `data_dir` (`data_version`), found
    without parsing it; None when its manifest does not load or a file is over its size
    limit (`load_corpus` says why)."""
    try:
        manifest = load_manifest(data_dir)
    except DataError:
        return None
    if oversized_files(data_dir, manifest):
        return None
    return data_version(data_dir, declared_files(data_dir, manifest))


def _updated(data_dir: Path, files: Iterable[str]) -> str:
    """The date of the newest declared file (the sitemap's `lastmod`), or "" if unknown."""
    try:
        newest = max((data_dir / name).stat().st_mtime for name in (MANIFEST, *files))
    except (OSError, ValueError):
        return ""
    return datetime.datetime.fromtimestamp(newest, datetime.UTC).date().isoformat()


def _vocabulary(data_dir: Path, manifest: Manifest, problems: list[Problem]
                ) -> tuple[tuple[GameSpec, ...], IconSet, Mapping[str, Language]]:
    """The games with their names files, the icon set and the languages; problems are
    errors."""
    games: list[GameSpec] = []
    for decl in manifest.games:
        try:
            games.append(load_game(data_dir, decl))
        except DataError as exc:
            problems.append(Problem(exc.file, exc.entry, exc.problem, error=True))
    try:
        icons = load_icons(data_dir, manifest.icons_file)
    except DataError as exc:
        problems.append(Problem(exc.file, exc.entry, exc.problem, error=True))
        icons = IconSet({})
    try:
        languages = load_languages(data_dir, manifest.languages_file)
    except DataError as exc:
        problems.append(Problem(exc.file, exc.entry, exc.problem, error=True))
        languages = {}
    problems.extend(_language_problems(manifest, icons, languages))
    return tuple(games), icons, languages


def _language_problems(manifest: Manifest, icons: IconSet,
                       languages: Mapping[str, Language]) -> list[Problem]:
    """Every language a source is written in must be declared and have icon labels; an icon
    without a label in one is shown in English (then Korean), and `check` says so."""
    found: list[Problem] = []
    used = dict.fromkeys(spec.lang for spec in manifest.sources)
    for lang in used:
        if languages and lang not in languages:
            spec = next(s for s in manifest.sources if s.lang == lang)
            found.append(Problem(MANIFEST, f'source "{spec.id}"', f'language "{lang}" is not '
                                 f"declared in {manifest.languages_file} (add its name and "
                                 "index letters)", error=True))
        if not icons.icons:
            continue
        missing = [t for t, icon in icons.icons.items() if lang not in icon.labels]
        if len(missing) == len(icons.icons):
            found.append(Problem(manifest.icons_file, "", f'no icon has a "{lang}" label: '
                                 f'add "{lang}" to every icon\'s "label" (pages in {lang} would '
                                 "name every icon in English)", error=True))
        elif missing:
            shown = ", ".join(f"{t} ({icons.icons[t].label(lang)})" for t in missing)
            found.append(Problem(manifest.icons_file, "", f'{len(missing)} icons have no '
                                 f'"{lang}" label, so {lang} pages name them in English: '
                                 f"{shown}"))
    return found


def _build(data_dir: Path, urls: Urls) -> tuple[Corpus | None, list[Problem]]:
    manifest = load_manifest(data_dir)
    specs = manifest.sources
    # Sizes first: a file over the limit is refused before anything is parsed.
    problems = [Problem(e.file, e.entry, e.problem, error=True)
                for e in oversized_files(data_dir, manifest)]
    if problems:
        return None, problems
    games, icons, languages = _vocabulary(data_dir, manifest, problems)
    words: frozenset[str] = frozenset()
    if manifest.words_file:
        try:
            words = load_words(data_dir, manifest.words_file)
        except DataError as exc:
            problems.append(Problem(exc.file, exc.entry, exc.problem, error=True))
    vocabulary_problems = len(problems)
    drafts: dict[str, _Draft] = {}
    order: dict[str, list[str]] = {}
    for spec in specs:
        game = next((g for g in games if g.id == spec.game), None)
        if game is None:
            continue  # its names file failed, already reported
        try:
            raws = [_namespaced(raw, spec) for raw in _parse_source(data_dir, spec, game)]
        except DataError as exc:
            problems.append(Problem(exc.file, exc.entry, exc.problem, error=True))
            continue
        order[spec.id] = []
        problems.extend(_source_warnings(spec, game, raws))
        for raw in raws:
            where = _where(raw)
            unservable = _unpaired_surrogate(raw) or id_problem(raw.id[len(spec.namespace):])
            if unservable:
                problems.append(Problem(spec.file, where, unservable, error=True))
                continue
            if raw.id in drafts:
                other = drafts[raw.id]
                message = f'duplicate id "{raw.id}" (also {other.spec.file}: {other.raw.location})'
                problems.append(Problem(spec.file, where, message, error=True))
                continue
            if raw.parent is not None and raw.parent not in drafts:
                message = f'unknown parent "{raw.parent}"'
                problems.append(Problem(spec.file, where, message, error=True))
                continue
            drafts[raw.id] = _Draft(raw, spec)
            order[spec.id].append(raw.id)
            if raw.parent is not None:
                drafts[raw.parent].children.append(raw.id)
    # A broken file leaves the drafts incomplete: nothing more to check. A data file of
    # names or icons that failed is reported, and the rest is still checked.
    if any(p.error for p in problems[vocabulary_problems:]):
        return None, problems

    linker = _Linker(drafts, urls, problems, icons)
    for draft in drafts.values():
        linker.render(draft)
    games_by_id = {g.id: g for g in games}
    # Each source's revisions are read once: the original is asked about by every translation.
    revisions: dict[str, list[Mapping[str, RawEntry]]] = {}

    def formers(spec: SourceSpec, wanted: Collection[str]) -> Mapping[str, str]:
        if not wanted:
            return {}
        if spec.id not in revisions:
            revisions[spec.id] = revision_entries(data_dir, spec, games_by_id[spec.game])
        current = {i: drafts[i].raw for i in order[spec.id]}
        return former_ids(revisions[spec.id], current, wanted)

    sizes = {i: len(d.raw.body) for i, d in drafts.items()}
    pairs, unpaired = pair_translations(specs, order, formers, sizes)
    problems.extend(Problem(spec.file, "", message) for spec, message in unpaired)
    files = declared_files(data_dir, manifest)
    corpus = _freeze(specs, drafts, order, data_version(data_dir, files), linker,
                     games, pairs, _updated(data_dir, manifest.files), languages)
    corpus = dataclasses.replace(corpus, words=words)
    problems.extend(linker.problems_after_freeze(corpus))
    problems.extend(_synonym_warnings(corpus))
    problems.extend(answers_warnings(corpus))
    problems.extend(Problem(MANIFEST, f'games "{g.id}"', f'quick link "{q}": no such entry')
                    for g in corpus.games for q in g.quick if q not in corpus.entries)
    if any(p.error for p in problems):
        return None, problems
    return corpus, problems


def answers_warnings(corpus: Corpus) -> list[Problem]:
    """An answers file's line for an id no entry of its game has (ignored by search)."""
    found: list[Problem] = []
    for game in corpus.games:
        for key in game.answers:
            # A step of a long entry answers on its own: `entry id#step-8`.
            entry_id, _, anchor = key.partition("#")
            entry = corpus.entries.get(entry_id)
            if (entry is None or entry.game != game.id
                    or (anchor and anchor not in entry.anchors.values())):
                found.append(Problem(game.answers_file, f'"{key}"',
                                     f'no entry of game "{game.id}" has this id (its questions '
                                     "are ignored)"))
    return found


def _synonym_warnings(corpus: Corpus) -> list[Problem]:
    """An official term of a synonyms file that the game's rules never use points nowhere."""
    found: list[Problem] = []
    for game in corpus.games:
        if not game.synonyms and not game.related:
            continue
        text = compact(" ".join(f"{e.title} {e.text}" for e in corpus if e.game == game.id))
        officials = dict.fromkeys(o for table in (game.synonyms, game.related)
                                  for terms in table.values() for o in terms)
        for official in officials:
            # A verb (섞다) is in the rules as its stem's forms (섞습니다, 섞어).
            if dictionary_stem(compact(official)) not in text:
                found.append(Problem(game.synonyms_file, f'"{official}"',
                                     "official term found nowhere in the game's rules"))
    return found


def _namespaced(raw: RawEntry, spec: SourceSpec) -> RawEntry:
    """A translation's entry with its id and parent under the translation's namespace."""
    ns = spec.namespace
    if not ns:
        return raw
    return dataclasses.replace(raw, id=ns + raw.id,
                               parent=ns + raw.parent if raw.parent is not None else None)


def _source_warnings(spec: SourceSpec, game: GameSpec, raws: list[RawEntry]) -> list[Problem]:
    """What a source's file holds that the reference cannot show as the file meant it."""
    found: list[Problem] = []
    if not raws:
        found.append(Problem(spec.file, "", "the file holds no entries"))
    # Once per field name: a newer format's field shows up on many nodes.
    first_unused: dict[str, RawEntry] = {}
    for raw in raws:
        for name in raw.unused:
            first_unused.setdefault(name, raw)
    for name, raw in first_unused.items():
        found.append(Problem(spec.file, _where(raw),
                             f'field "{name}" is not used by the "{spec.parser}" parser '
                             "(ignored here and wherever else it appears)"))
    found.extend(Problem(spec.file, _where(raw), note) for raw in raws for note in raw.notes)
    found.extend(Problem(spec.file, _where(raw), error, error=True)
                 for raw in raws for error in raw.errors)
    found.extend(Problem(spec.file, _where(raw), note) for raw in raws
                 for note in cut_lines(raw.body))
    declared = {c.code for c in game.collections}
    unknown: dict[str, list[RawEntry]] = defaultdict(list)
    for raw in raws:
        for code in raw.collections:
            if code not in declared:
                unknown[code].append(raw)
    for code, tagged in unknown.items():
        where = game.names_file or MANIFEST
        found.append(Problem(spec.file, _where(tagged[0]),
                             f'collection code "{code}" ({len(tagged)} entries) has no name: '
                             f"shown as its code; add it to {where}"))
    return found


#: A line ends in a particle or an ending that needs what follows it (괴물의, 카드에, 토큰을,
#: 효과는, 표시돼 있는, 카드로 인해): when a list item, a step, a paragraph's end or the
#: entry's end comes next, the sentence was cut before its verb, most often where a PDF's icon
#: was. (Not 이, 가, 와, 과, 한: nouns end in them too, 추가, 효과, 제한.)
_HANGING = re.compile(r"[가-힣](?:의|에|에게|에서|을|를|으로|은|는|있는|하는|되는|인해)$")
#: A list item's or a step's mark: a line that starts with one starts an item; a line that is
#: one alone is an empty item.
_ITEM_MARK = r"\s*(?:[-•➤]|\d{1,2}\.)"
_NEXT_ITEM = re.compile("^" + _ITEM_MARK)
_EMPTY_ITEM = re.compile(_ITEM_MARK)


def cut_lines(text: str) -> list[str]:
    """One warning per line of `text` that reads cut: it ends in "(" (a lost icon), or in a
    particle that needs more, before a list item, a step, a paragraph's end or the end of the
    entry; or it is a list item with nothing in it."""
    found: list[str] = []
    lines = text.split("\n")
    for n, line in enumerate(lines):
        stripped = line.rstrip()
        if not stripped:
            continue
        following = lines[n + 1] if n + 1 < len(lines) else ""
        if stripped.endswith("("):
            found.append(f'line ends in "(" (an icon lost?): "{stripped[-40:]}"')
        elif _EMPTY_ITEM.fullmatch(stripped):
            found.append(f'empty list item: "{stripped}"')
        elif _HANGING.search(stripped) and (not following.strip()
                                             or _NEXT_ITEM.match(following)):
            found.append(f'sentence cut before its verb: "{stripped[-40:]}"')
    return found


def _parse_source(data_dir: Path, spec: SourceSpec, game: GameSpec) -> list[RawEntry]:
    path = data_dir / spec.file
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise DataError(spec.file, "", "file not found") from None
    except OSError as exc:
        raise DataError(spec.file, "", f"cannot read file ({exc.strerror})") from None
    return parse_bytes(data, spec, game)


class _Linker:
    """Resolves links for each entry and records what could not be resolved."""

    def __init__(self, drafts: dict[str, _Draft], urls: Urls, problems: list[Problem],
                 icons: IconSet) -> None:
        self.drafts = drafts
        self.urls = urls
        self.problems = problems
        self.icons = icons
        self.folded: dict[str, list[str]] = defaultdict(list)
        self.titles: dict[str, list[str]] = defaultdict(list)
        for entry_id, draft in drafts.items():
            self.folded[entry_id.casefold()].append(entry_id)
            self.titles[compact(_strip_markup(draft.raw.title))].append(entry_id)

    def render(self, draft: _Draft) -> None:
        raw = draft.raw
        where = _where(raw)

        def resolve(href: str) -> LinkTarget | None:
            return self._resolve(href, draft, where)

        lang = draft.spec.lang
        # A title is a link itself (indexes, results, breadcrumbs): links inside it (a FAQ
        # question naming a card) become their labels.
        draft.title = render_inline(raw.title, _as_text, self.icons, lang)
        draft.rendered = render(raw.body, resolve, self.icons, lang)
        for problem in draft.title.problems + draft.rendered.problems:
            # Title links come from `관련된 주제:` lines and page references: say which name.
            if problem.startswith("broken link (title:"):
                problem = f'no entry titled "{problem[len("broken link (title:"):-1]}"'
            self.problems.append(Problem(draft.spec.file, where, problem))
        # What the page would show wrong (raw markup, a misspelt icon): errors. Table cells
        # are rendered with the finished corpus (`tables.py`); their errors are found here.
        cells = [render_inline(cell.text, _as_text, self.icons, lang).errors
                 for row in raw.table or () for cell in row.cells]
        errors = draft.title.errors + draft.rendered.errors + [e for c in cells for e in c]
        for problem in dict.fromkeys(errors):
            self.problems.append(Problem(draft.spec.file, where, problem, error=True))
        if not raw.body.strip() and raw.table is None and not draft.children:
            self.problems.append(Problem(draft.spec.file, where, "empty entry"))

    def _resolve(self, href: str, draft: _Draft, where: str) -> LinkTarget | None:
        if href.startswith("#"):
            target = self._by_id(href[1:], draft, where)
        elif href.startswith("title:"):
            target = self._by_title(href[len("title:"):], draft)
        else:
            card = _CARD.fullmatch(href)
            return LinkTarget(self.urls.card(card[1])) if card else None
        return LinkTarget(self.urls.entry(target), target) if target is not None else None

    def _by_id(self, entry_id: str, draft: _Draft, where: str) -> str | None:
        # A translation links within itself first; a rule it lacks falls back to the original.
        local = draft.spec.namespace + entry_id
        if local in self.drafts:
            return local
        if entry_id in self.drafts:
            return entry_id
        # Ignoring case, in the same order: a translation's `#per_investigator` is its own
        # Per_Investigator (ru upstream), not the original's page in another language.
        for candidate in dict.fromkeys((local, entry_id)):
            matches = self.folded.get(candidate.casefold(), [])
            if len(matches) == 1:
                message = f"link #{entry_id} matches {matches[0]} only when case is ignored"
                self.problems.append(Problem(draft.spec.file, where, message))
                return matches[0]
        return None

    def _by_title(self, title: str, draft: _Draft) -> str | None:
        candidates = [c for c in self.titles.get(compact(title), []) if c != draft.raw.id]
        if not candidates:
            return None

        # Same source beats same game beats anything; a real entry beats a "see X" pointer.
        def rank(entry_id: str) -> tuple[int, int, int]:
            other = self.drafts[entry_id]
            return (
                other.spec.id != draft.spec.id,
                other.spec.game != draft.spec.game,
                bool(_PLACEHOLDER.match(other.raw.body)),
            )

        return min(candidates, key=rank)

    def problems_after_freeze(self, corpus: Corpus) -> list[Problem]:
        """Problems only visible once the tables are resolved against the whole corpus."""
        found: list[Problem] = []
        for entry in corpus:
            for row in entry.table or ():
                if row.cells and row.target is None:
                    draft = self.drafts[entry.id]
                    found.append(Problem(draft.spec.file, _where(draft.raw),
                                         f'table row "{row.cells[0].text}" explains nothing'))
        return found


def _freeze(
    specs: tuple[SourceSpec, ...], drafts: dict[str, _Draft], order: dict[str, list[str]],
    version: str, linker: _Linker, games: tuple[GameSpec, ...],
    pairs: dict[str, dict[str, str]], updated: str, languages: Mapping[str, Language],
) -> Corpus:
    backlinks: dict[str, list[str]] = defaultdict(list)
    reading: list[str] = [i for spec in specs for i in order.get(spec.id, [])]
    for entry_id in reading:
        rendered = drafts[entry_id].rendered
        assert rendered is not None
        for target in rendered.links:
            if target != entry_id and entry_id not in backlinks[target]:
                backlinks[target].append(entry_id)

    entries: dict[str, Entry] = {}
    for position, entry_id in enumerate(reading):
        draft = drafts[entry_id]
        rendered, title = draft.rendered, draft.title
        assert rendered is not None and title is not None
        depth, parent = 0, draft.raw.parent
        while parent is not None:
            depth, parent = depth + 1, drafts[parent].raw.parent
        entries[entry_id] = Entry(
            id=entry_id,
            title=title.text,
            source=draft.spec.id,
            game=draft.spec.game,
            parent=draft.raw.parent,
            children=tuple(draft.children),
            order=position,
            depth=depth,
            text=rendered.text,
            html=rendered.html,
            title_html=title.html,
            collections=draft.raw.collections,
            links_to=tuple(t for t in rendered.links if t != entry_id),
            linked_from=tuple(backlinks.get(entry_id, ())),
            table=None,
            anchors=rendered.anchors,
            placeholder=bool(_PLACEHOLDER.match(draft.raw.body)),
            lang=draft.spec.lang,
            translations=pairs.get(entry_id, {}),
        )
    sources = tuple(Source(spec, tuple(order.get(spec.id, ()))) for spec in specs)
    corpus = Corpus(sources=sources, entries=entries, version=version, games=games,
                    icons=linker.icons, updated=updated, languages=languages)
    # Tables link rows to the entries that explain them, which needs the finished corpus.
    for entry_id, draft in drafts.items():
        if draft.raw.table is not None:
            entries[entry_id] = resolve_table(corpus, entries[entry_id], draft.raw.table,
                                              linker.urls)
    # Rows that point at the explanation of a phrase ("플레이어의 행동 기회") anchor the
    # paragraph that gives it; a row whose paragraph is not found points at the entry's top.
    for entry_id in list(entries):
        table = entries[entry_id].table
        if table and entries[entry_id].parent:
            parent = entries[entry_id].parent
            assert parent is not None
            entries[parent] = anchor_explanations(entries[parent], table)
            placed = set(entries[parent].anchors.values())
            entries[entry_id] = dataclasses.replace(entries[entry_id], table=tuple(
                row if not (row.anchor or "").startswith("explain-") or row.anchor in placed
                else dataclasses.replace(row, anchor=None) for row in table))
    by_id = {spec.id: spec for spec in specs}
    for entry_id, draft in drafts.items():
        original = by_id.get(draft.spec.translation_of or "")
        if entries[entry_id].table is not None and original is not None:
            entries[entry_id] = _rows_as_original(entries, entries[entry_id], original.lang)
    return corpus


def _rows_as_original(entries: dict[str, Entry], entry: Entry, original_lang: str) -> Entry:
    """A translation's table with each row its words matched nothing in linked where the
    original's row at the same place links (in the translation's language when it has that
    entry): the same table, row for row, when the rows and their colours are the same."""
    paired = entries.get(entry.translations.get(original_lang, ""))
    rows, theirs = entry.table or (), (paired.table or ()) if paired is not None else ()
    if len(rows) != len(theirs) or any(
            [c.colour for c in a.cells] != [c.colour for c in b.cells]
            for a, b in zip(rows, theirs, strict=True)):
        return entry
    out: list[TableRowView] = []
    for row, their in zip(rows, theirs, strict=True):
        if row.target is None and row.cells and their.target is not None:
            mine = entries[their.target].translations.get(entry.lang)
            target = mine if mine in entries else their.target
            anchors = entries[target].anchors.values()
            row = dataclasses.replace(row, target=target,
                                      anchor=their.anchor if their.anchor in anchors else None)
        out.append(row)
    return dataclasses.replace(entry, table=tuple(out))


_SURROGATE = re.compile(r"[\ud800-\udfff]")


def _unpaired_surrogate(raw: RawEntry) -> str:
    """A problem message when a field holds a lone surrogate, else "".

    JSON can spell one (`\\ud800`); no UTF-8 page or answer can carry it.
    """
    cells = [cell.text for row in raw.table or () for cell in row.cells]
    fields = {"id": raw.id, "title": raw.title, "text": raw.body,
              "cycle": " ".join(raw.collections), "table": " ".join(cells)}
    for name, value in fields.items():
        found = _SURROGATE.search(value)
        if found:
            return f'"{name}" holds an unpaired surrogate (U+{ord(found[0]):04X})'
    return ""


def _where(raw: RawEntry) -> str:
    """The entry's place in its file, with its id: `line 1103 (id "eh-신화")`."""
    if not raw.location:
        return f'id "{raw.id}"'
    return raw.location if '(id "' in raw.location else f'{raw.location} (id "{raw.id}")'


def _as_text(href: str) -> LinkTarget | None:
    return LinkTarget("")


def _strip_markup(title: str) -> str:
    return normalize_text(re.sub(r"<[^>]*>", "", title))
