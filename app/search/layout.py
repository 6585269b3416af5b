"""The keyboard's other layout (한/영): Latin letters typed for Hangul, and back.

A player whose keyboard is in English mode types `xmatorhdrur` for 틈새공격: each key stands
for the jamo the 2-set (두벌식) keyboard puts on it (`CONTRACT.layout`), and the jamo compose
into syllables as a Korean input method composes them: an initial, a vowel (two vowel keys
may make one: ㅗ+ㅏ = ㅘ), an optional final (two consonants may make one: ㄹ+ㄱ = ㄺ), and a
final followed by a vowel moves to the next syllable (`dlehd` → 이동). A word converts only
when every jamo lands in a syllable: a lone jamo means the letters were English after all.
The reverse (`to_qwerty`) spells Hangul as the keys that type it (`ㅁㅅㅅㅁ차` → attack).
The search decides when a conversion is meant (`SearchIndex.layout`); static/analysis.js
composes the same way from the same tables.
"""

from __future__ import annotations

from app.corpus.hangul import CHOSEONG, JONGSEONG, JUNGSEONG, is_syllable
from app.search.contract import CONTRACT

__all__ = ["from_qwerty", "to_qwerty", "typing_forms"]

_L = CONTRACT.layout
_KEYS = dict(_L.keys)
_BY_JAMO = {jamo: key for key, jamo in reversed(_L.keys)}
_VOWELS = dict(_L.vowels)
_FINALS = dict(_L.finals)
_SPLIT = {final: (pair[0], pair[1]) for pair, final in _L.finals}
_VOWEL_PARTS = {vowel: (pair[0], pair[1]) for pair, vowel in _L.vowels}


def _jamo(letter: str) -> str:
    return _KEYS.get(letter) or _KEYS.get(letter.lower(), "")


def from_qwerty(word: str) -> str | None:
    """The Hangul a run of Latin letters types on the 2-set keyboard, or None when it is no
    run of whole syllables (a letter that is no key, a lone vowel or consonant)."""
    if len(word) < _L.min_letters or not word.isascii() or not word.isalpha():
        return None
    out: list[str] = []
    cho = jung = jong = ""

    def flush() -> bool:
        nonlocal cho, jung, jong
        if cho or jung:
            if not (cho and jung):
                return False
            out.append(chr(0xAC00 + (CHOSEONG.index(cho) * 21 + JUNGSEONG.index(jung)) * 28
                           + JONGSEONG.index(jong)))
        cho = jung = jong = ""
        return True

    for letter in word:
        j = _jamo(letter)
        if not j:
            return None
        if j in JUNGSEONG:
            if cho and not jung:
                jung = j
            elif jung and not jong and jung + j in _VOWELS:
                jung = _VOWELS[jung + j]
            elif jong:
                first, moved = _SPLIT.get(jong, ("", jong))
                jong = first
                if not flush():
                    return None
                cho, jung = moved, j
            else:
                return None
        elif cho and jung and not jong and j in JONGSEONG:
            jong = j
        elif jong and jong + j in _FINALS:
            jong = _FINALS[jong + j]
        else:
            if not flush():
                return None
            cho = j
    return "".join(out) if flush() and out else None


def typing_forms(word: str) -> tuple[str, ...]:
    """What a word still being typed in the other layout may be becoming, as an input method
    would show it mid-word, for suggestions: `from_qwerty(word)`, and when its last syllable
    has a final, that syllable without it and the final as the next syllable's initial
    (`xmator`: 틈색 or 틈새ㄱ, on the way to 틈새공격); when it ends in a vowel the next key
    may join, the syllables that makes (`wntkdn`: 주사우 or 주사위, 주사워, 주사웨); when the
    word ends in a consonant no syllable takes, the syllables before it and that consonant
    (`xmat`: 틈ㅅ)."""
    whole = from_qwerty(word)
    if whole is not None:
        code = ord(whole[-1]) - 0xAC00
        final = JONGSEONG[code % 28]
        if not final:
            # A vowel the next key may join (주사우 → 주사위): the syllables it may become.
            vowel = JUNGSEONG[(code % 588) // 28]
            joined = [chr(0xAC00 + code - code % 588 + JUNGSEONG.index(v) * 28)
                      for pair, v in _L.vowels if pair[0] == vowel]
            return (whole, *(whole[:-1] + syllable for syllable in joined))
        kept, moved = _SPLIT.get(final, ("", final))
        bare = chr(0xAC00 + code - code % 28 + JONGSEONG.index(kept))
        return whole, whole[:-1] + bare + moved
    last = _jamo(word[-1:])
    head = from_qwerty(word[:-1])
    if head is not None and last in CHOSEONG:
        return (head + last,)
    return ()


def to_qwerty(text: str) -> str:
    """The keys that type `text` on the 2-set keyboard (syllables and jamo; other characters
    kept): 틈새공격 → xmatorhdrur."""
    out: list[str] = []
    for char in text:
        if is_syllable(char):
            code = ord(char) - 0xAC00
            parts = [CHOSEONG[code // 588], JUNGSEONG[(code % 588) // 28], JONGSEONG[code % 28]]
        else:
            parts = [char]
        for part in parts:
            for jamo in _VOWEL_PARTS.get(part) or _SPLIT.get(part) or (part,):
                out.append(_BY_JAMO.get(jamo, jamo))
    return "".join(out)
