"""Jamo typo tolerance and 초성 / as-you-type patterns."""

from __future__ import annotations

from app.corpus.hangul import choseong
from app.search.fuzzy import Vocabulary, distance, is_initials, max_distance, prefix_pattern


def test_jamo_distance() -> None:
    assert distance("틈세공격", "틈새공격") == 1
    assert distance("조사쟈", "조사자") == 1
    assert distance("영솟", "영속") == 1
    assert distance("공격", "구역") == 2


def test_allowance_grows_with_length() -> None:
    assert max_distance("적") == 0
    assert max_distance("공격") == 1
    assert max_distance("백지화") == 2
    assert max_distance("surge") == 1
    assert max_distance("opportunity") == 2
    assert max_distance("of") == 0


def test_typo_guard_keeps_attack_away_from_area() -> None:
    vocab = Vocabulary(["구역", "공격", "교전"])
    assert [c.term for c in vocab.corrections("공격")] == ["공격"]
    assert "구역" not in [c.term for c in vocab.corrections("공걱")]
    assert Vocabulary(["구역"]).corrections("공격") == []


def test_corrections_prefer_smallest_distance_then_frequency() -> None:
    vocab = Vocabulary(["토큰", "토끼", "혼돈"], [10, 1, 5])
    assert [c.term for c in vocab.corrections("토쿤")] == ["토큰"]
    assert vocab.corrections("혼") == []  # one syllable: no typo allowance


def test_initials() -> None:
    assert is_initials("ㅌㅅㄱㄱ")
    assert is_initials("ㅌㅅ ㄱㄱ")
    assert not is_initials("틈ㅅ")
    assert not is_initials("")


def test_prefix_pattern_initials_and_mixed() -> None:
    pattern = prefix_pattern("ㅌㅅㄱㄱ")
    assert pattern is not None and pattern.fullmatch("틈새공격")
    assert choseong("틈새공격") == "ㅌㅅㄱㄱ"
    mixed = prefix_pattern("틈ㅅ")
    assert mixed is not None and mixed.match("틈새공격") and not mixed.match("틀새")
    growing = prefix_pattern("트")  # 틈 is still being typed
    assert growing is not None and growing.match("틈새")
    # Letters of other scripts match themselves (a translation's title while typing it).
    latin = prefix_pattern("verd")
    assert latin is not None and latin.match("verderben") and not latin.match("verb")
    assert prefix_pattern("1ㅅ") is None
    assert prefix_pattern("") is None
