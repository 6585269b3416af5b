"""Keyboard use: the skip link is the first Tab stop and moves focus to the main content."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import PAGES


@pytest.mark.parametrize("path", list(PAGES.values()), ids=list(PAGES))
def test_skip_link_is_first_and_focuses_main(fresh_page: Page, base: str, path: str) -> None:
    page = fresh_page
    page.goto(base + path)
    page.keyboard.press("Tab")
    skip = page.locator("a.skip-link")
    expect(skip).to_be_focused()
    expect(skip).to_have_attribute("href", "#main")
    expect(skip).to_be_in_viewport()  # shown when focused, even if hidden otherwise
    page.keyboard.press("Enter")
    expect(page.locator("main#main")).to_be_focused()
