"""HTTP hygiene: compression, cache headers, ETags and 304s, HEAD, and atomic reloads."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from starlette.requests import Request

from app.settings import Settings
from app.web.app import create_app
from app.web.state import reload_library
from tests.conftest import DATA, LOCAL


def _static_url(client: TestClient, name: str) -> str:
    html = client.get("/").text
    match = re.search(rf'/static/{re.escape(name.rsplit(".", 1)[0])}\.[0-9a-f]{{10}}\.'
                      rf'{name.rsplit(".", 1)[1]}', html)
    assert match is not None, name
    return match[0]


@pytest.mark.parametrize("url", ["/", "/rules/Skill_Test_Timing", "/api/sources/eh-reference",
                                 "/api/search?q=카드"])
def test_pages_and_api_are_compressed(client: TestClient, url: str) -> None:
    response = client.get(url, headers={"accept-encoding": "gzip"})
    assert response.headers["content-encoding"] == "gzip"


def test_static_files_have_hashed_immutable_names(client: TestClient) -> None:
    for name in ("style.css", "search.js"):
        url = _static_url(client, name)
        response = client.get(url, headers={"accept-encoding": "gzip"})
        assert response.status_code == 200
        assert response.headers["cache-control"] == "public, max-age=31536000, immutable"
        assert response.headers["content-encoding"] == "gzip"
    plain = client.get("/static/style.css")
    assert plain.status_code == 200 and "immutable" not in plain.headers["cache-control"]
    assert client.get("/static/style.0000000000.css").status_code == 404


def test_etag_and_not_modified(client: TestClient) -> None:
    first = client.get("/rules/Skill_Test_3")
    etag = first.headers["etag"]
    assert etag.startswith('W/"')
    again = client.get("/rules/Skill_Test_3", headers={"if-none-match": etag})
    assert again.status_code == 304 and again.content == b""
    api = client.get("/api/entries/Skill_Test_3")
    assert client.get("/api/entries/Skill_Test_3",
                      headers={"if-none-match": api.headers["etag"]}).status_code == 304
    other = client.get("/rules/Skill_Test_3", headers={"cookie": "owned=tfa"})
    assert other.headers["etag"] != etag


def test_head_is_supported(client: TestClient) -> None:
    for url in ("/", "/rules/Skill_Test_3", "/api/entries/Skill_Test_3", "/timing"):
        response = client.head(url)
        assert response.status_code == 200, url
        assert response.content == b""


def test_failed_reload_keeps_serving_and_good_reload_switches(tmp_path: Path) -> None:
    data = tmp_path / "data"
    shutil.copytree(DATA, data)
    app = create_app(Settings(data_dir=data, index_dir=tmp_path / "index"))
    with TestClient(app, base_url=LOCAL) as test_client:
        before = test_client.get("/readyz").json()["version"]
        etag = test_client.get("/rules/Skill_Test_3").headers["etag"]
        (data / "ahlcg-rules.json").write_text('[{"id": "broken"', encoding="utf-8")
        assert reload_library(app.state, data, tmp_path / "index") is False
        assert test_client.get("/readyz").json()["version"] == before
        assert test_client.get("/rules/Skill_Test_3").status_code == 200

        shutil.copy(DATA / "ahlcg-rules.json", data / "ahlcg-rules.json")
        text = (data / "ahlcg-rules.json").read_text(encoding="utf-8")
        (data / "ahlcg-rules.json").write_text(text.replace("틈새 공격", "틈새 공격!"),
                                               encoding="utf-8")
        assert reload_library(app.state, data, tmp_path / "index") is True
        assert test_client.get("/readyz").json()["version"] != before
        assert test_client.get("/api/entries/Attack_of_Opportunity").json()["title"] == "틈새 공격!"
        assert test_client.get("/rules/Skill_Test_3").headers["etag"] != etag


def test_trusted_proxy_headers_only_from_trusted_proxies(tmp_path: Path) -> None:
    settings = Settings(data_dir=DATA, index_dir=tmp_path / "index", trusted_proxies="10.0.0.0/8",
                        allowed_hosts="rules.example.org,localhost")
    app = create_app(settings)

    def where(request: Request) -> dict[str, object]:
        return {"url": str(request.url), "client": request.client.host if request.client else None}

    app.add_api_route("/api/where", where)
    # Each proxy appends: the rightmost value is the one our proxy wrote; the rest is the
    # client's own claim.
    headers = {"x-forwarded-host": "evil.example, rules.example.org",
               "x-forwarded-proto": "http, https",
               "x-forwarded-for": "6.6.6.6, 198.51.100.7, 10.0.0.2"}
    with TestClient(app, base_url=LOCAL, client=("10.1.2.3", 5000)) as proxied:
        answer = proxied.get("/api/where", headers=headers).json()
        assert answer == {"url": "https://rules.example.org/api/where", "client": "198.51.100.7"}
        spoofed = proxied.get("/api/where", headers={"x-forwarded-host": "evil.example"})
        assert spoofed.status_code == 400
    with TestClient(app, base_url=LOCAL, client=("203.0.113.9", 5000)) as direct:
        assert direct.get("/api/where", headers=headers).json() == {
            "url": "http://localhost/api/where", "client": "203.0.113.9"}
