"""Parser for the PDF-extracted text of the Eldritch Horror rulebook and reference guide.

`spec.options["part"]` picks the part: `rulebook` (from the first `목차` line) or
`reference` (from the second). The text before the first `목차` is the rulebook's flavour
story: one intro entry titled by its last short line before the prose (`드러나는 음모`).

Structure, all found from the text's shape:
- Chapters (level 1): each part opens with a `목차` listing `N. 제목` lines; the first later
  line equal to each listed line, in order, is that chapter's heading. Numbered steps inside
  chapters (`1. 게임할 공간 만들기`) are therefore never taken for chapters. Chapter titles
  drop the number (`게임 준비`): players cite chapters by name.
- Parts of the reference guide (level 1): its first chapter lists them with dot leaders
  (`자주 묻는 질문 ⬝⬝⬝ 12 페이지`); a standalone line equal to one of those names, inside
  the last chapter, starts that part (자주 묻는 질문, 조사자 능력, 선택 규칙, 빠른 참조).
- The glossary (the chapter whose title has `용어`): each term is a short standalone line,
  and the terms run in 가나다 order. The terms are the longest increasing (by code point,
  which is 가나다 order for Hangul) sequence of term-shaped lines; term-shaped lines off
  that sequence, and a term extended by a particle (`쓰러진 조사자와 관련된 …` after
  `쓰러진 조사자`), are sub-headings: bold paragraphs of the term.
- Other headings (level 2): a short line that does not end a sentence, does not stop on a
  particle or connective, and is followed by content. A run of such short lines is a group
  of picture captions (all but the last; the last too when it names a component: `…카드`,
  `…토큰`, `…앞면`, …, unless the next line repeats it), shown in italics, or a bullet list
  when three or more. Numbered lines shaped like headings are step headings and keep their
  number (`8. 신화 카드 더미 구성하기`, `1. 행동 단계`): players cite steps by number. A
  heading ending in `?` or `예시` is a box: a level-3 child of the current level-2 heading.
  A heading equal to the section it is in (the PDF repeats one over a picture) is a caption.
- The FAQ part (any part with `Q.` lines): one child per question, titled by the question
  (cut to 60 characters at a word boundary), holding the answer.
- Bodies (see `_text.Builder`): broken lines joined, `➤` bullets, nested `- ` items, `1.`
  ordered items, `A.` lettered items (a bullet with a bold letter), `관련된 주제:` lines as
  title links (the label normalised to `관련된 주제`), `(N페이지 "제목" 참조)` linked.

Ids: `{id_prefix}-{slug(title)}`, parent-qualified when a title repeats (`_text.assign_ids`).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise

from app.corpus.models import GameSpec, RawEntry, SourceSpec
from app.corpus.parsers._markup import escape_md, title_link
from app.corpus.parsers._text import (
    Builder,
    Node,
    clean,
    ends_on_particle,
    ends_sentence,
    mend_split_words,
    related_line,
    to_entries,
)
from app.errors import DataError

_TOC = "목차"
_SHORT = 24
_FAQ_TITLE_MAX = 60
_NUM = re.compile(r"^(\d+)\.\s*(.*)$")
_LETTER = re.compile(r"^([A-Z])\.\s+(.*)$")
_BULLET = re.compile(r"^➤\s*(.*)$")
_SUB = re.compile(r"^-\s+(.*)$")
_DOTS = re.compile(r"^(.+?)\s*⬝{2,}\s*(.*)$")
_RELATED = re.compile(r"관련된\s*(?:주제|정보|행동)\s*:\s*")
_STAGE = re.compile(r"^\d+단계\s*:")
_QUESTION = re.compile(r"^Q\.\s*(.*)$")
_ANSWER = re.compile(r"^A\.\s*(.*)$")
# Words that name a game component: a short line ending with one captions a picture.
_COMPONENT = re.compile(r"(?:카드|토큰|말|티켓|앞면|뒷면|아이콘|그림|수치|시트)$")
# Sentence openers: a short line starting with one is prose, never a heading.
_PROSE_START = re.compile(r"^(?:그런|그리고|그러나|따라서|하지만|또한|예를|단,|즉,|그 )")
_RELATED_LABEL = "관련된 주제"
_SENTENCE_INSIDE = re.compile(r"[다요][.!?](?=.)")


@dataclass(frozen=True)
class _Line:
    n: int  # 1-based line in the file
    text: str


@functools.lru_cache(maxsize=2)
def _lines(text: str) -> tuple[_Line, ...]:
    """The file's non-empty lines, cleaned and mended: one file holds both parts (the
    rulebook and the reference guide), so the second part's parse reuses the first's."""
    mended = mend_split_words([clean(raw) for raw in text.splitlines()])
    return tuple(_Line(i, line) for i, line in enumerate(mended, start=1) if line)


def parse(text: str, spec: SourceSpec, game: GameSpec | None = None) -> list[RawEntry]:
    """The chosen part's entries, in reading order."""
    lines = _lines(text)
    if not lines:
        raise DataError(spec.file, "", "the file is empty")
    tocs = [k for k, line in enumerate(lines) if line.text == _TOC]
    if not tocs:
        raise DataError(spec.file, "", f"no '{_TOC}' (table of contents) line found")
    part = spec.options.get("part", "rulebook")
    index = {"rulebook": 0, "reference": 1}.get(part)
    if index is None:
        raise DataError(spec.file, "", f"unknown part {part!r} (use 'rulebook' or 'reference')")
    if index >= len(tocs):
        raise DataError(spec.file, "", f"no '{_TOC}' line starts the {part} part")
    begin = tocs[index]
    end = tocs[index + 1] if index + 1 < len(tocs) else len(lines)
    nodes: list[Node] = []
    if index == 0 and begin > 0:
        _intro(lines[:begin], nodes)
    standalone = {line.text for line in lines[begin:end]}
    for title, seg in _chapters(lines, begin, end, spec):
        if "용어" in title:
            _glossary(title, seg, nodes, standalone)
        elif any(_QUESTION.match(line.text) for line in seg):
            _faq(title, seg, nodes)
        else:
            _section(title, seg, nodes, standalone)
    return to_entries(nodes, spec)


