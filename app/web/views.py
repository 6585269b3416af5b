"""The typed contracts of every page and JSON answer: one pydantic model per payload.

`app.web.context` and `app.web.search_context` build these; the routes render them as HTML
(the templates read their fields) or return them as JSON, and declare them on the route table,
so `/openapi.json` describes exactly what is sent. A field added here appears in the page's
data, the JSON and the schema at once.

Entry summaries are built in one place, `EntryLink.of`, for every model that extends it.
No web framework here (pydantic is only the data model).
"""

from __future__ import annotations

import functools
from typing import Any, Self

from pydantic import BaseModel, ConfigDict, computed_field

from app.corpus.models import Entry
from app.urls import Urls


class View(BaseModel):
    """Base of every payload: immutable, and no field that the schema does not declare."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    def template_context(self) -> dict[str, Any]:
        """The fields (computed ones included) as a template's variables, values kept typed."""
        names = [*type(self).model_fields, *type(self).model_computed_fields]
        return {name: getattr(self, name) for name in names}


@functools.cache
def _field_names(model: type[BaseModel]) -> frozenset[str]:
    """The fields `model` declares (reading `model_fields` goes through a descriptor each
    time; `EntryLink.of` asks for every link)."""
    return frozenset(model.model_fields)


# --- Entries, as they are linked from everywhere -------------------------------------------

class EntryLink(View):
    """The smallest entry summary: what a link to an entry needs."""

    id: str
    title: str
    url: str

    @classmethod
    def of(cls, entry: Entry, urls: Urls, **extra: Any) -> Self:
        """This summary of `entry`; `extra` gives the fields a subclass adds.

        The one place an entry becomes a summary: every model below that links to an entry
        extends this one and is built through here.

        Validated, as every view is: pydantic-core's validation is cheaper than building the
        model without it (`model_construct`, pure Python: 6.3 µs for a search hit against 3.7
        µs validated, pydantic 2.14), and an entry page or a search answer makes dozens of
        these. A field the model does not declare is refused with a `TypeError` naming it.
        """
        fields: dict[str, Any] = {"id": entry.id, "title": entry.title,
                                  "url": urls.entry(entry.id)}
        declared = _field_names(cls)
        if "title_html" in declared:
            fields["title_html"] = entry.title_html
        fields.update(extra)
        unknown = fields.keys() - declared
        if unknown:
            raise TypeError(f"{cls.__name__} has no field {', '.join(sorted(unknown))}")
        return cls(**fields)


class EntryRef(EntryLink):
    """An entry link with its title as HTML (icons drawn): breadcrumbs, backlinks, indexes."""

    title_html: str


class PathStep(View):
    """One ancestor of an entry, outermost first (the API's `path`)."""

    id: str
    title: str


class CollectionTag(View):
    """A collection an entry is tagged with; `declared` is false for a code the data's
    collection list does not name (shown as its code)."""

    code: str
    name: str
    declared: bool


# --- Sources and their indexes ---------------------------------------------------------------

class SourceFields(View):
    """What every view of a source says about it."""

    id: str
    title: str
    game: str
    game_name: str
    lang: str
    translation_of: str | None
    url: str


class SourceSummary(SourceFields):
    """A source in a list; `entries` is its number of entries."""

    entries: int


class SourceEntry(View):
    """An entry of a source in reading order, with its parent's id."""

    id: str
    title: str
    parent: str | None


class TreeNode(EntryRef):
    """An entry in a source's index or table of contents, with the entries under it."""

    children: list[TreeNode]
    alias: str | None
    #: The title shortened for an index (FAQ questions are long).
    label: str
    #: The parent's title, when the entry is not at the top.
    context: str | None
    collections: list[str]
    #: The date its title or text last changed (marks "changed since your last visit").
    changed: str | None = None


class Letter(View):
    """One key of the index's jump list (초성 or A–Z) and whether any term starts with it."""

    letter: str
    present: bool


class IndexGroup(View):
    """The index terms under one initial."""

    letter: str
    terms: list[TreeNode]


class HiddenRef(EntryRef):
    """A rule left out of the indexes because it belongs to collections not owned."""

    collections: list[str]


