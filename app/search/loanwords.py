"""Hangul spellings of English game terms (클루, 서지, 엘더사인) matched to the English names.

Korean players mostly say the English terms in Hangul. Where the data gives entries English
names (the English translation's titles), a Hangul loanword is matched to them by sound, so
`클루` finds the entry named "Clues" with no synonyms line for it.

Both sides are reduced to a consonant skeleton in one shared alphabet, the way Korean
transcribes English: vowels drop out (Korean inserts ㅡ after consonant clusters: 클루 is
k-l), voiced and voiceless pairs merge (b/p/f/v → p, d/t → t, g/k/c/q → k, j/z/ch/soft g →
j), r and l are one sound (kept before a vowel, silent after one: "resource" → 리소스 is
l-s-s), th is read both ways (미토스 "mythos", 엘더씽 "elder thing"), and a final ㅇ is "ng".
Exact skeletons match; among several English candidates the closest spelling (Hangul
romanised, compared with rapidfuzz) wins. The measured accuracy is in `bench/loanwords.py`.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from rapidfuzz import fuzz

from app.corpus.hangul import CHOSEONG, JONGSEONG, is_syllable
from app.corpus.models import Corpus
from app.search.contract import CONTRACT
from app.search.documents import Document

__all__ = ["LoanwordTable", "LoanwordVocabulary", "english_skeletons", "hangul_skeleton",
           "loanword_vocabulary"]

_L = CONTRACT.loanwords
_INITIAL = dict(zip(CHOSEONG, _L.initial_sounds, strict=True))
_FINAL = dict(zip(JONGSEONG, _L.final_sounds, strict=True))
_CLASS = {"b": "p", "p": "p", "f": "p", "v": "p", "d": "t", "t": "t", "g": "k", "k": "k",
          "q": "k", "c": "k", "j": "j", "z": "j", "s": "s", "l": "l", "m": "m", "n": "n"}
_VOWELS = frozenset("aeiouy")
#: Words that carry no meaning of their own in a rule's name.
_STOP = frozenset({"a", "an", "the", "of", "to", "in", "on", "for", "and", "or", "by", "with",
                   "from", "vs", "at", "as", "is"})
_LOANWORD_FINALS = frozenset(_L.finals)


def _singular(word: str) -> str:
    """`word` without a regular plural ending (clues → clue, abilities → ability): its sound
    as a name says it."""
    if len(word) >= 5 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) >= 4 and word.endswith("s") and word[-2] not in "suio":
        return word[:-1]
    return word


def hangul_skeleton(word: str) -> str:
    """The consonant skeleton of a Hangul word: 클루 → kl, 리소스 → lss, 엘더씽 → ltsnk."""
    out: list[str] = []
    for char in word:
        if not is_syllable(char):
            return ""
        code = ord(char) - 0xAC00
        out.append(_INITIAL[CHOSEONG[code // 588]])
        out.append(_FINAL[JONGSEONG[code % 28]])
    return _collapse("".join(out))


def english_skeletons(word: str) -> frozenset[str]:
    """The consonant skeletons an English word or name may be heard as (th: s or t)."""
    text = re.sub(r"[^a-z]", "", word.lower())
    text = re.sub(r"(.)\1", r"\1", text)  # doubled letters are one sound
    text = re.sub(r"[st]ion", "sn", text)
    text = re.sub(r"^kn|gn", "n", text)
    text = re.sub(r"mb$", "m", text)
    for digraph, sound in (("ph", "f"), ("sh", "s"), ("ch", "j"), ("ck", "k"), ("gh", ""),
                           ("wh", "w"), ("qu", "kw"), ("x", "ks")):
        text = text.replace(digraph, sound)
    text = re.sub(r"c(?=[eiy])", "s", text)
    options: list[tuple[str, ...]] = []
    for i, letter in enumerate(text):
        after = text[i + 1] if i + 1 < len(text) else ""
        if letter == "t" and after == "h":
            options.append(("s", "t"))
        elif letter == "h":
            options.append(("h",) if i == 0 else ("",))
        elif letter == "g" and after in ("e", "i", "y"):
            options.append(("j", "k"))
        elif letter == "r":
            options.append(("l",) if after in _VOWELS else ("",))
        elif letter in _VOWELS or letter == "w":
            options.append(("",))
        else:
            options.append((_CLASS.get(letter, ""),))
    found = {_collapse("".join(parts))
             for parts in itertools.islice(itertools.product(*options), _L.max_alternatives)}
    return frozenset(s for s in found if s)


def romanise(word: str) -> str:
    """A Revised Romanisation of a Hangul word (for comparing spellings, not for display)."""
    out: list[str] = []
    for char in word:
        if is_syllable(char):
            code = ord(char) - 0xAC00
            out.append(_L.roman_initial[code // 588] + _L.roman_medial[(code % 588) // 28]
                       + _L.roman_final[code % 28])
    return "".join(out)


def _as_korean_letters(phrase: str) -> str:
    """An English spelling in the letters Revised Romanisation would use for its sounds."""
    text = phrase.replace(" ", "")
    for english, korean in _L.korean_letters:
        text = text.replace(english, korean)
    return text


def _collapse(skeleton: str) -> str:
    return re.sub(r"(.)\1+", r"\1", skeleton)


class LoanwordTable:
    """English names and their words, by skeleton."""

    def __init__(self, names: Iterable[str]) -> None:
        #: skeleton → [(rank, phrase)]: whole names (rank 0) before the words inside them (1),
        #: so 서지 is "surge" (an entry's name) rather than "size" (a word in one).
        self._by_skeleton: dict[str, list[tuple[int, str]]] = {}
        seen: set[str] = set()
        for name in names:
            words = self.phrase(name).split()
            # The whole name (엘더사인 is one Hangul word for "elder sign") and each word.
            for rank, phrase in ((0, " ".join(words)), *((1, w) for w in words)):
                if len(phrase.replace(" ", "")) < 3 or phrase in seen:
                    continue
                seen.add(phrase)
                for skeleton in english_skeletons(phrase):
                    if len(skeleton) >= _L.least_skeleton:
                        self._by_skeleton.setdefault(skeleton, []).append((rank, phrase))

    def __len__(self) -> int:
        return len(self._by_skeleton)

    def shipped(self) -> dict[str, list[tuple[int, str]]]:
        """The table as the client index ships it: skeleton → [(rank, phrase)], in the order
        `english` reads them (the browser engine has no English side to build it from)."""
        return {skeleton: list(found) for skeleton, found in self._by_skeleton.items()}

    @staticmethod
    def phrase(name: str) -> str:
        """The form `english` answers with for a whole name: `Clues` → clue. Only plurals
        come off: a word is matched by its sound, and the search stems what it answers."""
        return " ".join(_singular(w) for w in re.findall(r"[a-z]+", name.lower())
                        if w not in _STOP)

    def english(self, hangul: str) -> str | None:
        """The English word or name the Hangul word sounds like, or None."""
        if any(is_syllable(c) and (ord(c) - 0xAC00) % 28 not in _LOANWORD_FINALS
               for c in hangul):
            return None
        skeleton = hangul_skeleton(hangul)
        candidates = (self._by_skeleton.get(skeleton)
                      if len(skeleton) >= _L.least_skeleton else None)
        if not candidates:
            return None
        spelled = romanise(hangul)

        def likeness(candidate: tuple[int, str]) -> float:
            return float(fuzz.ratio(spelled, _as_korean_letters(candidate[1])))

        # How alike the spellings are, in the letters Korean writes them with, and a little
        # for being a whole name. Same sounds but nothing alike in spelling is a coincidence
        # (a typo of a Korean word that happens to share the consonants of "chart").
        best = max(candidates, key=lambda c: (likeness(c) - _L.name_bonus * (c[0] > 0),
                                              -len(c[1])))
        return best[1] if likeness(best) >= _L.min_likeness else None


@dataclass(frozen=True)
class LoanwordVocabulary:
    """What a Hangul loanword may be heard as: the entries' English names and the synonyms
    files' English words by sound (`table`), the official term each of those English words
    stands for (`listed`: devour → 집어삼켜짐), and the entry each English name belongs to
    (`officials`, for the notice: ‘클루’ → 공식 용어 ‘단서’)."""

    table: LoanwordTable
    listed: Mapping[str, str]
    officials: Mapping[str, str]

    def sounds_like(self, hangul: str) -> str | None:
        """The English name a Hangul loanword sounds like, or the official term of the
        synonyms files' English word it sounds like (`디바우어` → devour → 집어삼켜짐)."""
        found = self.table.english(hangul)
        return self.listed.get(found, found) if found else None

    def shipped(self) -> dict[str, Any]:
        """What the browser engine hears loanwords with (`client_index`)."""
        return {"skeletons": self.table.shipped(), "listed": dict(self.listed),
                "officials": dict(self.officials)}


