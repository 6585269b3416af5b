"""The languages the data is written in (`languages.json`, declared by the manifest).

Each language the sources use is declared once: its name in its own words (`Deutsch`, shown
beside a translation) and how its A–Z index is made: the jump bar's `letters`, and `by`, how a
title finds its letter:

* `letter` (the default): the title's first letter, upper-cased, or if that is not one of
  the bar's letters, the same with its accent folded (`É` → E, `Ł` → L, `Ё` → Е; `Й` stays
  when the bar has it);
* `initial`: a Hangul title's initial consonant, a tense one under its plain one (ㄲ → ㄱ);
* `pinyin`: a Han title's first character by the first letter of its reading (`毁灭` → H,
  read with pypinyin, the Chinese reading dictionary); other titles by `letter`.

A title whose first letter is none of the bar's is filed under 기타, after the letters. A
newer language is a new entry here, no code: `python -m app check` says what is missing.
"""

from __future__ import annotations

import functools
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from app.corpus.hangul import CHOSEONG, is_syllable
from app.corpus.normalize import fold_accents
from app.errors import DataError, read_data_json

__all__ = ["OTHER", "READINGS", "Language", "load_languages"]

#: The group of titles whose first letter is none of the jump bar's.
OTHER = "기타"
#: How a title may find its letter (`Language.by`).
READINGS = ("letter", "initial", "pinyin")
_PLAIN = {"ㄲ": "ㄱ", "ㄸ": "ㄷ", "ㅃ": "ㅂ", "ㅆ": "ㅅ", "ㅉ": "ㅈ"}
# Skipped before a title's first letter: numbering and punctuation ("~에 부착하다", "“000”").
_LEAD = "~“”\"'‘’«»„([{ 0123456789.-–—·:"


@dataclass(frozen=True)
class Language:
    """One declared language."""

    lang: str
    #: Its own name, for "번역 보기 · Deutsch".
    name: str
    #: The jump bar of its indexes, in order.
    letters: str
    by: str = "letter"
    #: The words a worked example's paragraph starts with in this language's texts (`예시:`,
    #: `Example:`): the words of such a paragraph count less in search than the rule's own.
    examples: tuple[str, ...] = ()

    def letter(self, title: str) -> str:
        """The jump-bar group of `title` (`OTHER` when it is none of the letters)."""
        for char in title:
            if is_syllable(char):
                if self.by != "initial":
                    return OTHER
                initial = CHOSEONG[(ord(char) - 0xAC00) // 588]
                return _found(self.letters, _PLAIN.get(initial, initial))
            if not char.isalpha():
                continue
            if self.by == "pinyin" and _is_han(char):
                reading = _reading(char)
                return _found(self.letters, _folded(reading[:1]).upper()) if reading else OTHER
            upper = char.upper()
            if upper in self.letters:
                return upper
            return _found(self.letters, _folded(char).upper()[:1])
        return OTHER

    def sort_key(self, title: str) -> tuple[int, str]:
        """Letter group, then the title without its leading numbering, accents folded (a
        Han title by its reading), then as written."""
        letter = self.letter(title)
        group = self.letters.index(letter) if letter in self.letters else len(self.letters)
        stripped = title.lstrip(_LEAD).casefold()
        if self.by == "initial":
            return group, stripped
        if self.by == "pinyin" and stripped[:1] and _is_han(stripped[0]):
            return group, " ".join(_readings(stripped)) + "\0" + stripped
        return group, _folded(stripped) + "\0" + stripped


def _found(letters: str, letter: str) -> str:
    return letter if letter and letter in letters else OTHER


def _folded(text: str) -> str:
    # Lower-cased first: the plain spellings are of lower-case letters (Ł → ł → l).
    return fold_accents(text.lower())


def _is_han(char: str) -> bool:
    return unicodedata.name(char, "").startswith(("CJK UNIFIED IDEOGRAPH",
                                                  "CJK COMPATIBILITY IDEOGRAPH"))


@functools.cache
def _pinyin() -> Any:
    # Imported only where a language is read by pinyin: its dictionaries cost ~50 MiB.
    import pypinyin

    return pypinyin


def _reading(char: str) -> str:
    return str(_pinyin().lazy_pinyin(char)[0])


def _readings(text: str) -> list[str]:
    return [str(r) for r in _pinyin().lazy_pinyin(text)]


def load_languages(data_dir: Path, file: str) -> Mapping[str, Language]:
    """The languages `data_dir/file` declares, by code, or `DataError` naming the problem."""
    doc: Any = read_data_json(data_dir, file)
    items = doc.get("languages") if isinstance(doc, dict) else None
    if not isinstance(items, list) or not items:
        raise DataError(file, "", '"languages" must be a non-empty list')
    found: dict[str, Language] = {}
    for i, item in enumerate(items):
        where = f"languages[{i}]"
        if not isinstance(item, dict):
            raise DataError(file, where, "a language must be an object")
        for key in ("lang", "name", "letters"):
            if not isinstance(item.get(key), str) or not item[key].strip():
                raise DataError(file, where, f'missing or empty string field "{key}"')
        lang, by = item["lang"], item.get("by", "letter")
        where = f'{where} (lang "{lang}")'
        if lang in found:
            raise DataError(file, where, "duplicate language")
        if by not in READINGS:
            raise DataError(file, where, f'"by" must be one of {", ".join(READINGS)}')
        letters = item["letters"]
        if len(set(letters)) != len(letters) or not all(c.isalpha() for c in letters):
            raise DataError(file, where, '"letters" must be distinct letters, in order')
        examples = item.get("examples", [])
        if not isinstance(examples, list) or not all(
                isinstance(e, str) and e.strip() for e in examples):
            raise DataError(file, where, '"examples" must be a list of non-empty strings')
        found[lang] = Language(lang, item["name"], letters, by,
                               tuple(e.strip() for e in examples))
    return found
