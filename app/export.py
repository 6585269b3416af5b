"""The static export: the app's own pages, written as files any static server can serve.

`python -m app export DIR --base-url https://example.org/rules/` builds the app in this process
with static links (`Urls.static_site`: `/rules/<id>/`, `/timing/`, `/search/`) and asks it for
every page, exactly as a browser would, through the ASGI interface: there is no second
template path, so the export is the app's pages. What it writes:

- every entry and source page, at the file its static link names (`rules/<id>/index.html`;
  the file path is the decoded id, the link percent-encoded), every entry's history page and
  each source's list of changes, a removed entry's page and, for a renamed id, a page that
  sends the browser to the new one;
- every parameterless GET route of `ROUTES` whose answer is public (home, `/timing`, the
  offline page as the search page, the manifest, the service worker, robots.txt, the sitemap,
  the API's parameterless JSON snapshots, and any route added later): derived from the table,
  so a new row is exported without being named here;
- the static files under their content-hashed and their own names, and a `404.html`.

Routes that need a server (the settings form, `/go/`, live search and API, health checks) are
left out, and the static links never point at them.
"""

from __future__ import annotations

import asyncio
import glob
import gzip
import os
import re
import shutil
import tempfile
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path, PurePosixPath
from urllib.parse import unquote, urlsplit

from fastapi import FastAPI

from app.settings import Settings
from app.urls import Urls
from app.web.asgi_get import asgi_get

#: Written into the export: a folder holding it may be replaced by the next export.
MARKER = ".rulesajeon-export"
#: Parameterless routes with a public answer but no static counterpart: the JSON API's
#: reference page documents endpoints only a server answers.
SERVER_PAGES = frozenset({"/api"})
#: Answers a static copy must not keep: per-visitor (the settings form) or live (health).
_NOT_STORABLE = ("no-store", "private")
#: Files worth compressing ahead of time for `--gzip` (images are compressed already).
_TEXT_SUFFIXES = frozenset({".html", ".css", ".js", ".json", ".xml", ".txt", ".svg",
                            ".webmanifest"})


class ExportError(Exception):
    """The export cannot be written (bad base URL, a folder that is not ours, an app error)."""


@dataclass(frozen=True)
class ExportResult:
    """What an export wrote."""

    directory: Path
    pages: int
    files: int
    bytes: int
    seconds: float


def split_base_url(base_url: str) -> tuple[str, str]:
    """`https://example.org/rules/` → (`https://example.org/rules`, `/rules`): the public base
    URL and the root path the site is served under. Raises `ExportError` if not absolute."""
    parts = urlsplit(base_url.strip())
    if parts.scheme not in ("http", "https") or not parts.hostname or parts.query \
            or parts.fragment or parts.username or parts.password:
        raise ExportError(f"--base-url must be an absolute http(s) URL such as "
                          f"https://example.org/rules/, not {base_url!r}")
    root = parts.path.rstrip("/")
    if "//" in root:
        raise ExportError(f"--base-url has an empty path segment: {base_url!r}")
    return f"{parts.scheme}://{parts.netloc}{root}", root


def export_settings(settings: Settings, base_url: str | None) -> Settings:
    """The settings the exporting app runs with: `base_url`, else the configured public base
    URL (with `RULES_ROOT_PATH` when it is not already in it), else an `ExportError`.

    A static site needs an absolute base: the sitemap protocol requires absolute URLs, and the
    canonical and preview links must name the site's real address.
    """
    if not base_url:
        if not settings.public_base_url:
            raise ExportError("give --base-url (e.g. https://example.org/rules/) or set "
                              "RULES_PUBLIC_BASE_URL: the sitemap and canonical links of a "
                              "static site must be absolute")
        base_url = settings.public_base_url
        if settings.root_path and not base_url.endswith(settings.root_path):
            base_url += settings.root_path
    public, root = split_base_url(base_url)
    host = urlsplit(public).hostname or ""
    return settings.model_copy(update={
        "public_base_url": public, "root_path": root,
        "allowed_hosts": f"[{host}]" if ":" in host else host,
        "trusted_proxies": "", "cache_mb": 0,  # every page is asked for once: nothing to reuse
    })


def file_of(url: str, urls: Urls) -> PurePosixPath:
    """The file (relative to the export folder) a static server answers `url` (a path under
    the root path) with: the decoded path, `index.html` for a folder."""
    path = unquote(urlsplit(url).path)
    root = urls.root_path.rstrip("/")
    if root and (path == root or path.startswith(root + "/")):
        path = path[len(root):]
    if path.endswith("/") or not path:
        path += "index.html"
    relative = PurePosixPath(path.lstrip("/"))
    if not relative.parts or ".." in relative.parts or "." in relative.parts:
        raise ExportError(f"{url!r} does not name a file inside the export")
    return relative


