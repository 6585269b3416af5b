"""What changed, in Chromium: "changed since your last visit" (localStorage only, on the app,
its static export and offline), the removed page under axe and the Nu checker, and the pages
on a phone."""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, Route, expect

from bench.server import running_server
from tests.browser.conftest import (
    VNU_JAR,
    WAIT_FOR_WORKER,
    new_context,
    require_file,
    require_java,
)
from tests.browser.test_axe import AXE_PATH, AXE_TAGS, format_violations
from tests.conftest import DATA

#: What a visitor's browser remembers after a visit when the newest rules were of 2024-01-01.
OLD_VISIT = {"seen": "2024-01-01", "before": "2024-01-01"}


def _remember(page: Page, visit: dict[str, str], root: str = "/") -> None:
    page.evaluate("([key, value]) => localStorage.setItem(key, value)",
                  [f"rules-visit:{root}", json.dumps(visit)])


def test_changes_since_the_last_visit_are_marked_until_cleared(browser: Browser,
                                                                base: str) -> None:
    context = new_context(browser, base_url=base)
    page = context.new_page()
    page.goto("/rules/Concealed_X")  # a first visit marks nothing
    expect(page.locator(".history-line .visit-mark")).to_be_hidden()
    _remember(page, OLD_VISIT)  # as if the last visit saw the rules of 2024-01-01
    page.reload()
    expect(page.locator(".history-line .visit-mark")).to_be_visible()  # changed 2024-07-31
    page.goto("/rules/Game")  # last changed 2023-09-04: before that visit
    expect(page.locator(".history-line .visit-mark")).to_be_hidden()
    page.goto("/sources/ahlcg-reference")
    marked = page.locator(".letter-group li.changed-since > a")
    expect(marked.filter(has_text="은신 X")).to_have_count(1)
    assert marked.count() < 40  # the rules changed since, not the whole index
    page.goto("/changes")
    expect(page.locator("[data-visit-note]")).to_be_visible()
    expect(page.locator("#r-2024-07-31-32077d0f7 .visit-mark")).to_be_visible()
    expect(page.locator("#r-2023-09-04-928d3538c .visit-mark")).to_be_hidden()
    page.get_by_role("button", name="표시 지우기").click()
    expect(page.locator(".visit-mark:visible")).to_have_count(0)
    page.goto("/rules/Concealed_X")
    expect(page.locator(".history-line .visit-mark")).to_be_hidden()
    assert context.cookies() == []  # no cookie, no server state: localStorage only
    context.close()


def test_the_marks_work_on_the_static_export_offline(browser: Browser, export_base: str) -> None:
    context = browser.new_context(locale="ko-KR", service_workers="allow", base_url=export_base)
    page = context.new_page()
    page.goto("/rules/")
    assert page.evaluate(WAIT_FOR_WORKER) == "ready"
    _remember(page, OLD_VISIT, "/rules/")
    context.set_offline(True)
    page.goto("/rules/rules/Concealed_X/")
    expect(page.locator(".history-line .visit-mark")).to_be_visible()
    page.goto("/rules/changes/")
    expect(page.locator("#r-2024-07-31-32077d0f7 .visit-mark")).to_be_visible()
    context.close()


def test_the_static_export_carries_history_changes_and_the_feed(
        browser: Browser, export_base: str, tmp_path: Path) -> None:
    context = new_context(browser, base_url=export_base)
    page = context.new_page()
    page.goto("/rules/rules/Signature_Cards/")
    page.get_by_role("link", name="변경 이력").first.click()
    expect(page).to_have_url(export_base + "/rules/history/Signature_Cards/")
    expect(page.locator(".diff ins").first).to_be_visible()
    page.goto("/rules/rules/Golden_Rule/")  # an old id: the page sends the browser on
    expect(page).to_have_url(export_base + "/rules/rules/The_Golden_Rules/")
    feed = page.request.get(export_base + "/rules/changes.atom")
    assert feed.ok and b"<feed" in feed.body()
    # The page an old id lands on is valid HTML (it moves on at once: no time for axe).
    moved = tmp_path / "moved.html"
    moved.write_bytes(page.request.get(export_base + "/rules/rules/Golden_Rule/").body())
    context.close()
    _valid_html(moved)


def _valid_html(path: Path) -> None:
    run = subprocess.run([require_java(), "-jar", str(require_file(VNU_JAR, "run `npm ci`")),
                          "--errors-only", str(path)], capture_output=True, text=True,
                         timeout=120, check=False)
    assert run.returncode == 0, run.stderr


# --- An entry a revision removed ---------------------------------------------------------------

@pytest.fixture(scope="module")
def removed_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A server over the bundled data plus one local revision that removes `Keys2`."""
    folder = tmp_path_factory.mktemp("removed") / "data"
    shutil.copytree(DATA, folder)
    rules = folder / "ahlcg-rules.json"
    nodes: list[dict[str, Any]] = json.loads(rules.read_text(encoding="utf-8"))

    def drop(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [{**n, **({"rules": drop(n["rules"])} if "rules" in n else {})}
                for n in items if n["id"] != "Keys2"]

    rules.write_text(json.dumps(drop(nodes), ensure_ascii=False), encoding="utf-8")
    env = {"RULES_DATA_DIR": str(folder),
           "RULES_INDEX_DIR": str(tmp_path_factory.mktemp("removed-index") / "index")}
    with running_server(env) as (base, _):
        yield base


def test_the_removed_page_has_no_accessibility_or_html_errors(
        browser: Browser, removed_site: str, axe_source: str,
        tmp_path: Path) -> None:
    context = new_context(browser, base_url=removed_site)
    page = context.new_page()

    def serve_axe(route: Route) -> None:
        route.fulfill(status=200, content_type="text/javascript; charset=utf-8",
                      body=axe_source)

    page.route(removed_site + AXE_PATH, serve_axe)
    response = page.goto("/rules/Keys2")
    assert response is not None and response.status == 410
    expect(page.get_by_text("삭제된 항목입니다.")).to_be_visible()
    page.add_script_tag(url=removed_site + AXE_PATH)
    results: dict[str, Any] = page.evaluate(
        "tags => axe.run(document, {runOnly: {type: 'tag', values: tags}})", AXE_TAGS)
    assert not results["violations"], format_violations(results["violations"])
    html = tmp_path / "removed.html"
    html.write_bytes(page.request.get(removed_site + "/rules/Keys2").body())  # as sent
    context.close()
    _valid_html(html)


# --- On a phone -------------------------------------------------------------------------------

@pytest.mark.parametrize("path", ["/history/Signature_Cards", "/changes",
                                  "/rules/Signature_Cards"])
def test_the_pages_fit_a_phone(phone: Page, base: str, path: str) -> None:
    phone.goto(base + path)
    width = phone.evaluate("document.documentElement.scrollWidth")
    assert width <= 360, f"{path} scrolls sideways ({width} px)"
    # Every link of the new parts is a tap target of 44 px or more in height.
    for selector in (".history-line a", ".source-filter a", ".changed-list a",
                     ".revision-subject a", ".lag-note a"):
        for box in [phone.locator(selector).nth(i).bounding_box()
                    for i in range(min(phone.locator(selector).count(), 5))]:
            assert box is not None and box["height"] >= 44, (path, selector, box)
