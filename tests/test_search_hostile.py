"""Whatever is typed, `search` and `suggest` answer without raising."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.corpus.models import Corpus
from app.search import Results, SearchIndex
from app.search.query import MAX_QUERY, clean

NASTY = [
    "", " ", "\t\n", "AND", "OR", "NOT", "a AND b OR NOT c", "*", "?", "단*", "틈?공격", '"',
    '"틈새 공격', "(", ")", "((단서", "title:단서", "body:*", "id:Clues", "단서~2", "단서^3",
    "~", "^", "\\", "/", "[", "]", "{}", ":", "-", "+", "!", "&&", "||", "%", "'", "`",
    "x" * 10_000, "단서" * 5_000, "ㅌ" * 3_000, "\x00", "단\x00서", "\x01\x02\x7f", "\ud800",
    "단\udfff서", "😀", "🧙‍♀️ 단서 🐙", "\u200f\u202e단서\u202c", "\u200b", "\ufeff",
    "<script>alert(1)</script>", "<b>단서</b>", "&amp;", "' OR 1=1 --", "%00", "../../etc",
    "Ⅳ", "ﾀﾞﾝｿ", "\u1100\u1161", "ᄐᄉᄀᄀ", "ｔｉｔｌｅ：단서", "NaN", "None", "null",
]


@pytest.fixture(scope="module")
def index(corpus: Corpus, tmp_path_factory: pytest.TempPathFactory) -> SearchIndex:
    return SearchIndex.open_or_build(corpus, tmp_path_factory.getbasetemp() / "search-index")


def _check(results: Results) -> None:
    assert isinstance(results, Results)
    assert len(results.query) <= MAX_QUERY
    assert results.total >= len(results.hits)
    for hit in results.hits:
        assert "<script" not in hit.snippet
        assert hit.snippet.count("<mark>") == hit.snippet.count("</mark>")


@pytest.mark.parametrize("text", NASTY)
def test_nasty_strings(index: SearchIndex, text: str) -> None:
    # `_search` is the unguarded path: a bug here must fail, not be swallowed.
    _check(index._search(text, game=None, source=None, limit=10, offset=0))
    _check(index.search(text, game="eh", limit=3, offset=2))
    assert isinstance(index._suggest(text, limit=8), list)


def test_clean_caps_and_strips() -> None:
    assert len(clean("가" * 10_000)) == MAX_QUERY
    assert "\x00" not in clean("a\x00b")
    # A lone surrogate is a blanked category like a control (the browser engine blanks it
    # the same way): it separates words and is never echoed back.
    assert clean("\ud800단서") == " 단서"
    assert clean("틈새\u061c공격\u180e\u0378") == "틈새 공격  "


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=450))
def test_clean_is_its_own_answer_once(text: str) -> None:
    """A search cleans the typed text once and analyses that (`SearchIndex._search`): what
    `clean` gives must be what it gives back."""
    once = clean(text)
    assert clean(once) == once


@pytest.mark.parametrize("text", [*NASTY, "a\u0301", "e\x00\u0301", "\u1100\x00\u1161",
                                  "가\u200b\u11a8", "x" * 199 + "\u0301", "가" * 199 + "\u11a8"])
def test_clean_is_its_own_answer_on_the_nasty_strings(text: str) -> None:
    assert clean(clean(text)) == clean(text)


@pytest.mark.parametrize("limit", [-5, 0, 1, 10**9])
@pytest.mark.parametrize("offset", [-5, 0, 10**9])
def test_odd_paging(index: SearchIndex, limit: int, offset: int) -> None:
    _check(index._search("단서", game=None, source=None, limit=limit, offset=offset))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=st.text(max_size=300))
def test_any_text(index: SearchIndex, text: str) -> None:
    _check(index._search(text, game=None, source=None, limit=10, offset=0))
    assert isinstance(index._suggest(text, limit=8), list)
    assert isinstance(index.search(text), Results)
    assert isinstance(index.suggest(text), list)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=st.text(alphabet=st.sampled_from("ㄱㄴㅅㅌㅏㅐ가각틈새공격 _ANDOR*?\"():~^"),
                    max_size=40))
def test_korean_and_syntax_mix(index: SearchIndex, text: str) -> None:
    _check(index._search(text, game=None, source=None, limit=10, offset=0))
    assert isinstance(index._suggest(text, limit=8), list)
