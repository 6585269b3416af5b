"""A bounded in-memory cache of finished responses for pages and API answers.

Every page is a pure function of (data version, path, query, variant cookies, encoding), so a
rendered response can be replayed until the data is reloaded. Replaying skips routing,
Jinja and compression: the load bench's mix of entry pages goes from ~2.5 ms to a fraction of
that per request. The cache is least-recently-used and bounded by bytes, and it empties itself
when the data version changes, so it cannot grow without limit or serve stale data.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from threading import Lock

from starlette.datastructures import Headers
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.web.middleware import VARIANT_COOKIES

#: Paths whose GET answers are cached (the search routes too: repeated queries are common).
CACHED_PREFIXES = ("/rules/", "/sources/", "/api/entries/", "/api/sources", "/timing",
                   "/search", "/api/search", "/api/suggest")
#: A single response larger than this is not kept (none of ours is, but data may grow).
MAX_ITEM = 512 * 1024


@dataclass(frozen=True)
class _Stored:
    status: int
    headers: tuple[tuple[bytes, bytes], ...]
    body: bytes


class ResponseCacheMiddleware:
    """Replays cached 200 responses for GET/HEAD requests to the cached paths."""

    def __init__(self, app: ASGIApp, version: Callable[[], str], max_bytes: int) -> None:
        self.app = app
        self.version = version
        self.max_bytes = max_bytes
        self._items: OrderedDict[tuple[str, ...], _Stored] = OrderedDict()
        self._bytes = 0
        self._seen_version = ""
        self._lock = Lock()

    def _key(self, scope: Scope) -> tuple[str, ...] | None:
        path: str = scope["path"]
        if scope["method"] not in ("GET", "HEAD") or not (
            path == "/" or path.startswith(CACHED_PREFIXES)
        ):
            return None
        headers = Headers(scope=scope)
        cookies = headers.get("cookie", "")
        # Only the cookies that change a page split the cache; anything odd just bypasses it.
        variant = ";".join(
            part.strip() for part in cookies.split(";")
            if part.strip().split("=", 1)[0] in VARIANT_COOKIES
        )
        gzip = "gzip" in headers.get("accept-encoding", "")
        return (path, scope["query_string"].decode("latin-1"), variant, str(gzip))

    def _get(self, key: tuple[str, ...]) -> _Stored | None:
        with self._lock:
            version = self.version()
            if version != self._seen_version:
                self._items.clear()
                self._bytes = 0
                self._seen_version = version
            stored = self._items.get(key)
            if stored is not None:
                self._items.move_to_end(key)
            return stored

    def _put(self, key: tuple[str, ...], stored: _Stored, version: str) -> None:
        size = len(stored.body) + sum(len(k) + len(v) for k, v in stored.headers) + 200
        if size > MAX_ITEM:
            return
        with self._lock:
            if version != self._seen_version or key in self._items:
                return  # the data changed while this was rendered: don't keep it
            self._items[key] = stored
            self._bytes += size
            while self._bytes > self.max_bytes and self._items:
                _, old = self._items.popitem(last=False)
                self._bytes -= len(old.body) + sum(len(k) + len(v) for k, v in old.headers) + 200

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        key = self._key(scope) if scope["type"] == "http" and self.max_bytes > 0 else None
        if key is None:
            await self.app(scope, receive, send)
            return
        stored = self._get(key)
        if stored is not None:
            await send({"type": "http.response.start", "status": stored.status,
                        "headers": list(stored.headers)})
            body = b"" if scope["method"] == "HEAD" else stored.body
            await send({"type": "http.response.body", "body": body})
            return
        if scope["method"] == "HEAD":
            await self.app(scope, receive, send)
            return

        version = self.version()
        status = 0
        headers: tuple[tuple[bytes, bytes], ...] = ()
        chunks: list[bytes] = []

        async def capture(message: Message) -> None:
            nonlocal status, headers
            if message["type"] == "http.response.start":
                # Copied before the outer layers add their own (ETag, security headers).
                status, headers = message["status"], tuple(message["headers"])
            elif message["type"] == "http.response.body":
                chunks.append(message.get("body", b""))
                if not message.get("more_body", False) and status == 200:
                    self._put(key, _Stored(200, headers, b"".join(chunks)), version)
            await send(message)

        await self.app(scope, receive, capture)
