"""The route table: every URL the app answers, read top to bottom (`ROUTES` at the end).

Each row also declares what the middleware needs to know about the route, so adding a route is
one line here: whether and how its answer is cached (`Cache`: the query parameters it reads,
whether it reads the owned-collections cookie) and whether it is expensive enough to go
through admission control. Handlers are thin: parse the request, call one context function,
render it as HTML or JSON.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Annotated
from urllib.parse import parse_qs, quote

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from jinja2 import Environment
from markupsafe import Markup

from app.corpus.collections import format_owned, is_hidden
from app.corpus.ids import canonical_id
from app.corpus.lookup import named
from app.errors import AppError
from app.search import client_index
from app.urls import Urls
from app.web import api_docs, context, crawlers, feeds, history_context, offline, search_context
from app.web.body import read_form_body, same_origin
from app.web.encoding import accepts_gzip
from app.web.etags import etag_matches
from app.web.hosts import public_base
from app.web.inputs import OWNED_COOKIE, known_collections, owned_of
from app.web.responses import SafeJSONResponse
from app.web.routing import Cache, Route, matches_a_route
from app.web.state import Library, workers_ready
from app.web.templating import render_blocks, render_page
from app.web.views import (
    ChangesPage,
    ClientIndex,
    ClientLanguage,
    ClientLanguageTexts,
    ClientTexts,
    EntryPage,
    ErrorAnswer,
    Health,
    Ready,
    SearchResults,
    SourcePage,
    SourceSummary,
    Suggestions,
    Titles,
    View,
    WebManifest,
)

__all__ = ["PREBUILT", "ROUTES", "add_routes", "prebuilt_paths", "readiness"]


def _library(request: Request) -> Library:
    library: Library = request.app.state.library
    return library


def _urls(request: Request) -> Urls:
    urls: Urls = request.app.state.urls
    return urls


def _owned(request: Request) -> frozenset[str] | None:
    return owned_of(request.scope)


def _base(request: Request) -> str:
    return public_base(request.scope, request.app.state.settings.public_base_url)


def _page(request: Request, template: str, data: View | None, canonical: str,
          **extra: object) -> Response:
    """Render a page from its view (the templates read its fields); `canonical` (a path)
    becomes the absolute canonical and preview URL."""
    urls, base = _urls(request), _base(request)
    page = {**(data.template_context() if data is not None else {}), **extra,
            "canonical": urls.absolute(canonical, base),
            "icon_url": urls.absolute(urls.static("icon-512.png"), base),
            # The absolute form of any of the app's paths (links people copy and share).
            "absolute": lambda path: urls.absolute(path, base),
            # The newest revision's date: "changed since your last visit" (static/visits.js).
            "data_changed": _library(request).history.newest,
            # The newest revision that changed something, as the pages say it.
            "latest_change": _library(request).history.latest}
    return HTMLResponse(render_page(request.app.state.templates, template, page))


# --- HTML pages -----------------------------------------------------------------------------

def home_page(request: Request) -> Response:
    """The sources per game, the timing tables and the search box."""
    lib, urls = _library(request), _urls(request)
    return _page(request, "home.html", context.home_context(lib.corpus, urls), urls.home())


def source_page(request: Request, source_id: str) -> Response:
    """A source's 가나다 index and table of contents, without rules for collections not owned."""
    lib, urls = _library(request), _urls(request)
    data = context.source_context(lib.corpus, source_id, urls, _owned(request),
                                  changed=lib.history.last_changed)
    return _page(request, "source.html", data, urls.source(source_id))


def entry_page(request: Request, entry_id: str) -> Response:
    """One rule with its sub-sections, table, backlinks and neighbours."""
    lib, urls = _library(request), _urls(request)
    if entry_id not in lib.corpus.entries:
        if entry_id.endswith("/"):  # ids may hold "/", so this route also sees "/rules/X/"
            return trailing_slash(request, "rules/" + entry_id)
        # Decomposed Hangul (NFD, as some systems write it) names the composed id: 301 to it.
        canonical = canonical_id(entry_id, lib.corpus.entries)
        if canonical is not None:
            return RedirectResponse(urls.entry(canonical), status_code=301)
        # An old link never dead-ends: a renamed id moved, a removed entry shows its last text.
        moved = lib.history.redirects.get(entry_id)
        if moved is not None:
            return _moved(request, entry_id, moved)
        removed = history_context.removed_context(lib.corpus, lib.history, entry_id, urls)
        if removed is not None:
            response = _page(request, "removed.html", removed, urls.entry(entry_id))
            # A static host answers 200 for any file; the server says what it is.
            response.status_code = 200 if urls.static_site else 410
            return response
        # Links as forums and people write them (/rules/틈새+공격, /rules/attack-of-opportunity,
        # /rules/서지) land on the entry they name, or ask which one (app.corpus.lookup).
        found = named(lib.corpus, entry_id)
        if len(found) == 1:
            return RedirectResponse(urls.entry(found[0]), status_code=301)
        if found:
            return _chooser(request, entry_id, found)
    return _page(request, "entry.html", _entry_view(lib, entry_id, urls, _owned(request)),
                 urls.entry(entry_id), article=_entry_article(lib, entry_id, urls,
                                                              request.app.state.templates))


