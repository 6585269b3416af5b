"""The search and suggest API: contract, parameter bounds and hostile queries."""

from __future__ import annotations

import json

import pytest
from fastapi.testclient import TestClient
from hypothesis import given, settings
from hypothesis import strategies as st

RESULT_KEYS = {"id", "title", "source", "game", "url", "snippet", "path"}


def test_search_contract(client: TestClient) -> None:
    body = client.get("/api/search", params={"q": "틈새 공격"}).json()
    assert {"query", "total", "results"} <= set(body)
    assert body["query"] == "틈새 공격"
    assert body["results"][0]["id"] == "Attack_of_Opportunity"
    for result in body["results"]:
        assert set(result) >= RESULT_KEYS
        assert result["url"].startswith("/rules/")


def test_filters_by_game_and_source(client: TestClient) -> None:
    eh = client.get("/api/search", params={"q": "조사자", "game": "eh", "limit": 50}).json()
    assert eh["results"] and all(r["game"] == "eh" for r in eh["results"])
    ref = client.get("/api/search", params={"q": "조사자", "source": "ahlcg-rulebook"}).json()
    assert ref["results"] and all(r["source"] == "ahlcg-rulebook" for r in ref["results"])


def test_pagination_with_limit_and_offset(client: TestClient) -> None:
    first = client.get("/api/search", params={"q": "카드", "limit": 5}).json()
    second = client.get("/api/search", params={"q": "카드", "limit": 5, "offset": 5}).json()
    assert first["total"] == second["total"] > 10
    assert len(first["results"]) == len(second["results"]) == 5
    assert not {r["id"] for r in first["results"]} & {r["id"] for r in second["results"]}


@pytest.mark.parametrize(
    "params",
    [{"limit": "0"}, {"limit": "51"}, {"limit": "abc"}, {"offset": "-1"}, {"offset": "99999"},
     {"game": "chess"}, {"source": "nope"}],
)
def test_out_of_range_parameters_are_422_with_a_message(
    client: TestClient, params: dict[str, str]
) -> None:
    response = client.get("/api/search", params={"q": "단서", **params})
    assert response.status_code == 422
    assert response.json()["error"]["message"]


def test_suggest_completes_titles_and_initial_consonants(client: TestClient) -> None:
    body = client.get("/api/suggest", params={"q": "ㅌㅅㄱㄱ"}).json()
    assert body["suggestions"][0]["id"] == "Attack_of_Opportunity"
    first = body["suggestions"][0]
    assert {"id", "title", "url", "context"} <= set(first)
    assert client.get("/api/suggest", params={"q": ""}).json()["suggestions"] == []


HOSTILE = [
    "AND", "OR", "NOT", "*", "?", '"', "(", ")", ":", "title:공격", "공격~2", "공격^3",
    '"틈새 공격', "((((", "a AND (b OR", "x" * 10_000, "\x00", "\x01\x02\x1f\x7f",
    "🐙🦑", "\u202e공격\u202c", "\u200f", "<script>alert(1)</script>", "' OR 1=1 --", "%00",
    "\\", "/", "[reaction]", "](#X)", "ㅋ" * 300,
]


@pytest.mark.parametrize("query", HOSTILE)
def test_hostile_queries_never_fail(client: TestClient, query: str) -> None:
    for path in ("/api/search", "/api/suggest", "/search"):
        response = client.get(path, params={"q": query})
        assert response.status_code == 200, (path, query)
        assert "<script>" not in response.text


def test_undecodable_bytes_and_lone_surrogates_in_the_url_never_fail(client: TestClient) -> None:
    # A lone surrogate cannot be sent as text; its UTF-8-style bytes (and raw junk) can.
    for raw in ("%ED%A0%80", "%FF%FE", "%C0%AF", "%00%00"):
        for path in ("/api/search", "/api/suggest", "/search"):
            assert client.get(f"{path}?q={raw}").status_code == 200, (path, raw)


def test_reflected_query_is_escaped_in_json(client: TestClient) -> None:
    raw = client.get("/api/search", params={"q": "<script>x</script>"}).text
    assert "<script>" not in raw
    assert json.loads(raw)["query"] == "<script>x</script>"


