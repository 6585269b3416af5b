"""Shared helpers for the plain-text parsers (`learn_to_play`, `eh_pdf`).

Three things live here:
- line shape tests for Korean rules prose (does a line end a sentence? does it stop on a
  particle, so it must continue on the next line?);
- a tiny block model (paragraphs and nested list items) rendered to the project's markup
  dialect, with every piece of prose passed through `escape_md()`;
- the id scheme shared by both parsers (`assign_ids`).
"""

from __future__ import annotations

import itertools
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from app.corpus.models import RawEntry, SourceSpec
from app.corpus.normalize import slugify
from app.corpus.parsers._markup import escape_md, title_link

# Spaces the data uses besides ' ': NBSP (blog), zero-width space (PDF copy-paste).
_ODD_SPACES = re.compile(r"[\u00a0\u200b\ufeff]")


def clean(line: str) -> str:
    """A line with NBSP/zero-width spaces turned into spaces, runs collapsed, ends trimmed."""
    return re.sub(r"\s+", " ", _ODD_SPACES.sub(" ", line)).strip()


# PDF extraction leaves spaces inside words (`차 원문`, `차원 문 토큰`, `16페이 지`) and before
# particles (`이동 을`). A space is removed where the text itself says the word is one: the
# joined form starts words of the text at least `_MEND_SEEN` times, more often than the split
# pair occurs. A lone particle is always the end of the word before it. Nothing is looked up
# outside the file, so a newer or other-language PDF is mended by its own vocabulary.
_MEND_SEEN = 3
_LONE_PARTICLES = frozenset({"을", "를", "은", "는", "의", "에", "와", "과", "으로", "에서",
                             "에게"})
_TAIL = re.compile(r"[가-힣]+$")
_HANGUL_RUN = re.compile(r"[가-힣]+")
_HEAD = re.compile(r"^[가-힣]+")


def mend_split_words(lines: Sequence[str]) -> list[str]:
    """`lines` with the spaces a PDF left inside words taken out (see `_MEND_SEEN`)."""
    # Counted by `Counter.update` from generators: its loop runs in C (0.12 s → 0.05 s of a
    # start on the Eldritch Horror file).
    starts = Counter(word[:end] for line in lines for word in _HANGUL_RUN.findall(line)
                     for end in range(2, min(len(word), 8) + 1))
    pairs = Counter((_tail(left), _head(right)) for line in lines
                    for left, right in itertools.pairwise(line.split(" "))
                    if _TAIL.search(left) and _HEAD.match(right))

    def joins(left: str, right: str) -> bool:
        if not (_TAIL.search(left) and _HEAD.match(right)):
            return False
        first, second = _tail(left), _head(right)
        if right in _LONE_PARTICLES or (second == right and second in _LONE_PARTICLES):
            return True
        joined = first + second
        return starts[joined] >= _MEND_SEEN and pairs[first, second] < starts[joined]

    out: list[str] = []
    for line in lines:
        words = line.split(" ")
        mended = words[:1]
        for word in words[1:]:
            if mended and joins(mended[-1], word):
                mended[-1] += word
            else:
                mended.append(word)
        out.append(" ".join(mended))
    return out


def _tail(word: str) -> str:
    found = _TAIL.search(word)
    return found[0] if found else ""


def _head(word: str) -> str:
    found = _HEAD.match(word)
    return found[0] if found else ""


# ---------------------------------------------------------------------------------------
# Line shape
# ---------------------------------------------------------------------------------------

# Korean declaratives end in `다` (`합니다`, `있다`), often without the period when a PDF
# caption or a blog line drops it; `요` for the polite register. Punctuation ends too.
# `마다`/`보다`/`바다` end on `다` without ending anything (`티켓 마다` + next line).
# A sentence that ended on its verb without the period (`…합니다`): an aside on the next
# line that carries the period continues it.
_BARE_END = re.compile(r"[가-힣]다$")
_TERMINAL = re.compile(r"(?:[.!?。…]|(?<![마보바])다|요)[\"'”’]?$")
# Endings that cannot close a heading: case particles (`…의`, `…에`, `…을/를`, `…는/은`,
# `…가`), a comma, an open bracket or a joiner. A line ending on one was cut mid-sentence
# (`그 신화카드가`, `이때는`). `과`/`와`/`도`/`면` are left out: they also end nouns that
# headings end with (`효과`, `결과`, `앞면`).
_PARTICLE_END = re.compile(r"(?:[의에을를는은가]|[,(·/~\-])$")


def _paren_tail(line: str) -> tuple[str, str] | None:
    """Split `text (aside)` at the last top-level `(` when the line ends with `)`."""
    if not line.endswith(")"):
        return None
    depth = 0
    for i in range(len(line) - 1, -1, -1):
        if line[i] == ")":
            depth += 1
        elif line[i] == "(":
            depth -= 1
            if depth == 0:
                return line[:i].rstrip(), line[i:]
    return None


