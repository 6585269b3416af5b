"""Attacks on absolute links, against the real server: `Host`, forwarded headers, `Location`.

Before the fix, one request with `Host: evil.example` made every later visitor's copy of the
page (canonical, og:url, "링크 복사") point at evil.example, through the response cache.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import pytest

from bench.server import running_server
from tests.conftest import DATA
from tests.raw import exchange, fetch, responses

PAGES = ["/rules/Attack_of_Opportunity", "/", "/timing", "/search?q=%EB%8B%A8%EC%84%9C",
         "/sources/ahlcg-reference"]
_ABSOLUTE = re.compile(r'(?:href|content|data-url)="(https?://[^/"]+)')


def _hosts_in(text: str) -> set[str]:
    return set(_ABSOLUTE.findall(text))


@pytest.fixture(scope="module")
def proxied(index_dir: Path) -> Iterator[str]:
    """Behind a trusted proxy on loopback, public name rules.test."""
    env = {"RULES_DATA_DIR": str(DATA), "RULES_INDEX_DIR": str(index_dir),
           "RULES_TRUSTED_PROXIES": "127.0.0.1", "RULES_ALLOWED_HOSTS": "rules.test"}
    with running_server(env) as (base, _):
        yield base


@pytest.fixture(scope="module")
def elsewhere(index_dir: Path) -> Iterator[str]:
    """Trusting a proxy network the requests do not come from."""
    env = {"RULES_DATA_DIR": str(DATA), "RULES_INDEX_DIR": str(index_dir),
           "RULES_TRUSTED_PROXIES": "10.0.0.0/8"}
    with running_server(env) as (base, _):
        yield base


@pytest.mark.parametrize("encoding", ["identity", "gzip"])
@pytest.mark.parametrize("page", PAGES)
def test_a_foreign_host_cannot_poison_the_page(live_server: str, page: str,
                                               encoding: str) -> None:
    attack = fetch(live_server, page, headers={"host": "evil.example",
                                               "accept-encoding": encoding})
    assert attack.status == 400 and attack.headers["cache-control"] == "no-store"
    assert b"evil.example" not in attack.body
    plain = fetch(live_server, page, headers={"accept-encoding": encoding})
    assert plain.status == 200
    port = live_server.rsplit(":", 1)[1]
    assert _hosts_in(plain.text) == {f"http://127.0.0.1:{port}"}


def test_each_allowed_host_gets_its_own_links(live_server: str) -> None:
    port = live_server.rsplit(":", 1)[1]
    for host in (f"localhost:{port}", f"127.0.0.1:{port}", f"localhost:{port}"):
        page = fetch(live_server, PAGES[0], headers={"host": host})
        assert _hosts_in(page.text) == {f"http://{host}"}


def test_health_probes_answer_whatever_the_host(live_server: str) -> None:
    # Kubernetes probes send the pod's address as Host; the answers do not depend on it.
    for path in ("/healthz", "/readyz"):
        assert fetch(live_server, path, headers={"host": "10.1.2.3:8000"}).status == 200


def test_only_the_nearest_proxys_forwarded_host_counts(proxied: str) -> None:
    forged = {"host": "rules.test", "x-forwarded-host": "rules.test, evil.example",
              "x-forwarded-proto": "https"}
    # The rightmost value is what our proxy wrote: here the client's forged one slipped in
    # last, so it is validated like a Host header and refused.
    assert fetch(proxied, PAGES[0], headers=forged).status == 400
    honest = {"host": "internal:8000", "x-forwarded-host": "evil.example, rules.test",
              "x-forwarded-proto": "http, https"}
    page = fetch(proxied, PAGES[0], headers=honest)
    assert page.status == 200 and _hosts_in(page.text) == {"https://rules.test"}
    # A client that talks to the app directly with a raw Host fares no better.
    assert fetch(proxied, PAGES[0], headers={"host": "evil.example"}).status == 400


def test_an_untrusted_client_cannot_use_forwarded_headers(elsewhere: str) -> None:
    port = elsewhere.rsplit(":", 1)[1]
    attack = fetch(elsewhere, PAGES[0], headers={"x-forwarded-host": "evil.example",
                                                 "x-forwarded-proto": "https"})
    assert _hosts_in(attack.text) == {f"http://127.0.0.1:{port}"}
    assert fetch(elsewhere, PAGES[0], headers={"host": "evil.example"}).status == 400


@pytest.mark.parametrize("target", ["/rules/Attack_of_Opportunity/", "/timing/?x=1",
                                    "/rules/" + quote("틈새 공격"), "/go/" + quote("틈새공격"),
                                    "/go/qqqzzz"])
def test_redirects_are_relative(live_server: str, target: str) -> None:
    port = live_server.rsplit(":", 1)[1]
    reply = fetch(live_server, target, headers={"host": f"localhost:{port}"})
    assert 300 <= reply.status < 400
    location = reply.headers["location"]
    assert location.startswith("/") and not location.startswith("//"), location


@pytest.mark.parametrize("path", ["/rules/Attack_of_Opportunity", "/", "/healthz"])
@pytest.mark.parametrize("second", ["evil.example", "same"])
def test_two_host_headers_get_400(live_server: str, path: str, second: str) -> None:
    # #20 L8: RFC 9112 §3.2 says 400 for more than one Host; both were accepted.
    host = live_server.removeprefix("http://")
    other = host if second == "same" else second
    answer = responses(exchange(live_server, (f"GET {path} HTTP/1.1\r\nHost: {host}\r\n"
                                              f"Host: {other}\r\nConnection: close\r\n\r\n"
                                              ).encode()))
    wrong = fetch(live_server, path.replace("/healthz", "/"), headers={"host": "evil.example"})
    assert [a.status for a in answer] == [400]
    # The very refusal a wrong Host gets.
    assert answer[0].body == wrong.body and answer[0].headers["cache-control"] == "no-store"


# --- The refusal an admin meets, and `lan` (#25) ----------------------------------------------

def test_a_refused_host_gets_a_korean_page_naming_the_setting(live_server: str) -> None:
    page = fetch(live_server, "/rules/Surge", headers={"host": "192.168.0.10:8000",
                                                        "accept": "text/html"})
    assert page.status == 400 and page.headers["content-type"].startswith("text/html")
    assert page.headers["cache-control"] == "no-store"
    assert "들어올 수 없습니다" in page.text and "RULES_ALLOWED_HOSTS" in page.text
    # Nothing else of the configuration: not the hosts it does answer, nor the data folder.
    for secret in ("localhost", "127.0.0.1", str(DATA), "RULES_PUBLIC_BASE_URL", "192.168.0.10"):
        assert secret not in page.text.split("<main", 1)[1].split("</main>", 1)[0], secret
    api = fetch(live_server, "/api/entries/Surge", headers={"host": "evil.example"})
    assert api.status == 400 and api.headers["content-type"] == "application/json"
    error = json.loads(api.body)["error"]
    assert error["status"] == 400 and "RULES_ALLOWED_HOSTS" in error["hint"]


@pytest.fixture(scope="module")
def on_the_lan(index_dir: Path) -> Iterator[str]:
    """RULES_ALLOWED_HOSTS=lan, as compose's RULES_LAN sets it."""
    env = {"RULES_DATA_DIR": str(DATA), "RULES_INDEX_DIR": str(index_dir),
           "RULES_ALLOWED_HOSTS": "lan"}
    with running_server(env) as (base, _):
        yield base


@pytest.mark.parametrize("host", ["192.168.0.10:8000", "10.0.0.7", "172.20.1.2:8000",
                                  "[fe80::1]:8000", "[fd00::7]", "clubbox", "clubbox.local:8000",
                                  "rules.home.arpa", "localhost:8000", "127.0.0.1"])
def test_lan_answers_for_the_boxs_names_and_local_addresses(on_the_lan: str, host: str) -> None:
    page = fetch(on_the_lan, "/timing", headers={"host": host})
    assert page.status == 200, host
    assert f'<link rel="canonical" href="http://{host}/timing">' in page.text


@pytest.mark.parametrize("host", ["evil.example", "8.8.8.8", "[2001:4860::8888]",
                                  "rules.example.org", "local.evil.example", "evil.lan.example"])
def test_lan_still_refuses_names_others_can_point_here(on_the_lan: str, host: str) -> None:
    assert fetch(on_the_lan, "/timing", headers={"host": host}).status == 400, host
