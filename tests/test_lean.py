"""Lean calls (`app.web.lean`): a `lean` row's answer is FastAPI's own answer for the same
request, header for header and byte for byte, for good and hostile input alike."""

from __future__ import annotations

import unicodedata
from collections.abc import Iterator
from typing import Annotated, Any

import pytest
from fastapi import Query, Request
from fastapi.responses import Response
from fastapi.testclient import TestClient

from app.settings import Settings
from app.web import routes
from app.web.app import create_app
from app.web.lean import plan_call
from app.web.routes import ROUTES
from app.web.routing import Route
from tests.conftest import DATA, LOCAL
from tests.test_front import _answer  # status, the raw header list in order, the raw body

CONFIGS = {
    "default": {},
    "no cache, public base and root path": {
        "cache_mb": 0, "public_base_url": "https://rules.example.org", "root_path": "/ko"},
}


@pytest.fixture(scope="module", params=list(CONFIGS))
def pair(request: pytest.FixtureRequest,
         tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[TestClient, TestClient]]:
    """(the app, the same app calling every route through FastAPI)."""
    extra: dict[str, Any] = CONFIGS[request.param]
    settings = Settings(data_dir=DATA, index_dir=tmp_path_factory.mktemp("index"), **extra)
    base = extra.get("public_base_url", LOCAL)
    lean = create_app(settings)
    with TestClient(lean, base_url=base, raise_server_exceptions=False) as with_lean:
        framework = create_app(settings, lean.state.library, lean=False)
        with TestClient(framework, base_url=base, raise_server_exceptions=False) as without:
            yield with_lean, without


_NFD = unicodedata.normalize("NFD", "틈새공격")
#: Every lean route, with good input, refusals and hostile input.
URLS = (
    "/rules/Attack_of_Opportunity", "/rules/Attack_of_Opportunity?z=1&owned=x",
    "/rules/Attack_of_Opportunity/", "/rules/Attack_of_Opportunity/?q=1", "/rules/Nope",
    "/rules/Attack", f"/rules/{_NFD}", "/rules/틈새+공격", "/rules/attack-of-opportunity",
    "/rules/%3Cscript%3E", "/rules/a%00b", "/rules/" + "가" * 300,
    "/search", "/search?q=틈새 공격", "/search?q=조사자&page=2", "/search?q=a&q=틈새",
    "/search?q=틈새&page=0", "/search?q=틈새&page=abc", "/search?q=틈새&page=99999",
    "/search?q=틈새&page=", "/search?q=틈새&typed=1", "/search?q=틈새&typed=11",
    "/search?q=틈새&game=nope", "/search?q=틈새&source=nope", "/search?q=<script>alert(1)",
    "/search?q=" + "ㅌ" * 500,
    "/api/search?q=조사자", "/api/search?q=조사자&limit=5&offset=3",
    "/api/search?q=조사자&limit=abc", "/api/search?q=조사자&limit=0",
    "/api/search?q=조사자&limit=51", "/api/search?q=조사자&offset=-1",
    "/api/search?q=조사자&offset=1001", "/api/search?q=조사자&limit=1e3",
    "/api/search?q=조사자&limit=+5", "/api/search?q=조사자&limit=%205",
    "/api/search?q=조사자&limit=abc&offset=x&typed=22", "/api/search?q=조사자&limit=5&limit=7",
    "/api/search?q=조사자&game=eh", "/api/search?q=조사자&source=nope",
    "/api/search?q=<b>&typed=1", "/api/search?q=%ED%95", "/api/search",
    "/api/suggest?q=틈", "/api/suggest?q=", "/api/suggest", "/api/suggest?q=%00",
    "/api/suggest?q=" + "x" * 1500,
)
VARIANTS: dict[str, dict[str, str]] = {
    "gzip": {"accept-encoding": "gzip, deflate, br"},
    "identity": {"accept-encoding": "identity"},
    "owned cookie, JSON errors": {"accept-encoding": "gzip", "cookie": "owned=dwl,ptc",
                                  "accept": "application/json"},
}


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_lean_answers_are_fastapis_byte_for_byte(
        pair: tuple[TestClient, TestClient], variant: str) -> None:
    with_lean, without = pair
    statuses = set()
    for url in URLS:
        for method in ("GET", "HEAD"):
            headers = VARIANTS[variant]
            ours = _answer(with_lean, method, url, headers)
            theirs = _answer(without, method, url, headers)
            assert ours == theirs, f"{method} {url} ({variant})"
            statuses.add(ours[0])
    # Good answers, redirects, refusals of bad values, and missing pages were all compared.
    assert {200, 301, 308, 404, 422} <= statuses, statuses
    assert not any(s >= 500 for s in statuses), statuses


def test_a_bad_value_gets_fastapis_message(pair: tuple[TestClient, TestClient]) -> None:
    with_lean, _ = pair
    answer = with_lean.get("/api/search?q=조사자&limit=abc&offset=-1")
    assert answer.status_code == 422
    message = answer.json()["error"]["message"]
    assert "limit: Input should be a valid integer" in message
    assert "offset: Input should be greater than or equal to 0" in message


def test_a_bug_in_a_lean_handler_gets_the_500_page(
        pair: tuple[TestClient, TestClient], monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*args: object, **kwargs: object) -> None:
        raise ValueError("a bug in the entry view")

    # The entry view is made once per data version (`routes._entry_view`): break the call.
    monkeypatch.setattr(routes, "_entry_view", broken)
    with_lean, without = pair
    # An owned-collections value no other test asks for: no stored answer to replay.
    headers = {"accept-encoding": "identity", "cookie": "owned=tic"}
    ours, theirs = (_answer(c, "GET", "/rules/Attack_of_Opportunity", headers)
                    for c in (with_lean, without))
    assert ours[0] == 500 and "a bug" not in ours[2].decode()
    assert ours == theirs


def test_the_lean_rows_are_the_ones_declared() -> None:
    lean = {route.path for route in ROUTES if route.lean}
    assert lean == {"/rules/{entry_id:path}", "/search", "/api/search", "/api/suggest"}
    for route in ROUTES:
        if route.lean:
            plan_call(route)  # every declared row can be called


def _async_handler(request: Request) -> Response:
    raise AssertionError


async def _coroutine(request: Request) -> Response:
    raise AssertionError


def _list_param(request: Request, tags: list[str] | None = None) -> Response:
    raise AssertionError


def _required(request: Request, q: str) -> Response:
    raise AssertionError


def _bounded(request: Request, n: Annotated[int, Query(ge=1, le=3)] = 1,
             word: str = "") -> Response:
    raise AssertionError


def test_a_handler_the_lean_layer_cannot_call_as_fastapi_would_is_refused() -> None:
    for handler in (_coroutine, _list_param, _required):
        with pytest.raises(TypeError):
            plan_call(Route("/x", handler, ("GET",), lean=True))
    plan = plan_call(Route("/x/{name}", _bounded, ("GET",), lean=True))
    assert [q.name for q in plan.query] == ["n", "word"]
    assert plan.query[1].check is None  # any string is a valid `word`
