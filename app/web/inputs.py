"""What an answer depends on, read from the request by one function each.

A page is a pure function of the data version, the public base URL, its path, the query
parameters its route declares, and (for some routes) the owned-collections cookie. The
handlers read these through the functions here, and the response cache builds its key from
the very same functions, so a cached answer can only be replayed to a request that would have
got the same one.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import NamedTuple
from urllib.parse import parse_qsl

from starlette._utils import get_route_path
from starlette.requests import HTTPConnection
from starlette.types import Scope

from app.corpus.collections import parse_owned

__all__ = ["MAX_CACHED_QUERY", "OWNED_COOKIE", "PageKey", "first_values", "owned_of", "page_key"]

OWNED_COOKIE = "owned"
#: Longer values of the parameters a route reads are answered but never cached: no real query
#: needs more (200 Hangul characters percent-encoded are 1,800 bytes).
MAX_CACHED_QUERY = 2_048


def first_values(scope: Scope, *names: bytes) -> tuple[str, ...]:
    """The first value of each header in `names` (lower-case), as Starlette's `Headers.get`
    reads it (latin-1), "" for one the request lacks: in one pass over the headers."""
    found: dict[bytes, str] = {}
    for name, value in scope["headers"]:
        if name in names and name not in found:
            found[name] = value.decode("latin-1")
    return tuple(found.get(name, "") for name in names)


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


class PageKey(NamedTuple):
    """Everything a cacheable answer depends on, besides the data and code versions.

    A named tuple: made, hashed and compared in C, once or twice for every cached request
    (its `repr`, which page ETags digest, is a dataclass's)."""

    base: str
    path: str
    params: tuple[tuple[str, str], ...]
    owned: frozenset[str] | None


def page_key(scope: Scope, *, params: Sequence[str], owned: bool, base: str) -> PageKey | None:
    """The key of this request's answer, or None when it must not be stored.

    `params` are the query parameters the route reads, `owned` whether it reads the cookie,
    `base` the public base URL (`hosts.public_base`). The key holds exactly what the handler
    reads: each declared parameter's value as Starlette gives it to the handler (the last one
    when it is repeated); any other parameter cannot change the answer and is left out, so
    `?z=<random>` is the same answer, cached once. Declared values over `MAX_CACHED_QUERY`
    make the request uncacheable.
    """
    query: bytes = scope.get("query_string", b"")
    values: tuple[tuple[str, str], ...] = ()
    if query and params:
        declared = (_recent_values(query, tuple(params)) if len(query) <= _RECENT_QUERY
                    else _declared_values(query, tuple(params)))
        if declared is None:
            return None
        values = declared
    return PageKey(base, get_route_path(scope), values, owned_of(scope) if owned else None)


def _declared_values(query: bytes, params: tuple[str, ...]) -> tuple[tuple[str, str], ...] | None:
    """The declared parameters' values in `query`, sorted by name (None: over
    `MAX_CACHED_QUERY`), decoded exactly as Starlette's QueryParams decodes them for the
    handlers."""
    values: dict[str, str] = {}
    for name, value in parse_qsl(query.decode("latin-1"), keep_blank_values=True):
        if name in params:
            values[name] = value
    if sum(len(v.encode("utf-8", "surrogatepass")) for v in values.values()) > MAX_CACHED_QUERY:
        return None
    return tuple(sorted(values.items()))


#: Query strings up to this many bytes have their values remembered, the last
#: `_RECENT_COUNT` of them (under 3 MiB in all): a cache hit for a Korean search
#: spent most of its key's time in `parse_qsl`'s percent-decoding (about 16 µs of 22), and the
#: same few hundred queries come again and again. A flood of new ones costs what it did.
_RECENT_QUERY = 512
_RECENT_COUNT = 2_048
_recent_values = functools.lru_cache(maxsize=_RECENT_COUNT)(_declared_values)