def _entry_view(lib: Library, entry_id: str, urls: Urls,
                owned: frozenset[str] | None = None) -> EntryPage:
    """The entry page's data (`history_context.entry_page_context`), made once per data
    version: it depends on the version alone, but for `not_owned` (the one field the owned
    collections change). Half of an uncached entry page's time was remaking it."""
    # Per URL helper as well (apps sharing a version may have other root paths); the helper
    # is kept beside its views, so its id names it while they live.
    _, views = lib.views.setdefault(id(urls), (urls, {}))
    page = views.get(entry_id)
    if page is None:  # two threads may make it at once: either copy is the same
        page = views.setdefault(entry_id, history_context.entry_page_context(
            lib.corpus, lib.history, entry_id, urls))
    assert isinstance(page, EntryPage)
    if is_hidden(lib.corpus.entries[entry_id].collections, owned):
        return page.model_copy(update={"not_owned": True})
    return page


def _entry_article(lib: Library, entry_id: str, urls: Urls,
                   env: Environment) -> dict[str, Markup]:
    """An entry page's parts that depend on the data version alone (`_entry_article.html`:
    the rule with its sub-sections, and what surrounds the article), rendered once per
    version and template environment, like `_entry_view`."""
    _, articles = lib.views.setdefault(id(env), (env, {}))
    article: dict[str, Markup] | None = articles.get(entry_id)
    if article is None:
        article = articles.setdefault(entry_id, render_blocks(
            env, "_entry_article.html", _entry_view(lib, entry_id, urls).template_context()))
    return article


def make_entry_views(lib: Library, urls: Urls, env: Environment) -> None:
    """Make every entry page's data and version-bound HTML now (`_entry_view`,
    `_entry_article`), as a worker starts and after each reload, before it serves: paid by
    the first visitor of each entry otherwise (then 0.15 ms for the data and 0.3 ms for the
    HTML, of an uncached page's 0.6 ms), for what they take anyway once every entry has been
    asked for (6.4 MiB of views and 5 MiB of HTML a worker)."""
    for entry_id in lib.corpus.entries:
        _entry_article(lib, entry_id, urls, env)


def _moved(request: Request, entry_id: str, target: str) -> Response:
    """A renamed id's answer: 301 to the new one; on the static export (files cannot
    redirect), a page that sends the browser on and links the new address."""
    urls = _urls(request)
    if not urls.static_site:
        return RedirectResponse(urls.entry(target), status_code=301)
    entry = _library(request).corpus.get(target)
    return _page(request, "moved.html", None, urls.entry(target), old_id=entry_id,
                 target=urls.entry(target), title=entry.title if entry else target)


def history_page(request: Request, entry_id: str) -> Response:
    """Every change to one entry, word by word."""
    lib, urls = _library(request), _urls(request)
    if entry_id not in lib.history.entries:
        moved = lib.history.redirects.get(entry_id)
        if moved is not None and not urls.static_site:
            return RedirectResponse(urls.history(moved), status_code=301)
        if entry_id.endswith("/"):
            return trailing_slash(request, "history/" + entry_id)
    data = history_context.history_context(lib.corpus, lib.history, entry_id, urls)
    return _page(request, "history.html", data, urls.history(entry_id))


def changes_page(request: Request, source_id: str | None = None) -> Response:
    """What's new, by revision, every source's or one source's."""
    lib, urls = _library(request), _urls(request)
    data = history_context.changes_context(lib.corpus, lib.history, urls, source_id)
    return _page(request, "changes.html", data, urls.changes(source_id))


def changes_source_page(request: Request, source_id: str) -> Response:
    return changes_page(request, source_id)


