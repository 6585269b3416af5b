"""The security headers every answer carries, and the one way they are attached.

`SecurityHeadersMiddleware` attaches them to what the framework answers; answers made once and
sent many times (the front layer's, the response cache's) carry them from the moment they are
made (`with_security`), so the same bytes go out either way. An error answered by a layer in
front of both (limits, the host check) gets them through `adding_security`.
"""

from __future__ import annotations

from collections.abc import Iterable

from starlette.types import Message, Send

__all__ = ["CSP", "SECURITY_HEADERS", "adding_security", "with_security"]

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


_SECURITY_RAW = tuple((name.encode(), value.encode()) for name, value in SECURITY_HEADERS.items())


def with_security(headers: Iterable[tuple[bytes, bytes]]) -> tuple[tuple[bytes, bytes], ...]:
    """`headers` with the security headers they do not set themselves appended, as
    `SecurityHeadersMiddleware` adds them: for answers made once and sent many times."""
    raw = tuple(headers)
    present = {name.lower() for name, _ in raw}
    return (*raw, *(h for h in _SECURITY_RAW if h[0] not in present))


def adding_security(send: Send) -> Send:
    """A `send` that adds the security headers to the answer (`SecurityHeadersMiddleware`'s)."""

    async def send_with_headers(message: Message) -> None:
        if message["type"] == "http.response.start":
            message = {**message, "headers": list(with_security(message.get("headers", ())))}
        await send(message)

    return send_with_headers
