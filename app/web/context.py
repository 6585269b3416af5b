"""Page data. Each function builds one page's context as a typed model (`app.web.views`).

The HTML page renders this context and the JSON API returns it, so the JSON *is* the page's
data. Nothing here imports the web framework.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from app.corpus.collections import is_hidden
from app.corpus.languages import OTHER
from app.corpus.models import Corpus, Entry, Source
from app.corpus.normalize import compact
from app.errors import AppError
from app.urls import Urls
from app.web.views import (
    CollectionChoice,
    CollectionTag,
    EntryPage,
    EntryPoints,
    EntryRef,
    GameSources,
    HiddenRef,
    HomePage,
    IndexGroup,
    Letter,
    PathStep,
    Phase,
    QuickLink,
    Section,
    SettingsPage,
    SourceEntry,
    SourceFields,
    SourcePage,
    SourceSummary,
    TableRow,
    TimingLink,
    TimingPage,
    TimingSource,
    TimingTable,
    Translation,
    TreeNode,
)

#: Titles longer than this (FAQ questions) are set in a smaller heading size.
_LONG_TITLE = 40


def anchor_id(entry_id: str) -> str:
    """An HTML id for an entry's sub-section: ids may hold spaces, HTML ids may not."""
    return "r-" + entry_id.replace(" ", "_")


def _source_fields(corpus: Corpus, source: Source, urls: Urls) -> dict[str, Any]:
    """What every view of a source says about it (`SourceFields`), as keyword arguments."""
    return SourceFields(
        id=source.id, title=source.spec.title, game=source.spec.game,
        game_name=corpus.game(source.spec.game).name, lang=source.spec.lang,
        translation_of=source.spec.translation_of, url=urls.source(source.id)).model_dump()


def source_summary(corpus: Corpus, source: Source, urls: Urls) -> SourceSummary:
    """One source, with its number of entries."""
    return SourceSummary(**_source_fields(corpus, source, urls), entries=len(source.entry_ids))


def sources_context(corpus: Corpus, urls: Urls) -> list[SourceSummary]:
    """Every source, in manifest order."""
    return [source_summary(corpus, s, urls) for s in corpus.sources]


def home_context(corpus: Corpus, urls: Urls) -> HomePage:
    """Sources grouped by game, and quick links to the timing tables and glossaries."""
    games = [
        GameSources(id=game.id, name=game.name,
                    sources=[source_summary(corpus, s, urls) for s in corpus.sources
                             if s.spec.game == game.id])
        for game in corpus.games
    ]
    return HomePage(games=[g for g in games if g.sources], **dict(entry_points(corpus, urls)),
                    entries=len(corpus), version=corpus.version)


def entry_points(corpus: Corpus, urls: Urls) -> EntryPoints:
    """The pages players open most at the table: the timing tables (in the reference's own
    language; translations have theirs) and each game's declared quick links."""
    timing = [TimingLink.of(e, urls, steps=sum(1 for r in e.table or () if r.cells and
                                               r.cells[0].colour == "green"))
              for e in timing_tables(corpus) if _is_reference(corpus, e)]
    quick = [QuickLink.of(corpus.entries[q], urls, game_name=g.name)
             for g in corpus.games for q in g.quick if q in corpus.entries]
    return EntryPoints(timing=timing, quick=quick, timing_url=urls.timing())


def timing_tables(corpus: Corpus) -> list[Entry]:
    """Every entry that carries a table, in reading order: the data says what a table is."""
    return [e for e in corpus if e.table is not None]


