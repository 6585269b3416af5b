"""app.corpus.lookup: which entries a name typed or pasted by a player points to."""

from __future__ import annotations

import unicodedata

import pytest

from app.corpus.lookup import fold_id, merged_terms, named, official_terms
from app.corpus.models import Corpus


@pytest.mark.parametrize("text", [
    "Attack_of_Opportunity", "attack_of_opportunity", "ATTACK_OF_OPPORTUNITY",
    "Attack-of-Opportunity", "Attack+of+Opportunity", "Attack of Opportunity",
    "틈새 공격", "틈새+공격", "틈새공격",  # the title, spacing as a linkifier writes it
    "AoO", "기회 공격",  # players' words the synonyms file lists for 틈새 공격
])
def test_every_form_of_one_rule_names_that_rule(corpus: Corpus, text: str) -> None:
    assert named(corpus, text) == ("Attack_of_Opportunity",)


def test_players_words_name_the_entry_of_their_official_term(corpus: Corpus) -> None:
    assert official_terms(corpus, "서지") == ("ahlcg", ("급증",))
    assert named(corpus, "서지") == ("Surge",)
    # 단서 is a title in both games, but 클루 is a word of the AHLCG players' only.
    assert named(corpus, "클루") == ("Clues",)
    assert len(named(corpus, "단서")) == 2


def test_ids_with_spaces_and_namespaces_and_decomposed_hangul(corpus: Corpus) -> None:
    assert named(corpus, "tarot+slot") == ("Tarot Slot",)
    assert named(corpus, "EN/frost-tokens") == ("en/Frost_Tokens",)
    decomposed = unicodedata.normalize("NFD", "eh-징조")
    assert decomposed not in corpus.entries
    assert named(corpus, decomposed) == ("eh-징조",)


def test_an_english_title_means_its_korean_original(corpus: Corpus) -> None:
    english = corpus.entries["en/Skill_Test_Timing"].title
    assert named(corpus, english) == ("Skill_Test_Timing",)
    # An English-only rule has no original: its own page.
    assert named(corpus, corpus.entries["en/Frost_Tokens"].title) == ("en/Frost_Tokens",)


def test_a_title_in_both_games_names_both_and_nothing_names_nothing(corpus: Corpus) -> None:
    assert named(corpus, "파멸") == ("Doom", "eh-파멸")
    assert named(corpus, "qqqzzz") == ()
    assert named(corpus, "") == ()
    assert named(corpus, "+ - _") == ()


def test_fold_id_and_the_merged_table_search_uses() -> None:
    assert fold_id(" Attack--of+opportunity ") == "attack_of_opportunity"
    tables = merged_terms({"a": {"x": ("A",)}, "b": {"x": ("B",), "y": ("Y",)}})
    assert tables[None] == {"x": ("A",), "y": ("Y",)}
    assert tables["b"]["x"] == ("B",)
