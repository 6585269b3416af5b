"""Writing systems: which characters make a word in each script, and how a word is folded.

The rules text comes in Hangul (the reference), Latin (English, German, French…), Cyrillic
(Russian) and Han (Chinese). Words are told apart by Unicode's own data, not by lists of
ranges typed here: Python's `unicodedata` (its categories, names, decompositions and case
folding) on the server, the same Unicode properties (`\\p{L}`, `\\p{Mn}`,
`\\p{Changes_When_Casefolded}`, `String.prototype.normalize`) in static/analysis.js, and
the few things JavaScript cannot ask its regular expressions (which letters are Han or Hangul,
case folding beyond lower case) shipped from here as data (`client_tables`).
tests/test_scripts.py checks both sides agree on every code point.

* **Hangul** words are what they always were (`analysis.py`); any other Hangul letter is
  never part of a word (it was not before either).
* **Han** text has no spaces: a run of ideographs is one word, searched by its character
  bigrams (`grams`), a lone character by itself (the CJK bigram analysis of Lucene and
  Elasticsearch).
* **Other letters** (Latin, Cyrillic, Greek, …): a word is a run of letters. Accents are folded
  on both sides: a word is indexed and searched as written *and* folded (`fatalité` and
  `fatalite`, `Nachrüsten`, `nachrusten` and `nachruesten`), so the accented form matches
  twice and ranks first. Cyrillic words also lose their case endings (`light_stem`: the
  Russian light stemmer of J. Savoy, as Lucene's RussianLightStemmer has it).
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Iterator

from app.corpus.normalize import PLAIN_LETTERS, fold_accents

__all__ = ["casefold_table", "client_tables", "fold", "fold_char", "fold_text", "grams",
           "han_class", "hangul_class", "has_umlaut", "is_han", "letter_forms", "light_stem",
           "spelled"]

#: The umlaut's other spelling (German writes `ue` where it cannot write `ü`): a word with
#: one is also indexed so spelled.
_SPELLED = {"ä": "ae", "ö": "oe", "ü": "ue"}
_SPELLED_TABLE = str.maketrans(_SPELLED)

#: J. Savoy's Russian light stemmer (as Lucene's RussianLightStemmer): the first group whose
#: endings one ends the word, in a word longer than its length, is removed; then a final ь
#: or и goes from a word longer than 3, and нн becomes н. (word longer than, endings).
_CYRILLIC_ENDINGS: tuple[tuple[int, tuple[str, ...]], ...] = (
    (6, ("иями", "оями")),
    (5, ("иям", "иях", "оях", "ями", "оям", "оьв", "ами", "его", "ему", "ери", "ими", "ого",
         "ому", "ыми", "оев")),
    (4, ("ая", "яя", "ях", "юю", "ах", "ею", "их", "ия", "ию", "ьв", "ою", "ую", "ям", "ых",
         "ея", "ам", "ем", "ей", "ём", "ев", "ий", "им", "ое", "ой", "ом", "ов", "ые", "ый",
         "ым", "ми")),
    (3, ("а", "е", "и", "й", "о", "у", "ы", "ь", "я")),
)
#: After the endings: (word longer than, final letter dropped) and the doubled н.
_CYRILLIC_FINAL = (3, ("ь", "и"))
_CYRILLIC_DOUBLE = ("нн", "н")

# The planes that hold Han and Hangul letters (the Basic Multilingual Plane and the two
# ideographic planes): scanning their letters by name takes ~0.07 s, once per process.
_PLANES = (range(0x10000), range(0x20000, 0x40000))


@functools.cache
def _letter_ranges() -> tuple[tuple[tuple[int, int], ...], tuple[tuple[int, int], ...]]:
    """The code point ranges of the Han ideographs and of the Hangul letters, in one scan of
    the planes that reads a name only for a letter (both are letters: Lo, and L)."""
    han: list[list[int]] = []
    hangul: list[list[int]] = []
    category, name_of = unicodedata.category, unicodedata.name
    for plane in _PLANES:
        for code in plane:
            char = chr(code)
            if category(char)[0] != "L":
                continue
            name = name_of(char, "")
            if "HANGUL" in name:
                _extend(hangul, code)
            elif _is_han_name(char, name):
                _extend(han, code)
    return tuple((a, b) for a, b in han), tuple((a, b) for a, b in hangul)


def _extend(ranges: list[list[int]], code: int) -> None:
    if ranges and ranges[-1][1] == code - 1:
        ranges[-1][1] = code
    else:
        ranges.append([code, code])


def _is_han_name(char: str, name: str) -> bool:
    # Unicode's Unified_Ideograph: the unified ideographs, and the twelve compatibility
    # ideographs that are unified (they have no decomposition; NFC maps the others to them).
    return name.startswith("CJK UNIFIED IDEOGRAPH-") or (
        name.startswith("CJK COMPATIBILITY IDEOGRAPH-") and not unicodedata.decomposition(char))


def han_ranges() -> tuple[tuple[int, int], ...]:
    """The code point ranges of the Han ideographs, from this Python's Unicode data."""
    return _letter_ranges()[0]


def hangul_ranges() -> tuple[tuple[int, int], ...]:
    """The code point ranges of every Hangul letter (syllables, jamo of every block)."""
    return _letter_ranges()[1]


def _class(ranges: tuple[tuple[int, int], ...]) -> str:
    """`ranges` as the inside of a regex character class (the characters themselves: both
    Python and JavaScript read them so)."""
    return "".join(chr(a) if a == b else f"{chr(a)}-{chr(b)}" for a, b in ranges)


