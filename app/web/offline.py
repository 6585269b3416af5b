"""The installable, offline side of the app: manifest, service worker and the title list.

No web framework here: the routes wrap these values in responses.
"""

from __future__ import annotations

from jinja2 import Environment

from app.corpus.hangul import choseong
from app.corpus.models import Corpus, Source
from app.corpus.normalize import compact
from app.search import client_index
from app.search.documents import FOLDED, documents
from app.urls import Urls
from app.web.templating import make_environment
from app.web.views import ManifestIcon, SearchLanguage, TitleItem, Titles, WebManifest

#: Brand colours, shared with static/style.css.
THEME_COLOUR = "#1d5c3f"
BACKGROUND = "#fbfaf7"
#: Static files the pages use (the rest of static/ is fetched only on demand).
SHELL_ASSETS = ("style.css", "search.js", "app.js", "theme.js", "visits.js", "app-icon.svg",
                "icon-192.png", "analysis.js", "matching.js", "engine.js")


def titles(corpus: Corpus, urls: Urls) -> Titles:
    """Every entry's title, URL, compact form and initial consonants, for offline matching."""
    return Titles(version=corpus.version, titles=[
        TitleItem(
            title=e.title,
            url=urls.entry(e.id),
            key=compact(e.title),
            initials=choseong(compact(e.title)),
            context=corpus.game(e.game).short + " · " + (
                corpus.entries[e.parent].title if e.parent
                else (s.spec.title if (s := corpus.source(e.source)) else "")),
        )
        for e in corpus
    ])


def manifest(urls: Urls) -> WebManifest:
    """The web app manifest: installable, with a Korean name and our own icons."""
    return WebManifest(
        name="룰사전: 아컴호러·엘드리치 호러 규칙",
        short_name="룰사전",
        description="아컴호러 카드게임과 엘드리치 호러의 한국어 규칙 사전",
        lang="ko",
        dir="ltr",
        id=urls.home(),
        start_url=urls.home(),
        scope=urls.home(),
        display="standalone",
        background_color=BACKGROUND,
        theme_color=THEME_COLOUR,
        icons=[
            ManifestIcon(src=urls.static("icon-192.png"), sizes="192x192", type="image/png"),
            ManifestIcon(src=urls.static("icon-512.png"), sizes="512x512", type="image/png"),
            ManifestIcon(src=urls.static("app-icon.svg"), sizes="any", type="image/svg+xml"),
        ],
    )


def _optional(source: Source) -> bool:
    """A translation other than English: downloaded only by visitors who read it (the
    reference's own language and English are everyone's)."""
    return source.spec.translation_of is not None and source.spec.lang != FOLDED


def search_languages(corpus: Corpus, urls: Urls) -> list[SearchLanguage]:
    """Each optional language's name and browser-engine files (`/search-index.de.json`)."""
    langs = client_index.languages(corpus, documents(corpus))
    return [SearchLanguage(lang=lang, name=corpus.language(lang).name,
                           index=urls.search_index("index", lang),
                           texts=urls.search_index("texts", lang)) for lang in langs]


def service_worker(corpus: Corpus, urls: Urls, code_version: str,
                   env: Environment | None = None) -> str:
    """The service worker script. It names the data and code version, so new data (or new
    code) changes its bytes, the browser installs it, and the old caches are dropped.

    It saves the reference in its own language and English; a translation's pages and
    search files only for a visitor whose browser reads that language (the pages tell it
    their `navigator.languages`)."""
    # The browser engine's index and texts: offline, every search is answered from them.
    shell = [urls.home(), urls.api("titles"), urls.offline(), urls.timing(), urls.changes(),
             urls.search_index("index"), urls.search_index("texts"),
             *(urls.static(name) for name in SHELL_ASSETS)]
    pages = [*(urls.source(s.id) for s in corpus.sources if not _optional(s)),
             *(urls.entry(e) for s in corpus.sources if not _optional(s) for e in s.entry_ids)]
    languages: dict[str, list[str]] = {}
    for found in search_languages(corpus, urls):
        languages[found.lang] = [found.index, found.texts]
    for source in corpus.sources:
        if _optional(source):
            languages.setdefault(source.spec.lang, []).extend(
                [urls.source(source.id), *(urls.entry(e) for e in source.entry_ids)])
    env = env or make_environment(urls)  # the app passes its own, built once at start
    return env.get_template("sw.js").render(
        version=f"{corpus.version}-{code_version}", shell=shell, pages=pages,
        languages=languages,
        offline=urls.offline(), search=urls.search(), api=urls.api(""), static=urls.static(""),
        titles=urls.api("titles"),
        version_label=corpus.version,
    )
