"""The one URL helper. Templates, the renderer and the API build every path through it.

It knows the root path the app is served under (`/` or e.g. `/rules-ko` behind a proxy) and the
public base URL for absolute links (canonical, previews); it never imports the web framework.

With `static_site` it builds the links of the static export (`python -m app export`) instead:
a static host serves files, not routes, so every page is a folder's `index.html`
(`/rules/<id>/`, `/timing/`), JSON answers end in `.json`, the search page is the offline page
(`/search/`, searching in the browser), and what only a server can answer (`/go/`, the
settings form, the live API) is not linked at all (`serves()` says what is).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass, field
from urllib.parse import quote, urlencode

#: What only the server answers: the settings form (a POST), the live JSON API and its
#: reference, suggestions as you type, and `/go/` (the server picks the best match).
SERVER_ONLY = frozenset({"settings", "api", "suggest", "go"})


@functools.lru_cache(maxsize=8192)
def _quoted_id(entry_id: str) -> str:
    """An entry id as a path (`/` kept as a separator): asked for every link to an entry, and
    percent-encoding was a sixth of a search answer's views. Bounded: ids from a request may
    get here too (a redirect's target, a removed entry's page)."""
    return quote(entry_id, safe="/")


@dataclass(frozen=True)
class Urls:
    """Builds paths under `root_path` and absolute URLs under `public_base_url`."""

    root_path: str = ""
    public_base_url: str = ""
    card_url_base: str = "https://arkhamdb.com/card/"
    #: Static file name → content-hashed name (see `app.web.assets`).
    static_names: Mapping[str, str] = field(default_factory=dict)
    #: Links for the static export: files any static server serves, nothing that needs a server.
    static_site: bool = False

    def path(self, path: str) -> str:
        """`path` (the app's own, starting with /) under the root path."""
        return self.root_path.rstrip("/") + path

    def published(self, path: str, media_type: str = "text/html") -> str:
        """Where the answer to the app's parameterless GET `path` lives: the path itself for
        the server; for a static site the file URL a static server maps to it, by its type
        (a page → its folder, `/timing/`; JSON → `.json`; a name with a suffix stays)."""
        if not self.static_site:
            return self.path(path)
        if path == "/offline":  # the offline page searches in the browser: the search page
            path = "/search"
        last = path.rpartition("/")[2]
        if "." in last or path == "/":
            return self.path(path)
        if media_type.startswith("text/html"):
            return self.path(path.rstrip("/") + "/")
        if media_type.startswith("application/json"):
            return self.path(path + ".json")
        return self.path(path)

    def serves(self, feature: str) -> bool:
        """Whether the site has `feature` (one of `SERVER_ONLY`): a static site has none of
        them (no form posts, no live search or API), so templates leave their links out."""
        if feature not in SERVER_ONLY:
            raise ValueError(f"unknown feature {feature!r}")  # a typo must not hide a link
        return not self.static_site

    def home(self) -> str:
        return self.path("/")

    def entry(self, entry_id: str, anchor: str | None = None) -> str:
        # Ids contain spaces ("Tarot Slot"), Hangul, "?", "#", "%" and quotes: all encoded.
        # "/" stays a separator (`en/Attack_of_Opportunity`, `faq/wilds/2`); the route takes
        # the rest of the path, and `app.corpus.ids` rejects ids a browser would rewrite.
        path = self.published("/rules/" + _quoted_id(entry_id))
        return f"{path}#{quote(anchor, safe='-_.')}" if anchor else path

    def history(self, entry_id: str, anchor: str | None = None) -> str:
        """An entry's history page (a removed entry's too), optionally at one change."""
        path = self.published("/history/" + _quoted_id(entry_id))
        return f"{path}#{quote(anchor, safe='-_.')}" if anchor else path

    def changes(self, source_id: str | None = None) -> str:
        """What's new, by revision: every source's, or one source's."""
        if source_id is None:
            return self.published("/changes")
        return self.published("/changes/" + quote(source_id, safe=""))

    def changes_feed(self) -> str:
        return self.path("/changes.atom")

    def source(self, source_id: str) -> str:
        return self.published("/sources/" + quote(source_id, safe=""))

    def timing(self) -> str:
        return self.published("/timing")

    def search(self, query: str = "", **params: str | int) -> str:
        args = {"q": query, **{k: v for k, v in params.items() if v not in ("", None)}}
        # A static site's search page (the offline page) reads only `q`: filters need a server.
        if self.static_site:
            return self.published("/offline") + ("?" + urlencode({"q": query}) if query else "")
        return self.path("/search") + ("?" + urlencode(args) if query or params else "")

    def static(self, name: str) -> str:
        return self.path("/static/" + self.static_names.get(name, name))

    def api(self, path: str) -> str:
        if self.static_site and path.strip("/"):  # a snapshot of a parameterless answer
            return self.published("/api/" + path.strip("/"), "application/json")
        return self.path("/api/" + path.lstrip("/"))

    def card(self, code: str) -> str:
        return self.card_url_base + quote(code, safe="")

    def go(self, text: str) -> str:
        if self.static_site:  # no server to pick the best match: the search page lists them
            return self.search(text)
        return self.path("/go/" + quote(text, safe=""))

    def settings(self) -> str:
        return self.path("/settings")

    def offline(self) -> str:
        return self.published("/offline")

    def search_index(self, part: str = "index", lang: str = "") -> str:
        """The browser engine's files: `index` (titles, postings, rules) or `texts`; with
        `lang`, that translation language's part of them."""
        return self.path(f"/search-{part}.{lang}.json" if lang else f"/search-{part}.json")

    def manifest(self) -> str:
        return self.path("/manifest.webmanifest")

    def service_worker(self) -> str:
        return self.path("/sw.js")

    def absolute(self, path: str, request_base: str = "") -> str:
        """`path` (already under the root path) as an absolute URL.

        The configured public base URL wins; otherwise `request_base` (scheme and host of the
        request, as a trusted proxy reported them) is used.
        """
        base = (self.public_base_url or request_base).rstrip("/")
        if not base:
            return path
        root = self.root_path.rstrip("/")
        # The base URL may already include the root path (https://example.org/rules-ko).
        if root and base.endswith(root) and path.startswith(root):
            path = path[len(root):]
        return base + path
