"""End-to-end flows for the table and the forum: permalinks, the theme toggle, owned
collections, and reading and searching offline after one visit."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from tests.browser.conftest import choose_first_suggestion, new_context


@pytest.fixture()
def context(browser: Browser, base: str) -> Iterator[BrowserContext]:
    """A reader's context that may use the clipboard."""
    ctx = new_context(browser, permissions=["clipboard-read", "clipboard-write"], base_url=base)
    yield ctx
    ctx.close()


def test_copy_link_copies_the_absolute_url_of_an_entry_and_a_subsection(
    context: BrowserContext, base: str
) -> None:
    page = context.new_page()
    page.goto("/rules/Skill_Test_Timing")
    button = page.locator(".entry-head .copy-link")
    button.click()
    expect(page.locator("#live-status")).to_contain_text("링크를 복사했습니다")
    expect(button).to_contain_text("복사됨")  # the label says so, not only a border colour
    assert page.evaluate("navigator.clipboard.readText()") == base + "/rules/Skill_Test_Timing"
    expect(button).to_contain_text("링크 복사", timeout=4000)

    # A sub-section with a page of its own: its own URL, so a forum preview shows it.
    page.locator("#r-Skill_Test_3 .copy-link").click()
    copied = page.evaluate("navigator.clipboard.readText()")
    assert copied == base + "/rules/Skill_Test_3"
    page.goto("/rules/ehr-%EA%B2%8C%EC%9E%84_%EC%A4%80%EB%B9%84")
    page.locator(".subsection .copy-link").first.click()
    copied = page.evaluate("navigator.clipboard.readText()")
    assert copied.isascii() and "#" not in copied  # fully percent-encoded, no raw Hangul
    page.goto(copied)
    expect(page.locator("h1")).to_be_visible()


def test_the_system_theme_is_followed_until_the_player_chooses(context: BrowserContext) -> None:
    page = context.new_page()
    page.emulate_media(color_scheme="light")
    page.goto("/rules/Attack_of_Opportunity")
    light = page.evaluate("getComputedStyle(document.body).backgroundColor")
    page.emulate_media(color_scheme="dark")  # the phone switches to night mode
    expect(page.locator("html")).to_have_attribute("data-theme", "dark")
    assert page.evaluate("getComputedStyle(document.body).backgroundColor") != light
    page.locator("#theme-toggle").click()  # the player's own choice wins from now on
    page.emulate_media(color_scheme="dark")
    expect(page.locator("html")).to_have_attribute("data-theme", "light")
    page.close()


def test_dark_mode_toggle_is_remembered_across_reloads(context: BrowserContext) -> None:
    page = context.new_page()
    page.emulate_media(color_scheme="light")
    page.goto("/rules/Attack_of_Opportunity")
    toggle = page.locator("#theme-toggle")
    expect(toggle).to_have_attribute("aria-pressed", "false")
    light = page.evaluate("getComputedStyle(document.body).backgroundColor")
    toggle.click()
    expect(toggle).to_have_attribute("aria-pressed", "true")
    dark = page.evaluate("getComputedStyle(document.body).backgroundColor")
    assert dark != light
    page.reload()
    assert page.evaluate("document.documentElement.dataset.theme") == "dark"
    assert page.evaluate("getComputedStyle(document.body).backgroundColor") == dark
    expect(page.locator("#theme-toggle")).to_have_attribute("aria-pressed", "true")


