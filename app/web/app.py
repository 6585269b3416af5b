"""The ASGI application factory."""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI
from fastapi.exceptions import RequestValidationError
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException

from app.errors import AppError
from app.settings import Settings
from app.urls import Urls
from app.web.errors import handle_error
from app.web.pages import make_environment
from app.web.routes import build_router
from app.web.state import Library, load_library

STATIC = Path(__file__).resolve().parents[2] / "static"


def create_app(settings: Settings | None = None, library: Library | None = None) -> FastAPI:
    """Build the app over `library`, or over the data in `settings.data_dir`.

    Loading validates the data first: broken data raises `DataError` before anything serves.
    """
    settings = settings or Settings()
    urls = Urls(
        root_path=settings.root_path.rstrip("/"),
        public_base_url=settings.public_base_url,
        card_url_base=settings.card_url_base,
    )
    library = library or load_library(settings.data_dir, settings.index_dir, urls)
    app = FastAPI(
        title="룰사전 API",
        description="Korean rules reference for Arkham Horror: The Card Game and Eldritch Horror.",
        version="1",
        root_path=urls.root_path,
        docs_url=None,
        redoc_url=None,
    )
    app.state.settings = settings
    app.state.urls = urls
    app.state.library = library
    app.state.templates = make_environment(urls)
    app.include_router(build_router())
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    for exc_type in (AppError, StarletteHTTPException, RequestValidationError, Exception):
        app.add_exception_handler(exc_type, handle_error)
    return app
