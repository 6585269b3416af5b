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

Known answers are replayed by the front layer (`app.web.front`, through `ResponseCache.replay`)
before the framework runs: no routing, no Jinja, no compression, no per-request middleware; the
headers each goes out with (security headers included) are made once, when it is stored.
`CacheMiddleware`, behind the front layer, stores what the handlers compute (and
replays when no front layer did). Misses of one key are computed once at a time (single flight):
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
from dataclasses import dataclass, replace
from typing import NamedTuple

from starlette._utils import get_route_path
from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.web.built import BUILD_SCOPE, BuiltAnswer, BuiltAnswers
from app.web.encoding import gzip_accepted
from app.web.etags import etag_matches, page_etag
from app.web.hosts import public_base_of
from app.web.inputs import PageKey, page_key
from app.web.known import Known, send_known
from app.web.routing import Route, route_of
from app.web.security import with_security
from app.web.store import ResponseStore, Stored

__all__ = ["MISSED", "CacheMiddleware", "Lookup", "ResponseCache"]

#: Where a request's `Lookup` is kept in its scope once read.
_LOOKUP = "rulesajeon.cache"
#: Set in the scope by the front layer when it found nothing known for the request: the
#: cache behind it does not look again.
MISSED = "rulesajeon.missed"

log = logging.getLogger("app.web.cache")

#: Redirects are kept too: their `Location` is a path that depends on the data alone. (Not the
#: trailing-slash 308: its `Location` carries the request's whole query string.)
_REDIRECTS = (301, 302)
#: How long a request waits for another's render of the same key before rendering itself.
FLIGHT_WAIT = 10.0


class Lookup(NamedTuple):
    """What a cacheable request's answer is keyed and validated by, read once per request
    (a named tuple: made for every cached request, in C)."""

    route: Route
    base: str
    version: str
    gzip: bool
    if_none_match: str
    #: None: the request must not be stored (`inputs.page_key`).
    key: PageKey | None
    #: Cache-Control and Vary for this kind of answer.
    extra: list[tuple[bytes, bytes]]


class ResponseCache:
    """The response cache's policy and its replay: what `FrontMiddleware` answers from memory
    before the framework runs, and what `CacheMiddleware` stores behind it."""

    def __init__(self, *, store: ResponseStore, version: Callable[[], str],
                 code_version: str, base_url: str, shared_seconds: int,
                 built: Callable[[], BuiltAnswers | None] = lambda: None) -> None:
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
        #: The prebuilt answers' full header lists (`_built_headers`), for one `BuiltAnswers`.
        self._built_for: BuiltAnswers | None = None
        self._built_sent: dict[tuple[str, bool, bool], _Sent] = {}

    def lookup(self, scope: Scope, route: Route | None) -> Lookup | None:
        """The key and validators of a request the cache handles (None: it does not)."""
        if (route is None or route.cache is None or scope["method"] not in ("GET", "HEAD")
                or scope.get(BUILD_SCOPE)):
            return None
        found: Lookup | None = scope.get(_LOOKUP)
        if found is not None:
            return found  # the front layer read it already
        policy = route.cache
        host, accept_encoding, if_none_match, cookie = _cache_headers(scope["headers"])
        base = public_base_of(host, scope, self.base_url)
        if (policy.params and scope.get("query_string")) or (policy.owned and cookie):
            key = page_key(scope, params=policy.params, owned=policy.owned, base=base)
        else:
            # What `page_key` makes of a request without the query or the cookie it reads,
            # without looking for them again: most requests. (`tuple.__new__`: a named
            # tuple's own `__new__` is Python, and cost as much as the rest of the line.)
            key = tuple.__new__(PageKey, (base, get_route_path(scope), (), None))
        personal = key is not None and key.owned is not None
        found = tuple.__new__(Lookup, (route, base, self.version(), gzip_accepted(accept_encoding),
                                       if_none_match, key, self._extra[personal, policy.owned]))
        scope[_LOOKUP] = found
        return found

    def known(self, scope: Scope, found: Lookup) -> Known | None:
        """What is known for this request, the security headers included: a prebuilt answer,
        a stored one, or 304 for either. None: nothing is known (a miss)."""
        policy = found.route.cache
        assert policy is not None
        if policy.prebuilt:
            built = self.built()
            answer = built.get(get_route_path(scope)) if (
                built is not None and built.version == found.version
                and (not policy.absolute or built.base == found.base)) else None
            if answer is not None and built is not None:
                return self._built_headers(built, answer, found.gzip, policy.owned).answer(
                    found.if_none_match)
        if found.key is None or not self.store.max_bytes:
            return None
        stored = self.store.get(found.version, (found.key, found.gzip))
        if stored is None:
            return None
        return _stored_headers(stored, found.extra).answer(found.if_none_match)

    async def replay(self, scope: Scope, send: Send, found: Lookup) -> bool:
        """Send what is known for this request (`known`). False: nothing is known (a miss)."""
        known = self.known(scope, found)
        if known is None:
            return False
        await send_known(send, known, head=scope["method"] == "HEAD")
        return True

    def _built_headers(self, built: BuiltAnswers, answer: BuiltAnswer, gzip: bool,
                       owned: bool) -> _Sent:
        """A prebuilt answer's headers, made once per answer, encoding and data version."""
        if self._built_for is not built:
            self._built_for, self._built_sent = built, {}
        memo = (answer.path, gzip, owned)
        sent = self._built_sent.get(memo)
        if sent is None:
            extra = self._extra[False, owned]
            headers, body, etag = answer.encoded(gzip)
            tag = (b"etag", etag.encode())
            sent = self._built_sent[memo] = _Sent(
                etag, Known(200, with_security((*headers, *_unless_own(extra, answer.headers),
                                                tag)), body),
                Known(304, with_security((*_validators(extra, answer.headers), tag)), b""))
        return sent


