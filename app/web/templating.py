"""HTML rendering with Jinja2: one environment, templates from the project's templates/ folder."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape

from app.search.index import ANALYSIS_VERSION
from app.urls import Urls

TEMPLATES = Path(__file__).resolve().parents[2] / "templates"


def make_environment(urls: Urls) -> Environment:
    """The Jinja2 environment; templates get the URL helper as `urls` and never build paths,
    and `search_analysis`, the analysis version of the client index they name."""
    env = Environment(
        loader=FileSystemLoader(TEMPLATES),
        autoescape=select_autoescape(["html"]),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        # Templates are read once: checking their mtimes on every render cost ~15% under load.
        auto_reload=False,
    )
    env.globals["urls"] = urls
    # The browser engine refuses a client index of another analysis than the page names.
    env.globals["search_analysis"] = ANALYSIS_VERSION
    return env


def compile_all(env: Environment) -> None:
    """Compile every template now (about 140 ms here): a worker that starts while others serve
    (a reload, a replacement) would otherwise compile each on its first request, and the
    players who ask first wait for it."""
    for name in env.list_templates():
        env.get_template(name)


def render_page(env: Environment, template: str, context: dict[str, Any]) -> str:
    """Render `template` with `context`."""
    return env.get_template(template).render(**context)
