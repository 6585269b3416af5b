"""Hangul loanwords matched to English names by sound."""

from __future__ import annotations

import pytest

from app.search.loanwords import LoanwordTable, english_skeletons, hangul_skeleton

NAMES = ["Clues", "Surge", "Resources", "Maintaining Legal Deck Size", "Elder Sign", "Doom",
         "Agenda Deck", "Mythos Phase", "Chart", "Seal"]
TABLE = LoanwordTable(NAMES)


@pytest.mark.parametrize(("hangul", "english"), [
    ("클루", "kl"), ("리소스", "ls"), ("서지", "sj"), ("엘더씽", "ltsnk"), ("둠", "tm")])
def test_hangul_and_english_meet_on_one_skeleton(hangul: str, english: str) -> None:
    assert hangul_skeleton(hangul) == english


def test_english_spellings_are_heard_the_korean_way() -> None:
    assert "kl" in english_skeletons("clue")          # c → k, vowels drop
    assert "ls" in english_skeletons("resource")      # r before a vowel is l, after one silent
    assert {"ms", "mts"} <= english_skeletons("mythos")  # th is ㅅ or ㅌ
    assert "ltsn" in english_skeletons("elder sign")  # gn is n


@pytest.mark.parametrize(("hangul", "english"), [
    ("클루", "clue"), ("서지", "surge"), ("리소스", "resource"), ("엘더사인", "elder sign"),
    ("어젠다", "agenda"), ("미토스", "mythos"), ("둠", "doom"), ("씰", "seal")])
def test_loanwords_find_the_english_name(hangul: str, english: str) -> None:
    assert TABLE.english(hangul) == english


def test_a_whole_name_beats_a_word_inside_one_and_coincidences_are_refused() -> None:
    # 서지 sounds like "size" too (in "Maintaining Legal Deck Size"), but Surge is a name.
    assert TABLE.english("서지") == "surge"
    # Same consonants as "chart" but nothing alike: a typo, not a loanword.
    assert TABLE.english("어재다") is None
    assert TABLE.english("단서") is None


def test_a_word_with_a_final_no_loanword_is_written_with_is_korean() -> None:
    # 찼는데 has the consonants of "chart", but English words are written with the finals
    # ㄱ ㄴ ㄹ ㅁ ㅂ ㅅ ㅇ only: ㅆ (찼) is a Korean verb's past.
    assert hangul_skeleton("찼는데") != "" and TABLE.english("찼는데") is None
    assert TABLE.english("차트") == "chart"
