"""What changed, as a player and a feed reader see it: the entry's history line, its history
page, /changes, the Atom feed, old links, the English original's lag and the JSON API."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import feedparser
import pytest
from fastapi.testclient import TestClient

ATOM = "{http://www.w3.org/2005/Atom}"


def _main(html: str) -> str:
    return html.split('<main id="main"', 1)[1].split("</main>", 1)[0]


def test_an_entry_says_when_it_was_added_and_changed_and_links_its_history(
        client: TestClient) -> None:
    page = client.get("/rules/Concealed_X").text
    line = re.search(r'<p class="history-line"[^>]*>.*?</p>', page, re.S)
    assert line is not None
    assert 'data-changed="2024-07-31"' in line[0]
    assert '<a href="/history/Concealed_X">추가 <time datetime="2024-07-31">2024-07-31</time>' \
           in line[0] and "수정" not in line[0]
    page = client.get("/rules/Signature_Cards").text
    line = re.search(r'<p class="history-line".*?</p>', page, re.S)
    assert line is not None and "추가 <time datetime=\"2021-05-18\">2021-05-18</time> · 수정 " \
        '<time datetime="2023-09-04">2023-09-04</time> (3번) · 변경 이력' in line[0]


def test_the_history_page_shows_each_change_word_by_word_newest_first(
        client: TestClient) -> None:
    response = client.get("/history/Signature_Cards")
    assert response.status_code == 200
    main = _main(response.text)
    dates = re.findall(r'<h2 id="v-[^"]+" lang="ko"><time datetime="([^"]+)"', main)
    assert dates == sorted(dates, reverse=True) and dates[-1] == "2021-05-18"
    assert len(dates) == 4  # added, then 3 changes
    # Word-level marks, not colour alone: struck-through and underlined words.
    assert "<del>" in main and "<ins>" in main
    assert "<ins>플레이어로 하여금 (게임 효과로 인해) 다른 조사자의 전용 카드가" in main
    # The upstream commit and this revision's section of /changes.
    assert 'href="https://github.com/zzorba/arkham-cards-data/commit/928d3538c' in main
    assert 'href="/changes#r-2023-09-04-928d3538c"' in main
    # The first version is shown whole.
    assert main.count('<div class="diff-first">') == 1


def test_the_korean_page_says_when_the_english_original_changed_since(
        client: TestClient) -> None:
    page = client.get("/rules/Signature_Cards").text
    note = re.search(r'<p class="note note-compact lag-note".*?</p>', page, re.S)
    assert note is not None
    assert "English 원문이 <time datetime=\"2024-10-26\">2024-10-26</time>에 바뀌었지만 이 글은 " \
           '<time datetime="2023-09-04">2023-09-04</time> 이후 그대로입니다.' in note[0]
    assert 'href="/history/en/Signature_Cards#v-2024-10-26_a361db49d"' in note[0]
    # Where the Korean text changed after the English one did, nothing is said.
    assert "lag-note" not in client.get("/rules/Game").text
    # And never on the English pages themselves.
    assert "lag-note" not in client.get("/rules/en/Signature_Cards").text


def test_changes_lists_new_and_rewritten_apart_by_revision(client: TestClient) -> None:
    main = _main(client.get("/changes").text)
    sections = re.findall(r'<section class="revision" id="(r-[^"]+)"', main)
    # Newest first; where the errata's history begins (a 2026 snapshot, no news) goes last.
    assert sections[0] == "r-2025-11-15-8f761098d" and sections[-1] == "r-2026-06-29-08c7b8978"
    dates = [s[2:12] for s in sections[:-1]]
    assert dates == sorted(dates, reverse=True)
    section = main.split('id="r-2024-07-31-32077d0f7"', 1)[1].split("</section>", 1)[0]
    new = section.split('<h4 class="changed-heading" lang="ko">새 항목', 1)[1].split("</ul>", 1)[0]
    for entry in ("Concealed_X", "Concealed_Mini_Cards", "Keys2"):
        assert f'href="/rules/{entry}"' in new
    assert "어절" in new  # each with its size
    assert "바뀐 항목" in section and 'href="/rules/Patrol"' in section.split("새 항목")[1]
    # The first revision is counted, not listed.
    first = main.split('id="r-2021-05-18-ee3f66273"', 1)[1].split("</section>", 1)[0]
    assert "이력의 첫 판: 212개 항목" in first and "<li>" not in first


def test_changes_can_be_narrowed_to_one_source(client: TestClient) -> None:
    main = _main(client.get("/changes/ahlcg-reference-en").text)
    assert '<a href="/changes/ahlcg-reference-en" aria-current="page" lang="en">' in main
    assert 'href="/rules/en/' in main and 'href="/rules/Concealed_X"' not in main
    assert client.get("/changes/eh-reference").status_code == 404
    assert client.get("/changes/nope").status_code == 404


def test_the_feed_is_valid_atom_that_feed_readers_parse(client: TestClient) -> None:
    response = client.get("/changes.atom")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("application/atom+xml")
    feed = feedparser.parse(response.content)
    assert not feed.bozo, feed.get("bozo_exception")
    assert feed.version == "atom10"
    assert feed.feed.title == "룰사전 규칙 변경 내역"
    assert len(feed.entries) == 30
    assert "2026-06-29" not in {e.updated[:10] for e in feed.entries}
    assert all(e.link.startswith("http://localhost/changes#r-") for e in feed.entries)
    assert feed.entries[0].updated_parsed >= feed.entries[-1].updated_parsed
    # RFC 4287: the elements a feed and each entry must have, once each.
    root = ET.fromstring(response.content)
    assert root.tag == f"{ATOM}feed"
    for tag in ("id", "title", "updated", "author"):
        assert len(root.findall(f"{ATOM}{tag}")) == 1, tag
    self_link = [link for link in root.findall(f"{ATOM}link") if link.get("rel") == "self"]
    assert self_link and self_link[0].get("href") == "http://localhost/changes.atom"
    ids = [entry.findtext(f"{ATOM}id") for entry in root.findall(f"{ATOM}entry")]
    assert len(ids) == len(set(ids))
    for entry in root.findall(f"{ATOM}entry"):
        for tag in ("id", "title", "updated"):
            assert len(entry.findall(f"{ATOM}{tag}")) == 1, tag
        assert re.fullmatch(r"\d{4}-\d{2}-\d{2}T00:00:00Z", entry.findtext(f"{ATOM}updated")
                            or "")
    html = feed.entries[-1].content[0].value
    assert 'href="http://localhost/rules/' in html  # absolute links, read away from the site


def test_old_ids_redirect_permanently(client: TestClient) -> None:
    for path, target in (("/rules/Golden_Rule", "/rules/The_Golden_Rules"),
                         ("/rules/Swarming%20X", "/rules/Swarming"),
                         ("/rules/en/Evade_Action", "/rules/en/Evade"),
                         ("/history/Golden_Rule", "/history/The_Golden_Rules"),
                         ("/api/entries/Ignoring_All_Costs_2",
                          "/api/entries/Revelation_Ability_Priority")):
        response = client.get(path, follow_redirects=False)
        assert (response.status_code, response.headers["location"]) == (301, target), path


def test_the_index_dates_its_terms_for_the_since_last_visit_marks(client: TestClient) -> None:
    page = client.get("/sources/ahlcg-reference").text
    # The newest revision of any source: the errata's first, a snapshot of 2026-06-29.
    assert '<html lang="ko"' in page and 'data-changed="2026-06-29"' in page.split(">", 2)[1]
    assert re.search(r'<li data-changed="2024-07-31">\s*<a href="/rules/Concealed_X">', page)
    home = client.get("/").text
    assert '<a href="/changes">변경 내역</a>' in home


@pytest.mark.parametrize("path", ["/api/entries/Concealed_X", "/api/entries/Signature_Cards"])
def test_the_api_gives_each_entry_its_history(client: TestClient, path: str) -> None:
    body = client.get(path).json()
    history = body["history"]
    assert history["url"] == "/history/" + body["id"]
    assert history["last_changed"] >= (history["added"] or "")
    if body["id"] == "Signature_Cards":
        assert history["changes"] == 3 and history["lag"]["lang"] == "en"


def test_api_changes_is_typed_and_filterable(client: TestClient) -> None:
    schema = client.get("/openapi.json").json()
    assert "history" in schema["components"]["schemas"]["EntryPage"]["properties"]
    assert "/api/changes" in schema["paths"]
    body = client.get("/api/changes?source=ahlcg-faq").json()
    assert [s["source"] for r in body["revisions"] for s in r["sources"]] == ["ahlcg-faq"]
    assert body["revisions"][0]["revision"]["baseline"] is True
    assert client.get("/api/changes?source=eh-reference").status_code == 422


def test_a_player_of_a_recent_expansion_finds_its_rule(client: TestClient) -> None:
    # The report: 은신 (Concealed) found an errata line and Eldritch Horror entries,
    # never the rule, which the 2023 data did not have.
    for query in ("은신", "concealed"):
        results = client.get("/api/search", params={"q": query}).json()["results"]
        assert [r["id"] for r in results[:2]] == ["Concealed_X", "Concealed_Mini_Cards"]
