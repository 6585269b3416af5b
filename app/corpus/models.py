"""The corpus model: frozen dataclasses shared by the loader, renderer, search and web layer.

Parsers produce `RawEntry` values (markup still unresolved); the builder turns them into
`Entry` values with rendered HTML, plain text and both directions of links, held by one `Corpus`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Literal

from app.corpus.languages import Language
from app.render.icons import IconSet

_ENGLISH_ID = re.compile(r"[A-Z][A-Za-z0-9_ ]*")
_LATIN = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"

#: A game's id as the manifest declares it ("ahlcg", "eh").
Game = str
Colour = Literal["green", "red", "grey", ""]


@dataclass(frozen=True)
class HistoryDecl:
    """Where a source keeps its earlier revisions (`app.corpus.revisions`): a folder of the
    data folder, and the index file inside it that lists them."""

    folder: str
    index: str = "revisions.json"

    @property
    def index_file(self) -> str:
        return f"{self.folder}/{self.index}"


@dataclass(frozen=True)
class SourceSpec:
    """One rulebook as declared in the data manifest (`data/sources.json`)."""

    id: str
    game: Game
    title: str
    parser: str
    file: str
    #: Prefix for the ids of entries this source's parser invents (rulebooks have no ids).
    id_prefix: str = ""
    #: Parser-specific options, e.g. which part of a shared file this source covers.
    options: Mapping[str, str] = field(default_factory=dict)
    #: The language of the text (BCP 47: "ko", "en").
    lang: str = "ko"
    #: The source this one translates: its entries pair with that source's by id.
    translation_of: str | None = None
    #: True for the publisher's original text, which the reference itself translates (the
    #: English rules): pages call it 원문, any other translation 번역.
    original: bool = False
    #: How much this source's entries count in search beside the others' (0 < w ≤ 1): below
    #: 1 for a book that teaches the game rather than one to look rules up in.
    search_weight: float = 1.0
    #: How much more an entry counts when another source of its game has an entry of the same
    #: title (0 < w ≤ 1): a book that teaches the game repeating a reference entry's subject
    #: answers below it, while its passages no other source has keep `search_weight`.
    repeated_weight: float = 1.0
    #: The file's path in the upstream repository (`rules/ko/rules.json`), for `data update`.
    upstream: str = ""
    #: Where the file's earlier revisions are kept, if anywhere.
    history: HistoryDecl | None = None

    @property
    def namespace(self) -> str:
        """What goes before a translation's ids in the corpus ("en/Attack_of_Opportunity"),
        so that they never collide with the original's; "" for an original."""
        return f"{self.lang}/" if self.translation_of else ""


@dataclass(frozen=True)
class Collection:
    """A product line (보유 게임) that rules can be tagged with, by its `cycle` code."""

    code: str
    name: str
    name_en: str = ""
    position: int = 0
    official: bool = True
    #: False for a code the rules use but no names file declares: it is shown as its code.
    declared: bool = True


@dataclass(frozen=True)
class GameSpec:
    """A game as the manifest declares it, with the vocabulary of its names file."""

    id: Game
    name: str
    name_en: str = ""
    #: A top-level entry with more children than this is a glossary chapter (the EH
    #: reference's 용어 풀이): its children join the index as terms of their own.
    glossary_chapter: int = 20
    collections: tuple[Collection, ...] = ()
    #: Name tables of the names file: kind ("scenarios", "encounter_sets") → code → name.
    names: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    #: Files this game's vocabulary comes from (relative to the data folder).
    names_file: str = ""
    #: The words players use → the official terms they mean (`서지` → 급증), keyed by the
    #: variant's compact form (`app.corpus.normalize.compact`).
    synonyms: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    #: Everyday words → the rules' words for the same thing (`넣다` ~ 포함, `세우다` ~ 준비),
    #: searched beside what was typed, without a notice: the typed word is not wrong, the rules
    #: just say it otherwise. Same keys as `synonyms`.
    related: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    synonyms_file: str = ""
    #: A short name for tight places (a suggestion's context): "아컴", "엘호".
    short_name: str = ""
    #: Entries the home page offers as quick links, by id.
    quick: tuple[str, ...] = ()
    #: Entry id → the questions that entry answers, in players' words (`교전 중에 이동하면
    #: 공격받나요`): searched with its text, never shown. From the answers file.
    answers: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    answers_file: str = ""

    @property
    def short(self) -> str:
        return self.short_name or self.name

    def name_of(self, kind: str, code: str) -> str | None:
        """The name `kind` gives `code` (a scenario slug, an encounter set), or None."""
        return self.names.get(kind, {}).get(code)