class SourcePage(SourceFields):
    """A source's entries in reading order, its 가나다 index and its table of contents."""

    entries: list[SourceEntry]
    letters: list[Letter]
    index: list[IndexGroup]
    contents: list[TreeNode]
    hidden: list[HiddenRef]
    shown_count: int
    settings_url: str
    #: How a title finds its letter in this source's language (languages.json's `by`).
    index_by: str = "letter"


# --- One entry -------------------------------------------------------------------------------

class TableRow(View):
    """A row of a timing table, as the guide prints it: a framework step (`step`, grey box
    with its number), a player window (`window`), a transition (`transition`), a phase
    `header`, or a `spacer` between groups (then only `spacer` is set)."""

    spacer: bool
    colour: str = ""
    kind: str = ""
    kind_label: str = ""
    html: str = ""
    text: str = ""
    #: The entry that explains the row, with the section anchor.
    url: str | None = None
    #: The row's own anchor on /timing (phase headers: the jump list's targets).
    anchor: str | None = None


class Section(EntryRef):
    """A sub-section of an entry page, rendered in place."""

    anchor: str
    html: str
    table: list[TableRow] | None
    collections: list[CollectionTag]
    sections: list[Section]


class Translation(EntryRef):
    """The entry in another language, with its text (the page shows it without a request)."""

    lang: str
    html: str
    lang_name: str
    source_title: str
    #: True for the publisher's original (원문); a translation of it is 번역.
    original: bool = False
    #: True for the entry of the reference itself (a source that translates none): a
    #: translation's page links to it rather than showing it.
    reference: bool = False


class EntryPage(View):
    """An entry: its first fields are the API's entry contract (see the README), the rest is
    what the page adds (names, URLs, rendered sub-sections)."""

    id: str
    title: str
    source: str
    game: str
    url: str
    parent: str | None
    path: list[PathStep]
    children: list[str]
    text: str
    html: str
    links_to: list[str]
    linked_from: list[str]
    collection_codes: list[str]
    lang: str
    translations: list[Translation]
    title_html: str
    source_title: str
    source_url: str
    game_name: str
    breadcrumb: list[EntryRef]
    collections: list[CollectionTag]
    table: list[TableRow] | None
    sections: list[Section]
    backlinks: list[EntryRef]
    prev: EntryRef | None
    next: EntryRef | None
    placeholder: bool
    #: A FAQ question as title: set smaller, so the answer still shows first.
    long_title: bool
    #: The link preview's text (the rule's first sentence).
    description: str
    #: The rule belongs to collections the visitor does not own (shown, with a note).
    not_owned: bool
    settings_url: str
    #: When it was added and last changed, with a link to its history (None: no history).
    history: EntryHistoryLine | None = None

    # Marked deprecated in the schema only: pydantic's own `deprecated=` warns on every read,
    # and the JSON encoder reads it for every answer.
    @computed_field(  # type: ignore[prop-decorator]
        description="Deprecated: the old name of collection_codes (renamed 2026-12-01), kept "
                    "for clients that read it; it will be removed in a later release.",
        json_schema_extra={"deprecated": True})
    @property
    def cycles(self) -> list[str]:
        """The old name of `collection_codes`: a stable field of the entry contract may not
        vanish without notice."""
        return self.collection_codes


# --- History and changes ---------------------------------------------------------------------

class RevisionRef(View):
    """A revision of a source, with the upstream commit's date and subject."""

    source: str
    key: str
    date: str
    subject: str
    #: The upstream commit's page, when the data names the commit and where commits are shown.
    commit_url: str | None
    #: The source's file differs from every listed revision (edited or copied in by hand).
    local: bool
    #: The history starts here: the revision's entries were there before it, since unknown.
    baseline: bool
    #: Its section on /changes.
    url: str


class TranslationLag(View):
    """The paired text in another language (the original) changed after this one last did."""

    lang: str
    lang_name: str
    #: When the other text last changed, and when this one did.
    date: str
    since: str
    #: That change, on the other text's history page.
    url: str


class EntryHistoryLine(View):
    """What an entry page says about the entry's past (the API's `history`)."""

    url: str
    #: The date of the revision that added it (None when the history starts with it there).
    added: str | None
    #: The date of the last revision that changed its title or text, if any did.
    changed: str | None
    #: How many revisions changed its title or text after it was added.
    changes: int
    #: The newer of the two: "changed since your last visit" compares with this.
    last_changed: str
    #: Ids it had before (they redirect here).
    former_ids: list[str]
    lag: TranslationLag | None


