"""Page data. Each function builds one page's context as plain JSON-ready data.

The HTML page renders this context and the JSON API returns it, so the JSON *is* the page's
data. Nothing here imports the web framework.
"""

from __future__ import annotations

import re
from typing import Any

from app.corpus.collections import COLLECTIONS, collection_name, is_hidden
from app.corpus.hangul import INDEX_LETTERS, index_letter, sort_key
from app.corpus.models import Corpus, Entry, Source
from app.errors import AppError
from app.urls import Urls

GAME_NAMES = {"ahlcg": "아컴호러 카드게임", "eh": "엘드리치 호러"}
#: The timing tables, shown together at /timing.
TIMING_TABLES = ("Phase_Sequence_Timing", "Skill_Test_Timing")
#: A top-level entry with more children than this is a glossary chapter (the EH reference's
#: 용어 풀이): its children join the 가나다 index as terms of their own.
_GLOSSARY_CHAPTER = 20

JSON = dict[str, Any]


def anchor_id(entry_id: str) -> str:
    """An HTML id for an entry's sub-section: ids may hold spaces, HTML ids may not."""
    return "r-" + entry_id.replace(" ", "_")


def source_summary(corpus: Corpus, source: Source, urls: Urls) -> JSON:
    """`{id, title, game, entries, url}` for one source (entries is a count)."""
    return {
        "id": source.id,
        "title": source.spec.title,
        "game": source.spec.game,
        "game_name": GAME_NAMES[source.spec.game],
        "entries": len(source.entry_ids),
        "url": urls.source(source.id),
    }


def sources_context(corpus: Corpus, urls: Urls) -> list[JSON]:
    """Every source, in manifest order."""
    return [source_summary(corpus, s, urls) for s in corpus.sources]


def home_context(corpus: Corpus, urls: Urls) -> JSON:
    """Sources grouped by game, and quick links to the timing tables and glossaries."""
    games = [
        {
            "id": game,
            "name": name,
            "sources": [source_summary(corpus, s, urls) for s in corpus.sources
                        if s.spec.game == game],
        }
        for game, name in GAME_NAMES.items()
    ]
    timing = [_ref(corpus.entries[i], urls) for i in TIMING_TABLES if i in corpus.entries]
    return {"games": [g for g in games if g["sources"]], "timing": timing,
            "entries": len(corpus), "version": corpus.version}


def source_context(
    corpus: Corpus, source_id: str, urls: Urls, owned: frozenset[str] | None = None
) -> JSON:
    """A source's entries in reading order, and its 가나다 index grouped by initial consonant.

    With `owned` collections set, rules for other collections leave the index and the table of
    contents and are listed under `hidden` instead.
    """
    source = corpus.source(source_id)
    if source is None:
        raise AppError(404, f"'{source_id}' 자료를 찾을 수 없습니다.")
    entries = [corpus.entries[i] for i in source.entry_ids]
    hidden = [e for e in entries if is_hidden(e.cycles, owned)]
    shown = _Visible(frozenset(e.id for e in hidden))
    tops = [e for e in entries if e.parent is None and shown(e)]
    units = list(tops)
    # A glossary chapter's terms are index entries of their own; the chapter itself is then
    # listed without its subtree, so no term appears twice (the 목차 keeps the full tree).
    chapters = {t.id for t in tops if len(t.children) > _GLOSSARY_CHAPTER}
    for top in tops:
        if top.id in chapters:
            units.extend(corpus.entries[c] for c in top.children if shown(corpus.entries[c]))
    units.sort(key=lambda e: sort_key(e.title))
    groups: dict[str, list[JSON]] = {}
    for unit in units:
        groups.setdefault(index_letter(unit.title), []).append(
            _tree(corpus, unit, urls, leaf=unit.id in chapters, shown=shown)
        )
    letters = [*INDEX_LETTERS, "기타"]
    return {
        **source_summary(corpus, source, urls),
        "entries": [
            {"id": e.id, "title": e.title, "parent": e.parent} for e in entries
        ],
        "letters": [{"letter": x, "present": x in groups} for x in letters],
        "index": [{"letter": x, "terms": groups[x]} for x in letters if x in groups],
        "contents": [_tree(corpus, t, urls, leaf=False, shown=shown) for t in tops],
        "hidden": [_ref(e, urls) | {"collections": [collection_name(c) for c in e.cycles]}
                   for e in hidden],
        "settings_url": urls.settings(),
    }


class _Visible:
    """Whether an entry shows in an index: not hidden itself (its subtree goes with it)."""

    def __init__(self, hidden: frozenset[str]) -> None:
        self.hidden = hidden

    def __call__(self, entry: Entry) -> bool:
        return entry.id not in self.hidden


def summary(text: str, limit: int = 160) -> str:
    """The first sentence or so of a plain text, at most `limit` characters (link previews)."""
    flat = " ".join(text.split())
    if len(flat) <= limit:
        return flat
    end = max((m.end() for m in _SENTENCE_END.finditer(flat, 0, limit)), default=0)
    if end >= 40:
        return flat[:end].strip()
    cut = flat[: limit - 1]
    return (cut.rsplit(" ", 1)[0] if " " in cut[40:] else cut) + "…"