def loanword_vocabulary(corpus: Corpus, wholes: Sequence[Document]) -> LoanwordVocabulary:
    """The loanword vocabulary of `wholes` (the corpus's documents that are whole entries)."""
    english = [d.english or (d.entry.title if d.entry.lang == "en" else "") for d in wholes]
    english += [corpus.icons.label(token, "en") for token in corpus.icons.icons]
    officials = {LoanwordTable.phrase(d.english): d.entry.title
                 for d in reversed(wholes)
                 if d.english and not d.entry.placeholder}
    # The English words the synonyms files list (devour, ammo) are names too: a Hangul
    # spelling of one that no line lists (디바우어) is matched by sound like the entries'
    # English names, and searched as the official term it stands for (an entry's own English
    # name wins where both have the word).
    listed: dict[str, str] = {}
    for game in corpus.games:
        for variant, terms in game.synonyms.items():
            phrase = (LoanwordTable.phrase(variant)
                      if variant.isascii() and variant.isalpha() else "")
            if len(phrase) >= 3 and phrase not in officials:
                listed.setdefault(phrase, terms[0])
    english += list(listed)
    officials.update({term: term for term in listed.values()})
    return LoanwordVocabulary(LoanwordTable(filter(None, english)), MappingProxyType(listed),
                              MappingProxyType(officials))