class HistoryStep(View):
    """One change on an entry's history page; `title_html` and `body_html` are word-level
    differences (`<del>`, `<ins>`) against the version before."""

    kind: str
    revision: RevisionRef
    anchor: str
    id: str
    title: str
    text: str
    title_html: str
    body_html: str
    #: The text as it was added (the first step shows it whole).
    text_html: str
    #: Most of the text is new: old and new are shown whole, one after the other.
    rewrite: bool
    size: str
    added: int
    removed: int
    renamed_from: str | None


class HistoryPage(View):
    """Every change to one entry, newest first."""

    id: str
    title: str
    title_html: str | None
    lang: str
    url: str
    history_url: str
    source: str
    source_title: str
    source_url: str
    removed: bool
    steps: list[HistoryStep]
    changes_url: str


class LangLink(View):
    """A page in a given language."""

    title: str
    url: str
    lang: str


class RemovedPage(View):
    """An entry a revision removed: its last text, marked as removed, with its dates."""

    id: str
    title: str
    text: str
    text_html: str
    lang: str
    source_title: str
    source_url: str
    added: str | None
    removed: str
    history_url: str
    search_url: str
    #: The same id in another language, where it still exists.
    translations: list[LangLink]


class ChangedEntry(View):
    """An entry in a revision's list on /changes, with the size of its change."""

    id: str
    title: str
    url: str
    history_url: str
    size: str
    added: int
    removed: int
    title_changed: bool
    large: bool
    renamed_from: str | None
    restored: bool


class SourceChanges(View):
    """What one revision changed in one source: new, rewritten, removed and renamed entries
    in lists of their own."""

    source: str
    source_title: str
    lang: str
    key: str
    #: The first revision of the history: its entries are counted, not listed.
    first: bool
    local: bool
    entries: int
    new: list[ChangedEntry]
    rewritten: list[ChangedEntry]
    removed: list[ChangedEntry]
    renamed: list[ChangedEntry]
    #: No title or text changed (markup or spacing only).
    nothing: bool


class RevisionChanges(View):
    """One upstream revision (a commit may touch several sources)."""

    anchor: str
    revision: RevisionRef
    sources: list[SourceChanges]


class SourceFilter(View):
    """A source one can narrow /changes to."""

    id: str
    title: str
    lang: str
    url: str
    current: bool


class ChangesPage(View):
    """What's new, by revision, newest first (`/changes`, `/api/changes`, the feed)."""

    source: str | None
    revisions: list[RevisionChanges]
    filters: list[SourceFilter]
    all_url: str
    feed_url: str
    #: The newest revision's date (a baseline snapshot aside).
    newest: str
    url: str
    #: The heading level of the lists (one source: no source headings above them).
    list_level: int = 4


# --- Home and timing -------------------------------------------------------------------------

class GameSources(View):
    """A game and its sources, on the home page."""

    id: str
    name: str
    sources: list[SourceSummary]


class TimingLink(EntryRef):
    """A timing table on the home page, with its number of framework steps."""

    steps: int


class QuickLink(EntryRef):
    """A page a game declares as often opened at the table."""

    game_name: str


class EntryPoints(View):
    """Where players usually go: the timing tables and each game's quick links."""

    timing: list[TimingLink]
    quick: list[QuickLink]
    timing_url: str


class HomePage(EntryPoints):
    """The sources per game, the entry points and the data version."""

    games: list[GameSources]
    entries: int
    version: str


class Phase(View):
    """A phase header of a timing table, for the jump list."""

    title: str
    anchor: str


class TimingTable(EntryRef):
    """One timing table on /timing."""

    lang: str
    table: list[TableRow]
    anchor: str
    phases: list[Phase]


class TimingSource(SourceSummary):
    """A source and the timing tables it holds."""

    tables: list[TimingTable]


class TimingPage(View):
    """Every timing table, grouped by source, with the data's date for print."""

    sources: list[TimingSource]
    updated: str
    url: str

    @computed_field  # type: ignore[prop-decorator]
    @property
    def tables(self) -> list[TimingTable]:
        """Every table, across sources (the page's jump list)."""
        return [t for s in self.sources for t in s.tables]


