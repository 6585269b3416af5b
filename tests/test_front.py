"""The front layer (`app.web.front`): what it answers from memory is the framework's own
answer for the same request, header for header, and the framework does not run for it."""

from __future__ import annotations

import gzip
import re
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from starlette.middleware import Middleware
from starlette.types import ASGIApp, Receive, Scope, Send

from app.settings import Settings
from app.web.app import FrontedApp, create_app
from tests.conftest import DATA, LOCAL


class _Counting:
    """Innermost middleware: counts the requests that reached the framework's handlers."""

    calls = 0

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            type(self).calls += 1
        await self.app(scope, receive, send)


def _counted(app: FastAPI) -> FastAPI:
    app.user_middleware.append(Middleware(_Counting))  # appended: the innermost layer
    return app


CONFIGS = {
    "default": {},
    "public base and root path": {"public_base_url": "https://rules.example.org",
                                  "root_path": "/ko"},
}


@pytest.fixture(scope="module", params=list(CONFIGS))
def pair(request: pytest.FixtureRequest,
         tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[TestClient, TestClient,
                                                                      str]]:
    """(the app, the same app with the front layer answering nothing, the base URL)."""
    extra: dict[str, Any] = CONFIGS[request.param]
    settings = Settings(data_dir=DATA, index_dir=tmp_path_factory.mktemp("index"), **extra)
    base = extra.get("public_base_url", LOCAL)
    front = _counted(create_app(settings))
    with TestClient(front, base_url=base) as with_front:
        plain = _counted(create_app(settings, front.state.library, front=False))
        with TestClient(plain, base_url=base) as without:
            yield with_front, without, base


def _urls(client: TestClient) -> list[str]:
    """Every kind of request the front layer answers, and a few it must pass on."""
    page = client.get("/rules/Attack_of_Opportunity").text
    static = sorted(set(re.findall(r'(?:href|src)="[^"]*?(/static/[^"?#]+)', page)))
    assert any(s.endswith(".css") for s in static) and any(s.endswith(".js") for s in static)
    return [
        "/healthz", "/readyz", *static, "/static/app-icon.svg", "/static/icon-192.png",
        "/favicon.ico", "/static/nope.css", "/sw.js", "/api/titles", "/timing", "/robots.txt",
        "/sitemap.xml", "/", "/rules/Attack_of_Opportunity", "/rules/Attack_of_Opportunity?z=1",
        "/api/entries/Attack_of_Opportunity", "/search?q=틈새 공격", "/api/search?q=조사자",
        "/api/suggest?q=틈", "/go/틈새공격", "/sources/ahlcg-reference", "/changes",
        "/rules/Nope", "/manifest.webmanifest",
    ]


VARIANTS: dict[str, dict[str, str]] = {
    "gzip": {"accept-encoding": "gzip, deflate, br"},
    "identity": {"accept-encoding": "identity"},
    "owned cookie": {"accept-encoding": "gzip", "cookie": "owned=dwl,ptc"},
}


def _answer(client: TestClient, method: str, url: str,
            headers: dict[str, str]) -> tuple[int, list[tuple[str, str]], bytes]:
    response = client.request(method, url, headers=headers, follow_redirects=False)
    # The raw header list, in order, as the app sent it (no decoding of the body either).
    raw = [(k.decode("latin-1").lower(), v.decode("latin-1"))
           for k, v in response.headers.raw]
    return response.status_code, raw, response.content


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_front_answers_are_the_frameworks_header_for_header(
        pair: tuple[TestClient, TestClient, str], variant: str) -> None:
    with_front, without, _ = pair
    for url in _urls(with_front):
        for method in ("GET", "HEAD"):
            headers = VARIANTS[variant]
            # The first request of each may compute and store the answer; the second is what
            # is known by then (from the front layer, or behind it in the framework's stack).
            for client in (with_front, without):
                _answer(client, method, url, headers)
            ours = _answer(with_front, method, url, headers)
            theirs = _answer(without, method, url, headers)
            assert ours == theirs, f"{method} {url} ({variant})"
            etags = [v for k, v in ours[1] if k == "etag"]
            if ours[0] == 200 and etags:
                revalidated = {**headers, "if-none-match": etags[0]}
                ours_304 = _answer(with_front, method, url, revalidated)
                assert ours_304[0] == 304, f"{method} {url} ({variant}): {ours_304[0]}"
                assert ours_304 == _answer(without, method, url, revalidated), url


def test_the_framework_runs_only_for_misses(pair: tuple[TestClient, TestClient, str]) -> None:
    with_front, _, _ = pair
    urls = [u for u in _urls(with_front) if u not in ("/static/nope.css", "/rules/Nope",
                                                      "/manifest.webmanifest")]
    for url in urls:
        with_front.get(url)  # computed and stored, where it is a page
    before = _Counting.calls
    for url in urls:
        for headers in VARIANTS.values():
            with_front.get(url, headers=headers)
            with_front.get(url, headers=headers)
    # The owned-cookie and identity variants of the pages are each computed once.
    computed = _Counting.calls - before
    pages = [u for u in urls if not u.startswith(("/static/", "/healthz", "/readyz",
                                                   "/favicon"))]
    assert computed <= 2 * len(pages), computed
    before = _Counting.calls
    for url in urls:
        for headers in VARIANTS.values():
            with_front.get(url, headers=headers)
    assert _Counting.calls == before  # everything known by now: the framework never ran


