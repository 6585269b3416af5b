"""The bound on one client address's connections (`app.web.clients`), counted by the protocol:
what an address is counted as, and, against the real server over raw sockets from several
loopback addresses (Linux answers the whole of 127.0.0.0/8), what a client past it gets."""

from __future__ import annotations

import socket
import struct
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from app.web.clients import ClientConnections
from app.web.hosts import TrustedProxies
from bench.server import running_server
from tests.raw import Reply, ended, read_all, responses

ROOT = Path(__file__).resolve().parents[1]
BOUND = 6
#: Also how many connections may wait for room in the worker.
MAX_CONNECTIONS = 12
PROXY = "127.0.0.9"


def test_an_address_counts_as_itself_an_ipv6_client_by_its_64() -> None:
    clients = ClientConnections(BOUND, TrustedProxies(""))
    assert clients.client_of(("203.0.113.7", 5000)) == "203.0.113.7"
    # One subscriber's /64 is one client, whatever address of it each socket takes.
    assert clients.client_of(("2001:db8:1:2::5", 1, 0, 0)) == "2001:db8:1:2::/64"
    assert clients.client_of(("2001:db8:1:2:ffff::9", 1, 0, 0)) == "2001:db8:1:2::/64"
    assert clients.client_of(("2001:db8:1:3::5", 1, 0, 0)) == "2001:db8:1:3::/64"
    assert clients.client_of(("::ffff:203.0.113.7", 1, 0, 0)) == "203.0.113.7"
    assert clients.client_of("/run/rules.sock") is None  # a Unix socket: no address


def test_trusted_proxies_and_a_zero_bound_count_nothing() -> None:
    trusted = ClientConnections(BOUND, TrustedProxies("10.0.0.0/8, 192.0.2.1"))
    assert trusted.client_of(("10.1.2.3", 80)) is None
    assert trusted.client_of(("192.0.2.1", 80)) is None
    assert trusted.client_of(("192.0.2.2", 80)) == "192.0.2.2"
    assert ClientConnections(BOUND, TrustedProxies("*")).client_of(("198.51.100.1", 1)) is None
    assert ClientConnections(0, TrustedProxies("")).client_of(("198.51.100.1", 1)) is None


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    """The server's base URL, and its log (access lines included)."""
    folder = tmp_path_factory.mktemp("clients")
    env = {"RULES_DATA_DIR": str(ROOT / "data"), "RULES_INDEX_DIR": str(folder / "index"),
           "RULES_WORKERS": "1", "RULES_MAX_CLIENT_CONNECTIONS": str(BOUND),
           "RULES_MAX_CONNECTIONS": str(MAX_CONNECTIONS),
           "RULES_TRUSTED_PROXIES": PROXY}
    with running_server(env, log_path=folder / "server.log") as (url, _):
        yield url, folder / "server.log"


@pytest.fixture(scope="module")
def base(served: tuple[str, Path]) -> str:
    return served[0]


def _connect(base: str, source: str, receive_buffer: int = 0) -> socket.socket:
    url = urlsplit(base)
    sock = socket.socket()
    if receive_buffer:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, receive_buffer)
    sock.settimeout(5)
    sock.bind((source, 0))
    sock.connect((url.hostname or "127.0.0.1", url.port or 80))
    return sock


def _request(base: str, target: str) -> bytes:
    return f"GET {target} HTTP/1.1\r\nHost: {urlsplit(base).netloc}\r\n\r\n".encode()


def _non_reader(base: str, source: str) -> socket.socket:
    """A client that asks for the biggest answer again and again and never reads."""
    sock = _connect(base, source, receive_buffer=4096)
    sock.sendall(_request(base, "/search-index.json") * 20)
    return sock


def _answer(sock: socket.socket, base: str, target: str = "/healthz") -> Reply:
    """Ask for `target` on `sock` and read its one answer (bounded by the socket's timeout)."""
    sock.sendall(_request(base, target))
    received = b""
    while True:
        head, ended, rest = received.partition(b"\r\n\r\n")
        if ended:
            length = next((int(line.split(b":", 1)[1]) for line in head.split(b"\r\n")
                           if line.lower().startswith(b"content-length:")), 0)
            if len(rest) >= length:
                return responses(received)[0]
        chunk = sock.recv(65_536)
        assert chunk, f"closed before a whole answer: {received[:200]!r}"
        received += chunk


def _reset(sock: socket.socket) -> None:
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    sock.close()


def test_past_the_bound_a_busy_address_waits_unread_and_others_are_answered(
        base: str) -> None:
    # #20 H1: one address with thousands of non-reading sockets took every connection of the
    # workers, and each new one of them still had an answer computed and written.
    attackers = [_non_reader(base, "127.0.0.2") for _ in range(BOUND)]
    try:
        time.sleep(0.5)
        with _connect(base, "127.0.0.2") as extra:
            extra.sendall(_request(base, "/healthz"))
            extra.settimeout(1.0)
            with pytest.raises(TimeoutError):
                extra.recv(1)  # it waits, unread, while the address's own are all busy
            with _connect(base, "127.0.0.1") as player:
                assert _answer(player, base, "/rules/Attack_of_Opportunity").status == 200
            _reset(attackers.pop())  # one of the address's connections ends: room for one
            extra.settimeout(5.0)
            assert _head_of_answer(extra).startswith(b"HTTP/1.1 200 ")
    finally:
        for sock in attackers:
            sock.close()


