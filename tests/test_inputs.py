"""`app.web.inputs`: a cached answer's key holds exactly what its handler reads."""

from __future__ import annotations

import pytest
from starlette.datastructures import QueryParams

from app.web.inputs import MAX_CACHED_QUERY, page_key

_PARAMS = ("q", "game", "limit")
_LONG = "%EC%9D%B8" * 60  # 60 syllables: past what the key remembers, under the cap


def _scope(query: bytes) -> dict[str, object]:
    return {"type": "http", "path": "/search", "root_path": "", "query_string": query,
            "headers": []}


@pytest.mark.parametrize("query", [
    b"q=%ED%8B%88%EC%83%88+%EA%B3%B5%EA%B2%A9&game=ahlcg",
    b"game=eh&q=a&q=b&z=1",          # a repeated one: the last; an undeclared one: left out
    b"q=&limit=5&q",                  # blank values
    b"q=%ZZ%ED&game=%",               # broken escapes, decoded as Starlette decodes them
    b"q=" + _LONG.encode() + b"&game=ahlcg",
])
def test_the_key_holds_the_values_the_handler_reads(query: bytes) -> None:
    # Asked twice: the second key comes from the remembered values of the first.
    keys = [page_key(_scope(query), params=_PARAMS, owned=False, base="http://x")
            for _ in range(2)]
    read = QueryParams(query)
    expected = tuple(sorted((name, read[name]) for name in _PARAMS if name in read))
    assert keys[0] is not None and keys[1] is not None
    assert keys[0].params == keys[1].params == expected


def test_a_value_past_the_cap_is_never_stored_even_when_asked_again() -> None:
    query = b"q=" + b"a" * (MAX_CACHED_QUERY + 1)
    for _ in range(2):
        assert page_key(_scope(query), params=_PARAMS, owned=False, base="http://x") is None
    # The same bytes under another name the route does not read: stored, without them.
    other = page_key(_scope(b"z" + query[1:]), params=_PARAMS, owned=False, base="http://x")
    assert other is not None and other.params == ()