def changes_feed(request: Request) -> Response:
    """`/changes.atom`: the newest revisions, for feed readers and forum bots."""
    lib, urls = _library(request), _urls(request)
    data = history_context.changes_context(lib.corpus, lib.history, urls,
                                           limit=history_context.FEED_REVISIONS)
    return Response(feeds.changes_feed(data, urls, _base(request)),
                    media_type="application/atom+xml")


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
    typed: Annotated[str, Query(max_length=1)] = "",
) -> Response:
    """Search results with filters, pagination, notes on what was corrected or translated
    into the official terms, and a did-you-mean suggestion; `typed=1` searches as typed."""
    lib, urls = _library(request), _urls(request)
    data = search_context.search_page_context(
        lib.corpus, lib.index, urls, q, game=game, source=source, page=page,
        owned=_owned(request), as_typed=bool(typed))
    return _page(request, "search.html", data, urls.search(data.query))


def go(request: Request, text: str) -> Response:
    """`/go/틈새공격`, `/go/ㅌㅅㄱㄱ`: straight to the confident best match, else to search."""
    lib, urls = _library(request), _urls(request)
    targets = search_context.go_targets(lib.corpus, lib.index, text)
    if len(targets) > 1:  # a tie: the player chooses, the site does not guess
        return _chooser(request, text, targets)
    location = (urls.entry(targets[0]) if targets
                else urls.search(search_context.clean_query(text)))
    return RedirectResponse(location, status_code=302)


def _chooser(request: Request, text: str, ids: tuple[str, ...] | list[str]) -> Response:
    """The page that asks which of several entries `text` meant (each with game and place)."""
    urls = _urls(request)
    data = search_context.chooser_context(_library(request).corpus, urls, text, list(ids))
    return _page(request, "go.html", data, urls.go(text))


#: The hidden field the settings form sends: a body without it (empty, or from another form)
#: changes nothing, because "no boxes ticked" and "no form at all" must not look the same.
SETTINGS_FORM = "owned-form"


def settings_page(request: Request, saved: str = "") -> Response:
    """The owned-collections (보유 게임) setting."""
    urls = _urls(request)
    data = context.settings_context(_library(request).corpus, _owned(request),
                                    saved=bool(saved))
    response = _page(request, "settings.html", data, urls.settings(), form_marker=SETTINGS_FORM)
    # The form shows this visitor's own choice: no shared cache may keep it.
    response.headers["cache-control"] = "private, no-cache"
    return response


async def save_settings(request: Request) -> Response:
    """Store the owned collections in a cookie, then go back (Post/Redirect/Get).

    Only from this site's own pages (`Origin` / `Sec-Fetch-Site`), and only with the form's
    own marker: another site's form post, or an empty or garbled body, changes nothing.
    """
    urls = _urls(request)
    if not same_origin(request.scope, _base(request)):
        raise AppError(403, "다른 사이트에서 보낸 설정 변경은 받지 않습니다.")
    body = await read_form_body(request)
    try:
        form = parse_qs(body, strict_parsing=True, max_num_fields=64)
    except ValueError:
        form = {}
    if form.get("form") != [SETTINGS_FORM]:
        raise AppError(400, "설정 양식이 올바르지 않아 아무것도 바꾸지 않았습니다.")
    value = format_owned(form.get("owned", []), known_collections(request.scope))
    response = RedirectResponse(urls.settings() + "?saved=1", status_code=303)
    response.headers["cache-control"] = "no-store"
    cookie_path = urls.home()
    if value:
        response.set_cookie(OWNED_COOKIE, value, max_age=400 * 24 * 3600, path=cookie_path,
                            samesite="lax", httponly=True)
    else:
        response.delete_cookie(OWNED_COOKIE, path=cookie_path, samesite="lax", httponly=True)
    return response


def offline_page(request: Request) -> Response:
    """The page the service worker shows for searches while offline (titles only)."""
    urls = _urls(request)
    languages = offline.search_languages(_library(request).corpus, urls)
    return _page(request, "offline.html", None, urls.home(), search_languages=languages)


def trailing_slash(request: Request, rest: str) -> Response:
    """`/rules/X/` → `/rules/X` (308), when that is a page; else 404.

    Starlette's own slash redirect is off: it builds an absolute `Location` from the request's
    host. This one is a path under the root path, like every `Location` the app sends.
    """
    target = "/" + rest.strip("/")
    probe = {**request.scope, "path": target, "root_path": "", "method": "GET"}
    if target == "/" or not matches_a_route(request.app.router.routes, probe):
        raise AppError(404, "페이지를 찾을 수 없습니다.")
    query = request.scope.get("query_string", b"").decode("latin-1")
    location = _urls(request).path(target) + (f"?{query}" if query else "")
    return RedirectResponse(location, status_code=308)


