"""What an answer depends on, read from the request by one function each.

A page is a pure function of the data version, the public base URL, its path, the query
parameters its route declares, and (for some routes) the owned-collections cookie. The
handlers read these through the functions here, and the response cache builds its key from
the very same functions, so a cached answer can only be replayed to a request that would have
got the same one.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from urllib.parse import parse_qsl

from starlette._utils import get_route_path
from starlette.requests import HTTPConnection
from starlette.types import Scope

from app.corpus.collections import parse_owned

__all__ = ["MAX_CACHED_QUERY", "OWNED_COOKIE", "PageKey", "owned_of", "page_key"]

OWNED_COOKIE = "owned"
#: A longer query string is answered but never cached: no real query needs more (200 Hangul
#: characters percent-encoded are 1,800 bytes).
MAX_CACHED_QUERY = 2_048


def owned_of(scope: Scope) -> frozenset[str] | None:
    """The owned collections from the `owned` cookie, parsed the way Starlette parses cookies
    for the handlers (`Request.cookies`), among the served data's collections; None means
    "show everything"."""
    if not any(name == b"cookie" for name, _ in scope["headers"]):
        return None  # the common case, without building a connection object
    value = HTTPConnection(scope).cookies.get(OWNED_COOKIE)
    return parse_owned(value, known_collections(scope)) if value else None


def known_collections(scope: Scope) -> frozenset[str]:
    """The collection codes of the data the app serves (what a cookie may select among)."""
    codes: frozenset[str] = scope["app"].state.library.corpus.collection_codes
    return codes


@dataclass(frozen=True)
class PageKey:
    """Everything a cacheable answer depends on, besides the data and code versions."""

    base: str
    path: str
    params: tuple[tuple[str, str], ...]
    owned: frozenset[str] | None


def page_key(scope: Scope, *, params: Sequence[str], owned: bool, base: str) -> PageKey | None:
    """The key of this request's answer, or None when it must not be stored.

    `params` are the query parameters the route reads, `owned` whether it reads the cookie,
    `base` the public base URL (`hosts.public_base`). Unknown, repeated or overlong query
    parameters make the request uncacheable: they cannot change the answer, but they could
    make endless distinct keys.
    """
    query: bytes = scope.get("query_string", b"")
    if len(query) > MAX_CACHED_QUERY:
        return None
    # Decoded exactly as Starlette's QueryParams decodes it for the handlers.
    pairs = parse_qsl(query.decode("latin-1"), keep_blank_values=True)
    names = [name for name, _ in pairs]
    if len(set(names)) != len(names) or not set(names) <= set(params):
        return None
    return PageKey(base, get_route_path(scope), tuple(sorted(pairs)),
                   owned_of(scope) if owned else None)