# --- Search ----------------------------------------------------------------------------------

class ShownTranslation(EntryRef):
    """The translation a result is shown in: the query was in its language."""

    lang: str
    lang_name: str


class SearchHit(EntryRef):
    """One search result: the entry, and when the query was in the language of one of its
    translations (other than English), that translation, whose title and snippet it shows
    with the entry beside it."""

    source: str
    game: str
    snippet: str
    path: list[PathStep]
    source_title: str
    game_name: str
    game_short: str
    lang: str
    not_owned: bool
    translation: ShownTranslation | None = None
    #: The language of the snippet: the translation's, or the entry's.
    snippet_lang: str = ""
    #: The entry's language by its own name (한국어), shown beside a translation's title.
    lang_name: str = ""
    #: The anchor of the step of the entry that answers (`step-8`; its heading is the title
    #: and `url` goes to it), or "" for the whole entry.
    anchor: str = ""


class Notice(View):
    """Something the search changed in the query, said plainly: `synonym` and `loanword`
    (a player's word → the official term), `game` (the query named a game: its rules first,
    with a link to that game alone), `layout` (typed in the keyboard's other layout),
    `correction` and `fallback` (a typo, or the nearest word of the texts when nothing
    matched; with a link to search as typed), `dropped` (words no entry has, left out) or
    `partial` (no entry has any of the words: the results share letters of them)."""

    kind: str
    typed: str
    official: str
    text: str
    url: str | None
    link: str | None


class Scope(View):
    """The filter a search ran under, shown as a chip that removes it ("엘드리치 호러에서만
    · 모든 게임"): a remembered game never hides the answer silently."""

    label: str
    clear_url: str
    clear_label: str


class SearchResults(View):
    """One page of results for a query (the JSON API's answer)."""

    query: str
    total: int
    results: list[SearchHit]
    #: The game or source filter, when one was set.
    scope: Scope | None = None
    #: With a filter: the best entry outside it, when it answers better than any inside.
    elsewhere: SearchHit | None = None
    suggestion: str | None
    suggestion_url: str | None
    #: The particle the suggested title takes in "…을 찾으셨나요?".
    suggestion_particle: str
    notices: list[Notice]
    as_typed: bool
    no_results: str


class SourceChoice(View):
    """A source in the search page's filter."""

    id: str
    title: str
    game: str


class SourceLink(View):
    """A source's index, offered on the empty search page."""

    title: str
    url: str


class GameChoice(View):
    """A game in the search page's filter."""

    id: str
    name: str


class SearchPage(SearchResults):
    """The results page: results, filters, pagination, and the entry points when empty."""

    game: str
    source: str
    page: int
    pages: int
    prev_url: str | None
    next_url: str | None
    games: list[GameChoice]
    sources: list[SourceChoice]
    first: int
    timing: list[TimingLink]
    quick: list[QuickLink]
    timing_url: str
    source_links: list[SourceLink]


class TitleMatch(EntryLink):
    """A title that matches what was typed (suggestions, and 404 pages' closest entries)."""

    game: str
    #: Where the entry sits: game and parent or source.
    context: str


class Suggestions(View):
    """Search as you type."""

    query: str
    suggestions: list[TitleMatch]


class Choice(EntryRef):
    """One of the tied matches `/go/` lets the player choose from."""

    game: str
    game_name: str
    context: str


class ChooserPage(View):
    """The page `/go/` shows when its best matches tie."""

    query: str
    choices: list[Choice]


# --- Settings, errors, operations --------------------------------------------------------------

class CollectionChoice(View):
    """A collection on the settings form, ticked when owned."""

    code: str
    name: str
    name_en: str
    declared: bool
    owned: bool


class SettingsPage(View):
    """The owned-collections form."""

    collections: list[CollectionChoice]
    everything: bool
    saved: bool


class ErrorBody(View):
    """What went wrong; a 404 adds the entries the address most likely meant."""

    status: int
    message: str
    #: What the reader can do about it (a refused host: the setting that lets it in).
    hint: str | None = None
    suggestions: list[TitleMatch] | None = None


class ErrorAnswer(View):
    """Every JSON error: `{"error": {status, message[, suggestions]}}`."""

    error: ErrorBody


