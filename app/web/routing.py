"""What the middleware knows about routes: the facts each row of the route table declares,
and which row a request matched.

`app.web.routes` holds the table itself; this module only describes a row and looks rows up,
so the middleware and the error handler can use it without importing every handler.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from starlette._utils import get_route_path
from starlette.routing import BaseRoute, Match, compile_path
from starlette.types import ASGIApp, Receive, Scope, Send

__all__ = ["Cache", "Route", "RouteMiddleware", "RouteTable", "allowed_methods",
           "matches_a_route", "route_of"]


@dataclass(frozen=True)
class Cache:
    """How a route's answers are cached (in memory, by ETag, and by shared caches in front).

    `params` are the query parameters the handler reads; a request with any other parameter is
    answered but not stored. `owned` says the answer depends on the owned-collections cookie.
    """

    params: tuple[str, ...] = ()
    owned: bool = False
    #: The answer depends on the data version alone (and, if `absolute`, on the public base
    #: URL): built once per data version and served from memory (`app.web.built`).
    prebuilt: bool = False
    absolute: bool = False


@dataclass(frozen=True)
class Route:
    """One row of the route table."""

    path: str
    handler: Callable[..., Any]
    methods: tuple[str, ...]
    #: None: never stored by the response cache, no ETag from it.
    cache: Cache | None = None
    #: Search work: run through admission control (a bounded number at a time).
    expensive: bool = False
    #: Its cost is proven small (a file or a value in memory, a health probe): never queued.
    #: Every other route's uncached answers go through admission control too (page slots).
    light: bool = False
    #: Called without FastAPI's request machinery (`app.web.lean`), its parameters read and
    #: validated as FastAPI would: on the event loop (its handler is CPU-short Python), or in
    #: the thread pool when it is also `expensive` (search work, bounded by admission control)
    #: and the worker has other search work at the time (`admission.ALONE`).
    lean: bool = False
    #: The JSON answer's type (a view from `app.web.views`, or a list of one): declared in the
    #: OpenAPI schema. Every JSON route has one; HTML pages have none.
    model: Any = None


#: Where the row a request matched is kept in its scope (set by `RouteMiddleware`).
_ROUTE_KEY = "rulesajeon.route"


def route_of(scope: Scope) -> Route | None:
    """The table row this request matched (None: no route, or a method the path lacks)."""
    route: Route | None = scope.get(_ROUTE_KEY)
    return route


def _match(routes: Iterable[BaseRoute], scope: Scope) -> tuple[Any, set[str]]:
    """The endpoint a request reaches, and the methods of routes matching only its path."""
    allowed: set[str] = set()
    for candidate in routes:
        match, child = candidate.matches(scope)
        if match == Match.FULL:
            return child.get("endpoint"), allowed
        if match == Match.PARTIAL:
            allowed.update(getattr(candidate, "methods", None) or ())
    return None, allowed


def matches_a_route(routes: Iterable[BaseRoute], scope: Scope) -> bool:
    """Whether some route answers `scope` (a probe built from a request)."""
    return _match(routes, scope)[0] is not None


def allowed_methods(routes: Iterable[BaseRoute], scope: Scope) -> list[str]:
    """Every method some route accepts for this path (the `Allow` header of a 405)."""
    probe = {**scope, "method": "\x00"}  # matches no route fully: collects every method
    return sorted(_match(routes, probe)[1])


class RouteTable:
    """Finds the table row of a request, by the path's first segment to the one or two rows
    that can match, compiled with Starlette's own `compile_path` (the router matches the same
    patterns again afterwards, for misses only)."""

    def __init__(self, table: Iterable[Route]) -> None:
        self.by_segment: dict[str, list[tuple[re.Pattern[str], Route]]] = {}
        self.anywhere: list[tuple[re.Pattern[str], Route]] = []
        for row in table:
            pattern = compile_path(row.path)[0]
            first = row.path[1:].split("/", 1)[0]
            if "{" in first:
                self.anywhere.append((pattern, row))
            else:
                self.by_segment.setdefault(first, []).append((pattern, row))
        # Each segment's candidates, then the rows that can match anywhere, in one tuple made
        # once (every request looks its row up).
        self._anywhere = tuple(self.anywhere)
        self._candidates = {first: (*rows, *self._anywhere)
                            for first, rows in self.by_segment.items()}

    def row(self, scope: Scope) -> Route | None:
        """The row this request matches (None: no route, or a method the path lacks)."""
        path: str = scope["path"] if not scope.get("root_path") else get_route_path(scope)
        method: str = scope["method"]
        end = path.find("/", 1)
        first = path[1:end] if end >= 0 else path[1:]  # `path[1:].split("/", 1)[0]`
        for pattern, row in self._candidates.get(first, self._anywhere):
            if method in row.methods and pattern.match(path):
                return row
        return None

    def mark(self, scope: Scope) -> Route | None:
        """Look the row up once and keep it in the scope, for the layers behind."""
        found = self.row(scope)
        scope[_ROUTE_KEY] = found
        return found


class RouteMiddleware:
    """Finds the table row of each request once, for the cache and admission control (when
    no front layer did: `app.web.front` marks the row itself)."""

    def __init__(self, app: ASGIApp, table: Iterable[Route]) -> None:
        self.app = app
        self.table = RouteTable(table)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and _ROUTE_KEY not in scope:
            self.table.mark(scope)
        await self.app(scope, receive, send)