def han_class() -> str:
    return _class(han_ranges())


def hangul_class() -> str:
    return _class(hangul_ranges())


@functools.cache
def _han_word() -> re.Pattern[str]:
    return re.compile(f"[{han_class()}]+")


def is_han(word: str) -> bool:
    """True when `word` is made of Han ideographs only."""
    return _han_word().fullmatch(word) is not None


def grams(word: str, size: int) -> list[str]:
    """A Han word's character `size`-grams; a shorter word is its own only gram."""
    if len(word) <= size:
        return [word]
    return [word[i : i + size] for i in range(len(word) - size + 1)]


def fold(word: str) -> str:
    """`word` without accents (`normalize.fold_accents`: `fatalité` → fatalite, `ł` → l)."""
    return fold_accents(word)


def fold_char(char: str) -> str:
    """One character folded, when it folds to one character (`é` → e; `æ` stays): text folded
    so keeps its length, and a match in it marks the same place in the text as written."""
    if "HANGUL" in unicodedata.name(char, ""):
        return char  # compatibility jamo are Korean letters, not a compatibility form
    folded = fold(char)
    return folded if len(folded) == 1 else char


#: Each character of the corpus's texts → its fold (only those that fold), and every
#: character already looked at: filled from the corpus only (`remember`), never by what
#: players type, so its size is bounded by the data.
_CHAR_FOLDS: dict[str, str] = {}
_SEEN: set[str] = set()
_FOLDABLE: re.Pattern[str] | None = None
#: Text made only of ASCII and Hangul never folds: the common case, answered first.
_UNFOLDED = re.compile(r"[\x00-\x7f가-힣ㄱ-ㅎㅏ-ㅣ]*")


def unfolded(text: str) -> bool:
    """True when folding leaves `text` as it is for certain (ASCII and Hangul only)."""
    return _UNFOLDED.fullmatch(text) is not None


def fold_text(text: str, *, remember: bool = False) -> str:
    """`text` with each character folded by `fold_char`: as long as `text`, so a match in the
    folded text marks the same place in the text as written (snippets, the re-rank). With
    `remember`, the folds of its characters are kept for the next texts (the corpus's)."""
    global _FOLDABLE
    if text.isascii() or _UNFOLDED.fullmatch(text):
        return text
    new = set(text) - _SEEN
    extra = {c: f for c in new if not c.isascii() and (f := fold_char(c)) != c}
    if remember:
        _SEEN.update(new)
        if extra:
            _CHAR_FOLDS.update(extra)
            _FOLDABLE = re.compile("[" + "".join(map(re.escape, _CHAR_FOLDS)) + "]")
    elif extra:
        folds = {**_CHAR_FOLDS, **extra}
        return re.sub("[" + "".join(map(re.escape, folds)) + "]",
                      lambda m: folds[m.group()], text)
    # A regex finds the few characters that fold far faster than translate() walks them all.
    return _FOLDABLE.sub(_folded, text) if _FOLDABLE is not None else text


def _folded(match: re.Match[str]) -> str:
    return _CHAR_FOLDS[match.group()]


def spelled(word: str) -> str:
    """`word` with each umlaut spelled out (`nachrüsten` → nachruesten)."""
    return word.translate(_SPELLED_TABLE)


def has_umlaut(text: str) -> bool:
    """Whether `text` has a letter `spelled` spells out (in either case)."""
    return any(c in text or c.upper() in text for c in _SPELLED)


def light_stem(word: str) -> str:
    """`word` without a Cyrillic case ending (`атаки`, `атакой` → атак); a word of another
    script never ends in one and is returned as it is."""
    for longer, endings in _CYRILLIC_ENDINGS:
        if len(word) > longer:
            found = next((e for e in endings if word.endswith(e)), None)
            if found is not None:
                word = word[: -len(found)]
                break
    longer, finals = _CYRILLIC_FINAL
    if len(word) > longer and word[-1:] in finals:
        return word[:-1]
    double, single = _CYRILLIC_DOUBLE
    if len(word) > longer and word.endswith(double):
        return word[: -len(double)] + single
    return word


def letter_forms(word: str) -> Iterator[str]:
    """A word of letters (not Hangul, not Han) as written, folded and spelled out."""
    yield word
    yield fold(word)
    if any(c in _SPELLED for c in word):
        yield fold(spelled(word))


@functools.cache
def casefold_table() -> dict[str, str]:
    """Characters whose case folding is not their lower case (`ß` → ss, `ς` → σ): what
    JavaScript's toLowerCase does not do. ~300 characters; made once per process (~0.2 s)."""
    return {chr(c): chr(c).casefold() for c in range(0x110000)
            if chr(c).casefold() != chr(c).lower()}


def client_tables(*, unicode_tables: bool = True) -> dict[str, object]:
    """What static/analysis.js cannot ask its regular expressions, as data (`casefold`, made
    from this Python's Unicode data, only with `unicode_tables`)."""
    return {
        "fold": dict(PLAIN_LETTERS),
        "spelled": dict(_SPELLED),
        "cyrillic_endings": [[n, list(e)] for n, e in _CYRILLIC_ENDINGS],
        "cyrillic_final": [_CYRILLIC_FINAL[0], list(_CYRILLIC_FINAL[1])],
        "cyrillic_double": list(_CYRILLIC_DOUBLE),
        **({"casefold": casefold_table()} if unicode_tables else {}),
    }