def ends_sentence(line: str) -> bool:
    """True when `line` closes a sentence (so the next line starts a new paragraph).

    `…합니다.`, `…다`, `?`, `!`, `.` end a sentence; so does a closing `)` when the line is a
    whole parenthetical (`(15페이지 "신화적 괴물" 참조)`) or the text before the aside
    already ended (`가져옵니다. (14페이지 … 참조)`). `가져와서(… 있습니다.)` does not.
    A trailing `:` ends the line (it introduces a list).
    """
    line = line.rstrip()
    if not line:
        return True
    if line.endswith(":"):
        return True
    split = _paren_tail(line)
    if split is not None:
        before, _aside = split
        return not before or ends_sentence(before)
    return bool(_TERMINAL.search(line))


# With `strict`, also the verb connectives and adnominal endings a PDF line can stop on:
# `…에서`/`…해서` (but not the noun `단서`), `…하고`, `…하며`, `…하게`, `…하지`, `…거나`,
# `…만`, `…할`, `…될`, `…되어`, `…마다`. No EH heading ends that way; it is opt-in because the
# blog's headings are not cut lines and the check buys nothing there.
_CONNECTIVE_END = re.compile(
    r"(?:(?<=[에해어아여와워려져])서|[고며게지나만할될]|되어|하여|마다|보다)$"
)


def ends_on_particle(line: str, *, strict: bool = False) -> bool:
    """True when the line stops on a particle, a comma or an open bracket (see above)."""
    line = line.rstrip()
    if _PARTICLE_END.search(line):
        return True
    return strict and bool(_CONNECTIVE_END.search(line))


# ---------------------------------------------------------------------------------------
# Inline markup
# ---------------------------------------------------------------------------------------

# A quoted title followed by `참조`, as in `(14페이지 "체력과 정신력" 참조)`, or after a page
# number, as in `11페이지 "게임 승리"를`. The PDF mixes straight and curly quotes, and once
# drops the closing quote (`"차원문 열림 참조)`), which the `\s+참조` branch accepts.
_REF = re.compile(
    r"[“\"](?P<t1>[^\"“”()\n]{1,30}?)(?:[”\"]\s*(?=참조)|\s+(?=참조\)))"
    r"|\d+\s*페이\s*지\s*[“\"](?P<t2>[^\"“”()\n]{1,30}?)[”\"]"
)
_PRINT_PLACE = re.compile(r"\((?:오른쪽|왼쪽|위쪽|아래쪽|위|아래)(?:의|에 있는)?\s+(?=[“\"])")
_LABEL = re.compile(r"^([^\s:.,()][^:.,()]{0,16}?)\s?:\s+(?=\S)")


def inline(text: str, *, links: bool = True, label: bool = False) -> str:
    """Prose → markup: escaped, page references linked, an optional `라벨:` made bold.

    With `links`, each `"제목"` in a page reference becomes `title_link(제목, 제목)`; the
    quotes and the rest of the reference stay as printed. With `label`, a short leading
    `중요:` / `예:` / `파멸 토큰 전진:` becomes `<b>…:</b>`.
    """
    head = ""
    # `(오른쪽의 "칸과 길이란?" 참조)`: where the box sat on the printed page means nothing
    # here; the reference itself becomes a link below.
    text = _PRINT_PLACE.sub("(", text)
    if label:
        match = _LABEL.match(text)
        if match:
            head = f"<b>{escape_md(match[1])}:</b> "
            text = text[match.end():]
    if not links:
        return head + escape_md(text)
    out: list[str] = []
    pos = 0
    for match in _REF.finditer(text):
        group = "t1" if match["t1"] is not None else "t2"
        title = match[group].strip()
        if not title:
            continue
        start, end = match.start(group), match.end(group)
        out.append(escape_md(text[pos:start]))
        out.append(title_link(title, title))
        pos = end
    out.append(escape_md(text[pos:]))
    return head + "".join(out)


def related_line(label: str, names: Sequence[str]) -> str:
    """`관련된 주제: ` followed by a comma-separated list of title links."""
    links: list[str] = []
    for raw in names:
        name = clean(raw)
        if not name:
            continue
        # `신화 카드 아이콘 (16페이지)`: the page note is shown but is not part of the title.
        target = re.sub(r"\s*\([^)]*\)\s*$", "", name) or name
        link = title_link(target, target)
        links.append(link + escape_md(name[len(target):]) if name != target else link)
    return f"{escape_md(label)}: " + ", ".join(links)


# ---------------------------------------------------------------------------------------
# Blocks
# ---------------------------------------------------------------------------------------

