"""Links that work on forums: readable Korean URLs, /go/, canonical and preview tags."""

from __future__ import annotations

import html
import re
import unicodedata
from pathlib import Path
from urllib.parse import quote

import pytest
from fastapi.testclient import TestClient

from app.settings import Settings
from app.web.app import create_app
from tests.conftest import DATA, LOCAL
from tests.raw import fetch


def _meta(page: str, key: str) -> str:
    match = re.search(rf'<meta (?:property|name)="{re.escape(key)}" content="([^"]*)">', page)
    assert match is not None, key
    return html.unescape(match[1])


def test_korean_title_url_redirects_to_the_canonical_entry(client: TestClient) -> None:
    response = client.get("/rules/" + quote("틈새 공격"), follow_redirects=False)
    assert response.status_code == 301
    assert response.headers["location"] == "/rules/Attack_of_Opportunity"
    unspaced = client.get("/rules/" + quote("틈새공격"), follow_redirects=False)
    assert unspaced.headers["location"] == "/rules/Attack_of_Opportunity"


def test_go_redirects_to_confident_matches_or_to_search(client: TestClient) -> None:
    for text in ("틈새공격", "ㅌㅅㄱㄱ", "attack of opportunity"):
        response = client.get("/go/" + quote(text), follow_redirects=False)
        assert response.headers["location"] == "/rules/Attack_of_Opportunity", text
    vague = client.get("/go/" + quote("qqqqzzzz"), follow_redirects=False)
    assert vague.status_code == 302
    assert vague.headers["location"].startswith("/search?q=qqqqzzzz")
    # A real word is no typo of a title (#23: 가방 is not 추방): the search page, not 추방's.
    for text in ("가방", "아파요"):
        real = client.get("/go/" + quote(text), follow_redirects=False)
        assert real.headers["location"].startswith("/search?q="), text


def test_entry_head_carries_a_correct_preview(tmp_path: Path) -> None:
    settings = Settings(data_dir=DATA, index_dir=tmp_path / "index",
                        public_base_url="https://rules.example.org")
    with TestClient(create_app(settings), base_url="https://rules.example.org") as client:
        page = client.get("/rules/" + quote("틈새 공격")).text
    canonical = "https://rules.example.org/rules/Attack_of_Opportunity"
    assert f'<link rel="canonical" href="{canonical}">' in page
    assert _meta(page, "og:url") == "https://rules.example.org/rules/Attack_of_Opportunity"
    assert _meta(page, "og:title").startswith("틈새 공격")
    assert _meta(page, "og:site_name") == "룰사전"
    assert _meta(page, "og:locale") == "ko_KR"
    assert _meta(page, "og:type") == "article"
    description = _meta(page, "og:description")
    assert 20 < len(description) <= 160 and "[" not in description
    assert _meta(page, "og:image").startswith("https://rules.example.org/static/icon-512.")


def test_canonical_links_use_the_configured_base_or_the_allowed_host(
        client: TestClient, tmp_path: Path) -> None:
    # Without a configured base, absolute links name the host the page was asked for, which
    # is one of the allowed hosts (anything else got a 400 before reaching the page).
    for url in ("/", "/timing", "/sources/eh-reference", "/rules/eh-징조", "/search?q=x"):
        assert '<link rel="canonical" href="http://localhost/' in client.get(url).text, url
        other = client.get(url, headers={"host": "127.0.0.1:8000"}).text
        assert '<link rel="canonical" href="http://127.0.0.1:8000/' in other, url
        assert client.get(url, headers={"host": "evil.example"}).status_code == 400
    settings = Settings(data_dir=DATA, index_dir=tmp_path / "index",
                        public_base_url="https://rules.example.org",
                        allowed_hosts="rules.example.org,localhost")
    with TestClient(create_app(settings), base_url=LOCAL) as configured:
        page = configured.get("/timing").text
        assert '<link rel="canonical" href="https://rules.example.org/timing">' in page


def test_permalinks_for_entries_and_subsections(client: TestClient) -> None:
    page = client.get("/rules/Skill_Test_Timing").text
    assert 'class="copy-link js-only" data-url="http://localhost/rules/Skill_Test_Timing"' in page
    # A sub-section with a page of its own shares that page (its own title and preview). Its
    # button holds the path, shared on the canonical address (tests/browser: the copied link).
    assert 'data-url="/rules/Skill_Test_3"' in page
    assert '<a class="anchor" href="#r-Skill_Test_3">' in page


def test_previews_read_as_prose_and_tables_say_what_they_are(client: TestClient) -> None:
    omen = client.get("/rules/eh-%EC%A7%95%EC%A1%B0").text
    description = omen.split('<meta name="description" content="', 1)[1].split('"', 1)[0]
    assert not description.startswith("-") and " - " not in description
    table = client.get("/rules/Skill_Test_Timing").text
    description = table.split('<meta name="description" content="', 1)[1].split('"', 1)[0]
    assert description.startswith("능력 테스트 순서: ") and "타이밍 표" in description
    assert "자유 격발" not in description  # an icon is not read out as words


