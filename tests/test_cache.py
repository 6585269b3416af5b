"""The response cache: replays pages, splits by variant and encoding, empties on new data,
cannot be poisoned or outgrown, and the ETags and caching headers it sets."""

from __future__ import annotations

import functools
import http.client
import shutil
import time
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from app.settings import Settings
from app.web.app import FrontedApp, create_app
from app.web.hosts import public_base_of
from app.web.inputs import first_values, page_key
from app.web.state import reload_library
from bench.server import cpu_seconds, rss_kib, running_server
from tests.conftest import DATA, LOCAL
from tests.raw import fetch, responses, wait_for


def test_cached_pages_are_identical_and_follow_reloads(tmp_path: Path) -> None:
    data = tmp_path / "data"
    shutil.copytree(DATA, data)
    app = create_app(Settings(data_dir=data, index_dir=tmp_path / "index", cache_mb=4))
    with TestClient(app, base_url=LOCAL) as client:
        first = client.get("/rules/Attack_of_Opportunity")
        second = client.get("/rules/Attack_of_Opportunity")
        assert first.text == second.text and first.headers["etag"] == second.headers["etag"]
        assert second.headers["content-security-policy"]
        plain = client.get("/rules/Attack_of_Opportunity", headers={"accept-encoding": "identity"})
        assert "content-encoding" not in plain.headers and plain.text == first.text
        head = client.head("/rules/Attack_of_Opportunity")
        assert head.status_code == 200 and head.content == b""

        text = (data / "ahlcg-rules.json").read_text(encoding="utf-8")
        (data / "ahlcg-rules.json").write_text(text.replace("틈새 공격", "새 이름"),
                                               encoding="utf-8")
        assert reload_library(app.state, data, tmp_path / "index")
        after = client.get("/rules/Attack_of_Opportunity")
        assert "새 이름" in after.text and after.headers["etag"] != first.headers["etag"]


def test_errors_and_uncacheable_requests_are_not_stored(tmp_path: Path) -> None:
    app = create_app(Settings(data_dir=DATA, index_dir=tmp_path / "index", cache_mb=4))
    store = app.state.store
    with TestClient(app, base_url=LOCAL) as client:
        assert client.get("/timing").status_code == 200
        stored = len(store)
        assert stored == 1  # the store does keep 200s: the checks below can fail
        assert client.get("/rules/Nope").status_code == 404
        assert client.get("/api/search", params={"q": "x", "limit": 0}).status_code == 422
        assert client.get("/api/entries/Nope").status_code == 404
        # Overlong values of the parameters a page reads are answered, not stored.
        assert client.get("/search?q=" + "가" * 700).status_code == 200
        assert len(store) == stored
        # #20 H2: parameters the page does not read are not part of its key: the same answer,
        # from the store, whatever they hold (they were answered uncached, at full cost).
        padded = client.get("/timing?pad=" + "x" * 100 + "&z=1")
        assert padded.status_code == 200 and len(store) == stored
        assert padded.headers["etag"] == client.get("/timing").headers["etag"]
        # A repeated parameter is read as the handler reads it: the last value.
        assert client.get("/api/suggest?q=a&q=b").json() == client.get("/api/suggest?q=b").json()


def test_go_links_from_forums_are_one_search_not_one_per_click(tmp_path: Path) -> None:
    app = create_app(Settings(data_dir=DATA, index_dir=tmp_path / "index", cache_mb=4))
    with TestClient(app, base_url=LOCAL) as client:
        first = client.get("/go/틈새공격", follow_redirects=False)
        stored = len(app.state.store)
        gate = app.state.gate
        held = [gate.try_enter() for _ in range(gate.slots)]  # no search slot left
        assert all(held)
        try:
            again = client.get("/go/틈새공격", follow_redirects=False)
        finally:
            for _ in held:
                gate.leave()
    assert first.status_code == again.status_code == 302
    assert again.headers["location"] == first.headers["location"] == "/rules/Attack_of_Opportunity"
    assert stored == 1 and len(app.state.store) == 1