ListKind = Literal["ul", "ol"]


@dataclass
class Item:
    """One list item: its paragraphs (already markup) and nested items."""

    kind: ListKind
    paras: list[str]
    number: int = 1
    children: list[Item] = field(default_factory=list)


@dataclass
class Para:
    """One paragraph of markup."""

    text: str


Block = Item | Para


def render(blocks: Sequence[Block]) -> str:
    """Blocks → Markdown: paragraphs split by blank lines, consecutive items as one list."""
    chunks: list[str] = []
    run: list[Item] = []

    def flush() -> None:
        if run:
            chunks.append("\n".join(_render_items(run, "")))
            run.clear()

    for block in blocks:
        if isinstance(block, Item):
            if run and run[-1].kind != block.kind:
                flush()
            run.append(block)
        else:
            flush()
            if block.text.strip():
                chunks.append(block.text)
    flush()
    return "\n\n".join(chunks)


def _render_items(items: Sequence[Item], indent: str) -> list[str]:
    lines: list[str] = []
    for item in items:
        marker = "- " if item.kind == "ul" else f"{item.number}. "
        pad = indent + " " * len(marker)
        paras = item.paras or [""]
        lines.append(indent + marker + paras[0])
        for para in paras[1:]:
            # A blank line then an indented paragraph: a second paragraph of the same item.
            lines.extend(["", pad + para])
        if item.children:
            groups: list[list[Item]] = []
            for child in item.children:
                if groups and groups[-1][-1].kind == child.kind:
                    groups[-1].append(child)
                else:
                    groups.append([child])
            for group in groups:
                lines.extend(_render_items(group, pad))
    return lines


# ---------------------------------------------------------------------------------------
# Entries and ids
# ---------------------------------------------------------------------------------------


@dataclass
class Node:
    """An entry under construction: title, parent index, source line and body blocks."""

    title: str
    parent: int | None
    line: int
    level: int
    blocks: list[Block] = field(default_factory=list)


def assign_ids(prefix: str, titles: Sequence[str], parents: Sequence[int | None]) -> list[str]:
    """Ids `prefix-slug(title)`, qualified by the parent's slug when a title repeats.

    A repeated id gets the parent's slug (`eh-용어_풀이-테스트`) for every occurrence, so no
    occurrence depends on which came first; what still clashes gets `-2`, `-3` in reading
    order. Nothing depends on line numbers or on unrelated entries.
    """
    base = [f"{prefix}-{slugify(t)}" for t in titles]
    counts = Counter(base)
    qualified: list[str] = []
    for i, candidate in enumerate(base):
        parent = parents[i]
        if counts[candidate] > 1 and parent is not None:
            candidate = f"{prefix}-{slugify(titles[parent])}-{slugify(titles[i])}"
        qualified.append(candidate)
    used: set[str] = set()
    ids: list[str] = []
    for candidate in qualified:
        final, n = candidate, 1
        while final in used:
            n += 1
            final = f"{candidate}-{n}"
        used.add(final)
        ids.append(final)
    return ids


def to_entries(nodes: Sequence[Node], spec: SourceSpec) -> list[RawEntry]:
    """Nodes (parents before children) → `RawEntry` values with ids and rendered bodies."""
    ids = assign_ids(spec.id_prefix or spec.id, [n.title for n in nodes], [n.parent for n in nodes])
    return [
        RawEntry(
            id=ids[i],
            title=node.title,
            parent=None if node.parent is None else ids[node.parent],
            body=render(node.blocks),
            location=f"line {node.line}",
        )
        for i, node in enumerate(nodes)
    ]


# ---------------------------------------------------------------------------------------
# A block builder for text whose lines were broken at the page's column edge
# ---------------------------------------------------------------------------------------

PieceStyle = Literal["text", "caption", "bold", "markup"]


@dataclass
class Piece:
    """A paragraph being assembled: raw text until rendered (`markup` pieces are final)."""

    raw: str
    style: PieceStyle = "text"
    #: The text does not end a sentence: the next prose line continues it.
    open: bool = False


@dataclass
class RawItem:
    """A list item being assembled; `marker` is a printed label such as `A.`."""

    kind: ListKind
    pieces: list[Piece]
    number: int = 1
    marker: str = ""
    children: list[RawItem] = field(default_factory=list)


