"""The static export in Chromium, served by `python -m http.server` under /rules/ (no app
running): pages open, the header's search box finds a rule, and after one visit the whole
reference opens offline. The axe and vnu checks run on it too (test_axe, test_html_validity).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from urllib.parse import quote

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.browser.conftest import WAIT_FOR_WORKER, choose_first_suggestion, new_context


@pytest.fixture()
def page(browser: Browser, export_base: str) -> Iterator[Page]:
    """A fresh page on the export (no service worker)."""
    context = new_context(browser, base_url=export_base)
    yield context.new_page()
    context.close()


@pytest.mark.parametrize(("path", "heading"), [
    ("/rules/", "규칙을 바로 찾으세요"),
    ("/rules/rules/Attack_of_Opportunity/", "틈새 공격"),
    ("/rules/rules/Tarot%20Slot/", "타로 슬롯"),
    ("/rules/timing/", "타이밍"),
    ("/rules/sources/ahlcg-reference/", "아컴호러 카드게임 참조 안내서"),
])
def test_pages_open_with_their_styles_and_scripts(page: Page, path: str, heading: str) -> None:
    failed: list[str] = []
    page.on("requestfailed", lambda request: failed.append(request.url))
    page.on("response", lambda r: failed.append(f"{r.status} {r.url}") if r.status >= 400
            else None)
    response = page.goto(path)
    assert response is not None and response.status == 200
    expect(page.locator("h1").first).to_contain_text(heading)
    # The hashed stylesheet and scripts arrived (no 404 for any of them) and the styles apply.
    assert page.evaluate("document.styleSheets[0].cssRules.length") > 10
    assert not failed, failed


def test_the_header_box_finds_a_rule_by_its_title(page: Page) -> None:
    page.goto("/rules/rules/Doom/")
    box = page.locator("#search-q")
    box.fill("틈새 공격")
    box.press("Enter")
    page.wait_for_url(re.compile(r"/rules/search/\?q="))
    found = page.locator("main a", has_text="틈새 공격").first
    expect(found).to_be_visible()
    found.click()
    page.wait_for_url("**/rules/rules/Attack_of_Opportunity/")
    expect(page.locator("h1").first).to_contain_text("틈새 공격")


def test_the_search_page_searches_bodies_and_teaches_the_official_term(page: Page) -> None:
    """The export's search is the site's own, not an offline stand-in: the whole text, and
    what the search changed said as the server says it."""
    page.goto("/rules/search/?q=" + quote("클루를 얻으려면"))
    expect(page.locator("h1").first).not_to_contain_text("오프라인")
    note = page.locator("#offline-note")
    expect(note).to_contain_text("‘클루’ → 공식 용어 ‘단서’")  # as the server's page says it
    expect(page.locator("#offline-results li").first).to_contain_text("단서")
    # A phrase only a rule's body holds (틈새 공격's own text) finds that rule.
    page.goto("/rules/search/?q=" + quote("행동의 효과가 게임 상태에 적용되기 전에"))
    expect(page.locator("#offline-results li a").first).to_have_text("틈새 공격")


def test_suggestions_come_from_the_title_list_without_a_server(page: Page) -> None:
    page.goto("/rules/")
    choose_first_suggestion(page, "ㅌㅅㄱㄱ", "틈새 공격")
    page.wait_for_url("**/rules/rules/Attack_of_Opportunity/")


def test_after_one_visit_the_reference_opens_offline(browser: Browser, export_base: str) -> None:
    context = browser.new_context(locale="ko-KR", service_workers="allow", base_url=export_base)
    try:
        page = context.new_page()
        page.goto("/rules/")
        assert page.evaluate(WAIT_FOR_WORKER) == "ready"
        context.set_offline(True)
        page.goto("/rules/rules/" + quote("eh-징조") + "/")  # never visited: precached
        expect(page.locator("h1")).to_have_text("징조")
        page.goto("/rules/rules/Tarot%20Slot/")
        expect(page.locator("h1")).to_be_visible()
        page.goto("/rules/search/?q=" + quote("틈새 공격"))  # the search page, from the cache
        found = page.locator("main a", has_text="틈새 공격").first
        expect(found).to_be_visible()
        found.click()
        page.wait_for_url("**/rules/rules/Attack_of_Opportunity/")
        expect(page.locator("h1").first).to_contain_text("틈새 공격")
    finally:
        context.close()
