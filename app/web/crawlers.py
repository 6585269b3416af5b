"""What crawlers ask for: `robots.txt` and `sitemap.xml`. No web framework here.

The sitemap lists every page a search engine should know (home, timing tables, each source's
index and every entry) as absolute URLs under the public base, with the data version's date
as `lastmod`; `/go/` redirects and the raw API are kept out by robots.txt.
"""

from __future__ import annotations

from xml.sax.saxutils import escape

from app.corpus.models import Corpus
from app.urls import Urls


def robots_txt(urls: Urls, base: str) -> str:
    """Crawl the reference, not the redirects or the raw API; where the sitemap is.

    Search pages stay crawlable (a results page is a page a search engine may send a player
    to); one with no results says `noindex` itself."""
    return (
        "User-agent: *\n"
        f"Disallow: {urls.path('/go/')}\n"
        f"Disallow: {urls.api('')}\n"
        f"Sitemap: {urls.absolute(urls.path('/sitemap.xml'), base)}\n"
    )


def sitemap_xml(corpus: Corpus, urls: Urls, base: str) -> str:
    """Every page worth indexing, with the data version's date."""
    paths = [urls.home(), urls.timing(), urls.changes(),
             *(urls.source(s.id) for s in corpus.sources),
             *(urls.entry(e.id) for e in corpus)]
    lastmod = f"<lastmod>{corpus.updated}</lastmod>" if corpus.updated else ""
    rows = "".join(f"<url><loc>{escape(urls.absolute(p, base))}</loc>{lastmod}</url>\n"
                   for p in paths)
    return ('<?xml version="1.0" encoding="UTF-8"?>\n'
            '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
            f"{rows}</urlset>\n")
