"""HTTP hygiene as plain ASGI middleware: security headers, the root path, request limits.

Each class wraps the app and touches only the scope or the headers (or answers early);
`app.web.app.create_app` installs them, with the others, in one place and one order.
"""

from __future__ import annotations

from starlette.datastructures import Headers
from starlette.types import ASGIApp, Receive, Scope, Send

from app.errors import AppError
from app.web.body import declared_length, too_large
from app.web.errors import send_error
from app.web.limits import MAX_BODY, MAX_HEADER_BYTES, MAX_HEADERS, MAX_URL
from app.web.security import CSP, SECURITY_HEADERS, adding_security, with_security

__all__ = ["CSP", "SECURITY_HEADERS", "RequestLimitsMiddleware", "RootPathMiddleware",
           "SecurityHeadersMiddleware", "adding_security", "with_security"]


class SecurityHeadersMiddleware:
    """Adds the security headers to every response."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        await self.app(scope, receive, adding_security(send))


class RootPathMiddleware:
    """Serves the app under a path prefix (`RULES_ROOT_PATH`), whatever the proxy does with it.

    A proxy may pass `/rules-ko/rules/X` on as it is, or strip it to `/rules/X`. Both become
    the ASGI form Starlette routes by: `root_path` = the prefix and `path` = prefix + the
    app's own path, so routing, the cache key and `request.url` are the same either way.
    """

    def __init__(self, app: ASGIApp, root_path: str) -> None:
        self.app = app
        self.root = root_path.rstrip("/")

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await self.app(self.admit(scope) if scope["type"] == "http" else scope, receive, send)

    def admit(self, scope: Scope) -> Scope:
        """`scope` in the form routing reads (a copy), or as it is without a root path."""
        if not self.root:
            return scope
        path: str = scope["path"]
        prefixed = path == self.root or path.startswith(self.root + "/")
        scope = dict(scope)
        scope["root_path"] = self.root
        if not prefixed:
            scope["path"] = self.root + path
            raw = scope.get("raw_path")
            if raw is not None:
                scope["raw_path"] = self.root.encode() + raw
        return scope


class RequestLimitsMiddleware:
    """414, 431 and 413 for requests over the bounds in `app.web.limits`.

    `python -m app serve` refuses these in the HTTP protocol already, before they are read;
    this repeats the cheap checks for any other ASGI server the app may run under. A body
    without `Content-Length` is counted as it is read (`body.read_form_body`).
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        error = _over_limit(scope)
        if error is not None:
            await send_error(scope, receive, send, error)
            return
        await self.app(scope, receive, send)

    def admit(self, scope: Scope) -> Scope | None:
        """`scope` if it is within the bounds; None: the request gets the error page."""
        return scope if _over_limit(scope) is None else None


def _over_limit(scope: Scope) -> AppError | None:
    target = len(scope.get("raw_path") or scope["path"].encode()) + len(scope["query_string"])
    if target > MAX_URL:
        return AppError(414, "주소가 너무 깁니다.")
    raw = scope["headers"]
    size = 0
    body = False
    for name, value in raw:
        size += len(name) + len(value)
        body = body or name == b"content-length"
    if len(raw) > MAX_HEADERS or size > MAX_HEADER_BYTES:
        return AppError(431, "요청 헤더가 너무 큽니다.")
    if not body:
        return None  # most requests: no body at all
    try:
        length = declared_length(Headers(scope=scope))
    except AppError as error:
        return error
    if length is not None and length > MAX_BODY:
        return too_large()
    return None