def test_go_asks_instead_of_guessing_when_the_best_matches_tie(client: TestClient) -> None:
    doom = client.get("/go/" + quote("파멸"), follow_redirects=False)
    assert doom.status_code == 200 and "어느 것을 찾으세요?" in doom.text
    choices = re.findall(r'<li><a class="card" href="([^"]+)"', doom.text)
    assert "/rules/Doom" in choices and "/rules/eh-%ED%8C%8C%EB%A9%B8" in choices
    assert "아컴호러 카드게임" in doom.text and "엘드리치 호러" in doom.text
    initials = client.get("/go/" + quote("ㄱㅈ"), follow_redirects=False)
    assert initials.status_code == 200
    assert len(re.findall(r'<li><a class="card"', initials.text)) >= 2


def test_a_decomposed_hangul_id_redirects_to_the_composed_one(live_server: str) -> None:
    # #20 L9: /rules/ + the NFD spelling of eh-징조 (as macOS file names and some copied text
    # write Hangul) was 404, while NFD titles and searches already worked.
    nfd = unicodedata.normalize("NFD", "eh-징조")
    assert nfd != "eh-징조"
    answer = fetch(live_server, "/rules/" + quote(nfd))
    assert answer.status == 301
    assert answer.headers["location"] == "/rules/" + quote("eh-징조")
    assert fetch(live_server, answer.headers["location"]).status == 200
    # An NFD spelling of no id is still a 404, and the composed id is served as it is.
    assert fetch(live_server, "/rules/" + quote(unicodedata.normalize("NFD", "없는항목"))
                 ).status == 404
    assert fetch(live_server, "/rules/" + quote("eh-징조")).status == 200


# --- Links as people write them (#25) --------------------------------------------------------

AOO = "/rules/Attack_of_Opportunity"


@pytest.mark.parametrize("path", [
    "/rules/" + quote("틈새") + "+" + quote("공격"),  # a linkifier's space
    "/rules/attack_of_opportunity", "/rules/ATTACK_OF_OPPORTUNITY",
    "/rules/Attack-of-Opportunity", "/rules/Attack+of+Opportunity",
    "/rules/" + quote("기회 공격"), "/rules/AoO",  # players' words for the official term
])
def test_forgiving_entry_urls_answer_301_to_the_one_entry(client: TestClient, path: str) -> None:
    response = client.get(path, follow_redirects=False)
    assert (response.status_code, response.headers["location"]) == (301, AOO)
    assert client.get(path).url.path == AOO


def test_a_players_word_in_the_path_opens_its_official_term(client: TestClient) -> None:
    response = client.get("/rules/" + quote("서지"), follow_redirects=False)
    assert (response.status_code, response.headers["location"]) == (301, "/rules/Surge")
    english = client.get("/rules/Tarot+slot", follow_redirects=False)
    assert english.headers["location"] == "/rules/Tarot%20Slot"


def test_go_opens_the_one_official_term_of_a_players_word(client: TestClient) -> None:
    for text, target in (("클루", "/rules/Clues"), ("AoO", AOO), ("서지", "/rules/Surge")):
        response = client.get("/go/" + quote(text), follow_redirects=False)
        assert (response.status_code, response.headers["location"]) == (302, target), text


def test_an_ambiguous_name_in_the_path_gets_the_chooser(client: TestClient) -> None:
    doom = client.get("/rules/" + quote("파멸"), follow_redirects=False)
    assert doom.status_code == 200 and "어느 것을 찾으세요?" in doom.text
    choices = re.findall(r'<li><a class="card" href="([^"]+)"', doom.text)
    assert choices == ["/rules/Doom", "/rules/eh-%ED%8C%8C%EB%A9%B8"]
    assert '<meta name="robots" content="noindex">' in doom.text
    missing = client.get("/rules/qqq_zzz_nothing", follow_redirects=False)
    assert missing.status_code == 404


def test_forgiving_redirects_stay_on_the_root_path(tmp_path: Path) -> None:
    settings = Settings(data_dir=DATA, index_dir=tmp_path / "index", root_path="/rules-ko",
                        public_base_url="https://rules.example.org")
    with TestClient(create_app(settings), base_url="https://rules.example.org") as client:
        for path in ("/rules-ko/rules/attack-of-opportunity", "/rules/attack-of-opportunity"):
            response = client.get(path, follow_redirects=False)
            assert response.headers["location"] == "/rules-ko" + AOO, path


@pytest.mark.parametrize("target", [
    "/rules/" + quote("틈새") + "+" + quote("공격"), "/rules/attack-of-opportunity",
    "/rules/" + quote("서지"), "/go/AoO", "/go/" + quote("클루"),
    "/rules/%2F%2Fevil.example%2FSurge", "/rules//evil.example/surge",
])
def test_forgiving_redirects_from_the_real_server_are_paths(live_server: str,
                                                            target: str) -> None:
    port = live_server.rsplit(":", 1)[1]
    reply = fetch(live_server, target, headers={"host": f"localhost:{port}"})
    if 300 <= reply.status < 400:
        location = reply.headers["location"]
        assert location.startswith("/") and not location.startswith("//"), location
    else:
        assert reply.status == 404, target
