"""HTML-safe snippets: a window of an entry's plain text with the matched words marked.

One pattern is compiled per query (`term_pattern`), from only the terms `present_terms` finds
in the page's entries and at most a budgeted number of characters of them: compiling costs
~10 µs per character, and a made-up 200-character query would otherwise cost ~10 ms.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from html import escape

from app.corpus.hangul import is_syllable
from app.search.contract import CONTRACT

__all__ = ["LIST_MARK", "make_snippet", "present_terms", "term_pattern"]

_SIZES = CONTRACT.snippet
_SPACE = re.compile(r"\s+")


def present_terms(terms: Iterable[str], texts: Sequence[str], *, max_chars: int,
                  squashed: bool = False) -> list[str]:
    """The `terms` that may match in one of `texts`, in order, `max_chars` characters in all.

    The test is a substring check on each text without whitespace and case-folded: a term it
    rejects can never match `term_pattern` there, so dropping it changes no snippet. A term
    that would pass `max_chars` is skipped (later, shorter ones may still fit). With
    `squashed`, `texts` are already `squash`ed.
    """
    tested: Sequence[str] | None = texts if squashed else None  # made when first needed
    kept: list[str] = []
    used = 0
    for term in terms:
        if not term or used + len(term) > max_chars:
            continue
        if tested is None:
            tested = [squash(text) for text in texts]
        folded = term.casefold()
        if any(folded in text for text in tested):
            kept.append(term)
            used += len(term)
    return kept


def squash(text: str) -> str:
    """`text` as `present_terms` tests it: no whitespace, case-folded (a searcher keeps each
    document's squashed text, and passes it as `texts` with `squashed=True`)."""
    # str.split() drops exactly what `\s` matches, several times faster than a regex;
    # dotless ı is the one character IGNORECASE matches to a-z that casefold keeps.
    return "".join(text.split()).casefold().replace("ı", "i")


def flatten(text: str) -> str:
    """`text` with every run of whitespace one space and list markers dropped (a snippet is
    a line of prose, not a list with dashes): what `make_snippet` cuts from."""
    return _SPACE.sub(" ", LIST_MARK.sub("", text)).strip()


def _ascii_letters(piece: str) -> str:
    """The contract's word bound with its letter class as ASCII letters of either case, out
    of IGNORECASE's scope: Python folds a case-insensitive class through all of Unicode when
    it compiles it (0.4 ms a query's pattern, which is new for nearly every query; the
    browser's compiler does not). The same letters match, bar two that fold to ASCII (ſ and
    the Kelvin sign, in no data file)."""
    if "[a-z]" not in piece:
        raise ValueError(f"snippet bound without [a-z]: {piece!r}")
    return piece.replace("[a-z]", "(?-i:[A-Za-z])")


_WORD_HEAD = _ascii_letters(_SIZES.word_head)
_WORD_TAIL = _ascii_letters(_SIZES.word_tail)


LIST_MARK = re.compile(r"^[ \t]*(?:[-•➤*]|\d{1,3}[.)])[ \t]+", re.MULTILINE)


def term_pattern(terms: list[str]) -> re.Pattern[str] | None:
    """A case-insensitive regex for `terms`, longest first; Hangul may be split by spaces, and
    a term of ASCII letters is marked from a word's start to its end (`Snippet.word_head`,
    `Snippet.word_tail`)."""
    pieces: list[str] = []
    for term in sorted({t for t in terms if t}, key=len, reverse=True):
        if all(is_syllable(c) for c in term):
            pieces.append(r"\s?".join(re.escape(c) for c in term))
        elif term.isascii() and term.isalpha():
            pieces.append(_WORD_HEAD + re.escape(term) + _WORD_TAIL)
        else:
            pieces.append(re.escape(term))
    if not pieces:
        return None
    return re.compile("|".join(pieces), re.IGNORECASE)


def _window_end(flat: str, start: int) -> int:
    """Where a window of `flat` from `start` ends: `snippet.chars` on, cut at a space."""
    end = min(len(flat), start + _SIZES.chars)
    if end < len(flat):
        space = flat.rfind(" ", start + _SIZES.min_cut, end)
        if space != -1:
            end = space
    return end


def make_snippet(text: str, pattern: re.Pattern[str] | None, *,
                 flattened: bool = False, folded: str | None = None,
                 opening: bool = False) -> str:
    """At most `snippet.chars` characters of `text` from the start of the sentence holding
    the first match (or from the text's opening, with `opening`: a title hit's snippet reads
    the rule from its first sentence when the words are in that window or nothing matches),
    escaped and marked.

    Ellipses show where the window cuts the text. `flattened`: `text` is already `flatten`ed
    (a searcher keeps each document's flat text rather than redoing it per query). `folded`:
    the flat text with accents folded (`scripts.fold_text`, as long), which the pattern of
    folded terms is matched in: `fatalite` marks the text's fatalité.
    """
    flat = text if flattened else flatten(text)
    seen = folded if folded is not None and len(folded) == len(flat) else flat
    first = pattern.search(seen) if pattern is not None else None
    if opening and (first is None or first.start() < _window_end(flat, 0)):
        # A title hit reads from the opening, unless the opening lacks the words: an
        # English title found the entry, and its sentence is in the English original.
        first = None
    start = 0
    if first is not None and first.start() > _SIZES.lead:
        at = first.start()
        reach = max(0, at - _SIZES.sentence_reach)
        ends = [flat.rfind(mark, reach, at + 1) for mark in _SIZES.sentence_ends]
        sentence = max(ends)
        if sentence != -1:
            start = sentence + len(_SIZES.sentence_ends[ends.index(sentence)])
        else:
            start = at - _SIZES.lead
            space = flat.find(" ", start, at)
            if space != -1:
                start = space + 1
    end = _window_end(flat, start)
    window = flat[start:end]
    out: list[str] = ["…" if start > 0 else ""]
    position = 0
    if pattern is not None:
        for match in pattern.finditer(seen[start:end]):
            if match.end() == match.start():
                continue
            out.append(escape(window[position : match.start()]))
            out.append(f"<mark>{escape(window[match.start() : match.end()])}</mark>")
            position = match.end()
    out.append(escape(window[position:]))
    if end < len(flat):
        out.append("…")
    return "".join(out)
