"""HTTP hygiene as plain ASGI middleware: security headers, URL limits, conditional requests,
and trusted reverse-proxy headers.

Each class wraps the app and touches only headers (or answers early), so they compose in any
order; `app.web.app.create_app` installs them in one place.
"""

from __future__ import annotations

import hashlib
import ipaddress
import re
from collections.abc import Callable, Iterable
from http.cookies import SimpleCookie

from starlette.datastructures import Headers, MutableHeaders
from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.errors import AppError

#: Scripts, styles, images, fetches and the service worker come from this origin only; no
#: inline script or style anywhere, and no framing.
CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "font-src 'self'; connect-src 'self'; manifest-src 'self'; worker-src 'self'; "
    "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
SECURITY_HEADERS = {
    "content-security-policy": CSP,
    "x-content-type-options": "nosniff",
    "referrer-policy": "strict-origin-when-cross-origin",
    "x-frame-options": "DENY",
    "permissions-policy": "camera=(), microphone=(), geolocation=(), payment=(), usb=(), "
                          "interest-cohort=()",
    "cross-origin-opener-policy": "same-origin",
}
#: Longer request targets are refused with 414 (queries themselves are cut to 200 characters,
#: so a 10,000-character query still gets an answer). uvicorn's own header limit is 16 KiB.
MAX_URL = 16_384
#: Cookies that change what a page shows (owned collections); part of the ETag.
VARIANT_COOKIES = ("owned",)


class SecurityHeadersMiddleware:
    """Adds the security headers to every response."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                for name, value in SECURITY_HEADERS.items():
                    headers.setdefault(name, value)
            await send(message)

        await self.app(scope, receive, send_with_headers)


class URLLimitMiddleware:
    """Answers 414 for request targets longer than MAX_URL, through the app's error handler."""

    def __init__(self, app: ASGIApp, handler: Callable[[Request, Exception], object]) -> None:
        self.app = app
        self.handler = handler

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            size = len(scope.get("raw_path") or scope["path"].encode()) + len(scope["query_string"])
            if size > MAX_URL:
                request = Request(scope, receive)
                response = await self.handler(request, AppError(414, "주소가 너무 깁니다."))  # type: ignore[misc]
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)


class ConditionalMiddleware:
    """ETags for pages and API answers, derived from the data version, and 304s.

    The tag is `W/"<data version>-<code version>-<variant>"`: it changes when the data is
    reloaded, when the code or static files change, and with the cookies that change a page,
    so a match means the client's copy is current without rendering anything.
    """

    def __init__(self, app: ASGIApp, version: Callable[[], str], code_version: str) -> None:
        self.app = app
        self.version = version
        self.code_version = code_version

    def _etag(self, scope: Scope) -> str:
        cookie = SimpleCookie()
        try:
            cookie.load(Headers(scope=scope).get("cookie", ""))
        except Exception:  # a malformed Cookie header only means "no variant"
            cookie = SimpleCookie()
        variant = "|".join(cookie[name].value if name in cookie else "" for name in VARIANT_COOKIES)
        digest = hashlib.sha256(variant.encode()).hexdigest()[:8]
        return f'W/"{self.version()}-{self.code_version}-{digest}"'

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (
            scope["type"] != "http"
            or scope["method"] not in ("GET", "HEAD")
            or scope["path"].startswith(("/static/", "/healthz", "/readyz"))
        ):
            await self.app(scope, receive, send)
            return
        etag = self._etag(scope)
        if _matches(Headers(scope=scope).get("if-none-match", ""), etag):
            await send({"type": "http.response.start", "status": 304, "headers": [
                (b"etag", etag.encode()), (b"cache-control", b"no-cache"),
                (b"vary", b"Accept-Encoding, Cookie"),
            ]})
            await send({"type": "http.response.body", "body": b""})
            return

        async def send_with_etag(message: Message) -> None:
            if message["type"] == "http.response.start" and message["status"] == 200:
                headers = MutableHeaders(scope=message)
                headers["etag"] = etag
                headers.setdefault("cache-control", "no-cache")
                headers.add_vary_header("Cookie")
            await send(message)

        await self.app(scope, receive, send_with_etag)


_HOST = re.compile(r"[A-Za-z0-9.\-]{1,253}(?::\d{1,5})?|\[[0-9A-Fa-f:.]{2,45}\](?::\d{1,5})?")


def _is_ip(text: str) -> bool:
    try:
        ipaddress.ip_address(text)
    except ValueError:
        return False
    return True


def _matches(if_none_match: str, etag: str) -> bool:
    if not if_none_match:
        return False
    if if_none_match.strip() == "*":
        return True
    weak = etag.removeprefix("W/")
    return any(tag.strip().removeprefix("W/") == weak for tag in if_none_match.split(","))


class ForwardedMiddleware:
    """Behind a trusted reverse proxy, take the original scheme, host and client from the
    `X-Forwarded-Proto`, `-Host` and `-For` headers; from anyone else, ignore them.

    uvicorn's own proxy support leaves the host alone, and the host is what makes absolute
    links (canonical, previews) right when no public base URL is configured.
    """

    def __init__(self, app: ASGIApp, trusted: Iterable[str]) -> None:
        self.app = app
        items = [t.strip() for t in trusted if t.strip()]
        self.any = "*" in items
        self.networks = [ipaddress.ip_network(t, strict=False) for t in items if t != "*"]

    def _trusted(self, host: str | None) -> bool:
        if self.any:
            return True
        if host is None:
            return False
        try:
            address = ipaddress.ip_address(host)
        except ValueError:
            return False
        return any(address in network for network in self.networks)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and (self.any or self.networks):
            client = scope.get("client")
            headers = Headers(scope=scope)
            forwarded_host = headers.get("x-forwarded-host", "").split(",")[0].strip()
            forwarded_proto = headers.get("x-forwarded-proto", "").split(",")[0].strip().lower()
            forwarded_for = headers.get("x-forwarded-for", "").split(",")[0].strip()
            if self._trusted(client[0] if client else None):
                scope = dict(scope)
                if _HOST.fullmatch(forwarded_host):
                    raw = [(k, v) for k, v in scope["headers"] if k != b"host"]
                    scope["headers"] = [*raw, (b"host", forwarded_host.encode("ascii"))]
                if forwarded_proto in ("http", "https"):
                    scope["scheme"] = forwarded_proto
                if _is_ip(forwarded_for):
                    scope["client"] = (forwarded_for, 0)
        await self.app(scope, receive, send)
