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
from starlette.types import ASGIApp, Receive, Scope, Send

from app.web.assets import Asset, Assets
from app.web.cache import MISSED, ResponseCache
from app.web.encoding import gzip_accepted
from app.web.etags import etag_matches
from app.web.known import Known, send_known
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
    plain: Known
    gzipped: Known | None
    not_modified: Known


def _file(asset: Asset, cache_control: str) -> _File:
    """The headers `routes.static_file` answers with, in its order (Starlette's `Response`:
    the given headers, then length and type)."""
    given = ((b"cache-control", cache_control.encode()), (b"etag", asset.etag.encode()),
             (b"vary", b"Accept-Encoding"))
    kind = (b"content-type", asset.media_type.encode())

    def sized(body: bytes, *encoding: tuple[bytes, bytes]) -> Known:
        return Known(200, with_security((*given, *encoding,
                                         (b"content-length", str(len(body)).encode()), kind)),
                     body)

    return _File(asset.etag, sized(asset.body),
                 sized(asset.gzipped, (b"content-encoding", b"gzip"))
                 if asset.gzipped is not None else None,
                 Known(304, with_security(given), b""))


def _json(status: int, body: bytes) -> Known:
    return Known(status, with_security(
        (_NO_STORE, (b"content-length", str(len(body)).encode()), _JSON)), body)


class FrontMiddleware:
    """Answers cache hits, prebuilt answers, static files, `/healthz` and `/readyz` from
    memory; marks every request's route row for the layers behind (`routing.route_of`).

    `answer` says what is known for a request, without sending it: the protocol
    (`app.web.protocol`) writes such answers itself, and through ASGI this layer sends them.
    """

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
        self._health = _json(200, bytes(SafeJSONResponse(Health(status="ok")).body))
        self._ready: tuple[Ready, Known] | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        known = self.answer(scope)
        if known is None:
            await self.app(scope, receive, send)
            return
        await send_known(send, known, head=scope["method"] == "HEAD")

    def answer(self, scope: Scope) -> Known | None:
        """What is known already for this request (None: the framework answers it). Marks the
        request's route row in `scope`, and that nothing was known (`MISSED`) when the front
        layer looked."""
        route = self.table.mark(scope)
        if route is None or not self.answering or scope["method"] not in ("GET", "HEAD"):
            return None
        known = self._known(route, scope)
        if known is None:
            scope[MISSED] = True
        return known

    def _known(self, route: Route, scope: Scope) -> Known | None:
        if route.cache is not None:
            found = self.cache.lookup(scope, route)
            return None if found is None else self.cache.known(scope, found)
        path = route.path
        if path == "/static/{name:path}":
            file = self._files.get(get_route_path(scope)[len("/static/"):])
            return None if file is None else _file_answer(file, scope)  # None: the 404 page
        if path == "/favicon.ico":
            return None if self._favicon is None else _file_answer(self._favicon, scope)
        if path == "/healthz":
            return self._health
        if path == "/readyz":
            return self._readiness()
        return None

    def _readiness(self) -> Known:
        """`/readyz`'s answer (`routes.readyz`): made again only when what it says changes."""
        ready = self.ready()
        if self._ready is None or self._ready[0] != ready:
            status = 200 if ready.status == "ready" else 503
            self._ready = (ready, _json(status, bytes(SafeJSONResponse(ready).body)))
        return self._ready[1]


def _file_answer(file: _File, scope: Scope) -> Known:
    # `first_values(scope, b"if-none-match", b"accept-encoding")`, in a loop of its own: every
    # static file asks.
    if_none_match = accept_encoding = None
    for name, value in scope["headers"]:
        if name == b"accept-encoding":
            if accept_encoding is None:
                accept_encoding = value
        elif name == b"if-none-match" and if_none_match is None:
            if_none_match = value
    if if_none_match is not None and etag_matches(if_none_match.decode("latin-1"), file.etag):
        return file.not_modified
    if (file.gzipped is not None and accept_encoding is not None
            and gzip_accepted(accept_encoding.decode("latin-1"))):
        return file.gzipped
    return file.plain
