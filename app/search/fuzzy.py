"""Typo tolerance on jamo, and 초성 / as-you-type patterns.

* `max_distance` decides how many jamo edits a word may carry (`CONTRACT.typos`): none for
  one syllable, one for two syllables, two from three syllables on (other scripts: by
  letters). With one edit for two syllables, `공격` never becomes `구역`.
* `Vocabulary` finds the closest known terms with rapidfuzz's Levenshtein on jamo strings,
  memoised per vocabulary (a bounded LRU, safe to share between threads).
* `prefix_pattern` turns what a player is typing into a regex over compact titles: a bare
  initial consonant stands for any syllable starting with it (`ㅌㅅㄱㄱ`, `틈ㅅ`), and a last
  syllable without a final consonant may still be growing one (`트` → 틈).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from rapidfuzz import process
from rapidfuzz.distance import Levenshtein

from app.corpus.hangul import CHOSEONG, decompose, has_final, initial_range, is_syllable
from app.search.contract import CONTRACT
from app.search.scripts import is_han

__all__ = [
    "Vocabulary",
    "distance",
    "edits_for",
    "is_initials",
    "max_distance",
    "prefix_pattern",
    "script_of",
]

#: Words whose corrections each vocabulary remembers: far more than the distinct typos players
#: make, and about 2.5 MiB at most when hostile queries fill it with 200-character words.
CORRECTIONS_CACHE = 4096
# Compatibility jamo initials that are not in CHOSEONG themselves never start a syllable.
_INITIAL_SET = frozenset(CHOSEONG)


def distance(a: str, b: str) -> int:
    """Levenshtein distance between the jamo spellings of `a` and `b`."""
    return int(Levenshtein.distance(decompose(a), decompose(b)))


def max_distance(word: str) -> int:
    """How many jamo (or letter) edits a typo in `word` may contain: by its syllables, or
    for a word without any, by its letters (`CONTRACT.typos`)."""
    syllables = sum(1 for c in word if is_syllable(c))
    if syllables:
        return edits_for(syllables, CONTRACT.typos.hangul_edits)
    if is_han(word):
        return edits_for(len(word), CONTRACT.typos.han_edits)
    return edits_for(sum(1 for c in word if c.isalpha()), CONTRACT.typos.letter_edits)


def script_of(word: str) -> str:
    """Which script a correction must share with the word it corrects: Hangul, ASCII or any
    other (`Vocabulary.corrections` never turns one into another)."""
    return "hangul" if any(is_syllable(c) for c in word) else "ascii" if word.isascii() else (
        "other")


def edits_for(count: int, steps: Sequence[tuple[int, int]]) -> int:
    """The edits of the last (from this many, edits) step that `count` reaches, else 0."""
    allowed = 0
    for least, edits in steps:
        if count >= least:
            allowed = edits
    return allowed


def is_initials(text: str) -> bool:
    """True when `text` (spaces ignored) is made of initial consonants only: `ㅌㅅ ㄱㄱ`."""
    chars = [c for c in text if not c.isspace()]
    return bool(chars) and all(c in _INITIAL_SET for c in chars)


def prefix_pattern(text: str) -> re.Pattern[str] | None:
    """A regex matching the compact titles that `text` is the start of, or None.

    Hangul syllables and initial consonants take part as such, letters of other scripts as
    themselves (`verd` → Verderben); anything else gives None.
    """
    chars = [c for c in text if not c.isspace()]
    if not chars or not all(is_syllable(c) or c in _INITIAL_SET or c.isalpha() for c in chars):
        return None
    parts: list[str] = []
    for position, char in enumerate(chars):
        if char in _INITIAL_SET:
            first, last = initial_range(char)
            parts.append(f"[{first}-{last}]")
        elif position == len(chars) - 1 and is_syllable(char) and not has_final(char):
            parts.append(f"[{char}-{chr(ord(char) + 27)}]")
        else:
            parts.append(re.escape(char))
    return re.compile("".join(parts))


@dataclass(frozen=True)
class Correction:
    """A known term close to an unknown word."""

    term: str
    distance: int


class Vocabulary:
    """Known terms with their jamo spellings, searchable by edit distance."""

    def __init__(self, terms: Sequence[str], frequencies: Sequence[int] | None = None, *,
                 targets: Iterable[str] | None = None) -> None:
        """`terms` are known; corrections lead only to those also in `targets` (default:
        all of them)."""
        freqs = frequencies if frequencies is not None else [1] * len(terms)
        self.known: frozenset[str] = frozenset(terms)
        self._freq: dict[str, int] = dict(zip(terms, freqs, strict=True))
        wanted = None if targets is None else frozenset(targets)
        self.terms: tuple[str, ...] = tuple(t for t in terms if wanted is None or t in wanted)
        self._jamo: tuple[str, ...] = tuple(decompose(t) for t in self.terms)
        self._longest = max((len(t) for t in self.terms), default=0)
        # Per instance, so a rebuilt index never sees the old vocabulary's answers; lru_cache
        # is thread-safe (at worst two threads compute the same word once each).
        self._closest = lru_cache(maxsize=CORRECTIONS_CACHE)(self._closest_uncached)

    def widened(self) -> Vocabulary:
        """The same known terms, each of them a correction's target."""
        return Vocabulary(list(self._freq), list(self._freq.values()))

    def __contains__(self, term: object) -> bool:
        return term in self.known

    def __len__(self) -> int:
        return len(self.known)

    def corrections(self, word: str, *, limit: int = CONTRACT.typos.kept) -> list[Correction]:
        """The closest known terms to `word` within `max_distance(word)`, best first.

        Only terms with the same script and a similar length compete, and only those at the
        smallest distance found are returned (ties broken by frequency). Memoised.
        """
        if len(word) > self._longest + CONTRACT.typos.length_slack:
            # No known term is within the length slack of it (the rule below), so there
            # is nothing to find, and nothing worth a memo entry keyed by a long made-up word.
            return []
        return list(self._closest(word)[:limit])

    def _closest_uncached(self, word: str) -> tuple[Correction, ...]:
        allowed = max_distance(word)
        if allowed == 0 or not self.terms:
            return ()
        query = decompose(word)
        found = process.extract(
            query, self._jamo, scorer=Levenshtein.distance, score_cutoff=allowed,
            limit=CONTRACT.typos.candidates,
        )
        script = script_of(word)
        length = len(word)
        best: list[Correction] = []
        for _, score, index in found:
            term = self.terms[index]
            if (script != script_of(term)
                    or abs(len(term) - length) > CONTRACT.typos.length_slack):
                continue
            best.append(Correction(term, int(score)))
        if not best:
            return ()
        smallest = min(c.distance for c in best)
        best = [c for c in best if c.distance == smallest]
        best.sort(key=lambda c: (-self._freq.get(c.term, 0), c.term))
        return tuple(best)
