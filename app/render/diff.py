"""Word-level (어절) differences between two versions of a rule, as safe HTML and as counts.

Korean text is compared by 어절, the space-separated units a reader sees, never by character
(a character diff of Hangul marks fragments of syllable blocks and reads as noise). Python's
`difflib.SequenceMatcher` finds the longest matching runs; what it reports is rendered with
`<del>` and `<ins>`, which strike through and underline without relying on colour, and long
unchanged stretches fold to "…" so a one-word fix does not hide in a page of text. When most
of the text is new, the two versions are shown one after the other instead of interleaved.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher

__all__ = ["REWRITE_BELOW", "WordDiff", "change_size", "count_words", "plain_html", "tokens",
           "word_diff"]

#: Below this share of words in common, a change is a rewrite: old and new are shown whole,
#: one after the other, rather than as a patchwork of marks.
REWRITE_BELOW = 0.4
#: Unchanged words kept on each side of a change; a longer unchanged run folds to "…".
CONTEXT = 12

_TOKEN = re.compile(r"\n|[^\s]+")


def tokens(text: str) -> list[str]:
    """The 어절 of `text`, with line breaks kept as tokens of their own ("\\n")."""
    found = _TOKEN.findall(text)
    # A paragraph break and a line break read alike in a diff: at most one "\n" in a row.
    return [t for i, t in enumerate(found) if t != "\n" or (i and found[i - 1] != "\n")]


def count_words(text: str) -> int:
    """How many 어절 `text` has."""
    return len(text.split())


@dataclass(frozen=True)
class WordDiff:
    """One change, rendered: `html` is safe to paste into a page."""

    html: str
    added: int
    removed: int
    #: The share of words the versions have in common (0–1).
    similarity: float
    #: Old and new are shown whole (most of the text changed).
    rewrite: bool


def _matcher(old: list[str], new: list[str]) -> SequenceMatcher[str]:
    # autojunk off: in rules text the frequent words (카드, 조사자) are content, not noise.
    return SequenceMatcher(None, old, new, autojunk=False)


def _words(parts: list[str]) -> str:
    """Tokens as HTML: words joined by spaces, line breaks as `<br>`."""
    out: list[str] = []
    for part in parts:
        if part == "\n":
            out.append("<br>")
        else:
            if out and not out[-1].endswith("<br>"):
                out.append(" ")
            out.append(html.escape(part, quote=False))
    return "".join(out)


def _fold(parts: list[str], *, first: bool, last: bool) -> str:
    """An unchanged run, with at most `CONTEXT` words shown on a side that touches a change."""
    keep_head = 0 if first else CONTEXT
    keep_tail = 0 if last else CONTEXT
    if len(parts) <= keep_head + keep_tail + 3:
        return _words(parts)
    head, tail = parts[:keep_head], parts[len(parts) - keep_tail:] if keep_tail else []
    hidden = len(parts) - len(head) - len(tail)
    gap = f'<span class="diff-gap">… {hidden}어절 같음 …</span>'
    return " ".join(p for p in (_words(head), gap, _words(tail)) if p)


def word_diff(old: str, new: str) -> WordDiff:
    """The change from `old` to `new`, word by word."""
    a, b = tokens(old), tokens(new)
    matcher = _matcher(a, b)
    ops = matcher.get_opcodes()
    added, removed = _sizes(a, b, ops)
    similarity = matcher.ratio() if a or b else 1.0
    if a and b and similarity < REWRITE_BELOW:
        body = (f'<del class="diff-block"><span class="diff-label">이전</span> {_words(a)}</del>'
                f'<ins class="diff-block"><span class="diff-label">이후</span> {_words(b)}</ins>')
        return WordDiff(body, added, removed, similarity, rewrite=True)
    parts: list[str] = []
    for n, (tag, i1, i2, j1, j2) in enumerate(ops):
        if tag == "equal":
            parts.append(_fold(a[i1:i2], first=n == 0, last=n == len(ops) - 1))
            continue
        if i2 > i1:
            parts.append(f"<del>{_words(a[i1:i2])}</del>")
        if j2 > j1:
            parts.append(f"<ins>{_words(b[j1:j2])}</ins>")
    body = " ".join(p for p in parts if p).replace("<br> ", "<br>").replace(" <br>", "<br>")
    return WordDiff(body, added, removed, similarity, rewrite=False)


def _sizes(a: list[str], b: list[str],
           ops: Sequence[tuple[str, int, int, int, int]]) -> tuple[int, int]:
    """Words added and removed (line breaks are not words)."""
    added = removed = 0
    for tag, i1, i2, j1, j2 in ops:
        if tag in ("insert", "replace"):
            added += sum(1 for t in b[j1:j2] if t != "\n")
        if tag in ("delete", "replace"):
            removed += sum(1 for t in a[i1:i2] if t != "\n")
    return added, removed


def change_size(old: str, new: str) -> tuple[int, int, float]:
    """(words added, words removed, similarity) from `old` to `new`, without rendering."""
    a, b = tokens(old), tokens(new)
    matcher = _matcher(a, b)
    added, removed = _sizes(a, b, matcher.get_opcodes())
    return added, removed, matcher.ratio() if a or b else 1.0


def plain_html(text: str) -> str:
    """Plain text (a version kept in the history) as HTML: paragraphs at blank lines, line
    breaks inside them, everything escaped."""
    paragraphs = [p.strip() for p in re.split(r"\n\s*\n", text) if p.strip()]
    return "".join("<p>" + "<br>".join(html.escape(line, quote=False)
                                       for line in p.split("\n")) + "</p>" for p in paragraphs)
