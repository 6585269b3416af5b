"""Static files under content-hashed names, served from memory.

`style.css` is published as `style.3f2a1b9c5d.css`: the name changes when the content does, so
browsers may cache it for a year (`immutable`). The set of files is read once at start; only
those files are ever served, so no request path can reach outside the folder (there is no
path joining at request time at all). The original names still answer, with a short cache,
for links from outside (`/static/app-icon.svg`).
"""

from __future__ import annotations

import gzip
import hashlib
import mimetypes
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

IMMUTABLE = "public, max-age=31536000, immutable"
SHORT = "public, max-age=300"
_TYPES = {".js": "text/javascript", ".css": "text/css", ".svg": "image/svg+xml",
          ".webmanifest": "application/manifest+json", ".json": "application/json",
          ".png": "image/png", ".ico": "image/x-icon", ".txt": "text/plain"}


@dataclass(frozen=True)
class Asset:
    """One static file held in memory, with its gzip form when that is smaller."""

    name: str
    hashed: str
    body: bytes
    media_type: str
    etag: str
    gzipped: bytes | None = None


class Assets:
    """The static folder's files, by original and by hashed name."""

    def __init__(self, directory: Path) -> None:
        self._by_name: dict[str, Asset] = {}
        self._by_hashed: dict[str, Asset] = {}
        for path in sorted(p for p in directory.rglob("*") if p.is_file()):
            name = path.relative_to(directory).as_posix()
            if name.startswith(".") or "/." in name:
                continue
            body = path.read_bytes()
            digest = hashlib.sha256(body).hexdigest()[:10]
            stem, dot, suffix = name.rpartition(".")
            hashed = f"{stem}.{digest}.{suffix}" if dot else f"{name}.{digest}"
            media = (_TYPES.get(path.suffix) or mimetypes.guess_type(name)[0]
                     or "application/octet-stream")
            if media.startswith("text/") or media.endswith(("+xml", "+json", "/json")):
                media += "; charset=utf-8"
            # Compressed once here rather than by the middleware on every request.
            packed = gzip.compress(body, compresslevel=9, mtime=0)
            asset = Asset(name, hashed, body, media, f'"{digest}"',
                          packed if len(packed) < len(body) * 0.9 else None)
            self._by_name[name] = asset
            self._by_hashed[hashed] = asset

    @property
    def names(self) -> Mapping[str, str]:
        """Original name → hashed name, for the URL helper."""
        return {name: asset.hashed for name, asset in self._by_name.items()}

    def find(self, name: str) -> tuple[Asset, str] | None:
        """The asset published under `name` and the Cache-Control it is served with."""
        if name in self._by_hashed:
            return self._by_hashed[name], IMMUTABLE
        if name in self._by_name:
            return self._by_name[name], SHORT
        return None

    def version(self) -> str:
        """A hash of every asset: part of the code version pages are cached under."""
        digest = hashlib.sha256()
        for name in sorted(self._by_name):
            digest.update(self._by_name[name].hashed.encode())
        return digest.hexdigest()[:10]
