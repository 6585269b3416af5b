"""Reading a rule on a phone (360×800): the rule itself comes first."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, Page

from tests.browser.conftest import new_context

#: A sample of entry pages: top-level, nested, deep, Eldritch Horror, FAQ, English, a table.
SAMPLE = ["/rules/Attack_of_Opportunity", "/rules/Skill_Test_3", "/rules/Bonded",
          "/rules/ehr-%EA%B2%8C%EC%9E%84_%EC%A4%80%EB%B9%84", "/rules/faq/wilds/1",
          "/rules/en/Frost_Tokens", "/rules/Skill_Test_Timing"]
_FIRST_LINE = """() => {
  const body = document.querySelector('article.entry > .body, article.entry table.timing');
  const first = body && (body.firstElementChild || body);
  return first ? first.getBoundingClientRect().top : null;
}"""


@pytest.mark.parametrize("owned", [None, "-tcu.tde"], ids=["all-owned", "not-owned"])
def test_the_first_line_of_the_rule_is_in_the_top_40_percent(phone: Page, base: str,
                                                             owned: str | None) -> None:
    if owned:
        phone.context.add_cookies([{"name": "owned", "value": owned, "url": base}])
    for path in SAMPLE:
        phone.goto(base + path)
        top = phone.evaluate(_FIRST_LINE)
        assert top is not None and top <= 0.4 * 800, (path, top)
    # What moved below the rule is still on the page.
    phone.goto(base + "/rules/Bonded")
    assert phone.locator(".badge.collection").count() >= 1
    if owned:
        assert phone.locator(".note-compact").is_visible()


def test_the_jump_bar_is_one_row_and_the_heading_it_jumps_to_stays_visible(
        phone: Page, base: str) -> None:
    phone.goto(base + "/sources/ahlcg-reference")
    height = phone.locator(".jumpbar").evaluate("b => b.getBoundingClientRect().height")
    assert height <= 60, height
    phone.locator('.jumpbar a[href="#letter-ㅈ"]').click()
    top = phone.locator("#letter-ㅈ-h").evaluate("h => h.getBoundingClientRect().top")
    assert top >= height - 1, (top, height)  # not under the pinned bar


def test_section_headings_keep_their_width_and_an_opened_section_is_marked(
        phone: Page, base: str) -> None:
    phone.goto(base + "/rules/Appendix_II_Timing_and_Gameplay")
    for heading in phone.locator(".subsection-title").all()[:6]:
        box = heading.bounding_box()
        assert box is not None and box["width"] >= 200, box
        lines = heading.evaluate(
            "h => Math.round(h.getBoundingClientRect().height / "
            "parseFloat(getComputedStyle(h).lineHeight))")
        assert lines <= 3, (heading.inner_text(), lines)
    phone.goto(base + "/rules/Skill_Test_Timing#r-Skill_Test_3")
    outline = phone.locator("#r-Skill_Test_3").evaluate("s => getComputedStyle(s).outlineStyle")
    assert outline == "solid"


def test_on_a_desktop_long_entries_show_their_contents_and_timing_uses_the_width(
        browser: Browser, base: str) -> None:
    context = new_context(browser, viewport={"width": 1280, "height": 800})
    page = context.new_page()
    try:
        page.goto(base + "/rules/Appendix_II_Timing_and_Gameplay")
        toc = page.locator("nav.toc")
        assert toc.is_visible()
        article = page.locator("article.entry").bounding_box()
        box = toc.bounding_box()
        assert article is not None and box is not None and box["x"] > article["x"] + 400
        page.goto(base + "/timing")
        tables = page.locator(".timing-grid").first.locator(".timing-section").all()
        boxes = [t.bounding_box() for t in tables[:2]]
        assert boxes[0] is not None and boxes[1] is not None
        assert abs(boxes[0]["y"] - boxes[1]["y"]) < 5  # side by side
        page.set_viewport_size({"width": 360, "height": 800})
        page.goto(base + "/rules/Appendix_II_Timing_and_Gameplay")
        assert not page.locator("nav.toc").is_visible()  # the rule first on a phone
    finally:
        context.close()