def test_with_too_many_waiting_a_new_connection_gets_503_at_once(base: str) -> None:
    # Waiting connections cost a socket each: at most RULES_MAX_CONNECTIONS wait per worker.
    attackers = [_non_reader(base, "127.0.0.5") for _ in range(BOUND)]
    waiting = []
    try:
        time.sleep(0.5)
        waiting = [_connect(base, "127.0.0.5") for _ in range(MAX_CONNECTIONS)]
        time.sleep(0.3)
        with _connect(base, "127.0.0.5") as extra:
            refused = responses(read_all(extra))[0]
    finally:
        for sock in attackers + waiting:
            sock.close()
    assert refused.status == 503
    assert refused.headers["retry-after"] == "10"
    assert refused.headers["cache-control"] == "no-store"
    assert refused.headers["connection"] == "close"
    assert "x-content-type-options" in refused.headers
    assert "연결이 너무 많습니다" in refused.text



def test_past_the_bound_an_idle_connection_of_the_address_makes_room(base: str) -> None:
    # A club behind one NAT address: its browsers' kept-alive connections are idle, and the
    # one that waited longest is closed for a new one (browsers open another by themselves).
    idle = [_connect(base, "127.0.0.3") for _ in range(BOUND)]
    try:
        for sock in idle:
            assert _answer(sock, base).status == 200
            time.sleep(0.01)  # the event loop's clock counts milliseconds
        with _connect(base, "127.0.0.3") as newcomer:
            assert _answer(newcomer, base, "/rules/Attack_of_Opportunity").status == 200
        time.sleep(0.2)
        closed = [ended(sock) for sock in idle]
    finally:
        for sock in idle:
            sock.close()
    assert closed == [True] + [False] * (BOUND - 1)


def test_a_trusted_proxy_is_not_bounded(base: str) -> None:
    # A reverse proxy carries many players on its connections, and bounds them itself.
    held = [_non_reader(base, PROXY) for _ in range(BOUND + 2)]
    try:
        time.sleep(0.5)
        with _connect(base, PROXY) as sock:
            assert _answer(sock, base).status == 200
    finally:
        for sock in held:
            sock.close()


def _head_of_answer(sock: socket.socket) -> bytes:
    received = b""
    while b"\r\n\r\n" not in received:
        chunk = sock.recv(65_536)
        assert chunk, "closed instead of answered"
        received += chunk
    return received


def test_room_made_by_an_idle_connection_goes_to_the_one_that_waited(base: str) -> None:
    # Fair within an address: a newcomer that closes an idle connection to make room does not
    # pass a connection already waiting for it.
    silent = [_connect(base, "127.0.0.7") for _ in range(BOUND)]  # none idle: no request yet
    try:
        time.sleep(0.3)
        with _connect(base, "127.0.0.7") as waiting:
            waiting.sendall(_request(base, "/healthz"))
            time.sleep(0.3)
            assert _answer(silent[0], base).status == 200  # now idle, kept alive
            with _connect(base, "127.0.0.7") as newcomer:
                newcomer.sendall(_request(base, "/healthz"))
                assert _head_of_answer(waiting).startswith(b"HTTP/1.1 200 ")
                newcomer.settimeout(1.0)
                with pytest.raises(TimeoutError):
                    newcomer.recv(1)  # it waits in its turn
    finally:
        for sock in silent:
            sock.close()


@pytest.mark.parametrize("leaving", ["close", "reset"])
def test_room_passes_over_a_waiting_connection_whose_client_left(
        served: tuple[str, Path], leaving: str) -> None:
    # A flood's clients leave all at once: the room one of them frees goes to a connection
    # whose client is still there. It went to the one that waited longest even when its
    # client had left, and the biggest answer was written (and logged as answered) to nobody.
    base, log = served
    address = f"127.0.0.{8 if leaving == 'close' else 10}"
    attackers = [_non_reader(base, address) for _ in range(BOUND)]
    try:
        time.sleep(0.5)
        gone = _connect(base, address)
        gone.sendall(_request(base, f"/search-index.json?left={leaving}"))
        time.sleep(0.2)
        with _connect(base, address) as player:
            player.sendall(_request(base, "/healthz"))
            time.sleep(0.2)
            # Its client leaves while it waits, ahead of the player.
            if leaving == "reset":
                _reset(gone)
            else:
                gone.close()
            time.sleep(0.2)
            _reset(attackers.pop())  # room for one
            player.settimeout(3.0)
            assert _head_of_answer(player).startswith(b"HTTP/1.1 200 ")
    finally:
        for sock in attackers:
            sock.close()
    time.sleep(0.2)
    assert f"left={leaving}" not in log.read_text(encoding="utf-8")