def test_the_charge_holds_under_a_flood_of_unique_keys(tmp_path: Path) -> None:
    cap = 256 * 1024
    app = create_app(Settings(data_dir=DATA, index_dir=tmp_path / "index", cache_mb=1))
    app.state.store.max_bytes = cap
    with TestClient(app, base_url=LOCAL) as client:
        for n in range(300):
            assert client.get("/api/suggest", params={"q": f"{n} {'가' * 150}"}).status_code == 200
    assert 0 < app.state.store.bytes <= cap


def test_a_flood_of_one_off_keys_does_not_evict_pages_read_twice(tmp_path: Path) -> None:
    app = create_app(Settings(data_dir=DATA, index_dir=tmp_path / "index", cache_mb=1))
    app.state.store.max_bytes = 512 * 1024
    with TestClient(app, base_url=LOCAL) as client:
        for _ in range(2):
            page = client.get("/rules/Attack_of_Opportunity")
        for n in range(400):
            client.get("/api/suggest", params={"q": f"쿼리{n}"})
        before = len(app.state.store)
        assert client.get("/rules/Attack_of_Opportunity").text == page.text
        assert len(app.state.store) == before  # a hit: nothing new was stored


def test_cookie_spelling_cannot_give_others_a_personal_page(live_server: str) -> None:
    # Starlette reads "owned =none" as the cookie "owned"; the cache key must read it so too.
    for cookie in ("owned =none", " owned=none", "owned= none", "x=1; owned =none"):
        personal = fetch(live_server, "/sources/ahlcg-reference", headers={"cookie": cookie})
        assert "항목 숨김" in personal.text, cookie
        assert personal.headers["cache-control"] == "private, no-cache"
        shared = fetch(live_server, "/sources/ahlcg-reference")
        assert "항목 숨김" not in shared.text, cookie


def test_cache_busting_requests_do_not_grow_the_worker(index_dir: Path) -> None:
    # Before: unknown parameters made new entries and keys were not counted; 25,000 padded
    # requests grew a worker by 409 MiB. 2,000 such requests carry 32 MB of padding.
    env = {"RULES_DATA_DIR": str(DATA), "RULES_INDEX_DIR": str(index_dir), "RULES_CACHE_MB": "4"}
    with running_server(env) as (base, process):
        address = base.removeprefix("http://")
        connection = http.client.HTTPConnection(address, timeout=10)
        for n in range(200):  # warm-up: allocator arenas, first renders
            connection.request("GET", f"/api/suggest?q=&p={n}")
            connection.getresponse().read()
        start = rss_kib(process.pid)
        pad = "x" * 16_000
        for n in range(2_000):
            connection.request("GET", f"/api/suggest?q=&p={n}&pad={pad}")
            response = connection.getresponse()
            response.read()
            assert response.status == 200
        connection.close()
        grown = rss_kib(process.pid) - start
    assert grown < 8 * 1024, f"worker grew by {grown} KiB"


def test_etags_name_the_representation(client: TestClient) -> None:
    surge = client.get("/rules/Surge").headers["etag"]
    for url in ("/rules/DoesNotExist", "/rules/Attack_of_Opportunity", "/go/Surge",
                "/api/entries/Surge", "/api/search?q=x&limit=0"):
        reply = client.get(url, headers={"if-none-match": surge}, follow_redirects=False)
        assert reply.status_code != 304, url
    assert client.get("/rules/Surge", headers={"if-none-match": surge}).status_code == 304
    assert client.get("/rules/Surge", headers={"if-none-match": f'"x", {surge}'}
                      ).status_code == 304
    plain = client.get("/rules/Surge", headers={"accept-encoding": "identity"})
    assert plain.headers["etag"] != surge  # the gzip and identity bodies differ
    owned = client.get("/rules/Surge", headers={"cookie": "owned=tfa"})
    assert owned.headers["etag"] != surge


