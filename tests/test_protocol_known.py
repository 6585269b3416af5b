"""Answers the protocol writes itself (`BoundedHttpToolsProtocol._answer_known`), against the
real server over raw sockets: byte for byte what the same request gets through ASGI, and only
for requests every safety layer lets through.

A request that carries a body (`Content-Length: 0` is enough) never takes the protocol's own
path, so the same request with and without that header compares the two ways.
"""

from __future__ import annotations

import re
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote, urlsplit

import pytest

from bench.server import running_server

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[int, Path]]:
    folder = tmp_path_factory.mktemp("known")
    env = {"RULES_DATA_DIR": str(ROOT / "data"), "RULES_INDEX_DIR": str(folder / "index"),
           "RULES_WORKERS": "1"}
    log = folder / "server.log"
    with running_server(env, log_path=log) as (base, _):
        port = urlsplit(base).port
        assert port is not None
        yield port, log


def _exchange(port: int, request: bytes) -> bytes:
    """Everything the server sends for `request` on a new connection, until it closes."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(request)
        received = b""
        while chunk := sock.recv(65_536):
            received += chunk
    return received


def _request(port: int, method: str, url: str, *fields: str, version: str = "1.1") -> bytes:
    lines = [f"{method} {url} HTTP/{version}", f"Host: 127.0.0.1:{port}", *fields,
             "Connection: close"]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


def _both_ways(port: int, method: str, url: str, *fields: str,
               version: str = "1.1") -> tuple[bytes, bytes]:
    """(the answer with the protocol's path open, the answer through ASGI), dates left out."""
    def undated(answer: bytes) -> bytes:
        return re.sub(rb"\r\ndate: [^\r]*", b"", answer, count=1)

    plain = _request(port, method, url, *fields, version=version)
    with_body = _request(port, method, url, *fields, "Content-Length: 0", version=version)
    return undated(_exchange(port, plain)), undated(_exchange(port, with_body))


def _urls(port: int) -> list[str]:
    page = _exchange(port, _request(port, "GET", "/rules/Attack_of_Opportunity")).decode()
    static = sorted(set(re.findall(r'(?:href|src)="[^"]*?(/static/[^"?#]+)', page)))
    assert static
    return ["/healthz", "/readyz", *static, "/favicon.ico", "/static/nope.css", "/robots.txt",
            "/sitemap.xml", "/sw.js", "/api/titles", "/rules/Attack_of_Opportunity",
            "/rules/Attack_of_Opportunity?z=1", "/api/search?q=" + quote("조사자"), "/rules/Nope"]


VARIANTS: dict[str, tuple[str, ...]] = {
    "gzip": ("Accept-Encoding: gzip, deflate, br",),
    "gzip refused": ("Accept-Encoding: gzip;q=0, identity",),
    "no accept-encoding": (),
    "owned cookie": ("Accept-Encoding: gzip", "Cookie: owned=dwl,ptc"),
}


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_the_protocols_answers_are_the_asgi_paths_byte_for_byte(
        server: tuple[int, Path], variant: str) -> None:
    port, _ = server
    fields = VARIANTS[variant]
    for url in _urls(port):
        for method in ("GET", "HEAD"):
            _both_ways(port, method, url, *fields)  # a page is computed and stored
            fast, slow = _both_ways(port, method, url, *fields)
            assert fast == slow, f"{method} {url} ({variant})"
            etag = re.search(rb"\r\netag: ([^\r]*)", fast)
            if fast.startswith(b"HTTP/1.1 200 ") and etag:
                fast, slow = _both_ways(port, method, url, *fields,
                                        f"If-None-Match: {etag[1].decode()}")
                assert fast.startswith(b"HTTP/1.1 304 "), f"{method} {url}: {fast[:40]!r}"
                assert fast == slow, f"{method} {url} ({variant}, 304)"


def test_http_1_0_gets_connection_close_either_way(server: tuple[int, Path]) -> None:
    port, _ = server
    for url in ("/healthz", "/rules/Attack_of_Opportunity"):
        fast, slow = _both_ways(port, "GET", url, version="1.0")
        assert fast == slow and b"\r\nconnection: close\r\n" in fast, url


def test_the_protocols_answers_pass_the_host_check(server: tuple[int, Path]) -> None:
    port, _ = server
    page = "/rules/Attack_of_Opportunity"
    _exchange(port, _request(port, "GET", page))  # stored
    for url in (page, "/static/app-icon.svg", "/robots.txt"):
        wrong = _exchange(port, f"GET {url} HTTP/1.1\r\nHost: evil.example\r\n"
                                "Connection: close\r\n\r\n".encode())
        assert wrong.startswith(b"HTTP/1.1 400 ") and b"content-security-policy" in wrong, url
        assert b"no-store" in wrong
    twice = _exchange(port, f"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
                            f"Host: evil.example\r\nConnection: close\r\n\r\n".encode())
    assert twice.startswith(b"HTTP/1.1 400 ")
    probe = _exchange(port, b"GET /healthz HTTP/1.1\r\nHost: 10.1.2.3\r\n"
                            b"Connection: close\r\n\r\n")
    assert probe.startswith(b"HTTP/1.1 200 ")


def test_the_protocols_answers_are_in_the_access_log(server: tuple[int, Path]) -> None:
    port, log = server
    marker = f"/healthz?seen={time.monotonic_ns()}"
    assert _exchange(port, _request(port, "GET", marker)).startswith(b"HTTP/1.1 200 ")
    line = f'"GET {marker} HTTP/1.1" 200'
    deadline = time.monotonic() + 5  # access lines are written in batches
    while line not in log.read_text(encoding="utf-8") and time.monotonic() < deadline:
        time.sleep(0.05)
    assert line in log.read_text(encoding="utf-8")


def test_many_answers_on_one_kept_connection(server: tuple[int, Path]) -> None:
    port, _ = server
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        for n in range(50):
            sock.sendall(f"GET /healthz?n={n} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n"
                         .encode())
            answer = b""
            while not answer.endswith(b'{"status":"ok"}'):
                chunk = sock.recv(65_536)
                assert chunk, f"closed after {n} answers"
                answer += chunk
            assert answer.startswith(b"HTTP/1.1 200 ") and answer.count(b"HTTP/1.1") == 1
