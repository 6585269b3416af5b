"""Content negotiation for gzip: whether an answer is compressed, read as RFC 9110 says.

`Accept-Encoding: gzip;q=0, identity` refuses gzip; Starlette's `GZipMiddleware` tests only
whether the word "gzip" appears. The response cache keys answers by the same function, so the
cached copy a request gets is always the encoding it accepts.
"""

from __future__ import annotations

import functools
from typing import Any

from isal import isal_zlib
from starlette.datastructures import Headers
from starlette.middleware.gzip import GZipMiddleware, GZipResponder, IdentityResponder
from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = ["GZIP_LEVEL", "NegotiatedGZipMiddleware", "accepts_gzip", "gzip_accepted"]

#: The compression level of answers compressed per request (ISA-L's levels run 0-3; 2 is its
#: default). Measured on 60 entry pages (9.6 KB on average), per page: zlib at level 6, which
#: this replaced, 0.13-0.16 ms for 3,206 bytes; ISA-L level 2, 0.025 ms for 3,485 bytes (+9 %,
#: the same number of TCP segments); level 3, 0.041 ms for 3,404. An uncached page spent more
#: time in zlib than in its own view. Files and prebuilt answers, compressed once, keep zlib's
#: level 9.
GZIP_LEVEL = 2


def accepts_gzip(headers: Headers) -> bool:
    """Whether a client sending these headers accepts a gzipped answer (`gzip_accepted`)."""
    return gzip_accepted(headers.get("accept-encoding", ""))


def gzip_accepted(value: str) -> bool:
    """Whether a client sending this `Accept-Encoding` value accepts a gzipped answer: `gzip`
    (or `x-gzip`) listed with a weight above 0, or `*` above 0 without gzip itself refused."""
    if "gzip" not in value and "*" not in value:
        return False  # the common answers, without parsing
    return _weighs_gzip(value)


#: Browsers send one of a handful of values, and every request asks twice (the cache key and
#: the compression): parsed once each (3 µs a time), in a bounded memo that an attacker's
#: values only rotate through.
@functools.lru_cache(maxsize=64)
def _weighs_gzip(value: str) -> bool:
    weights: dict[str, float] = {}
    for item in value.split(","):
        coding, *params = (part.strip() for part in item.split(";"))
        weight = 1.0
        for param in params:
            name, _, number = param.partition("=")
            if name.strip().lower() == "q":
                try:
                    weight = float(number)
                except ValueError:
                    weight = 0.0  # a garbled weight is no consent
        if coding:
            weights[coding.lower()] = max(weight, weights.get(coding.lower(), 0.0))
    named = [weights[c] for c in ("gzip", "x-gzip") if c in weights]
    if named:
        return max(named) > 0
    return weights.get("*", 0.0) > 0


class NegotiatedGZipMiddleware(GZipMiddleware):
    """Starlette's `GZipMiddleware`, compressing only for clients that accept gzip."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        responder: ASGIApp
        if accepts_gzip(Headers(scope=scope)):
            responder = _IsalResponder(self.app, self.minimum_size,
                                      compresslevel=self.compresslevel,
                                      thread_minimum_size=self.thread_minimum_size,
                                      exclude_content_types=self.exclude_content_types)
        else:
            responder = IdentityResponder(self.app, self.minimum_size,
                                          exclude_content_types=self.exclude_content_types)
            # It adds `Vary: Accept-Encoding` to any answer it could have compressed, also
            # when the handler said so already (static files): once is what is meant.
            send = _one_vary(send)
        await responder(scope, receive, send)


class _IsalResponder(GZipResponder):
    """Starlette's gzip responder with ISA-L's deflate (the same gzip stream format, streamed
    the same way: `isal_zlib` is zlib's interface)."""

    _isal: Any = None

    @property
    def compressor(self) -> Any:
        if self._isal is None:
            self._isal = isal_zlib.compressobj(self.compresslevel, isal_zlib.DEFLATED,
                                               16 + isal_zlib.MAX_WBITS)
        return self._isal


def _one_vary(send: Send) -> Send:
    async def deduplicated(message: Message) -> None:
        if message["type"] == "http.response.start":
            headers = list(message.get("headers", ()))
            for n, (name, value) in enumerate(headers):
                if name.lower() == b"vary" and b"," in value:
                    tokens = [t.strip() for t in value.split(b",")]
                    unique = list(dict.fromkeys(t for t in tokens if t))
                    if len(unique) < len(tokens):
                        headers[n] = (name, b", ".join(unique))
                        message = {**message, "headers": headers}
        await send(message)
    return deduplicated
