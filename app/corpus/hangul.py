"""Hangul arithmetic: initial consonants (초성) and jamo decomposition.

Unicode composes every modern syllable as 0xAC00 + (initial × 21 + medial) × 28 + final, so
a few lines of arithmetic replace a package (NOTES: the whole corpus decomposes in ~46 ms).
"""

from __future__ import annotations

_BASE, _LAST = 0xAC00, 0xD7A3
CHOSEONG = "ㄱㄲㄴㄷㄸㄹㅁㅂㅃㅅㅆㅇㅈㅉㅊㅋㅌㅍㅎ"
JUNGSEONG = "ㅏㅐㅑㅒㅓㅔㅕㅖㅗㅘㅙㅚㅛㅜㅝㅞㅟㅠㅡㅢㅣ"
JONGSEONG = ("", *"ㄱㄲㄳㄴㄵㄶㄷㄹㄺㄻㄼㄽㄾㄿㅀㅁㅂㅄㅅㅆㅇㅈㅊㅋㅌㅍㅎ")
#: The fourteen groups of a 가나다 jump bar; tense consonants file under their plain ones.
INDEX_LETTERS = "ㄱㄴㄷㄹㅁㅂㅅㅇㅈㅊㅋㅌㅍㅎ"
_PLAIN = {"ㄲ": "ㄱ", "ㄸ": "ㄷ", "ㅃ": "ㅂ", "ㅆ": "ㅅ", "ㅉ": "ㅈ"}


def is_syllable(char: str) -> bool:
    """True for a precomposed Hangul syllable (가–힣)."""
    return _BASE <= ord(char) <= _LAST


def choseong(text: str) -> str:
    """Each syllable replaced by its initial consonant; other characters kept: 틈새 → ㅌㅅ."""
    return "".join(
        CHOSEONG[(ord(c) - _BASE) // 588] if is_syllable(c) else c for c in text
    )


def decompose(text: str) -> str:
    """Each syllable spelled out as compatibility jamo: 공격 → ㄱㅗㅇㄱㅕㄱ."""
    out: list[str] = []
    for char in text:
        if not is_syllable(char):
            out.append(char)
            continue
        code = ord(char) - _BASE
        out.append(CHOSEONG[code // 588])
        out.append(JUNGSEONG[(code % 588) // 28])
        out.append(JONGSEONG[code % 28])
    return "".join(out)


#: The groups of an A–Z jump bar, for indexes of sources in other languages.
LATIN_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def index_letter(title: str) -> str:
    """The jump-bar group of a title: its first Hangul syllable's plain initial, the capital
    of its first Latin letter, or "기타".

    Leading punctuation and numbering ("~에 부착하다", "“000”라고…", "1. 게임 소개") are skipped.
    """
    for char in title:
        if is_syllable(char):
            initial = CHOSEONG[(ord(char) - _BASE) // 588]
            return _PLAIN.get(initial, initial)
        if char.isascii() and char.isalpha():
            return char.upper()
        if char.isalpha():
            return "기타"
    return "기타"


def sort_key(title: str) -> tuple[int, str]:
    """가나다 then A–Z order for titles, ignoring leading punctuation and numbering."""
    stripped = title.lstrip("~“”\"'‘’([{ 0123456789.").casefold()
    letter = index_letter(title)
    groups = INDEX_LETTERS + LATIN_LETTERS
    return (groups.index(letter) if letter in groups else 99, stripped)
