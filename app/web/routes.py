"""The route table: every URL the app answers, read top to bottom.

Handlers are thin: parse the request, call one context function, render it as HTML or JSON.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from app.errors import AppError
from app.web import context, search_context
from app.web.pages import render_page
from app.web.responses import SafeJSONResponse
from app.web.state import Library


def _library(request: Request) -> Library:
    library: Library = request.app.state.library
    return library


def _page(request: Request, template: str, data: dict[str, Any], status: int = 200) -> Response:
    html = render_page(request.app.state.templates, template, data)
    return HTMLResponse(html, status_code=status)


# --- HTML pages -----------------------------------------------------------------------------

def home_page(request: Request) -> Response:
    """The sources per game, the timing tables and the search box."""
    lib = _library(request)
    return _page(request, "home.html", context.home_context(lib.corpus, request.app.state.urls))


def source_page(request: Request, source_id: str) -> Response:
    """A source's 가나다 index and table of contents."""
    lib = _library(request)
    data = context.source_context(lib.corpus, source_id, request.app.state.urls)
    return _page(request, "source.html", data)


def entry_page(request: Request, entry_id: str) -> Response:
    """One rule with its sub-sections, table, backlinks and neighbours."""
    lib = _library(request)
    urls = request.app.state.urls
    if entry_id not in lib.corpus.entries:
        # Readable links for forums: /rules/틈새 공격 lands on /rules/Attack_of_Opportunity.
        titled = lib.corpus.by_title(entry_id)
        if titled is not None:
            return RedirectResponse(urls.entry(titled.id), status_code=301)
    data = context.entry_context(lib.corpus, entry_id, urls)
    return _page(request, "entry.html", data)


def timing_page(request: Request) -> Response:
    """Both colour-coded timing tables."""
    lib = _library(request)
    return _page(request, "timing.html", context.timing_context(lib.corpus, request.app.state.urls))


def search_page(
    request: Request,
    q: str = "",
    game: str = "",
    source: str = "",
    page: Annotated[int, Query(ge=1, le=search_context.MAX_PAGE)] = 1,
) -> Response:
    """Search results with filters, pagination and a did-you-mean suggestion."""
    lib = _library(request)
    data = search_context.search_page_context(
        lib.corpus, lib.index, request.app.state.urls, q, game=game, source=source, page=page)
    return _page(request, "search.html", data)


# --- JSON API -------------------------------------------------------------------------------

def api_sources(request: Request) -> Response:
    """`[{id, title, game, entries}]`."""
    lib = _library(request)
    return SafeJSONResponse(context.sources_context(lib.corpus, request.app.state.urls))


def api_source(request: Request, source_id: str) -> Response:
    """`{id, title, game, entries: [{id, title, parent}]}` in reading order."""
    lib = _library(request)
    return SafeJSONResponse(context.source_context(lib.corpus, source_id, request.app.state.urls))


def api_entry(request: Request, entry_id: str) -> Response:
    """The entry contract (see README) plus the page's rendered extras."""
    lib = _library(request)
    return SafeJSONResponse(context.entry_context(lib.corpus, entry_id, request.app.state.urls))


def api_search(
    request: Request,
    q: str = "",
    game: str = "",
    source: str = "",
    limit: Annotated[int, Query(ge=1, le=50)] = 10,
    offset: Annotated[int, Query(ge=0, le=1000)] = 0,
) -> Response:
    """`{query, total, results: [{id, title, source, game, url, snippet, path}]}`."""
    lib = _library(request)
    return SafeJSONResponse(search_context.search_results(
        lib.corpus, lib.index, request.app.state.urls, q, game=game, source=source,
        limit=limit, offset=offset))


def api_suggest(request: Request, q: str = "") -> Response:
    """`{query, suggestions: [{id, title, url, context}]}`: the best titles, as the player types."""
    lib = _library(request)
    return SafeJSONResponse(
        search_context.suggest_context(lib.corpus, lib.index, request.app.state.urls, q))


# --- Static files ---

def static_file(request: Request, name: str) -> Response:
    """A file from static/, by its content-hashed name (cached for a year) or its own name."""
    found = request.app.state.assets.find(name)
    if found is None:
        raise AppError(404, "파일을 찾을 수 없습니다.")
    asset, cache = found
    headers = {"cache-control": cache, "etag": asset.etag}
    if request.headers.get("if-none-match") == asset.etag:
        return Response(status_code=304, headers=headers)
    return Response(asset.body, media_type=asset.media_type, headers=headers)


# --- Operations -----------------------------------------------------------------------------

def healthz(request: Request) -> Response:
    """The process is alive."""
    return SafeJSONResponse({"status": "ok"})


def readyz(request: Request) -> Response:
    """The corpus is loaded and can be served."""
    lib = _library(request)
    return SafeJSONResponse({"status": "ready", "version": lib.version, "entries": len(lib.corpus)})


ROUTES: list[tuple[str, Callable[..., Response], bool]] = [
    # path,                        handler,      in the OpenAPI schema
    ("/", home_page, False),
    ("/sources/{source_id}", source_page, False),
    ("/rules/{entry_id}", entry_page, False),
    ("/timing", timing_page, False),
    ("/search", search_page, False),
    ("/api/sources", api_sources, True),
    ("/api/sources/{source_id}", api_source, True),
    ("/api/entries/{entry_id}", api_entry, True),
    ("/api/search", api_search, True),
    ("/api/suggest", api_suggest, True),
    ("/static/{name:path}", static_file, False),
    ("/healthz", healthz, False),
    ("/readyz", readyz, False),
]


def build_router() -> APIRouter:
    """An APIRouter holding `ROUTES`, each answering GET and HEAD."""
    router = APIRouter()
    for path, handler, in_schema in ROUTES:
        router.add_api_route(
            path, handler, methods=["GET", "HEAD"], include_in_schema=in_schema,
            response_class=SafeJSONResponse if in_schema else HTMLResponse,
        )
    return router
