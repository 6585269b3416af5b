"""The search results page: works without JavaScript, keeps and escapes the query."""

from __future__ import annotations

import re

from fastapi.testclient import TestClient


def test_results_page_shows_titles_breadcrumbs_badges_and_marked_snippets(
    client: TestClient,
) -> None:
    html = client.get("/search", params={"q": "틈새 공격"}).text
    assert 'href="/rules/Attack_of_Opportunity"' in html
    assert "<mark>" in html
    assert 'class="badge game game-ahlcg"' in html
    assert 'value="틈새 공격"' in html  # the query stays in the box


def test_query_is_escaped_in_text_and_attributes(client: TestClient) -> None:
    html = client.get("/search", params={"q": '"><script>alert(1)</script>'}).text
    assert "<script>alert(1)" not in html
    assert 'value="&#34;&gt;&lt;script&gt;' in html or 'value="&quot;&gt;&lt;script&gt;' in html


def test_filters_and_pagination_links(client: TestClient) -> None:
    html = client.get("/search", params={"q": "카드"}).text
    assert '<select id="f-game" name="game">' in html
    assert 'rel="next"' in html and "page=2" in html
    page2 = client.get("/search", params={"q": "카드", "page": "2"}).text
    assert 'rel="prev"' in page2
    assert client.get("/search", params={"q": "카드", "page": "0"}).status_code == 422


def test_no_results_offers_did_you_mean(client: TestClient) -> None:
    html = client.get("/search", params={"q": "틈새공겨억"}).text
    assert "찾으셨나요" in html or "Attack_of_Opportunity" in html


def test_every_page_loads_the_suggest_script_which_stays_optional(client: TestClient) -> None:
    html = client.get("/").text
    script = re.search(r'<script src="(/static/search\.[0-9a-f]+\.js)" defer></script>', html)
    assert script is not None
    assert 'action="/search" method="get"' in html
    assert client.get(script[1]).status_code == 200


def test_the_results_page_teaches_the_official_term_and_offers_the_query_as_typed(
        client: TestClient) -> None:
    page = client.get("/search", params={"q": "서지"}).text
    assert '<li class="notice notice-synonym">‘서지’ → 공식 용어 ‘급증’</li>' in page
    page = client.get("/search", params={"q": "틈세공격"}).text
    assert "‘틈세공격’ 결과가 없어 ‘틈새공격’으로 찾았습니다 · " in page
    assert '<a href="/search?q=%ED%8B%88%EC%84%B8%EA%B3%B5%EA%B2%A9&amp;typed=1">' in page
    as_typed = client.get("/search", params={"q": "틈세공격", "typed": "1"}).text
    assert "결과가 없어" not in as_typed


def test_everyday_words_get_no_false_correction_notice(client: TestClient) -> None:
    # Real words the rules never use (머리 head, 우산 umbrella) were "corrected" into rules'
    # words one jamo away (버리, 우선): the page said so and showed 버리기 (#23).
    page = client.get("/search", params={"q": "머리 빗자루 우산"}).text
    assert "결과가 없어" not in page and "비슷한 낱말" not in page
    assert "버리" not in page and "우선" not in page
    for word in ("가방", "의자", "사진", "머리가"):
        assert "결과가 없어" not in client.get("/search", params={"q": word}).text, word
    # A real typo is still corrected, and says so.
    page = client.get("/search", params={"q": "틈세 공격"}).text
    assert "‘틈세’ 결과가 없어 ‘틈새’로 찾았습니다" in page
    assert "/rules/Attack_of_Opportunity" in page


def test_verb_forms_and_a_lone_real_word_get_no_false_correction(client: TestClient) -> None:
    # #23: `머리가 아파요` said "‘아파요’ 결과가 없어 ‘앞에’로 찾았습니다", and `가방` offered 추방.
    page = client.get("/search", params={"q": "머리가 아파요"}).text
    assert "결과가 없어" not in page and "앞에’로" not in page
    for query in ("먹었어요", "좋아요", "죽었는데", "미쳤어"):
        assert "결과가 없어" not in client.get("/search", params={"q": query}).text, query
    assert "추방" not in client.get("/search", params={"q": "가방"}).text
    assert "추방" not in client.get("/api/suggest", params={"q": "가방"}).text


def test_particles_follow_the_word_they_quote(client: TestClient) -> None:
    page = client.get("/search", params={"q": "qqqzzz"}).text
    assert "“qqqzzz”와 일치하는 항목이 없습니다." in page and "와(과)" not in page
    assert "을(를)" not in client.get("/search", params={"q": "틈새공걱쇄"}).text


def test_an_empty_search_says_what_can_be_searched_and_where_to_go(client: TestClient) -> None:
    page = client.get("/search").text
    assert "무엇이든 찾을 수 있습니다" in page and "ㅌㅅㄱㄱ" in page
    assert 'href="/timing"' in page and 'href="/rules/Skill_Test_Timing"' in page
    assert 'href="/sources/ahlcg-reference"' in page
    assert "빠른 참조" in page  # the Eldritch Horror quick reference, declared by the manifest


def test_the_results_page_says_which_game_the_query_named(client: TestClient) -> None:
    page = client.get("/search", params={"q": "아컴호러에서 신화 단계"}).text
    assert "‘아컴호러’ → 아컴호러 카드게임 규칙 먼저 · " in page
    assert "아컴호러 카드게임에서만 찾기</a>" in page


def test_nothing_found_is_no_dead_end(client: TestClient) -> None:
    # A player at the table with no result gets where players usually go and each index.
    page = client.get("/search", params={"q": "qqqzzz"}).text
    assert "자주 찾는 곳" in page and 'href="/rules/Skill_Test_Timing"' in page
    assert 'href="/sources/ahlcg-reference"' in page
    found = client.get("/search", params={"q": "틈새 공격"}).text
    assert "자주 찾는 곳" not in found
