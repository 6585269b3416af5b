"""Parser for the blog transcription of the AHLCG learn-to-play rulebook.

The file's shape (see data/ahlcg-learn-to-play.txt):
- Header lines (blog title, epigraph, URL, another post's title) precede the first `---`;
  they are not rules and are skipped.
- `---` lines separate sections. A section's first non-blank line is its chapter title
  (level 1 entry, titled as printed: `라운드 순서`, `조사 단계`, …).
- Every line of prose is its own paragraph (the blog wrote one sentence per `<p>`), and
  blank lines sit between all lines. A line holding only a non-breaking space is a *gap*:
  the blog's visual separator between groups. Gaps matter for three rules below.

Inside a section, each line is one of:
- a heading: short (≤ 22 characters), not closing a sentence (`?` is allowed: `신화 단계
  다음에는?`), not a list/Q/A line, not stopping on a particle, and followed by more text;
  headings become level-2 entries. Two kinds nest one level deeper (level 3) under the
  current level-2 heading: a heading whose title recurs in the file (a recurring box such
  as `전략 조언`) and an ordinal heading (`첫 번째 방법`, `두 번째 방법`);
- a list run: after a line ending in `:` or `다음과 같습니다.`, the following short lines
  that do not close a sentence (`카드 1장 뽑기`, `자원 1개 획득하기`, …) are bullet items,
  until a gap, a sentence or a marked line;
- `- ` lines: bullet items; a following line with no gap in between continues the item;
- `N. ` lines: ordered items. A step whose explanation follows it directly (no gap) is
  "open": it keeps every following paragraph (gaps included) until the next step, a
  heading or the section's end, so the explanation stays with its step (적 단계, 신화
  단계). A step followed by a gap is closed by it (라운드 순서, 정리 단계 4);
- `Q:` / `A:` lines stay paragraphs with a bold label; `>>(행동 격발)` is the blog's
  spelling of the action icon and becomes the `[action]` token.

Ids are `ahr-<slug(title)>` (see `_text.assign_ids`); `location` is the heading's line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from app.corpus.models import GameSpec, RawEntry, SourceSpec
from app.corpus.parsers._text import (
    Block,
    Item,
    Node,
    Para,
    clean,
    ends_on_particle,
    ends_sentence,
    inline,
    to_entries,
)
from app.errors import DataError

_SEPARATOR = "---"
_HEADING_MAX = 22
_LIST_ITEM_MAX = 60
_NUMBERED = re.compile(r"^(\d+)\.\s+(.*)$")
_ORDINAL = re.compile(r"^\S+\s번째\b")
_QA = re.compile(r"^([QA])\s*:\s*(.*)$")
_ACTION = re.compile(r"\\>\\>\(행동 격발\)\s*")


@dataclass(frozen=True)
class _Line:
    """A non-blank line of a section: its text, 1-based file line, and a gap before it."""

    text: str
    number: int
    gap_before: bool


def parse(text: str, spec: SourceSpec, game: GameSpec | None = None) -> list[RawEntry]:
    """The chapters and their headings, in reading order."""
    sections = _sections(text, spec)
    titles = [clean(line.text) for sec in sections for line in sec]
    counts: dict[str, int] = {}
    for title in titles:
        counts[title] = counts.get(title, 0) + 1
    nodes: list[Node] = []
    for section in sections:
        _parse_section(section, nodes, counts)
    return to_entries(nodes, spec)


def _sections(text: str, spec: SourceSpec) -> list[list[_Line]]:
    """Non-blank lines of each `---` section (the header before the first `---` dropped)."""
    if not text.strip():
        raise DataError(spec.file, "", "the file is empty")
    raw = text.splitlines()
    if not any(line.strip() == _SEPARATOR for line in raw):
        raise DataError(spec.file, "", "no '---' section separators found")
    sections: list[list[_Line]] = []
    current: list[_Line] | None = None
    gap = False
    for number, line in enumerate(raw, start=1):
        if line.strip() == _SEPARATOR:
            current = []
            sections.append(current)
            gap = False
            continue
        if current is None:
            continue  # header lines
        if not line.strip(" \t\r"):
            continue  # plain blank lines separate every line in the blog: no meaning
        if not clean(line):
            gap = True  # a line holding only a non-breaking space
            continue
        current.append(_Line(clean(line), number, gap))
        gap = False
    sections = [s for s in sections if s]
    if not sections:
        raise DataError(spec.file, "", "no section has any text")
    return sections


def _is_heading(lines: list[_Line], i: int) -> bool:
    """Line shape of a heading (see the module docstring), judged with the next line."""
    text = lines[i].text
    if i + 1 >= len(lines) or len(text) > _HEADING_MAX:
        return False
    if text.startswith(("-", "(", "\"", "“", "'", "\\", ">")) or _NUMBERED.match(text):
        return False
    if _QA.match(text) or ":" in text:
        return False
    if text.endswith("?"):
        return True
    return not ends_sentence(text) and not ends_on_particle(text)


def _is_list_intro(text: str) -> bool:
    return text.endswith(":") or text.endswith("다음과 같습니다.")


def _markup(text: str) -> str:
    qa = _QA.match(text)
    if qa:
        return f"<b>{qa[1]}:</b> " + _ACTION.sub("[action] ", inline(qa[2]))
    return _ACTION.sub("[action] ", inline(text))


def _parse_section(lines: list[_Line], nodes: list[Node], counts: dict[str, int]) -> None:
    chapter = len(nodes)
    nodes.append(Node(lines[0].text, None, lines[0].number, 1))
    current = nodes[chapter]
    level2: int | None = None  # the current level-2 heading, parent of boxes
    blocks: list[Block] = current.blocks
    # Open list state: the item that takes continuation lines, whether it is an open step,
    # and the list run in progress (None when not in one, else the number of items so far).
    last_item: Item | None = None
    open_step = False
    run: int | None = None
    for i in range(1, len(lines)):
        line = lines[i]
        text = line.text
        # In a list run every short line is an item, not a heading, until a gap.
        in_run = run is not None and (run == 0 or not line.gap_before)
        if not in_run and _is_heading(lines, i):
            boxed = counts.get(text, 0) > 1 or bool(_ORDINAL.match(text))
            parent = level2 if boxed and level2 is not None else chapter
            nodes.append(Node(text, parent, line.number, nodes[parent].level + 1))
            if parent == chapter:
                level2 = len(nodes) - 1
            blocks = nodes[-1].blocks
            last_item, open_step, run = None, False, None
            continue
        numbered = _NUMBERED.match(text)
        if numbered:
            item = Item("ol", [_markup(numbered[2])], number=int(numbered[1]))
            blocks.append(item)
            nxt = lines[i + 1] if i + 1 < len(lines) else None
            # A step is open when its explanation follows with no gap and is not a step.
            open_step = (
                nxt is not None and not nxt.gap_before and not _NUMBERED.match(nxt.text)
            )
            last_item, run = item, None
            continue
        if text.startswith("- "):
            item = Item("ul", [_markup(text[2:].strip())])
            blocks.append(item)
            last_item, open_step, run = item, False, None
            continue
        if in_run and run is not None and len(text) <= _LIST_ITEM_MAX and not ends_sentence(text):
            blocks.append(Item("ul", [_markup(text)]))
            run += 1
            continue
        run = None
        if last_item is not None and (open_step or not line.gap_before):
            # Continuation: a step's explanation, or text right under a bullet.
            last_item.paras.append(_markup(text))
        else:
            last_item, open_step = None, False
            blocks.append(Para(_markup(text)))
        if _is_list_intro(text) and last_item is None:
            run = 0