def test_misses_errors_and_refusals_still_pass_every_check(
        pair: tuple[TestClient, TestClient, str]) -> None:
    with_front, without, base = pair
    for client in (with_front, without):
        # The host check comes first: a cached page is not served for another host.
        client.get("/rules/Attack_of_Opportunity")
        wrong = client.get("/rules/Attack_of_Opportunity", headers={"host": "evil.example"})
        assert wrong.status_code == 400 and wrong.headers["content-security-policy"]
        assert "no-store" in wrong.headers["cache-control"]
        static = client.get("/static/app-icon.svg", headers={"host": "evil.example"})
        assert static.status_code == 400
        # The health probes answer whatever the host (Kubernetes sends the pod's IP).
        assert client.get("/healthz", headers={"host": "10.1.2.3"}).status_code == 200
        # The request limits come first too, with the security headers on their answer.
        long = client.get("/static/app-icon.svg?" + "x" * 20_000)
        assert long.status_code == 414 and long.headers["x-frame-options"] == "DENY"
        # Not every method of a known path is answered from memory.
        assert client.post("/healthz").status_code == 405
    assert base


def _framework_entries(app: FrontedApp) -> list[int]:
    """Counts the requests that entered FastAPI at all (its outermost layer), by wrapping the
    innermost app of the chain in front of it (`FrontedApp.front`)."""
    calls = [0]
    layer: Any = app.front
    while getattr(layer.app, "__self__", None) is not app:
        layer = layer.app
    framework = layer.app

    async def entering(scope: Scope, receive: Receive, send: Send) -> None:
        calls[0] += 1
        await framework(scope, receive, send)

    layer.app = entering
    return calls


def test_a_hit_never_enters_fastapi(tmp_path_factory: pytest.TempPathFactory) -> None:
    settings = Settings(data_dir=DATA, index_dir=tmp_path_factory.mktemp("index"))
    app = create_app(settings)
    with TestClient(app, base_url=LOCAL) as client:
        calls = _framework_entries(app)
        urls = ("/rules/Attack_of_Opportunity", "/robots.txt", "/healthz", "/readyz",
                "/static/app-icon.svg", "/favicon.ico")
        for url in urls:
            client.get(url)  # pages are computed and stored
        assert calls[0] == 2  # the two pages
        for url in urls:
            assert client.get(url).status_code == 200, url
            assert calls[0] == 2, url
        assert client.get("/rules/Nope").status_code == 404 and calls[0] == 3


def test_a_failure_in_front_of_the_framework_gets_the_500_page(
        tmp_path_factory: pytest.TempPathFactory) -> None:
    settings = Settings(data_dir=DATA, index_dir=tmp_path_factory.mktemp("index"))
    app = create_app(settings)

    async def broken(scope: Scope, receive: Receive, send: Send) -> None:
        raise ValueError("a bug in a layer in front of the framework")

    with TestClient(app, base_url=LOCAL, raise_server_exceptions=False) as client:
        chain: Any = app.front
        chain.app = broken
        answer = client.get("/rules/Attack_of_Opportunity")
    assert answer.status_code == 500 and "서버에서 오류가 발생했습니다" in answer.text
    assert answer.headers["cache-control"] == "no-store"
    assert "a bug" not in answer.text  # no traceback or detail in the page


def _server_scope(url: str, *headers: tuple[bytes, bytes], method: str = "GET",
                  host: bytes = b"testserver") -> dict[str, Any]:
    """The scope uvicorn makes for a request (what the protocol passes `known_answer`)."""
    path, _, query = url.partition("?")
    return {"type": "http", "asgi": {"version": "3.0", "spec_version": "2.3"},
            "http_version": "1.1", "server": ("127.0.0.1", 8000), "client": ("127.0.0.1", 5000),
            "scheme": "http", "root_path": "", "method": method, "path": path,
            "raw_path": path.encode(), "query_string": query.encode(), "state": {},
            "headers": [(b"host", host), *headers]}


def test_known_answers_are_what_the_front_layer_sends(
        pair: tuple[TestClient, TestClient, str]) -> None:
    with_front, _, base = pair
    app: Any = with_front.app
    host = base.split("://", 1)[1].encode()
    gzipped = (b"accept-encoding", b"gzip")
    for url in ("/healthz", "/readyz", "/robots.txt", "/static/app-icon.svg",
                "/rules/Attack_of_Opportunity"):
        sent = with_front.get(url, headers={"accept-encoding": "gzip"})  # stored, if a page
        known = app.known_answer(_server_scope(url, gzipped, host=host))
        assert known is not None and known.lines is not None, url
        headers = {k.decode(): v.decode() for k, v in known.headers}
        assert known.status == sent.status_code and dict(sent.headers) == headers, url
        # The test client decodes gzip.
        body = (gzip.decompress(known.body) if headers.get("content-encoding") == "gzip"
                else known.body)
        assert body == sent.content, url
    refused = [
        _server_scope("/rules/Attack_of_Opportunity", gzipped, host=b"evil.example"),
        _server_scope("/healthz", (b"host", b"evil.example"), host=host),  # two Host headers
        _server_scope("/healthz", method="POST", host=host),
        _server_scope("/healthz", *[(b"x-f%d" % i, b"v") for i in range(200)], host=host),
        _server_scope("/rules/Nope", host=host),
        _server_scope("/static/nope.css", host=host),
    ]
    for scope in refused:
        assert app.known_answer(scope) is None, scope["path"]