# --- JSON API -------------------------------------------------------------------------------

def api_sources(request: Request) -> Response:
    """Every source, in the manifest's order."""
    return SafeJSONResponse(context.sources_context(_library(request).corpus, _urls(request)))


def api_source(request: Request, source_id: str) -> Response:
    """A source: its entries in reading order, its index and table of contents."""
    lib = _library(request)
    data = context.source_context(lib.corpus, source_id, _urls(request),
                                  changed=lib.history.last_changed)
    return SafeJSONResponse(data)


def api_entry(request: Request, entry_id: str) -> Response:
    """The entry contract (see README) plus the page's rendered extras and its history."""
    lib, urls = _library(request), _urls(request)
    if entry_id not in lib.corpus.entries:
        if entry_id.endswith("/"):
            return trailing_slash(request, "api/entries/" + entry_id)
        moved = lib.history.redirects.get(entry_id)
        if moved is not None and moved in lib.corpus.entries:
            return RedirectResponse(urls.api("entries/" + quote(moved, safe="/")),
                                    status_code=301)
        removed = history_context.removed_context(lib.corpus, lib.history, moved or entry_id,
                                                  urls)
        if removed is not None:
            raise AppError(410, f"'{removed.id}' 항목은 {removed.removed}에 삭제되었습니다. "
                                f"마지막 글과 이력: {removed.history_url}")
    return SafeJSONResponse(_entry_view(lib, entry_id, urls))


def api_changes(request: Request, source: str = "") -> Response:
    """What's new, by revision (as /changes): every source's, or `source`'s."""
    lib = _library(request)
    if source and source not in lib.history.sources:
        raise AppError(422, f"'{source}' 자료의 변경 내역은 없습니다. 있는 자료: "
                            + ", ".join(lib.history.sources))
    return SafeJSONResponse(history_context.changes_context(
        lib.corpus, lib.history, _urls(request), source or None))


def api_search(
    request: Request,
    q: str = "",
    game: str = "",
    source: str = "",
    limit: Annotated[int, Query(ge=1, le=50)] = 10,
    offset: Annotated[int, Query(ge=0, le=1000)] = 0,
    typed: Annotated[str, Query(max_length=1)] = "",
) -> Response:
    """One page of search results, with what the search changed in the query."""
    lib = _library(request)
    return SafeJSONResponse(search_context.search_results(
        lib.corpus, lib.index, _urls(request), q, game=game, source=source,
        limit=limit, offset=offset, owned=_owned(request), as_typed=bool(typed)))


def api_suggest(request: Request, q: str = "") -> Response:
    """The best titles for what the player has typed so far."""
    lib = _library(request)
    return SafeJSONResponse(
        search_context.suggest_context(lib.corpus, lib.index, _urls(request), q))


def api_titles(request: Request) -> Response:
    """Every title with its URL and initial consonants: the offline search's whole index."""
    return SafeJSONResponse(offline.titles(_library(request).corpus, _urls(request)))


def search_index_file(request: Request) -> Response:
    """What the browser engine searches offline and on a static export: postings, titles,
    the analysis rules and the weights (`app/search/client_index.py`)."""
    lib = _library(request)
    return SafeJSONResponse(ClientIndex(**client_index.index(lib.corpus, _urls(request))))


def search_texts_file(request: Request) -> Response:
    """Each document's text, in the index's order: the browser engine's body search and
    snippets (loaded beside `/search-index.json`)."""
    return SafeJSONResponse(ClientTexts(**client_index.texts(_library(request).corpus)))


def search_language_file(request: Request, lang: str) -> Response:
    """One translation language's titles and postings for the browser engine, loaded only by
    visitors who read it (`/search-index.json` lists the languages)."""
    lib = _library(request)
    found = client_index.language_index(lib.corpus, _urls(request), lang)
    if found is None:
        raise AppError(404, f"'{lang}' 번역의 검색 색인이 없습니다.")
    return SafeJSONResponse(ClientLanguage(**found))


def search_language_texts_file(request: Request, lang: str) -> Response:
    """One translation language's texts for the browser engine (beside its index file)."""
    found = client_index.language_texts(_library(request).corpus, lang)
    if found is None:
        raise AppError(404, f"'{lang}' 번역의 검색 텍스트가 없습니다.")
    return SafeJSONResponse(ClientLanguageTexts(**found))


