"""The keyboard's other layout (한/영): the 2-set mapping, and the search that uses it."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from app.corpus.models import Corpus
from app.search import SearchIndex
from app.search.layout import from_qwerty, to_qwerty, typing_forms


@pytest.mark.parametrize(("typed", "hangul"), [
    ("xmatorhdrur", "틈새공격"), ("wntkdnl", "주사위"), ("dlehd", "이동"),
    ("Tmfjwls", "쓰러진"),          # shift: ㅆ
    ("rhksfl", "관리"),              # two vowel keys make ㅘ
    ("qkfr", "밝"), ("rkqt", "값"),  # two consonant keys make one final
    ("dlfrdj", "읽어"),              # a double final splits before a vowel
])
def test_qwerty_types_hangul(typed: str, hangul: str) -> None:
    assert from_qwerty(typed) == hangul
    assert to_qwerty(hangul) == typed


@pytest.mark.parametrize("english", ["hunter", "attack", "of", "go", "surge1", "ㅋㅋ"])
def test_letters_that_leave_a_lone_jamo_are_not_hangul(english: str) -> None:
    assert from_qwerty(english) is None


@pytest.mark.parametrize(("typed", "forms"), [
    ("xmatorhdrur", ("틈새공격", "틈새공겨ㄱ")),       # a final may be the next initial
    ("xmator", ("틈색", "틈새ㄱ")),
    ("dkfr", ("앍", "알ㄱ")),                          # a double final splits
    ("xmat", ("틈ㅅ",)),                               # a consonant no syllable takes yet
    ("wntkdn", ("주사우", "주사워", "주사웨", "주사위")),  # a vowel the next key may join
    ("reso", ()), ("xm", ()),
])
def test_a_word_being_typed_reads_as_an_input_method_shows_it(
        typed: str, forms: tuple[str, ...]) -> None:
    assert typing_forms(typed) == forms


@pytest.fixture(scope="module")
def index(corpus: Corpus, tmp_path_factory: pytest.TempPathFactory) -> SearchIndex:
    return SearchIndex.open_or_build(corpus, tmp_path_factory.getbasetemp() / "search-index")


def test_a_query_typed_in_english_mode_is_converted_and_says_so(index: SearchIndex) -> None:
    found = index.search("xmatorhdrur")
    assert found.layout == ("xmatorhdrur", "틈새공격")
    assert found.hits[0].id == "Attack_of_Opportunity"
    assert index.suggest("xmatorhdrur")[0] == "Attack_of_Opportunity"
    assert index.search("xmatorhdrur", as_typed=True).layout is None


def test_suggestions_follow_a_word_typed_in_english_mode_key_by_key(index: SearchIndex) -> None:
    # From the third key on, every prefix suggests the rule, as it does typed in Korean mode:
    # mid-syllable (틈ㅅ, 틈새ㄱ, 주사우) the word reads as the input method would show it.
    for word, entry in (("xmatorhdrur", "Attack_of_Opportunity"),
                        ("wntkdnl", "eh-주사위_다시_굴리기")):
        for end in range(3, len(word) + 1):
            assert entry in index.suggest(word[:end]), word[:end]
    # English stays English: the start of a name, or a word.
    assert index.typing_layout("reso") is None and index.suggest("reso")[0] == "Resources"
    assert index.typing_layout("fast") is None


def test_english_words_stay_english_and_hangul_typed_for_english_converts(
        index: SearchIndex) -> None:
    for english in ("surge", "attack of opportunity", "the golden rules", "hand size"):
        assert index.search(english).layout is None
    # The keys of "surge" typed in Korean mode.
    found = index.search("ㄴㅕㄱㅎㄷ")
    assert found.layout == ("ㄴㅕㄱㅎㄷ", "surge")
    assert found.hits[0].id == "Surge"
    # 초성 are never read as English keys.
    assert index.search("ㅌㅅㄱㄱ").layout is None


def test_the_results_page_and_go_follow_the_layout(client: TestClient) -> None:
    html = client.get("/search", params={"q": "xmatorhdrur"}).text
    assert "‘xmatorhdrur’ → ‘틈새공격’ (한/영 전환)" in html
    assert 'href="/rules/Attack_of_Opportunity"' in html
    assert "typed=1" in html  # the link to search the letters as typed
    go = client.get("/go/xmatorhdrur", follow_redirects=False)
    assert go.status_code in (301, 302, 303, 307, 308)
    assert go.headers["location"].endswith("/rules/Attack_of_Opportunity")