@settings(max_examples=150, deadline=None)
@given(query=st.text(max_size=300))
def test_any_text_is_answered(client: TestClient, query: str) -> None:
    for path in ("/api/search", "/api/suggest"):
        response = client.get(path, params={"q": query})
        assert response.status_code == 200
        body = response.json()
        assert isinstance(body["query"], str)


def test_a_community_word_finds_the_rule_and_names_the_official_term(client: TestClient) -> None:
    data = client.get("/api/search", params={"q": "서지"}).json()
    assert data["results"][0]["id"] == "Surge"
    assert {"kind": "synonym", "typed": "서지", "official": "급증",
            "text": "‘서지’ → 공식 용어 ‘급증’", "url": None, "link": None} in data["notices"]


def test_a_loanword_no_file_lists_is_matched_by_sound(client: TestClient) -> None:
    # 크루 is not in the synonyms file (클루 is); it sounds like "clue" all the same.
    data = client.get("/api/search", params={"q": "크루를"}).json()
    assert data["results"][0]["id"] == "Clues"
    assert data["notices"][0]["text"] == "‘크루’ → 공식 용어 ‘단서’"  # without its particle


def test_a_typo_is_corrected_only_towards_the_rules_vocabulary(client: TestClient) -> None:
    data = client.get("/api/search", params={"q": "틈세공격"}).json()
    assert data["results"][0]["id"] == "Attack_of_Opportunity"
    notice = data["notices"][0]
    assert notice["text"] == "‘틈세공격’ 결과가 없어 ‘틈새공격’으로 찾았습니다"
    assert notice["url"] == "/search?q=%ED%8B%88%EC%84%B8%EA%B3%B5%EA%B2%A9&typed=1"
    # The agenda bug: a misspelt loanword never becomes an ordinary word of the text.
    agenda = client.get("/api/search", params={"q": "에이젼다"}).json()
    assert "언제나" not in json.dumps(agenda, ensure_ascii=False)


def test_a_verb_form_in_a_question_is_neither_a_typo_nor_a_loanword(client: TestClient) -> None:
    # 빠지면 was "corrected" to 가지, 찼는데 read as "chart", 죽거나 "corrected" to 주거나.
    for question in ("조사자가 게임에서 빠지면 단서는 어떻게 되나요",
                     "손 슬롯 꽉 찼는데 무기 또 내면", "트라우마 쌓이면 언제 죽거나 미쳐요",
                     # two consonants in a sentence: 보태 is not "evade", 싸우지 not "surge"
                     "다른 조사자도 카드를 보태 줄 수 있나요", "무서운 적과 싸우지 말고 피할까"):
        data = client.get("/api/search", params={"q": question}).json()
        assert data["notices"] == [], question
        assert data["results"], question
    # A misspelt rules term with an ending is still corrected by its stem.
    typo = client.get("/api/search", params={"q": "틈새공걱하면"}).json()
    assert typo["results"][0]["id"] == "Attack_of_Opportunity"
    assert typo["notices"][0]["kind"] == "correction"


def test_a_corrected_english_word_is_said_as_a_word_not_as_its_stem(client: TestClient) -> None:
    # The index keeps stems (vengeance → vengeanc, take → tak): the notice says the word.
    data = client.get("/api/search", params={"q": "vengence"}).json()
    assert data["results"][0]["id"] == "Vengeance_X"
    notice = next(n for n in data["notices"] if n["kind"] == "correction")
    assert notice["text"] == "‘vengence’ 결과가 없어 ‘vengeance’로 찾았습니다"


