"""The ASGI application factory: settings, data, middleware, routes and the error handler."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import hashlib
import os
import signal
import threading
from collections.abc import AsyncIterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path
from typing import Protocol
from urllib.parse import urlsplit

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Receive, Scope, Send

from app.errors import AppError
from app.search import client_index
from app.search.documents import documents
from app.search.index import ANALYSIS_VERSION
from app.settings import Settings
from app.urls import Urls
from app.web.admission import PAGE_QUEUE, PAGE_SLOTS, AdmissionMiddleware, Gate
from app.web.assets import Assets
from app.web.background import at_low_priority, lower_priority
from app.web.built import BuiltAnswers, build_answers
from app.web.cache import CacheMiddleware, ResponseCache
from app.web.clients import ClientConnections
from app.web.encoding import GZIP_LEVEL, NegotiatedGZipMiddleware
from app.web.errors import handle_error
from app.web.front import FrontMiddleware
from app.web.hosts import HostGuardMiddleware, ProxyHeadersMiddleware, TrustedProxies
from app.web.known import Known
from app.web.lean import LeanEndpoints, lean_chain
from app.web.middleware import (
    RequestLimitsMiddleware,
    RootPathMiddleware,
    SecurityHeadersMiddleware,
)
from app.web.routes import ROUTES, add_routes, make_entry_views, prebuilt_paths, readiness
from app.web.routing import RouteTable
from app.web.state import PREPARED_ENV, Library, load_library, load_prepared, reload_library
from app.web.store import ResponseStore
from app.web.templating import TEMPLATES, compile_all, make_environment


class Admitting(Protocol):
    """A safety layer in front of the framework: an ASGI app that either passes a request on
    (as `admit` returns its scope) or answers it itself with an error (`admit` is None)."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None: ...

    def admit(self, scope: Scope) -> Scope | None: ...


STATIC = Path(__file__).resolve().parents[2] / "static"
#: Marks an exception the framework's own error layer answered (with the 500 page) already.
_ANSWERED = "_rulesajeon_answered"


class FrontedApp(FastAPI):
    """FastAPI, with the safety layers and the front layer (`app.web.front`) in front of
    FastAPI's own outer layers (its error, telemetry and body-limit middleware): a request the
    front layer answers never enters FastAPI or Starlette at all.

    `front` is that chain (request limits, root path, the trusted proxy's headers, the host
    check, the front layer); its innermost app is the framework, which runs only for misses.
    An exception in the chain itself gets the 500 page, as FastAPI's error layer gives one.
    """

    front: ASGIApp | None = None
    #: The `lean` rows' handlers (`app.web.lean`), and the per-request middleware in front
    #: of them (built on the first request, as Starlette builds its own stack).
    lean: LeanEndpoints | None = None
    _lean_chain: ASGIApp | None = None
    #: The chain's safety layers, outermost first, and its front layer (`known_answer`).
    admitting: tuple[Admitting, ...] = ()
    front_layer: FrontMiddleware | None = None
    #: Each client address's connections, counted by the protocol (`app.web.protocol`).
    clients: ClientConnections | None = None

    def known_answer(self, scope: Scope) -> Known | None:
        """What the chain in front of the framework would answer from memory for this request
        (an HTTP scope as the server made it), without sending it. None: the request goes
        through `front` as usual (a miss, or a safety layer's own error answer).

        The protocol (`app.web.protocol`) calls this for each GET and HEAD, and writes what
        it returns itself: the same checks, the same answer, no ASGI cycle.
        """
        if self.front_layer is None:
            return None
        # A copy, with the app in it as `__call__` sets it: what the layers mark in it stays
        # out of the scope uvicorn keeps (and would pass on for a miss).
        scope = {**scope, "app": self}
        for layer in self.admitting:
            admitted = layer.admit(scope)
            if admitted is None:
                return None
            scope = admitted
        return self.front_layer.answer(scope)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or self.front is None:
            await super().__call__(scope, receive, send)
            return
        scope["app"] = self  # as Starlette sets it: the error handler reads the app's state
        try:
            await self.front(scope, receive, send)
        except Exception as exc:
            if not getattr(exc, _ANSWERED, False):
                # ServerErrorMiddleware's answer: the one handler's 500, unless an answer
                # began (then uvicorn closes the connection), and the exception goes on up.
                with contextlib.suppress(RuntimeError):
                    response = await handle_error(Request(scope, receive), exc)
                    await response(scope, receive, send)
            raise

    async def miss(self, scope: Scope, receive: Receive, send: Send) -> None:
        """What the front layer did not answer: a `lean` row through the per-request
        middleware to its handler (`app.web.lean`), anything else through the framework."""
        if self.lean is not None and self.lean.answers(scope):
            if self._lean_chain is None:
                self._lean_chain = lean_chain(self.lean, self.user_middleware)
            await self._lean_chain(scope, receive, send)
            return
        await self.framework(scope, receive, send)

    async def framework(self, scope: Scope, receive: Receive, send: Send) -> None:
        """FastAPI's own stack (its outer layers, our per-request middleware, the router)."""
        try:
            await super().__call__(scope, receive, send)
        except Exception as exc:
            with contextlib.suppress(AttributeError):
                setattr(exc, _ANSWERED, True)
            raise