# --- Offline app: manifest and service worker -----------------------------------------------

def manifest(request: Request) -> Response:
    """The web app manifest (installable, Korean name and icons)."""
    return SafeJSONResponse(offline.manifest(_urls(request)),
                            media_type="application/manifest+json",
                            headers={"cache-control": "public, max-age=3600"})


def service_worker(request: Request) -> Response:
    """The service worker: its text names the data and code version, so new data updates it."""
    lib = _library(request)
    script = offline.service_worker(lib.corpus, _urls(request), request.app.state.code_version,
                                    request.app.state.templates)
    return Response(script, media_type="text/javascript",
                    headers={"cache-control": "no-cache", "service-worker-allowed": _urls(
                        request).home()})


def api_reference_page(request: Request) -> Response:
    """The JSON API's reference, from the app's own OpenAPI schema (no CDN, no scripts)."""
    data = api_docs.api_reference(request.app.openapi())
    return _page(request, "api.html", None, _urls(request).path("/api"), **data)


# --- Crawlers ---------------------------------------------------------------------------------

def robots(request: Request) -> Response:
    """`robots.txt`: crawl the reference, not the searches; where the sitemap is."""
    return Response(crawlers.robots_txt(_urls(request), _base(request)), media_type="text/plain")


def sitemap(request: Request) -> Response:
    """`sitemap.xml`: every page worth indexing, with the data version's date."""
    text = crawlers.sitemap_xml(_library(request).corpus, _urls(request), _base(request))
    return Response(text, media_type="application/xml")


async def favicon(request: Request) -> Response:
    """`/favicon.ico`, which browsers ask for on their own: the app icon."""
    return await static_file(request, "icon-192.png")


# --- Static files ---------------------------------------------------------------------------

async def static_file(request: Request, name: str) -> Response:
    """A file from static/, by its content-hashed name (cached for a year) or its own name."""
    found = request.app.state.assets.find(name)
    if found is None:
        raise AppError(404, "파일을 찾을 수 없습니다.")
    asset, cache = found
    headers = {"cache-control": cache, "etag": asset.etag, "vary": "Accept-Encoding"}
    if etag_matches(request.headers.get("if-none-match", ""), asset.etag):
        return Response(status_code=304, headers=headers)
    if asset.gzipped is not None and accepts_gzip(request.headers):
        return Response(asset.gzipped, media_type=asset.media_type,
                        headers={**headers, "content-encoding": "gzip"})
    return Response(asset.body, media_type=asset.media_type, headers=headers)


# --- Operations -----------------------------------------------------------------------------

async def healthz(request: Request) -> Response:
    """The process is alive (answered on the event loop: never queued behind searches)."""
    return SafeJSONResponse(Health(status="ok"), headers={"cache-control": "no-store"})


async def readyz(request: Request) -> Response:
    """The corpus and its index are loaded and can be served, by this worker and (with
    several) by every other: 503 while one is starting again or cannot start."""
    ready = readiness(_library(request))
    return SafeJSONResponse(ready, status_code=200 if ready.status == "ready" else 503,
                            headers={"cache-control": "no-store"})


def readiness(library: Library) -> Ready:
    """What `/readyz` says (also answered by the front layer, `app.web.front`)."""
    ready, why = workers_ready()
    return Ready(status="ready" if ready else f"not ready: {why}", version=library.version,
                 entries=len(library.corpus))


# --- The table ---------------------------------------------------------------------------

GET = ("GET", "HEAD")
POST = ("POST",)
_PAGE = Cache()
_OWNED_PAGE = Cache(owned=True)
#: Built once per data version (`app.web.built`); `_BUILT_ABSOLUTE` ones hold absolute links.
_BUILT = Cache(prebuilt=True)
_BUILT_ABSOLUTE = Cache(prebuilt=True, absolute=True)
_SEARCH = ("q", "game", "source", "typed")

