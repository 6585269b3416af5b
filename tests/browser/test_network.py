"""What a first visit costs and where it goes: bytes on the wire, and only the server's host."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest
from playwright.sync_api import Browser, Request

from tests.browser.conftest import PAGES, WAIT_FOR_WORKER, new_context

#: HTML + CSS + JS of an entry page on a first load, compressed as transferred (headers too).
WEIGHT_BUDGET = 60_000
ENTRY_PAGES = ["/rules/Skill_Test_Timing", "/rules/Attack_of_Opportunity"]
COUNTED_TYPES = {"Document", "Stylesheet", "Script"}



@dataclass(frozen=True)
class Transfer:
    url: str
    type: str
    encoding: str
    size: int  # bytes received, from CDP Network.loadingFinished.encodedDataLength


def first_load(browser: Browser, url: str) -> list[Transfer]:
    """Every response of a cold load of `url` (new context: empty cache), as Chromium saw it."""
    context = new_context(browser)
    try:
        page = context.new_page()
        cdp = context.new_cdp_session(page)
        seen: dict[str, dict[str, Any]] = {}
        done: dict[str, int] = {}

        def on_response(event: dict[str, Any]) -> None:
            seen[event["requestId"]] = {**event["response"], "type": event.get("type", "")}

        def on_finished(event: dict[str, Any]) -> None:
            done[event["requestId"]] = int(event["encodedDataLength"])

        cdp.on("Network.responseReceived", on_response)
        cdp.on("Network.loadingFinished", on_finished)
        cdp.send("Network.enable")
        page.goto(url, wait_until="networkidle")
        cdp.detach()
    finally:
        context.close()
    transfers = []
    for request_id, response in seen.items():
        headers = {k.lower(): v for k, v in response.get("headers", {}).items()}
        transfers.append(Transfer(response["url"], response["type"],
                                  headers.get("content-encoding", ""), done.get(request_id, 0)))
    return transfers


def table(transfers: list[Transfer]) -> str:
    return "\n".join(f"  {t.size:>7} B  {t.type:<10} {t.encoding or '-':<5} {t.url}"
                     for t in transfers)


@pytest.mark.parametrize("path", ENTRY_PAGES)
def test_entry_page_first_load_weight(browser: Browser, base: str, path: str) -> None:
    transfers = first_load(browser, base + path)
    counted = [t for t in transfers if t.type in COUNTED_TYPES]
    total = sum(t.size for t in counted)
    report = f"{total} B of HTML+CSS+JS for {path} (budget {WEIGHT_BUDGET} B):\n{table(transfers)}"
    assert {t.type for t in counted} >= {"Document", "Stylesheet"}, report
    assert all(t.size > 0 for t in counted), report
    assert total <= WEIGHT_BUDGET, report
    big_uncompressed = [t for t in counted if t.size > 1500 and t.encoding != "gzip"]
    assert not big_uncompressed, "sent uncompressed:\n" + table(big_uncompressed)


def test_only_the_server_is_contacted(browser: Browser, base: str) -> None:
    """Every page, then the service worker's install (precache), request only the server."""
    context = new_context(browser, service_workers="allow")
    requests: list[str] = []

    def record(request: Request) -> None:
        requests.append(request.url)

    context.on("request", record)  # page and service-worker requests alike (Chromium)
    try:
        page = context.new_page()
        for path in PAGES.values():
            page.goto(base + path, wait_until="networkidle")
        # The worker is registered on load; `ready` resolves once it has installed (after its
        # precache) and activated. Bounded, so a worker that never installs fails, not hangs.
        state = page.evaluate(WAIT_FOR_WORKER)
        assert state in {"ready", "none"}, f"service worker: {state}"
    finally:
        context.close()
    assert requests
    foreign = sorted({u for u in requests if not u.startswith(base + "/")
                      and not u.startswith("data:")})
    assert not foreign, "requests to other hosts:\n" + "\n".join(foreign)
