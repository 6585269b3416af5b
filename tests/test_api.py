"""The JSON API contract that tests, the bench and integrations rely on."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import quote

import pytest
from fastapi.testclient import TestClient

from app.corpus.models import Corpus
from tests.conftest import DATA

ENTRY_KEYS = {"id", "title", "source", "game", "url", "parent", "path", "children", "text", "html",
              "links_to", "linked_from", "collection_codes"}


def test_sources(client: TestClient, corpus: Corpus) -> None:
    body = client.get("/api/sources").json()
    assert [s["id"] for s in body] == [s.id for s in corpus.sources]
    for item in body:
        assert {"id", "title", "game", "entries"} <= set(item)
        assert item["game"] in ("ahlcg", "eh")
        assert item["entries"] == len(corpus.source(item["id"]).entry_ids)  # type: ignore[union-attr]


def _count(nodes: list[Any]) -> int:
    return sum(1 + _count(node.get("rules", [])) for node in nodes)


def test_source_lists_entries_in_reading_order(client: TestClient, corpus: Corpus) -> None:
    body = client.get("/api/sources/ahlcg-reference").json()
    assert body["id"] == "ahlcg-reference" and body["game"] == "ahlcg"
    # Every node of the file, counted in the file itself.
    nodes = json.loads((DATA / "ahlcg-rules.json").read_text(encoding="utf-8"))
    assert len(body["entries"]) == _count(nodes)
    assert body["entries"][0] == {"id": "The_Thing_That_Should_Not_Be",
                                  "title": "여기에 존재하면 안 되는 것이...", "parent": None}
    assert client.get("/api/sources/nope").status_code == 404


def test_entry_contract(client: TestClient) -> None:
    body = client.get("/api/entries/Skill_Test_3").json()
    assert set(body) >= ENTRY_KEYS
    assert body["id"] == "Skill_Test_3"
    assert body["url"] == "/rules/Skill_Test_3"
    assert body["parent"] == "Skill_Test_Timing"
    assert body["path"] == [
        {"id": "Appendix_II_Timing_and_Gameplay", "title": "부록 2. 게임 플레이와 순서"},
        {"id": "Skill_Test_Timing", "title": "능력 테스트 순서"},
    ]
    assert body["text"].startswith("능력 테스트를 하는 조사자는")


def test_entry_text_is_plain_and_html_is_rendered(client: TestClient) -> None:
    body = client.get("/api/entries/Reaction_Opportunities").json()
    assert "[reaction]" not in body["text"] and "반응 격발" in body["text"]
    assert "<svg" in body["html"]


def test_entry_links_and_collection_codes(client: TestClient) -> None:
    body = client.get("/api/entries/Per_Investigator").json()
    assert "Location_Cards" in body["linked_from"]
    assert client.get("/api/entries/Bonded").json()["collection_codes"] == ["tcu", "tde"]


def test_the_old_field_name_still_answers_and_is_marked_deprecated(client: TestClient) -> None:
    # A forum bot written against the stable `cycles` keeps working for a release.
    assert client.get("/api/entries/Bonded").json()["cycles"] == ["tcu", "tde"]
    schema = client.get("/openapi.json").json()["components"]["schemas"]["EntryPage"]
    assert schema["properties"]["cycles"]["deprecated"] is True


def test_ids_with_spaces_are_encoded(client: TestClient) -> None:
    body = client.get("/api/entries/" + quote("Tarot Slot")).json()
    assert body["url"] == "/rules/Tarot%20Slot"


def test_unknown_entry_is_a_json_404(client: TestClient) -> None:
    response = client.get("/api/entries/Nope")
    assert response.status_code == 404
    assert response.headers["content-type"].startswith("application/json")
    assert response.json()["error"]["status"] == 404


def test_every_entry_is_served(client: TestClient, corpus: Corpus) -> None:
    for entry in corpus:
        response = client.get("/api/entries/" + quote(entry.id, safe=""))
        assert response.status_code == 200, entry.id
        assert response.json()["title"] == entry.title


@pytest.mark.parametrize("url", [
    "/api/search?q=조사자 공격", "/api/search?q=<script>&limit=3", "/api/suggest?q=틈",
    "/api/entries/Attack_of_Opportunity", "/api/sources", "/api/sources/ahlcg-reference",
    "/api/titles", "/api/changes", "/search-index.json", "/manifest.webmanifest", "/healthz",
    "/readyz", "/api/entries/Nope", "/api/search?limit=0",
])
def test_json_bytes_are_the_standard_encoders(client: TestClient, url: str) -> None:
    # #24: the fast encoder (pydantic-core) writes exactly what `json.dumps` wrote before:
    # compact, Korean as UTF-8, and `<`, `>`, `&` escaped.
    body = client.get(url).content
    expected = json.dumps(json.loads(body), ensure_ascii=False, separators=(",", ":"),
                          allow_nan=False)
    expected = expected.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    assert body == expected.encode("utf-8")
    assert b"<" not in body and b"&" not in body
