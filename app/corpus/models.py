"""The corpus model: frozen dataclasses shared by the loader, renderer, search and web layer.

Parsers produce `RawEntry` values (markup still unresolved); the builder turns them into
`Entry` values with rendered HTML, plain text and both directions of links, held by one `Corpus`.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Literal

from app.corpus.normalize import compact

Game = Literal["ahlcg", "eh"]
Colour = Literal["green", "red", "grey", ""]


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


@dataclass(frozen=True)
class TableCell:
    """One cell of a timing table; `colour` is the printed guide's colour code."""

    text: str
    colour: Colour = ""


@dataclass(frozen=True)
class TableRow:
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
    cycles: tuple[str, ...] = ()
    table: tuple[TableRow, ...] | None = None
    #: Where the entry came from, for messages ("line 753", "[12].rules[3]").
    location: str = ""


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
    cycles: tuple[str, ...]
    links_to: tuple[str, ...]
    linked_from: tuple[str, ...]
    table: tuple[TableRowView, ...] | None
    #: Step anchors inside the body, e.g. {"1.1": "step-1-1"}.
    anchors: Mapping[str, str]
    #: True when the entry only points elsewhere ("… 참조하세요.").
    placeholder: bool


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

    def __iter__(self) -> Iterator[Entry]:
        for source in self.sources:
            for entry_id in source.entry_ids:
                yield self.entries[entry_id]

    def __len__(self) -> int:
        return len(self.entries)

    def get(self, entry_id: str) -> Entry | None:
        return self.entries.get(entry_id)

    @cached_property
    def _titles(self) -> dict[str, str]:
        found: dict[str, str] = {}
        # Reading order with real entries first: "틈새 공격" means the rule, not a pointer.
        for entry in sorted(self, key=lambda e: (e.placeholder, e.order)):
            found.setdefault(compact(entry.title), entry.id)
        return found

    def by_title(self, title: str) -> Entry | None:
        """The entry titled `title` (spacing and case ignored), preferring real entries."""
        entry_id = self._titles.get(compact(title))
        return self.entries[entry_id] if entry_id is not None else None

    def source(self, source_id: str) -> Source | None:
        return next((s for s in self.sources if s.id == source_id), None)

    def path(self, entry: Entry) -> tuple[Entry, ...]:
        """The ancestors of `entry`, outermost first (the breadcrumb)."""
        chain: list[Entry] = []
        parent = entry.parent
        while parent is not None:
            node = self.entries[parent]
            chain.append(node)
            parent = node.parent
        return tuple(reversed(chain))
