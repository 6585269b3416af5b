"""The one error handler: every failure becomes a Korean HTML page or a JSON error, by request.

API paths (and clients that ask for JSON) get `{"error": {"status", "message"}}`; browsers get
the error page. Unexpected exceptions become a 500 without a traceback in the response.
"""

from __future__ import annotations

import logging
from urllib.parse import unquote

from fastapi import Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, Response
from starlette._utils import get_route_path
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import Receive, Scope, Send

from app.errors import AppError
from app.web.responses import SafeJSONResponse
from app.web.routing import allowed_methods
from app.web.search_context import closest_entries
from app.web.security import adding_security
from app.web.templating import render_page
from app.web.views import ErrorAnswer, ErrorBody, TitleMatch

log = logging.getLogger("app.web")

_MESSAGES = {
    400: "잘못된 요청입니다.",
    404: "페이지를 찾을 수 없습니다.",
    405: "허용되지 않는 요청 방식입니다.",
    414: "주소가 너무 깁니다.",
    422: "요청 값이 올바르지 않습니다.",
    500: "서버에서 오류가 발생했습니다.",
}


#: Refusals of a request that may still be arriving: the connection is closed after the answer,
#: so the rest of it is never read.
_CLOSE_AFTER = (408, 413, 431)


def _as_app_error(exc: Exception) -> AppError:
    if isinstance(exc, AppError):
        return exc
    if isinstance(exc, StarletteHTTPException):
        return AppError(exc.status_code, _MESSAGES.get(exc.status_code, str(exc.detail)),
                        headers=dict(exc.headers or {}))
    if isinstance(exc, RequestValidationError):
        problems = [
            f"{'.'.join(str(p) for p in err.get('loc', ())[1:])}: {err.get('msg', '')}"
            for err in exc.errors()
        ]
        return AppError(422, _MESSAGES[422] + " " + "; ".join(problems))
    log.exception("unhandled error", exc_info=exc)
    return AppError(500, _MESSAGES[500])


def _suggestions(request: Request) -> list[TitleMatch]:
    """The closest entries to the last segment of a missing page's path."""
    segment = unquote(request.url.path.rstrip("/").rpartition("/")[2])
    library = getattr(request.app.state, "library", None)
    if not segment or library is None:
        return []
    try:
        return closest_entries(library.corpus, library.index, request.app.state.urls, segment)
    except Exception:  # suggestions are a courtesy: never turn a 404 into a 500
        log.exception("no suggestions for %r", segment[:100])
        return []


async def _gated_suggestions(request: Request) -> list[TitleMatch]:
    """Suggestions when a search slot is free now; a busy server sends the 404 without them
    (the page is still right, only less helpful) rather than queueing or refusing it."""
    gate = getattr(request.app.state, "gate", None)
    if gate is None or not gate.try_enter():
        return []
    try:
        return await run_in_threadpool(_suggestions, request)
    finally:
        gate.leave()


def wants_json(request: Request) -> bool:
    """API paths, JSON files (a translation's search files), and clients that prefer JSON
    over HTML, get JSON errors."""
    path = get_route_path(request.scope)
    if path.startswith("/api/") or path.endswith(".json"):
        return True
    accept = request.headers.get("accept", "")
    return "application/json" in accept and "text/html" not in accept


async def handle_error(request: Request, exc: Exception) -> Response:
    """Render `exc` for this request: JSON for the API, the Korean error page otherwise.

    A 404 lists the entries the missing id or title most likely meant.
    """
    error = _as_app_error(exc)
    headers = {name.lower(): value for name, value in error.headers.items()}
    headers["cache-control"] = "no-store"
    if error.status in _CLOSE_AFTER:
        headers["connection"] = "close"
    if error.status == 405:
        headers["allow"] = ", ".join(allowed_methods(request.app.router.routes, request.scope))
    suggestions = await _gated_suggestions(request) if error.status == 404 else []
    if wants_json(request):
        body = ErrorBody(status=error.status, message=error.message, hint=error.hint or None,
                         suggestions=suggestions or None)
        return SafeJSONResponse(ErrorAnswer(error=body).model_dump(exclude_none=True),
                                status_code=error.status, headers=headers)
    context = {"status": error.status, "message": error.message, "hint": error.hint,
               "suggestions": suggestions}
    html = render_page(request.app.state.templates, "error.html", context)
    return HTMLResponse(html, status_code=error.status, headers=headers)


async def send_error(scope: Scope, receive: Receive, send: Send, error: AppError) -> None:
    """Answer `error` from a middleware, outside the routing that calls `handle_error`; with the
    security headers, as the layers in front of `SecurityHeadersMiddleware` answer too."""
    response = await handle_error(Request(scope, receive), error)
    await response(scope, receive, adding_security(send))
