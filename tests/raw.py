"""Talking to the real server in tests: raw HTTP, and bounded waiting.

HTTP clients add or fix `Host`, `Accept-Encoding` and the path; an attack must not be tidied.
"""

from __future__ import annotations

import gzip
import http.client
import re
import shutil
import socket
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import urlsplit


@dataclass(frozen=True)
class Reply:
    """A response: status, headers (lower-case names; repeated ones joined by ", "), body."""

    status: int
    headers: dict[str, str]
    body: bytes

    @property
    def text(self) -> str:
        """The body as text, un-gzipped when it was sent gzipped."""
        data = gzip.decompress(self.body) if self.headers.get("content-encoding") == "gzip" \
            else self.body
        return data.decode("utf-8", "replace")


def fetch(base: str, target: str, *, method: str = "GET", headers: dict[str, str] | None = None,
          body: bytes = b"", timeout: float = 10.0) -> Reply:
    """Send one request to `base` (http://127.0.0.1:PORT) and read the whole answer."""
    address = urlsplit(base)
    connection = http.client.HTTPConnection(address.hostname or "127.0.0.1", address.port,
                                            timeout=timeout)
    try:
        connection.putrequest(method, target, skip_host=True, skip_accept_encoding=True)
        sent = {k.lower(): v for k, v in (headers or {}).items()}
        sent.setdefault("host", address.netloc)
        for name, value in sent.items():
            connection.putheader(name, value)
        if body:
            connection.putheader("content-length", str(len(body)))
        connection.endheaders(body or None)
        response = connection.getresponse()
        merged: dict[str, str] = {}
        for name, value in response.getheaders():
            key = name.lower()
            merged[key] = f"{merged[key]}, {value}" if key in merged else value
        return Reply(response.status, merged, response.read())
    finally:
        connection.close()


def wait_for(predicate: Callable[[], bool], seconds: float = 30.0) -> bool:
    """Poll `predicate` every 0.2 s until it holds (True) or `seconds` have passed (False)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.2)
    return False


def ended(sock: socket.socket) -> bool:
    """Whether the server ended the connection (EOF or reset); unread answer bytes are
    skipped."""
    sock.setblocking(False)
    try:
        while True:
            if not sock.recv(1 << 20):
                return True
    except BlockingIOError:
        return False
    except ConnectionResetError:
        return True


def exchange(base: str, data: bytes, *, timeout: float = 10.0) -> bytes:
    """Send `data` as it is on a new connection to `base`; everything the server sends until
    it closes the connection or is quiet for `timeout` seconds (bounded either way)."""
    address = urlsplit(base)
    with socket.create_connection((address.hostname or "127.0.0.1", address.port or 80),
                                  timeout=timeout) as sock:
        sock.sendall(data)
        return read_all(sock, 3 * timeout)


def read_all(sock: socket.socket, seconds: float = 60.0) -> bytes:
    """Everything the server sends on `sock` until it ends the connection, a read times out
    (the socket's own timeout) or `seconds` pass (bounded either way)."""
    received = b""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            chunk = sock.recv(65_536)
        except (TimeoutError, ConnectionResetError):
            break
        if not chunk:
            break
        received += chunk
    return received


def responses(data: bytes) -> list[Reply]:
    """The responses (each with a `content-length`, as all of the app's are) in `data`."""
    found: list[Reply] = []
    while data.startswith(b"HTTP/"):
        head, _, rest = data.partition(b"\r\n\r\n")
        lines = head.split(b"\r\n")
        headers = {k.strip().lower().decode(): v.strip().decode("latin-1")
                   for k, v in (line.split(b":", 1) for line in lines[1:])}
        length = int(headers.get("content-length", "0"))
        found.append(Reply(int(lines[0].split()[1]), headers, rest[:length]))
        data = rest[length:]
    return found


def send_buffer(sock: socket.socket) -> int:
    """The kernel's send buffer, in bytes, of the server's end of the connection `sock` (a
    client socket to a server on this machine), as `ss` reports it (`tb` in `skmem`)."""
    from tests.conftest import missing_tool

    if shutil.which("ss") is None:
        missing_tool("ss is not installed (apt-get install iproute2): the server's socket "
                     "buffers are not tested", "RULES_SOCKET_TESTS")
    here, there = sock.getsockname()[1], sock.getpeername()[1]
    listed = subprocess.run(
        ["ss", "-tmnH", "state", "established", f"( sport = :{there} and dport = :{here} )"],
        capture_output=True, text=True, timeout=10, check=True).stdout
    found = re.findall(r"\btb(\d+)\b", listed)
    assert len(found) == 1, f"not one server socket in {listed!r}"
    return int(found[0])