def create_app(settings: Settings | None = None, library: Library | None = None, *,
               static_site: bool = False, build: bool = True,
               settle: bool = False, front: bool = True, lean: bool = True) -> FrontedApp:
    """Build the app over `library`, or over the data in `settings.data_dir`.

    Loading validates the data first: broken data raises `DataError` before anything serves.
    `static_site` makes every link one of the static export's (`app.urls`, `app.export`).
    With `build`, the answers that depend on the data version alone are built at start-up
    (before the server says it is ready), unless `library` carries them already. With
    `settle` (a server's app: `app.main`), every template is compiled before the app says it
    is ready, and what is loaded then is kept out of the cyclic garbage collector's passes
    (`settle_heap`), and again after each reload. Without `front`, the front layer
    (`app.web.front`) answers nothing itself and every request goes through the framework: the
    tests compare both. Without `lean`, the route table's `lean` rows are called through
    FastAPI's own machinery too (`app.web.lean`; the tests compare both).
    """
    settings = settings or Settings()
    assets = Assets(STATIC)
    urls = app_urls(settings, static_site=static_site)
    code_version = _code_version(assets)
    if library is None:
        # A worker of a multi-worker server starts from the data its supervisor prepared.
        prepared = os.environ.get(PREPARED_ENV)
        library = (load_prepared(Path(prepared), urls, code_version) if prepared
                   else load_library(settings.data_dir, settings.index_dir, urls))
    urls = replace(urls, static_names=assets.names)

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        # SIGHUP reloads the data in this process (uvicorn leaves SIGHUP alone with one
        # worker; with several, its parent turns SIGHUP into a rolling restart that keeps
        # the old workers when new ones fail to start).
        loop = asyncio.get_running_loop()
        if threading.current_thread() is threading.main_thread():
            with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
                loop.add_signal_handler(signal.SIGHUP, lambda: loop.run_in_executor(
                    None, at_low_priority, reload))
        current: Library = app.state.library
        if build and current.built is None:
            app.state.library = replace(current, built=await _built(app, settings, current))
        if settle:
            # Before the app serves, so blocking its loop costs nobody; at a lower priority, as
            # the other workers serve meanwhile.
            at_low_priority(lambda: settle_app(app))
        yield
        if settle:
            # The server stops (a reload replaces this worker, or SIGTERM) and its connections
            # are closed by now. What is left, the interpreter freeing every object as it ends
            # (about 0.2 s of CPU), must not take a core from the workers that serve.
            lower_priority()

    def reload() -> None:
        if reload_library(app.state, settings.data_dir, settings.index_dir,
                          lambda new: with_built_answers(settings, new)) and settle:
            settle_app(app)  # the new data, as a starting worker's (its templates: cached)

    app = FrontedApp(
        title="룰사전 API",
        description="Korean rules reference for Arkham Horror: The Card Game and Eldritch Horror.",
        version="1",
        docs_url=None,
        redoc_url=None,
        lifespan=lifespan,
        # No `max_body_size`: FastAPI would answer its own 413 outside every middleware (plain
        # text, no security headers). `read_form_body` counts the one body the app reads.
    )
    app.router.redirect_slashes = False  # its Location is built from the request's host
    app.state.settings = settings
    app.state.urls = urls
    app.state.library = library
    app.state.assets = assets
    app.state.templates = make_environment(urls)
    app.state.code_version = code_version
    app.state.gate = Gate(settings.search_slots, settings.search_queue)
    app.state.page_gate = Gate(PAGE_SLOTS, PAGE_QUEUE)
    app.state.store = ResponseStore(settings.cache_mb * 1024 * 1024)
    add_routes(app.router)
    for exc_type in (AppError, StarletteHTTPException, RequestValidationError, Exception):
        app.add_exception_handler(exc_type, handle_error)

    # Each layer wraps the ones before it, so the lists run inside out: the last added sees a
    # request first. Read from the bottom up: limits before any work; the root path and the
    # proxy's headers settle what the request is before the host check; then the front layer
    # answers what is known already (cache hits, prebuilt answers, static files, health
    # probes: each with its security headers attached when it was made). These five run in
    # front of the framework (`FrontedApp.front`). For the rest, inside FastAPI: security
    # headers on everything, the cache (storing answers), admission control for the work,
    # and compression closest to the handlers. The table's `lean` rows go from the front
    # layer through the same per-request middleware straight to their handlers, without
    # FastAPI's own layers and request machinery (`FrontedApp.miss`,
    # `app.web.lean`). The layers in front of the security headers attach them to their own
    # errors (`errors.send_error`).
    # Static files come compressed already, or are not worth compressing (images).
    # `app.state["library"]`, not `app.state.library`: State answers attributes through
    # `__getattr__`, after a failed lookup (an exception made and dropped), which cost more
    # than the rest of a cache hit's key. Every cached request asks.
    cache = ResponseCache(store=app.state.store, version=lambda: app.state["library"].version,
                          built=lambda: app.state["library"].built,
                          code_version=app.state.code_version,
                          base_url=settings.public_base_url,
                          shared_seconds=settings.shared_cache_seconds)
    app.add_middleware(NegotiatedGZipMiddleware, minimum_size=500, compresslevel=GZIP_LEVEL,
                       exclude_content_types=("text/event-stream", "image/png", "image/x-icon"))
    app.add_middleware(AdmissionMiddleware, gate=app.state.gate, pages=app.state.page_gate)
    app.add_middleware(CacheMiddleware, cache=cache)
    app.add_middleware(SecurityHeadersMiddleware)
    if lean:
        app.lean = LeanEndpoints(ROUTES)
    front_layer = FrontMiddleware(app.miss, table=RouteTable(ROUTES), cache=cache,
                                  assets=assets, ready=lambda: readiness(app.state.library),
                                  answering=front)
    chain: Admitting = HostGuardMiddleware(front_layer, allowed_hosts=settings.host_patterns())
    layers = [chain]
    trusted = TrustedProxies(settings.trusted_proxies)
    if trusted:
        chain = ProxyHeadersMiddleware(chain, trusted=trusted)
        layers.append(chain)
    chain = RootPathMiddleware(chain, root_path=urls.root_path)
    layers.append(chain)
    chain = RequestLimitsMiddleware(chain)
    layers.append(chain)
    app.front = chain
    app.admitting = tuple(reversed(layers))
    app.front_layer = front_layer
    app.clients = ClientConnections(settings.max_client_connections, trusted,
                                    most_waiting=settings.max_connections)
    return app


