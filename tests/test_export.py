"""`python -m app export`: the static site a self-hoster publishes, read as a static host and
a visitor would read it: files at the paths the links name, under the sub-path, nothing that
needs a server, and nginx with the shipped config serving it with the right types."""

from __future__ import annotations

import gzip
import json
import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import quote, unquote, urljoin, urlsplit

import pytest

from app.corpus.models import Corpus
from app.export import MARKER, export_site, references
from app.settings import Settings
from app.urls import Urls
from bench.static_server import (
    CADDYFILE,
    NGINX_CONF,
    caddy_serving,
    nginx_binary,
    nginx_serving,
)
from tests.conftest import DATA, EXPORT_BASE_URL, missing_tool, write_rules_data
from tests.raw import fetch

ROOT = Path(__file__).resolve().parents[1]
SUB = urlsplit(EXPORT_BASE_URL).path  # "/rules/"
NS = {"s": "http://www.sitemaps.org/schemas/sitemap/0.9"}
#: Attributes holding a URL the browser follows or fetches (data-go is a prefix, not a link).
URL_ATTRIBUTES = {"href", "src", "action", "data-sw", "data-titles", "data-suggest",
                  "data-url", "data-root", "content"}


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: list[tuple[str, str]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        named = dict(attrs)
        for name, value in attrs:
            if name not in URL_ATTRIBUTES or not value:
                continue
            if name == "content" and named.get("property") not in ("og:url", "og:image"):
                continue
            self.found.append((f"{tag}[{name}]", value))


def links_of(html: str) -> list[tuple[str, str]]:
    """(where, URL) of every link and fetched URL in `html`."""
    parser = _Links()
    parser.feed(html)
    return parser.found


def page_url(www: Path, file: Path) -> str:
    """The URL (percent-encoded path) a static server answers with `file` (a folder's
    index.html: the folder)."""
    relative = "/" + file.relative_to(www).as_posix()
    return quote(relative.removesuffix("index.html"), safe="/")


def resolve(www: Path, url_path: str) -> Path:
    """The file a static server answers `url_path` (percent-encoded) with."""
    path = unquote(url_path)
    target = www / path.lstrip("/")
    return target / "index.html" if path.endswith("/") else target


def broken_links(www: Path, base_url: str) -> list[str]:
    """Every link in every exported HTML page that names no file, or leaves the sub-path."""
    site = urlsplit(base_url)
    sub = site.path
    problems: list[str] = []
    for file in sorted(www.rglob("*.html")):
        here = page_url(www, file)
        for where, link in links_of(file.read_text(encoding="utf-8")):
            parts = urlsplit(urljoin(here, link))
            if parts.scheme in ("http", "https") and parts.netloc != site.netloc:
                continue  # another site (arkhamdb.com card links)
            if parts.path == here and link.startswith("#"):
                continue  # an anchor on the page itself
            if not parts.path.startswith(sub):
                problems.append(f"{here}: {where} {link} leaves {sub}")
            elif not resolve(www, parts.path).is_file():
                problems.append(f"{here}: {where} {link} names no file")
    return problems


# --- the bundled data, exported once (tests/conftest.py) -------------------------------------

@pytest.fixture(scope="module")
def site(static_export: Path) -> Path:
    """The export folder itself (`www/rules`)."""
    return static_export / SUB.strip("/")


def test_every_page_of_the_reference_is_a_file(site: Path, corpus: Corpus) -> None:
    for entry in corpus:
        page = site / "rules" / entry.id / "index.html"
        assert page.is_file(), entry.id
    for source in corpus.sources:
        assert (site / "sources" / source.id / "index.html").is_file()
    for name in ("index.html", "timing/index.html", "search/index.html", "404.html",
                 "sitemap.xml", "robots.txt", "manifest.webmanifest", "sw.js", "favicon.ico"):
        assert (site / name).is_file(), name
    assert "틈새 공격" in (site / "rules" / "Attack_of_Opportunity" / "index.html").read_text(
        encoding="utf-8")
    assert (site / MARKER).is_file()


def test_every_link_in_every_page_names_an_exported_file(static_export: Path) -> None:
    problems = broken_links(static_export, EXPORT_BASE_URL)
    assert not problems, f"{len(problems)} broken link(s):\n" + "\n".join(problems[:40])


def test_links_carry_the_sub_path_and_canonical_urls_the_base(site: Path) -> None:
    html = (site / "rules" / "Tarot Slot" / "index.html").read_text(encoding="utf-8")
    assert '<link rel="canonical" href="https://example.org/rules/rules/Tarot%20Slot/">' in html
    assert 'href="/rules/timing/"' in html and 'action="/rules/search/"' in html
    assert 'href="/static/' not in html and 'href="/timing' not in html


def test_nothing_that_needs_a_server_is_exported_or_linked(site: Path) -> None:
    for gone in ("settings", "go", "healthz", "readyz", "api/search", "api/index.html",
                 "offline"):
        assert not (site / gone).exists(), gone
    for page in (site / "index.html", site / "rules" / "Doom" / "index.html"):
        html = page.read_text(encoding="utf-8")
        assert "/settings" not in html and "/go/" not in html and "/api/suggest" not in html
    assert 'data-suggest=""' in (site / "index.html").read_text(encoding="utf-8")


def test_the_service_worker_precaches_files_that_exist(static_export: Path, site: Path) -> None:
    script = (site / "sw.js").read_text(encoding="utf-8")
    lists: dict[str, list[str]] = {}
    for name in ("SHELL", "PAGES"):
        found = re.search(rf"const {name} = (\[.*?\]);", script)
        assert found, name
        lists[name] = json.loads(found.group(1))
    assert "/rules/search/" in lists["SHELL"] and "/rules/api/titles.json" in lists["SHELL"]
    missing = [u for urls in lists.values() for u in urls
               if not resolve(static_export, u).is_file()]
    assert not missing and len(lists["PAGES"]) > 250
    manifest = json.loads((site / "manifest.webmanifest").read_text(encoding="utf-8"))
    assert manifest["start_url"] == "/rules/" and manifest["scope"] == "/rules/"
    assert all(resolve(static_export, icon["src"]).is_file() for icon in manifest["icons"])


def test_the_search_pages_title_list_opens_every_entry(static_export: Path, site: Path,
                                                       corpus: Corpus) -> None:
    titles = json.loads((site / "api" / "titles.json").read_text(encoding="utf-8"))["titles"]
    assert len(titles) == len(corpus)
    assert all(resolve(static_export, t["url"]).is_file() for t in titles)


def test_every_sitemap_url_is_an_exported_page_under_the_base(site: Path) -> None:
    # Its content and robots.txt are checked on both sites by tests/test_crawlers.py.
    root = ET.fromstring((site / "sitemap.xml").read_bytes())
    locations = [u.findtext("s:loc", namespaces=NS) or "" for u in root.findall("s:url", NS)]
    assert locations and all(loc.startswith(EXPORT_BASE_URL) for loc in locations)
    assert "https://example.org/rules/timing/" in locations
    assert all(resolve(site.parent, urlsplit(loc).path).is_file() for loc in locations)


def test_the_not_found_page_works_at_any_depth(site: Path) -> None:
    html = (site / "404.html").read_text(encoding="utf-8")
    assert "페이지를 찾을 수 없습니다" in html
    # Served for any missing path: every link must be absolute, not relative to /404.html.
    relative = [link for _, link in links_of(html)
                if not link.startswith(("/", "#", "http://", "https://"))]
    assert not relative


def test_static_files_keep_their_hashed_and_plain_names(site: Path) -> None:
    static = {p.name for p in (site / "static").iterdir()}
    assert "style.css" in static
    hashed = [n for n in static if re.fullmatch(r"style\.[0-9a-f]{10}\.css", n)]
    assert len(hashed) == 1
    static_dir = site / "static"
    assert (static_dir / hashed[0]).read_bytes() == (static_dir / "style.css").read_bytes()


def test_gzip_writes_a_compressed_copy_beside_each_text_file(site: Path) -> None:
    page = site / "rules" / "Attack_of_Opportunity" / "index.html"
    packed = page.with_name("index.html.gz")
    assert gzip.decompress(packed.read_bytes()) == page.read_bytes()
    assert (site / "sw.js.gz").is_file() and (site / "api" / "titles.json.gz").is_file()
    assert not list((site / "static").glob("*.png.gz"))  # images are compressed already


def test_files_pages_and_the_service_worker_use_are_found_for_export() -> None:
    # How a route with a path parameter (`/search-{part}.json`) still gets exported: the
    # search page names its file in an attribute, the service worker in its precache list.
    urls = Urls(root_path="/rules", static_site=True)
    html = ('<ol data-index="/rules/search-index.json" data-go="/rules/go/"></ol>'
            '<a href="/rules/timing/">t</a><img src="https://x.org/a.png">')
    script = 'const SHELL = ["/rules/", "/rules/search-texts.json?v=2"];\nconst X = "/other.js";'
    assert references(html + script, urls) == {"/rules/search-index.json",
                                                 "/rules/search-texts.json"}


# --- ids with every character a path can hold -------------------------------------------------

SPECIAL_IDS = ["Tarot Slot", "물음표?", "샵#기호", "100%_규칙", '"따옴표"', "it's", "faq/wilds/1",
               "더하기+와&"]


@pytest.fixture(scope="module")
def special_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("special")
    rules = [{"id": entry_id, "title": f"규칙 {n}", "text": "본문 [물음표](#물음표?)"}
             for n, entry_id in enumerate(SPECIAL_IDS)]
    data = write_rules_data(folder / "data", rules)
    www = folder / "www"
    export_site(Settings(data_dir=data, index_dir=folder / "index"), www,
                "https://example.org/")
    return www


@pytest.fixture(scope="module")
def translated_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("translated")
    data = write_rules_data(folder / "data", [{"id": "Doom", "title": "파멸", "text": "파멸 토큰"}])
    manifest = json.loads((data / "sources.json").read_text(encoding="utf-8"))
    manifest["sources"].append({"id": "t-de", "game": "ahlcg", "title": "Regeln",
                                "parser": "rules-json", "file": "de.json", "lang": "de",
                                "translation_of": "t"})
    (data / "sources.json").write_text(json.dumps(manifest), encoding="utf-8")
    (data / "de.json").write_text(json.dumps(
        [{"id": "Doom", "title": "Verderben", "text": "Verderbensmarker"}]), encoding="utf-8")
    www = folder / "www"
    export_site(Settings(data_dir=data, index_dir=folder / "index"), www,
                "https://example.org/")
    return www


def test_a_translation_s_search_files_and_pages_are_exported_for_its_readers(
        translated_site: Path) -> None:
    # #26: the static site splits the search files per language as the server does, and its
    # service worker saves a translation's files and pages only for a browser that reads it.
    script = (translated_site / "sw.js").read_text(encoding="utf-8")
    languages = json.loads(script.split("const LANGUAGES = ", 1)[1].split(";\n", 1)[0])
    pages = json.loads(script.split("const PAGES = ", 1)[1].split(";\n", 1)[0])
    assert sorted(languages) == ["de"] and not [u for u in pages if "/de/" in u]
    assert [u for u in languages["de"] if not resolve(translated_site, u).is_file()] == []
    german = json.loads((translated_site / "search-index.de.json").read_text(encoding="utf-8"))
    assert german["lang"] == "de" and "verderben" in german["postings"]["title_tr"]
    assert "Verderben" not in (translated_site / "search-texts.json").read_text(encoding="utf-8")
    assert "Verderben" in (translated_site / "rules" / "de" / "Doom" / "index.html").read_text(
        encoding="utf-8")


def test_ids_with_special_characters_round_trip(special_site: Path) -> None:
    index = (special_site / "sources" / "t" / "index.html").read_text(encoding="utf-8")
    hrefs = [link for _, link in links_of(index) if link.startswith("/rules/")]
    for n, entry_id in enumerate(SPECIAL_IDS):
        page = special_site / "rules" / entry_id / "index.html"
        assert page.is_file(), entry_id
        assert f"규칙 {n}" in page.read_text(encoding="utf-8")
        # The link is percent-encoded, and decodes to exactly the file's path.
        linked = [h for h in hrefs if unquote(h) == f"/rules/{entry_id}/"]
        assert linked and all(c not in linked[0] for c in " ?#\"'"), (entry_id, hrefs)
    assert not broken_links(special_site, "https://example.org/")


# --- the command ----------------------------------------------------------------------------

def _run(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "app", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=300, env={**os.environ, **env})


def test_the_command_writes_replaces_and_refuses(tmp_path: Path, index_dir: Path) -> None:
    env = {"RULES_DATA_DIR": str(DATA), "RULES_INDEX_DIR": str(index_dir),
           "RULES_PUBLIC_BASE_URL": ""}
    target = tmp_path / "site"
    missing = _run("export", str(target), env=env)
    assert missing.returncode == 1 and "--base-url" in missing.stderr and not target.exists()
    first = _run("export", str(target), "--base-url", "https://example.org/", env=env)
    assert first.returncode == 0, first.stderr
    assert re.fullmatch(r".*: \d+ pages, \d+ files, [\d.]+ MB in [\d.]+ s\n", first.stdout)
    (target / "rules" / "stale.html").write_text("old", encoding="utf-8")
    # An earlier export is replaced whole (stale files go); the base URL may come from settings.
    again = _run("export", str(target), env={**env, "RULES_PUBLIC_BASE_URL": "https://x.org"})
    assert again.returncode == 0, again.stderr
    assert not (target / "rules" / "stale.html").exists()
    assert "https://x.org/sitemap.xml" in (target / "robots.txt").read_text(encoding="utf-8")
    other = tmp_path / "someone-elses"
    other.mkdir()
    (other / "keep.txt").write_text("mine", encoding="utf-8")
    refused = _run("export", str(other), "--base-url", "https://example.org/", env=env)
    assert refused.returncode == 1 and "not empty" in refused.stderr
    assert (other / "keep.txt").read_text(encoding="utf-8") == "mine"
    assert _run("export", "--help", env={"RULES_PORT": "not-a-port"}).returncode == 0


def test_the_export_touches_only_folders_carrying_its_marker(tmp_path: Path,
                                                            index_dir: Path) -> None:
    # #20 L5: `export X/site` deleted X/.site.old/ and X/.site.building/, whoever made them.
    env = {"RULES_DATA_DIR": str(DATA), "RULES_INDEX_DIR": str(index_dir)}
    theirs = [tmp_path / ".site.old", tmp_path / ".site.building", tmp_path / ".site.old-x1"]
    for folder in theirs:
        folder.mkdir()
        (folder / "keep.txt").write_text("mine", encoding="utf-8")
    # What an interrupted export of ours left (its own marker inside) may go.
    ours = tmp_path / ".site.building-abc123"
    ours.mkdir()
    (ours / ".rulesajeon-export").write_text("building\n", encoding="utf-8")
    for _ in range(2):  # a new export, then one replacing it
        result = _run("export", str(tmp_path / "site"), "--base-url", "https://example.org/",
                      env=env)
        assert result.returncode == 0, result.stderr
    for folder in theirs:
        assert (folder / "keep.txt").read_text(encoding="utf-8") == "mine", folder
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        [*(f.name for f in theirs), "site"])