def source_context(
    corpus: Corpus, source_id: str, urls: Urls, owned: frozenset[str] | None = None,
    changed: Mapping[str, str] | None = None,
) -> SourcePage:
    """A source's entries in reading order, and its 가나다 index grouped by initial consonant.

    `changed` (entry id → the date it last changed, from the history) dates the index's
    terms, for the "changed since your last visit" marks.

    With `owned` collections set, rules for other collections leave the index and the table of
    contents and are listed under `hidden` instead.
    """
    source = corpus.source(source_id)
    if source is None:
        raise AppError(404, f"'{source_id}' 자료를 찾을 수 없습니다.")
    entries = [corpus.entries[i] for i in source.entry_ids]
    hidden = [e for e in entries if is_hidden(e.collections, owned)]
    shown = _Visible(frozenset(e.id for e in hidden))
    tops = [e for e in entries if e.parent is None and shown(e)]
    units = list(tops)
    # A glossary chapter's terms are index entries of their own; the chapter itself is then
    # listed without its subtree, so no term appears twice (the 목차 keeps the full tree).
    glossary = corpus.game(source.spec.game).glossary_chapter
    chapters = {t.id for t in tops if len(t.children) > glossary}
    for top in tops:
        if top.id in chapters:
            units.extend(corpus.entries[c] for c in top.children if shown(corpus.entries[c]))
    # The index jumps by the letters its language declares (languages.json): 초성 for
    # Korean, A–Z with accents folded, А–Я, a Han title by its reading's first letter.
    language = corpus.language(source.spec.lang)
    units.sort(key=lambda e: language.sort_key(e.title))
    letters = [*language.letters, OTHER]
    groups: dict[str, list[TreeNode]] = {}
    for unit in units:
        groups.setdefault(language.letter(unit.title), []).append(
            _tree(corpus, unit, urls, leaf=unit.id in chapters, shown=shown, changed=changed)
        )
    return SourcePage(
        **_source_fields(corpus, source, urls),
        entries=[SourceEntry(id=e.id, title=e.title, parent=e.parent) for e in entries],
        letters=[Letter(letter=x, present=x in groups) for x in letters],
        index=[IndexGroup(letter=x, terms=groups[x]) for x in letters if x in groups],
        contents=[_tree(corpus, t, urls, leaf=False, shown=shown, changed=changed)
                  for t in tops],
        hidden=[HiddenRef.of(e, urls, collections=[corpus.collection(c).name
                                                   for c in e.collections])
                for e in hidden],
        # Hidden rules take their sub-rules with them out of the indexes.
        shown_count=sum(1 for e in entries if not _hidden_within(corpus, e, shown)),
        settings_url=urls.settings(),
        index_by=language.by,
    )


def _hidden_within(corpus: Corpus, entry: Entry, shown: _Visible) -> bool:
    """An entry is out of the indexes when it or an ancestor is hidden."""
    return not shown(entry) or any(not shown(p) for p in corpus.path(entry))


class _Visible:
    """Whether an entry shows in an index: not hidden itself (its subtree goes with it)."""

    def __init__(self, hidden: frozenset[str]) -> None:
        self.hidden = hidden

    def __call__(self, entry: Entry) -> bool:
        return entry.id not in self.hidden


def summary(text: str, limit: int = 160) -> str:
    """The first sentence or so of a plain text, at most `limit` characters (link previews).

    List items read as sentences: their "- " markers go, and items are joined with spaces
    (a preview is one line of prose, not a list with dashes)."""
    lines = (_LIST_MARK.sub("", line) for line in text.split("\n"))
    flat = " ".join(" ".join(lines).split())
    if len(flat) <= limit:
        return flat
    end = max((m.end() for m in _SENTENCE_END.finditer(flat, 0, limit)), default=0)
    if end >= 40:
        return flat[:end].strip()
    cut = flat[: limit - 1]
    return (cut.rsplit(" ", 1)[0] if " " in cut[40:] else cut) + "…"


_SENTENCE_END = re.compile(r"[.!?。](?=\s|$)")
_LIST_MARK = re.compile(r"^\s*(?:[-*•➤]|\d{1,3}[.)])\s+")


def _description(corpus: Corpus, entry: Entry, source: Source) -> str:
    """The preview text: the rule's first sentence; for a table with no prose of its own, what
    the table is (a preview that repeats the title and reads icons as words helps no one)."""
    if entry.table is not None and not entry.html.strip():
        steps = sum(1 for row in entry.table if row.cells and row.cells[0].colour)
        return (f"{entry.title}: {source.spec.title}의 타이밍 표 ({steps}줄). "
                "각 줄은 그 단계를 설명하는 항목으로 이어집니다.")
    return summary(entry.text) or f"{entry.title}: {source.spec.title}"