_SENTENCE_END = re.compile(r"[.!?。](?=\s|$)")


def entry_context(
    corpus: Corpus, entry_id: str, urls: Urls, owned: frozenset[str] | None = None
) -> JSON:
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
    return {
        "id": entry.id,
        "title": entry.title,
        "source": entry.source,
        "game": entry.game,
        "url": urls.entry(entry.id),
        "parent": entry.parent,
        "path": [{"id": p.id, "title": p.title} for p in corpus.path(entry)],
        "children": list(entry.children),
        "text": entry.text,
        "html": entry.html,
        "links_to": list(entry.links_to),
        "linked_from": list(entry.linked_from),
        "cycles": list(entry.cycles),
        # What the page adds to the contract: names, URLs and the rendered sub-sections.
        "title_html": entry.title_html,
        "source_title": source.spec.title,
        "source_url": urls.source(source.id),
        "game_name": GAME_NAMES[entry.game],
        "breadcrumb": [_ref(p, urls) for p in corpus.path(entry)],
        "collections": [{"code": c, "name": collection_name(c)} for c in entry.cycles],
        "table": _table(entry, urls),
        "sections": [_section(corpus, corpus.entries[c], urls) for c in entry.children],
        "backlinks": [_ref(corpus.entries[i], urls) for i in entry.linked_from],
        "prev": _ref(corpus.entries[neighbours["prev"]], urls) if neighbours["prev"] else None,
        "next": _ref(corpus.entries[neighbours["next"]], urls) if neighbours["next"] else None,
        "placeholder": entry.placeholder,
        "description": summary(entry.text) or f"{entry.title}: {source.spec.title}",
        # A direct link always shows the rule; the page says when it is outside the collection.
        "not_owned": is_hidden(entry.cycles, owned),
        "settings_url": urls.settings(),
    }


def timing_context(corpus: Corpus, urls: Urls) -> JSON:
    """Both timing tables, with the legend."""
    tables = [
        {**_ref(corpus.entries[i], urls), "table": _table(corpus.entries[i], urls)}
        for i in TIMING_TABLES
        if i in corpus.entries
    ]
    return {"tables": tables}


def _ref(entry: Entry, urls: Urls) -> JSON:
    return {"id": entry.id, "title": entry.title, "title_html": entry.title_html,
            "url": urls.entry(entry.id)}


def english_name(entry_id: str) -> str | None:
    """The English rule name an ArkhamDB-style id spells (`Attack_of_Opportunity`), or None.

    Shown beside the Korean title in the indexes, for players who know the English term.
    """
    if not _ENGLISH_ID.fullmatch(entry_id):
        return None
    return entry_id.replace("_", " ").strip()


_ENGLISH_ID = re.compile(r"[A-Za-z][A-Za-z0-9_ ]*")


def _tree(
    corpus: Corpus, entry: Entry, urls: Urls, *, leaf: bool, shown: _Visible | None = None,
) -> JSON:
    children = [] if leaf else [
        _tree(corpus, corpus.entries[c], urls, leaf=False, shown=shown) for c in entry.children
        if shown is None or shown(corpus.entries[c])
    ]
    parent = corpus.get(entry.parent) if entry.parent else None
    # "See X" pointers carry ids like Experience_Placeholder: no English name worth showing.
    alias = None if entry.placeholder else english_name(entry.id)
    return {**_ref(entry, urls), "children": children, "alias": alias,
            "context": parent.title if parent is not None else None,
            "collections": [collection_name(c) for c in entry.cycles]}


def _section(corpus: Corpus, entry: Entry, urls: Urls) -> JSON:
    return {
        **_ref(entry, urls),
        "anchor": anchor_id(entry.id),
        "html": entry.html,
        "table": _table(entry, urls),
        "collections": [{"code": c, "name": collection_name(c)} for c in entry.cycles],
        "sections": [_section(corpus, corpus.entries[c], urls) for c in entry.children],
    }


_ROW_KINDS = {
    "green": ("step", "사건 구조"),
    "red": ("window", "플레이어의 행동 기회"),
    "grey": ("transition", "다음 단계로"),
    "": ("header", "단계"),
}


def _table(entry: Entry, urls: Urls) -> list[JSON] | None:
    if entry.table is None:
        return None
    rows: list[JSON] = []
    for row in entry.table:
        if not row.cells:
            rows.append({"spacer": True})
            continue
        colour = row.cells[0].colour
        kind, label = _ROW_KINDS[colour]
        rows.append(
            {
                "spacer": False,
                "colour": colour or "none",
                "kind": kind,
                "kind_label": label,
                "html": " ".join(row.html),
                "url": urls.entry(row.target, row.anchor) if row.target else None,
            }
        )
    return rows


def settings_context(owned: frozenset[str] | None, *, saved: bool) -> JSON:
    """The owned-collections form: every collection with whether it is ticked."""
    return {
        "collections": [
            {"code": code, "name": name, "owned": owned is None or code in owned}
            for code, name in COLLECTIONS.items()
        ],
        "everything": owned is None,
        "saved": saved,
    }
