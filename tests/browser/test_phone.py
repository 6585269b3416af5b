"""A player's phone (360×800 in Chromium): tap targets, the settings form, the jump bars, the
FAQ breadcrumb and the "오프라인 준비 완료" notice (#25)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.browser.conftest import PAGES, new_context

#: Every tap target of the page smaller than 24×24 px (WCAG 2.2, 2.5.8), except a link that is
#: a word of a sentence (the criterion's inline exception): an inline link whose block holds
#: other text, unless that block is a list of links (`p.links`, `관련된 주제: 길, 칸`).
SMALL_TARGETS = """() => {
  const inSentence = (el) => {
    if (getComputedStyle(el).display !== 'inline') return false;
    let block = el.parentElement;
    while (block && getComputedStyle(block).display === 'inline') block = block.parentElement;
    return !!block && !block.classList.contains('links')
      && block.textContent.trim().length > el.textContent.trim().length + 2;
  };
  const small = [];
  const targets = 'a[href], button, input:not([type=hidden]), select, summary, textarea';
  for (const el of document.querySelectorAll(targets)) {
    const box = el.getBoundingClientRect();
    if (box.width === 0 && box.height === 0) continue;  // not shown (closed, hidden)
    if (el.closest('.visually-hidden, [hidden]') && !el.matches(':focus')) continue;
    if (box.width >= 24 && box.height >= 24) continue;
    if (inSentence(el)) continue;
    small.push(`${el.tagName} "${(el.textContent || el.name).trim().slice(0, 30)}" `
               + `${Math.round(box.width)}×${Math.round(box.height)}`);
  }
  return small;
}"""

#: Pages with targets of their own beside the shared list: EH glossary terms with 관련된 주제
#: lines, its index of one-syllable titles (길, 칸), an English entry with its original.
MORE_PAGES = {"eh-term": "/rules/eh-가장_가까운", "eh-index": "/sources/eh-reference",
              "original": "/rules/Attack_of_Opportunity"}


@pytest.fixture()
def phone_at(browser: Browser, base: str) -> Iterator[Page]:
    context = new_context(browser, viewport={"width": 360, "height": 800}, base_url=base)
    page = context.new_page()
    yield page
    context.close()


@pytest.mark.parametrize("path", [*PAGES.values(), *MORE_PAGES.values()],
                         ids=[*PAGES, *MORE_PAGES])
def test_every_tap_target_is_at_least_24_px(phone_at: Page, path: str) -> None:
    phone_at.goto(path)
    assert phone_at.evaluate(SMALL_TARGETS) == []


def test_settings_fit_a_thumb_and_the_save_button_is_always_in_reach(phone_at: Page) -> None:
    phone_at.goto("/settings")
    rows = phone_at.evaluate("""() => [...document.querySelectorAll('.check')].map((label) => {
        const box = label.querySelector('input').getBoundingClientRect();
        return [label.getBoundingClientRect().height, box.width, box.height];
    })""")
    assert len(rows) >= 10
    assert all(row[0] >= 44 for row in rows), rows
    assert {(round(w), round(h)) for _, w, h in rows} == {(24, 24)}  # none squeezed
    # Korean names wrap between words only: each word of each name sits on one line.
    split = phone_at.evaluate("""() => {
        const split = [];
        for (const name of document.querySelectorAll('.check-name')) {
            const text = name.firstChild;
            let at = 0;
            for (const word of text.textContent.split(' ')) {
                if (word) {
                    const range = document.createRange();
                    range.setStart(text, at);
                    range.setEnd(text, at + word.length);
                    const rects = [...range.getClientRects()];
                    const lines = new Set(rects.map((r) => Math.round(r.top)));
                    if (lines.size > 1) split.push(word);
                }
                at += word.length + 1;
            }
        }
        return split;
    }""")
    assert split == []
    phone_at.evaluate("window.scrollTo(0, 0)")
    # The offline-saving notice floats above the pinned save bar, never over its button or text.
    overlap = phone_at.evaluate("""() => {
        const note = document.getElementById('offline-progress');
        note.hidden = false;
        note.textContent = '오프라인 저장 중 0%';
        const a = note.getBoundingClientRect();
        const b = document.querySelector('.save-bar').getBoundingClientRect();
        note.hidden = true;
        return a.bottom > b.top && a.top < b.bottom;
    }""")
    assert overlap is False
    save = phone_at.get_by_role("button", name="저장")
    for scrolled in (0, 700, 1400):
        phone_at.evaluate(f"window.scrollTo(0, {scrolled})")
        box = save.bounding_box()
        assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= 800, scrolled
        assert box["height"] >= 44
    save.click()
    expect(phone_at.get_by_role("status").filter(has_text="저장했습니다")).to_be_visible()


@pytest.mark.parametrize(("path", "bar"), [("/sources/ahlcg-reference", ".jumpbar"),
                                           ("/timing", ".phase-jump")])
def test_jump_bars_show_that_they_scroll_and_follow_the_reader(phone_at: Page, path: str,
                                                               bar: str) -> None:
    phone_at.goto(path)
    nav = phone_at.locator(bar)
    assert nav.get_attribute("data-more") == "end"
    assert nav.evaluate("n => getComputedStyle(n, '::after').content") == '"›"'
    phone_at.wait_for_function("s => getComputedStyle(document.querySelector(s), '::after')"
                               ".opacity === '1'", arg=bar)  # after its fade-in
    # Read the page down to its last section: the bar marks it and scrolls it into view.
    last = nav.locator('a[href^="#"]').last
    target = last.get_attribute("href")
    assert target is not None
    phone_at.locator(target).evaluate("t => window.scrollTo(0, t.getBoundingClientRect().top"
                                      " + window.scrollY - 60)")
    expect(last).to_have_attribute("aria-current", "location")
    inside = nav.evaluate("""(n) => {
        const list = n.querySelector('ul').getBoundingClientRect();
        const mark = n.querySelector('[aria-current]').getBoundingClientRect();
        return mark.left >= list.left - 1 && mark.right <= list.right + 1;
    }""")
    assert inside
    expect(nav).to_have_attribute("data-more", "start")
    box = nav.bounding_box()  # pinned at the top while the page scrolls
    assert box is not None and 0 <= box["y"] <= 1


def test_a_faq_breadcrumb_keeps_the_scenario_readable(phone_at: Page) -> None:
    phone_at.goto("/rules/faq/wilds/1")
    scenario = phone_at.locator(".breadcrumb li").last.locator("a")
    expect(scenario).to_have_text("길들지 않은 야생")
    assert scenario.evaluate("a => a.scrollWidth <= a.clientWidth")  # no ellipsis
    tops = phone_at.locator(".breadcrumb li").evaluate_all(
        "items => new Set(items.map((li) => Math.round(li.getBoundingClientRect().top))).size")
    assert tops == 1  # still one line


#: Each line of a result's title link: (top, leftmost x) of the text's line boxes, relative to
#: the link's own left edge. A title that reads as one paragraph starts every line there.
TITLE_LINES = """(a) => {
  const range = document.createRange();
  range.selectNodeContents(a);
  const left = a.getBoundingClientRect().left, lines = [];
  // A bold word's box may sit a pixel off its line's text: boxes 3 px apart share a line.
  const boxes = [...range.getClientRects()].sort((p, q) => p.top - q.top);
  for (const r of boxes) {
    const line = lines.find((l) => Math.abs(l[0] - r.top) <= 3);
    if (line) line[1] = Math.min(line[1], r.left - left);
    else lines.push([r.top, r.left - left]);
  }
  return lines;
}"""


def test_a_result_title_with_bold_words_reads_as_one_paragraph(phone_at: Page) -> None:
    # A FAQ question's title marks the rules' words in bold (<b>탐사</b> 행동을 …): the words
    # and the text between them are one paragraph, not columns side by side.
    phone_at.goto("/search?q=탐사 덱 전체를 뽑았지만 음모 카드도 없고")
    link = phone_at.locator('.result h2 a[href="/rules/faq/wilds/1"]')
    expect(link.locator("b").first).to_have_text("탐사")
    lines = link.evaluate(TITLE_LINES)
    assert len(lines) >= 2  # a long question wraps
    assert all(abs(left) <= 1 for _, left in lines), lines


def test_the_phone_is_told_when_the_reference_is_saved_for_offline(browser: Browser,
                                                                    base: str) -> None:
    context = browser.new_context(locale="ko-KR", service_workers="allow", base_url=base,
                                  viewport={"width": 360, "height": 800})
    # What the notice said, and when, from the page's own clock.
    context.add_init_script("""
        window.__notices = [];
        new MutationObserver(() => {
            const note = document.getElementById('offline-progress');
            if (note && !note.hidden) window.__notices.push([performance.now(), note.textContent]);
        }).observe(document, {subtree: true, childList: true, characterData: true,
                              attributes: true});
    """)
    try:
        page = context.new_page()
        page.goto("/")
        notice = page.locator("#offline-progress")
        expect(notice).to_contain_text("오프라인 준비 완료", timeout=90_000)
        expect(notice).to_be_in_viewport()
        said = page.evaluate("window.__notices")
        loaded = page.evaluate("performance.getEntriesByType('navigation')[0].loadEventEnd")
        assert any("저장 중" in text for _, text in said), said  # progress on the way
        assert said[0][0] >= loaded  # the saving starts after the page has loaded
        expect(notice).to_be_hidden(timeout=10_000)
        page.reload()  # saved already: not told again
        page.wait_for_timeout(1500)
        assert page.evaluate("window.__notices") == []
        expect(page.locator("#saved-note")).to_be_visible()
    finally:
        context.close()