class _Client:
    """GET requests straight into the ASGI app (no sockets, no test-only HTTP client)."""

    def __init__(self, app: FastAPI, public_base_url: str) -> None:
        parts = urlsplit(public_base_url)
        self._app = app
        self._scheme = parts.scheme
        self._host = parts.netloc
        self._port = parts.port or (443 if parts.scheme == "https" else 80)

    async def get(self, url: str) -> tuple[int, dict[str, str], bytes]:
        """Status, headers (lower-case names) and body of the answer to `url` (percent-encoded
        path under the root path), as a browser asking for HTML would get it, uncompressed."""
        status, headers, body = await asgi_get(
            self._app, path=unquote(url), raw_path=url.encode("ascii"), scheme=self._scheme,
            server=(self._host.rsplit(":", 1)[0], self._port),
            headers=[(b"host", self._host.encode("idna")),
                     (b"accept", b"text/html,application/xhtml+xml,*/*;q=0.8"),
                     (b"accept-encoding", b"identity")])
        return status, {k.decode("latin-1"): v.decode("latin-1") for k, v in headers}, body


def _page_urls(app: FastAPI, urls: Urls) -> Iterator[tuple[str, str]]:
    """(the app's URL, the static site's URL) of every entry and source page, every history
    page and per-source list of changes, and the pages old links land on: a removed entry's
    last text, and a renamed id's page that sends the browser on (files cannot redirect)."""
    library = app.state.library
    corpus, history = library.corpus, library.history
    served = replace(urls, static_site=False)
    for source in corpus.sources:
        yield served.source(source.id), urls.source(source.id)
    for entry in corpus:
        yield served.entry(entry.id), urls.entry(entry.id)
    for source_id in history.sources:
        yield served.changes(source_id), urls.changes(source_id)
    for entry_id, record in history.entries.items():
        yield served.history(entry_id), urls.history(entry_id)
        if record.removed:
            yield served.entry(entry_id), urls.entry(entry_id)
    for old_id in history.redirects:
        if old_id not in corpus.entries and old_id not in history.entries:
            yield served.entry(old_id), urls.entry(old_id)


def _parameterless_routes() -> list[str]:
    """Every GET route of the table a file can answer, in table order: no path parameter, and
    no query parameter its answer depends on (`/search?q=` is computed per query)."""
    from app.web.routes import ROUTES

    found: list[str] = []
    for route in ROUTES:
        reads_query = route.cache is not None and bool(route.cache.params)
        if "GET" in route.methods and "{" not in route.path and not reads_query \
                and route.path not in found:
            found.append(route.path)
    return found


async def _write_site(app: FastAPI, urls: Urls, folder: Path,
                      precompress: bool) -> tuple[int, int, int]:
    """Ask the app for every page and file and write them into `folder` (with `precompress`,
    also `NAME.gz` beside each text file where that is smaller). Returns (pages, files, bytes)."""
    client = _Client(app, urls.public_base_url)
    served = replace(urls, static_site=False)
    written: dict[PurePosixPath, str] = {}
    #: Files (names with a suffix) the pages and the service worker refer to → who refers.
    referred: dict[str, str] = {}
    pages = total = 0

    def write(relative: PurePosixPath, body: bytes, source: str) -> None:
        nonlocal total
        if relative in written:
            raise ExportError(f"{source} and {written[relative]} would both be {relative}")
        written[relative] = source
        if relative.suffix == ".html" or relative.name == "sw.js":
            for url in references(body.decode("utf-8"), urls):
                referred.setdefault(url, source)
        target = folder.joinpath(*relative.parts)
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(body)
        except OSError as exc:  # e.g. ids `A` and `A/index.html`: a file where a folder goes
            raise ExportError(f"cannot write {relative} for {source}: {exc}") from exc
        total += len(body)

    async def fetch(url: str, expect: int = 200) -> tuple[dict[str, str], bytes]:
        status, headers, body = await client.get(url)
        if status != expect:
            raise ExportError(f"{unquote(url)} answered {status}, not {expect}")
        return headers, body

    for app_url, static_url in _page_urls(app, urls):
        _, body = await fetch(app_url)
        write(file_of(static_url, urls), body, unquote(app_url))
        pages += 1
    for path in _parameterless_routes():
        if path in SERVER_PAGES:
            continue
        status, headers, body = await client.get(served.path(path))
        cache = headers.get("cache-control", "")
        if status != 200 or any(word in cache for word in _NOT_STORABLE):
            continue  # needs a server: a redirect, an error, per-visitor or live answers
        media = headers.get("content-type", "")
        write(file_of(urls.published(path, media), urls), body, path)
        pages += media.startswith("text/html")
    for name, hashed in sorted(app.state.assets.names.items()):
        _, body = await fetch(served.path("/static/" + hashed))
        write(PurePosixPath("static", hashed), body, "/static/" + hashed)
        # The plain name answers too, as in the app (links from outside: /static/app-icon.svg).
        write(PurePosixPath("static", name), body, "/static/" + name)
    _, body = await fetch(served.path("/404.html"), expect=404)
    write(PurePosixPath("404.html"), body, "the not-found page")
    # Files no row or page list names but a page or the service worker uses (a route with a
    # path parameter such as `/search-{part}.json`): whatever the site fetches is exported.
    for url, source in sorted(referred.items()):
        relative = file_of(url, urls)
        if relative not in written:
            status, _, body = await client.get(url)
            if status != 200:
                raise ExportError(f"{source} refers to {unquote(url)}, which answered {status}")
            write(relative, body, unquote(url))
    if precompress:
        for relative in [r for r in written if r.suffix in _TEXT_SUFFIXES]:
            body = folder.joinpath(*relative.parts).read_bytes()
            packed = gzip.compress(body, compresslevel=9, mtime=0)
            if len(packed) < len(body):
                write(relative.with_name(relative.name + ".gz"), packed, f"{relative} gzipped")
    return pages + 1, len(written), total


