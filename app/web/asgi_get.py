"""One GET through an ASGI app in-process, as the app's own request.

The built answers (`app.web.built`) and the static export (`app.export`) both ask the app for
pages without a socket; they share this driver so that both see exactly what a client would.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, MutableMapping, Sequence
from typing import Any

from starlette.types import ASGIApp

Header = tuple[bytes, bytes]


async def asgi_get(app: ASGIApp, *, path: str, raw_path: bytes, scheme: str,
                   server: tuple[str, int], headers: Sequence[Header],
                   scope_extra: Mapping[str, Any] | None = None,
                   ) -> tuple[int, list[Header], bytes]:
    """Status, headers (lower-case names) and body of one GET with an empty body."""
    scope: dict[str, Any] = {
        "type": "http", "asgi": {"version": "3.0", "spec_version": "2.4"},
        "http_version": "1.1", "method": "GET", "scheme": scheme, "path": path,
        "raw_path": raw_path, "root_path": "", "query_string": b"",
        "client": ("127.0.0.1", 0), "server": server, "headers": list(headers),
        **(scope_extra or {}),
    }
    status = 0
    answer_headers: list[Header] = []
    body = bytearray()
    sent = False

    async def receive() -> dict[str, Any]:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": b"", "more_body": False}
        await asyncio.Event().wait()  # no disconnect while the answer is produced
        return {"type": "http.disconnect"}

    async def send(message: MutableMapping[str, Any]) -> None:
        nonlocal status
        if message["type"] == "http.response.start":
            status = message["status"]
            answer_headers.extend((bytes(k).lower(), bytes(v))
                                  for k, v in message.get("headers", ()))
        elif message["type"] == "http.response.body":
            body.extend(message.get("body", b""))

    await app(scope, receive, send)
    return status, answer_headers, bytes(body)