# --- served by nginx and Caddy with the shipped configs ----------------------------------------

@pytest.fixture(scope="module", params=["nginx", "caddy"])
def server(request: pytest.FixtureRequest, static_export: Path) -> Iterator[str]:
    """The export behind nginx (required where `RULES_PROXY_TESTS=required`, as in CI) or
    Caddy (tested where installed: `apt-get install caddy`)."""
    if request.param == "nginx":
        if nginx_binary() is None:
            missing_tool("nginx not installed (apt-get install nginx): its config is not tested",
                         "RULES_PROXY_TESTS")
        with nginx_serving(static_export) as (base, _):
            yield base
    else:
        if shutil.which("caddy") is None:
            pytest.skip("caddy not installed (apt-get install caddy): its config is not tested")
        with caddy_serving(static_export) as base:
            yield base


@pytest.mark.parametrize(("path", "status", "media"), [
    ("/rules/", 200, "text/html"),
    ("/rules/rules/Tarot%20Slot/", 200, "text/html"),
    ("/rules/rules/%ED%8B%88%EC%83%88/", 404, "text/html"),
    ("/rules/search/?q=%ED%8B%88%EC%83%88", 200, "text/html"),
    ("/rules/sw.js", 200, "javascript"),
    ("/rules/manifest.webmanifest", 200, "application/manifest+json"),
    ("/rules/api/titles.json", 200, "application/json"),
    ("/rules/sitemap.xml", 200, "xml"),
    ("/rules/static/style.css", 200, "text/css"),
])
def test_the_server_answers_with_the_right_types(server: str, path: str, status: int,
                                                 media: str) -> None:
    reply = fetch(server, path)
    assert reply.status == status and media in reply.headers.get("content-type", "")
    if status == 404:
        assert "페이지를 찾을 수 없습니다" in reply.body.decode("utf-8")
    else:
        assert reply.headers["x-content-type-options"] == "nosniff"
        assert "script-src 'self'" in reply.headers["content-security-policy"]
        assert reply.headers["x-frame-options"] == "DENY"
        assert reply.headers["referrer-policy"] == "strict-origin-when-cross-origin"