#: Quoted paths: a page's attribute values (href, src, data-*) and the service worker's strings.
_QUOTED = re.compile(r'"(/[^"\s<>]*)"')


def references(text: str, urls: Urls) -> set[str]:
    """The site's own files (a name with a suffix, under the root path) that `text` uses."""
    root = urls.root_path.rstrip("/") + "/"
    found: set[str] = set()
    for url in _QUOTED.findall(text):
        path = urlsplit(url).path
        if url.startswith(root) and "." in path.rpartition("/")[2]:
            found.add(path)
    return found


def _own_folder(directory: Path, kind: str) -> Path:
    """A new folder beside `directory` for this export's `kind` ("building", "old"), marked as
    the export's own from the start: only folders carrying the marker are ever deleted."""
    folder = Path(tempfile.mkdtemp(prefix=f".{directory.name}.{kind}-", dir=directory.parent))
    folder.chmod(0o777 & ~_umask())
    (folder / MARKER).write_text(f"{kind}\n", encoding="utf-8")
    return folder


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _remove_leftovers(directory: Path) -> None:
    """Delete what an interrupted export left beside `directory`: its own marked folders only,
    never a folder someone else made (`.site.old` of another tool is left alone)."""
    for kind in ("building", "old"):
        for folder in directory.parent.glob(f".{glob.escape(directory.name)}.{kind}-*"):
            if folder.is_dir() and not folder.is_symlink() and (folder / MARKER).is_file():
                shutil.rmtree(folder, ignore_errors=True)


def _replaceable(directory: Path) -> bool:
    """Whether `directory` may be replaced: absent, empty, or a previous export."""
    return not directory.exists() or (directory.is_dir() and (
        not any(directory.iterdir()) or (directory / MARKER).is_file()))


def export_site(settings: Settings, directory: Path, base_url: str | None = None, *,
                precompress: bool = False) -> ExportResult:
    """Write the static site for `settings`' data into `directory`, under `base_url`.

    `precompress` also writes `NAME.gz` beside every text file, for servers that send
    precompressed files (nginx's `gzip_static`, Caddy's `precompressed`) instead of
    compressing every answer again.

    The site is built in a new folder beside `directory` and moved into place at the end, so a
    failed export leaves the previous one whole. Raises `ExportError` (and `DataError` for
    broken data) with a one-line reason.
    """
    from app.web.app import create_app

    started = time.monotonic()
    directory = directory.resolve()
    if not _replaceable(directory):
        raise ExportError(f"{directory} is not empty and not an earlier export: "
                          f"choose an empty or new folder")
    site_settings = export_settings(settings, base_url)
    app = create_app(site_settings, static_site=True, build=False)
    urls: Urls = app.state.urls
    directory.parent.mkdir(parents=True, exist_ok=True)
    _remove_leftovers(directory)
    # Beside the target (same file system, so the move is a rename), under a name no one else
    # uses, with the umask's permissions: a web server's own user must read what it serves.
    building = _own_folder(directory, "building")
    try:
        # In a thread of its own: the caller may be running an event loop already (a notebook,
        # Playwright's sync API in the tests), where asyncio.run is refused.
        with ThreadPoolExecutor(max_workers=1) as pool:
            pages, files, size = pool.submit(
                asyncio.run, _write_site(app, urls, building, precompress)).result()
        (building / MARKER).write_text(app.state.library.version + "\n", encoding="utf-8")
        old: Path | None = None
        if directory.exists():
            old = _own_folder(directory, "old")
            directory.rename(old / directory.name)
        building.rename(directory)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
    finally:
        if building.exists():
            shutil.rmtree(building, ignore_errors=True)
    return ExportResult(directory, pages, files, size, time.monotonic() - started)
