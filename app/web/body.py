"""Request bodies, read within bounds, and where a state-changing request may come from.

Only `POST /settings` takes a body: a few checkbox values. `Content-Length` over `MAX_BODY`
is refused before anything is read (`RequestLimitsMiddleware`); a body without one is counted
as it arrives and refused with 413 as soon as it passes the bound;
a body that arrives slower than `BODY_TIMEOUT` gets 408. The rest is never read.
"""

from __future__ import annotations

import anyio
from starlette.datastructures import Headers
from starlette.requests import Request
from starlette.types import Scope

from app.errors import AppError
from app.web.limits import BODY_TIMEOUT, MAX_BODY

__all__ = ["read_form_body", "same_origin"]

_FORM = "application/x-www-form-urlencoded"
#: `Connection: close`: the client may still be sending the body we refused to read (the
#: error handler adds it to every 408, 413 and 431 by itself).
_CLOSE = {"connection": "close"}


def too_large() -> AppError:
    """413 for a body over `MAX_BODY`."""
    return AppError(413, "보낸 내용이 너무 큽니다.")


def declared_length(headers: Headers) -> int | None:
    """`Content-Length` as a number; 400 when it is not one."""
    value = headers.get("content-length")
    if value is None:
        return None
    if not value.isascii() or not value.strip().isdigit():
        raise AppError(400, "Content-Length가 올바르지 않습니다.", headers=_CLOSE)
    return int(value)


async def read_form_body(request: Request) -> str:
    """The body of a form post as text, at most `MAX_BODY` bytes, within `BODY_TIMEOUT`."""
    content_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if content_type != _FORM:
        raise AppError(415, "설정은 양식으로만 바꿀 수 있습니다.", headers=_CLOSE)
    chunks: list[bytes] = []
    received = 0
    try:
        with anyio.fail_after(BODY_TIMEOUT):
            async for chunk in request.stream():
                received += len(chunk)
                if received > MAX_BODY:  # a chunked body: no Content-Length to refuse first
                    raise too_large()
                chunks.append(chunk)
    except TimeoutError:
        raise AppError(408, "보내는 내용이 너무 늦게 도착했습니다.") from None
    return b"".join(chunks).decode("utf-8", "replace")


def same_origin(scope: Scope, base: str) -> bool:
    """Whether a state-changing request comes from this site's own pages.

    Browsers say where a request comes from in `Sec-Fetch-Site` (all current ones) and
    `Origin` (every cross-origin POST). A request without either is not from a browser page,
    so it cannot carry a visitor's cookies against their will (a CSRF needs a browser).
    """
    headers = Headers(scope=scope)
    site = headers.get("sec-fetch-site")
    if site is not None and site not in ("same-origin", "none"):
        return False
    origin = headers.get("origin")
    if origin is None:
        return True
    return bool(base) and origin.rstrip("/").lower() == _origin(base)


def _origin(base: str) -> str:
    # The base URL may carry a path (https://example.org/rules-ko); an Origin never does.
    scheme, _, rest = base.partition("://")
    return f"{scheme}://{rest.split('/', 1)[0]}".lower()