@dataclass(frozen=True)
class TableCell:
    """One cell of a timing table; `colour` is the printed guide's colour code."""

    text: str
    colour: Colour = ""


@dataclass(frozen=True)
class RawTableRow:
    """One row; an empty row is a spacer between phases."""

    cells: tuple[TableCell, ...]


@dataclass(frozen=True)
class RawEntry:
    """A parser's output for one entry, before links are resolved and markup is rendered.

    `body` uses the project's markup dialect: Markdown (paragraphs, `- ` lists, `1.` lists),
    the raw tags `<b> <i> <br> <center>`, icon tokens like `[reaction]`, traits `[[연구]]`,
    and links `[label](#Id)`, `[label](/card/01234)` or `[label](<title:제목>)`.
    """

    id: str
    title: str
    parent: str | None
    body: str
    collections: tuple[str, ...] = ()
    table: tuple[RawTableRow, ...] | None = None
    #: Where the entry came from, for messages ("line 753", "[12].rules[3]").
    location: str = ""
    #: Fields of the node the parser does not use (a newer format's), for `check`.
    unused: tuple[str, ...] = ()
    #: The parser's warnings about this entry (a slug without a name), for `check`.
    notes: tuple[str, ...] = ()
    #: The parser's errors about this entry (rules it would lose), for `check`: the data
    #: does not load until they are fixed.
    errors: tuple[str, ...] = ()


@dataclass(frozen=True)
class TableRowView:
    """A rendered table row: its cells' HTML and plain text, and the entry that explains it."""

    cells: tuple[TableCell, ...]
    html: tuple[str, ...]
    target: str | None
    anchor: str | None


@dataclass(frozen=True)
class Entry:
    """One rule or section, fully resolved."""

    id: str
    title: str
    source: str
    game: Game
    parent: str | None
    children: tuple[str, ...]
    #: Position in the corpus's reading order (source order, then depth-first).
    order: int
    depth: int
    #: Plain text of the body: no markup, icons as their Korean labels.
    text: str
    html: str
    #: The title rendered (titles may carry icons such as `[per_investigator]`).
    title_html: str
    collections: tuple[str, ...]
    links_to: tuple[str, ...]
    linked_from: tuple[str, ...]
    table: tuple[TableRowView, ...] | None
    #: Step anchors inside the body, e.g. {"1.1": "step-1-1"}.
    anchors: Mapping[str, str]
    #: True when the entry only points elsewhere ("… 참조하세요.").
    placeholder: bool
    #: The language of the entry's text (its source's).
    lang: str = "ko"
    #: The same entry in other languages: lang → entry id (paired by the data's ids).
    translations: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Source:
    """A source with its entries' ids in reading order."""

    spec: SourceSpec
    entry_ids: tuple[str, ...]

    @property
    def id(self) -> str:
        return self.spec.id


