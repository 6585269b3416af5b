"""robots.txt, sitemap.xml and /favicon.ico: what crawlers and browsers ask for on their own.

The crawl checks run on the app and on its static export (`python -m app export`, published
under https://example.org/rules/ in the tests): the same files, with the export's URLs.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from app.corpus.models import Corpus
from app.urls import Urls
from app.web.crawlers import robots_txt, sitemap_xml
from tests.conftest import EXPORT_BASE_URL

NS = {"s": "http://www.sitemaps.org/schemas/sitemap/0.9"}


@dataclass(frozen=True)
class Site:
    """A site as a crawler sees it: its files by the app's path, and its URLs."""

    read: Callable[[str], bytes]
    urls: Urls
    base: str  # the scheme and host the absolute URLs are built from


@pytest.fixture(params=["app", "export"])
def site(request: pytest.FixtureRequest) -> Site:
    if request.param == "app":
        client: TestClient = request.getfixturevalue("client")

        def read_app(path: str) -> bytes:
            reply = client.get(path)
            assert reply.status_code == 200
            media = {"/robots.txt": "text/plain", "/sitemap.xml": "application/xml"}[path]
            assert reply.headers["content-type"].startswith(media)
            return reply.content

        return Site(read_app, Urls(), "http://localhost")
    folder: Path = request.getfixturevalue("static_export") / "rules"
    base = EXPORT_BASE_URL.rstrip("/")
    return Site(lambda path: (folder / path.lstrip("/")).read_bytes(),
                Urls(root_path="/rules", public_base_url=base, static_site=True), base)


def test_robots_keeps_crawlers_out_of_redirects_and_names_the_sitemap(site: Site) -> None:
    lines = site.read("/robots.txt").decode("utf-8").splitlines()
    urls = site.urls
    assert f"Disallow: {urls.path('/go/')}" in lines and f"Disallow: {urls.api('')}" in lines
    assert not [line for line in lines if line.startswith(f"Disallow: {urls.path('/search')}")]
    assert f"Sitemap: {urls.absolute(urls.path('/sitemap.xml'), site.base)}" in lines


def test_the_sitemap_lists_every_entry_with_the_data_date(site: Site, corpus: Corpus) -> None:
    root = ET.fromstring(site.read("/sitemap.xml"))
    locations = [u.findtext("s:loc", namespaces=NS) for u in root.findall("s:url", NS)]
    # Home, the timing tables, what changed, every source and every entry.
    assert len(locations) == 3 + len(corpus.sources) + len(corpus)
    assert site.urls.absolute(site.urls.changes(), site.base) in locations
    for entry_id in ("faq/wilds/1", "Tarot Slot"):
        assert site.urls.absolute(site.urls.entry(entry_id), site.base) in locations
    dates = {u.findtext("s:lastmod", namespaces=NS) for u in root.findall("s:url", NS)}
    assert dates == {corpus.updated} and len(corpus.updated) == 10


def test_under_a_sub_path_every_url_carries_it(corpus: Corpus) -> None:
    urls = Urls(root_path="/rules-ko", public_base_url="https://example.org/rules-ko")
    assert "Sitemap: https://example.org/rules-ko/sitemap.xml" in robots_txt(urls, "")
    assert "Disallow: /rules-ko/go/" in robots_txt(urls, "")
    text = sitemap_xml(corpus, urls, "")
    assert "<loc>https://example.org/rules-ko/rules/Attack_of_Opportunity</loc>" in text
    assert "https://example.org/rules/" not in text


def test_the_favicon_is_the_app_icon(client: TestClient) -> None:
    reply = client.get("/favicon.ico")
    assert reply.status_code == 200 and reply.headers["content-type"] == "image/png"
    assert reply.content.startswith(b"\x89PNG")