def test_owned_collections_change_the_index(context: BrowserContext) -> None:
    page = context.new_page()
    page.goto("/sources/ahlcg-reference")
    index = page.locator(".letter-group")
    expect(index.get_by_role("link", name="결속 Bonded", exact=True)).to_have_count(1)
    expect(page.locator(".hidden-rules")).to_have_count(0)

    page.goto("/settings")
    for code in ("ptc", "tfa", "tcu", "tde", "tic", "eoe", "side", "investigator", "parallel"):
        page.locator(f"input[name=owned][value={code}]").uncheck()
    page.get_by_role("button", name="저장").click()
    expect(page.get_by_role("status").filter(has_text="저장했습니다")).to_be_visible()

    page.goto("/sources/ahlcg-reference")
    expect(index.get_by_role("link", name="결속 Bonded", exact=True)).to_have_count(0)
    hidden = page.locator(".hidden-rules")
    expect(hidden.locator("summary")).to_contain_text("항목 숨김")
    hidden.locator("summary").click()
    hidden.get_by_role("link", name="결속", exact=True).click()
    page.wait_for_url("**/rules/Bonded")
    expect(page.locator(".note")).to_contain_text("보유하지 않은 확장의 규칙")


def test_offline_after_one_visit_entries_open_and_titles_are_found(saved_page: Page) -> None:
    page = saved_page
    page.context.set_offline(True)
    page.goto("/rules/eh-징조")  # never visited: precached on the first visit
    expect(page.locator("h1")).to_have_text("징조")
    expect(page.locator("#offline-banner")).to_be_visible()

    choose_first_suggestion(page, "ㅌㅅㄱㄱ", "틈새 공격")
    page.wait_for_url("**/rules/Attack_of_Opportunity")
    expect(page.locator("h1")).to_contain_text("틈새 공격")

    page.goto("/search?q=" + "징조")  # the offline page answers from titles
    expect(page.locator("#offline-results a").first).to_have_text("징조")
    expect(page.locator("#search-q")).to_have_value("징조")  # the box keeps the query
    page.goto("/go/" + "징조")  # /go/ offline searches the saved titles too
    expect(page.locator("#offline-query")).to_have_text("징조")
    expect(page.locator("#offline-results a").first).to_have_text("징조")
    page.goto("/settings")  # a page that was never saved says so
    expect(page.locator("#offline-page h1")).to_have_text("저장되지 않은 페이지입니다")
    expect(page.locator("#offline-search")).to_be_hidden()


def test_the_footer_says_when_the_reference_is_saved_for_offline_use(saved_page: Page) -> None:
    expect(saved_page.locator("#saved-note")).to_be_visible(timeout=20000)
    saved_page.goto("/timing")
    expect(saved_page.locator("#saved-note")).to_be_visible()


def test_readable_korean_link_lands_on_the_rule(fresh_page: Page, base: str) -> None:
    fresh_page.goto(base + "/rules/틈새 공격")
    fresh_page.wait_for_url(base + "/rules/Attack_of_Opportunity")
    expect(fresh_page.locator("h1")).to_contain_text("틈새 공격")
    fresh_page.goto(base + "/go/ㅌㅅㄱㄱ")
    fresh_page.wait_for_url(base + "/rules/Attack_of_Opportunity")


def test_settings_select_all_and_none_and_the_hidden_count(context: BrowserContext) -> None:
    page = context.new_page()
    page.goto("/settings")
    boxes = page.locator('.owned-form input[name="owned"]')
    page.get_by_role("button", name="모두 해제").click()
    assert all(not boxes.nth(i).is_checked() for i in range(boxes.count()))
    page.get_by_role("button", name="모두 선택").click()
    assert all(boxes.nth(i).is_checked() for i in range(boxes.count()))
    page.goto("/sources/ahlcg-reference")
    everything = int(page.locator(".badges .badge").nth(1).inner_text().split("개")[0])
    context.add_cookies([{"name": "owned", "value": "-tcu.tde", "url": page.url}])
    page.goto("/sources/ahlcg-reference")
    summary = page.locator(".hidden-rules summary")
    assert summary.evaluate("s => getComputedStyle(s).display") == "list-item"  # keeps ▶
    count = page.locator(".badges .badge").nth(1).inner_text()
    assert "숨김" in count
    shown = int(count.split("개")[0])
    assert shown < everything
