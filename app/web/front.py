"""The front layer: what is already known is answered here, before the framework runs.

Most requests ask for something the worker knows before it reads them: a page the response
cache holds, a prebuilt answer (`app.web.built`: the service worker, `/api/titles`,
`robots.txt`, `sitemap.xml`, …), a static file (read and compressed once at start,
`app.web.assets`), or a health probe. Through the framework each cost about 15 ASGI layers
before and after the handler, FastAPI's route matching over every route and its dependency
machinery: more than the answer itself. This layer sits right behind the safety layers (request
limits, the root path, the trusted proxy's headers, the host check: those run first for every
request) and sends such answers as stored bytes, with every header attached when the answer
was made (the security headers included), ETag and 304 handled. Everything else (misses,
errors, POSTs) goes on to the framework and the per-request middleware, unchanged.

Each answer here is the framework's own answer for the same request, header for header
(`tests/test_front.py` compares them URL by URL, with `create_app(front=False)`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from starlette._utils import get_route_path
from starlette.datastructures import Headers
from starlette.types import ASGIApp, Receive, Scope, Send

from app.web.assets import Asset, Assets
from app.web.cache import MISSED, ResponseCache
from app.web.encoding import accepts_gzip
from app.web.etags import etag_matches
from app.web.responses import SafeJSONResponse
from app.web.routing import Route, RouteTable
from app.web.security import with_security
from app.web.views import Health, Ready

__all__ = ["FrontMiddleware"]

_Headers = tuple[tuple[bytes, bytes], ...]
_NO_STORE = (b"cache-control", b"no-store")
_JSON = (b"content-type", b"application/json")


@dataclass(frozen=True, slots=True)
class _File:
    """A static file's answers, made once: identity and gzip (when smaller), and the 304."""

    etag: str
    body: bytes
    headers: _Headers
    gzipped: bytes | None
    gzip_headers: _Headers
    not_modified: _Headers


def _file(asset: Asset, cache_control: str) -> _File:
    """The headers `routes.static_file` answers with, in its order (Starlette's `Response`:
    the given headers, then length and type)."""
    given = ((b"cache-control", cache_control.encode()), (b"etag", asset.etag.encode()),
             (b"vary", b"Accept-Encoding"))
    kind = (b"content-type", asset.media_type.encode())

    def sized(body: bytes, *encoding: tuple[bytes, bytes]) -> _Headers:
        return with_security((*given, *encoding, (b"content-length", str(len(body)).encode()),
                              kind))

    return _File(asset.etag, asset.body, sized(asset.body),
                 asset.gzipped, sized(asset.gzipped, (b"content-encoding", b"gzip"))
                 if asset.gzipped is not None else (), with_security(given))


class FrontMiddleware:
    """Answers cache hits, prebuilt answers, static files, `/healthz` and `/readyz` from
    memory; marks every request's route row for the layers behind (`routing.route_of`)."""

    def __init__(self, app: ASGIApp, *, table: RouteTable, cache: ResponseCache,
                 assets: Assets, ready: Callable[[], Ready], answering: bool = True) -> None:
        self.app = app
        self.table = table
        self.cache = cache
        self.ready = ready
        self.answering = answering
        self._files: dict[str, _File] = {}
        for name in assets.names:
            for published in (name, assets.names[name]):
                found = assets.find(published)
                if found is not None:
                    self._files[published] = _file(*found)
        self._favicon = self._files.get("icon-192.png")
        health = bytes(SafeJSONResponse(Health(status="ok")).body)
        self._health = (health, with_security(
            (_NO_STORE, (b"content-length", str(len(health)).encode()), _JSON)))
        self._ready: tuple[Ready, int, bytes, _Headers] | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        route = self.table.mark(scope)
        if route is None or not self.answering or scope["method"] not in ("GET", "HEAD"):
            await self.app(scope, receive, send)
            return
        if not await self._known(route, scope, send):
            scope[MISSED] = True
            await self.app(scope, receive, send)

    async def _known(self, route: Route, scope: Scope, send: Send) -> bool:
        head = scope["method"] == "HEAD"
        if route.cache is not None:
            found = self.cache.lookup(scope, route)
            return found is not None and await self.cache.replay(scope, send, found)
        path = route.path
        if path == "/static/{name:path}" or path == "/favicon.ico":
            file = (self._favicon if path == "/favicon.ico"
                    else self._files.get(get_route_path(scope)[len("/static/"):]))
            if file is None:
                return False  # the framework's 404 page
            await self._send_file(file, scope, send, head)
            return True
        if path == "/healthz":
            body, headers = self._health
            await _send(send, 200, headers, b"" if head else body)
            return True
        if path == "/readyz":
            status, headers, body = self._readiness()
            await _send(send, status, headers, b"" if head else body)
            return True
        return False

    async def _send_file(self, file: _File, scope: Scope, send: Send, head: bool) -> None:
        headers = Headers(scope=scope)
        if etag_matches(headers.get("if-none-match", ""), file.etag):
            await _send(send, 304, file.not_modified, b"")
        elif file.gzipped is not None and accepts_gzip(headers):
            await _send(send, 200, file.gzip_headers, b"" if head else file.gzipped)
        else:
            await _send(send, 200, file.headers, b"" if head else file.body)

    def _readiness(self) -> tuple[int, _Headers, bytes]:
        """`/readyz`'s answer (`routes.readyz`): made again only when what it says changes."""
        ready = self.ready()
        if self._ready is None or self._ready[0] != ready:
            status = 200 if ready.status == "ready" else 503
            body = bytes(SafeJSONResponse(ready).body)
            self._ready = (ready, status, body, with_security(
                (_NO_STORE, (b"content-length", str(len(body)).encode()), _JSON)))
        _, status, body, headers = self._ready
        return status, headers, body


async def _send(send: Send, status: int, headers: _Headers, body: bytes) -> None:
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
