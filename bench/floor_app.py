"""The floor: the barest ASGI app, answering 4 KB to every request.

    uvicorn bench.floor_app:app --http httptools --loop uvloop --workers 2

`bench.load` runs it on the same server as the app (uvicorn, httptools, uvloop, the same
number of workers, no access log) and in the same run, and prints every figure of the app as
a share of this one's: what the machine and the server allow, whatever the neighbours do.
"""

from __future__ import annotations

from starlette.types import Receive, Scope, Send

#: The floor's answer: about the size of a compressed entry page.
BODY = b"x" * 4096
_HEADERS = [(b"content-type", b"text/plain"), (b"content-length", str(len(BODY)).encode())]


async def app(scope: Scope, receive: Receive, send: Send) -> None:
    if scope["type"] != "http":
        return  # lifespan: nothing to start or stop
    await send({"type": "http.response.start", "status": 200, "headers": _HEADERS})
    await send({"type": "http.response.body", "body": BODY})
