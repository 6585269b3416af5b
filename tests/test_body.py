"""Request bodies and the one state-changing request, attacked on the real server.

Before the fix, `POST /settings` read any body whole before cutting it (three 200 MB posts
took a worker to 900 MiB), and any site's form, or an empty body, could set a visitor's
owned collections to "none" for 400 days.
"""

from __future__ import annotations

import socket
import time
from urllib.parse import urlsplit

from app.web.limits import BODY_TIMEOUT, MAX_BODY
from app.web.routes import SETTINGS_FORM
from tests.raw import exchange, fetch, responses

FORM = {"content-type": "application/x-www-form-urlencoded"}
GOOD = f"form={SETTINGS_FORM}&owned=tfa".encode()


def _connect(base: str) -> socket.socket:
    address = urlsplit(base)
    sock = socket.create_connection((address.hostname or "127.0.0.1", address.port or 80),
                                    timeout=10)
    return sock


def _status_of(sock: socket.socket) -> int:
    head = b""
    while b"\r\n" not in head:
        chunk = sock.recv(4096)
        if not chunk:
            break
        head += chunk
    return int(head.split(b" ", 2)[1]) if head.startswith(b"HTTP/1.1 ") else 0


def test_a_huge_declared_body_is_refused_before_it_is_sent(live_server: str) -> None:
    with _connect(live_server) as sock:
        sock.sendall(b"POST /settings HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                     b"Content-Type: application/x-www-form-urlencoded\r\n"
                     b"Content-Length: 200000000\r\n\r\n" + b"x" * 1000)
        # The answer comes without the other 199,999,000 bytes.
        assert _status_of(sock) == 413


def test_a_chunked_body_is_cut_off_at_the_bound(live_server: str) -> None:
    with _connect(live_server) as sock:
        sock.sendall(b"POST /settings HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                     b"Content-Type: application/x-www-form-urlencoded\r\n"
                     b"Transfer-Encoding: chunked\r\n\r\n")
        sent = 0
        status = 0
        sock.settimeout(0.5)
        # Keep sending 1 KiB chunks until the server answers; it must do so near MAX_BODY.
        while sent < 64 * MAX_BODY and not status:
            try:
                sock.sendall(b"400\r\n" + b"a" * 1024 + b"\r\n")
                sent += 1024
                status = _status_of(sock)
            except TimeoutError:
                continue
            except OSError:
                break
        assert status == 413 and sent < 16 * MAX_BODY, (status, sent)


def test_a_trickled_body_times_out(live_server: str) -> None:
    with _connect(live_server) as sock:
        sock.sendall(b"POST /settings HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                     b"Content-Type: application/x-www-form-urlencoded\r\n"
                     b"Content-Length: 100\r\n\r\nform=")
        sock.settimeout(BODY_TIMEOUT + 5)
        started = time.monotonic()
        assert _status_of(sock) == 408
        assert time.monotonic() - started < BODY_TIMEOUT + 5


def test_another_sites_form_changes_nothing(live_server: str) -> None:
    for headers in ({"origin": "https://evil.example"}, {"origin": "null"},
                    {"sec-fetch-site": "cross-site"},
                    {"sec-fetch-site": "same-site", "origin": "http://sub.127.0.0.1"}):
        reply = fetch(live_server, "/settings", method="POST", headers={**FORM, **headers},
                      body=GOOD)
        assert reply.status == 403, headers
        assert "set-cookie" not in reply.headers


def test_an_empty_or_foreign_body_changes_nothing(live_server: str) -> None:
    for body in (b"", b"owned=tfa", b"form=other&owned=tfa", b"\xff\xfe", b"form=owned-form&&&"):
        reply = fetch(live_server, "/settings", method="POST", headers=FORM, body=body)
        assert reply.status == 400, body
        assert "set-cookie" not in reply.headers
    json_body = fetch(live_server, "/settings", method="POST",
                      headers={"content-type": "application/json"}, body=b'{"owned": "none"}')
    assert json_body.status == 415 and "set-cookie" not in json_body.headers


def test_the_sites_own_form_sets_a_private_cookie(live_server: str) -> None:
    port = urlsplit(live_server).port
    reply = fetch(live_server, "/settings", method="POST", body=GOOD,
                  headers={**FORM, "origin": f"http://127.0.0.1:{port}",
                           "sec-fetch-site": "same-origin"})
    assert reply.status == 303 and reply.headers["location"] == "/settings?saved=1"
    cookie = reply.headers["set-cookie"]
    value = cookie.split(";", 1)[0].removeprefix("owned=")
    # The cookie names what is not owned: everything but tfa.
    assert value.startswith("-") and "tfa" not in value[1:].split(".") and "tcu" in value
    assert "HttpOnly" in cookie and "SameSite=lax" in cookie
    assert reply.headers["cache-control"] == "no-store"


def test_a_declared_body_over_the_bound_gets_the_apps_own_413(live_server: str) -> None:
    # #20 L7: the framework's own 413 was plain text, without the security headers, no-store or
    # Connection: close.
    answer = responses(exchange(live_server, b"POST /settings HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                                             b"Content-Type: application/x-www-form-urlencoded"
                                             b"\r\nContent-Length: 5000\r\n\r\nform=x"))
    assert [a.status for a in answer] == [413]
    headers = answer[0].headers
    assert headers["content-type"].startswith("text/html")
    assert "보낸 내용이 너무 큽니다" in answer[0].text
    assert headers["cache-control"] == "no-store" and headers["connection"] == "close"
    assert "frame-ancestors 'none'" in headers["content-security-policy"]
    assert headers["x-content-type-options"] == "nosniff"