def _chapters(
    lines: Sequence[_Line], begin: int, end: int, spec: SourceSpec
) -> list[tuple[str, list[_Line]]]:
    """(title, lines from the heading on) for each chapter of the TOC, then each part."""
    toc: list[str] = []
    k = begin + 1
    while k < end and _NUM.match(lines[k].text) and lines[k].text not in toc:
        toc.append(lines[k].text)
        k += 1
    if not toc:
        raise DataError(spec.file, f"line {lines[begin].n}", "the table of contents is empty")
    starts: list[int] = []
    for entry in toc:
        found = next((j for j in range(k, end) if lines[j].text == entry), None)
        if found is None:
            raise DataError(spec.file, f"line {lines[begin].n}", f"chapter {entry!r} not found")
        starts.append(found)
        k = found + 1
    # Parts: dot-leader names listed before the last chapter, found standalone inside it.
    names = {
        m[1].strip()
        for line in lines[starts[0]:starts[-1]]
        if (m := _DOTS.match(line.text))
    }
    for j in range(starts[-1] + 1, end):
        if lines[j].text in names:
            starts.append(j)
            names.discard(lines[j].text)
    out: list[tuple[str, list[_Line]]] = []
    for i, start in enumerate(starts):
        stop = starts[i + 1] if i + 1 < len(starts) else end
        num = _NUM.match(lines[start].text)
        title = num[2].strip() if num and i < len(toc) else lines[start].text
        out.append((title, list(lines[start:stop])))
    return out


# ---------------------------------------------------------------------------------------
# Line shapes
# ---------------------------------------------------------------------------------------


def _listish(text: str) -> bool:
    """A short line that does not end a sentence nor stop mid-phrase: heading or caption."""
    if len(text) > _SHORT or "⬝" in text or _RELATED.search(text):
        return False
    if _BULLET.match(text) or _SUB.match(text) or _NUM.match(text):
        return False
    if text.count("(") != text.count(")"):
        return False  # cut where an icon was printed: `대개 의지(`
    if _SENTENCE_INSIDE.search(text):
        return False  # `가져와서(… 있습니다.)`: holds a sentence, so it is prose
    if ends_on_particle(text, strict=True) or _PROSE_START.match(text):
        return False
    return text.endswith(("?", "!")) or not ends_sentence(text)


def _heading_shaped(text: str) -> bool:
    if not _listish(text) or text.startswith(("\"", "“", "'", "‘", "(")):
        return False
    return ":" not in text or bool(_STAGE.match(text))


def _wrapped(lines: Sequence[_Line], k: int) -> bool:
    """The line continues a list the previous line left open with a comma."""
    return k > 0 and lines[k - 1].text.endswith(",")