def test_the_correction_notice_quotes_only_what_was_typed(client: TestClient) -> None:
    # 포함 joins 넣을 unannounced: the corrected query shown must not hold it.
    data = client.get("/api/search", params={"q": "덱에 몇 장까지 넣을 수 있나요 혼돈 토쿤"}).json()
    notice = next(n for n in data["notices"] if n["kind"] == "correction")
    # The notice quotes the word corrected, and its link searches the whole query as typed.
    assert notice["text"] == "‘토쿤’ 결과가 없어 ‘토큰’으로 찾았습니다"
    assert notice["link"] == "‘토쿤’ 그대로 찾기" and "typed=1" in notice["url"]
    assert "%ED%98%BC%EB%8F%88" in notice["url"]  # 혼돈: the whole query
    # A light word is never "corrected" (나음 is not 다음 misspelt).
    light = client.get("/api/search", params={"q": "무서운 적 만나면 싸우지 말고 피하는게 나음?"})
    assert [n for n in light.json()["notices"] if n["kind"] == "correction"] == []


def test_searching_as_typed_skips_every_rewrite(client: TestClient) -> None:
    data = client.get("/api/search", params={"q": "틈세공격", "typed": "1"}).json()
    assert data["notices"] == [] and data["as_typed"] is True
    assert client.get("/api/search", params={"q": "서지", "typed": "1"}).json()["notices"] == []
    assert client.get("/api/search", params={"q": "x", "typed": "yes"}).status_code == 422


def test_question_words_weigh_nothing_beside_the_content_words(client: TestClient) -> None:
    # The same content words without 몇, 장까지, 수, 있나요: the same results, in the same order.
    plain = client.get("/api/search", params={"q": "정리 단계에는 손에 카드를 남길"}).json()
    asked = client.get("/api/search", params={
        "q": "정리 단계에는 손에 카드를 몇 장까지 남길 수 있나요?"}).json()
    assert [r["id"] for r in asked["results"]] == [r["id"] for r in plain["results"]]
    # The two upkeep texts that state the limit of 8 (the reference's and the learn-to-play
    # rulebook's), then the hand-size entry that points to them.
    assert [r["id"] for r in asked["results"][:3]] == ["Upkeep_Phase", "ahr-정리_단계", "Hand_Size"]


def test_suggestions_say_which_game_a_shared_title_belongs_to(client: TestClient) -> None:
    found = client.get("/api/suggest", params={"q": "특성"}).json()["suggestions"]
    contexts = [s["context"] for s in found if s["title"] == "특성"]
    assert len(contexts) == 2 and len(set(contexts)) == 2
    assert {c.split(" · ")[0] for c in contexts} == {"아컴", "엘호"}


def test_a_game_named_in_the_query_comes_first_and_is_said(client: TestClient) -> None:
    data = client.get("/api/search", params={"q": "엘호 전투는 어떻게 하나요"}).json()
    assert data["results"] and all(r["game"] == "eh" for r in data["results"][:5])
    notice = next(n for n in data["notices"] if n["kind"] == "game")
    assert notice["text"] == "‘엘호’ → 엘드리치 호러 규칙 먼저"
    assert notice["link"] == "엘드리치 호러에서만 찾기" and "game=eh" in notice["url"]
    # A filter already chose the game: nothing to say, and the name is not searched for.
    filtered = client.get("/api/search", params={"q": "엘호 전투", "game": "ahlcg"}).json()
    assert not any(n["kind"] == "game" for n in filtered["notices"])
    assert all(r["game"] == "ahlcg" for r in filtered["results"])


def test_a_hangul_spelling_of_a_listed_english_word_is_found_by_sound(client: TestClient) -> None:
    # 디바우어 is on no synonyms line; "devour" is (집어삼켜짐 = …, devour), and EH has no
    # English names: the sound finds the English word, the line gives the official term.
    data = client.get("/api/search", params={"q": "디바우어", "game": "eh"}).json()
    assert data["results"][0]["id"] == "eh-집어삼켜짐"
    assert data["notices"][0]["text"] == "‘디바우어’ → 공식 용어 ‘집어삼켜짐’"


def test_a_near_miss_of_a_spelling_is_quoted_as_typed(client: TestClient) -> None:
    # 에젠다 is a near miss of the listed 어젠다: the notice quotes the player's word whole.
    data = client.get("/api/search", params={"q": "에젠다"}).json()
    assert data["results"][0]["id"] == "Act_Deck_and_Agenda_Deck"
    assert data["notices"][0]["text"] == "‘에젠다’ → 공식 용어 ‘주요사건’"
