"""Search as you type (static/search.js) and the plain form without JavaScript."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.browser.conftest import new_context


def test_initials_suggest_then_arrow_and_enter_open_the_entry(fresh_page: Page, base: str) -> None:
    page = fresh_page
    page.goto(base + "/")
    box = page.locator("#search-q")
    box.press_sequentially("ㅌㅅㄱㄱ")
    listbox = page.locator("#search-suggestions")
    expect(listbox).to_be_visible()
    expect(listbox.locator("[role=option]").first).to_be_visible()
    expect(box).to_have_attribute("aria-expanded", "true")
    box.press("ArrowDown")
    expect(box).to_have_attribute("aria-activedescendant", re.compile(r".+"))
    box.press("Enter")
    page.wait_for_url(base + "/rules/Attack_of_Opportunity")


def test_escape_closes_the_suggestions(fresh_page: Page, base: str) -> None:
    page = fresh_page
    page.goto(base + "/")
    box = page.locator("#search-q")
    box.press_sequentially("틈새")
    listbox = page.locator("#search-suggestions")
    expect(listbox).to_be_visible()
    box.press("Escape")
    expect(listbox).to_be_hidden()
    expect(box).to_have_attribute("aria-expanded", "false")
    expect(box).to_be_focused()


def test_slash_focuses_the_search_box(fresh_page: Page, base: str) -> None:
    page = fresh_page
    page.goto(base + "/rules/Skill_Test_Timing")
    page.locator("main h1").first.click()  # focus is on the page, not in a field
    box = page.locator("#search-q")
    expect(box).not_to_be_focused()
    page.keyboard.press("/")
    expect(box).to_be_focused()
    expect(box).to_have_value("")  # the "/" itself is not typed into the box


@pytest.fixture()
def no_js_page(browser: Browser) -> Iterator[Page]:
    context = new_context(browser, java_script_enabled=False)
    yield context.new_page()
    context.close()


def test_form_works_without_javascript(no_js_page: Page, base: str) -> None:
    page = no_js_page
    page.goto(base + "/")
    expect(page.locator("#search-suggestions")).to_have_count(0)  # search.js did not run
    page.locator("#search-q").fill("틈새 공격")
    page.locator("#search-q").press("Enter")
    page.wait_for_url(re.compile(re.escape(base) + r"/search\?q="))
    results = page.locator("ol.results li.result a")
    expect(results.first).to_be_visible()
    expect(page.locator("ol.results a[href$='/rules/Attack_of_Opportunity']")).to_have_count(1)


@pytest.mark.parametrize("javascript", [True, False])
def test_the_results_page_names_the_official_term_and_the_correction(
        browser: Browser, base: str, javascript: bool) -> None:
    context = new_context(browser, java_script_enabled=javascript)
    page = context.new_page()
    try:
        page.goto(base + "/")
        page.locator("#search-q").fill("서지")
        page.locator("#search-q").press("Enter")
        page.wait_for_url(re.compile(r".*/search\?q=.*"))
        expect(page.locator(".notice-synonym")).to_have_text("‘서지’ → 공식 용어 ‘급증’")
        expect(page.locator(".result h2 a").first).to_have_text("급증")
        page.goto(base + "/search?q=%ED%8B%88%EC%84%B8%EA%B3%B5%EA%B2%A9")
        notice = page.locator(".notice-correction")
        expect(notice).to_contain_text("‘틈세공격’ 결과가 없어 ‘틈새공격’으로 찾았습니다")
        notice.get_by_role("link", name="‘틈세공격’ 그대로 찾기").click()
        page.wait_for_url(re.compile(r".*typed=1"))
        expect(page.locator(".notice-correction")).to_have_count(0)
    finally:
        context.close()


def _luminance(rgb: str) -> float:
    channels = [int(c) / 255 for c in re.findall(r"\d+", rgb)[:3]]
    linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def test_search_highlights_are_dim_at_night_and_still_readable(browser: Browser,
                                                              base: str) -> None:
    context = new_context(browser, color_scheme="dark")
    page = context.new_page()
    try:
        page.goto(base + "/search?q=%ED%8C%8C%EB%A9%B8")
        mark = page.locator(".snippet mark").first
        background = mark.evaluate("m => getComputedStyle(m).backgroundColor")
        colour = mark.evaluate("m => getComputedStyle(m).color")
        assert _luminance(background) < 0.15  # no glaring yellow block on a dark page
        light, dark = sorted((_luminance(colour), _luminance(background)), reverse=True)
        assert (light + 0.05) / (dark + 0.05) >= 4.5
    finally:
        context.close()


def test_three_results_fit_the_first_screen_and_filters_apply_and_stick(
        phone: Page, base: str) -> None:
    page = phone
    page.goto(base + "/search?q=%EC%A0%81")  # 적: many results
    tops = page.locator(".result").evaluate_all(
        "rs => rs.map(r => r.getBoundingClientRect().bottom)")
    assert sum(1 for bottom in tops if bottom <= 800) >= 3, tops
    assert not page.locator(".filters button[type=submit]").is_visible()
    page.locator("#f-game").select_option("eh")
    page.wait_for_url(re.compile(r".*game=eh.*"))
    # The choice sticks: the box on another page searches Eldritch Horror too.
    page.goto(base + "/rules/Attack_of_Opportunity")
    page.locator("#search-q").fill("단서")
    page.locator("#search-q").press("Enter")
    page.wait_for_url(re.compile(r".*game=eh.*"))

    # …and says so: a chip names the game, the better match in the other game comes first,
    # and "모든 게임" forgets the remembered game.
    page.locator("#search-q").fill("틈새 공격")
    page.locator("#search-q").press("Enter")
    page.wait_for_url(re.compile(r".*game=eh.*"))
    expect(page.locator(".scope .chip")).to_have_text(re.compile("엘드리치 호러에서만"))
    expect(page.locator(".elsewhere a").first).to_have_text("틈새 공격")
    page.locator(".scope a", has_text="모든 게임").click()
    page.wait_for_url(re.compile(r"^(?!.*game=).*$"))
    expect(page.locator(".scope")).to_have_count(0)
    page.locator("#search-q").fill("단서")
    page.locator("#search-q").press("Enter")
    page.wait_for_url(re.compile(r".*q=.*"))
    assert "game=" not in page.url
