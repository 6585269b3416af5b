"""Timing tables: render their cells and link every row to the entry that explains it.

A row is matched, in this order, by general rules rather than a list of rows:
1. a step number (`2.2.1 …`) → the nearest entry whose body has that step's anchor;
2. a step label (`3단계. …`, `ST.4 …`) → a child of the table entry whose title starts with the
   same label (translations keep the label when the words change);
3. text the table's parent explains (`플레이어의 행동 기회`, defined in the appendix intro): the
   paragraph that first names it gets an anchor (`explain-플레이어의_행동_기회`), and the row
   points there rather than at the top of a long page;
4. the longest entry title contained in the row (`I. 신화 단계 (…)`, `조사 단계를 진행합니다.`),
   ignoring numbering, nearest in the tree first, real entries before "see X" pointers.
"""

from __future__ import annotations

import dataclasses
import re

from app.corpus.models import Corpus, Entry, RawTableRow, TableRowView
from app.corpus.normalize import compact
from app.render.markup import LinkTarget, render_inline
from app.urls import Urls

_STEP_NUMBER = re.compile(r"^\s*(\d+(?:\.\d+)+)")
_STEP_LABEL = re.compile(r"^\s*(\d+단계|[A-Z]{1,3}\.\d+)(?!\d)")
# Leading "I.", "IV.", "1.", "(1.1)" numbering and trailing "(…)" remarks are not part of a name.
_NUMBERING = re.compile(r"^\s*(?:\(?[IVX]+\.|\(?\d+(?:\.\d+)*[.)]?)\s*")
_REMARK = re.compile(r"\s*\([^)]*\)\s*$")
_ICON_TOKEN = re.compile(r"\[[a-z_]+\]")


def resolve_table(corpus: Corpus, entry: Entry, rows: tuple[RawTableRow, ...],
                  urls: Urls) -> Entry:
    """`entry` with its table rendered and each row linked; the rows' text joins its plain text."""
    views: list[TableRowView] = []
    texts: list[str] = []
    nearby = _nearby(corpus, entry)
    for row in rows:
        rendered = [render_inline(cell.text, _no_links, corpus.icons, entry.lang)
                    for cell in row.cells]
        plain = " ".join(r.text for r in rendered)
        # Match on the words only: an icon's label ("자유 격발") is not part of the row's name.
        words = _ICON_TOKEN.sub("", " ".join(cell.text for cell in row.cells)).strip()
        target, anchor = _row_target(corpus, entry, words, nearby) if words else (None, None)
        views.append(TableRowView(row.cells, tuple(r.html for r in rendered), target, anchor))
        if plain:
            texts.append(plain)
    text = "\n".join(filter(None, [entry.text, *texts]))
    return dataclasses.replace(entry, table=tuple(views), text=text)


def explain_anchor(phrase: str) -> str:
    """The anchor of the paragraph that explains `phrase` (see `anchor_explanations`)."""
    return "explain-" + "_".join(_ICON_TOKEN.sub("", phrase).split())


def anchor_explanations(entry: Entry, rows: tuple[TableRowView, ...]) -> Entry:
    """`entry` with an id on the first paragraph naming each phrase its rows point at with an
    `explain-…` anchor (rows whose target is this entry); unmatched anchors are dropped."""
    html = entry.html
    anchors = dict(entry.anchors)
    for row in rows:
        if row.target != entry.id or not row.anchor or not row.anchor.startswith("explain-"):
            continue
        if row.anchor in anchors.values():
            continue
        phrase = compact(row.anchor.removeprefix("explain-").replace("_", " "))
        place = _line_naming(html, phrase)
        if place is not None:
            span = f'<span class="explained" id="{row.anchor}"></span>'
            html = html[:place] + span + html[place:]
            anchors[row.anchor.removeprefix("explain-")] = row.anchor
    return dataclasses.replace(entry, html=html, anchors=anchors)


def _line_naming(html: str, phrase: str) -> int | None:
    """Where in `html` the first line (a paragraph, or a <br>-separated line of one) that
    names `phrase` (compact) starts."""
    for match in _PARAGRAPH.finditer(html):
        body = match.group(1)
        breaks = list(_LINE_BREAK.finditer(body))
        starts = [0, *(b.end() for b in breaks)]
        ends = [*(b.start() for b in breaks), len(body)]
        for start, end in zip(starts, ends, strict=True):
            if phrase in compact(_TAG.sub("", body[start:end])):
                return match.start(1) + start
    return None


_PARAGRAPH = re.compile(r"<p>(.*?)</p>", re.DOTALL)
_LINE_BREAK = re.compile(r"<br\s*/?>\n?")
_TAG = re.compile(r"<[^>]+>")


def _no_links(href: str) -> LinkTarget | None:
    return None


def _nearby(corpus: Corpus, table: Entry) -> list[tuple[Entry, str]]:
    """The table's source's other entries, nearest in the tree first (real entries before
    "see X" pointers), each with its title as rule 4 compares it: made once per table."""
    nearby = sorted(
        (e for e in corpus if e.source == table.source and e.id != table.id),
        key=lambda e: (_distance(corpus, table, e), e.placeholder, e.order),
    )
    return [(e, compact(_REMARK.sub("", _NUMBERING.sub("", e.title)))) for e in nearby]


def _row_target(corpus: Corpus, table: Entry, text: str,
                nearby: list[tuple[Entry, str]]) -> tuple[str | None, str | None]:
    number = _STEP_NUMBER.match(text)
    if number:
        for candidate, _ in nearby:
            if number[1] in candidate.anchors:
                return candidate.id, candidate.anchors[number[1]]
    label = _STEP_LABEL.match(text)
    if label:
        for child_id in table.children:
            if corpus.entries[child_id].title.startswith(label[1]):
                return child_id, None
    parent = corpus.get(table.parent) if table.parent else None
    wanted = compact(_REMARK.sub("", text))
    if parent is not None and wanted and wanted in compact(parent.text):
        return parent.id, explain_anchor(_REMARK.sub("", text))
    best: tuple[int, Entry] | None = None
    row = compact(text)
    for candidate, name in nearby:
        if len(name) >= 2 and name in row and (best is None or len(name) > best[0]):
            best = (len(name), candidate)
    return (best[1].id, None) if best else (None, None)


def _distance(corpus: Corpus, a: Entry, b: Entry) -> int:
    """Edges between two entries in the tree; entries under different roots are far apart."""
    up_a = [a.id] + [e.id for e in reversed(corpus.path(a))]
    up_b = [b.id] + [e.id for e in reversed(corpus.path(b))]
    common = set(up_a) & set(up_b)
    if not common:
        return 1000 + len(up_a) + len(up_b)
    return next(i for i, x in enumerate(up_a) if x in common) + next(
        i for i, x in enumerate(up_b) if x in common
    )
