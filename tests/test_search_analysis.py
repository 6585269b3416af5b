"""Korean analysis: particles and endings, spacing, bigrams, titles and English aliases."""

from __future__ import annotations

import pytest

from app.search import analysis


@pytest.mark.parametrize(
    ("word", "stem"),
    [
        ("조사자가", "조사자"),
        ("조사자는", "조사자"),
        ("회피하면", "회피"),
        ("파멸이", "파멸"),
        ("취소하면", "취소"),
        ("공격받은", "공격"),
        ("부착된", "부착"),
        ("장소에서", "장소"),
        ("카드를", "카드"),
        ("단서", "단서"),
        ("교전", "교전"),
    ],
)
def test_particles_and_endings_are_stripped(word: str, stem: str) -> None:
    assert analysis.stem(word) == stem
    assert analysis.variants(word)[0] == word
    assert stem in analysis.variants(word)


def test_two_syllable_words_keep_their_form() -> None:
    for word in ("단서", "교전", "파멸", "행동"):
        assert analysis.variants(word) == (word,)


def test_query_and_text_meet_on_the_same_stem() -> None:
    text_forms = set(analysis.index_words("조사자는 적을 회피합니다"))
    assert analysis.stem("조사자가") in text_forms
    assert analysis.stem("회피하면") in text_forms


def test_bigrams_ignore_spacing() -> None:
    assert analysis.bigrams("틈새공격") == analysis.bigrams("틈새 공격") == ["틈새", "새공", "공격"]
    assert set(analysis.bigrams("교전중")) <= set(analysis.index_bigrams("교전 중인 적"))


def test_index_bigrams_include_stems_joined() -> None:
    grams = analysis.index_bigrams("조사자가 공격한다")
    assert "자공" in grams  # 조사자 + 공격, as typed without particle or space


def test_words_normalise_and_split_scripts() -> None:
    assert analysis.words("  Attack　of\u00a0Opportunity! 틈새-공격 12 ") == [
        "attack", "of", "opportunity", "틈새", "공격", "12"]


def test_title_parts() -> None:
    assert analysis.title_parts("(1.1) 틈새 공격") == ["틈새공격"]
    parts = analysis.title_parts("회피, 회피 행동")
    assert "회피" in parts and "회피행동" in parts
    assert "조사자당" in analysis.title_parts("조사자당( 조사자당 )")


@pytest.mark.parametrize(
    ("entry_id", "terms", "key"),
    [
        ("Attack_of_Opportunity", ["attack", "of", "opportunity"], "attackofopportunity"),
        ("Chaos_Tokens", ["chaos", "token"], "chaostoken"),
        ("The_Grim_Rule", ["the", "grim", "rule"], "thegrimrule"),
        ("Hand_Size", ["hand", "size"], "handsize"),
    ],
)
def test_english_aliases(entry_id: str, terms: list[str], key: str) -> None:
    assert analysis.alias_terms(entry_id) == terms
    assert analysis.alias_key(entry_id) == key
    assert analysis.alias_key(entry_id.replace("_", " ").upper()) == key


def test_non_ascii_ids_have_no_alias() -> None:
    assert analysis.alias_terms("ahr-조사_단계") == []


def test_english_stem() -> None:
    assert analysis.english_stem("Clues") == "clue"
    assert analysis.english_stem("abilities") == "ability"
    assert analysis.english_stem("weakness") == "weakness"
    assert analysis.english_stem("fast") == "fast"


def test_function_words() -> None:
    assert analysis.is_function_word("하면")
    assert analysis.is_function_word("에")
    assert not analysis.is_function_word("공격")
