"""robots.txt, sitemap.xml and /favicon.ico: what crawlers and browsers ask for on their own."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from fastapi.testclient import TestClient

from app.corpus.models import Corpus
from app.urls import Urls
from app.web.crawlers import robots_txt, sitemap_xml

NS = {"s": "http://www.sitemaps.org/schemas/sitemap/0.9"}


def test_robots_keeps_crawlers_out_of_redirects_and_names_the_sitemap(client: TestClient) -> None:
    reply = client.get("/robots.txt")
    assert reply.status_code == 200 and reply.headers["content-type"].startswith("text/plain")
    lines = reply.text.splitlines()
    assert "Disallow: /go/" in lines and "Disallow: /api/" in lines
    assert not [line for line in lines if line.startswith("Disallow: /search")]
    assert "Sitemap: http://localhost/sitemap.xml" in lines


def test_the_sitemap_lists_every_entry_with_the_data_date(client: TestClient,
                                                          corpus: Corpus) -> None:
    reply = client.get("/sitemap.xml")
    assert reply.status_code == 200 and reply.headers["content-type"] == "application/xml"
    root = ET.fromstring(reply.content)
    locations = [u.findtext("s:loc", namespaces=NS) for u in root.findall("s:url", NS)]
    assert len(locations) == 2 + len(corpus.sources) + len(corpus)
    assert "http://localhost/rules/faq/wilds/1" in locations
    assert "http://localhost/rules/Tarot%20Slot" in locations
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
