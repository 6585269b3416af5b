"""Answers that depend only on the data version, built once and served from memory.

`/search-index.json` costs about a second of CPU to make, `/search-texts.json` is larger than the
response cache keeps (so are a translation language's `/search-index.de.json` and
`/search-texts.de.json`, built for each language of the version: `routes.prebuilt_paths`),
and `/api/titles`, the service worker, `/timing`, `sitemap.xml` and `robots.txt` cost
milliseconds each: a flood of them (one cache-busting parameter each) took a
worker's CPU. The route table marks these routes `Cache(prebuilt=True)`; for each data version
they are asked of the app once, through its own ASGI interface (so the bytes are exactly what
the route answers), before a worker says it is ready, and kept here as finished answers:
identity and gzip bodies, headers and ETags. The response cache serves them whatever the query
string says.

Answers that hold absolute links (`absolute=True`: the sitemap, robots.txt, the canonical link
of `/timing`) are built only for the configured public base URL; without one they depend on the
request's host and go through the response cache instead.

With several workers the supervisor builds them once and saves them in the prepared snapshot
(`save`); each worker loads them (`load`) instead of building its own.
"""

from __future__ import annotations

import gzip
import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from starlette.types import ASGIApp

from app.web.asgi_get import asgi_get
from app.web.etags import page_etag
from app.web.inputs import PageKey

__all__ = ["BUILD_SCOPE", "BuiltAnswer", "BuiltAnswers", "build_answers"]

#: Set in the scope of the build's own requests (no client can set a scope key): the response
#: cache passes them to the route.
BUILD_SCOPE = "rulesajeon.build"
_INDEX = "answers.json"
#: Headers of the handler's answer that describe the body, not the encoding or the moment.
_KEPT = (b"content-type", b"cache-control", b"service-worker-allowed")


@dataclass(frozen=True, slots=True)
class BuiltAnswer:
    """One finished 200 answer in both encodings."""

    path: str
    headers: tuple[tuple[bytes, bytes], ...]
    body: bytes
    gzipped: bytes
    etag: str
    etag_gzip: str

    def encoded(self, gzip: bool) -> tuple[tuple[tuple[bytes, bytes], ...], bytes, str]:
        """(headers with the length and encoding, body, ETag) of the chosen encoding."""
        body = self.gzipped if gzip else self.body
        extra = ((b"content-encoding", b"gzip"),) if gzip else ()
        return ((*self.headers, *extra, (b"content-length", str(len(body)).encode())), body,
                self.etag_gzip if gzip else self.etag)


@dataclass(frozen=True)
class BuiltAnswers:
    """The prebuilt answers of one data version, by path, for one public base ("" when built
    without one: then only answers without absolute links are here)."""

    version: str
    code_version: str
    base: str
    answers: Mapping[str, BuiltAnswer]

    def get(self, path: str) -> BuiltAnswer | None:
        return self.answers.get(path)

    def save(self, folder: Path) -> None:
        """Write every answer into `folder` (a new folder of the prepared snapshot)."""
        folder.mkdir(parents=True, exist_ok=True)
        entries: list[dict[str, Any]] = []
        for n, answer in enumerate(self.answers.values()):
            for suffix, body in (("", answer.body), (".gz", answer.gzipped)):
                (folder / f"{n}{suffix}").write_bytes(body)
            entries.append({
                "path": answer.path, "file": str(n), "etag": answer.etag,
                "etag_gzip": answer.etag_gzip,
                "sha256": hashlib.sha256(answer.body + answer.gzipped).hexdigest(),
                "headers": [[k.decode("latin-1"), v.decode("latin-1")]
                            for k, v in answer.headers]})
        index = {"version": self.version, "code_version": self.code_version,
                 "base": self.base, "answers": entries}
        (folder / _INDEX).write_text(json.dumps(index, ensure_ascii=False), encoding="utf-8")

    @classmethod
    def load(cls, folder: Path, version: str, code_version: str) -> BuiltAnswers | None:
        """The answers saved in `folder` for this data and code version, or None (absent,
        for other data or code, or damaged: they are built again)."""
        try:
            index = json.loads((folder / _INDEX).read_text(encoding="utf-8"))
            if (index["version"], index["code_version"]) != (version, code_version):
                return None
            answers: dict[str, BuiltAnswer] = {}
            for entry in index["answers"]:
                body = (folder / entry["file"]).read_bytes()
                gzipped = (folder / f"{entry['file']}.gz").read_bytes()
                if hashlib.sha256(body + gzipped).hexdigest() != entry["sha256"]:
                    return None
                headers = tuple((k.encode("latin-1"), v.encode("latin-1"))
                                for k, v in entry["headers"])
                answers[entry["path"]] = BuiltAnswer(entry["path"], headers, body, gzipped,
                                                     entry["etag"], entry["etag_gzip"])
        except (OSError, ValueError, KeyError, TypeError):
            return None
        return cls(version, code_version, str(index["base"]), answers)


async def build_answers(app: ASGIApp, version: str, code_version: str, base: str,
                        routes: Iterable[tuple[str, bool]], host: str) -> BuiltAnswers:
    """Ask `app` for each `(path, absolute)` route, with `Host: host`, and keep the answers.

    `base` is the public base URL ("" for none: routes with absolute links are skipped). The
    ETags are the ones the response cache gives the same answers (`page_etag` of the same key),
    so a browser's copy validates whichever way it was served.
    """
    answers: dict[str, BuiltAnswer] = {}
    for path, absolute in routes:
        if absolute and not base:
            continue
        status, headers, body = await _get(app, path, host, urlsplit(base).scheme or "http")
        if status != 200:
            continue  # not worth keeping; the route answers it itself
        key = PageKey(base, path, (), None)
        kept = tuple((k, v) for k, v in headers if k in _KEPT)
        answers[path] = BuiltAnswer(
            path, kept, body, gzip.compress(body, compresslevel=9, mtime=0),
            page_etag(version, code_version, key, False),
            page_etag(version, code_version, key, True))
    return BuiltAnswers(version, code_version, base, answers)


async def _get(app: ASGIApp, path: str, host: str,
               scheme: str) -> tuple[int, list[tuple[bytes, bytes]], bytes]:
    """One GET into the app's ASGI interface, uncompressed, as the build's own request."""
    return await asgi_get(
        app, path=path, raw_path=path.encode(), scheme=scheme, server=("127.0.0.1", 80),
        headers=[(b"host", host.encode("idna")), (b"accept-encoding", b"identity")],
        scope_extra={BUILD_SCOPE: True})