class Builder:
    """Turns classified lines into blocks, joining lines a PDF broke mid-sentence.

    Rules:
    - a prose line continues the previous paragraph (or item) while that one does not end a
      sentence (`ends_sentence`); an item ending in `:` takes the next line too;
    - after an item, a new sentence becomes another paragraph of that item (lists in the PDF
      carry explanations under their bullets), except in a *noun list*: when an earlier item
      of the list stood alone without ending a sentence (`➤ 괴물 토큰의 뒷면`), the items
      are bare phrases and the next sentence starts after the list;
    - `- ` items nest under the current `➤`/numbered item;
    - captions, bold sub-headings and pre-rendered markup never join with anything.
    """

    def __init__(self) -> None:
        self.out: list[Piece | RawItem] = []
        self.item: RawItem | None = None
        self.sub: RawItem | None = None
        self.noun_list = False
        self.last: Piece | None = None
        #: The letter of the last `A.`-style item, so `B.` is known to continue the series.
        self.letter = ""
        #: The current item came from a `- ` line, so further `- ` lines are its siblings.
        self.dash_top = False

    def _close_list(self) -> None:
        self.item = self.sub = None
        self.noun_list = False

    def _put(self, piece: Piece) -> None:
        target = self.sub or self.item
        if target is not None:
            target.pieces.append(piece)
        else:
            self.out.append(piece)
        self.last = piece

    def text(self, text: str) -> None:
        last = self.last
        if (last is not None and last.style == "text" and text.startswith("(")
                and _BARE_END.search(last.raw)):
            # `…조우를 합니다` / `(괴물 한 마리와 … 전투 조우입니다).`: the PDF put the aside
            # and the sentence's period on the next line; it belongs to the sentence.
            last.raw = f"{last.raw} {text}".strip()
            last.open = not ends_sentence(last.raw)
            return
        if last is not None and last.open and last.style == "text":
            holder = self.sub or self.item
            if holder is not None and self.noun_list and _bare_phrase(last.raw):
                self._close_list()  # a bare-phrase list ended; this is a new sentence
            else:
                last.raw = f"{last.raw} {text}".strip()
                last.open = not ends_sentence(last.raw)
                return
        elif self.item is not None and _LABEL.match(text):
            self._close_list()  # `차원문 열림: …` after a list starts a new definition
        self._put(Piece(text, "text", not ends_sentence(text)))

    def item_line(
        self, kind: ListKind, text: str, *, number: int = 1, marker: str = "", dash: bool = False,
        markup: bool = False,
    ) -> None:
        self.dash_top = dash
        prev = self.item
        if prev is not None and prev.pieces and prev.pieces[-1].open:
            # The previous item stood alone without ending a sentence: a list of phrases.
            self.noun_list = _bare_phrase(prev.pieces[-1].raw)
            prev.pieces[-1].open = False
        elif prev is None:
            self.noun_list = False
        if markup:
            piece = Piece(text, "markup")
        else:
            piece = Piece(text, "text", not text or not ends_sentence(text) or text.endswith(":"))
        item = RawItem(kind, [piece], number, marker)
        self.out.append(item)
        self.item, self.sub, self.last = item, None, piece

    def sub_line(self, text: str) -> None:
        if self.item is None or self.dash_top:
            self.item_line("ul", text, dash=True)
            return
        if self.sub is not None and self.sub.pieces[-1].open:
            self.sub.pieces[-1].open = False
        piece = Piece(text, "text", not ends_sentence(text) or text.endswith(":"))
        self.sub = RawItem("ul", [piece])
        self.item.children.append(self.sub)
        self.last = piece

    def caption(self, text: str) -> None:
        self._put(Piece(text, "caption"))

    def bold(self, text: str) -> None:
        self._close_list()
        self._put(Piece(text, "bold"))

    def markup(self, markup: str) -> None:
        self._close_list()
        self._put(Piece(markup, "markup"))

    def plain_list(self, texts: Sequence[str]) -> None:
        """A run of short lines (a component list, a group of captions) as one bullet list."""
        self._close_list()
        for text in texts:
            self.out.append(RawItem("ul", [Piece(text)]))
        self.last = None

    def blocks(self) -> list[Block]:
        return [
            _finish_item(b) if isinstance(b, RawItem) else Para(_finish_piece(b, first=True))
            for b in self.out
        ]


def _bare_phrase(text: str) -> bool:
    """A non-empty phrase that stops on a noun (not on a particle, `:` or a connective)."""
    return bool(text) and not text.endswith(":") and not ends_on_particle(text, strict=True)


def _finish_piece(piece: Piece, *, first: bool) -> str:
    if piece.style == "markup":
        return piece.raw
    if piece.style == "caption":
        return f"<i>{escape_md(piece.raw)}</i>"
    if piece.style == "bold":
        return f"<b>{escape_md(piece.raw)}</b>"
    return inline(piece.raw, label=first)


def _finish_item(item: RawItem) -> Item:
    paras = [_finish_piece(p, first=i == 0) for i, p in enumerate(item.pieces)]
    if item.marker and paras:
        paras[0] = f"<b>{escape_md(item.marker)}</b> {paras[0]}"
    return Item(item.kind, paras, item.number, [_finish_item(c) for c in item.children])
