"""HTML-safe snippets: a window of an entry's plain text with the matched words marked.

A query's terms are matched as one alternation would match them (`TermPattern`), from only
the terms `present_terms` finds in the page's entries and at most a budgeted number of
characters of them. Each term is its own compiled regex, kept across queries: compiling one
alternation per query cost 0.2-0.6 ms (Python's compiler), a tenth of a search, for a
pattern that is new for nearly every query; the terms themselves recur.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from functools import lru_cache
from html import escape

from app.corpus.hangul import is_syllable
from app.search.contract import CONTRACT

__all__ = ["LIST_MARK", "TermPattern", "make_snippet", "present_terms", "term_pattern"]

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


class TermPattern:
    """The terms of a query, longest first, matched as the alternation `a|b|…` of their
    regexes (`_term_regex`) would be: the leftmost match, and at one start the first term
    in order. The browser engine compiles that alternation (`termPattern`); the matches are
    the same."""

    __slots__ = ("_folded", "_reach", "_regexes")

    def __init__(self, regexes: Sequence[re.Pattern[str]], reach: Sequence[int],
                 folded: Sequence[str]) -> None:
        self._regexes = tuple(regexes)
        #: Per term, a length its match needs no more than to be found (a match may run on
        #: past it: an English word's tail, read whole once it wins).
        self._reach = tuple(reach)
        #: Per term, the term case-folded, as `present_terms` tests it.
        self._folded = tuple(folded)

    def within(self, squashed: str) -> TermPattern | None:
        """The pattern of the terms that may match in a text whose `squash` is `squashed`,
        in the same order: the same matches, since the others can never match there (see
        `present_terms`). A query's pattern holds the terms of all the shown results, and a
        term absent from one result's text was looked for through all of it, once per
        search: a fifth of an English question's time."""
        keep = [i for i, term in enumerate(self._folded) if term in squashed]
        if len(keep) == len(self._folded):
            return self
        if not keep:
            return None
        return TermPattern([self._regexes[i] for i in keep], [self._reach[i] for i in keep],
                           [self._folded[i] for i in keep])

    def search(self, text: str, pos: int = 0) -> tuple[int, int] | None:
        """The first match in `text` from `pos`, as (start, end)."""
        best: tuple[int, int] | None = None
        for regex, reach in zip(self._regexes, self._reach, strict=True):
            # Once a term has matched, a later one must start before it to win: it is looked
            # for only that far (plus its reach), not through the rest of a long entry.
            limit = min(len(text), best[0] + reach) if best is not None else len(text)
            found = regex.search(text, pos, limit)
            if found is not None and (best is None or found.start() < best[0]):
                best = found.span()
                if best[1] >= limit:  # perhaps cut by the limit: the match read whole
                    whole = regex.match(text, best[0])
                    best = whole.span() if whole is not None else best
                if best[0] == pos:
                    break  # nothing starts earlier, and a later term loses a tie
        return best

    def finditer(self, text: str) -> Iterator[tuple[int, int]]:
        """Every match in `text`, left to right, none overlapping."""
        # Each term's next match from where the scan stands, looked for again only once the
        # scan has passed its start: a term is searched once per match of its own, not once
        # per match of any term.
        ahead: list[tuple[int, int] | None] = []
        for regex in self._regexes:
            found = regex.search(text)
            ahead.append(found.span() if found is not None else None)
        pos = 0
        while True:
            best: tuple[int, int] | None = None
            for i, span in enumerate(ahead):
                if span is not None and span[0] < pos:
                    found = self._regexes[i].search(text, pos)
                    span = ahead[i] = found.span() if found is not None else None
                if span is not None and (best is None or span[0] < best[0]):
                    best = span  # the first term wins a tie
            if best is None:
                return
            yield best
            pos = max(best[1], best[0] + 1)  # no term matches empty; the scan moves on anyway


def term_pattern(terms: list[str]) -> TermPattern | None:
    """The `terms`, longest first, case-insensitive; Hangul may be split by spaces, and a
    term of ASCII letters is marked from a word's start to its end (`Snippet.word_head`,
    `Snippet.word_tail`)."""
    ordered = sorted({t for t in terms if t}, key=len, reverse=True)
    # A Hangul term's match is at most its syllables and a space between each.
    return TermPattern([_term_regex(t) for t in ordered], [2 * len(t) for t in ordered],
                       [t.casefold() for t in ordered]) if ordered else None


@lru_cache(maxsize=1024)
def _term_regex(term: str) -> re.Pattern[str]:
    if all(is_syllable(c) for c in term):
        piece = r"\s?".join(re.escape(c) for c in term)
    elif term.isascii() and term.isalpha():
        piece = _WORD_HEAD + re.escape(term) + _WORD_TAIL
    else:
        piece = re.escape(term)
    return re.compile(piece, re.IGNORECASE)


def _window_end(flat: str, start: int) -> int:
    """Where a window of `flat` from `start` ends: `snippet.chars` on, cut at a space."""
    end = min(len(flat), start + _SIZES.chars)
    if end < len(flat):
        space = flat.rfind(" ", start + _SIZES.min_cut, end)
        if space != -1:
            end = space
    return end


def make_snippet(text: str, pattern: TermPattern | None, *,
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
    if opening and (first is None or first[0] < _window_end(flat, 0)):
        # A title hit reads from the opening, unless the opening lacks the words: an
        # English title found the entry, and its sentence is in the English original.
        first = None
    start = 0
    if first is not None and first[0] > _SIZES.lead:
        at = first[0]
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
        for match_start, match_end in pattern.finditer(seen[start:end]):
            out.append(escape(window[position:match_start]))
            out.append(f"<mark>{escape(window[match_start:match_end])}</mark>")
            position = match_end
    out.append(escape(window[position:]))
    if end < len(flat):
        out.append("…")
    return "".join(out)