@dataclass(frozen=True)
class Corpus:
    """Every entry of every source, addressable by id."""

    sources: tuple[Source, ...]
    entries: Mapping[str, Entry]
    #: Content hash of the data files; identifies the data version (ETags, index freshness).
    version: str
    games: tuple[GameSpec, ...] = ()
    icons: IconSet = field(default_factory=lambda: IconSet({}))
    #: The date (YYYY-MM-DD, UTC) of the newest data file: the data version's date.
    updated: str = ""
    #: The declared languages (`languages.json`), by code.
    languages: Mapping[str, Language] = field(default_factory=dict)
    #: Everyday words that are never taken for typos (the manifest's `words`, `words.py`).
    words: frozenset[str] = frozenset()

    def __iter__(self) -> Iterator[Entry]:
        for source in self.sources:
            for entry_id in source.entry_ids:
                yield self.entries[entry_id]

    def __len__(self) -> int:
        return len(self.entries)

    def get(self, entry_id: str) -> Entry | None:
        return self.entries.get(entry_id)

    def source(self, source_id: str) -> Source | None:
        return self._sources_by_id.get(source_id)

    @cached_property
    def _sources_by_id(self) -> dict[str, Source]:
        # Asked for every search hit and link (a scan of the sources was a tenth of a search
        # answer's views).
        return {s.id: s for s in self.sources}

    @cached_property
    def _games_by_id(self) -> dict[str, GameSpec]:
        return {g.id: g for g in self.games}

    def language(self, lang: str) -> Language:
        """The declared language `lang` (the builder refuses a source in any other); one of
        its own code and an A–Z bar when a corpus was made without the file (tests)."""
        found = self.languages.get(lang)
        return found if found is not None else Language(lang, lang, _LATIN)

    def game(self, game_id: str) -> GameSpec:
        """The game `game_id` (every source's game is declared: the manifest checks it)."""
        return self._games_by_id[game_id]

    @cached_property
    def collections(self) -> tuple[Collection, ...]:
        """Every collection of every game in order, then codes the rules use undeclared.

        An undeclared code still works everywhere a declared one does (a badge, a setting, a
        filter): it is shown as its code, so new data never hides a rule for good.
        """
        declared = [c for g in self.games for c in g.collections]
        known = {c.code for c in declared}
        used = dict.fromkeys(code for entry in self for code in entry.collections)
        extra = [Collection(code, code, code, declared=False) for code in used
                 if code not in known]
        return (*declared, *extra)

    @cached_property
    def tagged_collections(self) -> tuple[Collection, ...]:
        """The collections rules are tagged with: the ones a player can choose among."""
        used = {code for entry in self for code in entry.collections}
        return tuple(c for c in self.collections if c.code in used)

    @cached_property
    def collection_codes(self) -> frozenset[str]:
        """The codes of `tagged_collections` (what the owned cookie may name)."""
        return frozenset(c.code for c in self.tagged_collections)

    def collection(self, code: str) -> Collection:
        """The collection `code` names; an unknown code is its own name."""
        return next((c for c in self.collections if c.code == code),
                    Collection(code, code, code, declared=False))

    def english_name(self, entry: Entry) -> str | None:
        """The entry's English name, for players who know the English term, or None.

        From the English translation when one pairs with the entry; otherwise the rule name
        an ArkhamDB-style id spells (`Attack_of_Opportunity`), except for "see X" pointers
        (`Experience_Placeholder`). English entries need none: their title is English.
        """
        if entry.lang == "en":
            return None
        english = self.translation(entry, "en")
        if english is not None:
            return english.title
        if entry.placeholder or not _ENGLISH_ID.fullmatch(entry.id):
            return None
        return entry.id.replace("_", " ").strip()

    def translation(self, entry: Entry, lang: str) -> Entry | None:
        """The same entry in `lang`, when a translation pairs with it."""
        other = entry.translations.get(lang)
        return self.entries.get(other) if other else None

    def path(self, entry: Entry) -> tuple[Entry, ...]:
        """The ancestors of `entry`, outermost first (the breadcrumb)."""
        chain: list[Entry] = []
        parent = entry.parent
        while parent is not None:
            node = self.entries[parent]
            chain.append(node)
            parent = node.parent
        return tuple(reversed(chain))
