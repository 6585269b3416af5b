"""A known answer: status, headers and body made once and sent many times.

The front layer (`app.web.front`) answers cache hits, prebuilt answers, static files and the
health probes with these. Each is made when the answer is stored or built, with every header it
goes out with (the security headers included), and with those headers already in the form the
wire carries them (`lines`), checked once as uvicorn checks every answer's headers. The
protocol (`app.web.protocol`) then writes a hit as the status line, the date, `lines` and the
body, with no ASGI cycle at all; through ASGI (any other server, the tests' client) the same
headers go out as a `http.response.start` message.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from starlette.types import Send
from uvicorn.protocols.http.httptools_impl import HEADER_RE, HEADER_VALUE_RE

__all__ = ["Known", "send_known"]


@dataclass(frozen=True, slots=True)
class Known:
    """One answer as it goes out: status, every header, body."""

    status: int
    headers: tuple[tuple[bytes, bytes], ...]
    body: bytes
    #: The header lines as uvicorn writes them (`name: value` CRLF, names lower-cased), made
    #: once; None when only the ASGI path may send this answer: a header uvicorn refuses,
    #: `Connection` or `Transfer-Encoding` set by the answer itself, or no `Content-Length` that
    #: matches the body (uvicorn would chunk it).
    lines: bytes | None = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "lines", _wire_lines(self.status, self.headers, self.body))


def _wire_lines(status: int, headers: tuple[tuple[bytes, bytes], ...],
                body: bytes) -> bytes | None:
    parts: list[bytes] = []
    length: int | None = None
    for raw_name, value in headers:
        name = raw_name.lower()
        if HEADER_RE.search(name) or HEADER_VALUE_RE.search(value):
            return None  # uvicorn raises for it: the ASGI path gives the 500
        if name in (b"connection", b"transfer-encoding"):
            return None
        if name == b"content-length":
            if length is not None:
                return None
            try:
                length = int(value)
            except ValueError:
                return None
        parts += (name, b": ", value, b"\r\n")
    if status in (204, 304):
        if body:
            return None
    elif length != len(body):
        return None
    return b"".join(parts)


async def send_known(send: Send, known: Known, *, head: bool) -> None:
    """Send `known` through ASGI (its body left out for a HEAD request)."""
    await send({"type": "http.response.start", "status": known.status,
                "headers": known.headers})
    await send({"type": "http.response.body", "body": b"" if head else known.body})