def test_if_none_match_star_only_for_pages_that_exist(client: TestClient) -> None:
    assert client.get("/rules/Surge", headers={"if-none-match": "*"}).status_code == 304
    for url in ("/rules/DoesNotExist", "/api/entries/Nope", "/api/search?q=x&limit=0"):
        assert client.get(url, headers={"if-none-match": "*"}).status_code in (404, 422), url


def test_caching_headers_say_what_a_shared_cache_may_keep(client: TestClient) -> None:
    entry = client.get("/rules/Surge")
    assert entry.headers["cache-control"] == (
        "public, max-age=0, s-maxage=300, stale-while-revalidate=60, stale-if-error=86400")
    assert entry.headers["vary"] == "Accept-Encoding, Cookie"
    api = client.get("/api/entries/Surge")
    assert api.headers["vary"] == "Accept-Encoding"  # the API ignores the cookie
    personal = client.get("/rules/Surge", headers={"cookie": "owned=tfa"})
    assert personal.headers["cache-control"] == "private, no-cache"
    assert client.get("/rules/Nope").headers["cache-control"] == "no-store"
    assert client.get("/settings").headers["cache-control"] == "private, no-cache"
    assert client.get("/healthz").headers["cache-control"] == "no-store"


@pytest.mark.parametrize("refusal", ["gzip;q=0, identity", "gzip; q=0.000", "*;q=0",
                                     "identity, *;q=0", "br, x-gzip;q=0, gzip;q=0"])
def test_a_client_refusing_gzip_never_gets_it(live_server: str, refusal: str) -> None:
    # #20 L8: `Accept-Encoding: gzip;q=0, identity` was answered gzipped, also from the cache.
    for path in ("/rules/Surge", "/static/style.css", "/api/entries/Surge"):
        fetch(live_server, path, headers={"accept-encoding": "gzip"})  # stores the gzip copy
        answer = fetch(live_server, path, headers={"accept-encoding": refusal})
        assert answer.status == 200 and "content-encoding" not in answer.headers, (path, refusal)
        answer.body.decode("utf-8")  # plain text, not gzip
    assert fetch(live_server, "/rules/Surge", headers={"accept-encoding": "gzip;q=0.5"}
                 ).headers.get("content-encoding") == "gzip"


def test_answers_of_the_data_version_cost_nothing_whatever_the_query(index_dir: Path) -> None:
    # #20 H2: /search-index.json?z=<random> cost 1.1-1.5 s of CPU each (0 answers in 20 s
    # under wrk -c50), /search-texts.json was never cached (over the store's item limit), and
    # /timing?z=, /api/titles?z= cost tens of ms each.
    env = {"RULES_DATA_DIR": str(DATA), "RULES_INDEX_DIR": str(index_dir),
           "RULES_PUBLIC_BASE_URL": "http://localhost"}
    paths = ("/search-index.json", "/search-texts.json", "/api/titles", "/timing",
             "/sitemap.xml", "/sw.js", "/robots.txt")
    with running_server(env) as (base, process):
        start = cpu_seconds([process.pid])
        tags: dict[str, set[str]] = {path: set() for path in paths}
        for n in range(12):
            for path in paths:
                for encoding in ("gzip", "identity"):
                    answer = fetch(base, f"{path}?z={n}-{encoding}&v=%00{n}",
                                   headers={"host": "localhost",
                                            "accept-encoding": encoding})
                    assert answer.status == 200, (path, answer.status)
                    tags[path].add(answer.headers["etag"])
        spent = cpu_seconds([process.pid]) - start
        revalidated = fetch(base, "/search-index.json?z=again", headers={
            "host": "localhost", "accept-encoding": "gzip",
            "if-none-match": sorted(tags["/search-index.json"])[0]})
    # One tag per encoding, whatever the query string said.
    assert all(len(found) == 2 for found in tags.values()), tags
    assert revalidated.status in (200, 304)
    # 168 answers, two of them a megabyte, from memory: far below one build of the index.
    assert spent < 1.0, f"{spent:.2f} s of CPU for 168 answers"


