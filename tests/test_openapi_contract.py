"""The OpenAPI schema describes what the routes really send.

Every JSON route of the table declares its view (`Route.model`); here each one's real answers,
for typical requests and for refused ones, are validated against `/openapi.json` itself (JSON
Schema 2020-12, with `additionalProperties: false` from the views), so a field sent but not
declared, or declared but missing, fails.
"""

from __future__ import annotations

from typing import Any

import jsonschema_rs
import pytest
from fastapi.testclient import TestClient

from app.web.routes import ROUTES

#: Real requests per JSON route: answers the players' tools get, and the errors they can cause.
EXAMPLES: dict[str, list[str]] = {
    "/api/sources": ["/api/sources"],
    "/api/sources/{source_id}": ["/api/sources/ahlcg-reference", "/api/sources/eh-reference",
                                 "/api/sources/no-such-source"],
    "/api/entries/{entry_id}": [
        "/api/entries/Attack_of_Opportunity",  # sub-sections, backlinks, translation
        "/api/entries/Skill_Test_Timing",  # a timing table
        "/api/entries/faq/wilds/1",  # a FAQ question
        "/api/entries/en/Frost_Tokens",  # a translation
        "/api/entries/Attack_of_Oportunity",  # 404 with suggestions
        "/api/entries/Concealed_X",  # an entry new since 2023, with its history
    ],
    "/api/changes": ["/api/changes", "/api/changes?source=ahlcg-reference-en",
                     "/api/changes?source=eh-reference"],  # 422: no history
    "/api/search": [
        "/api/search?q=틈새 공격", "/api/search?q=서지",  # a synonym notice
        "/api/search?q=틈세 공격 규칙", "/api/search?q=", "/api/search?q=카드&game=eh&limit=50",
        "/api/search?q=카드&limit=0",  # 422
        "/api/search?q=카드&game=chess",  # 422
    ],
    "/api/suggest": ["/api/suggest?q=틈", "/api/suggest?q=ㅌㅅㄱㄱ", "/api/suggest?q="],
    "/api/titles": ["/api/titles"],
    "/search-index.json": ["/search-index.json"],
    "/search-texts.json": ["/search-texts.json"],
    # The bundled data has no translation but English: a language's files are a JSON 404
    # (tests/test_offline.py serves them from data with translations).
    "/search-index.{lang}.json": ["/search-index.de.json"],
    "/search-texts.{lang}.json": ["/search-texts.de.json"],
    "/manifest.webmanifest": ["/manifest.webmanifest"],
    "/healthz": ["/healthz"],
    "/readyz": ["/readyz"],
}


@pytest.fixture(scope="module")
def openapi(client: TestClient) -> dict[str, Any]:
    app: Any = client.app
    app.openapi_schema = None  # built afresh from today's route table
    schema: dict[str, Any] = app.openapi()
    return schema


def _schema_path(route_path: str) -> str:
    """`/api/entries/{entry_id:path}` → `/api/entries/{entry_id}`, as OpenAPI writes it."""
    return "/".join(part.split(":")[0] + ("}" if ":" in part else "")
                    for part in route_path.split("/"))


def test_every_json_route_is_in_the_schema_and_exercised_here(openapi: dict[str, Any]) -> None:
    declared = {_schema_path(r.path) for r in ROUTES if r.model is not None}
    assert declared == set(openapi["paths"])
    assert declared == set(EXAMPLES), "give each JSON route real examples above"


def _answer_schema(openapi: dict[str, Any], path: str, status: int) -> dict[str, Any]:
    responses = openapi["paths"][path]["get"]["responses"]
    answer = responses.get(str(status)) or responses[f"{str(status)[0]}XX"]
    content = answer["content"]
    schema: dict[str, Any] = content["application/json"]["schema"]
    # References point into the document's components: validate with them at hand.
    return {**schema, "components": openapi["components"]}


@pytest.mark.parametrize("path,url", [(p, u) for p, urls in EXAMPLES.items() for u in urls])
def test_real_answers_validate_against_the_schema(
    client: TestClient, openapi: dict[str, Any], path: str, url: str
) -> None:
    response = client.get(url)
    assert response.status_code < 500
    assert response.headers["content-type"].split(";")[0].endswith("json")
    validator = jsonschema_rs.Draft202012Validator(_answer_schema(openapi, path,
                                                                  response.status_code))
    errors = [f"{'/'.join(map(str, e.instance_path))}: {e.message}"[:300]
              for e in validator.iter_errors(response.json())]
    assert not errors, f"{url} ({response.status_code}):\n" + "\n".join(errors[:10])


def test_the_schema_is_strict_about_fields(openapi: dict[str, Any]) -> None:
    """A view's schema forbids undeclared fields, so the validation above can catch them."""
    entry = openapi["components"]["schemas"]["EntryPage"]
    assert entry["additionalProperties"] is False
    assert {"id", "title", "html", "sections", "backlinks"} <= set(entry["required"])


def test_errors_are_described_as_the_handler_sends_them(openapi: dict[str, Any]) -> None:
    search = openapi["paths"]["/api/search"]["get"]["responses"]
    assert "422" not in search  # FastAPI's own validation schema is not what is sent
    assert search["4XX"]["content"]["application/json"]["schema"]["$ref"].endswith(
        "/ErrorAnswer")