def _is_box(title: str) -> bool:
    return title.endswith("?") or title.endswith("예시")


# ---------------------------------------------------------------------------------------
# Bodies
# ---------------------------------------------------------------------------------------


def _feed(builder: Builder, lines: Sequence[_Line], standalone: set[str]) -> None:
    """Classify each body line and hand it to the builder."""
    i = 0
    while i < len(lines):
        text = lines[i].text
        i += 1
        related = _RELATED.search(text)
        if related and related.start() == 0:
            names = text[related.end():]
            while names.rstrip().endswith(",") and i < len(lines):
                names += " " + lines[i].text
                i += 1
            builder.markup(related_line(_RELATED_LABEL, names.split(",")))
            continue
        if m := _BULLET.match(text):
            builder.item_line("ul", m[1])
        elif m := _SUB.match(text):
            builder.sub_line(m[1])
        elif m := _NUM.match(text):
            builder.item_line("ol", m[2], number=int(m[1]))
        elif (m := _LETTER.match(text)) and (
            m[1] == "A" or (builder.letter and ord(m[1]) == ord(builder.letter) + 1)
        ):
            builder.letter = m[1]
            builder.item_line("ul", m[2], marker=f"{m[1]}.")
        elif m := _DOTS.match(text):
            name, page = m[1].strip(), m[2].strip()
            label = title_link(name, name) if name in standalone else f"<b>{escape_md(name)}</b>"
            builder.item_line("ul", f"{label} ({escape_md(page)})" if page else label, markup=True)
        else:
            builder.text(text)


def _run_roles(lines: Sequence[_Line], headings: bool) -> dict[int, str]:
    """Roles of short-line runs: `heading`, `caption` or `list` (see the module docstring)."""
    roles: dict[int, str] = {}
    i = 0
    while i < len(lines):
        if not _listish(lines[i].text) or _wrapped(lines, i):
            num = _NUM.match(lines[i].text)
            step = headings and num and ":" not in num[2] and _heading_shaped(num[2])
            if step and i + 1 < len(lines):
                roles[i] = "heading"
            i += 1
            continue
        j = i
        while j + 1 < len(lines) and _listish(lines[j + 1].text) and not _wrapped(lines, j + 1):
            j += 1
        last = lines[j].text
        nxt = lines[j + 1].text if j + 1 < len(lines) else None
        repeated = nxt is not None and nxt.startswith(last)
        is_heading = (
            headings and nxt is not None and _heading_shaped(last)
            and (not _COMPONENT.search(last) or repeated)
        )
        members = range(i, j if is_heading else j + 1)
        for k in members:
            roles[k] = "list" if len(members) >= 3 else "caption"
        if is_heading:
            roles[j] = "heading"
        i = j + 1
    return roles


def _fill(node: Node, lines: Sequence[_Line], roles: dict[int, str], offset: int,
          standalone: set[str]) -> None:
    """Build `node`'s body from `lines` (indices offset into `roles`), honouring roles."""
    builder = Builder()
    pending: list[_Line] = []
    group: list[str] = []

    def flush() -> None:
        _feed(builder, pending, standalone)
        pending.clear()

    for k, line in enumerate(lines):
        role = roles.get(k + offset)
        if role != "list" and group:
            builder.plain_list(group)
            group.clear()
        if role == "caption" and _COMPONENT.search(line.text):
            continue  # names a component in a picture the page does not have: nothing to say
        if role == "caption" or role == "bold" or role == "list":
            flush()
            if role == "caption":
                builder.caption(line.text)
            elif role == "bold":
                builder.bold(line.text)
            else:
                group.append(line.text)
        else:
            pending.append(line)
    flush()
    if group:
        builder.plain_list(group)
    node.blocks = builder.blocks()