def test_the_server_adds_the_slash_and_caches_hashed_files_for_a_year(server: str,
                                                                      site: Path) -> None:
    moved = fetch(server, "/rules/rules/Tarot%20Slot")
    assert moved.status in (301, 308)
    # Caddy 2.6 writes the space unencoded; browsers encode it before following.
    assert moved.headers["location"] in ("/rules/rules/Tarot%20Slot/", "/rules/rules/Tarot Slot/")
    hashed = next(p.name for p in (site / "static").iterdir()
                  if re.fullmatch(r"style\.[0-9a-f]{10}\.css", p.name))
    reply = fetch(server, f"/rules/static/{hashed}", headers={"accept-encoding": "gzip"})
    assert reply.headers["cache-control"] == "public, max-age=31536000, immutable"
    assert reply.headers.get("content-encoding") == "gzip"
    # The copy `export --gzip` wrote is sent as it is, not compressed again on each request.
    assert reply.body == (site / "static" / f"{hashed}.gz").read_bytes()
    page = fetch(server, "/rules/timing/", headers={"accept-encoding": "gzip"})
    assert page.body == (site / "timing" / "index.html.gz").read_bytes()
    assert "Accept-Encoding" in page.headers.get("vary", "")
    assert "script-src 'self'" in reply.headers["content-security-policy"]
    assert fetch(server, "/rules/").headers["cache-control"] == "no-cache"


def test_the_docs_show_the_tested_configs() -> None:
    docs = (ROOT / "docs" / "static-export.md").read_text(encoding="utf-8")
    for config in (NGINX_CONF, CADDYFILE):
        assert config.read_text(encoding="utf-8").strip() in docs, config.name