async def _built(app: FastAPI, settings: Settings, library: Library) -> BuiltAnswers:
    langs = client_index.languages(library.corpus, documents(library.corpus))
    return await build_answers(app, library.version, app.state.code_version,
                               settings.public_base_url, prebuilt_paths(langs),
                               _build_host(settings))


#: The cyclic garbage collector's thresholds in a server (CPython's default: 700, 10, 10).
#: Nearly every object a request makes is freed by reference counting; the collector, run
#: every 700 allocations, mostly walked live connections. Under 2,000 non-reading connections
#: it took 35 % of a worker's CPU (py-spy), and a worker spent 1.9 ms per attacking connection;
#: with these, 0.85 ms (`bench.attack --only slow`; 10,000/10/10 gave 1.1 ms).
GC_THRESHOLDS = (50_000, 20, 100)


def settle_app(app: FastAPI) -> None:
    """What a server's worker does before it serves (`create_app(settle=True)`): compile every
    template, make every entry page's data (`routes.make_entry_views`), then `settle_heap`."""
    compile_all(app.state.templates)
    make_entry_views(app.state.library, app.state.urls, app.state.templates)
    settle_heap()


def settle_heap() -> None:
    """Keep every object alive now out of the cyclic garbage collector's passes (`gc.freeze`),
    and run the collector less often (`GC_THRESHOLDS`).

    A worker's corpus, index and built answers are about 100,000 long-lived objects; each full
    pass of the collector walks them all (20-30 ms here), and under a flood of connections
    such passes came often enough to hold every request of the worker for tens of milliseconds
    at a time. Called once they are loaded, and after a reload (the previous data's objects
    are collected first).
    """
    gc.unfreeze()
    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)


def with_built_answers(settings: Settings, library: Library) -> Library:
    """`library` with its built answers, made by an app of its own over it (a reload, or the
    supervisor preparing the data for its workers): in a thread, with an event loop of its
    own, since the caller may be inside one."""
    if library.built is not None:
        return library
    app = create_app(settings, library, build=False)
    with ThreadPoolExecutor(max_workers=1) as pool:
        built = pool.submit(asyncio.run, _built(app, settings, library)).result()
    return replace(library, built=built)


def _build_host(settings: Settings) -> str:
    """A `Host` the app answers for, for its own build requests."""
    if settings.public_base_url:
        return urlsplit(settings.public_base_url).netloc
    for pattern in settings.host_patterns():
        if pattern == "*":
            return "localhost"
        if pattern.startswith("*."):
            return "build" + pattern[1:]
        return pattern
    return "localhost"


def app_urls(settings: Settings, *, static_site: bool = False) -> Urls:
    """The URL helper the app builds its pages (and the corpus its links) with."""
    return Urls(root_path=settings.root_path.rstrip("/"),
                public_base_url=settings.public_base_url,
                card_url_base=settings.card_url_base, static_site=static_site)


def code_version() -> str:
    """The version of the templates and static files the app would serve (`_code_version`)."""
    return _code_version(Assets(STATIC))


def _code_version(assets: Assets) -> str:
    """A hash of the templates, the static files and the search's analysis version: pages
    (and the service worker, which keeps the client index) change when these do."""
    digest = hashlib.sha256(assets.version().encode() + ANALYSIS_VERSION.encode())
    for path in sorted(TEMPLATES.glob("*.*")):
        digest.update(path.read_bytes())
    return digest.hexdigest()[:10]