def test_a_burst_of_first_requests_computes_the_answer_once(index_dir: Path,
                                                              tmp_path: Path) -> None:
    # #20 H2: 20 concurrent first requests for /search-index.json each computed it. Any
    # answer's misses of one key are now computed once at a time (single flight): a burst of
    # first requests for one search waits for the one computation, then gets it from the store.
    # The server says what it computes (one debug line per answer: RULES_LOG_LEVEL=debug).
    import socket

    log = tmp_path / "server.log"
    env = {"RULES_DATA_DIR": str(DATA), "RULES_INDEX_DIR": str(index_dir),
           "RULES_LOG_LEVEL": "debug"}
    query = "%EC%A1%B0%EC%82%AC%EC%9E%90%EA%B0%80%20%EA%B3%B5%EA%B2%A9%20%ED%8B%88%EC%84%B8"
    with running_server(env, log_path=log) as (base, _):
        host, port = base.removeprefix("http://").rsplit(":", 1)
        for n, count in enumerate((1, 30)):
            target = f"/search?q={query}%20{n}"
            sockets = [socket.create_connection((host, int(port)), timeout=30)
                       for _ in range(count)]
            time.sleep(0.3)  # every connection accepted: the requests arrive together
            request = (f"GET {target} HTTP/1.1\r\nHost: {host}:{port}\r\n"
                       "Connection: close\r\n\r\n").encode()
            for sock in sockets:
                sock.sendall(request)
            answers = []
            for sock in sockets:
                with sock:
                    received = b""
                    while chunk := sock.recv(1 << 16):
                        received += chunk
                    answers.extend(responses(received))
            assert [a.status for a in answers] == [200] * count
            assert len({a.headers["etag"] for a in answers}) == 1
            assert wait_for(functools.partial(_seen, log, target))
            time.sleep(0.5)
            assert _computed(log, target) == 1, f"{_computed(log, target)} of {count} computed"


def _seen(log: Path, target: str) -> bool:
    return _computed(log, target) >= 1


def _computed(log: Path, target: str) -> int:
    return sum(f"computed {target} in " in line
               for line in log.read_text(encoding="utf-8").splitlines())


@pytest.mark.parametrize("query,headers", [
    (b"", [(b"host", b"127.0.0.1:8000")]),
    (b"q=%ED%81%B4&z=1", [(b"host", b"127.0.0.1:8000"), (b"accept-encoding", b"gzip")]),
    (b"", [(b"host", b""), (b"host", b"evil.example"), (b"cookie", b"owned=ahlcg-core")]),
    (b"q=a", [(b"cookie", b"x=1"), (b"if-none-match", b'W/"a"'), (b"if-none-match", b"*")]),
])
def test_a_hit_is_keyed_as_the_answer_was_stored(client: TestClient, query: bytes,
                                                 headers: list[tuple[bytes, bytes]]) -> None:
    # The lookup reads the headers in one pass of its own; the key must be the stored one's.
    app = client.app
    assert isinstance(app, FrontedApp) and app.front_layer is not None
    layer = app.front_layer
    for path in ("/rules/The_Thing_That_Should_Not_Be", "/search", "/api/suggest"):
        scope = {"type": "http", "method": "GET", "path": path, "raw_path": path.encode(),
                 "root_path": "", "query_string": query, "headers": headers, "scheme": "http",
                 "app": app}
        route = layer.table.mark(scope)
        assert route is not None and route.cache is not None
        found = layer.cache.lookup(scope, route)
        assert found is not None
        host, accept, tag = first_values(scope, b"host", b"accept-encoding", b"if-none-match")
        assert (found.if_none_match, found.gzip) == (tag, "gzip" in accept)
        assert found.base == public_base_of(host, scope, layer.cache.base_url)
        assert found.key == page_key(scope, params=route.cache.params, owned=route.cache.owned,
                                     base=found.base)