class Health(View):
    """`/healthz`: the process answers."""

    status: str


class Ready(View):
    """`/readyz`: the data and its index are loaded."""

    status: str
    version: str
    entries: int


# --- The installable app ---------------------------------------------------------------------

class TitleItem(View):
    """One entry for the offline title search: its compact form and initial consonants."""

    title: str
    url: str
    key: str
    initials: str
    context: str


class Titles(View):
    """Every entry's title, for matching offline (versioned with the data)."""

    version: str
    titles: list[TitleItem]


class SearchLanguage(View):
    """A translation language's browser-engine files, for the visitors who read it."""

    lang: str
    name: str
    index: str
    texts: str


class ManifestIcon(View):
    """An icon of the web app manifest."""

    src: str
    sizes: str
    type: str


class WebManifest(View):
    """The web app manifest (W3C): installable, with a Korean name and our own icons."""

    name: str
    short_name: str
    description: str
    lang: str
    dir: str
    id: str
    start_url: str
    scope: str
    display: str
    background_color: str
    theme_color: str
    icons: list[ManifestIcon]


class ClientIndex(View):
    """The browser engine's index (`app/search/client_index.py` describes each part): versioned
    with the data and the analysis, so a saved copy is never mixed with newer rules."""

    version: str
    analysis: str
    games: list[dict[str, str]]
    #: Per document, in docnum order: id, title, url, game, where, order, depth, backlinks,
    #: placeholder; and `see` (a pointer's docnum → its target's).
    docs: dict[str, Any]
    #: The title forms the engine matches: parts, position, full, alias, alias_words, words.
    titles: dict[str, Any]
    #: Per field, each document's length as Whoosh stores it.
    lengths: dict[str, list[int]]
    #: Per field, the documents its BM25 statistics count.
    counts: dict[str, int]
    #: The translation languages with files of their own (`ClientLanguage`): a visitor
    #: downloads only the languages they read.
    languages: list[str]
    #: Every language's own name, by code.
    language_names: dict[str, str]
    #: Per field, term → encoded docnums and frequencies.
    postings: dict[str, dict[str, str]]
    #: Per game, a player's word → the official terms.
    synonyms: dict[str, dict[str, list[str]]]
    #: Per game, an everyday word → the rules' words searched beside it (`~` lines).
    related: dict[str, dict[str, list[str]]]
    #: The compact forms a query may name a game by → [game id] (`rewrite.name_keys`).
    game_names: dict[str, list[str]]
    #: A game name that is also a title's word → the words that follow it in titles
    #: (`rewrite.GameNames.guards`: 엘드리치 토큰 is the token, not the game).
    game_name_guards: dict[str, list[str]]
    #: Everyday words that are never taken for typos (`Corpus.words`, `data/ko-words.txt`).
    words: list[str]
    #: Hangul loanwords heard by sound: skeleton → [(rank, English phrase)], a synonyms
    #: file's English word → its official term, an English name → its entry's title
    #: (`loanwords.LoanwordVocabulary.shipped`).
    loanwords: dict[str, Any]
    #: An English stem that is no word of the texts → the word a correction to it is said as
    #: (`documents.english_surfaces`: tak → take).
    surfaces: dict[str, str]
    #: The analysis tables (particles, endings, patterns, jamo), shipped from the Python side.
    rules: dict[str, Any]
    #: Every value both engines share, by section (`app/search/contract.py`).
    contract: dict[str, Any]


class ClientTexts(View):
    """Each document's text, in the client index's docnum order (body search, snippets)."""

    version: str
    analysis: str
    texts: list[str]
    #: The questions each document answers (the games' answers files), one a line: searched
    #: and ranked with its text, never shown.
    asks: list[str]


class ClientLanguage(View):
    """One translation language's part of the browser engine's index: by docnum, the entry
    in that language (id, title, URL), its title forms and its titles' postings."""

    version: str
    analysis: str
    lang: str
    entries: dict[str, list[str]]
    parts: dict[str, list[str]]
    postings: dict[str, dict[str, str]]


class ClientLanguageTexts(View):
    """One translation language's texts, by docnum (its body search and snippets)."""

    version: str
    analysis: str
    lang: str
    texts: dict[str, str]
