"""The ASGI application factory: settings, data, middleware, routes and the error handler."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import signal
import threading
from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path

from fastapi import FastAPI
from fastapi.exceptions import RequestValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.middleware.gzip import GZipMiddleware

from app.errors import AppError
from app.search.index import ANALYSIS_VERSION
from app.settings import Settings
from app.urls import Urls
from app.web.admission import AdmissionMiddleware, Gate
from app.web.assets import Assets
from app.web.cache import CacheMiddleware
from app.web.errors import handle_error
from app.web.hosts import HostGuardMiddleware, ProxyHeadersMiddleware
from app.web.limits import MAX_BODY
from app.web.middleware import (
    RequestLimitsMiddleware,
    RootPathMiddleware,
    SecurityHeadersMiddleware,
)
from app.web.routes import ROUTES, add_routes
from app.web.routing import RouteMiddleware
from app.web.state import Library, load_library, reload_library
from app.web.store import ResponseStore
from app.web.templating import TEMPLATES, make_environment

STATIC = Path(__file__).resolve().parents[2] / "static"


def create_app(settings: Settings | None = None, library: Library | None = None, *,
               static_site: bool = False) -> FastAPI:
    """Build the app over `library`, or over the data in `settings.data_dir`.

    Loading validates the data first: broken data raises `DataError` before anything serves.
    `static_site` makes every link one of the static export's (`app.urls`, `app.export`).
    """
    settings = settings or Settings()
    assets = Assets(STATIC)
    urls = Urls(
        root_path=settings.root_path.rstrip("/"),
        public_base_url=settings.public_base_url,
        card_url_base=settings.card_url_base,
        static_site=static_site,
    )
    library = library or load_library(settings.data_dir, settings.index_dir, urls)
    urls = replace(urls, static_names=assets.names)

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        # SIGHUP reloads the data in this process (uvicorn leaves SIGHUP alone with one
        # worker; with several, its parent turns SIGHUP into a rolling restart that keeps
        # the old workers when new ones fail to start).
        loop = asyncio.get_running_loop()
        if threading.current_thread() is threading.main_thread():
            with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
                loop.add_signal_handler(
                    signal.SIGHUP,
                    lambda: loop.run_in_executor(
                        None, reload_library, app.state, settings.data_dir, settings.index_dir),
                )
        yield

    app = FastAPI(
        title="룰사전 API",
        description="Korean rules reference for Arkham Horror: The Card Game and Eldritch Horror.",
        version="1",
        docs_url=None,
        redoc_url=None,
        lifespan=lifespan,
        # Bodies are counted as they arrive and refused past the bound (413), not read whole.
        max_body_size=MAX_BODY,
    )
    app.router.redirect_slashes = False  # its Location is built from the request's host
    app.state.settings = settings
    app.state.urls = urls
    app.state.library = library
    app.state.assets = assets
    app.state.templates = make_environment(urls)
    app.state.code_version = _code_version(assets)
    app.state.gate = Gate(settings.search_slots, settings.search_queue)
    app.state.store = ResponseStore(settings.cache_mb * 1024 * 1024)
    add_routes(app.router)
    for exc_type in (AppError, StarletteHTTPException, RequestValidationError, Exception):
        app.add_exception_handler(exc_type, handle_error)

    # Each add_middleware wraps the ones before it, so the list runs inside out: the last
    # added sees a request first. Read from the bottom up: security headers on everything;
    # limits before any work; the root path and the proxy's headers settle what the request
    # is before the host check; then the route row, the cache (cached answers stop there),
    # admission control for search work, and compression closest to the handlers.
    # Static files come compressed already, or are not worth compressing (images).
    app.add_middleware(GZipMiddleware, minimum_size=500, compresslevel=6,
                       exclude_content_types=("text/event-stream", "image/png", "image/x-icon"))
    app.add_middleware(AdmissionMiddleware, gate=app.state.gate)
    app.add_middleware(CacheMiddleware, store=app.state.store,
                       version=lambda: app.state.library.version,
                       code_version=app.state.code_version, base_url=settings.public_base_url,
                       shared_seconds=settings.shared_cache_seconds)
    app.add_middleware(RouteMiddleware, table=ROUTES)
    app.add_middleware(HostGuardMiddleware, allowed_hosts=settings.host_patterns())
    trusted = [t for t in settings.trusted_proxies.split(",") if t.strip()]
    if trusted:
        app.add_middleware(ProxyHeadersMiddleware, trusted=trusted)
    app.add_middleware(RootPathMiddleware, root_path=urls.root_path)
    app.add_middleware(RequestLimitsMiddleware)
    app.add_middleware(SecurityHeadersMiddleware)
    return app


def _code_version(assets: Assets) -> str:
    """A hash of the templates, the static files and the search's analysis version: pages
    (and the service worker, which keeps the client index) change when these do."""
    digest = hashlib.sha256(assets.version().encode() + ANALYSIS_VERSION.encode())
    for path in sorted(TEMPLATES.glob("*.*")):
        digest.update(path.read_bytes())
    return digest.hexdigest()[:10]