def entry_context(
    corpus: Corpus, entry_id: str, urls: Urls, owned: frozenset[str] | None = None
) -> EntryPage:
    """Everything the entry page shows; its first fields are the API's entry contract."""
    entry = corpus.get(entry_id)
    if entry is None:
        raise AppError(404, f"'{entry_id}' 항목을 찾을 수 없습니다.", detail={"id": entry_id})
    source = corpus.source(entry.source)
    assert source is not None
    position = source.entry_ids.index(entry.id)
    neighbours = {
        "prev": source.entry_ids[position - 1] if position > 0 else None,
        "next": source.entry_ids[position + 1] if position + 1 < len(source.entry_ids) else None,
    }
    return EntryPage(
        id=entry.id,
        title=entry.title,
        source=entry.source,
        game=entry.game,
        url=urls.entry(entry.id),
        parent=entry.parent,
        path=path_of(corpus, entry),
        children=list(entry.children),
        text=entry.text,
        html=entry.html,
        links_to=list(entry.links_to),
        linked_from=list(entry.linked_from),
        collection_codes=list(entry.collections),
        # What the page adds to the contract: names, URLs and the rendered sub-sections.
        lang=entry.lang,
        translations=_translations(corpus, entry, urls),
        title_html=entry.title_html,
        source_title=source.spec.title,
        source_url=urls.source(source.id),
        game_name=corpus.game(entry.game).name,
        breadcrumb=[EntryRef.of(p, urls) for p in corpus.path(entry)],
        collections=_collections(corpus, entry),
        table=_table(entry, urls),
        sections=[_section(corpus, corpus.entries[c], urls) for c in entry.children],
        backlinks=[EntryRef.of(corpus.entries[i], urls) for i in entry.linked_from],
        prev=EntryRef.of(corpus.entries[neighbours["prev"]], urls) if neighbours["prev"]
        else None,
        next=EntryRef.of(corpus.entries[neighbours["next"]], urls) if neighbours["next"]
        else None,
        placeholder=entry.placeholder,
        long_title=len(entry.title) > _LONG_TITLE,
        description=_description(corpus, entry, source),
        # A direct link always shows the rule; the page says when it is outside the collection.
        not_owned=is_hidden(entry.collections, owned),
        settings_url=urls.settings(),
    )


def path_of(corpus: Corpus, entry: Entry) -> list[PathStep]:
    """The entry's ancestors, outermost first (every search hit has one)."""
    return [PathStep(id=p.id, title=p.title) for p in corpus.path(entry)]


def timing_context(corpus: Corpus, urls: Urls) -> TimingPage:
    """Every timing table of every source, grouped by source, in reading order, with a jump
    list of each table and its phases (the header rows), and the data's date for print."""
    # Sources in the order their first table comes (dicts keep insertion order).
    tables: dict[str, list[TimingTable]] = {}
    for number, entry in enumerate(timing_tables(corpus), start=1):
        rows = _table(entry, urls) or []
        # The first header row usually repeats the table's own title: the heading says it.
        if rows and rows[0].kind == "header" and compact(rows[0].text) == compact(entry.title):
            rows = rows[1:]
        anchor = f"t{number}"
        phases = []
        for position, row in enumerate(rows):
            if row.kind == "header":
                rows[position] = row = row.model_copy(update={"anchor": f"{anchor}-{position}"})
                # "I. 신화 단계 (게임의 첫 라운드에서는 생략합니다)" → "I. 신화 단계"
                title = re.sub(r"\s*\([^)]*\)\s*$", "", row.text) or row.text
                phases.append(Phase(title=title, anchor=f"{anchor}-{position}"))
        tables.setdefault(entry.source, []).append(TimingTable.of(
            entry, urls, lang=entry.lang, table=rows, anchor=anchor, phases=phases))
    sources = [TimingSource(**dict(source_summary(corpus, source, urls)), tables=found)
               for source_id, found in tables.items()
               if (source := corpus.source(source_id)) is not None]
    return TimingPage(sources=sources, updated=corpus.updated, url=urls.timing())


