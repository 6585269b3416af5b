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
from app.settings import Settings
from app.urls import Urls
from app.web.assets import Assets
from app.web.cache import ResponseCacheMiddleware
from app.web.errors import handle_error
from app.web.middleware import (
    ConditionalMiddleware,
    ForwardedMiddleware,
    SecurityHeadersMiddleware,
    URLLimitMiddleware,
)
from app.web.pages import TEMPLATES, make_environment
from app.web.routes import build_router
from app.web.state import Library, load_library, reload_library

STATIC = Path(__file__).resolve().parents[2] / "static"


def create_app(settings: Settings | None = None, library: Library | None = None) -> FastAPI:
    """Build the app over `library`, or over the data in `settings.data_dir`.

    Loading validates the data first: broken data raises `DataError` before anything serves.
    """
    settings = settings or Settings()
    assets = Assets(STATIC)
    urls = Urls(
        root_path=settings.root_path.rstrip("/"),
        public_base_url=settings.public_base_url,
        card_url_base=settings.card_url_base,
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
        root_path=urls.root_path,
        docs_url=None,
        redoc_url=None,
        lifespan=lifespan,
    )
    app.state.settings = settings
    app.state.urls = urls
    app.state.library = library
    app.state.assets = assets
    app.state.templates = make_environment(urls)
    app.state.code_version = _code_version(assets)
    app.include_router(build_router())
    for exc_type in (AppError, StarletteHTTPException, RequestValidationError, Exception):
        app.add_exception_handler(exc_type, handle_error)

    # Outermost last: proxy headers are read first, security headers are added last.
    app.add_middleware(GZipMiddleware, minimum_size=500, compresslevel=6)
    app.add_middleware(ResponseCacheMiddleware, version=lambda: app.state.library.version,
                       max_bytes=settings.cache_mb * 1024 * 1024)
    app.add_middleware(ConditionalMiddleware, version=lambda: app.state.library.version,
                       code_version=app.state.code_version)
    app.add_middleware(URLLimitMiddleware, handler=handle_error)
    app.add_middleware(SecurityHeadersMiddleware)
    trusted = [t for t in settings.trusted_proxies.split(",") if t.strip()]
    if trusted:
        app.add_middleware(ForwardedMiddleware, trusted=trusted)
    return app


def _code_version(assets: Assets) -> str:
    """A hash of the templates and static files: pages change when these do."""
    digest = hashlib.sha256(assets.version().encode())
    for path in sorted(TEMPLATES.glob("*.*")):
        digest.update(path.read_bytes())
    return digest.hexdigest()[:10]
