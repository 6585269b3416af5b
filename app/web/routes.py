"""The route table: every URL the app answers, read top to bottom (`ROUTES` at the end).

Handlers are thin: parse the request, call one context function, render it as HTML or JSON.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any
from urllib.parse import parse_qs

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from app.corpus.collections import format_owned, parse_owned
from app.errors import AppError
from app.urls import Urls
from app.web import context, offline, search_context
from app.web.pages import render_page
from app.web.responses import SafeJSONResponse
from app.web.state import Library

OWNED_COOKIE = "owned"


def _library(request: Request) -> Library:
    library: Library = request.app.state.library
    return library


def _urls(request: Request) -> Urls:
    urls: Urls = request.app.state.urls
    return urls


def _owned(request: Request) -> frozenset[str] | None:
    return parse_owned(request.cookies.get(OWNED_COOKIE))


def _page(request: Request, template: str, data: dict[str, Any], canonical: str) -> Response:
    """Render a page; `canonical` (a path) becomes the absolute canonical and preview URL."""
    urls = _urls(request)
    base = f"{request.url.scheme}://{request.url.netloc}"
    page = {**data, "canonical": urls.absolute(canonical, base),
            "icon_url": urls.absolute(urls.static("icon-512.png"), base)}
    return HTMLResponse(render_page(request.app.state.templates, template, page))


# --- HTML pages -----------------------------------------------------------------------------

def home_page(request: Request) -> Response:
    """The sources per game, the timing tables and the search box."""
    lib, urls = _library(request), _urls(request)
    return _page(request, "home.html", context.home_context(lib.corpus, urls), urls.home())


def source_page(request: Request, source_id: str) -> Response:
    """A source's 가나다 index and table of contents, without rules for collections not owned."""
    lib, urls = _library(request), _urls(request)
    data = context.source_context(lib.corpus, source_id, urls, _owned(request))
    return _page(request, "source.html", data, urls.source(source_id))


def entry_page(request: Request, entry_id: str) -> Response:
    """One rule with its sub-sections, table, backlinks and neighbours."""
    lib, urls = _library(request), _urls(request)
    if entry_id not in lib.corpus.entries:
        # Readable links for forums: /rules/틈새 공격 lands on /rules/Attack_of_Opportunity.
        titled = lib.corpus.by_title(entry_id)
        if titled is not None:
            return RedirectResponse(urls.entry(titled.id), status_code=301)
    data = context.entry_context(lib.corpus, entry_id, urls, _owned(request))
    return _page(request, "entry.html", data, urls.entry(entry_id))


def timing_page(request: Request) -> Response:
    """Both colour-coded timing tables."""
    lib, urls = _library(request), _urls(request)
    return _page(request, "timing.html", context.timing_context(lib.corpus, urls), urls.timing())


def search_page(
    request: Request,
    q: str = "",
    game: str = "",
    source: str = "",
    page: Annotated[int, Query(ge=1, le=search_context.MAX_PAGE)] = 1,
) -> Response:
    """Search results with filters, pagination and a did-you-mean suggestion."""
    lib, urls = _library(request), _urls(request)
    data = search_context.search_page_context(
        lib.corpus, lib.index, urls, q, game=game, source=source, page=page,
        owned=_owned(request))
    return _page(request, "search.html", data, urls.search(data["query"]))


def go(request: Request, text: str) -> Response:
    """`/go/틈새공격`, `/go/ㅌㅅㄱㄱ`: straight to the confident best match, else to search."""
    lib, urls = _library(request), _urls(request)
    target = search_context.confident_match(lib.corpus, lib.index, text)
    location = urls.entry(target) if target else urls.search(search_context.clean_query(text))
    return RedirectResponse(location, status_code=302)


def settings_page(request: Request, saved: str = "") -> Response:
    """The owned-collections (보유 게임) setting."""
    urls = _urls(request)
    data = context.settings_context(_owned(request), saved=bool(saved))
    return _page(request, "settings.html", data, urls.settings())


async def save_settings(request: Request) -> Response:
    """Store the owned collections in a cookie, then go back (Post/Redirect/Get)."""
    urls = _urls(request)
    body = (await request.body())[:4096].decode("utf-8", "replace")
    form = parse_qs(body)
    value = format_owned(form.get("owned", []))
    response = RedirectResponse(urls.settings() + "?saved=1", status_code=303)
    cookie_path = urls.home()
    if value:
        response.set_cookie(OWNED_COOKIE, value, max_age=400 * 24 * 3600, path=cookie_path,
                            samesite="lax", httponly=True)
    else:
        response.delete_cookie(OWNED_COOKIE, path=cookie_path)
    return response


def offline_page(request: Request) -> Response:
    """The page the service worker shows for searches while offline (titles only)."""
    urls = _urls(request)
    return _page(request, "offline.html", {}, urls.home())


# --- JSON API -------------------------------------------------------------------------------

