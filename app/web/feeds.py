"""`/changes.atom`: what changed, as an Atom feed (RFC 4287) for feed readers and forum bots.

One feed entry per upstream revision, newest first, built from the same `ChangesPage` view as
/changes. Written with ElementTree, which escapes every text and attribute; every link is
absolute (a feed is read away from the site). No web framework here.
"""

from __future__ import annotations

import html
from collections.abc import Callable
from xml.etree import ElementTree

from app.urls import Urls
from app.web.views import ChangedEntry, ChangesPage, RevisionChanges

__all__ = ["ATOM", "changes_feed"]

ATOM = "http://www.w3.org/2005/Atom"
#: Entries listed per kind in one feed entry before "…and N more".
_LISTED = 15


def _stamp(date: str) -> str:
    """An RFC 3339 date-time for a day (revisions carry their date only)."""
    return f"{date}T00:00:00Z"


def _items(title: str, items: list[ChangedEntry], absolute: Callable[[str], str]) -> str:
    if not items:
        return ""
    shown = "".join(
        f'<li><a href="{html.escape(absolute(i.url))}">{html.escape(i.title)}</a> '
        f"({html.escape(i.size)})</li>" for i in items[:_LISTED])
    more = f"<li>외 {len(items) - _LISTED}개</li>" if len(items) > _LISTED else ""
    return f"<h3>{html.escape(title)} {len(items)}</h3><ul>{shown}{more}</ul>"


def _title(section: RevisionChanges) -> str:
    """The feed entry's title: the date and what changed, counted."""
    counts: list[str] = []
    new = sum(len(s.new) for s in section.sources)
    rewritten = sum(len(s.rewritten) for s in section.sources)
    removed = sum(len(s.removed) for s in section.sources)
    first = sum(s.entries for s in section.sources if s.first)
    if first:
        counts.append(f"첫 판 {first}개 항목")
    if new:
        counts.append(f"새 항목 {new}")
    if rewritten:
        counts.append(f"수정 {rewritten}")
    if removed:
        counts.append(f"삭제 {removed}")
    return f"{section.revision.date} 규칙 변경: {', '.join(counts) or '서식만 바뀜'}"


def changes_feed(page: ChangesPage, urls: Urls, base: str) -> bytes:
    """The Atom document for `page` (its revisions, newest first)."""
    def absolute(path: str) -> str:
        return urls.absolute(path, base)

    ElementTree.register_namespace("", ATOM)

    def add(parent: ElementTree.Element, tag: str, text: str | None = None,
            **attrs: str) -> ElementTree.Element:
        element = ElementTree.SubElement(parent, f"{{{ATOM}}}{tag}", attrs)
        if text is not None:
            element.text = text
        return element

    feed = ElementTree.Element(f"{{{ATOM}}}feed", {"xml:lang": "ko"})
    add(feed, "id", absolute(page.all_url))
    add(feed, "title", "룰사전 규칙 변경 내역")
    add(feed, "subtitle", "아컴호러 카드게임 규칙 문서의 새 항목과 바뀐 항목")
    add(feed, "updated", _stamp(page.newest or "1970-01-01"))
    add(feed, "link", rel="self", type="application/atom+xml", href=absolute(page.feed_url))
    add(feed, "link", rel="alternate", type="text/html", href=absolute(page.all_url))
    author = add(feed, "author")
    add(author, "name", "룰사전")
    add(feed, "generator", "룰사전")
    for section in page.revisions:
        if section.revision.baseline:
            continue  # where a history begins is no news
        link = absolute(section.revision.url)
        entry = add(feed, "entry")
        add(entry, "id", link)
        add(entry, "title", _title(section))
        add(entry, "updated", _stamp(section.revision.date))
        add(entry, "link", rel="alternate", type="text/html", href=link)
        parts: list[str] = []
        if section.revision.subject:
            parts.append(f"<p>{html.escape(section.revision.subject)}</p>")
        for source in section.sources:
            parts.append(f"<h2>{html.escape(source.source_title)}</h2>")
            if source.first:
                parts.append(f"<p>첫 판: {source.entries}개 항목</p>")
            parts.append(_items("새 항목", source.new, absolute))
            parts.append(_items("바뀐 항목", source.rewritten, absolute))
            parts.append(_items("삭제된 항목", source.removed, absolute))
            parts.append(_items("아이디가 바뀐 항목", source.renamed, absolute))
            if source.nothing:
                parts.append("<p>제목과 본문은 그대로입니다 (서식만 바뀜).</p>")
        add(entry, "content", "".join(parts), type="html")
    body: bytes = ElementTree.tostring(feed, encoding="utf-8", xml_declaration=False)
    return b'<?xml version="1.0" encoding="utf-8"?>\n' + body + b"\n"
