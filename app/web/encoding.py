"""Content negotiation for gzip: whether an answer is compressed, read as RFC 9110 says.

`Accept-Encoding: gzip;q=0, identity` refuses gzip; Starlette's `GZipMiddleware` tests only
whether the word "gzip" appears. The response cache keys answers by the same function, so the
cached copy a request gets is always the encoding it accepts.
"""

from __future__ import annotations

import functools

from starlette.datastructures import Headers
from starlette.middleware.gzip import GZipMiddleware, GZipResponder, IdentityResponder
from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = ["NegotiatedGZipMiddleware", "accepts_gzip", "gzip_accepted"]


def accepts_gzip(headers: Headers) -> bool:
    """Whether a client sending these headers accepts a gzipped answer (`gzip_accepted`)."""
    return gzip_accepted(headers.get("accept-encoding", ""))


#: Clients send a handful of `Accept-Encoding` values; each is parsed once (the memo holds at
#: most this many, whatever a client sends).
_MEMO = 256


def gzip_accepted(value: str) -> bool:
    """Whether a client sending this `Accept-Encoding` value accepts a gzipped answer: `gzip`
    (or `x-gzip`) listed with a weight above 0, or `*` above 0 without gzip itself refused."""
    if "gzip" not in value and "*" not in value:
        return False  # the common answers, without parsing
    return _gzip_weighed(value)


@functools.lru_cache(maxsize=_MEMO)
def _gzip_weighed(value: str) -> bool:
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
            responder = GZipResponder(self.app, self.minimum_size,
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