class CacheMiddleware:
    """Stores 200 answers (and replays them when the front layer did not), adds ETags, answers
    304s, sets the caching headers."""

    def __init__(self, app: ASGIApp, *, cache: ResponseCache) -> None:
        self.app = app
        self.cache = cache
        self.store = cache.store
        self._flights = cache._flights

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        found = self.cache.lookup(scope, route_of(scope)) if scope["type"] == "http" else None
        if found is None:
            await self.app(scope, receive, send)
            return
        if not scope.get(MISSED) and await self.cache.replay(scope, send, found):
            return
        key, gzip, version, extra = found.key, found.gzip, found.version, found.extra
        if key is None:
            await self.app(scope, receive, _adding(send, extra))
            return
        storing = scope["method"] == "GET" and self.store.max_bytes > 0
        flight: asyncio.Event | None = None
        if storing:
            waiting = self._flights.get((key, gzip))
            if waiting is not None:
                # Another request is rendering this very answer: wait for it, not beside it.
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(waiting.wait(), FLIGHT_WAIT)
                stored = self.store.get(version, (key, gzip))
                if stored is not None:
                    await _send_known(send, _stored_headers(stored, extra), found.if_none_match,
                                      scope["method"] == "HEAD")
                    return
            if (key, gzip) not in self._flights:
                flight = self._flights[(key, gzip)] = asyncio.Event()
        etag = page_etag(version, self.cache.code_version, key, gzip)
        began = time.perf_counter()
        try:
            await self.app(scope, receive, self._capture(
                send, extra, etag, found.if_none_match, (key, gzip), version, store=storing))
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
                        stored = Stored(status, own_headers, b"".join(chunks),
                                        etag if status == 200 else "")
                        # The headers it goes out with, made once here, not per replay.
                        self.store.put(version, key, replace(stored, sent=_sent_of(stored,
                                                                                 extra)))
                if not_modified:
                    return
            await send(message)

        return capture


@dataclass(frozen=True, slots=True)
class _Sent:
    """A known answer as it goes out (every header attached, security ones included), and
    its 304."""

    #: "" for an answer without one (a stored redirect): never a 304.
    etag: str
    ok: Known
    not_modified: Known

    def answer(self, if_none_match: str) -> Known:
        """The 304 when the client's `If-None-Match` names this answer, else the answer."""
        if if_none_match and self.etag and etag_matches(if_none_match, self.etag):
            return self.not_modified
        return self.ok


def _cache_headers(headers: list[tuple[bytes, bytes]]) -> tuple[str, str, str, bool]:
    """`first_values(scope, b"host", b"accept-encoding", b"if-none-match")`, and whether a
    `Cookie` header came: the one pass over the headers a cached request makes (the generic
    one, and a second for the cookie, cost more than the rest of the key)."""
    host = accept = tag = None
    cookie = False
    for name, value in headers:
        if name == b"host":
            if host is None:
                host = value
        elif name == b"accept-encoding":
            if accept is None:
                accept = value
        elif name == b"if-none-match":
            if tag is None:
                tag = value
        elif name == b"cookie":
            cookie = True
    return ("" if host is None else host.decode("latin-1"),
            "" if accept is None else accept.decode("latin-1"),
            "" if tag is None else tag.decode("latin-1"), cookie)


def _stored_headers(stored: Stored, extra: list[tuple[bytes, bytes]]) -> _Sent:
    """A stored answer as it goes out: made when it was stored (`Stored.sent`), or here for an
    entry stored without them."""
    if stored.sent is not None:
        return stored.sent  # type: ignore[no-any-return]
    return _sent_of(stored, extra)


def _sent_of(stored: Stored, extra: list[tuple[bytes, bytes]]) -> _Sent:
    tag = ((b"etag", stored.etag.encode()),) if stored.etag else ()
    return _Sent(stored.etag,
                 Known(stored.status, with_security(
                     (*stored.headers, *_unless_own(extra, stored.headers), *tag)), stored.body),
                 Known(304, with_security((*_validators(extra, stored.headers), *tag)), b""))


async def _send_known(send: Send, sent: _Sent, if_none_match: str, head: bool) -> None:
    await send_known(send, sent.answer(if_none_match), head=head)


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