def _collections(corpus: Corpus, entry: Entry) -> list[CollectionTag]:
    return [CollectionTag(code=c.code, name=c.name, declared=c.declared)
            for c in map(corpus.collection, entry.collections)]


def _translations(corpus: Corpus, entry: Entry, urls: Urls) -> list[Translation]:
    """The entry in its other languages, with the text, so the page needs no second request."""
    return [Translation.of(other, urls, lang=lang, html=other.html,
                           lang_name=corpus.language(lang).name,
                           source_title=_source_title(corpus, other),
                           original=_is_original(corpus, other),
                           reference=_is_reference(corpus, other))
            for lang, other in ((lang, corpus.entries[i]) for lang, i in
                                entry.translations.items())]


def _is_reference(corpus: Corpus, entry: Entry) -> bool:
    """Whether `entry` is of a source that translates none (the reference's own)."""
    source = corpus.source(entry.source)
    return source is not None and source.spec.translation_of is None


def _is_original(corpus: Corpus, entry: Entry) -> bool:
    """Whether `entry` is of the source the manifest declares the original (`"original":
    true`, the publisher's text the reference translates): 원문, where any other is 번역."""
    source = corpus.source(entry.source)
    return source is not None and source.spec.original


def _source_title(corpus: Corpus, entry: Entry) -> str:
    source = corpus.source(entry.source)
    return source.spec.title if source is not None else ""


def _tree(
    corpus: Corpus, entry: Entry, urls: Urls, *, leaf: bool, shown: _Visible | None = None,
    changed: Mapping[str, str] | None = None,
) -> TreeNode:
    children = [] if leaf else [
        _tree(corpus, corpus.entries[c], urls, leaf=False, shown=shown, changed=changed)
        for c in entry.children if shown is None or shown(corpus.entries[c])
    ]
    parent = corpus.get(entry.parent) if entry.parent else None
    return TreeNode.of(entry, urls, children=children, alias=corpus.english_name(entry),
                       # Long titles (FAQ questions) are shortened in an index, never on
                       # their page.
                       label=summary(entry.title, 90),
                       context=parent.title if parent is not None else None,
                       collections=[corpus.collection(c).name for c in entry.collections],
                       changed=(changed or {}).get(entry.id))


def _section(corpus: Corpus, entry: Entry, urls: Urls) -> Section:
    return Section.of(entry, urls, anchor=anchor_id(entry.id), html=entry.html,
                      table=_table(entry, urls), collections=_collections(corpus, entry),
                      sections=[_section(corpus, corpus.entries[c], urls)
                                for c in entry.children])


_ROW_KINDS = {
    "green": ("step", "사건 구조"),
    "red": ("window", "플레이어의 행동 기회"),
    "grey": ("transition", "다음 단계로"),
    "": ("header", "단계"),
}


def _table(entry: Entry, urls: Urls) -> list[TableRow] | None:
    if entry.table is None:
        return None
    rows: list[TableRow] = []
    for row in entry.table:
        if not row.cells:
            rows.append(TableRow(spacer=True))
            continue
        colour = row.cells[0].colour
        kind, label = _ROW_KINDS[colour]
        rows.append(TableRow(
            spacer=False, colour=colour or "none", kind=kind, kind_label=label,
            html=" ".join(row.html), text=" ".join(cell.text for cell in row.cells),
            url=urls.entry(row.target, row.anchor) if row.target else None))
    return rows


def settings_context(corpus: Corpus, owned: frozenset[str] | None, *,
                     saved: bool) -> SettingsPage:
    """The owned-collections form: every collection a rule is tagged with (declared or
    not: a new code is choosable too), with whether it is ticked."""
    return SettingsPage(
        collections=[
            CollectionChoice(code=c.code, name=c.name, name_en=c.name_en,
                             declared=c.declared, owned=owned is None or c.code in owned)
            for c in corpus.tagged_collections
        ],
        everything=owned is None,
        saved=saved,
    )
