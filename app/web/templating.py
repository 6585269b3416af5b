"""HTML rendering with Jinja2: one environment, templates from the project's templates/ folder."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape
from markupsafe import Markup

from app.search.index import ANALYSIS_VERSION
from app.urls import Urls

TEMPLATES = Path(__file__).resolve().parents[2] / "templates"
#: The parts of every page that depend on the URL helper alone (`_fixed_NAME.html`: the head's
#: styles and scripts, the brand and tools, the footer, the search form of a page without a
#: query). Each is rendered once per environment and given to the templates as `fixed.NAME`,
#: finished HTML: rendered on every request they were most of a small page's template time
#: (about 30 function calls and escapes per page).
FIXED = ("assets", "site_tools", "footer", "search_form")


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
    env.globals["fixed"] = {name: Markup(env.get_template(f"_fixed_{name}.html").render())
                            for name in FIXED}
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


def render_blocks(env: Environment, template: str, context: dict[str, Any]) -> dict[str, Markup]:
    """Each top-level block of `template`, rendered alone with `context`, as finished HTML by
    block name: the parts of a page that a route renders once and sets into many requests'
    pages (`entry.html` with `_entry_article.html`)."""
    found = env.get_template(template)
    return {name: Markup("".join(block(found.new_context(context))))
            for name, block in found.blocks.items()}
