"""The one URL helper. Templates, the renderer and the API build every path through it.

It knows the root path the app is served under (`/` or e.g. `/rules-ko` behind a proxy) and the
public base URL for absolute links (canonical, previews); it never imports the web framework.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from urllib.parse import quote, urlencode


@dataclass(frozen=True)
class Urls:
    """Builds paths under `root_path` and absolute URLs under `public_base_url`."""

    root_path: str = ""
    public_base_url: str = ""
    card_url_base: str = "https://arkhamdb.com/card/"
    #: Static file name → content-hashed name (see `app.web.assets`).
    static_names: Mapping[str, str] = field(default_factory=dict)

    def path(self, path: str) -> str:
        """`path` (the app's own, starting with /) under the root path."""
        return self.root_path.rstrip("/") + path

    def home(self) -> str:
        return self.path("/")

    def entry(self, entry_id: str, anchor: str | None = None) -> str:
        # Ids contain spaces ("Tarot Slot"), Hangul, "?", "#", "%" and quotes: all encoded.
        # "/" stays a separator (`en/Attack_of_Opportunity`, `faq/wilds/2`); the route takes
        # the rest of the path, and `app.corpus.ids` rejects ids a browser would rewrite.
        path = self.path("/rules/" + quote(entry_id, safe="/"))
        return f"{path}#{quote(anchor, safe='-_.')}" if anchor else path

    def source(self, source_id: str) -> str:
        return self.path("/sources/" + quote(source_id, safe=""))

    def timing(self) -> str:
        return self.path("/timing")

    def search(self, query: str = "", **params: str | int) -> str:
        args = {"q": query, **{k: v for k, v in params.items() if v not in ("", None)}}
        return self.path("/search") + ("?" + urlencode(args) if query or params else "")

    def static(self, name: str) -> str:
        return self.path("/static/" + self.static_names.get(name, name))

    def api(self, path: str) -> str:
        return self.path("/api/" + path.lstrip("/"))

    def card(self, code: str) -> str:
        return self.card_url_base + quote(code, safe="")

    def go(self, text: str) -> str:
        return self.path("/go/" + quote(text, safe=""))

    def settings(self) -> str:
        return self.path("/settings")

    def offline(self) -> str:
        return self.path("/offline")

    def search_index(self, part: str = "index") -> str:
        """The browser engine's files: `index` (titles, postings, rules) or `texts`."""
        return self.path(f"/search-{part}.json")

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
