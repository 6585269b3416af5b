"""Security headers, path traversal, oversized requests and error pages without tracebacks."""

from __future__ import annotations

import http.client
import re
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from app.settings import Settings
from app.web.app import create_app
from tests.conftest import DATA, LOCAL


@pytest.mark.parametrize("url", ["/", "/rules/Skill_Test_3", "/api/entries/Skill_Test_3",
                                 "/search?q=단서", "/rules/Nope", "/api/search?q=x&limit=99"])
def test_security_headers_on_every_kind_of_response(client: TestClient, url: str) -> None:
    headers = client.get(url).headers
    csp = headers["content-security-policy"]
    assert "script-src 'self'" in csp and "style-src 'self'" in csp
    assert "unsafe-inline" not in csp and "unsafe-eval" not in csp
    assert "frame-ancestors 'none'" in csp
    assert headers["x-content-type-options"] == "nosniff"
    assert headers["x-frame-options"] == "DENY"
    assert headers["referrer-policy"] == "strict-origin-when-cross-origin"
    assert "camera=()" in headers["permissions-policy"]


def test_pages_have_no_inline_script_or_style(client: TestClient) -> None:
    # The CSP forbids them, so any that crept in would silently break.
    for url in ("/", "/timing", "/rules/Skill_Test_Timing", "/sources/eh-reference",
                "/search?q=단서", "/rules/Nope"):
        html = client.get(url).text
        assert not re.search(r"<script(?![^>]*\ssrc=)[^>]*>", html), url
        assert "<style" not in html and " style=" not in html, url
        assert not re.search(r"\son[a-z]+=", html), url


TRAVERSALS = [
    "/static/../app/main.py", "/static/%2e%2e/app/main.py", "/static/..%2fapp%2fmain.py",
    "/static/%2e%2e%2fpyproject.toml", "/static/....//pyproject.toml", "/static/style.css%00.js",
    "/static/%00", "/static//etc/passwd", "/static/%2fetc%2fpasswd", "/static/..\\pyproject.toml",
    "/rules/..%2f..%2fpyproject.toml", "/rules/%2e%2e", "/rules/..", "/rules/../../etc/passwd",
    "/static/../../../../etc/passwd", "/rules/%00",
    "/rules/..%5c..%5cpyproject.toml", "/sources/..%2f..%2fdata",
]


@pytest.mark.parametrize("url", TRAVERSALS)
def test_path_traversal_finds_nothing_outside_the_tree(live_server: str, url: str) -> None:
    # Sent byte for byte to the real server: HTTP clients would normalise the dots away.
    connection = http.client.HTTPConnection(live_server.removeprefix("http://"), timeout=10)
    try:
        connection.putrequest("GET", url, skip_accept_encoding=True)
        connection.endheaders()
        response = connection.getresponse()
        body = response.read().decode("utf-8", "replace")
    finally:
        connection.close()
    assert response.status in (400, 404), url
    assert "[project]" not in body and "root:" not in body and "create_app" not in body


def test_oversized_urls_are_refused_not_failed(client: TestClient) -> None:
    response = client.get("/search?q=" + "x" * 20_000)
    assert response.status_code == 414
    assert "주소가 너무 깁니다" in response.text
    assert client.get("/rules/" + "가" * 6_000).status_code == 414
    assert client.get("/api/search", params={"q": "x", "limit": "9" * 500}).status_code == 422


def test_not_found_pages_are_korean_and_suggest_the_closest_entries(client: TestClient) -> None:
    response = client.get("/rules/Attack_of_Oportunity")
    assert response.status_code == 404
    assert "혹시 이 항목을 찾으시나요?" in response.text
    assert 'href="/rules/Attack_of_Opportunity"' in response.text
    api = client.get("/api/entries/틈세공격").json()["error"]
    assert api["suggestions"][0]["id"] == "Attack_of_Opportunity"


def test_server_errors_never_show_a_traceback(tmp_path: Path) -> None:
    app = create_app(Settings(data_dir=DATA, index_dir=tmp_path / "index"))

    def explode() -> None:
        raise RuntimeError("secret internal detail")

    app.add_api_route("/explode", explode)
    app.add_api_route("/api/explode", explode)
    with TestClient(app, base_url=LOCAL, raise_server_exceptions=False) as test_client:
        page = test_client.get("/explode")
        assert page.status_code == 500
        assert "서버에서 오류가 발생했습니다" in page.text
        api = test_client.get("/api/explode")
        assert api.status_code == 500 and api.json()["error"]["status"] == 500
        for body in (page.text, api.text):
            assert "Traceback" not in body and "secret internal detail" not in body


@pytest.mark.parametrize(("method", "url", "allow"), [
    ("POST", "/api/sources", "GET, HEAD"),
    ("DELETE", "/rules/Surge", "GET, HEAD"),
    ("PUT", "/settings", "GET, HEAD, POST"),
    ("POST", "/healthz", "GET, HEAD"),
])
def test_wrong_methods_get_405_with_allow(client: TestClient, method: str, url: str,
                                          allow: str) -> None:
    response = client.request(method, url)
    assert response.status_code == 405
    assert response.headers["allow"] == allow
    assert response.headers["cache-control"] == "no-store"
