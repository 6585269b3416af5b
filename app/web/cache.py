"""The response cache and the HTTP caching headers of pages and API answers.

For every route that declares a `Cache` policy in the route table:

* **the key** is `inputs.page_key` (public base, path, the route's own query parameters in a
  canonical order, the parsed owned-collections value) plus gzip or not, computed by the same
  functions the handler reads its inputs with; a request with other parameters is answered
  but not stored;
* **the ETag** names that representation and the data and code versions; `If-None-Match` gets
  304 only when the answer is a 200 with that tag (RFC 9110: `*` only when the page exists);
* **Cache-Control** tells a shared cache in front (CDN, caching proxy) that it may keep a
  page for `shared_seconds` (and serve it stale while revalidating or when the app is down)
  while browsers revalidate every time; an answer shaped by a
  visitor's own owned-collections cookie is `private`, and `Vary` names what the key holds.

Replaying skips routing, Jinja and compression: a cached entry page costs a fraction of a
millisecond instead of ~2.5 ms. Misses of one key are computed once at a time (single flight):
twenty first requests for the same page wait for the one render, then get it from the store.
Routes marked `prebuilt` are answered from the data version's built answers (`app.web.built`),
whatever their query string, and never computed per request.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable, Hashable

from starlette._utils import get_route_path
from starlette.datastructures import Headers, MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.web.built import BUILD_SCOPE, BuiltAnswer, BuiltAnswers
from app.web.encoding import accepts_gzip
from app.web.etags import etag_matches, page_etag
from app.web.hosts import public_base
from app.web.inputs import page_key
from app.web.routing import route_of
from app.web.store import ResponseStore, Stored

__all__ = ["CacheMiddleware"]

log = logging.getLogger("app.web.cache")

#: Redirects are kept too: their `Location` is a path that depends on the data alone. (Not the
#: trailing-slash 308: its `Location` carries the request's whole query string.)
_REDIRECTS = (301, 302)
#: How long a request waits for another's render of the same key before rendering itself.
FLIGHT_WAIT = 10.0


class CacheMiddleware:
    """Stores and replays 200 answers, adds ETags, answers 304s, sets the caching headers."""

    def __init__(self, app: ASGIApp, *, store: ResponseStore, version: Callable[[], str],
                 code_version: str, base_url: str, shared_seconds: int,
                 built: Callable[[], BuiltAnswers | None] = lambda: None) -> None:
        self.app = app
        self.store = store
        self.version = version
        self.built = built
        self._flights: dict[Hashable, asyncio.Event] = {}
        self.code_version = code_version
        self.base_url = base_url
        # Browsers ask again every time (max-age=0, answered by a 304 or the cache); a shared
        # cache may answer for `shared_seconds`, a little longer while it revalidates, and a
        # day when the app is down: stale rules beat an error page at the table.
        public = (f"public, max-age=0, s-maxage={shared_seconds}, "
                  f"stale-while-revalidate=60, stale-if-error=86400"
                  if shared_seconds else "no-cache")
        # The four header pairs an answer can get, encoded once: every request passes here.
        self._extra = {
            (personal, owned): [
                (b"cache-control", b"private, no-cache" if personal else public.encode()),
                (b"vary", b"Accept-Encoding, Cookie" if owned else b"Accept-Encoding")]
            for personal in (False, True) for owned in (False, True)}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        route = route_of(scope) if scope["type"] == "http" else None
        if (route is None or route.cache is None or scope["method"] not in ("GET", "HEAD")
                or scope.get(BUILD_SCOPE)):
            await self.app(scope, receive, send)
            return
        policy = route.cache
        headers = Headers(scope=scope)
        base = public_base(scope, self.base_url)
        version = self.version()
        gzip = accepts_gzip(headers)
        if_none_match = headers.get("if-none-match", "")
        if policy.prebuilt:
            built = self.built()
            answer = built.get(get_route_path(scope)) if (
                built is not None and built.version == version
                and (not policy.absolute or built.base == base)) else None
            if answer is not None:
                await _send_built(scope, send, answer, gzip, if_none_match,
                                  self._extra[False, policy.owned])
                return
        key = page_key(scope, params=policy.params, owned=policy.owned, base=base)
        personal = key is not None and key.owned is not None
        extra = self._extra[personal, policy.owned]
        if key is None:
            await self.app(scope, receive, _adding(send, extra))
            return
        storing = scope["method"] == "GET" and self.store.max_bytes > 0
        stored = self.store.get(version, (key, gzip)) if self.store.max_bytes else None
        flight: asyncio.Event | None = None
        if stored is None and storing:
            waiting = self._flights.get((key, gzip))
            if waiting is not None:
                # Another request is rendering this very answer: wait for it, not beside it.
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(waiting.wait(), FLIGHT_WAIT)
                stored = self.store.get(version, (key, gzip))
            if stored is None and (key, gzip) not in self._flights:
                flight = self._flights[(key, gzip)] = asyncio.Event()
        if stored is not None:
            if stored.etag and etag_matches(if_none_match, stored.etag):
                await _send_not_modified(send, stored.etag, _validators(extra, stored.headers))
                return
            tag = [(b"etag", stored.etag.encode())] if stored.etag else []
            await send({"type": "http.response.start", "status": stored.status,
                        "headers": [*stored.headers, *_unless_own(extra, stored.headers),
                                    *tag]})
            body = b"" if scope["method"] == "HEAD" else stored.body
            await send({"type": "http.response.body", "body": body})
            return
        etag = page_etag(version, self.code_version, key, gzip)
        began = time.perf_counter()
        try:
            await self.app(scope, receive, self._capture(
                send, extra, etag, if_none_match, (key, gzip), version, store=storing))
            if log.isEnabledFor(logging.DEBUG):
                # What the store saves (one line per answer computed: RULES_LOG_LEVEL=debug).
                log.debug("computed %s%s in %.1f ms", key.path,
                          f"?{scope['query_string'].decode('latin-1')}"
                          if scope["query_string"] else "",
                          (time.perf_counter() - began) * 1000)
        finally:
            if flight is not None:
                flight.set()
                if self._flights.get((key, gzip)) is flight:
                    del self._flights[(key, gzip)]

    def _capture(self, send: Send, extra: list[tuple[bytes, bytes]], etag: str,
                 if_none_match: str, key: object, version: str, *, store: bool) -> Send:
        """A `send` that tags a 200, turns it into a 304 when the client has it, and keeps it
        (and keeps redirects: `/go/틈새공격` from a forum post is one search, not one per
        click)."""
        status = 0
        own_headers: tuple[tuple[bytes, bytes], ...] = ()
        chunks: list[bytes] = []
        not_modified = False

        async def capture(message: Message) -> None:
            nonlocal status, own_headers, not_modified
            if message["type"] == "http.response.start":
                status = message["status"]
                # Kept before the outer layers add theirs (security headers); our `Vary`
                # replaces the one GZipMiddleware adds, as it names everything the key holds.
                own_headers = tuple(h for h in message.get("headers", ()) if h[0] != b"vary")
                if status == 200:
                    not_modified = etag_matches(if_none_match, etag)
                    if not_modified:
                        await _send_not_modified(send, etag, _validators(extra, own_headers))
                        return
                    message = {**message, "headers": [
                        *own_headers, *_unless_own(extra, own_headers), (b"etag", etag.encode())]}
                elif status < 400:
                    _merge(message, extra)
            elif message["type"] == "http.response.body":
                if store and (status == 200 or status in _REDIRECTS):
                    chunks.append(message.get("body", b""))
                    if not message.get("more_body", False):
                        self.store.put(version, key, Stored(
                            status, own_headers, b"".join(chunks), etag if status == 200 else ""))
                if not_modified:
                    return
            await send(message)

        return capture


async def _send_built(scope: Scope, send: Send, answer: BuiltAnswer, gzip: bool,
                      if_none_match: str, extra: list[tuple[bytes, bytes]]) -> None:
    headers, body, etag = answer.encoded(gzip)
    if etag_matches(if_none_match, etag):
        await _send_not_modified(send, etag, _validators(extra, answer.headers))
        return
    await send({"type": "http.response.start", "status": 200,
                "headers": [*headers, *_unless_own(extra, answer.headers),
                            (b"etag", etag.encode())]})
    await send({"type": "http.response.body",
                "body": b"" if scope["method"] == "HEAD" else body})


def _unless_own(extra: list[tuple[bytes, bytes]],
                own: tuple[tuple[bytes, bytes], ...]) -> list[tuple[bytes, bytes]]:
    """Our caching headers, less a `Cache-Control` the handler set itself (the service worker
    must be revalidated by every browser, `no-cache`, yet is worth keeping here)."""
    if not any(name == b"cache-control" for name, _ in own):
        return extra
    return [h for h in extra if h[0] != b"cache-control"]


def _validators(extra: list[tuple[bytes, bytes]],
                own: tuple[tuple[bytes, bytes], ...]) -> list[tuple[bytes, bytes]]:
    """A 304's caching headers: the same `Cache-Control` the 200 carried (a 304 updates the
    browser's stored copy's headers)."""
    return [*(h for h in own if h[0] == b"cache-control"), *_unless_own(extra, own)]


def _adding(send: Send, extra: list[tuple[bytes, bytes]]) -> Send:
    async def wrapped(message: Message) -> None:
        if message["type"] == "http.response.start" and message["status"] < 400:
            _merge(message, extra)
        await send(message)
    return wrapped


def _merge(message: Message, extra: list[tuple[bytes, bytes]]) -> None:
    """Add the caching headers the handler did not set itself (redirects, uncached pages)."""
    headers = MutableHeaders(scope=message)
    for name, value in extra:
        if name == b"vary":
            # Ours names everything GZipMiddleware's does, and more.
            headers["vary"] = value.decode()
        else:
            headers.setdefault(name.decode(), value.decode())


async def _send_not_modified(send: Send, etag: str, extra: list[tuple[bytes, bytes]]) -> None:
    await send({"type": "http.response.start", "status": 304,
                "headers": [*extra, (b"etag", etag.encode())]})
    await send({"type": "http.response.body", "body": b""})