def _section(title: str, seg: list[_Line], nodes: list[Node], standalone: set[str]) -> None:
    """A chapter or part: level-2 headings, boxes at level 3, the rest as bodies."""
    chapter = len(nodes)
    nodes.append(Node(title, None, seg[0].n, 1))
    body = seg[1:]
    roles = _run_roles(body, headings=True)
    level2: int | None = None
    # `1단계: 행동 단계` owns the sections that follow it, up to the next stage; after the
    # last stage, up to the first heading that repeats an earlier one (the page's side boxes
    # restate step names), which returns to the chapter's level.
    stage: int | None = None
    seen: set[str] = set()
    current, start = chapter, 0
    for k in range(len(body) + 1):
        if k < len(body) and roles.get(k) != "heading":
            continue
        _fill(nodes[current], body[start:k], roles, start, standalone)
        if k == len(body):
            break
        text = body[k].text
        if text == nodes[current].title:
            roles[k] = "caption"  # the PDF repeats a heading over its picture
            continue
        if _STAGE.match(text):
            owner = chapter
        elif stage is not None and text not in seen:
            owner = stage
        else:
            owner, stage = chapter, None
        seen.add(text)
        parent = level2 if _is_box(text) and level2 is not None else owner
        nodes.append(Node(text, parent, body[k].n, nodes[parent].level + 1))
        current, start = len(nodes) - 1, k + 1
        if _STAGE.match(text):
            stage = current
        if parent in (chapter, stage):
            level2 = current


def _increasing(keys: Sequence[str]) -> list[int]:
    """Indices of a longest strictly increasing subsequence of `keys` (first one found)."""
    best: list[list[int]] = []
    for i, key in enumerate(keys):
        chain = max((c for c in best if keys[c[-1]] < key), key=len, default=[])
        best.append([*chain, i])
    return max(best, key=len, default=[])


def _glossary(title: str, seg: list[_Line], nodes: list[Node], standalone: set[str]) -> None:
    """The glossary chapter: one child per term (see the module docstring)."""
    chapter = len(nodes)
    nodes.append(Node(title, None, seg[0].n, 1))
    body = seg[1:]
    cands = [
        k for k in range(len(body) - 1)
        if _heading_shaped(body[k].text) and not _is_box(body[k].text) and not _wrapped(body, k)
    ]
    chosen = [cands[i] for i in _increasing([body[k].text for k in cands])]
    terms: list[int] = []
    for k in chosen:
        prev = body[terms[-1]].text if terms else None
        if prev and re.match(re.escape(prev) + r"[와과의]\s", body[k].text):
            continue  # `쓰러진 조사자와 관련된 나머지 규칙들`: a sub-heading of the term
        terms.append(k)
    roles = {k: "bold" for k in cands if k not in terms}
    bounds = [*terms, len(body)]
    _fill(nodes[chapter], body[: bounds[0]], roles, 0, standalone)
    for a, b in pairwise(bounds):
        nodes.append(Node(body[a].text, chapter, body[a].n, 2))
        _fill(nodes[-1], body[a + 1 : b], roles, a + 1, standalone)


def _faq(title: str, seg: list[_Line], nodes: list[Node]) -> None:
    """Q./A. pairs: one child per question, the answer as its body."""
    part = len(nodes)
    nodes.append(Node(title, None, seg[0].n, 1))
    body = seg[1:]
    starts = [k for k, line in enumerate(body) if _QUESTION.match(line.text)]
    _fill(nodes[part], body[: starts[0]], {}, 0, set())
    for a, b in pairwise([*starts, len(body)]):
        block = body[a:b]
        answer = next((k for k, line in enumerate(block) if _ANSWER.match(line.text)), len(block))
        question = " ".join(line.text for line in block[:answer])
        q = _QUESTION.match(question)
        nodes.append(Node(_shorten(q[1] if q else question), part, block[0].n, 2))
        lines = list(block[answer:])
        if lines:
            a_match = _ANSWER.match(lines[0].text)
            lines[0] = _Line(lines[0].n, a_match[1] if a_match else lines[0].text)
        _fill(nodes[-1], lines, {}, 0, set())


def _shorten(text: str) -> str:
    if len(text) <= _FAQ_TITLE_MAX:
        return text
    cut = text[: _FAQ_TITLE_MAX - 1].rsplit(" ", 1)[0]
    return cut.rstrip(" ,") + "…"


def _intro(lines: Sequence[_Line], nodes: list[Node]) -> None:
    """The flavour text before the rulebook's TOC, titled by the line before the story.

    The story starts at its first line that ends a sentence; the short line just before it
    is the story's title (`드러나는 음모`) and the lines above that (tagline, game name) are
    kept as italic lines.
    """
    first = next((k for k, line in enumerate(lines) if ends_sentence(line.text)), 0)
    head = max(first - 1, 0)
    node = Node(lines[head].text, None, lines[head].n, 1)
    nodes.append(node)
    builder = Builder()
    for line in lines[:head]:
        builder.caption(line.text)
    _feed(builder, lines[head + 1 :], set())
    node.blocks = builder.blocks()