def api_sources(request: Request) -> Response:
    """`[{id, title, game, entries}]`."""
    return SafeJSONResponse(context.sources_context(_library(request).corpus, _urls(request)))


def api_source(request: Request, source_id: str) -> Response:
    """`{id, title, game, entries: [{id, title, parent}]}` in reading order."""
    data = context.source_context(_library(request).corpus, source_id, _urls(request))
    return SafeJSONResponse(data)


def api_entry(request: Request, entry_id: str) -> Response:
    """The entry contract (see README) plus the page's rendered extras."""
    data = context.entry_context(_library(request).corpus, entry_id, _urls(request))
    return SafeJSONResponse(data)


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
        lib.corpus, lib.index, _urls(request), q, game=game, source=source,
        limit=limit, offset=offset, owned=_owned(request)))


def api_suggest(request: Request, q: str = "") -> Response:
    """`{query, suggestions: [{id, title, url, context}]}`: the best titles, as the player types."""
    lib = _library(request)
    return SafeJSONResponse(
        search_context.suggest_context(lib.corpus, lib.index, _urls(request), q))


def api_titles(request: Request) -> Response:
    """Every title with its URL and initial consonants: the offline search's whole index."""
    return SafeJSONResponse(offline.titles(_library(request).corpus, _urls(request)))


# --- Offline app: manifest and service worker -----------------------------------------------

def manifest(request: Request) -> Response:
    """The web app manifest (installable, Korean name and icons)."""
    return SafeJSONResponse(offline.manifest(_urls(request)),
                            media_type="application/manifest+json")


def service_worker(request: Request) -> Response:
    """The service worker: its text names the data and code version, so new data updates it."""
    lib = _library(request)
    script = offline.service_worker(lib.corpus, _urls(request), request.app.state.code_version)
    return Response(script, media_type="text/javascript",
                    headers={"cache-control": "no-cache", "service-worker-allowed": _urls(
                        request).home()})


# --- Static files ---------------------------------------------------------------------------

def static_file(request: Request, name: str) -> Response:
    """A file from static/, by its content-hashed name (cached for a year) or its own name."""
    found = request.app.state.assets.find(name)
    if found is None:
        raise AppError(404, "파일을 찾을 수 없습니다.")
    asset, cache = found
    headers = {"cache-control": cache, "etag": asset.etag, "vary": "Accept-Encoding"}
    if request.headers.get("if-none-match") == asset.etag:
        return Response(status_code=304, headers=headers)
    if asset.gzipped is not None and "gzip" in request.headers.get("accept-encoding", ""):
        return Response(asset.gzipped, media_type=asset.media_type,
                        headers={**headers, "content-encoding": "gzip"})
    return Response(asset.body, media_type=asset.media_type, headers=headers)


# --- Operations -----------------------------------------------------------------------------

def healthz(request: Request) -> Response:
    """The process is alive."""
    return SafeJSONResponse({"status": "ok"})


def readyz(request: Request) -> Response:
    """The corpus and its index are loaded and can be served."""
    lib = _library(request)
    return SafeJSONResponse({"status": "ready", "version": lib.version, "entries": len(lib.corpus)})


GET = ("GET", "HEAD")
ROUTES: list[tuple[str, Callable[..., Any], tuple[str, ...], bool]] = [
    # path,                       handler,          methods,   in the OpenAPI schema
    ("/", home_page, GET, False),
    ("/sources/{source_id}", source_page, GET, False),
    ("/rules/{entry_id}", entry_page, GET, False),
    ("/timing", timing_page, GET, False),
    ("/search", search_page, GET, False),
    ("/go/{text:path}", go, GET, False),
    ("/settings", settings_page, GET, False),
    ("/settings", save_settings, ("POST",), False),
    ("/offline", offline_page, GET, False),
    ("/api/sources", api_sources, GET, True),
    ("/api/sources/{source_id}", api_source, GET, True),
    ("/api/entries/{entry_id}", api_entry, GET, True),
    ("/api/search", api_search, GET, True),
    ("/api/suggest", api_suggest, GET, True),
    ("/api/titles", api_titles, GET, True),
    ("/manifest.webmanifest", manifest, GET, False),
    ("/sw.js", service_worker, GET, False),
    ("/static/{name:path}", static_file, GET, False),
    ("/healthz", healthz, GET, False),
    ("/readyz", readyz, GET, False),
]


def build_router() -> APIRouter:
    """An APIRouter holding `ROUTES`.

    HEAD is registered as its own route, kept out of the OpenAPI schema: one route for both
    methods would give two operations the same operationId.
    """
    router = APIRouter()
    for path, handler, methods, in_schema in ROUTES:
        response_class = SafeJSONResponse if in_schema else HTMLResponse
        for method in methods:
            router.add_api_route(
                path, handler, methods=[method], response_class=response_class,
                include_in_schema=in_schema and method != "HEAD",
                name=f"{handler.__name__}_{method.lower()}",
            )
    return router
