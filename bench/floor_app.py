"""The floor: the barest ASGI app, answering 4 KB to every request.

    uvicorn bench.floor_app:app --http httptools --loop uvloop --workers 2

`bench.load` runs it on the same server as the app (uvicorn, httptools, uvloop, the same
number of workers, no access log) and in the same run, and prints every figure of the app as
a share of this one's: what the machine and the server allow, whatever the neighbours do.
"""

from __future__ import annotations

import os
from pathlib import Path

from starlette.types import Receive, Scope, Send

#: The floor's answer: about the size of a compressed entry page.
BODY = b"x" * 4096
_HEADERS = [(b"content-type", b"text/plain"), (b"content-length", str(len(BODY)).encode())]


async def app(scope: Scope, receive: Receive, send: Send) -> None:
    if scope["type"] != "http":
        return  # lifespan: nothing to start or stop
    await send({"type": "http.response.start", "status": 200, "headers": _HEADERS})
    await send({"type": "http.response.body", "body": BODY})


class StoredAnswers:
    """The floor for the attack bench's heavy phase: the same answers' bytes the app served,
    with no work but choosing them. `folder` holds, per path (`/search-index.json` →
    `search-index.json`), the identity body and the gzip body (`.gz`); every other path gets
    the 4 KB `BODY`. A request whose `accept-encoding` mentions gzip gets the gzip body.

        BENCH_FLOOR_ANSWERS=FOLDER uvicorn bench.floor_app:stored --factory …
    """

    def __init__(self, folder: Path) -> None:
        self.answers: dict[str, tuple[list[tuple[bytes, bytes]], bytes,
                                      list[tuple[bytes, bytes]], bytes]] = {}
        for plain in sorted(folder.iterdir()):
            if plain.suffix == ".gz":
                continue
            body, packed = plain.read_bytes(), plain.with_name(plain.name + ".gz").read_bytes()
            self.answers["/" + plain.name] = (
                [(b"content-type", b"application/json"),
                 (b"content-length", str(len(body)).encode())], body,
                [(b"content-type", b"application/json"), (b"content-encoding", b"gzip"),
                 (b"content-length", str(len(packed)).encode())], packed)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        stored = self.answers.get(scope["path"])
        if stored is None:
            await app(scope, receive, send)
            return
        gzip = any(name == b"accept-encoding" and b"gzip" in value
                   for name, value in scope["headers"])
        headers, body = (stored[2], stored[3]) if gzip else (stored[0], stored[1])
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": body})


def stored() -> StoredAnswers:
    """`StoredAnswers` of the folder `BENCH_FLOOR_ANSWERS` names (uvicorn's `--factory`)."""
    return StoredAnswers(Path(os.environ["BENCH_FLOOR_ANSWERS"]))
