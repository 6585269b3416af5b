"""Synonyms: the words players use, replaced by the official terms before planning."""

from __future__ import annotations

from app.search.budget import Budget
from app.search.rewrite import Rewriter

TABLES = {"ahlcg": {"서지": ("급증",), "어택오브오퍼튜니티": ("틈새 공격",), "aoo": ("틈새 공격",),
                    "클루": ("단서",)},
          "eh": {"서지": ("괴물 급증",), "몬스터서지": ("괴물 급증",)}}
REWRITER = Rewriter(TABLES)


def test_a_variant_becomes_its_official_term_and_is_reported() -> None:
    out = REWRITER.rewrite("서지가 뭐예요", "ahlcg")
    assert out.text == "급증 뭐예요" and out.synonyms == (("서지가", "급증"),)


def test_runs_of_words_and_spacing_variants_match() -> None:
    assert REWRITER.rewrite("어택 오브 오퍼튜니티", "ahlcg").text == "틈새 공격"
    assert REWRITER.rewrite("어택오브 오퍼튜니티", "ahlcg").text == "틈새 공격"


def test_without_a_game_the_first_game_decides_and_longer_variants_reach_the_others() -> None:
    assert REWRITER.rewrite("서지", None).text == "급증"
    assert REWRITER.rewrite("몬스터 서지", None).text == "괴물 급증"
    assert REWRITER.rewrite("서지", "eh").text == "괴물 급증"


def test_english_variants_count_only_as_the_whole_query() -> None:
    assert REWRITER.rewrite("AoO", "ahlcg").text == "틈새 공격 aoo"
    unchanged = REWRITER.rewrite("aoo rules explained", "ahlcg")
    assert unchanged.synonyms == () and unchanged.text == "aoo rules explained"


def test_only_the_budgeted_words_are_looked_at() -> None:
    out = REWRITER.rewrite("가 나 다 클루", "ahlcg", Budget(words=3))
    assert out.synonyms == () and out.text.endswith("클루")