ROUTES: tuple[Route, ...] = (
    #     path                        handler          methods  cache / expensive / model
    Route("/", home_page, GET, cache=_PAGE),
    Route("/sources/{source_id}", source_page, GET, cache=_OWNED_PAGE),
    Route("/rules/{entry_id:path}", entry_page, GET, cache=_OWNED_PAGE, lean=True),
    Route("/history/{entry_id:path}", history_page, GET, cache=_PAGE),
    Route("/changes", changes_page, GET, cache=_PAGE),
    Route("/changes/{source_id}", changes_source_page, GET, cache=_PAGE),
    Route("/changes.atom", changes_feed, GET, cache=_PAGE),
    Route("/timing", timing_page, GET, cache=_BUILT_ABSOLUTE),
    Route("/search", search_page, GET, cache=Cache((*_SEARCH, "page"), owned=True),
          expensive=True, lean=True),
    Route("/go/{text:path}", go, GET, cache=_PAGE, expensive=True),
    Route("/settings", settings_page, GET),
    Route("/settings", save_settings, POST),
    Route("/offline", offline_page, GET, cache=_PAGE),
    Route("/api", api_reference_page, GET, cache=_PAGE),
    Route("/api/sources", api_sources, GET, cache=_PAGE, model=list[SourceSummary]),
    Route("/api/sources/{source_id}", api_source, GET, cache=_PAGE,
          model=SourcePage),
    Route("/api/entries/{entry_id:path}", api_entry, GET, cache=_PAGE,
          model=EntryPage),
    Route("/api/changes", api_changes, GET, cache=Cache(("source",)), model=ChangesPage),
    Route("/api/search", api_search, GET,
          cache=Cache((*_SEARCH, "limit", "offset"), owned=True), expensive=True,
          model=SearchResults, lean=True),
    Route("/api/suggest", api_suggest, GET, cache=Cache(("q",)), expensive=True,
          model=Suggestions, lean=True),
    Route("/api/titles", api_titles, GET, cache=_BUILT, model=Titles),
    Route("/search-index.json", search_index_file, GET, cache=_BUILT, model=ClientIndex),
    Route("/search-texts.json", search_texts_file, GET, cache=_BUILT, model=ClientTexts),
    # Built for each translation language of the data version (`prebuilt_paths`).
    Route("/search-index.{lang}.json", search_language_file, GET, cache=_BUILT,
          model=ClientLanguage),
    Route("/search-texts.{lang}.json", search_language_texts_file, GET, cache=_BUILT,
          model=ClientLanguageTexts),
    Route("/manifest.webmanifest", manifest, GET, model=WebManifest, light=True),
    Route("/sw.js", service_worker, GET, cache=_BUILT),
    Route("/static/{name:path}", static_file, GET, light=True),
    Route("/robots.txt", robots, GET, cache=_BUILT_ABSOLUTE, light=True),
    Route("/sitemap.xml", sitemap, GET, cache=_BUILT_ABSOLUTE),
    Route("/favicon.ico", favicon, GET, light=True),
    Route("/healthz", healthz, GET, model=Health, light=True),
    Route("/readyz", readyz, GET, model=Ready, light=True),
    Route("/{rest:path}/", trailing_slash, GET, light=True),
)


#: The routes built once per data version: (path, whether the answer holds absolute links).
PREBUILT: tuple[tuple[str, bool], ...] = tuple(
    (r.path, r.cache.absolute) for r in ROUTES if r.cache is not None and r.cache.prebuilt)


def prebuilt_paths(languages: Iterable[str]) -> tuple[tuple[str, bool], ...]:
    """`PREBUILT` with each `{lang}` route once per translation language of the data version
    (the client index's `languages`): every one of them is a finished answer too."""
    langs = tuple(languages)
    return tuple((path.replace("{lang}", lang), absolute)
                 for path, absolute in PREBUILT
                 for lang in (langs if "{lang}" in path else ("",)))


def add_routes(router: APIRouter) -> None:
    """Register `ROUTES` on `router` (the app's own: an included router would be matched as
    one opaque route, hiding the rows from `RouteMiddleware`).

    HEAD is registered as its own route, kept out of the OpenAPI schema: one route for both
    methods would give two operations the same operationId.
    """
    for route in ROUTES:
        json = route.model is not None
        for method in route.methods:
            router.add_api_route(
                route.path, route.handler, methods=[method],
                response_class=SafeJSONResponse if json else HTMLResponse,
                # Declared for the schema only: handlers return their response themselves.
                response_model=route.model,
                responses=_ERRORS if json else None,
                include_in_schema=json and method != "HEAD",
                name=f"{route.handler.__name__}_{method.lower()}",
            )


#: Every JSON route's errors, as `app.web.errors` sends them (this also replaces FastAPI's own
#: 422 schema, which is not what the error handler answers).
_ERRORS: dict[int | str, dict[str, object]] = {
    "4XX": {"model": ErrorAnswer, "description": "The request was refused (JSON error)."},
    "5XX": {"model": ErrorAnswer, "description": "The server failed (JSON error)."},
}
