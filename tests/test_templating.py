"""The parts of every page rendered once per template environment (`templating.FIXED`) are
rendered for that environment's URL helper: under a root path, and on the static export."""

from __future__ import annotations

import re

from app.urls import Urls
from app.web.templating import FIXED, make_environment, render_page


def _page(urls: Urls) -> str:
    return render_page(make_environment(urls), "offline.html",
                       {"search_languages": [], "canonical": "http://x/", "icon_url": "i",
                        "absolute": lambda path: path, "data_changed": "",
                        "latest_change": None})


def test_each_fixed_part_is_in_every_page_once() -> None:
    fixed = make_environment(Urls()).globals["fixed"]
    assert isinstance(fixed, dict)
    page = _page(Urls())
    for name in FIXED:
        assert page.count(str(fixed[name])) == 1


def test_fixed_parts_follow_the_root_path() -> None:
    page = _page(Urls(root_path="/rules-ko", static_names={"style.css": "style.0123abcd.css"}))
    assert '<link rel="stylesheet" href="/rules-ko/static/style.0123abcd.css">' in page
    assert '<a class="brand" href="/rules-ko/">' in page
    footer = page[page.index('<footer'):]
    links = re.findall(r'href="([^"]+)"', footer)
    assert links and all(link.startswith("/rules-ko/") for link in links)
    assert "/rules-ko/settings" in links


def test_the_static_export_footer_links_only_what_a_static_host_serves() -> None:
    footer = _page(Urls(static_site=True))
    footer = footer[footer.index('<footer'):]
    assert 'href="/timing/"' in footer
    assert "/settings" not in footer and "/api" not in footer
