"""Entity tags: how they are made for pages and matched for `If-None-Match` (RFC 9110 §13.1.2).

One matcher for pages and static files. Pages get a weak tag that names the representation:
the data and code versions and everything the page depends on (its cache key, gzip or not),
so a tag from one URL never validates another.
"""

from __future__ import annotations

import hashlib
import re

__all__ = ["etag_matches", "page_etag"]

_TAG = re.compile(r'\s*(W/)?("[^"]*")\s*(?:,|$)')


def page_etag(*parts: object) -> str:
    """A weak tag for a page: a digest of the versions and the page's key."""
    digest = hashlib.sha256(repr(parts).encode("utf-8", "backslashreplace")).hexdigest()
    return f'W/"{digest[:20]}"'


def etag_matches(if_none_match: str, etag: str, *, exists: bool = True) -> bool:
    """Whether `If-None-Match` matches `etag` (weak comparison).

    `*` matches any current representation, so only when the resource `exists` (a 200).
    """
    value = if_none_match.strip()
    if not value or not exists:
        return False
    if value == "*":
        return True
    wanted = etag.removeprefix("W/")
    position = 0
    while position < len(value):
        match = _TAG.match(value, position)
        if match is None:
            return False  # malformed list: no match, the full answer is sent
        if match[2] == wanted:
            return True
        position = match.end()
    return False
